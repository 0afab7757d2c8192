/* Which sandboxes are this machine's boxes: a box whose local record names that very
 * sandbox. Everything else (team sandboxes, workspaces, boxes made on another machine or
 * whose record points elsewhere) is someone else's, and the dashboard asks before it
 * stops, extends or kills one. */
#include "core/live/live_internal.h"

#include <stdio.h>
#include <string.h>

#include "core/box/records.h"

/* The record of the box shown as sandbox_id, when it is this machine's (r cleared). */
static bool read_own_record(const e2b_live *m, const char *sandbox_id, box_record *r)
{
    memset(r, 0, sizeof *r);
    const e2b_sandbox *sb = live_sandbox_find(&m->sandboxes, sandbox_id);
    if (!sb || sb->kind != E2B_KIND_BOX || !sb->box_name || !*sb->box_name ||
        !m->cfg.records_dir)
        return false;
    e2b_error *err = box_record_read(m->cfg.records_dir, sb->box_name, r);
    bool mine = !err && r->sandbox_id && strcmp(r->sandbox_id, sandbox_id) == 0;
    e2b_error_free(err);
    if (!mine)
        box_record_clear(r);
    return mine;
}

bool e2b_live_box_where(const e2b_live *m, const char *sandbox_id, char *dir, size_t dirsz,
                        char **url)
{
    box_record r;
    *url = NULL;
    if (!read_own_record(m, sandbox_id, &r))
        return false;
    const e2b_sandbox *sb = live_sandbox_find(&m->sandboxes, sandbox_id);
    snprintf(dir, dirsz, "%s", r.dir ? r.dir : "");
    *url = e2b_config_port_url(&m->cfg, r.port ? r.port : E2B_BOX_PORT, sandbox_id,
                               sb ? sb->domain : NULL);
    box_record_clear(&r);
    return true;
}

bool e2b_live_is_local_box(const e2b_live *m, const char *sandbox_id)
{
    /* One small local file (the record), read when a key asks: no network. */
    box_record r;
    bool mine = read_own_record(m, sandbox_id, &r);
    box_record_clear(&r);
    return mine;
}
