/* Box operations of the model: any number at once (ups, attaches, pulls, kills), one per
 * box, through the boxes' step machines (core/box/box.h). The password store is opened on
 * a worker thread the first time one is needed; operations started meanwhile wait for it.
 * Every start, step and end is an E2B_LIVE_OPS change; every end is a notice. */
#include "core/live/live_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/box/box.h"
#include "core/box/box_get.h"
#include "core/box/box_ports.h"
#include "core/box/snap_records.h"
#include "core/util/log.h"
#include "keystore/keystore.h"

enum { SHUTDOWN_MS = 5000 };

struct live_op {
    e2b_live *m;
    unsigned id;
    e2b_live_op_kind kind;
    char name[128];
    char sandbox_id[128];
    char template_id[128];   /* up: the template ("" = the config's) */
    char from_snapshot[128]; /* up: the snapshot it starts from ("" = none) */
    char as[128];            /* snapshot: its name ("" = the box's) */
    char group[64];          /* fork: the group of attempts ("" = none) */
    char dir[1024];          /* up, pull: the project directory ("" = the current one);
                              * get: DEST ("" = ".") */
    char paths[4096];        /* get: the paths in the box, each ended by a NUL */
    size_t npaths;
    int hours;               /* up: the lifetime */
    double budget_usd;       /* up: what it may cost (0 = none of its own) */
    int count;               /* fork: how many */
    bool keep_failed, public_traffic, force;
    long health_timeout_ms;
    char *allow_out, *deny_out; /* up: the egress lists (NULL = the config's) */
    bool no_internet;
    int prepare;             /* up: E2B_BOX_PREPARE_* */
    e2b_box_record rules;    /* up: only its approval rules and yes_all are used */
    e2b_live_end *end;       /* its waiter (e2b_live_then), or NULL */
    e2b_box_op *op;     /* NULL while waiting for the password store */
    bool cancelling;
    /* An attach that is ready but waits for the other operations to end before the
     * terminal is handed over: while the attach command runs the loop does not, and their
     * transfers would stall. */
    bool handoff_waits;
    char step[64];
    int64_t done, total;
    bool setup_step;         /* up: step is one of the project's setup (e2b_live_op_info) */
    /* remake: 0 while the gone box's record goes (e2b_box_forget_gone), 1 while the up from
     * its plan runs; says: what it remakes from and what is lost; kept: the old record, for
     * what the up's new record does not hold (the group, the model, the task's time) */
    int phase;
    char says[600];
    e2b_box_record kept;
    e2b_box_op *forgot; /* remake: the ended first step, whose record a failed up writes back */
};

static const char *verb(e2b_live_op_kind k)
{
    switch (k) {
    case E2B_LIVE_OP_UP: return "up";
    case E2B_LIVE_OP_ATTACH: return "attach";
    case E2B_LIVE_OP_PULL: return "pull";
    case E2B_LIVE_OP_SNAPSHOT: return "snapshot";
    case E2B_LIVE_OP_FORK: return "fork";
    case E2B_LIVE_OP_STOP: return "stop";
    case E2B_LIVE_OP_UNPULLED: return "unpulled";
    case E2B_LIVE_OP_GET: return "get";
    case E2B_LIVE_OP_PORTS: return "ports";
    case E2B_LIVE_OP_TEST: return "test";
    case E2B_LIVE_OP_REMAKE: return "remake";
    default: return "kill";
    }
}

/* Frees t itself (not its step machine). */
static void destroy(struct live_op *t)
{
    if (!t)
        return;
    free(t->allow_out);
    free(t->deny_out);
    e2b_box_record_clear(&t->rules);
    e2b_box_record_clear(&t->kept);
    e2b_box_op_free(t->forgot);
    free(t);
}

static void free_op(void *ud)
{
    struct live_op *t = ud;
    e2b_box_op_free(t->op);
    destroy(t);
}

/* Takes t out of the list (it is no longer shown or cancellable). */
static void unlist(e2b_live *m, struct live_op *t)
{
    for (size_t i = 0; i < m->nops; i++) {
        if (m->ops[i] == t) {
            memmove(&m->ops[i], &m->ops[i + 1], (m->nops - i - 1) * sizeof *m->ops);
            m->nops--;
            return;
        }
    }
}

static const char *shown_name(const struct live_op *t)
{
    return t->name[0] ? t->name : "(current branch)";
}

static void report(struct live_op *t, const e2b_error *err)
{
    e2b_live *m = t->m;
    const e2b_box_result *r = t->op ? e2b_box_op_result(t->op) : NULL;
    if (err) {
        if (err->kind == E2B_ERR_CANCELLED)
            live_notice(m, E2B_LIVE_INFO, "%s %s: cancelled", verb(t->kind), t->name);
        else
            live_notice(m, E2B_LIVE_ERROR, "%s", e2b_error_message(err));
        return;
    }
    switch (t->kind) {
    case E2B_LIVE_OP_ATTACH:
        if (m->attach_fn)
            m->attach_fn(m->attach_ud, t->name, r);
        else
            live_notice(m, E2B_LIVE_INFO, "box %s is ready to attach", t->name);
        if (r && r->resumed) /* said once the terminal is back (the attach's own words stay) */
            live_notice(m, E2B_LIVE_INFO, "box %s was paused: attach resumed it first", t->name);
        break;
    case E2B_LIVE_OP_PULL:
        if (r && r->nothing_pulled)
            live_notice(m, E2B_LIVE_INFO, "no new work in %s; nothing to pull", t->name);
        else if (r && r->no_new_work)
            live_notice(m, E2B_LIVE_INFO, "no new work in %s: %s is up to date", t->name,
                        r->branch ? r->branch : "?");
        else
            live_notice(m, E2B_LIVE_INFO, "pulled %s into branch %s (%s) in %s",
                        r && r->name ? r->name : t->name,
                        r && r->branch ? r->branch : "?", r && r->outcome ? r->outcome : "done",
                        r && r->dir ? r->dir : "?");
        if (r && r->note) /* e.g. the box it resumed could not be paused again */
            live_notice(m, E2B_LIVE_ERROR, "pull %s: %s", t->name, r->note);
        break;
    case E2B_LIVE_OP_REMAKE:
        live_notice(m, E2B_LIVE_INFO, "box %s is remade: sandbox %s (a attaches)%s%s", t->name,
                    r && r->sandbox_id ? r->sandbox_id : "?", r && r->note ? "; " : "",
                    r && r->note ? r->note : "");
        break;
    case E2B_LIVE_OP_UP:
        if (r && r->prepared_as) { /* --prepare: no box */
            live_notice(m, E2B_LIVE_INFO, "prepared snapshot %s is made: every --up of %s starts "
                        "from it", r->prepared_as, r->dir ? r->dir : "the project");
            break;
        }
        live_notice(m, E2B_LIVE_INFO, "box %s is up (a attaches)%s%s",
                    r && r->name ? r->name : t->name, r && r->note ? "; " : "",
                    r && r->note ? r->note : "");
        break;
    case E2B_LIVE_OP_SNAPSHOT:
        live_notice(m, E2B_LIVE_INFO, "snapshot %s of box %s: %s (--up --from %s starts from it)",
                    r && r->name ? r->name : "?", t->name, r && r->snapshot_id ? r->snapshot_id : "?",
                    r && r->name ? r->name : "?");
        break;
    case E2B_LIVE_OP_GET:
        live_notice(m, E2B_LIVE_INFO, "fetched %llu entries (%llu bytes) from box %s into %s%s",
                    r ? (unsigned long long)r->files : 0ULL,
                    r ? (unsigned long long)r->bytes_in : 0ULL, t->name,
                    r && r->dir ? r->dir : "?", r && r->resumed ? " (it was paused: resumed)" : "");
        break;
    case E2B_LIVE_OP_PORTS: {
        const e2b_box_ports *p = t->op ? e2b_box_ports_of(t->op) : NULL;
        live_notice(m, E2B_LIVE_INFO, "box %s: %zu port%s listening%s", t->name,
                    p ? p->count : 0, p && p->count == 1 ? "" : "s",
                    r && r->resumed ? " (it was paused: resumed)" : "");
        break;
    }
    case E2B_LIVE_OP_FORK:
        live_notice(m, r && r->fork_failures ? E2B_LIVE_ERROR : E2B_LIVE_INFO,
                    "forked box %s into %zu box%s%s%s", t->name, r ? r->nforks : 0,
                    r && r->nforks == 1 ? "" : "es", r && r->fork_failures ? "; " : "",
                    r && r->fork_failures ? r->fork_failures : "");
        break;
    case E2B_LIVE_OP_STOP:
        live_notice(m, E2B_LIVE_INFO, "%s", r && r->note ? r->note : "box paused");
        break;
    case E2B_LIVE_OP_TEST:
        live_groups_evidence_set(m, t->name, r);
        live_notify(m, E2B_LIVE_OPS); /* end_op told the op's end before the result was kept */
        live_notice(m, E2B_LIVE_INFO, "%s: tests %s", t->name,
                    !r ? "not run" : e2b_live_test_result_name(r->evidence.test));
        break;
    case E2B_LIVE_OP_UNPULLED: {
        char text[600];
        if (r)
            e2b_box_unpulled_text(t->name, &r->unpulled, text, sizeof text);
        live_notice(m, E2B_LIVE_INFO, "%s", r ? text : "unpulled work unknown");
        break;
    }
    default:
        live_notice(m, E2B_LIVE_INFO, "box %s killed%s%s", t->name, r && r->note ? ": " : "",
                    r && r->note ? r->note : "");
        break;
    }
}

/* Is an operation other than ready attaches still running? */
static bool others_running(const e2b_live *m)
{
    for (size_t i = 0; i < m->nops; i++) {
        if (!m->ops[i]->handoff_waits)
            return true;
    }
    return false;
}

/* The operation ended (err borrowed): out of the list, told, freed from the loop. */
static void end_op(struct live_op *t, const e2b_error *err)
{
    e2b_live *m = t->m;
    unlist(m, t);
    if (!m->closing) {
        live_notify(m, E2B_LIVE_OPS);
        report(t, err);
        if (t->end) { /* the waiter takes the ended step machine with its result */
            t->end->op = t->op;
            t->op = NULL;
            live_end(t->end, err, 0);
            t->end = NULL;
        }
        m->agents_resync = true; /* a record may have come or gone */
        live_records_sync(m);
        if (!m->is_headless)
            e2b_live_refresh_now(m);
    }
    /* Not inside the op's own callback: free it from the loop. */
    if (e2b_loop_post(m->loop, free_op, t) != 0)
        e2b_logf("box operation: leaked after out of memory");
}

/* Hands the terminal to a ready attach once nothing else runs. */
static void handoff_ready(e2b_live *m)
{
    if (m->closing || others_running(m))
        return;
    for (size_t i = 0; i < m->nops; i++) {
        if (m->ops[i]->handoff_waits) {
            end_op(m->ops[i], NULL); /* one at a time: the next waits for this one */
            return;
        }
    }
}

static bool begin(struct live_op *t);

static void free_box_op(void *ud)
{
    e2b_box_op_free(ud);
}

/* An up that made the project's prepared snapshot first: the same operation goes on as an
 * up from it (its waiter sees one up). Whether it did. */
static bool up_from_prepared(struct live_op *t, e2b_box_op *op)
{
    e2b_live *m = t->m;
    const e2b_box_result *r = e2b_box_op_result(op);
    bool up = t->kind == E2B_LIVE_OP_UP || (t->kind == E2B_LIVE_OP_REMAKE && t->phase == 1);
    if (!up || t->prepare != E2B_BOX_PREPARE_AUTO || t->from_snapshot[0] || !r || !r->prepared_as)
        return false;
    snprintf(t->from_snapshot, sizeof t->from_snapshot, "%s", r->prepared_as);
    live_notice(m, E2B_LIVE_INFO, "up %s: the project is set up (prepared snapshot %s): every --up "
                "of it starts from there", shown_name(t), r->prepared_as);
    t->op = NULL;
    if (e2b_loop_post(m->loop, free_box_op, op) != 0)
        e2b_logf("box operation: leaked after out of memory");
    if (begin(t))
        return true;
    handoff_ready(m);
    return true;
}

/* A remake whose up failed: the gone box's record comes back (exclusive: never over a new
 * one), so nothing of its settings is lost and --remake can be tried again. */
static void remake_restore(struct live_op *t)
{
    const e2b_box_record *rec = e2b_box_op_record(t->forgot);
    if (t->kind != E2B_LIVE_OP_REMAKE || t->phase != 1 || !rec)
        return;
    e2b_error *e = e2b_box_record_write(t->m->cfg.records_dir, rec, 1);
    if (t->m->closing) /* quit during the remake: the record is back, nobody to tell */
        ;
    else if (e)
        live_notice(t->m, E2B_LIVE_ERROR, "remake %s: its old record could not be written back: %s",
                    t->name, e2b_error_message(e));
    else
        live_notice(t->m, E2B_LIVE_INFO, "remake %s failed: its record is kept (e2b-tui --remake "
                    "%s tries again)", t->name, t->name);
    e2b_error_free(e);
}

/* A remake whose gone box's record went: the same operation goes on as an up of that name
 * with the old record's settings, from its newest snapshot or its project (the plan, said
 * once as a notice and in e2b_live_op_info's says). Whether it did. */
static bool remake_up(struct live_op *t, e2b_box_op *op)
{
    e2b_live *m = t->m;
    const e2b_box_record *rec = e2b_box_op_record(op);
    if (t->kind != E2B_LIVE_OP_REMAKE || t->phase != 0 || !rec)
        return false;
    e2b_box_remake_plan plan;
    e2b_box_remake_plan_of(m->cfg.state_dir, rec, time(NULL), &plan);
    t->phase = 1;
    snprintf(t->says, sizeof t->says, "%s", plan.says);
    live_notice(m, E2B_LIVE_INFO, "%s", plan.says);
    snprintf(t->from_snapshot, sizeof t->from_snapshot, "%s", plan.snapshot);
    snprintf(t->template_id, sizeof t->template_id, "%s", plan.snapshot[0] ? "" : plan.base_template);
    snprintf(t->dir, sizeof t->dir, "%s", rec->dir ? rec->dir : "");
    t->sandbox_id[0] = 0;
    t->hours = rec->hours;
    t->budget_usd = rec->budget_usd;
    t->prepare = plan.snapshot[0] ? E2B_BOX_PREPARE_NONE : E2B_BOX_PREPARE_AUTO;
    free(t->allow_out);
    free(t->deny_out);
    t->allow_out = plan.allow_out[0] ? strdup(plan.allow_out) : NULL;
    t->deny_out = plan.deny_out[0] ? strdup(plan.deny_out) : NULL;
    t->no_internet = plan.internet == 0;
    e2b_box_record_clear(&t->rules);
    for (size_t i = 0; i < rec->napprove; i++)
        e2b_box_record_approve_add(&t->rules, rec->approve[i]);
    t->rules.yes_all = rec->yes_all;
    snprintf(t->kept.group, sizeof t->kept.group, "%s", rec->group);
    snprintf(t->kept.model, sizeof t->kept.model, "%s", rec->model);
    t->kept.task_at = rec->task_at;
    t->op = NULL;
    t->forgot = op; /* its record goes back if the up fails: a remake can be tried again */
    if (!begin(t)) /* it wrote the record back */
        handoff_ready(m);
    return true;
}

/* A remade box's new record gets what the up does not write: its group and its task's
 * model and time. */
static void remake_keep(struct live_op *t)
{
    e2b_live *m = t->m;
    if (!t->kept.group[0] && !t->kept.model[0] && !t->kept.task_at)
        return;
    e2b_box_record r = {0};
    e2b_error *e = e2b_box_record_read(m->cfg.records_dir, t->name, &r);
    if (!e) {
        snprintf(r.group, sizeof r.group, "%s", t->kept.group);
        snprintf(r.model, sizeof r.model, "%s", t->kept.model);
        r.task_at = t->kept.task_at;
        e = e2b_box_record_write(m->cfg.records_dir, &r, 0);
    }
    if (e)
        live_notice(m, E2B_LIVE_ERROR, "remake %s: its group and model were not kept: %s", t->name,
                    e2b_error_message(e));
    e2b_error_free(e);
    e2b_box_record_clear(&r);
}

static void on_done(void *ud, e2b_box_op *op, const e2b_error *err)
{
    struct live_op *t = ud;
    e2b_live *m = t->m;
    if (!err && !m->closing && up_from_prepared(t, op))
        return;
    if (!err && !m->closing && remake_up(t, op))
        return;
    if (!err && t->kind == E2B_LIVE_OP_REMAKE && t->phase == 1)
        remake_keep(t);
    else if (err)
        remake_restore(t);
    else if (m->closing && t->kind == E2B_LIVE_OP_REMAKE && t->phase == 0 && e2b_box_op_record(op))
        e2b_error_free(e2b_box_record_write(m->cfg.records_dir, e2b_box_op_record(op), 1)); /* quit */
    if (!err && !m->closing && t->kind == E2B_LIVE_OP_ATTACH && m->attach_fn) {
        t->handoff_waits = true;
        if (others_running(m)) {
            snprintf(t->step, sizeof t->step, "ready: waits for the other operations");
            t->done = t->total = 0;
            live_notify(m, E2B_LIVE_OPS);
            return;
        }
    }
    end_op(t, err);
    handoff_ready(m);
}

static void on_progress(void *ud, const char *step, int64_t done, int64_t total)
{
    struct live_op *t = ud;
    snprintf(t->step, sizeof t->step, "%s", step ? step : "");
    t->done = done;
    t->total = total;
    /* An up learns its name and sandbox on the way. */
    const e2b_box_result *r = t->op ? e2b_box_op_result(t->op) : NULL;
    t->setup_step = r && (r->preparing || (r->prepared_at && step &&
                                           strncmp(step, "from the prepared snapshot", 26) == 0));
    if (r && r->sandbox_id && !t->sandbox_id[0])
        snprintf(t->sandbox_id, sizeof t->sandbox_id, "%s", r->sandbox_id);
    live_notify(t->m, E2B_LIVE_OPS);
}

/* Starts the step machine (the store is open, or it could not be and kill goes without). */
static bool begin(struct live_op *t)
{
    e2b_live *m = t->m;
    if (t->kind == E2B_LIVE_OP_UP)
        e2b_live_orphans(m); /* a failed create is looked at again (with the store open now) */
    e2b_box_env env = {.loop = m->loop, .client = m->client, .cfg = &m->cfg, .ks = m->ks,
                       .orphans = m->orphans,
                       .sandbox_id = t->sandbox_id[0] ? t->sandbox_id : NULL};
    e2b_error *err = NULL;
    e2b_live_op_kind kind = t->kind;
    if (kind == E2B_LIVE_OP_REMAKE && t->phase == 1)
        kind = E2B_LIVE_OP_UP;
    switch (kind) {
    case E2B_LIVE_OP_REMAKE:
        t->op = e2b_box_forget_gone(&env, t->name, on_progress, on_done, t, &err);
        break;
    case E2B_LIVE_OP_ATTACH:
        t->op = e2b_box_attach(&env, t->name, t->health_timeout_ms, on_progress, on_done, t, &err);
        break;
    case E2B_LIVE_OP_PULL: {
        e2b_box_pull_params p = {.name = t->name[0] ? t->name : NULL, /* "": the branch's */
                                 .dir = t->dir[0] ? t->dir : NULL,
                                 .force = t->force};
        t->op = e2b_box_pull(&env, &p, on_progress, on_done, t, &err);
        break;
    }
    case E2B_LIVE_OP_UP: {
        /* A template that names one of this machine's snapshots: up from it (delta). */
        bool snap = t->from_snapshot[0] ||
                    (t->template_id[0] && e2b_snap_record_exists(m->cfg.state_dir, t->template_id));
        e2b_box_up_params p = {.dir = t->dir[0] ? t->dir : NULL,
                               .name = t->name[0] ? t->name : NULL,
                               .template_id = t->template_id[0] && !snap ? t->template_id : NULL,
                               .from_snapshot = !snap ? NULL
                                                : t->from_snapshot[0] ? t->from_snapshot
                                                                      : t->template_id,
                               .hours = t->hours,
                               .keep_failed = t->keep_failed,
                               .public_traffic = t->public_traffic,
                               .allow_out = t->allow_out, .deny_out = t->deny_out,
                               .no_internet = t->no_internet,
                               .budget_usd = t->budget_usd,
                               .prepare = t->prepare,
                               .approve = (const char *const *)t->rules.approve,
                               .napprove = t->rules.napprove,
                               .yes_all = t->rules.yes_all,
                               .health_timeout_ms = t->health_timeout_ms};
        t->op = e2b_box_up(&env, &p, on_progress, on_done, t, &err);
        break;
    }
    case E2B_LIVE_OP_SNAPSHOT:
        t->op = e2b_box_snapshot(&env, t->name, t->as[0] ? t->as : NULL, on_progress, on_done, t,
                                 &err);
        break;
    case E2B_LIVE_OP_FORK: {
        e2b_box_fork_params p = {.name = t->name, .count = t->count > 0 ? t->count : 1,
                                 .group = t->group[0] ? t->group : NULL};
        t->op = e2b_box_fork(&env, &p, on_progress, on_done, t, &err);
        break;
    }
    case E2B_LIVE_OP_STOP:
        t->op = e2b_box_stop(&env, t->name, on_progress, on_done, t, &err);
        break;
    case E2B_LIVE_OP_UNPULLED:
        t->op = e2b_box_unpulled(&env, t->name, 0, on_progress, on_done, t, &err);
        break;
    case E2B_LIVE_OP_GET: {
        const char *paths[E2B_BOX_GET_PATHS_MAX];
        size_t n = 0;
        for (const char *s = t->paths; n < t->npaths; s += strlen(s) + 1)
            paths[n++] = s;
        e2b_box_get_params p = {.name = t->name, .paths = paths, .npaths = n,
                                .dest = t->dir[0] ? t->dir : NULL, .force = t->force};
        t->op = e2b_box_get(&env, &p, on_progress, on_done, t, &err);
        break;
    }
    case E2B_LIVE_OP_PORTS:
        t->op = e2b_box_ports_read(&env, t->name, on_progress, on_done, t, &err);
        break;
    case E2B_LIVE_OP_TEST:
        t->op = e2b_box_test_run(&env, t->name, m->cfg.test_command, m->cfg.test_timeout_s,
                                 on_progress, on_done, t, &err);
        break;
    default: t->op = e2b_box_kill(&env, t->name, on_progress, on_done, t, &err); break;
    }
    if (!t->op) {
        unlist(m, t);
        live_notice(m, E2B_LIVE_ERROR, "%s", err ? e2b_error_message(err) : "out of memory");
        remake_restore(t);
        if (err)
            live_end(t->end, err, 0);
        else
            live_end_fail(t->end, E2B_ERR_INTERNAL, "out of memory");
        e2b_error_free(err);
        live_notify(m, E2B_LIVE_OPS);
        destroy(t);
        handoff_ready(m);
        return false;
    }
    snprintf(t->step, sizeof t->step, "starting");
    live_notify(m, E2B_LIVE_OPS);
    return true;
}

/* The password store opened (posted to the loop by the job's wake): every operation that
 * waits for it starts. */
static void on_store_open(void *ud)
{
    e2b_live *m = ud;
    ks_job *job = m->ks_job;
    if (!job || !keystore_job_done(job))
        return;
    char *warning = NULL;
    ks_error kerr = {0};
    keystore *ks = keystore_job_take_store(job, &warning);
    if (!ks)
        keystore_job_result(job, &kerr, NULL, NULL, NULL);
    keystore_job_free(job);
    m->ks_job = NULL;
    if (m->closing) {
        if (ks)
            keystore_close(ks);
        free(warning);
        return;
    }
    m->ks = ks;
    if (warning) {
        live_notice(m, E2B_LIVE_INFO, "%s", warning);
        free(warning);
    }
    /* By index from the end: begin may take an op out of the list. */
    for (size_t i = m->nops; i-- > 0;) {
        if (i >= m->nops)
            continue;
        struct live_op *t = m->ops[i];
        if (t->op)
            continue;
        if (!ks && t->kind != E2B_LIVE_OP_KILL) {
            unlist(m, t);
            live_notice(m, E2B_LIVE_ERROR, "%s %s: password store: %s", verb(t->kind), t->name,
                        kerr.message[0] ? kerr.message : "cannot be opened");
            live_end_fail(t->end, E2B_ERR_IO, m->notice);
            destroy(t);
            continue;
        }
        begin(t);
    }
    live_notify(m, E2B_LIVE_OPS);
    handoff_ready(m);
}

/* On the keystore's thread: a post that cannot fail, or the operations would wait forever. */
static void wake_store(void *ctx)
{
    e2b_live *m = ctx;
    e2b_loop_post_slot(m->loop, &m->store_slot, on_store_open, m);
}

bool live_op_busy(const e2b_live *m, const char *sandbox_id, const char *name, char *why,
                  size_t whysz)
{
    for (size_t i = 0; i < m->nops; i++) {
        const struct live_op *t = m->ops[i];
        bool same = (sandbox_id && *sandbox_id && strcmp(t->sandbox_id, sandbox_id) == 0) ||
                    (name && *name && strcmp(t->name, name) == 0);
        if (same) {
            snprintf(why, whysz, "%s %s is still running on this box (ctrl-x cancels it)",
                     verb(t->kind), shown_name(t));
            return true;
        }
    }
    return false;
}

/* Refuses an operation before it starts: a notice, and its waiter's end of that kind. */
__attribute__((format(printf, 4, 5))) static unsigned refuse(e2b_live *m, e2b_live_end *end,
                                                              e2b_error_kind kind,
                                                              const char *fmt, ...)
{
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    live_notice(m, E2B_LIVE_ERROR, "%s", text);
    live_end_fail(end, kind, text);
    return 0;
}

/* The one start of every box operation, by the dashboard's row or a one-shot mode's name. */
static unsigned start(e2b_live *m, const e2b_live_op_params *p)
{
    e2b_live_end *end = live_then_take(m);
    const char *name = p->name ? p->name : "", *sandbox_id = p->sandbox_id;
    if (!m->client)
        return refuse(m, end, E2B_ERR_AUTH, "%s: no API key (set E2B_API_KEY)", verb(p->kind));
    if (p->kind == E2B_LIVE_OP_GET) { /* the paths are copied whole, or refused */
        size_t len = 0;
        for (size_t i = 0; i < p->npaths && p->paths; i++)
            len += strlen(p->paths[i]) + 1;
        if (!p->paths || p->npaths == 0 || p->npaths > E2B_BOX_GET_PATHS_MAX ||
            len > sizeof ((struct live_op *)0)->paths)
            return refuse(m, end, E2B_ERR_INVALID,
                          "get: 1 to %d paths at once, %zu bytes in all at most",
                          E2B_BOX_GET_PATHS_MAX, sizeof ((struct live_op *)0)->paths);
    }
    char why[300];
    if (live_op_busy(m, sandbox_id, name, why, sizeof why))
        return refuse(m, end, E2B_ERR_CONFLICT, "%s %s: %s", verb(p->kind), name, why);
    struct live_op *t = calloc(1, sizeof *t);
    struct live_op **ops = realloc(m->ops, (m->nops + 1) * sizeof *ops);
    if (ops)
        m->ops = ops;
    if (t && p->allow_out && !(t->allow_out = strdup(p->allow_out)))
        ops = NULL;
    if (t && p->deny_out && !(t->deny_out = strdup(p->deny_out)))
        ops = NULL;
    for (size_t i = 0; t && i < p->napprove; i++)
        if (e2b_box_record_approve_add(&t->rules, p->approve[i]) < 0)
            ops = NULL;
    if (t)
        t->rules.yes_all = p->yes_all;
    if (!t || !ops) {
        destroy(t);
        return refuse(m, end, E2B_ERR_INTERNAL, "%s: out of memory", verb(p->kind));
    }
    t->m = m;
    t->id = m->next_op_id++;
    t->kind = p->kind;
    t->end = end;
    t->hours = p->hours;
    t->budget_usd = p->budget_usd;
    t->count = p->count;
    t->keep_failed = p->keep_failed;
    t->public_traffic = p->public_traffic;
    t->force = p->force;
    t->health_timeout_ms = p->health_timeout_ms;
    t->no_internet = p->no_internet;
    t->prepare = p->prepare;
    snprintf(t->name, sizeof t->name, "%s", name);
    snprintf(t->sandbox_id, sizeof t->sandbox_id, "%s", sandbox_id ? sandbox_id : "");
    snprintf(t->template_id, sizeof t->template_id, "%s", p->template_id ? p->template_id : "");
    snprintf(t->from_snapshot, sizeof t->from_snapshot, "%s",
             p->from_snapshot ? p->from_snapshot : "");
    snprintf(t->as, sizeof t->as, "%s", p->as ? p->as : "");
    snprintf(t->group, sizeof t->group, "%s", p->group ? p->group : "");
    snprintf(t->dir, sizeof t->dir, "%s", p->dir ? p->dir : "");
    for (size_t i = 0, at = 0; p->kind == E2B_LIVE_OP_GET && i < p->npaths; i++) {
        size_t n = strlen(p->paths[i]) + 1;
        memcpy(t->paths + at, p->paths[i], n);
        at += n;
        t->npaths++;
    }
    m->ops[m->nops++] = t;
    unsigned id = t->id;
    /* A stop, the look for unpulled work, a get, the ports and a test run need no password:
     * they do not wait for it. */
    if (m->ks || t->kind == E2B_LIVE_OP_STOP || t->kind == E2B_LIVE_OP_UNPULLED ||
        t->kind == E2B_LIVE_OP_GET || t->kind == E2B_LIVE_OP_PORTS || t->kind == E2B_LIVE_OP_TEST ||
        (t->kind == E2B_LIVE_OP_UP && t->prepare == E2B_BOX_PREPARE_ONLY))
        return begin(t) ? id : 0;
    snprintf(t->step, sizeof t->step, "opening the password store");
    if (!m->ks_job) {
        /* --keystore, then E2B_TUI_KEYSTORE, then the file, as in every mode */
        ks_select sel = e2b_keystore_choice(m->keystore_flag, &m->cfg);
        ks_error kerr = {0};
        m->ks_job = keystore_job_open(&sel, 10000, wake_store, m, &kerr);
        if (!m->ks_job && t->kind == E2B_LIVE_OP_KILL)
            return begin(t) ? id : 0; /* without the store: it says what it left */
        if (!m->ks_job) {
            unlist(m, t);
            destroy(t);
            live_notify(m, E2B_LIVE_OPS);
            return refuse(m, end, E2B_ERR_IO, "password store: %s", kerr.message);
        }
    }
    live_notify(m, E2B_LIVE_OPS);
    return id;
}

unsigned e2b_live_op_by_name(e2b_live *m, const e2b_live_op_params *p)
{
    return start(m, p);
}

unsigned e2b_live_up_in(e2b_live *m, const e2b_live_up_params *p)
{
    e2b_live_op_params op = {.kind = E2B_LIVE_OP_UP, .name = p->name,
                             .template_id = p->template_id, .dir = p->dir, .hours = p->hours};
    return start(m, &op);
}

/* The operation p on the box shown as p->sandbox_id (its name from the model's row), else a
 * notice that it is only for boxes. */
static unsigned on_row(e2b_live *m, e2b_live_op_params *p)
{
    if (!e2b_live_is_box(m, p->sandbox_id))
        return refuse(m, live_then_take(m), E2B_ERR_INVALID, "%s: only for boxes (made by e2b-tui)",
                      verb(p->kind));
    p->name = e2b_live_sandbox(m, p->sandbox_id)->box_name;
    return start(m, p);
}

unsigned e2b_live_box_op(e2b_live *m, e2b_live_op_kind kind, const char *sandbox_id)
{
    return on_row(m, &(e2b_live_op_params){.kind = kind, .sandbox_id = sandbox_id});
}

unsigned e2b_live_snapshot(e2b_live *m, const char *sandbox_id, const char *as)
{
    return on_row(m, &(e2b_live_op_params){.kind = E2B_LIVE_OP_SNAPSHOT,
                                           .sandbox_id = sandbox_id, .as = as});
}

unsigned e2b_live_fork(e2b_live *m, const char *sandbox_id, int count)
{
    return on_row(m, &(e2b_live_op_params){.kind = E2B_LIVE_OP_FORK, .sandbox_id = sandbox_id,
                                           .count = count});
}

unsigned e2b_live_get(e2b_live *m, const char *sandbox_id, const char *paths, const char *dest,
                      bool force)
{
    char buf[4096];
    const char *list[E2B_BOX_GET_PATHS_MAX];
    size_t n = 0;
    snprintf(buf, sizeof buf, "%s", paths ? paths : "");
    char *save = NULL;
    for (char *s = strtok_r(buf, " \t", &save); s; s = strtok_r(NULL, " \t", &save)) {
        if (n == E2B_BOX_GET_PATHS_MAX)
            return refuse(m, live_then_take(m), E2B_ERR_INVALID, "get: at most %d paths at once",
                          E2B_BOX_GET_PATHS_MAX);
        list[n++] = s;
    }
    return on_row(m, &(e2b_live_op_params){.kind = E2B_LIVE_OP_GET, .sandbox_id = sandbox_id,
                                           .paths = list, .npaths = n, .dir = dest,
                                           .force = force});
}

size_t e2b_live_op_count(const e2b_live *m)
{
    return m->nops + live_tries_count(m);
}

bool e2b_live_op_get(const e2b_live *m, size_t i, e2b_live_op_info *out)
{
    if (i >= m->nops && i - m->nops < live_tries_count(m)) {
        live_try_info(m, i - m->nops, out); /* the groups being made, after the ops */
        return true;
    }
    if (i >= m->nops)
        return false;
    const struct live_op *t = m->ops[i];
    *out = (e2b_live_op_info){.id = t->id,
                              .kind = t->kind,
                              .verb = verb(t->kind),
                              .name = t->name,
                              .sandbox_id = t->sandbox_id,
                              .step = t->step,
                              .done = t->done,
                              .total = t->total,
                              .cancelling = t->cancelling,
                              .setup_step = t->setup_step,
                              .says = t->says};
    return true;
}

int e2b_live_op_cancel(e2b_live *m, unsigned id)
{
    if (!id && live_tries_count(m)) { /* the newest is the last try (its up or fork too) */
        e2b_live_op_info newest;
        live_try_info(m, live_tries_count(m) - 1, &newest);
        id = newest.id;
    }
    if (id && live_try_cancel(m, id) == 0)
        return 0;
    struct live_op *t = NULL;
    for (size_t i = 0; i < m->nops; i++) {
        if (id == 0 || m->ops[i]->id == id)
            t = m->ops[i];
        if (t && id != 0)
            break;
    }
    if (!t)
        return -1;
    if (t->handoff_waits) {
        /* Ready, not handed over yet: nothing to undo. */
        unlist(m, t);
        live_notify(m, E2B_LIVE_OPS);
        live_notice(m, E2B_LIVE_INFO, "%s %s: cancelled", verb(t->kind), t->name);
        if (e2b_loop_post(m->loop, free_op, t) != 0)
            e2b_logf("box operation: leaked after out of memory");
        handoff_ready(m);
        return 0;
    }
    if (!t->op) {
        /* Still waiting for the password store: nothing was done yet. */
        unlist(m, t);
        live_notify(m, E2B_LIVE_OPS);
        live_notice(m, E2B_LIVE_INFO, "%s %s: cancelled", verb(t->kind), t->name);
        live_end_fail(t->end, E2B_ERR_CANCELLED, m->notice);
        destroy(t);
        handoff_ready(m);
        return 0;
    }
    t->cancelling = true;
    snprintf(t->step, sizeof t->step, "cancelling");
    live_notify(m, E2B_LIVE_OPS);
    e2b_box_op_cancel(t->op);
    return 0;
}

void live_ops_shutdown(e2b_live *m)
{
    for (size_t i = m->nops; i-- > 0;) {
        struct live_op *t = m->ops[i];
        if (t->handoff_waits) {
            unlist(m, t); /* done already: only its memory is left */
            free_op(t);
        } else if (t->op) {
            e2b_box_op_cancel(t->op);
        } else {
            unlist(m, t);
            destroy(t);
        }
    }
    /* A cancelled up kills the sandbox it made: give them a few seconds, then leave. */
    int64_t end = e2b_now_ms() + SHUTDOWN_MS;
    while (m->nops && e2b_now_ms() < end)
        e2b_loop_run_once(m->loop, 100);
    for (int i = 0; i < 3; i++)
        e2b_loop_run_once(m->loop, 0); /* the posted frees */
}

void live_ops_free(e2b_live *m)
{
    /* Operations that did not finish in time are left to the process exit. */
    free(m->ops);
    m->ops = NULL;
    m->nops = 0;
    if (m->ks_job) {
        keystore_job_free(m->ks_job);
        m->ks_job = NULL;
    }
    if (m->ks) {
        keystore_close(m->ks);
        m->ks = NULL;
    }
    keystore_jobs_drain(2000);
}
