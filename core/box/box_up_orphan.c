/* up: the sandbox a lost create reply may have left behind.
 *
 * When POST /v2/sandboxes fails without a usable reply (the connection broke, the request
 * timed out or was cancelled, or the server answered 5xx), E2B may still have made the
 * sandbox: the client never learnt its id, so the ordinary cleanup cannot kill it. Every up
 * therefore tags its create with a random metadata value (E2B_META_UP); after such a
 * failure the sandboxes carrying it are listed and killed, so a failed up leaves no stray
 * sandbox. Creates are never retried (a retry could make two). What the sweep cannot see
 * yet (E2B making the sandbox after the client gave up, or a crash before the record) is
 * covered by the journal of creates in doubt and core/box/orphans.h. */
#include "core/box/box_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int box_up_orphan_possible(const e2b_error *err)
{
    if (!err)
        return 0;
    return err->http_status == 0 ? err->kind != E2B_ERR_INVALID && err->kind != E2B_ERR_INTERNAL
                                 : err->http_status >= 500;
}

int box_up_orphan_late_possible(const e2b_error *err)
{
    if (!err)
        return 0;
    return err->http_status == 0 ? box_up_orphan_possible(err)
                                 : err->http_status == 502 || err->http_status == 504;
}

static void orphan_done(e2b_box_op *op)
{
    box_step_fn then = op->step_then;
    op->step_then = NULL;
    then(op, NULL);
}

static void orphan_note(e2b_box_op *op, const char *id, const e2b_error *err)
{
    char buf[600];
    snprintf(buf, sizeof buf, "the failed box's sandbox %s could not be killed: %s", id,
             err ? e2b_error_message(err) : "out of memory");
    free(op->res.note);
    op->res.note = strdup(buf);
}

static void orphan_kill_next(e2b_box_op *op);

static void orphan_killed(void *ud, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)status;
    op->api_call = NULL;
    op->pending--;
    if (err && err->kind != E2B_ERR_NOT_FOUND) {
        orphan_note(op, op->orphans.items[op->orphan_next - 1].sandbox_id, err);
        op->orphan_unsure = 1;
    } else {
        op->orphan_killed = 1;
    }
    orphan_kill_next(op);
}

static void orphan_kill_next(e2b_box_op *op)
{
    while (op->orphan_next < op->orphans.count) {
        const e2b_sandbox *sb = &op->orphans.items[op->orphan_next++];
        e2b_error *e = NULL;
        if (op->up.keep_failed) {
            char buf[300];
            snprintf(buf, sizeof buf, "kept the failed sandbox %s (--keep-failed)", sb->sandbox_id);
            free(op->res.note);
            op->res.note = strdup(buf);
            continue;
        }
        op->api_call = e2b_api_kill(op->env.client, sb->sandbox_id, orphan_killed, op, &e);
        if (op->api_call) {
            op->pending++;
            return;
        }
        orphan_note(op, sb->sandbox_id, e);
        op->orphan_unsure = 1;
        e2b_error_free(e);
    }
    orphan_done(op);
}

static void orphan_listed(void *ud, e2b_sandbox_list *list, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->api_call = NULL;
    op->pending--;
    if (err || !list) {
        char buf[600];
        snprintf(buf, sizeof buf,
                 "E2B may have made a sandbox for this box (metadata %s=%s) that could not be "
                 "checked: %s; see e2b-tui --list",
                 E2B_META_UP, op->up_nonce, err ? e2b_error_message(err) : "out of memory");
        free(op->res.note);
        op->res.note = strdup(buf);
        e2b_sandbox_list_free(list);
        op->orphan_unsure = 1;
        orphan_done(op);
        return;
    }
    op->orphans = *list;
    free(list);
    op->orphan_next = 0;
    orphan_kill_next(op);
}

int box_up_orphan_sweep(e2b_box_op *op, box_step_fn then)
{
    e2b_error *err = NULL;
    e2b_metadata md = {0};
    if (!op->up_nonce[0]) /* the create carried no tag: nothing to look for */
        return -1;
    e2b_metadata_set(&md, E2B_META_UP, op->up_nonce);
    e2b_list_query q = {.metadata = &md, .workspace_keys = op->env.cfg->workspace_keys};
    op->step_then = then;
    box_op_progress(op, "looking for a sandbox left by the failed create", 0, 0);
    op->api_call = e2b_api_list(op->env.client, &q, orphan_listed, op, &err);
    e2b_metadata_clear(&md);
    if (!op->api_call) {
        e2b_error_free(err);
        op->orphan_unsure = 1;
        return -1;
    }
    op->pending++;
    return 0;
}
