/* This machine's box records as the model knows them, and the identity they give the
 * listed sandboxes (core/box/box.h e2b_box_identify). The records folder is looked at with
 * one stat per list that arrives: a record written or removed by any process (a one-shot
 * --up or --fork in another terminal) changes the folder's time, and the records are read
 * again then, so the model is right within one refresh. The members' evidence has its own
 * folder and stamps (live_groups.c), looked at the same way on the same tick. */
#include "core/live/live_internal.h"

#include <stdlib.h>

#include "core/util/log.h"

bool live_records_look(e2b_live *m)
{
    if (!m->cfg.records_dir)
        return false;
    if (!live_stamp_take(m->cfg.records_dir, &m->records_seen)) {
        /* no record written: a member's evidence may be (its own folder) */
        if (live_groups_load(m, false))
            live_notify(m, E2B_LIVE_SANDBOXES);
        return false;
    }
    e2b_box_record_list fresh = {0};
    char *skipped = NULL;
    e2b_error *err = e2b_box_record_list_read(m->cfg.records_dir, &fresh, &skipped);
    free(m->records_skipped);
    m->records_skipped = skipped;
    if (err) {
        e2b_logf("records: %s", e2b_error_message(err));
        e2b_error_free(err);
        e2b_box_record_list_clear(&fresh);
        m->records_seen.loaded = false; /* read again at the next look */
        return false;
    }
    /* any field: another process's --up --try gives the members their models afterwards */
    bool changed = fresh.count != m->records.count;
    for (size_t i = 0; !changed && i < fresh.count; i++)
        changed = !e2b_box_record_same(&fresh.items[i], &m->records.items[i]);
    if (!changed) {
        e2b_box_record_list_clear(&fresh);
        if (live_groups_load(m, false))
            live_notify(m, E2B_LIVE_SANDBOXES);
        return false;
    }
    e2b_box_record_list_clear(&m->records);
    m->records = fresh;
    live_groups_load(m, true); /* the members' saved evidence, any process's */
    return true;
}

void live_records_identify(e2b_live *m)
{
    if (e2b_box_identify(&m->records, &m->sandboxes, m->cfg.workspace_keys) < 0)
        live_notice(m, E2B_LIVE_ERROR, "out of memory");
}

void live_records_free(e2b_live *m)
{
    e2b_box_record_list_clear(&m->records);
    free(m->records_skipped);
    m->records_skipped = NULL;
}

const e2b_box_record_list *e2b_live_records(const e2b_live *m, const char **skipped)
{
    if (skipped)
        *skipped = m->records_skipped;
    return &m->records;
}

const e2b_box_record *e2b_live_record(const e2b_live *m, const char *sandbox_id)
{
    return e2b_box_record_list_find_sandbox(&m->records, sandbox_id);
}

bool live_records_sync(e2b_live *m)
{
    if (!live_records_look(m))
        return false;
    live_records_identify(m);
    live_agents_sync(m);
    live_notify(m, E2B_LIVE_SANDBOXES);
    return true;
}
