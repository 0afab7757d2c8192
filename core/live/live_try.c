/* A group of attempts made from the dashboard (live.h e2b_live_try): the one-shot --up NAME
 * --try N (tui/cli/cli_try.c) as steps the loop advances, never waiting on it: an up of
 * NAME-1 (or, for F, the box as it is), a fork into the group, then each member's task once
 * its agent answers (v2: once the model catalog has the configured model, or the prompt is
 * lost), its record then noting the model and when. Each step is one of the model's own
 * operations or agent commands; the try itself is a row of the operations view (kind
 * E2B_LIVE_OP_TRY), its failures notices. The steps advance from one posted call (the
 * model's try_slot) after any change the model tells, and from a tick while a member's
 * agent is awaited; nothing runs once no try is left. */
#include "core/live/live_internal.h"

#include "core/agent/opencode.h"
#include "core/box/records.h"
#include "core/git/gitwork.h"
#include "core/util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TICK_MS = 500, AGENT_WAIT_MS = 180000, GROUP_MAX = 50, TRY_MAX = 100 };

enum member_state { M_WAIT, M_CATALOG, M_SENDING, M_SENT, M_FAILED };

struct try_member {
    struct live_try *t;
    char name[128], sandbox_id[128], model[128];
    enum member_state state;
    e2b_oc_call *catalog; /* the model catalog asked (v2), or NULL once cancelled */
    bool asking;          /* that call has not called back: the try may not end */
    bool give_up;         /* the deadline passed (or cancel) while it was asked */
    e2b_live_end sent;    /* the prompt's waiter */
};

enum try_phase { T_UP, T_FORK, T_TASK, T_DONE };

struct live_try {
    e2b_live *m;
    unsigned id, sub;        /* its row's id; the up or fork running (0 = none) */
    enum try_phase phase;
    char group[64], first[128], first_id[128];
    char *task, *models;
    int count;               /* up: the members; fork: the forks */
    char template_id[128], dir[1024];
    int hours;
    e2b_live_end sub_end;    /* the up's or fork's waiter */
    struct try_member *mem;
    size_t n;
    int64_t deadline_ms;     /* the members' agents are awaited until then */
    bool cancelled;
    char step[200];
};

void e2b_live_try_model_of(const char *models, size_t k, char *buf, size_t n)
{
    buf[0] = '\0';
    if (!models || !*models)
        return;
    size_t count = 1;
    for (const char *p = models; *p; p++)
        count += *p == ',';
    k %= count;
    const char *p = models;
    while (k--)
        p += strcspn(p, ",") + 1;
    size_t len = strcspn(p, ",");
    snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), p);
}

bool e2b_live_try_models_valid(const char *models)
{
    for (const char *p = models; p && *p;) {
        size_t n = strcspn(p, ",");
        const char *slash = memchr(p, '/', n);
        if (!slash || slash == p || slash == p + n - 1 || n > 120)
            return false;
        for (size_t k = 0; k < n; k++)
            if ((unsigned char)p[k] <= ' ' || (unsigned char)p[k] >= 0x7f)
                return false;
        p += n + (p[n] == ',');
        if (p[-1] == ',' && !*p)
            return false; /* a trailing comma names nothing */
    }
    return true;
}

static void try_free(struct live_try *t)
{
    for (size_t i = 0; i < t->n; i++) {
        e2b_error_free(t->mem[i].sent.err);
        free(t->mem[i].sent.session_id);
    }
    free(t->mem);
    e2b_error_free(t->sub_end.err);
    e2b_box_op_free(t->sub_end.op);
    free(t->task);
    free(t->models);
    free(t);
}

static void kick(e2b_live *m);

static void on_tick(void *ud)
{
    e2b_live *m = ud;
    m->try_timer = 0;
    kick(m);
}

/* ---- the members' tasks ---- */

static void member_fail(struct try_member *mb, const char *why)
{
    mb->state = M_FAILED;
    live_notice(mb->t->m, E2B_LIVE_ERROR, "try %s: member %s did not get the task: %s",
                mb->t->group, mb->name, why);
}

static void send_task(struct try_member *mb)
{
    e2b_live *m = mb->t->m;
    mb->state = M_SENDING;
    e2b_live_then(m, &mb->sent);
    e2b_live_agent_prompt_model(m, mb->sandbox_id, NULL, true, mb->t->task,
                                mb->model[0] ? mb->model : NULL); /* may end at once */
}

static void on_catalog(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    struct try_member *mb = ud;
    mb->catalog = NULL;
    mb->asking = false;
    if (mb->t->m->closing)
        return;
    if (mb->state == M_CATALOG && mb->give_up)
        mb->state = M_FAILED; /* told when it gave up */
    else if (mb->state == M_CATALOG && !err && res && res->healthy)
        send_task(mb);
    else if (mb->state == M_CATALOG)
        mb->state = M_WAIT; /* asked again at the next tick, until the deadline */
    kick(mb->t->m);
}

/* The member's record notes its task: the model and when (as --up --try does). */
static void note_task(const struct try_member *mb)
{
    const char *dir = mb->t->m->cfg.records_dir;
    e2b_box_record rec = {0};
    e2b_error *err = e2b_box_record_read(dir, mb->name, &rec);
    if (!err && !strcmp(rec.sandbox_id, mb->sandbox_id)) {
        snprintf(rec.model, sizeof rec.model, "%s", mb->model);
        rec.task_at = time(NULL);
        err = e2b_box_record_write(dir, &rec, 0);
    }
    if (err)
        e2b_logf("try %s: the record of %s: %s", mb->t->group, mb->name, e2b_error_message(err));
    e2b_error_free(err);
    e2b_box_record_clear(&rec);
}

/* One look at every member; true while one is still awaited (the tick goes on). */
static bool advance_members(struct live_try *t)
{
    e2b_live *m = t->m;
    bool awaited = false, late = e2b_now_ms() >= t->deadline_ms;
    for (size_t i = 0; i < t->n; i++) {
        struct try_member *mb = &t->mem[i];
        if (mb->state == M_WAIT && !t->cancelled) {
            const e2b_agent_status *st = e2b_live_agent(m, mb->sandbox_id);
            e2b_oc_client *oc = e2b_live_agent_client(m, mb->sandbox_id);
            if (st && oc && e2b_live_agent_synced(m, mb->sandbox_id) &&
                st->state == E2B_AGENT_IDLE) {
                if (e2b_oc_api(oc) != 2) {
                    send_task(mb);
                } else {
                    mb->state = M_CATALOG;
                    e2b_error *err = NULL;
                    mb->catalog = e2b_oc_model_ready(oc, on_catalog, mb, &err);
                    mb->asking = mb->catalog != NULL;
                    if (!mb->catalog)
                        mb->state = M_WAIT;
                    e2b_error_free(err);
                }
            }
        }
        if (mb->state == M_SENDING && mb->sent.done) {
            if (mb->sent.err) {
                char why[600];
                snprintf(why, sizeof why, "%s", e2b_error_message(mb->sent.err));
                member_fail(mb, why);
            } else {
                mb->state = M_SENT;
                note_task(mb);
            }
        }
        if ((mb->state == M_WAIT || mb->state == M_CATALOG) && !mb->give_up &&
            (late || t->cancelled)) {
            char why[160];
            snprintf(why, sizeof why, "its agent did not answer within %d s",
                     AGENT_WAIT_MS / 1000);
            if (!t->cancelled)
                live_notice(m, E2B_LIVE_ERROR, "try %s: member %s did not get the task: %s",
                            t->group, mb->name, why);
            mb->give_up = true;
            if (mb->state == M_WAIT)
                mb->state = M_FAILED;
            else if (mb->catalog)
                e2b_oc_cancel(mb->catalog); /* its callback ends it */
        }
        awaited = awaited || mb->asking || mb->state == M_WAIT || mb->state == M_CATALOG ||
                  mb->state == M_SENDING;
    }
    size_t sent = 0;
    for (size_t i = 0; i < t->n; i++)
        sent += t->mem[i].state == M_SENT;
    char step[sizeof t->step];
    snprintf(step, sizeof step, "giving the task: %zu of %zu", sent, t->n);
    if (strcmp(step, t->step)) {
        snprintf(t->step, sizeof t->step, "%s", step);
        live_notify(m, E2B_LIVE_OPS);
    }
    return awaited;
}

/* The fork ended: its members, the first one and every fork that started. */
static bool take_members(struct live_try *t, const e2b_box_result *r)
{
    size_t n = 1 + (r ? r->nforks : 0);
    t->mem = calloc(n, sizeof *t->mem);
    if (!t->mem)
        return false;
    for (size_t i = 0; i < n; i++) {
        struct try_member *mb = &t->mem[i];
        mb->t = t;
        const char *name = i ? r->forks[i - 1] : t->first;
        snprintf(mb->name, sizeof mb->name, "%s", name);
        e2b_box_record rec = {0};
        e2b_error *err = e2b_box_record_read(t->m->cfg.records_dir, name, &rec);
        if (!err)
            snprintf(mb->sandbox_id, sizeof mb->sandbox_id, "%s", rec.sandbox_id);
        e2b_box_record_clear(&rec);
        e2b_live_try_model_of(t->models, i, mb->model, sizeof mb->model);
        if (err) {
            char why[600];
            snprintf(why, sizeof why, "%s", e2b_error_message(err));
            t->n = i + 1;
            member_fail(mb, why);
        }
        e2b_error_free(err);
        t->n = i + 1;
    }
    return true;
}

/* ---- the steps ---- */

static unsigned start_fork(struct live_try *t)
{
    t->phase = T_FORK;
    snprintf(t->step, sizeof t->step, "forking %s into %d", t->first, t->count);
    t->sub_end = (e2b_live_end){0};
    e2b_live_then(t->m, &t->sub_end);
    e2b_live_op_params fk = {.kind = E2B_LIVE_OP_FORK, .name = t->first, .count = t->count,
                             .group = t->group,
                             .sandbox_id = t->first_id[0] ? t->first_id : NULL};
    return t->sub = e2b_live_op_by_name(t->m, &fk);
}

/* Takes the ended sub-operation's waiter; true when it succeeded (else told, and ended). */
static bool sub_ended(struct live_try *t, const char *what)
{
    t->sub = 0;
    if (t->sub_end.err) { /* the op's own notice said why */
        if (t->sub_end.err->kind != E2B_ERR_CANCELLED && !t->cancelled)
            live_notice(t->m, E2B_LIVE_ERROR, "try %s: %s failed: %s", t->group, what,
                        e2b_error_message(t->sub_end.err));
        t->phase = T_DONE;
        return false;
    }
    if (t->cancelled) {
        t->phase = T_DONE;
        return false;
    }
    return true;
}

/* One look at try t; false once it has ended (then freed by the caller). */
static bool advance(struct live_try *t)
{
    e2b_live *m = t->m;
    if (t->phase == T_UP && t->sub_end.done) {
        if (!sub_ended(t, "the up"))
            return false;
        const e2b_box_result *r = e2b_box_op_result(t->sub_end.op);
        if (r && r->sandbox_id)
            snprintf(t->first_id, sizeof t->first_id, "%s", r->sandbox_id);
        e2b_box_op_free(t->sub_end.op);
        t->sub_end.op = NULL;
        start_fork(t); /* a refusal ends its waiter at once: seen below */
        live_notify(m, E2B_LIVE_OPS);
    }
    if (t->phase == T_FORK && t->sub_end.done) {
        if (!sub_ended(t, "the fork")) {
            if (t->first[0] && !t->cancelled)
                live_notice(m, E2B_LIVE_ERROR, "try %s: the group has only %s (kill it, or F "
                            "forks it again)", t->group, t->first);
            return false;
        }
        const e2b_box_result *r = e2b_box_op_result(t->sub_end.op);
        bool ok = take_members(t, r);
        e2b_box_op_free(t->sub_end.op);
        t->sub_end.op = NULL;
        if (!ok) {
            live_notice(m, E2B_LIVE_ERROR, "try %s: out of memory", t->group);
            return false;
        }
        t->phase = T_TASK;
        t->deadline_ms = e2b_now_ms() + AGENT_WAIT_MS; /* the fork's end refreshed the list */
        live_notify(m, E2B_LIVE_OPS);
    }
    if (t->phase != T_TASK)
        return true;
    if (advance_members(t))
        return true;
    size_t sent = 0;
    for (size_t i = 0; i < t->n; i++)
        sent += t->mem[i].state == M_SENT;
    if (t->cancelled)
        live_notice(m, E2B_LIVE_INFO, "try %s: cancelled (%zu of %zu members have the task)",
                    t->group, sent, t->n);
    else if (sent == t->n && t->n == (size_t)t->count + 1)
        live_notice(m, E2B_LIVE_INFO, "try %s: %zu members have the task (= compares them)",
                    t->group, sent);
    else
        live_notice(m, E2B_LIVE_ERROR, "try %s: %zu of %d members have the task (see the "
                    "messages)", t->group, sent, t->count + 1);
    return false;
}

static void advance_all(void *ud)
{
    e2b_live *m = ud;
    if (m->closing)
        return;
    bool tick = false;
    /* By index from the end: an ended try goes from the list. */
    for (size_t i = m->ntries; i-- > 0;) {
        struct live_try *t = m->tries[i];
        if (advance(t)) {
            tick = tick || (t->phase == T_TASK);
            continue;
        }
        memmove(&m->tries[i], &m->tries[i + 1], (m->ntries - i - 1) * sizeof *m->tries);
        m->ntries--;
        try_free(t);
        live_notify(m, E2B_LIVE_OPS);
    }
    if (tick && !m->try_timer)
        m->try_timer = e2b_loop_timer_add(m->loop, TICK_MS, on_tick, m);
}

static void kick(e2b_live *m)
{
    if (m->ntries && m->loop && !m->closing)
        e2b_loop_post_slot(m->loop, &m->try_slot, advance_all, m);
}

void live_tries_changed(e2b_live *m)
{
    kick(m);
}

/* ---- the start ---- */

unsigned e2b_live_try(e2b_live *m, const e2b_live_try_params *p)
{
    const char *fail = NULL;
    const e2b_sandbox *sb = p->sandbox_id ? e2b_live_sandbox(m, p->sandbox_id) : NULL;
    const e2b_box_record *parent = p->sandbox_id ? e2b_live_record(m, p->sandbox_id) : NULL;
    char group[64] = "";
    if (p->sandbox_id) {
        if (!sb || !parent)
            fail = "try: only for this machine's boxes";
        else
            snprintf(group, sizeof group, "%s", parent->group[0] ? parent->group : parent->name);
    } else {
        snprintf(group, sizeof group, "%.63s", p->group ? p->group : "");
    }
    int least = p->sandbox_id ? 1 : 2; /* F: the forks; u: the members */
    if (!fail && (!*group || strlen(group) > GROUP_MAX || !e2b_gitwork_box_name_valid(group)))
        fail = "try: the group's name must be a box name of at most 50 characters";
    else if (!fail && (p->count < least || p->count > TRY_MAX))
        fail = p->sandbox_id ? "try: give a number of forks from 1 to 100"
                             : "try: give a number of attempts from 2 to 100";
    else if (!fail && (!p->task || !*p->task))
        fail = "try: the members need a task";
    else if (!fail && !e2b_live_try_models_valid(p->models))
        fail = "try: models are provider/model, comma-separated";
    if (fail) {
        live_notice(m, E2B_LIVE_ERROR, "%s", fail);
        return 0;
    }
    for (size_t i = 0; i < m->ntries; i++)
        if (!strcmp(m->tries[i]->group, group)) {
            live_notice(m, E2B_LIVE_ERROR, "try %s: already being made", group);
            return 0;
        }
    struct live_try *t = calloc(1, sizeof *t);
    struct live_try **v = t ? realloc(m->tries, (m->ntries + 1) * sizeof *v) : NULL;
    if (v)
        m->tries = v;
    if (!t || !v || !(t->task = strdup(p->task)) ||
        (p->models && *p->models && !(t->models = strdup(p->models)))) {
        if (t)
            try_free(t);
        live_notice(m, E2B_LIVE_ERROR, "try: out of memory");
        return 0;
    }
    t->m = m;
    t->id = m->next_op_id++;
    snprintf(t->group, sizeof t->group, "%s", group);
    snprintf(t->template_id, sizeof t->template_id, "%s", p->template_id ? p->template_id : "");
    snprintf(t->dir, sizeof t->dir, "%s", p->dir ? p->dir : "");
    t->hours = p->hours;
    m->tries[m->ntries++] = t;
    if (p->sandbox_id) { /* F: the box as it is is the first member */
        t->count = p->count;
        snprintf(t->first, sizeof t->first, "%s", parent->name);
        snprintf(t->first_id, sizeof t->first_id, "%s", p->sandbox_id);
        start_fork(t);
    } else {
        t->count = p->count - 1;
        snprintf(t->first, sizeof t->first, "%s-1", group);
        t->phase = T_UP;
        snprintf(t->step, sizeof t->step, "up %s, then a fork into %d", t->first, t->count);
        e2b_live_then(m, &t->sub_end);
        e2b_live_op_params up = {.kind = E2B_LIVE_OP_UP, .name = t->first,
                                 .template_id = t->template_id[0] ? t->template_id : NULL,
                                 .dir = t->dir[0] ? t->dir : NULL, .hours = t->hours};
        t->sub = e2b_live_op_by_name(m, &up);
    }
    unsigned id = t->id;
    kick(m); /* a refused step ended its waiter already */
    live_notify(m, E2B_LIVE_OPS);
    return id;
}

/* ---- the operations view, cancel, shutdown ---- */

size_t live_tries_count(const e2b_live *m)
{
    return m->ntries;
}

void live_try_info(const e2b_live *m, size_t i, e2b_live_op_info *out)
{
    const struct live_try *t = m->tries[i];
    *out = (e2b_live_op_info){.id = t->id, .kind = E2B_LIVE_OP_TRY, .verb = "try",
                              .name = t->group, .sandbox_id = t->first_id, .step = t->step,
                              .cancelling = t->cancelled};
}

int live_try_cancel(e2b_live *m, unsigned id)
{
    for (size_t i = 0; i < m->ntries; i++) {
        struct live_try *t = m->tries[i];
        if (t->id != id)
            continue;
        t->cancelled = true;
        snprintf(t->step, sizeof t->step, "cancelling");
        if (t->sub)
            e2b_live_op_cancel(m, t->sub);
        kick(m);
        live_notify(m, E2B_LIVE_OPS);
        return 0;
    }
    return -1;
}

void live_try_agent_gone(e2b_live *m, const char *sandbox_id)
{
    for (size_t i = 0; i < m->ntries; i++)
        for (size_t k = 0; k < m->tries[i]->n; k++) {
            struct try_member *mb = &m->tries[i]->mem[k];
            if (mb->catalog && !strcmp(mb->sandbox_id, sandbox_id)) {
                e2b_oc_cancel(mb->catalog); /* before its client goes; it still calls back */
                mb->catalog = NULL;
            }
        }
}

void live_tries_shutdown(e2b_live *m)
{
    if (m->try_timer && m->loop)
        e2b_loop_timer_cancel(m->loop, m->try_timer);
    m->try_timer = 0;
    for (size_t i = 0; i < m->ntries; i++)
        for (size_t k = 0; k < m->tries[i]->n; k++)
            if (m->tries[i]->mem[k].catalog) {
                e2b_oc_cancel(m->tries[i]->mem[k].catalog);
                m->tries[i]->mem[k].catalog = NULL;
            }
}

void live_tries_free(e2b_live *m)
{
    for (size_t i = 0; i < m->ntries; i++)
        try_free(m->tries[i]);
    free(m->tries);
    m->tries = NULL;
    m->ntries = 0;
}
