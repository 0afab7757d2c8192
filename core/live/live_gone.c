/* Boxes whose sandbox E2B no longer has (issue 36): after each list that answered, a record
 * of this machine whose sandbox is in neither the list nor an operation of the dashboard,
 * and whose name no listed sandbox carries, is gone; told once per box and sandbox, with
 * the :remake that makes it again. A record is told only when two lists in a row miss its
 * sandbox, so a record another process wrote while a list was on its way (its sandbox made
 * after the list was asked) is no false alarm; a failed list is never looked at (on_list
 * returns before). */
#include "core/live/live_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/box/box.h"
#include "core/util/str.h"

/* One gone box as seen: "name\tsandbox_id", the lists in a row that missed it, told. */
struct live_gone {
    char *key;
    int misses;
    bool told, seen;
};

static void from_text(const e2b_box_remake_plan *p, const e2b_box_record *r, char *out, size_t n)
{
    if (p->snapshot[0] && p->taken_at <= 0) { /* a record without its time */
        snprintf(out, n, "its snapshot %s", p->snapshot);
    } else if (p->snapshot[0]) {
        char age[40];
        e2b_span_text((long)(time(NULL) - p->taken_at), age, sizeof age);
        snprintf(out, n, "its snapshot %s (taken %s ago)", p->snapshot, age);
    } else {
        snprintf(out, n, "its project %s", r->dir && *r->dir ? r->dir : "(its folder is not recorded)");
    }
}

bool e2b_live_remake_what(const e2b_live *m, const char *name, e2b_live_remake_info *out)
{
    memset(out, 0, sizeof *out);
    const e2b_box_record *r = name ? e2b_box_record_list_find(&m->records, name) : NULL;
    if (!r)
        return false;
    e2b_box_remake_plan plan;
    e2b_box_remake_plan_of(m->cfg.state_dir, r, time(NULL), &plan);
    from_text(&plan, r, out->from, sizeof out->from);
    snprintf(out->lost, sizeof out->lost, "%s",
             plan.snapshot[0] ? "what the box did after that snapshot and was not pulled"
                              : "everything the box did that was not pulled");
    out->listed = r->sandbox_id && live_sandbox_find(&m->sandboxes, r->sandbox_id);
    return true;
}

static struct live_gone *gone_find(e2b_live *m, const char *key)
{
    for (size_t i = 0; i < m->ngone; i++)
        if (strcmp(m->gone[i].key, key) == 0)
            return &m->gone[i];
    return NULL;
}

static struct live_gone *gone_add(e2b_live *m, const char *key)
{
    struct live_gone *g = realloc(m->gone, (m->ngone + 1) * sizeof *g);
    if (!g)
        return NULL;
    m->gone = g;
    char *k = strdup(key);
    if (!k)
        return NULL;
    g[m->ngone] = (struct live_gone){.key = k};
    return &g[m->ngone++];
}

static void tell(e2b_live *m, const e2b_box_record *r)
{
    e2b_live_remake_info info;
    if (!e2b_live_remake_what(m, r->name, &info))
        return;
    live_notice(m, E2B_LIVE_INFO,
                "box %s: its sandbox is gone; :remake %s makes it again from %s", r->name,
                r->name, info.from);
}

/* A listed sandbox carries the box's name (made elsewhere, or a fork's twin): the name is
 * not gone, whatever the record points at (that conflict is told where it is acted on). */
static bool name_listed(const e2b_live *m, const char *name)
{
    for (size_t i = 0; i < m->sandboxes.count; i++) {
        const char *bn = m->sandboxes.items[i].box_name;
        if (bn && strcmp(bn, name) == 0)
            return true;
    }
    return false;
}

void live_gone_look(e2b_live *m)
{
    if (m->is_headless) /* one list, no dashboard to tell */
        return;
    for (size_t i = 0; i < m->ngone; i++)
        m->gone[i].seen = false;
    char why[200];
    for (size_t i = 0; i < m->records.count; i++) {
        const e2b_box_record *r = &m->records.items[i];
        if (!r->name || !*r->name || !r->sandbox_id || !*r->sandbox_id ||
            live_sandbox_find(&m->sandboxes, r->sandbox_id) || name_listed(m, r->name) ||
            live_op_busy(m, r->sandbox_id, r->name, why, sizeof why))
            continue;
        char key[512];
        snprintf(key, sizeof key, "%s\t%s", r->name, r->sandbox_id);
        struct live_gone *g = gone_find(m, key);
        if (!g && !(g = gone_add(m, key)))
            continue; /* out of memory: told at a later list */
        g->seen = true;
        if (++g->misses >= 2 && !g->told) {
            g->told = true;
            tell(m, r);
        }
    }
    size_t keep = 0; /* a box listed again, busy or without its record: forgotten */
    for (size_t i = 0; i < m->ngone; i++) {
        if (m->gone[i].seen)
            m->gone[keep++] = m->gone[i];
        else
            free(m->gone[i].key);
    }
    m->ngone = keep;
}

void live_gone_free(e2b_live *m)
{
    for (size_t i = 0; i < m->ngone; i++)
        free(m->gone[i].key);
    free(m->gone);
    m->gone = NULL;
    m->ngone = 0;
}
