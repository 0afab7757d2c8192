/* stop (pause) and kill as step machines: resolve the name, call the API, clean up. */
#include "core/box/box_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 2, 3))) static void set_note(e2b_box_op *op, const char *fmt, ...)
{
    char buf[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(op->res.note);
    op->res.note = strdup(buf);
}

static e2b_error *with_action(const e2b_error *err, const char *verb, const char *name)
{
    e2b_error *e = e2b_error_copy(err);
    return e2b_error_set_action(e, "%s box %s", verb, name);
}

/* ---- stop ---- */

static void stop_paused(void *ud, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->api_call = NULL;
    op->pending--;
    (void)status;
    if (err && err->kind == E2B_ERR_CONFLICT) {
        set_note(op, "box %s was already paused", op->res.name);
        box_op_finish(op, NULL);
        return;
    }
    if (err && err->kind == E2B_ERR_NOT_FOUND) {
        e2b_error *e = e2b_error_new(E2B_ERR_NOT_FOUND,
                                     "its sandbox %s is gone (e2b-tui --kill %s removes the record)",
                                     op->res.sandbox_id, op->res.name);
        box_op_finish(op, e2b_error_set_action(e, "pausing box %s", op->res.name));
        return;
    }
    box_op_finish(op, err ? with_action(err, "pausing", op->res.name) : NULL);
}

static void stop_resolved(e2b_box_op *op, const e2b_error *err)
{
    e2b_error *e = NULL;
    if (err) {
        box_op_finish(op, with_action(err, "pausing", op->res.name));
        return;
    }
    box_op_progress(op, "pausing", 0, 0);
    op->api_call = e2b_api_pause(op->env.client, op->res.sandbox_id, stop_paused, op, &e);
    if (!op->api_call) {
        box_op_finish(op, e);
        return;
    }
    op->pending++;
}

e2b_box_op *e2b_box_stop(const e2b_box_env *env, const char *name, e2b_box_progress_fn progress,
                         e2b_box_done_fn done, void *ud, e2b_error **err)
{
    e2b_box_op *op = box_op_new(OP_STOP, env, progress, done, ud);
    if (!op) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    box_op_start(op, name, stop_resolved);
    return op;
}

/* ---- kill ---- */

static void kill_password_deleted(e2b_box_op *op)
{
    ks_error kerr = {0};
    ks_code c = box_op_job_result(op, &kerr);
    if (c != KS_OK && c != KS_ERR_NOT_FOUND) {
        /* The sandbox and the record are gone already; say what is left behind. */
        set_note(op, "the password could not be deleted from the keystore: %s", kerr.message);
    }
    box_op_finish(op, NULL);
}

static void kill_local_cleanup(e2b_box_op *op)
{
    e2b_error *e = NULL;
    if (op->have_record) {
        box_op_progress(op, "removing the record", 0, 0);
        e = e2b_box_record_remove(op->env.cfg->records_dir, op->res.name);
        if (e) {
            box_op_finish(op, e2b_error_set_action(e, "killing box %s", op->res.name));
            return;
        }
    }
    if (op->record_elsewhere) {
        /* The name's record and password belong to another sandbox: they stay. */
        set_note(op, "the local record of box %s points at sandbox %s: kept it and its password",
                 op->res.name, op->record_elsewhere);
        box_op_finish(op, NULL);
        return;
    }
    if (!op->env.ks) {
        set_note(op, "the password store could not be opened: box %s's password was not deleted",
                 op->res.name);
        box_op_finish(op, NULL);
        return;
    }
    box_op_progress(op, "deleting the password", 0, 0);
    box_op_job_delete(op, kill_password_deleted);
}

/* The record's sandbox was gone: clean up locally unless other boxes have the name. */
static void kill_stale_checked(e2b_box_op *op, const e2b_error *err)
{
    if (err) {
        box_op_finish(op, with_action(err, "killing", op->res.name));
        return;
    }
    set_note(op, "the sandbox of box %s was already gone; removed it locally", op->res.name);
    kill_local_cleanup(op);
}

static void kill_done(void *ud, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->api_call = NULL;
    op->pending--;
    (void)status;
    if (err && err->kind == E2B_ERR_NOT_FOUND) {
        if (!op->have_record) {
            box_op_finish(op, with_action(err, "killing", op->res.name));
            return;
        }
        if (!op->expect_id) {
            /* By name only: a new box of the same name may exist elsewhere (a conflict). */
            box_op_check_stale(op, kill_stale_checked);
            return;
        }
        set_note(op, "the sandbox of box %s was already gone; removed it locally", op->res.name);
    } else if (err) {
        box_op_finish(op, with_action(err, "killing", op->res.name));
        return;
    }
    kill_local_cleanup(op);
}

/* ---- forget a gone box (the first step of a remake) ---- */

static void forget_got(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->api_call = NULL;
    op->pending--;
    (void)status;
    if (op->cancelled) {
        e2b_sandbox_free(sb);
        box_op_finish(op, e2b_error_new(E2B_ERR_CANCELLED, "cancelled"));
        return;
    }
    if (!err) { /* it is there (running or paused): never replaced */
        const char *state = e2b_sandbox_state_name(sb ? sb->state : E2B_STATE_UNKNOWN);
        e2b_error *e = e2b_error_new(E2B_ERR_CONFLICT,
                                     "box %s's sandbox %s still exists (%s): nothing was remade; "
                                     "e2b-tui --attach %s reaches it",
                                     op->res.name, op->rec.sandbox_id, state, op->res.name);
        e2b_sandbox_free(sb);
        box_op_finish(op, e2b_error_set_action(e, "remaking box %s", op->res.name));
        return;
    }
    e2b_sandbox_free(sb);
    if (err->kind != E2B_ERR_NOT_FOUND) {
        box_op_finish(op, with_action(err, "remaking", op->res.name));
        return;
    }
    kill_local_cleanup(op); /* gone: its record and password go; the op keeps the record */
}

static void forget_resolved(e2b_box_op *op)
{
    e2b_error *e = NULL;
    if (!op->have_record) {
        e = e2b_error_new(E2B_ERR_NOT_FOUND,
                          "box %s has no record on this machine: only a box made here can be "
                          "remade (its settings are in its record)",
                          op->res.name);
        box_op_finish(op, e2b_error_set_action(e, "remaking box %s", op->res.name));
        return;
    }
    box_op_progress(op, "asking E2B for the box's sandbox", 0, 0);
    op->api_call = e2b_api_get(op->env.client, op->rec.sandbox_id, forget_got, op, &e);
    if (!op->api_call) {
        box_op_finish(op, e);
        return;
    }
    op->pending++;
}

static void kill_resolved(e2b_box_op *op, const e2b_error *err)
{
    e2b_error *e = NULL;
    if (err) {
        box_op_finish(op, with_action(err, op->forget_gone ? "remaking" : "killing", op->res.name));
        return;
    }
    if (op->forget_gone) {
        forget_resolved(op);
        return;
    }
    box_op_progress(op, "killing the sandbox", 0, 0);
    op->api_call = e2b_api_kill(op->env.client, op->res.sandbox_id, kill_done, op, &e);
    if (!op->api_call) {
        box_op_finish(op, e);
        return;
    }
    op->pending++;
}

e2b_box_op *e2b_box_kill(const e2b_box_env *env, const char *name, e2b_box_progress_fn progress,
                         e2b_box_done_fn done, void *ud, e2b_error **err)
{
    e2b_box_op *op = box_op_new(OP_KILL, env, progress, done, ud);
    if (!op) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    box_op_start(op, name, kill_resolved);
    return op;
}

e2b_box_op *e2b_box_forget_gone(const e2b_box_env *env, const char *name,
                                e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                                e2b_error **err)
{
    e2b_box_op *op = box_op_new(OP_KILL, env, progress, done, ud);
    if (!op) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    op->forget_gone = 1;
    box_op_start(op, name, kill_resolved);
    return op;
}

const e2b_box_record *e2b_box_op_record(const e2b_box_op *op)
{
    return op && op->have_record ? &op->rec : NULL;
}
