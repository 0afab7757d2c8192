/* This machine's box records as the model knows them, and the identity they give the
 * listed sandboxes (core/box/box.h e2b_box_identify). The records folder is looked at with
 * one stat per list that arrives: a record written or removed by any process (a one-shot
 * --up or --fork in another terminal) changes the folder's time, and the records are read
 * again then, so the model is right within one refresh. */
#include "core/live/live_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/util/log.h"

/* A folder time this close to now may hide a second write within the same clock tick:
 * such a folder is read again at the next look. */
enum { RECENT_NS = 2000000000 };

static bool same_time(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool recent(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long long d = (long long)(now.tv_sec - t->tv_sec) * 1000000000LL + (now.tv_nsec - t->tv_nsec);
    return d < RECENT_NS;
}

/* Whether a and b hold the same approval rules (a change reaches the agents' watch). */
static bool live_same_rules(const e2b_box_record *a, const e2b_box_record *b)
{
    if (a->yes_all != b->yes_all || a->napprove != b->napprove)
        return false;
    for (size_t i = 0; i < a->napprove; i++)
        if (strcmp(a->approve[i], b->approve[i]) != 0)
            return false;
    return true;
}

bool live_records_look(e2b_live *m)
{
    if (!m->cfg.records_dir)
        return false;
    struct stat st;
    bool exists = stat(m->cfg.records_dir, &st) == 0;
    struct live_records_seen now = {.exists = exists, .loaded = true};
    if (exists) {
        now.dev = st.st_dev;
        now.ino = st.st_ino;
        now.mtime = st.st_mtim;
    }
    struct live_records_seen *was = &m->records_seen;
    if (was->loaded && was->exists == now.exists && was->dev == now.dev &&
        was->ino == now.ino && same_time(&was->mtime, &now.mtime) && !was->recent)
        return false;
    now.recent = exists && recent(&now.mtime);
    e2b_box_record_list fresh = {0};
    char *skipped = NULL;
    e2b_error *err = e2b_box_record_list_read(m->cfg.records_dir, &fresh, &skipped);
    free(m->records_skipped);
    m->records_skipped = skipped;
    if (err) {
        e2b_logf("records: %s", e2b_error_message(err));
        e2b_error_free(err);
        e2b_box_record_list_clear(&fresh);
        return false;
    }
    bool changed = fresh.count != m->records.count;
    for (size_t i = 0; !changed && i < fresh.count; i++) {
        const e2b_box_record *a = &fresh.items[i], *b = &m->records.items[i];
        changed = strcmp(a->name, b->name) != 0 || strcmp(a->sandbox_id, b->sandbox_id) != 0 ||
                  a->port != b->port || a->opencode != b->opencode ||
                  strcmp(a->dir ? a->dir : "", b->dir ? b->dir : "") != 0 ||
                  strcmp(a->egress ? a->egress : "", b->egress ? b->egress : "") != 0 ||
                  !live_same_rules(a, b);
    }
    *was = now;
    if (!changed) {
        e2b_box_record_list_clear(&fresh);
        return false;
    }
    e2b_box_record_list_clear(&m->records);
    m->records = fresh;
    live_groups_load(m); /* the members' saved evidence, any process's */
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
