/* Approval rules (live.h "approval rules"): e2b-tui's own, kept in each box's record and
 * applied by live_agents.c; and the server's saved "always" permissions of one box at a
 * time (the Rules view's), read and revoked through its agent's watch. */
#include "core/live/live_internal.h"

#include "core/agent/rules.h"
#include "core/agent/watch.h"
#include "core/box/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct live_saved { /* one box's; the model keeps a list, one a box asked */
    struct live_saved *next;
    char sandbox_id[128];
    e2b_agent_request *items; /* copies (sanitised and bounded by the parser) */
    size_t n;
    bool loading, loaded;
    char why[300];           /* why they could not be read, "" */
    unsigned gen;            /* a newer load makes an older answer stale */
};

struct saved_ask {
    e2b_live *m;
    char sandbox_id[128];
    char name[128];
    char removed[E2B_AGENT_TEXT_MAX]; /* a revoke: the saved permission's id */
    unsigned gen;
    e2b_live_end *end;
};

e2b_error *e2b_live_rules_change(e2b_live *m, const char *name, const char *rule, bool add,
                                 int yes_all)
{
    char why[300];
    if (rule && add && !e2b_rules_valid(rule, why, sizeof why))
        return e2b_error_new(E2B_ERR_INVALID, "%s", why);
    e2b_box_record rec = {0};
    e2b_error *err = e2b_box_record_read(m->cfg.records_dir, name, &rec);
    if (err)
        return err;
    if (rule && add && e2b_box_record_approve_add(&rec, rule) < 0)
        err = e2b_error_new(E2B_ERR_INVALID, "box %s has %d approval rules already: revoke one "
                            "first", name, E2B_BOX_RULES_MAX);
    else if (rule && !add && !e2b_box_record_approve_remove(&rec, rule))
        err = e2b_error_new(E2B_ERR_NOT_FOUND, "box %s has no approval rule \"%.200s\"", name, rule);
    if (!err) {
        if (yes_all >= 0)
            rec.yes_all = yes_all != 0;
        err = e2b_box_record_write(m->cfg.records_dir, &rec, 0);
    }
    e2b_box_record_clear(&rec);
    if (!err && live_records_look(m)) { /* this process applies them at once too */
        live_records_identify(m);
        live_agents_sync(m);
        live_notify(m, E2B_LIVE_SANDBOXES | E2B_LIVE_AGENTS);
    }
    return err;
}

static struct live_saved *saved_find(const e2b_live *m, const char *sandbox_id)
{
    for (struct live_saved *s = m->saved; s && sandbox_id; s = s->next)
        if (!strcmp(s->sandbox_id, sandbox_id))
            return s;
    return NULL;
}

static struct live_saved *saved_of(e2b_live *m, const char *sandbox_id)
{
    struct live_saved *s = saved_find(m, sandbox_id);
    if (!s && (s = calloc(1, sizeof *s))) {
        snprintf(s->sandbox_id, sizeof s->sandbox_id, "%s", sandbox_id);
        s->next = m->saved;
        m->saved = s;
    }
    return s;
}

static void saved_clear_items(struct live_saved *s)
{
    for (size_t i = 0; i < s->n; i++)
        e2b_agent_request_clear(&s->items[i]);
    free(s->items);
    s->items = NULL;
    s->n = 0;
}

static int saved_ask(e2b_live *m, const char *sandbox_id, const char *remove_id);

static void on_saved(void *ud, const e2b_agent_request *saved, size_t n, const e2b_error *err)
{
    struct saved_ask *a = ud;
    e2b_live *m = a->m;
    struct live_saved *s = m->closing ? NULL : saved_find(m, a->sandbox_id);
    if (s && a->removed[0]) { /* a revoke: said, then the list read again */
        if (err)
            live_notice(m, E2B_LIVE_ERROR, "%s: the saved permission could not be removed: %s",
                        a->name, e2b_error_message(err));
        else {
            live_notice(m, E2B_LIVE_INFO, "%s: saved permission removed", a->name);
            live_history_add(m, a->name, "saved \"always\" permission removed");
        }
        live_end(a->end, err, 0);
        saved_ask(m, a->sandbox_id, NULL);
    } else if (s && a->gen == s->gen) {
        saved_clear_items(s);
        s->loading = false;
        s->loaded = !err;
        snprintf(s->why, sizeof s->why, "%s", err ? e2b_error_message(err) : "");
        e2b_agent_status tmp = {.requests = (e2b_agent_request *)saved, .nrequests = n}, copy;
        if (!err && n && e2b_agent_status_copy(&copy, &tmp) == 0) {
            s->items = copy.requests;
            s->n = copy.nrequests;
            copy.requests = NULL;
            copy.nrequests = 0;
            e2b_agent_status_clear(&copy);
        }
        live_end(a->end, err, 0);
        live_notify(m, E2B_LIVE_AGENTS);
    } else {
        live_end(a->end, err, 0); /* stale: the list was asked for again since */
    }
    free(a);
}

static int saved_ask(e2b_live *m, const char *sandbox_id, const char *remove_id)
{
    e2b_live_end *end = live_then_take(m);
    struct live_saved *s = saved_of(m, sandbox_id);
    e2b_agent_watch *w = live_agent_watch(m, sandbox_id);
    const char *name = live_agent_name(m, sandbox_id);
    struct saved_ask *a = s && w ? calloc(1, sizeof *a) : NULL;
    if (!a) {
        const char *why = !s ? "out of memory" : !w ? "its agent is not watched (yet)" : "out of memory";
        if (s && !remove_id) {
            saved_clear_items(s);
            s->loading = s->loaded = false;
            snprintf(s->why, sizeof s->why, "%s", why);
            live_notify(m, E2B_LIVE_AGENTS);
        }
        live_end_fail(end, E2B_ERR_INVALID, why);
        return -1;
    }
    a->m = m;
    a->end = end;
    snprintf(a->sandbox_id, sizeof a->sandbox_id, "%s", sandbox_id);
    snprintf(a->name, sizeof a->name, "%s", name ? name : sandbox_id);
    if (remove_id)
        snprintf(a->removed, sizeof a->removed, "%s", remove_id);
    else {
        s->loading = true;
        s->why[0] = '\0';
        a->gen = ++s->gen;
    }
    e2b_error *err = NULL;
    if (e2b_agent_watch_saved(w, remove_id, on_saved, a, &err) < 0) {
        if (!remove_id) {
            s->loading = false;
            snprintf(s->why, sizeof s->why, "%s", err ? e2b_error_message(err) : "failed");
            live_notify(m, E2B_LIVE_AGENTS);
        }
        if (err)
            live_end(end, err, 0);
        else
            live_end_fail(end, E2B_ERR_INTERNAL, "failed");
        e2b_error_free(err);
        free(a);
        return -1;
    }
    if (!remove_id)
        live_notify(m, E2B_LIVE_AGENTS);
    return 0;
}

int e2b_live_saved_load(e2b_live *m, const char *sandbox_id)
{
    return saved_ask(m, sandbox_id, NULL);
}

int e2b_live_saved_revoke(e2b_live *m, const char *sandbox_id, const char *saved_id)
{
    return saved_ask(m, sandbox_id, saved_id);
}

const e2b_agent_request *e2b_live_saved(const e2b_live *m, const char *sandbox_id, size_t *n,
                                        bool *loading, const char **why)
{
    const struct live_saved *s = saved_find(m, sandbox_id);
    bool mine = s != NULL;
    *n = mine ? s->n : 0;
    if (loading)
        *loading = mine && s->loading;
    if (why)
        *why = mine && s->why[0] ? s->why : NULL;
    return mine ? s->items : NULL;
}

void live_saved_free(e2b_live *m)
{
    while (m->saved) {
        struct live_saved *s = m->saved;
        m->saved = s->next;
        saved_clear_items(s);
        free(s);
    }
}
