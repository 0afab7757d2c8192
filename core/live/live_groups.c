/* Groups of attempts (core/live/live.h "groups"): the members are the records that name the
 * group; the evidence of each member's last test run is kept here, by box name. */
#include "core/live/live_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct live_evidence {
    char name[128];
    e2b_evidence ev;
    int64_t at_ms;
};

void live_groups_evidence_set(e2b_live *m, const char *name, const e2b_box_result *r)
{
    if (!r || !name)
        return;
    struct live_evidence *e = NULL;
    for (size_t i = 0; i < m->nevidence && !e; i++)
        if (!strcmp(m->evidence[i].name, name))
            e = &m->evidence[i];
    if (!e) {
        struct live_evidence *v = realloc(m->evidence, (m->nevidence + 1) * sizeof *v);
        if (!v)
            return;
        m->evidence = v;
        e = &v[m->nevidence++];
        snprintf(e->name, sizeof e->name, "%s", name);
    }
    e->ev = r->evidence;
    e->at_ms = e2b_now_ms();
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
            out[n] = (e2b_live_member){.rec = r};
            for (size_t k = 0; k < m->nevidence; k++)
                if (!strcmp(m->evidence[k].name, r->name)) {
                    out[n].evidence = &m->evidence[k].ev;
                    out[n].evidence_ms = m->evidence[k].at_ms;
                }
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
        const e2b_agent_status *st = e2b_live_agent(m, r->sandbox_id);
        if (st && st->state == E2B_AGENT_IDLE && st->last_end != E2B_AGENT_END_NONE)
            done++;
        for (size_t k = 0; k < m->nevidence; k++)
            if (!strcmp(m->evidence[k].name, r->name) && m->evidence[k].ev.test == E2B_TEST_PASS)
                passing++;
    }
    snprintf(buf, n, "%zu/%zu done, %zu passing", done, total, passing);
    return total;
}
