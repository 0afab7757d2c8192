/* The agents of this machine's boxes (live.h "agents"): one core/agent/watch.h per box that
 * runs, made once its password has come from the store (a keystore job, off the loop
 * thread) and, for a private box, its traffic token from a connect (the list does not carry
 * it), paused with its sandbox, freed when the sandbox goes. The list is synced after
 * every changed sandbox list (live_refresh.c). */
#include "core/live/live_internal.h"

#include "core/agent/rules.h"
#include "core/agent/watch.h"
#include "core/box/box.h"
#include "core/box/records.h"
#include "core/util/str.h"
#include "keystore/keystore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct live_agent {
    e2b_live *m;
    char sandbox_id[128];
    char name[128];
    e2b_box_record rec;
    e2b_agent_watch *watch;   /* NULL until the password is known */
    ks_job *pw_job;           /* reading the password */
    bool no_password;         /* the store has none: not watched */
    bool paused;
    bool seen;                /* in the latest list (sync) */
    size_t listed_at;         /* its index in that list (a hint: checked before use) */
    e2b_agent_status fixed;   /* shown while there is no watch (unknown / paused) */
    struct token_call *token_call; /* connecting for the traffic token, or NULL */
    char *password;           /* kept while the token comes (secret, wiped) */
    char *token;              /* the sandbox's traffic token (secret, wiped), or NULL */
    /* headless (e2b_live_agent_watch): the sandbox as asked, and the watch's waiter */
    e2b_sandbox *got;         /* owned; NULL when listed (or not asked yet) */
    struct token_call *get_call; /* GET /sandboxes/{id} in flight, or NULL */
    e2b_live_end *end;        /* until the watch settles, or NULL */
    uint64_t settle_timer;
    /* a message for a paused box: it is resumed first, and the message goes once its agent
     * answers again (live_idle.h: m resumes a box the idle pause stopped) */
    char *pending_text, *pending_session, *pending_model;
    bool pending_new;
    uint64_t pending_timer;
    e2b_live_end *pending_end; /* the message's waiter (e2b_live_then), or NULL */
    /* approval rules (t->rec.approve, yes_all): applied from the loop after a change */
    uint64_t rules_timer;
    char *ruled[8];           /* the requests a rule answered (a ring: none twice) */
    size_t ruled_next;
    struct live_owed owed;    /* a turn owed (live_owed.c) */
    /* the history (live_history.c): the state last written, its request */
    e2b_agent_state told_state;
    char *told_request;
};

/* A connect in flight for an agent's token: outlives the agent when it is freed first. */
struct token_call {
    struct live_agent *t; /* NULL once the agent is gone */
    e2b_api_call *call;
};

struct live_agents {
    struct live_agent **items;
    size_t n;
    keystore *ks;             /* our own handle when the operations' is not open */
    ks_job *open_job;
    e2b_loop_slot slot;       /* the jobs' wake-up */
    bool closing;
};

static struct live_agents *agents(e2b_live *m)
{
    if (!m->agents)
        m->agents = calloc(1, sizeof *m->agents);
    return m->agents;
}

static struct live_agent *find(const e2b_live *m, const char *sandbox_id)
{
    const struct live_agents *a = m->agents;
    for (size_t i = 0; a && sandbox_id && i < a->n; i++)
        if (!strcmp(a->items[i]->sandbox_id, sandbox_id))
            return a->items[i];
    return NULL;
}

static void agent_free(struct live_agent *t)
{
    struct token_call *calls[] = {t->token_call, t->get_call};
    for (size_t i = 0; i < 2; i++) {
        if (calls[i]) {
            calls[i]->t = NULL;
            e2b_api_cancel(calls[i]->call); /* its callback frees it */
        }
    }
    if (t->settle_timer)
        e2b_loop_timer_cancel(t->m->loop, t->settle_timer);
    e2b_sandbox_free(t->got);
    e2b_wipe_free(t->password);
    e2b_wipe_free(t->token);
    free(t->pending_text);
    free(t->pending_session);
    free(t->pending_model);
    if (t->pending_timer && t->m->loop)
        e2b_loop_timer_cancel(t->m->loop, t->pending_timer);
    if (t->rules_timer && t->m->loop)
        e2b_loop_timer_cancel(t->m->loop, t->rules_timer);
    for (size_t i = 0; i < sizeof t->ruled / sizeof *t->ruled; i++)
        free(t->ruled[i]);
    free(t->told_request);
    live_end_fail(t->pending_end, E2B_ERR_CANCELLED, "the box's agent went before the message");
    live_try_agent_gone(t->m, t->sandbox_id); /* its calls on the watch's client */
    e2b_agent_watch_free(t->watch);
    if (t->pw_job)
        keystore_job_free(t->pw_job);
    e2b_box_record_clear(&t->rec);
    e2b_agent_status_clear(&t->fixed);
    free(t);
}

/* The watch's waiter hears its end: settled (err NULL) or why it cannot be. */
static void settle(struct live_agent *t, const e2b_error *err)
{
    if (!t->end)
        return;
    if (t->settle_timer)
        e2b_loop_timer_cancel(t->m->loop, t->settle_timer);
    t->settle_timer = 0;
    live_end(t->end, err, 0);
    t->end = NULL;
}

static void settle_fail(struct live_agent *t, e2b_error_kind kind, const char *why)
{
    e2b_error *e = e2b_error_new(kind, "box %s: %s", t->name, why);
    settle(t, e);
    e2b_error_free(e);
}

static void send_pending(void *ud);
static void apply_rules(void *ud);

/* The history (live_history.c) hears a change of state: a turn began, a request waits (each
 * request once), a turn ended and how. The first state a watch reads is no change. */
static void tell_history(struct live_agent *t, const e2b_agent_status *st)
{
    const e2b_agent_request *req = st->nrequests ? &st->requests[0] : NULL;
    bool same_req = st->state != E2B_AGENT_WAITING ||
                    (req && t->told_request && !strcmp(req->id, t->told_request));
    if (st->state == E2B_AGENT_UNKNOWN || (st->state == t->told_state && same_req))
        return;
    e2b_agent_state was = t->told_state;
    t->told_state = st->state;
    free(t->told_request);
    t->told_request = st->state == E2B_AGENT_WAITING && req ? strdup(req->id) : NULL;
    if (was == E2B_AGENT_UNKNOWN)
        return;
    switch (st->state) {
    case E2B_AGENT_WORKING:
        live_history_add(t->m, t->name, "started working");
        break;
    case E2B_AGENT_WAITING:
        live_history_add(t->m, t->name, "started waiting: %s", req && req->summary ? req->summary : "");
        break;
    case E2B_AGENT_RETRYING:
        live_history_add(t->m, t->name, "retrying: %s", st->retry_message ? st->retry_message : "");
        break;
    case E2B_AGENT_IDLE:
        if (st->last_end == E2B_AGENT_END_FAILED)
            live_history_add(t->m, t->name, "idle: failed: %s", st->error ? st->error : "");
        else
            live_history_add(t->m, t->name, "idle: %s", st->last_end == E2B_AGENT_END_INTERRUPTED
                                                            ? "interrupted"
                                                        : st->last_end == E2B_AGENT_END_DONE ? "done"
                                                                                             : "");
        break;
    case E2B_AGENT_SERVER_DOWN:
        live_history_add(t->m, t->name, "server down");
        break;
    case E2B_AGENT_PAUSED:
        live_history_add(t->m, t->name, "paused");
        break;
    default:
        break;
    }
}

static void on_watch_change(void *ud)
{
    struct live_agent *t = ud;
    if (t->m->closing)
        return;
    if (t->end && (e2b_agent_watch_synced(t->watch) ||
                   e2b_agent_watch_status(t->watch)->state == E2B_AGENT_SERVER_DOWN))
        settle(t, NULL);
    /* A message waits for this box's agent to answer after its resume: sent from the
     * loop, not inside the watch's own call. */
    if (t->pending_text && !t->pending_timer && t->watch && !t->paused &&
        e2b_agent_watch_synced(t->watch)) {
        e2b_agent_state s = e2b_agent_watch_status(t->watch)->state;
        if (s == E2B_AGENT_IDLE || s == E2B_AGENT_WORKING || s == E2B_AGENT_WAITING)
            t->pending_timer = e2b_loop_timer_add(t->m->loop, 0, send_pending, t);
    }
    live_owed_judge(t->m, t->sandbox_id); /* the owed turn seen end: its mark goes */
    const e2b_agent_status *st = e2b_agent_watch_status(t->watch);
    tell_history(t, st);
    /* a request a rule allows is answered from the loop, not inside the watch's call */
    if ((t->rec.napprove || t->rec.yes_all) && st->nrequests && !t->rules_timer)
        t->rules_timer = e2b_loop_timer_add(t->m->loop, 0, apply_rules, t);
    live_notify(t->m, E2B_LIVE_AGENTS);
    live_groups_tick(t->m); /* a member's turn that ended: its tests */
}

/* A rule's reply ended: the activity, a notice and the history say so. */
struct rule_cmd {
    e2b_live *m;
    char sandbox_id[128];
    char name[128];
    char rule[E2B_RULE_TEXT_MAX];
    char *summary;
    char *session_id;
};

static void on_rule_done(void *ud, const char *session_id, const e2b_error *err)
{
    struct rule_cmd *c = ud;
    (void)session_id;
    if (!c->m->closing) {
        struct live_agent *t = find(c->m, c->sandbox_id);
        if (err) {
            live_notice(c->m, E2B_LIVE_ERROR, "%s: the rule %s could not allow %s: %s", c->name,
                        c->rule, c->summary ? c->summary : "the request", e2b_error_message(err));
        } else {
            char note[E2B_RULE_TEXT_MAX + E2B_AGENT_DETAIL_MAX + 32];
            snprintf(note, sizeof note, "allowed by rule %s: %s", c->rule,
                     c->summary ? c->summary : "");
            if (t && t->watch)
                e2b_agent_watch_note(t->watch, c->session_id, note);
            live_notice(c->m, E2B_LIVE_INFO, "%s: %s", c->name, note);
            live_history_add(c->m, c->name, "%s", note);
            live_notify(c->m, E2B_LIVE_AGENTS);
        }
    }
    free(c->summary);
    free(c->session_id);
    free(c);
}

static bool ruled(const struct live_agent *t, const char *id)
{
    for (size_t i = 0; i < sizeof t->ruled / sizeof *t->ruled; i++)
        if (t->ruled[i] && !strcmp(t->ruled[i], id))
            return true;
    return false;
}

/* Every pending permission request a rule of the box allows gets "once" (each once). */
static void apply_rules(void *ud)
{
    struct live_agent *t = ud;
    t->rules_timer = 0;
    if (t->m->closing || !t->watch || t->paused)
        return;
    const e2b_agent_status *st = e2b_agent_watch_status(t->watch);
    for (size_t i = 0; i < st->nrequests; i++) {
        const e2b_agent_request *r = &st->requests[i];
        const char *rule = r->id ? e2b_rules_match(t->rec.approve, t->rec.napprove,
                                                   t->rec.yes_all, r)
                                 : NULL;
        if (!rule || ruled(t, r->id))
            continue;
        struct rule_cmd *c = calloc(1, sizeof *c);
        size_t slot = t->ruled_next++ % (sizeof t->ruled / sizeof *t->ruled);
        free(t->ruled[slot]);
        t->ruled[slot] = strdup(r->id);
        if (!c)
            return;
        c->m = t->m;
        snprintf(c->sandbox_id, sizeof c->sandbox_id, "%s", t->sandbox_id);
        snprintf(c->name, sizeof c->name, "%s", t->name);
        snprintf(c->rule, sizeof c->rule, "%s", rule);
        c->summary = r->summary ? strdup(r->summary) : NULL;
        c->session_id = r->session_id ? strdup(r->session_id) : NULL;
        e2b_error *err = NULL;
        /* the watch's status may change in the reply: copy nothing of it past this call */
        if (e2b_agent_watch_reply(t->watch, r->id, E2B_AGENT_REPLY_ONCE, on_rule_done, c, &err)) {
            live_notice(t->m, E2B_LIVE_ERROR, "%s: the rule %s could not allow %s: %s", t->name,
                        c->rule, c->summary ? c->summary : "the request",
                        err ? e2b_error_message(err) : "failed");
            e2b_error_free(err);
            free(c->summary);
            free(c->session_id);
            free(c);
        }
        return; /* one a turn of the loop: the next change brings the next */
    }
}

/* Copies r's approval rules into t's record (the agent applies them). */
static void take_rules(struct live_agent *t, const e2b_box_record *r)
{
    for (size_t i = 0; i < t->rec.napprove; i++)
        free(t->rec.approve[i]);
    t->rec.napprove = 0;
    for (size_t i = 0; i < r->napprove; i++)
        e2b_box_record_approve_add(&t->rec, r->approve[i]);
    t->rec.yes_all = r->yes_all;
    if (t->watch && (t->rec.napprove || t->rec.yes_all) && !t->rules_timer)
        t->rules_timer = e2b_loop_timer_add(t->m->loop, 0, apply_rules, t);
}

static keystore *store(e2b_live *m)
{
    return m->ks ? m->ks : m->agents ? m->agents->ks : NULL;
}

/* The sandbox as listed, else as asked (headless): where the last sync saw it when it is
 * still there (no search: the fleet's cost asks for every box), else looked up. */
static const e2b_sandbox *sandbox_of(const struct live_agent *t)
{
    const e2b_sandbox_list *l = &t->m->sandboxes;
    const e2b_sandbox *sb = t->listed_at < l->count &&
                                    !strcmp(l->items[t->listed_at].sandbox_id, t->sandbox_id)
                                ? &l->items[t->listed_at]
                                : live_sandbox_find(l, t->sandbox_id);
    return sb ? sb : t->got;
}

static void start_watch(struct live_agent *t, const char *password)
{
    e2b_live *m = t->m;
    /* one watch an agent: a second would be lost with its stream still calling back on t
     * after agent_free (seen as a use-after-free at quit); its waiter hears the first's */
    if (t->watch) {
        if (e2b_agent_watch_synced(t->watch))
            settle(t, NULL);
        return;
    }
    const e2b_sandbox *sb = sandbox_of(t);
    char *url = e2b_config_port_url(&m->cfg, t->rec.port ? t->rec.port : E2B_BOX_PORT,
                                    t->sandbox_id, sb ? sb->domain : NULL);
    if (!url) {
        settle_fail(t, E2B_ERR_INTERNAL, "out of memory");
        return;
    }
    e2b_oc_config oc = {
        .api = t->rec.opencode == 1 ? 1 : 2,
        .base_url = url,
        .password = password,
        .traffic_token = t->token ? t->token : sb ? sb->traffic_access_token : NULL,
        .directory = t->rec.dir,
    };
    e2b_error *err = NULL;
    t->watch = e2b_agent_watch_new(m->loop, &oc, on_watch_change, t, &err);
    free(url);
    if (!t->watch) {
        live_notice(m, E2B_LIVE_ERROR, "%s: the agent cannot be watched: %s", t->name,
                    e2b_error_message(err));
        settle(t, err);
        e2b_error_free(err);
        return;
    }
    if (t->paused)
        e2b_agent_watch_set_paused(t->watch, true);
}

static void wake(void *ctx);

static void on_token(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    struct token_call *c = ud;
    struct live_agent *t = c->t;
    (void)status;
    free(c);
    if (t) {
        t->token_call = NULL;
        if (!err && sb && sb->traffic_access_token && *sb->traffic_access_token) {
            e2b_wipe_free(t->token);
            t->token = strdup(sb->traffic_access_token);
        }
        /* Without the token the watch says what it can (the server refuses it). */
        if (t->password && !t->m->closing)
            start_watch(t, t->password);
        e2b_wipe_free(t->password);
        t->password = NULL;
        live_notify(t->m, E2B_LIVE_AGENTS);
    }
    e2b_sandbox_free(sb);
}

/* A private box (made so by this machine: metadata e2b-tui.traffic = private) needs its
 * traffic token, which only create and connect hand out: connect first (the box runs, so
 * it only confirms its timeout, never shortens it), then watch. */
static void start_watch_private(struct live_agent *t, const char *password)
{
    e2b_live *m = t->m;
    const e2b_sandbox *sb = sandbox_of(t);
    const char *traffic = sb ? e2b_metadata_get(&sb->metadata, E2B_META_TRAFFIC) : NULL;
    struct token_call *c = NULL;
    e2b_error *err = NULL;
    if (t->token_call)
        return; /* one token call an agent: a second would overwrite its password copy */
    if (t->token || !m->client || !traffic || strcmp(traffic, "private") != 0 ||
        (sb->traffic_access_token && *sb->traffic_access_token) ||
        !(c = calloc(1, sizeof *c)) || !(t->password = strdup(password))) {
        free(c);
        start_watch(t, password);
        return;
    }
    c->t = t;
    t->token_call = c;
    c->call = e2b_api_connect(m->client, t->sandbox_id, 60, on_token, c, &err);
    if (!c->call) {
        e2b_error_free(err);
        t->token_call = NULL;
        free(c);
        e2b_wipe_free(t->password);
        t->password = NULL;
        start_watch(t, password);
    }
}

static void ask_password(struct live_agent *t)
{
    keystore *ks = store(t->m);
    /* a token call in flight holds the password it will watch with */
    if (!ks || t->pw_job || t->watch || t->token_call || t->no_password)
        return;
    ks_error kerr = {0};
    t->pw_job = keystore_job_get(ks, t->name, t->sandbox_id, 10000, wake, t->m, &kerr);
    if (!t->pw_job) {
        t->no_password = true;
        settle_fail(t, E2B_ERR_IO, kerr.message[0] ? kerr.message : "the password store failed");
    }
}

/* On the loop: a keystore job ended (which one is not said: look at all). */
static void on_jobs(void *ud)
{
    e2b_live *m = ud;
    struct live_agents *a = m->agents;
    if (!a || a->closing || m->closing)
        return;
    if (a->open_job && keystore_job_done(a->open_job)) {
        char *warning = NULL;
        a->ks = keystore_job_take_store(a->open_job, &warning);
        free(warning);
        keystore_job_free(a->open_job);
        a->open_job = NULL;
        for (size_t i = 0; i < a->n; i++)
            ask_password(a->items[i]);
    }
    bool changed = false;
    for (size_t i = 0; i < a->n; i++) {
        struct live_agent *t = a->items[i];
        if (!t->pw_job || !keystore_job_done(t->pw_job))
            continue;
        char *pw = NULL;
        ks_error kerr = {0};
        ks_code rc = keystore_job_result(t->pw_job, &kerr, &pw, NULL, NULL);
        keystore_job_free(t->pw_job);
        t->pw_job = NULL;
        if (rc == KS_OK && pw) {
            start_watch_private(t, pw);
        } else {
            t->no_password = true; /* made elsewhere: its agent is not ours to watch */
            settle_fail(t, E2B_ERR_INVALID, "its password is not on this machine");
        }
        keystore_password_free(pw);
        changed = true;
    }
    if (changed)
        live_notify(m, E2B_LIVE_AGENTS);
}

/* On a keystore thread. */
static void wake(void *ctx)
{
    e2b_live *m = ctx;
    if (m->agents && m->loop)
        e2b_loop_post_slot(m->loop, &m->agents->slot, on_jobs, m);
}

static void open_store(e2b_live *m)
{
    struct live_agents *a = m->agents;
    if (store(m) || a->open_job)
        return;
    /* --keystore, then E2B_TUI_KEYSTORE, then the file, as in every mode */
    ks_select sel = e2b_keystore_choice(m->keystore_flag, &m->cfg);
    ks_error kerr = {0};
    a->open_job = keystore_job_open(&sel, 10000, wake, m, &kerr);
}

/* A new entry for the box of record r (not watched yet), or NULL when out of memory. */
static struct live_agent *agent_new(e2b_live *m, const e2b_box_record *r)
{
    struct live_agents *a = agents(m);
    struct live_agent **g = a ? realloc(a->items, (a->n + 1) * sizeof *g) : NULL;
    if (!g)
        return NULL;
    a->items = g;
    struct live_agent *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->m = m;
    snprintf(t->sandbox_id, sizeof t->sandbox_id, "%s", r->sandbox_id);
    snprintf(t->name, sizeof t->name, "%s", r->name);
    t->rec.name = r->name ? strdup(r->name) : NULL;
    t->rec.port = r->port;
    t->rec.opencode = r->opencode;
    t->rec.budget_usd = r->budget_usd;
    t->rec.budget_stopped = r->budget_stopped;
    t->rec.dir = r->dir ? strdup(r->dir) : NULL;
    t->rec.turn_owed_ms = r->turn_owed_ms;
    memcpy(t->rec.turn_owed_session, r->turn_owed_session, sizeof t->rec.turn_owed_session);
    t->fixed.api = r->opencode == 1 ? 1 : 2;
    take_rules(t, r);
    a->items[a->n++] = t;
    return t;
}

void live_agents_sync(e2b_live *m)
{
    m->agents_resync = false;
    if (m->closing || !m->loop || m->is_headless) /* headless: no watches unless asked */
        return;
    const e2b_box_record_list *recs = &m->records; /* live_records.c keeps them current */
    struct live_agents *a = agents(m);
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++)
        a->items[i]->seen = false;
    bool changed = false;
    for (size_t i = 0; i < m->sandboxes.count; i++) {
        const e2b_sandbox *sb = &m->sandboxes.items[i];
        const e2b_box_record *r = e2b_box_record_list_find_sandbox(recs, sb->sandbox_id);
        if (!r)
            continue;
        struct live_agent *t = find(m, sb->sandbox_id);
        if (!t) {
            if (!(t = agent_new(m, r)))
                break;
            changed = true;
        }
        t->seen = true;
        t->listed_at = i;
        take_rules(t, r); /* a rule added or revoked since (the records are read again) */
        live_owed_take(m, t->sandbox_id, r); /* a turn owed that another process marked */
        bool paused = sb->state == E2B_STATE_PAUSED;
        if (paused != t->paused) {
            t->paused = paused;
            if (t->watch)
                e2b_agent_watch_set_paused(t->watch, paused);
            changed = true;
        }
        t->fixed.state = paused ? E2B_AGENT_PAUSED : E2B_AGENT_UNKNOWN;
        if (!paused)
            ask_password(t);
    }
    for (size_t i = a->n; i-- > 0;) {
        if (a->items[i]->seen)
            continue;
        agent_free(a->items[i]);
        a->items[i] = a->items[--a->n];
        changed = true;
    }
    if (a->n && !store(m))
        open_store(m);
    if (changed)
        live_notify(m, E2B_LIVE_AGENTS);
}

void live_agents_shutdown(e2b_live *m)
{
    struct live_agents *a = m->agents;
    if (!a)
        return;
    a->closing = true;
    for (size_t i = 0; i < a->n; i++)
        agent_free(a->items[i]);
    a->n = 0;
    if (a->open_job) {
        keystore_job_free(a->open_job);
        a->open_job = NULL;
    }
}

void live_agents_free(e2b_live *m)
{
    struct live_agents *a = m->agents;
    if (!a)
        return;
    live_agents_shutdown(m);
    if (a->ks)
        keystore_close(a->ks);
    free(a->items);
    free(a);
    m->agents = NULL;
}

/* ---- one box, headless (e2b_live_agent_watch) ---- */

static void on_settle_timer(void *ud)
{
    struct live_agent *t = ud;
    t->settle_timer = 0;
    settle(t, NULL); /* not synced: the waiter says so */
}

static void on_got(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    struct token_call *c = ud;
    struct live_agent *t = c->t;
    (void)status;
    free(c);
    if (!t || t->m->closing) {
        e2b_sandbox_free(sb);
        return;
    }
    t->get_call = NULL;
    if (err) {
        t->no_password = true; /* nothing to watch */
        if (err->kind == E2B_ERR_NOT_FOUND)
            settle_fail(t, E2B_ERR_NOT_FOUND, "its sandbox is gone");
        else
            settle(t, err);
        e2b_sandbox_free(sb);
        return;
    }
    t->got = sb;
    t->paused = sb->state == E2B_STATE_PAUSED;
    t->fixed.state = t->paused ? E2B_AGENT_PAUSED : E2B_AGENT_UNKNOWN;
    if (t->paused)
        settle(t, NULL);
    else if (!store(t->m))
        settle_fail(t, E2B_ERR_IO, "the password store is not open");
    else
        ask_password(t);
    live_notify(t->m, E2B_LIVE_AGENTS);
}

int e2b_live_agent_watch(e2b_live *m, const e2b_box_record *rec, long settle_ms)
{
    e2b_live_end *end = live_then_take(m);
    struct live_agent *t = find(m, rec->sandbox_id);
    if (t) { /* watched already: settled, or (resumed since) its waiter waits for that */
        bool settling = !t->paused && !t->no_password && !t->end &&
                        (!t->watch || !e2b_agent_watch_synced(t->watch));
        if (!settling) {
            live_end(end, NULL, 0);
            return 0;
        }
        t->end = end;
        t->settle_timer = e2b_loop_timer_add(m->loop, settle_ms > 0 ? settle_ms : 20000,
                                             on_settle_timer, t);
        return 0;
    }
    struct token_call *c = calloc(1, sizeof *c);
    if (!m->client || !c || !(t = agent_new(m, rec))) {
        free(c);
        live_end_fail(end, m->client ? E2B_ERR_INTERNAL : E2B_ERR_AUTH,
                      m->client ? "out of memory" : "no API key (set E2B_API_KEY)");
        return -1;
    }
    t->end = end;
    t->seen = true;
    e2b_error *err = NULL;
    c->t = t;
    c->call = e2b_api_get(m->client, rec->sandbox_id, on_got, c, &err);
    if (!c->call) {
        free(c);
        t->no_password = true;
        settle(t, err);
        e2b_error_free(err);
        return -1;
    }
    t->get_call = c;
    t->settle_timer = e2b_loop_timer_add(m->loop, settle_ms > 0 ? settle_ms : 20000,
                                         on_settle_timer, t);
    return 0;
}

bool live_agent_pending(const e2b_live *m, const char *sandbox_id)
{
    const struct live_agent *t = find(m, sandbox_id);
    return t && t->pending_text;
}

struct live_owed *live_agent_owed(e2b_live *m, const char *sandbox_id)
{
    struct live_agent *t = find(m, sandbox_id);
    return t ? &t->owed : NULL;
}

e2b_box_record *live_agent_record(e2b_live *m, const char *sandbox_id)
{
    struct live_agent *t = find(m, sandbox_id);
    return t ? &t->rec : NULL;
}

const e2b_sandbox *live_agent_sandbox(const e2b_live *m, const char *sandbox_id)
{
    const struct live_agent *t = find(m, sandbox_id);
    return t ? t->got : NULL;
}

void live_agents_resumed(e2b_live *m, const char *sandbox_id, const e2b_sandbox *sb)
{
    struct live_agent *t = find(m, sandbox_id);
    if (!t || !t->paused || m->closing)
        return;
    t->paused = false;
    t->fixed.state = E2B_AGENT_UNKNOWN;
    if (t->got)
        t->got->state = E2B_STATE_RUNNING;
    if (sb && sb->traffic_access_token && *sb->traffic_access_token) {
        e2b_wipe_free(t->token); /* a private box's token comes with the connect */
        t->token = strdup(sb->traffic_access_token);
    }
    if (t->watch)
        e2b_agent_watch_set_paused(t->watch, false);
    else if (!m->is_headless || t->got) /* headless: only the boxes asked for */
        ask_password(t);
    live_notify(m, E2B_LIVE_AGENTS);
}

bool e2b_live_agent_ruled(const e2b_live *m, const char *sandbox_id)
{
    const struct live_agent *t = find(m, sandbox_id);
    const e2b_agent_status *st = t && t->watch ? e2b_agent_watch_status(t->watch) : NULL;
    if (!st || !st->nrequests || (!t->rec.napprove && !t->rec.yes_all))
        return false;
    for (size_t i = 0; i < st->nrequests; i++)
        if (!e2b_rules_match(t->rec.approve, t->rec.napprove, t->rec.yes_all, &st->requests[i]))
            return false;
    return true;
}

bool e2b_live_agent_rules(const e2b_live *m, const char *sandbox_id, size_t *nrules)
{
    const struct live_agent *t = find(m, sandbox_id);
    const e2b_box_record *r = e2b_live_record(m, sandbox_id);
    size_t n = t ? t->rec.napprove : r ? r->napprove : 0;
    if (nrules)
        *nrules = n;
    return t ? t->rec.yes_all : r && r->yes_all;
}

struct e2b_agent_watch *live_agent_watch(e2b_live *m, const char *sandbox_id)
{
    struct live_agent *t = find(m, sandbox_id);
    return t ? t->watch : NULL;
}

const char *live_agent_name(const e2b_live *m, const char *sandbox_id)
{
    const struct live_agent *t = find(m, sandbox_id);
    return t ? t->name : NULL;
}

bool e2b_live_agent_synced(const e2b_live *m, const char *sandbox_id)
{
    const struct live_agent *t = find(m, sandbox_id);
    return t && t->watch && e2b_agent_watch_synced(t->watch);
}

struct e2b_oc_client *e2b_live_agent_client(const e2b_live *m, const char *sandbox_id)
{
    const struct live_agent *t = find(m, sandbox_id);
    return t && t->watch ? e2b_agent_watch_client(t->watch) : NULL;
}

const e2b_sandbox *e2b_live_agent_sandbox(const e2b_live *m, const char *sandbox_id)
{
    const struct live_agent *t = find(m, sandbox_id);
    return t ? sandbox_of(t) : live_sandbox_find(&m->sandboxes, sandbox_id);
}

/* ---- the public side ---- */

const e2b_agent_status *e2b_live_agent(const e2b_live *m, const char *sandbox_id)
{
    const struct live_agent *t = find(m, sandbox_id);
    if (!t || t->no_password)
        return NULL;
    return t->watch ? e2b_agent_watch_status(t->watch) : &t->fixed;
}

size_t e2b_live_agent_count(const e2b_live *m)
{
    return m->agents ? m->agents->n : 0;
}

const e2b_agent_status *e2b_live_agent_at(const e2b_live *m, size_t i, const char **sandbox_id,
                                          const char **name)
{
    const struct live_agents *a = m->agents;
    if (!a || i >= a->n)
        return NULL;
    const struct live_agent *t = a->items[i];
    if (sandbox_id)
        *sandbox_id = t->sandbox_id;
    if (name)
        *name = t->name;
    if (t->no_password)
        return NULL;
    return t->watch ? e2b_agent_watch_status(t->watch) : &t->fixed;
}

const e2b_sandbox *e2b_live_agent_sandbox_at(const e2b_live *m, size_t i)
{
    const struct live_agents *a = m->agents;
    return a && i < a->n ? sandbox_of(a->items[i]) : NULL;
}

size_t e2b_live_agents_waiting(const e2b_live *m)
{
    size_t n = 0;
    const struct live_agents *a = m->agents;
    for (size_t i = 0; a && i < a->n; i++)
        if (a->items[i]->watch &&
            e2b_agent_watch_status(a->items[i]->watch)->state == E2B_AGENT_WAITING)
            n++;
    return n;
}

struct agent_cmd {
    e2b_live *m;
    char name[128];
    char what[320];
    e2b_live_end *end; /* its waiter (e2b_live_then), or NULL */
    /* a prompt: its box and when it was sent (accepted: a turn is owed, live_owed.c); an
     * interrupt: the turn owed ends with it (one stopped before its first step leaves the
     * user's message unanswered, which a later read cannot tell from a turn still to start) */
    char sandbox_id[128];
    int64_t prompt_sent_ms;
    bool interrupt;
};

static void on_cmd_done(void *ud, const char *session_id, const e2b_error *err)
{
    struct agent_cmd *c = ud;
    if (!c->m->closing) {
        if (err)
            live_notice(c->m, E2B_LIVE_ERROR, "%s: %s: %s", c->name, c->what, e2b_error_message(err));
        else if (session_id)
            live_notice(c->m, E2B_LIVE_INFO, "%s: %s (session %s)", c->name, c->what, session_id);
        else
            live_notice(c->m, E2B_LIVE_INFO, "%s: %s", c->name, c->what);
        if (!err && c->prompt_sent_ms)
            live_owed_mark(c->m, c->sandbox_id, c->prompt_sent_ms, session_id);
        if (!err && c->interrupt)
            live_owed_end(c->m, c->sandbox_id);
        if (c->end && session_id)
            c->end->session_id = strdup(session_id);
        live_end(c->end, err, 0);
    }
    free(c);
}

/* The watched agent of sandbox_id, else NULL after a notice (and its waiter's end). */
static struct live_agent *watched(e2b_live *m, const char *sandbox_id, const char *verb)
{
    struct live_agent *t = find(m, sandbox_id);
    if (!t || !t->watch) {
        const char *why = t && t->paused ? "the box is paused: resume it first"
                          : t ? "its agent has not been reached yet"
                              : "not a box of this machine (its agent is not watched)";
        live_notice(m, E2B_LIVE_ERROR, "%s: %s", verb, why);
        live_end_fail(live_then_take(m), E2B_ERR_INVALID, m->notice);
        return NULL;
    }
    return t;
}

static struct agent_cmd *cmd_new(e2b_live *m, const struct live_agent *t, const char *what)
{
    e2b_live_end *end = live_then_take(m);
    struct agent_cmd *c = calloc(1, sizeof *c);
    if (!c) {
        live_notice(m, E2B_LIVE_ERROR, "%s: out of memory", what);
        live_end_fail(end, E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    c->end = end;
    c->m = m;
    snprintf(c->name, sizeof c->name, "%s", t->name);
    snprintf(c->what, sizeof c->what, "%s", what);
    return c;
}

static int cmd_end(e2b_live *m, struct agent_cmd *c, int rc, e2b_error *err)
{
    if (rc) {
        live_notice(m, E2B_LIVE_ERROR, "%s: %s: %s", c->name, c->what,
                    err ? e2b_error_message(err) : "failed");
        if (err)
            live_end(c->end, err, 0);
        else
            live_end_fail(c->end, E2B_ERR_INTERNAL, "failed");
        e2b_error_free(err);
        free(c);
        return -1;
    }
    return 0;
}

int e2b_live_agent_reply(e2b_live *m, const char *sandbox_id, const char *request_id,
                         e2b_agent_reply reply)
{
    struct live_agent *t = watched(m, sandbox_id, "reply");
    char what[32];
    snprintf(what, sizeof what, "reply %s", e2b_agent_reply_name(reply));
    struct agent_cmd *c = t ? cmd_new(m, t, what) : NULL;
    if (!c)
        return -1;
    e2b_error *err = NULL;
    int rc = e2b_agent_watch_reply(t->watch, request_id, reply, on_cmd_done, c, &err);
    return cmd_end(m, c, rc, err);
}

int e2b_live_agent_answer(e2b_live *m, const char *sandbox_id, const char *request_id,
                          const char *text, int option)
{
    struct live_agent *t = watched(m, sandbox_id, "answer");
    struct agent_cmd *c = t ? cmd_new(m, t, "answered") : NULL;
    if (!c)
        return -1;
    e2b_error *err = NULL;
    int rc = e2b_agent_watch_answer(t->watch, request_id, text, option, on_cmd_done, c, &err);
    return cmd_end(m, c, rc, err);
}

int e2b_live_agent_prompt(e2b_live *m, const char *sandbox_id, const char *session_id,
                          bool new_session, const char *text)
{
    return e2b_live_agent_prompt_model(m, sandbox_id, session_id, new_session, text, NULL);
}

int e2b_live_agent_prompt_model(e2b_live *m, const char *sandbox_id, const char *session_id,
                                bool new_session, const char *text, const char *model)
{
    struct live_agent *p = find(m, sandbox_id);
    if (p && p->paused) { /* resumed first; the message goes once its agent answers */
        /* the message's waiter, taken before the resume's (which has none) */
        e2b_live_end *end = live_then_take(m);
        if (p->pending_text) {
            live_notice(m, E2B_LIVE_ERROR, "prompt: %s is being resumed for a message already",
                        p->name);
            live_end_fail(end, E2B_ERR_CONFLICT, m->notice);
            return -1;
        }
        p->pending_text = strdup(text);
        p->pending_session = session_id ? strdup(session_id) : NULL;
        p->pending_model = model ? strdup(model) : NULL;
        p->pending_new = new_session;
        if (!p->pending_text || e2b_live_resume(m, sandbox_id, 0) != 0) {
            free(p->pending_text);
            free(p->pending_session);
            free(p->pending_model);
            p->pending_text = p->pending_session = p->pending_model = NULL;
            live_end_fail(end, E2B_ERR_INTERNAL, "resuming the box failed");
            return -1;
        }
        p->pending_end = end;
        live_notice(m, E2B_LIVE_INFO, "box %s was paused: resuming it first; the message goes "
                    "once its agent answers", p->name);
        return 0;
    }
    struct live_agent *t = watched(m, sandbox_id, "prompt");
    /* a box waiting for you takes the message after the request is answered: say so (a
     * new session's turn waits on nothing) */
    const e2b_agent_status *st = t ? e2b_agent_watch_status(t->watch) : NULL;
    char what[320] = "prompt sent";
    if (st && st->state == E2B_AGENT_WAITING && st->nrequests && !new_session)
        snprintf(what, sizeof what, "queued: it waits for you on %.280s",
                 st->requests[0].summary ? st->requests[0].summary : "a request");
    struct agent_cmd *c = t ? cmd_new(m, t, what) : NULL;
    if (!c)
        return -1;
    snprintf(c->sandbox_id, sizeof c->sandbox_id, "%s", t->sandbox_id);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    c->prompt_sent_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    e2b_error *err = NULL;
    int rc = e2b_agent_watch_prompt(t->watch, session_id, new_session, text, model, on_cmd_done,
                                    c, &err);
    return cmd_end(m, c, rc, err);
}

static void send_pending(void *ud)
{
    struct live_agent *t = ud;
    t->pending_timer = 0;
    char *text = t->pending_text, *session = t->pending_session, *model = t->pending_model;
    t->pending_text = t->pending_session = t->pending_model = NULL;
    if (text && !t->m->closing) {
        if (t->pending_end)
            e2b_live_then(t->m, t->pending_end);
        t->pending_end = NULL;
        e2b_live_agent_prompt_model(t->m, t->sandbox_id, session, t->pending_new, text, model);
    }
    free(text);
    free(session);
    free(model);
}

int e2b_live_agent_interrupt(e2b_live *m, const char *sandbox_id)
{
    struct live_agent *t = watched(m, sandbox_id, "interrupt");
    /* An idle agent has no turn to stop: the interrupt still goes to its session (a turn
     * may be starting), but the words say there was nothing to interrupt (as --interrupt). */
    bool idle = t && e2b_agent_watch_status(t->watch)->state == E2B_AGENT_IDLE;
    struct agent_cmd *c = t ? cmd_new(m, t, idle ? "nothing to interrupt (the agent is idle)"
                                                 : "interrupted")
                            : NULL;
    if (!c)
        return -1;
    snprintf(c->sandbox_id, sizeof c->sandbox_id, "%s", t->sandbox_id);
    c->interrupt = true;
    e2b_error *err = NULL;
    int rc = e2b_agent_watch_interrupt(t->watch, on_cmd_done, c, &err);
    if (rc && idle && err && err->kind == E2B_ERR_NOT_FOUND) { /* not even a session */
        live_notice(m, E2B_LIVE_INFO, "%s: %s", c->name, c->what);
        live_end(c->end, NULL, 0);
        e2b_error_free(err);
        free(c);
        return 0;
    }
    return cmd_end(m, c, rc, err);
}
