/* fork: the parent box (its record) -> POST /sandboxes/{id}/fork -> for each fork in turn:
 * a free name (NAME-2, NAME-3, ...), a new password, the parent's server stopped in the
 * copy (E2B copies memory too: it would still take the parent's password), the password
 * stored, the server started with the new one, health, the record. A fork that fails on the
 * way is killed and its password removed; the others go on. */
#include "core/box/box_internal.h"
#include "core/e2b/api_templates.h"
#include "core/util/buf.h"
#include "core/util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct box_fork_state {
    e2b_box_fork_params p;
    e2b_box_record parent;      /* copy of the parent's record */
    e2b_fork_list *forks;   /* from the API */
    size_t next;            /* the next entry of forks to adopt */
    int next_suffix;        /* NAME-<n> tried next */
    uint32_t *pids;         /* server processes to stop in the current fork */
    size_t npids, pid_next;
    e2b_buf failures;       /* one line per fork that did not start */
    char group[64];         /* a group's forks: named <group>-N, recorded in it ("" none) */
};

static void fork_state_free(struct box_fork_state *f)
{
    e2b_box_record_clear(&f->parent);
    e2b_fork_list_free(f->forks);
    free(f->pids);
    e2b_buf_clear(&f->failures);
    free(f);
}

static void fork_next(e2b_box_op *op);

static void fork_fail(e2b_box_op *op, const e2b_error *err, const char *step)
{
    e2b_error *e = err ? e2b_error_copy(err) : e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    if (e->action) {
        char *old = strdup(e->action);
        e2b_error_set_action(e, "fork of box %s: %s: %s", op->res.name ? op->res.name : "", step,
                             old ? old : "");
        free(old);
    } else {
        e2b_error_set_action(e, "fork of box %s: %s", op->res.name ? op->res.name : "", step);
    }
    box_op_finish(op, e);
}

/* ---- one fork's failure: kill it, remove its password, note it, go on ---- */

static void fork_note_failure(e2b_box_op *op, const char *what)
{
    struct box_fork_state *f = op->fork;
    if (f->failures.len)
        e2b_buf_adds(&f->failures, "\n");
    e2b_buf_adds(&f->failures, what);
}

static void fork_after_cleanup(e2b_box_op *op)
{
    ks_error kerr;
    if (op->job)
        box_op_job_result(op, &kerr);
    op->password_stored = 0;
    e2b_sandbox_clear(&op->sb);
    op->have_sandbox = 0;
    fork_next(op);
}

static void fork_killed(void *ud, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)status;
    op->api_call = NULL;
    op->pending--;
    if (err && err->kind != E2B_ERR_NOT_FOUND) {
        char *t = e2b_strfmt("  (its sandbox %s could not be killed: %s)", op->sb.sandbox_id,
                             e2b_error_message(err));
        fork_note_failure(op, t ? t : "");
        free(t);
    }
    if (op->password_stored && op->env.ks) {
        box_op_job_delete(op, fork_after_cleanup);
        return;
    }
    fork_after_cleanup(op);
}

/* The current fork failed at step: it is removed. */
static void fork_one_failed(e2b_box_op *op, const e2b_error *err, const char *step)
{
    char *line = e2b_strfmt("fork %s (sandbox %s): %s: %s", op->rec.name ? op->rec.name : "?",
                            op->sb.sandbox_id ? op->sb.sandbox_id : "?", step,
                            err ? e2b_error_message(err) : "cancelled");
    fork_note_failure(op, line ? line : "a fork failed");
    free(line);
    e2b_error *e = NULL;
    op->api_call = e2b_api_kill(op->env.client, op->sb.sandbox_id, fork_killed, op, &e);
    if (op->api_call) {
        op->pending++;
        return;
    }
    e2b_error_free(e);
    fork_note_failure(op, "  (its sandbox could not be killed)");
    fork_after_cleanup(op);
}

/* ---- one fork's steps ---- */

static void fork_healthy(e2b_box_op *op, const e2b_error *err)
{
    struct box_fork_state *f = op->fork;
    if (err || op->cancelled) {
        fork_one_failed(op, err, err && err->kind == E2B_ERR_TIMEOUT ? "health check" : "starting the server");
        return;
    }
    op->rec.created_at = time(NULL);
    e2b_error *werr = e2b_box_record_write(op->env.cfg->records_dir, &op->rec, 1);
    if (werr) {
        fork_one_failed(op, werr, "writing the record");
        e2b_error_free(werr);
        return;
    }
    char **v = realloc(op->res.forks, (op->res.nforks + 1) * sizeof *v);
    if (v) {
        op->res.forks = v;
        if ((v[op->res.nforks] = strdup(op->rec.name)))
            op->res.nforks++;
    }
    if (f->p.after_fork)
        f->p.after_fork(f->p.hook_ud, op->rec.name, op->sb.sandbox_id);
    op->password_stored = 0; /* it belongs to the new box now */
    e2b_sandbox_clear(&op->sb);
    op->have_sandbox = 0;
    fork_next(op);
}

static void fork_password_stored(e2b_box_op *op)
{
    ks_error kerr = {0};
    if (box_op_job_result(op, &kerr) != KS_OK) {
        e2b_error *e = e2b_keystore_error(&kerr);
        fork_one_failed(op, e, "storing the password");
        e2b_error_free(e);
        return;
    }
    op->password_stored = 1;
    if (op->cancelled) {
        fork_one_failed(op, NULL, "storing the password");
        return;
    }
    box_op_progress(op, "starting the fork's server", 0, 0);
    box_op_start_server(op, 0, fork_healthy);
}

static void fork_store_password(e2b_box_op *op)
{
    if (!op->env.ks) {
        e2b_error *e = e2b_error_new(E2B_ERR_INVALID, "no password store is open");
        fork_one_failed(op, e, "storing the password");
        e2b_error_free(e);
        return;
    }
    box_op_progress(op, "storing the fork's password", 0, 0);
    box_op_job_put(op, fork_password_stored);
}

static void fork_kill_next_pid(e2b_box_op *op);

static void fork_pid_signalled(void *ud, const json_t *reply, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)reply;
    op->http = NULL;
    op->pending--;
    if (op->cancelled) {
        fork_one_failed(op, NULL, "stopping the parent's server");
        return;
    }
    if (err && err->kind != E2B_ERR_NOT_FOUND) { /* a process gone meanwhile is fine */
        fork_one_failed(op, err, "stopping the parent's server");
        return;
    }
    fork_kill_next_pid(op);
}

static void fork_kill_next_pid(e2b_box_op *op)
{
    struct box_fork_state *f = op->fork;
    if (f->pid_next >= f->npids) {
        fork_store_password(op);
        return;
    }
    json_t *req = json_pack("{s:{s:I}, s:s}", "process", "pid", (json_int_t)f->pids[f->pid_next++], "signal",
                            "SIGNAL_SIGKILL");
    e2b_error *e = NULL;
    op->http = req ? e2b_envd_rpc(op->envd, "process.Process", "SendSignal", req, fork_pid_signalled, op, &e)
                   : NULL;
    json_decref(req);
    if (!op->http) {
        fork_one_failed(op, e, "stopping the parent's server");
        e2b_error_free(e);
        return;
    }
    op->pending++;
}

static void fork_listed(void *ud, const json_t *reply, const e2b_error *err)
{
    e2b_box_op *op = ud;
    struct box_fork_state *f = op->fork;
    op->http = NULL;
    op->pending--;
    if (err || op->cancelled) {
        fork_one_failed(op, err, "listing the fork's processes");
        return;
    }
    e2b_process_list list = {0};
    e2b_error *e = e2b_process_list_from_json(reply, &list);
    if (e) {
        fork_one_failed(op, e, "listing the fork's processes");
        e2b_error_free(e);
        return;
    }
    free(f->pids);
    f->pids = calloc(list.count ? list.count : 1, sizeof *f->pids);
    f->npids = f->pid_next = 0;
    for (size_t i = 0; f->pids && i < list.count; i++)
        if (list.items[i].tag && strcmp(list.items[i].tag, E2B_BOX_SERVER_TAG) == 0)
            f->pids[f->npids++] = list.items[i].pid;
    e2b_process_list_clear(&list);
    if (list.count && !f->pids) {
        e2b_error *oom = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        fork_one_failed(op, oom, "listing the fork's processes");
        e2b_error_free(oom);
        return;
    }
    fork_kill_next_pid(op);
}

/* The first NAME-<n> (n >= 2) with no record and not taken by this fork already. */
static char *fork_name(e2b_box_op *op)
{
    struct box_fork_state *f = op->fork;
    for (int tries = 0; tries < 1000; tries++, f->next_suffix++) {
        char *n = e2b_strfmt("%s-%d", f->group[0] ? f->group : f->parent.name, f->next_suffix);
        if (!n)
            return NULL;
        if (e2b_gitwork_box_name_valid(n) && !e2b_box_record_exists(op->env.cfg->records_dir, n)) {
            f->next_suffix++;
            return n;
        }
        free(n);
    }
    return NULL;
}

/* Takes the next fork of the list, or ends the op. */
static void fork_next(e2b_box_op *op)
{
    struct box_fork_state *f = op->fork;
    while (f->next < f->forks->count) {
        e2b_fork_result *r = &f->forks->items[f->next++];
        if (r->error || !r->sandbox) {
            char *line = e2b_strfmt("fork %zu of %zu did not start: %s", f->next, f->forks->count,
                                    r->error ? e2b_error_message(r->error) : "no sandbox in the reply");
            fork_note_failure(op, line ? line : "a fork did not start");
            free(line);
            continue;
        }
        /* The fork's sandbox moves into the op. */
        op->sb = *r->sandbox;
        free(r->sandbox);
        r->sandbox = NULL;
        op->have_sandbox = 1;
        e2b_box_record_clear(&op->rec);
        op->rec = (e2b_box_record){
            .name = fork_name(op), .sandbox_id = strdup(op->sb.sandbox_id),
            .template_id = strdup(f->parent.template_id), .branch = strdup(f->parent.branch),
            .base = strdup(f->parent.base), .dir = strdup(f->parent.dir), .port = f->parent.port,
            .opencode = f->parent.opencode};
        memcpy(op->rec.opencode_bin, f->parent.opencode_bin, sizeof op->rec.opencode_bin);
        memcpy(op->rec.opencode_version, f->parent.opencode_version,
               sizeof op->rec.opencode_version);
        memcpy(op->rec.group, f->group, sizeof op->rec.group);
        free(op->res.url);
        op->res.url = e2b_config_port_url(op->env.cfg, op->rec.port ? op->rec.port : E2B_BOX_PORT,
                                          op->sb.sandbox_id, op->sb.domain);
        e2b_error *e = NULL;
        if (!op->rec.name || !op->rec.sandbox_id || !op->rec.template_id || !op->rec.branch || !op->rec.base ||
            !op->rec.dir || !op->res.url)
            e = e2b_error_new(E2B_ERR_INTERNAL, op->rec.name ? "out of memory" : "no free name for the fork");
        else if (e2b_box_password(op->password) != 0)
            e = e2b_error_new(E2B_ERR_INTERNAL, "no randomness for the fork's password");
        if (!e) {
            e2b_envd_free(op->envd);
            op->envd = e2b_envd_new(op->env.loop, op->env.cfg, &op->sb, NULL, &e);
        }
        if (!e) {
            json_t *req = json_object();
            box_op_progress(op, "stopping the parent's server in the fork", 0, 0);
            op->http = e2b_envd_rpc(op->envd, "process.Process", "List", req, fork_listed, op, &e);
            json_decref(req);
            if (op->http) {
                op->pending++;
                return;
            }
        }
        fork_one_failed(op, e, "preparing the fork");
        e2b_error_free(e);
        return;
    }
    /* All done. */
    free(op->res.url);
    op->res.url = NULL;
    if (f->failures.len && !f->failures.failed)
        op->res.fork_failures = strdup(f->failures.data);
    if (!op->res.nforks) {
        e2b_error *e = e2b_error_new(E2B_ERR_REMOTE, "no fork started%s%s",
                                     op->res.fork_failures ? ":\n" : "",
                                     op->res.fork_failures ? op->res.fork_failures : "");
        fork_fail(op, e, "starting the forks");
        e2b_error_free(e);
        return;
    }
    box_op_finish(op, NULL);
}

static void fork_made(void *ud, e2b_fork_list *forks, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->api_call = NULL;
    op->pending--;
    op->fork->forks = forks;
    if (err && err->kind == E2B_ERR_NOT_FOUND) {
        e2b_error *e = e2b_error_new(E2B_ERR_NOT_FOUND,
                                     "its sandbox %s is gone (e2b-tui --kill %s removes the record)",
                                     op->fork->parent.sandbox_id, op->res.name);
        fork_fail(op, e, "forking");
        e2b_error_free(e);
        return;
    }
    if (err && err->kind == E2B_ERR_CONFLICT) {
        e2b_error *e = e2b_error_new(E2B_ERR_CONFLICT,
                                     "box %s is paused: resume it (e2b-tui --attach %s, or a in the "
                                     "dashboard), then fork it",
                                     op->res.name, op->res.name);
        fork_fail(op, e, "forking");
        e2b_error_free(e);
        return;
    }
    if (err) {
        fork_fail(op, err, "forking");
        return;
    }
    /* A cancel now still adopts nothing: every fork is killed by fork_one_failed. */
    fork_next(op);
}

static int copy_record(const e2b_box_record *in, e2b_box_record *out)
{
    *out = (e2b_box_record){.name = strdup(in->name), .sandbox_id = strdup(in->sandbox_id),
                        .template_id = box_strdup(in->template_id ? in->template_id : ""),
                        .branch = box_strdup(in->branch ? in->branch : ""),
                        .base = box_strdup(in->base ? in->base : ""),
                        .dir = box_strdup(in->dir ? in->dir : ""), .port = in->port,
                        .opencode = in->opencode, .created_at = in->created_at};
    memcpy(out->opencode_bin, in->opencode_bin, sizeof out->opencode_bin);
    memcpy(out->opencode_version, in->opencode_version, sizeof out->opencode_version);
    return out->name && out->sandbox_id && out->template_id && out->branch && out->base && out->dir ? 0 : -1;
}

static void fork_resolved(e2b_box_op *op, const e2b_error *err)
{
    if (err || op->cancelled) {
        fork_fail(op, err, "finding the box");
        return;
    }
    if (!op->have_record) {
        e2b_error *e = e2b_error_new(E2B_ERR_NOT_FOUND,
                                     "box %s was made on another machine: its project is not "
                                     "known here",
                                     op->res.name);
        fork_fail(op, e, "finding the box");
        e2b_error_free(e);
        return;
    }
    e2b_error *e = NULL;
    if (copy_record(&op->rec, &op->fork->parent) < 0) {
        e = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        fork_fail(op, e, "finding the box");
        e2b_error_free(e);
        return;
    }
    if (op->fork->group[0] && strcmp(op->rec.group, op->fork->group)) {
        /* the parent is the group's first member */
        snprintf(op->rec.group, sizeof op->rec.group, "%s", op->fork->group);
        if ((e = e2b_box_record_write(op->env.cfg->records_dir, &op->rec, 0))) {
            fork_fail(op, e, "recording the group");
            e2b_error_free(e);
            return;
        }
    }
    char what[64];
    snprintf(what, sizeof what, "forking into %d", op->fork->p.count);
    box_op_progress(op, what, 0, 0);
    op->api_call = e2b_api_fork(op->env.client, op->rec.sandbox_id, op->fork->p.count,
                                (long)op->env.cfg->hours * 3600, fork_made, op, &e);
    if (!op->api_call) {
        fork_fail(op, e, "forking");
        e2b_error_free(e);
        return;
    }
    op->pending++;
}

e2b_box_op *e2b_box_fork(const e2b_box_env *env, const e2b_box_fork_params *p,
                         e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                         e2b_error **err)
{
    if (!p->name || !e2b_gitwork_box_name_valid(p->name)) {
        *err = e2b_error_new(E2B_ERR_INVALID, "'%s' is not a valid box name", p->name ? p->name : "");
        return NULL;
    }
    if (p->group && (!e2b_gitwork_box_name_valid(p->group) || strlen(p->group) > 50)) {
        *err = e2b_error_new(E2B_ERR_INVALID, "'%s' is not a valid group name", p->group);
        return NULL;
    }
    if (p->count < 1 || p->count > 100) {
        *err = e2b_error_new(E2B_ERR_INVALID, "--count must be from 1 to 100, not %d", p->count);
        return NULL;
    }
    e2b_box_op *op = box_op_new(OP_FORK, env, progress, done, ud);
    struct box_fork_state *f = op ? calloc(1, sizeof *f) : NULL;
    if (!f) {
        if (op) {
            op->finished = 1;
            e2b_box_op_free(op);
        }
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    f->p = *p;
    f->p.name = NULL; /* the caller's strings are not kept */
    f->p.group = NULL;
    snprintf(f->group, sizeof f->group, "%s", p->group ? p->group : "");
    f->next_suffix = 2;
    op->fork = f;
    op->fork_free = fork_state_free;
    box_op_start(op, p->name, fork_resolved);
    return op;
}
