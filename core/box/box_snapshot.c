/* snapshot: the box (its record) -> POST /sandboxes/{id}/snapshots -> the snapshot record.
 * Nothing is left behind by a failure: a snapshot whose record cannot be written is deleted
 * again. */
#include "core/box/box_internal.h"
#include "core/box/snap_records.h"
#include "core/e2b/api_templates.h"
#include "core/util/buf.h"
#include "core/util/str.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void snap_fail(e2b_box_op *op, const e2b_error *err, const char *step)
{
    e2b_error *e = err ? e2b_error_copy(err) : e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    if (e->action) {
        char *old = strdup(e->action);
        e2b_error_set_action(e, "snapshot of box %s: %s: %s", op->res.name ? op->res.name : "", step,
                             old ? old : "");
        free(old);
    } else {
        e2b_error_set_action(e, "snapshot of box %s: %s", op->res.name ? op->res.name : "", step);
    }
    box_op_finish(op, e);
}

/* E2B's name for the snapshot: "e2b-tui-" and the local name in E2B's alphabet (lower-case
 * letters, digits, '-' and '_'), which also marks e2b-tui's snapshots in a template list. */
void box_snapshot_e2b_name(const char *local, char *out, size_t n)
{
    size_t k = (size_t)snprintf(out, n, "e2b-tui-");
    for (const char *p = local; *p && k + 1 < n && k < 63; p++) {
        unsigned char ch = (unsigned char)*p;
        out[k++] = isalnum(ch) ? (char)tolower(ch) : ch == '_' ? '_' : '-';
    }
    out[k < n ? k : n - 1] = '\0';
}

static void snap_undone(void *ud, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)status;
    op->api_call = NULL;
    op->pending--;
    if (err && err->kind != E2B_ERR_NOT_FOUND) {
        free(op->res.note);
        op->res.note = e2b_strfmt("snapshot %s could not be deleted again: %s (e2b-tui --gc-templates "
                                  "or --snapshots --delete removes it)",
                                  op->res.snapshot_id, e2b_error_message(err));
    }
    e2b_error *e = op->error;
    op->error = NULL;
    box_op_finish(op, e);
}

static void snap_taken(void *ud, e2b_snapshot *snap, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->api_call = NULL;
    op->pending--;
    if (err && err->kind == E2B_ERR_CONFLICT) {
        e2b_error *e = e2b_error_new(E2B_ERR_CONFLICT,
                                     "box %s is paused: E2B snapshots a running sandbox; resume it "
                                     "(e2b-tui --attach %s, or a in the dashboard), then snapshot it",
                                     op->res.name, op->res.name);
        snap_fail(op, e, "taking the snapshot");
        e2b_error_free(e);
        e2b_snapshot_free(snap);
        return;
    }
    if (err && err->kind == E2B_ERR_NOT_FOUND) {
        e2b_error *e = e2b_error_new(E2B_ERR_NOT_FOUND,
                                     "its sandbox %s is gone (e2b-tui --kill %s removes the record)",
                                     op->rec.sandbox_id, op->res.name);
        snap_fail(op, e, "taking the snapshot");
        e2b_error_free(e);
        e2b_snapshot_free(snap);
        return;
    }
    if (err) {
        snap_fail(op, err, "taking the snapshot");
        e2b_snapshot_free(snap);
        return;
    }
    op->res.snapshot_id = strdup(snap->snapshot_id);
    e2b_snapshot_free(snap);
    box_op_progress(op, "writing the snapshot record", 0, 0);
    e2b_snap_record r = {.name = op->snap_as, .snapshot_id = op->res.snapshot_id, .box = op->rec.name,
                     .sandbox_id = op->rec.sandbox_id, .template_id = op->rec.template_id,
                     .dir = op->rec.dir, .branch = op->rec.branch, .commit = op->rec.base,
                     .port = op->rec.port, .opencode = op->rec.opencode, .created_at = time(NULL)};
    e2b_error *werr = op->res.snapshot_id ? e2b_snap_record_write(op->env.cfg->state_dir, &r)
                                          : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    if (!werr && !op->cancelled) {
        free(op->res.name);
        op->res.name = strdup(op->snap_as);
        op->res.dir = box_strdup(op->rec.dir);
        box_op_finish(op, NULL);
        return;
    }
    if (!werr) { /* cancelled after E2B made it: do not keep what the user gave up */
        e2b_snap_record_remove(op->env.cfg->state_dir, op->snap_as);
        werr = e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    }
    e2b_error_set_action(werr, "snapshot of box %s: writing its record", op->res.name);
    op->error = werr;
    e2b_error *e = NULL;
    if (op->res.snapshot_id)
        op->api_call = e2b_api_template_delete(op->env.client, op->res.snapshot_id, snap_undone, op, &e);
    if (op->api_call) {
        op->pending++;
        return;
    }
    e2b_error_free(e);
    op->error = NULL;
    box_op_finish(op, werr);
}

static void snap_resolved(e2b_box_op *op, const e2b_error *err)
{
    if (err || op->cancelled) {
        snap_fail(op, err, "finding the box");
        return;
    }
    if (!op->have_record) {
        e2b_error *e = e2b_error_new(E2B_ERR_NOT_FOUND,
                                     "box %s was made on another machine: its project is not "
                                     "known here, so a snapshot of it could not be used by --up",
                                     op->res.name);
        snap_fail(op, e, "finding the box");
        e2b_error_free(e);
        return;
    }
    char ename[72];
    box_snapshot_e2b_name(op->snap_as, ename, sizeof ename);
    e2b_error *e = NULL;
    box_op_progress(op, "taking the snapshot", 0, 0);
    op->api_call = e2b_api_snapshot_create(op->env.client, op->rec.sandbox_id, ename, snap_taken, op, &e);
    if (!op->api_call) {
        snap_fail(op, e, "taking the snapshot");
        e2b_error_free(e);
        return;
    }
    op->pending++;
}

e2b_box_op *e2b_box_snapshot(const e2b_box_env *env, const char *name, const char *as,
                             e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                             e2b_error **err)
{
    const char *local = as ? as : name;
    if (!name || !e2b_gitwork_box_name_valid(name) || !local || !e2b_gitwork_box_name_valid(local)) {
        *err = e2b_error_new(E2B_ERR_INVALID, "'%s' is not a valid %s name", local ? local : "",
                             as ? "snapshot" : "box");
        return NULL;
    }
    e2b_box_op *op = box_op_new(OP_SNAPSHOT, env, progress, done, ud);
    if (op && !(op->snap_as = strdup(local))) {
        op->finished = 1; /* never started: freed at once */
        e2b_box_op_free(op);
        op = NULL;
    }
    if (!op) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    box_op_start(op, name, snap_resolved);
    return op;
}
