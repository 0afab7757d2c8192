/* attach: record -> password (keystore) -> connect (resumes) -> one health probe; when it
 * does not answer: server running? (Process List by tag; start it again after a cold
 * resume) -> health. The caller then runs the
 * attach command with the password in its environment. */
#include "core/box/box_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The op ends once both its steps and the local probe are done. */
static void attach_end(e2b_box_op *op, e2b_error *err)
{
    if (op->loc.running) {
        op->loc.finish_wanted = 1;
        op->loc.finish_err = err;
        return;
    }
    op->res.local_oc = op->loc.local;
    e2b_box_record_opencode(&op->rec, &op->res.box_oc);
    op->res.box_oc.api = e2b_config_box_api(op->env.cfg, &op->res.box_oc);
    box_op_finish(op, err);
}

/* On the worker: which OpenCode this machine has (the binaries' --version, cached). */
static e2b_error *attach_local_run(void *arg, const atomic_int *cancel)
{
    e2b_box_op *op = arg; /* only op->loc.local and the record's API, which stay put */
    e2b_opencode_kind_local(op->rec.opencode, &op->loc.local, cancel);
    return NULL;
}

static void attach_local_done(e2b_box_op *op, e2b_error *err)
{
    e2b_error_free(err);
    op->loc.running = 0;
    if (op->loc.finish_wanted) {
        e2b_error *e = op->loc.finish_err;
        op->loc.finish_err = NULL;
        op->loc.finish_wanted = 0;
        attach_end(op, e);
    }
}

static void attach_fail(e2b_box_op *op, const e2b_error *err, const char *step)
{
    e2b_error *e = err ? e2b_error_copy(err) : e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    e2b_error_set_action(e, "attaching to box %s: %s", op->res.name ? op->res.name : "", step);
    attach_end(op, e);
}

static void attach_healthy(e2b_box_op *op, const e2b_error *err)
{
    if (err || op->cancelled) {
        attach_fail(op, err, "health check");
        return;
    }
    op->res.password = strdup(op->password);
    op->res.port = op->rec.port ? op->rec.port : E2B_BOX_PORT;
    if (op->sb.traffic_access_token && *op->sb.traffic_access_token)
        op->res.traffic_token = strdup(op->sb.traffic_access_token);
    attach_end(op, NULL);
}

static void attach_server_started(e2b_box_op *op, const e2b_error *err)
{
    if (err || op->cancelled) {
        attach_fail(op, err, err && err->kind == E2B_ERR_TIMEOUT ? "health check"
                                                                 : "starting the server");
        return;
    }
    op->res.restarted = 1;
    attach_healthy(op, NULL); /* the start waited for its health */
}

static void attach_listed(void *ud, const json_t *reply, const e2b_error *err)
{
    e2b_box_op *op = ud;
    e2b_process_list list = {0};
    int running = 0;
    op->http = NULL;
    op->pending--;
    if (err || op->cancelled) {
        attach_fail(op, err, "listing the box's processes");
        return;
    }
    e2b_error *e = e2b_process_list_from_json(reply, &list);
    if (e) {
        attach_fail(op, e, "listing the box's processes");
        e2b_error_free(e);
        return;
    }
    for (size_t i = 0; i < list.count; i++)
        if (list.items[i].tag && strcmp(list.items[i].tag, E2B_BOX_SERVER_TAG) == 0)
            running = 1;
    e2b_process_list_clear(&list);
    if (running) {
        box_op_health(op, attach_healthy);
        return;
    }
    box_op_progress(op, "starting the server", 0, 0);
    box_op_start_server(op, 0, attach_server_started);
}

/* The server did not answer at once: is it running (then wait for it) or gone with a cold
 * resume (then start it)? */
static void attach_probed(e2b_box_op *op, const e2b_error *err)
{
    e2b_error *e = NULL;
    if (op->cancelled || (err && err->kind == E2B_ERR_CANCELLED)) {
        attach_fail(op, NULL, "checking the server");
        return;
    }
    if (!err) { /* the common case: it runs and answers; no process list needed */
        attach_healthy(op, NULL);
        return;
    }
    json_t *req = json_object();
    op->http = e2b_envd_rpc(op->envd, "process.Process", "List", req, attach_listed, op, &e);
    json_decref(req);
    if (!op->http) {
        attach_fail(op, e, "listing the box's processes");
        e2b_error_free(e);
        return;
    }
    op->pending++;
}

static void attach_connected(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    e2b_error *e = NULL;
    op->api_call = NULL;
    op->pending--;
    if (err && err->kind == E2B_ERR_NOT_FOUND) {
        char *hint = e2b_box_remake_hint(op->env.cfg->state_dir, op->res.name, op->rec.dir);
        e2b_error *nf = e2b_error_new(E2B_ERR_NOT_FOUND,
                                      "its sandbox %s is gone (E2B no longer has it): %s",
                                      op->rec.sandbox_id, hint ? hint : "e2b-tui --kill removes its record");
        free(hint);
        attach_fail(op, nf, "connecting");
        e2b_error_free(nf);
        e2b_sandbox_free(sb);
        return;
    }
    if (err || op->cancelled) {
        e2b_sandbox_free(sb);
        attach_fail(op, err, "connecting");
        return;
    }
    op->sb = *sb;
    free(sb);
    op->res.resumed = status == 201;
    op->res.url = e2b_config_port_url(op->env.cfg, op->rec.port ? op->rec.port : E2B_BOX_PORT,
                                      op->sb.sandbox_id, op->sb.domain);
    op->envd = e2b_envd_new(op->env.loop, op->env.cfg, &op->sb, NULL, &e);
    if (!op->envd) {
        attach_fail(op, e, "reaching envd");
        e2b_error_free(e);
        return;
    }
    box_op_progress(op, "checking the server", 0, 0);
    box_op_health_once(op, attach_probed);
}

static void attach_password(e2b_box_op *op)
{
    ks_error kerr = {0};
    e2b_error *e = NULL;
    ks_code c = box_op_job_result(op, &kerr);
    if (c == KS_ERR_NOT_FOUND) {
        e = e2b_error_new(E2B_ERR_NOT_FOUND,
                          "the password of box %s is not on this machine (%s)", op->res.name,
                          keystore_location(op->env.ks));
        attach_fail(op, e, "reading the password");
        e2b_error_free(e);
        return;
    }
    if (c != KS_OK) {
        e = e2b_keystore_error(&kerr);
        attach_fail(op, e, "reading the password");
        e2b_error_free(e);
        return;
    }
    if (op->cancelled) {
        attach_fail(op, NULL, "reading the password");
        return;
    }
    box_op_progress(op, "connecting", 0, 0);
    op->api_call = e2b_api_connect(op->env.client, op->rec.sandbox_id, box_op_lifetime_s(op),
                                   attach_connected, op, &e);
    if (!op->api_call) {
        attach_fail(op, e, "connecting");
        e2b_error_free(e);
        return;
    }
    op->pending++;
}

static void attach_resolved(e2b_box_op *op, const e2b_error *err)
{
    if (err) {
        attach_fail(op, err, "finding the box");
        return;
    }
    if (!op->have_record && op->record_elsewhere) {
        e2b_error *e = e2b_error_new(E2B_ERR_CONFLICT,
                                     "box %s's record is for sandbox %s, not %s: no password here "
                                     "for this one",
                                     op->res.name, op->record_elsewhere, op->expect_id);
        attach_fail(op, e, "finding the box");
        e2b_error_free(e);
        return;
    }
    if (!op->have_record) {
        e2b_error *e = e2b_error_new(E2B_ERR_NOT_FOUND,
                                     "box %s was made on another machine: its password is not on "
                                     "this machine",
                                     op->res.name);
        attach_fail(op, e, "finding the box");
        e2b_error_free(e);
        return;
    }
    op->res.dir = strdup(op->rec.dir);
    /* The client's side, beside the steps (its --version may take seconds); a machine
     * with no thread to spare attaches with the presets' choice. */
    if (!op->env.cfg->attach_command && box_op_work(op, attach_local_run, op, attach_local_done) == 0)
        op->loc.running = 1;
    if (!op->env.ks) {
        e2b_error *e = e2b_error_new(E2B_ERR_INVALID, "no password store is open");
        attach_fail(op, e, "reading the password");
        e2b_error_free(e);
        return;
    }
    box_op_progress(op, "reading the password", 0, 0);
    box_op_job_get(op, attach_password);
}

e2b_box_op *e2b_box_attach(const e2b_box_env *env, const char *name, long health_timeout_ms,
                           e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                           e2b_error **err)
{
    e2b_box_op *op = box_op_new(OP_ATTACH, env, progress, done, ud);
    if (!op) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    op->health_timeout_ms = health_timeout_ms;
    box_op_start(op, name, attach_resolved);
    return op;
}
