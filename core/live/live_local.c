/* Which sandboxes are this machine's boxes: a box whose local record names that very
 * sandbox. Everything else (team sandboxes, workspaces, boxes made on another machine or
 * whose record points elsewhere) is someone else's, and the dashboard asks before it
 * stops, extends or kills one. */
#include "core/live/live_internal.h"

#include <string.h>

#include "core/box/records.h"

bool e2b_live_is_local_box(const e2b_live *m, const char *sandbox_id)
{
    const e2b_sandbox *sb = live_sandbox_find(&m->sandboxes, sandbox_id);
    if (!sb || sb->kind != E2B_KIND_BOX || !sb->box_name || !*sb->box_name ||
        !m->cfg.records_dir)
        return false;
    /* One small local file (the record), read when a key asks: no network. */
    box_record r;
    memset(&r, 0, sizeof r);
    e2b_error *err = box_record_read(m->cfg.records_dir, sb->box_name, &r);
    bool mine = !err && r.sandbox_id && strcmp(r.sandbox_id, sandbox_id) == 0;
    e2b_error_free(err);
    box_record_clear(&r);
    return mine;
}
