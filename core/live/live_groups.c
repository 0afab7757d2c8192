/* Groups of attempts (core/live/live.h "groups"): the members are the records that name the
 * group. The evidence of each member's last test run is kept here, by box name, and on disk
 * (core/box/evidence_file.h), so that whichever client sees a member's turn end takes it
 * once and every other client, later, reuses it. */
#include "core/live/live_internal.h"

#include "core/box/evidence_file.h"
#include "core/util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct live_evidence {
    char name[128];
    char sandbox_id[128];
    bool have;         /* ev holds a test run (taken here, or read from its file) */
    e2b_evidence ev;
    int64_t at_ms;
    int64_t asked_ms;  /* the turn end (idle_since) this model last asked tests for */
    struct live_stamp file; /* its evidence file as last read (or written) here */
};

/* <records_dir>/.evidence[/NAME.json] into buf; false when it does not fit. */
static bool evidence_path(const e2b_live *m, const char *name, char *buf, size_t n)
{
    int k = name ? snprintf(buf, n, "%s/.evidence/%s.json", m->cfg.records_dir, name)
                 : snprintf(buf, n, "%s/.evidence", m->cfg.records_dir);
    return k > 0 && (size_t)k < n;
}

/* The entry of member name (of sandbox sandbox_id: another sandbox's entry starts over), made
 * when missing; NULL when out of memory. */
static struct live_evidence *entry(e2b_live *m, const char *name, const char *sandbox_id)
{
    struct live_evidence *e = NULL;
    for (size_t i = 0; i < m->nevidence && !e; i++)
        if (!strcmp(m->evidence[i].name, name))
            e = &m->evidence[i];
    if (!e) {
        struct live_evidence *v = realloc(m->evidence, (m->nevidence + 1) * sizeof *v);
        if (!v)
            return NULL;
        m->evidence = v;
        e = &v[m->nevidence++];
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "%s", name);
    }
    if (sandbox_id && strcmp(e->sandbox_id, sandbox_id)) {
        *e = (struct live_evidence){0};
        snprintf(e->name, sizeof e->name, "%s", name);
        snprintf(e->sandbox_id, sizeof e->sandbox_id, "%s", sandbox_id);
    }
    return e;
}

static const struct live_evidence *found(const e2b_live *m, const e2b_box_record *r)
{
    for (size_t k = 0; k < m->nevidence; k++)
        if (!strcmp(m->evidence[k].name, r->name) && !strcmp(m->evidence[k].sandbox_id, r->sandbox_id))
            return m->evidence[k].have ? &m->evidence[k] : NULL;
    return NULL;
}

void live_groups_evidence_set(e2b_live *m, const char *name, const e2b_box_result *r)
{
    if (!r || !name)
        return;
    struct live_evidence *e = entry(m, name, r->sandbox_id);
    if (!e)
        return;
    /* a run that could not look into the box (paused, gone) keeps what its turn showed */
    if (e->have && r->evidence.test == E2B_TEST_NONE && !r->evidence.diff_known)
        return;
    e->ev = r->evidence;
    e->at_ms = wall_ms(); /* compared with the agent's idle_since (wall clock) */
    e->have = true;
    if (!r->sandbox_id || !m->cfg.records_dir)
        return;
    e2b_error *err = e2b_box_evidence_save(m->cfg.records_dir, name, r->sandbox_id, &e->ev,
                                           e->at_ms);
    char path[4400]; /* this model's own write: not read back */
    if (!err && evidence_path(m, name, path, sizeof path))
        live_stamp_take(path, &e->file);
    if (err)
        e2b_logf("evidence of %s: %s", name, e2b_error_message(err));
    e2b_error_free(err);
}

bool live_groups_load(e2b_live *m, bool records_changed)
{
    char path[4400];
    if (!m->cfg.records_dir || !evidence_path(m, NULL, path, sizeof path))
        return false;
    /* both stamps are taken: the folder's first, so a write after it is seen next time */
    bool folder = live_stamp_take(path, &m->evidence_seen);
    if (!folder && !records_changed)
        return false;
    bool changed = false;
    for (size_t i = 0; i < m->records.count; i++) {
        const e2b_box_record *r = &m->records.items[i];
        if (!r->group[0] || !evidence_path(m, r->name, path, sizeof path))
            continue;
        struct live_evidence *e = entry(m, r->name, r->sandbox_id);
        if (!e || !live_stamp_take(path, &e->file))
            continue;
        e2b_evidence ev;
        int64_t at = 0;
        /* the file's, unless what this model holds was taken later (a slower writer) */
        if (e2b_box_evidence_load(m->cfg.records_dir, r->name, r->sandbox_id, &ev, &at) == 1 &&
            (!e->have || at >= e->at_ms)) {
            changed = true;
            e->ev = ev;
            e->at_ms = at;
            e->have = true;
        }
    }
    return changed;
}

static bool turn_ended(const e2b_agent_status *st)
{
    return st && st->state == E2B_AGENT_IDLE && st->last_end != E2B_AGENT_END_NONE;
}

bool e2b_live_member_evidence_due(const e2b_live *m, const e2b_live_member *mb)
{
    const e2b_agent_status *st = mb && mb->rec ? e2b_live_agent(m, mb->rec->sandbox_id) : NULL;
    return turn_ended(st) && (!mb->evidence || mb->evidence_ms < st->idle_since_ms);
}

void live_groups_tick(e2b_live *m)
{
    if (m->is_headless || m->closing) /* a one-shot mode asks for what it prints */
        return;
    for (size_t i = 0; i < m->records.count; i++) {
        const e2b_box_record *r = &m->records.items[i];
        if (!r->group[0])
            continue;
        const struct live_evidence *have = found(m, r);
        e2b_live_member mb = {.rec = r, .evidence = have ? &have->ev : NULL,
                              .evidence_ms = have ? have->at_ms : 0};
        if (!e2b_live_member_evidence_due(m, &mb))
            continue;
        const e2b_agent_status *st = e2b_live_agent(m, r->sandbox_id);
        struct live_evidence *e = entry(m, r->name, r->sandbox_id);
        if (!e || e->asked_ms == st->idle_since_ms)
            continue;
        e->asked_ms = st->idle_since_ms;
        char name[128];
        snprintf(name, sizeof name, "%s", r->name); /* the op may read the records again */
        e2b_live_op_by_name(m, &(e2b_live_op_params){.kind = E2B_LIVE_OP_TEST, .name = name});
    }
}

void live_groups_free(e2b_live *m)
{
    free(m->evidence);
    m->evidence = NULL;
    m->nevidence = 0;
}

size_t e2b_live_group_members(const e2b_live *m, const char *group, e2b_live_member *out,
                              size_t max)
{
    size_t n = 0;
    if (!group || !*group)
        return 0;
    /* the records are sorted by name: so are the members (g-10 after g-1, as ls) */
    for (size_t i = 0; i < m->records.count; i++) {
        const e2b_box_record *r = &m->records.items[i];
        if (strcmp(r->group, group))
            continue;
        if (n < max) {
            const struct live_evidence *e = found(m, r);
            out[n] = (e2b_live_member){.rec = r, .evidence = e ? &e->ev : NULL,
                                       .evidence_ms = e ? e->at_ms : 0};
        }
        n++;
    }
    return n;
}

const char *e2b_live_test_result_name(e2b_test_result t)
{
    switch (t) {
    case E2B_TEST_PASS: return "pass";
    case E2B_TEST_FAIL: return "fail";
    case E2B_TEST_ERROR: return "error";
    default: return "not run";
    }
}

size_t e2b_live_group_summary(const e2b_live *m, const char *group, char *buf, size_t n)
{
    size_t total = 0, done = 0, passing = 0;
    for (size_t i = 0; group && *group && i < m->records.count; i++) {
        const e2b_box_record *r = &m->records.items[i];
        if (strcmp(r->group, group))
            continue;
        total++;
        const struct live_evidence *e = found(m, r);
        /* done: its turn ended, as its agent says, or as its tests taken then say (a member
         * paused since, or not watched by this process) */
        const e2b_agent_status *st = e2b_live_agent(m, r->sandbox_id);
        if (turn_ended(st) || (e && (!st || st->state == E2B_AGENT_PAUSED ||
                                     st->state == E2B_AGENT_SERVER_DOWN)))
            done++;
        passing += e && e->ev.test == E2B_TEST_PASS;
    }
    snprintf(buf, n, "%zu/%zu done, %zu passing", done, total, passing);
    return total;
}
