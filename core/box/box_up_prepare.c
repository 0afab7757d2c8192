/* The prepare of a project's snapshot (box_internal.h box_up_prepare_run): in the box of the
 * base template that up made with the project's files (no secrets, no password, no server),
 * the setup runs in the project under `timeout`, its output kept in the box and only its
 * last lines read back -> E2B snapshots the sandbox -> the snapshot record, which names
 * the key it was set up from. Nothing is pasted into the script: its inputs come from the
 * environment. */
#include "core/box/box_internal.h"
#include "core/box/snap_records.h"
#include "core/e2b/api_templates.h"
#include "core/util/machine_id.h"
#include "core/util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char SCRIPT[] =
    "# e2b-tui setup: runs inside the box. Inputs come only from the environment.\n"
    "set -u\n"
    "cd -- \"$E2B_TUI_DIR\" 2>/dev/null || { echo \"E2B-TUI-NODIR\"; exit 0; }\n"
    "out=$(mktemp \"${TMPDIR:-/tmp}/e2b-tui-setup.XXXXXX\") || exit 1\n"
    "trap 'rm -f -- \"$out\"' EXIT\n"
    "cmd=$E2B_TUI_SETUP limit=$E2B_TUI_TIMEOUT\n"
    "unset E2B_TUI_SETUP E2B_TUI_TIMEOUT E2B_TUI_DIR\n"
    "if command -v timeout >/dev/null 2>&1; then\n"
    "    timeout -k 5 \"$limit\" bash -c \"$cmd\" </dev/null >\"$out\" 2>&1\n"
    "else\n"
    "    bash -c \"$cmd\" </dev/null >\"$out\" 2>&1\n"
    "fi\n"
    "rc=$?\n"
    "printf 'E2B-TUI-RC %d\\n' \"$rc\"\n"
    "tail -c 8192 \"$out\" | tail -n 20\n";

void box_up_prepared_age(time_t at, time_t now, char *out, size_t n)
{
    long s = (long)(now - at);
    long v;
    const char *unit;
    if (s < 60) {
        snprintf(out, n, "just now");
        return;
    }
    if (s < 3600)
        v = s / 60, unit = "minute";
    else if (s < 86400)
        v = s / 3600, unit = "hour";
    else
        v = s / 86400, unit = "day";
    snprintf(out, n, "%ld %s%s ago", v, unit, v == 1 ? "" : "s");
}

static void prep_end(e2b_box_op *op, e2b_error *err, const char *step)
{
    op->prep.then(op, err, step);
}

static void prep_undone(void *ud, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)status;
    (void)err; /* a snapshot left on E2B without a record is listed by --snapshots */
    op->api_call = NULL;
    op->pending--;
    e2b_error *e = op->error;
    op->error = NULL;
    prep_end(op, e, "writing the snapshot record");
}

/* The record could not be written, or the user gave up: the snapshot goes again. */
static void prep_undo(e2b_box_op *op, e2b_error *why)
{
    e2b_error *e = NULL;
    op->error = why;
    op->api_call = e2b_api_template_delete(op->env.client, op->res.snapshot_id, prep_undone, op, &e);
    if (op->api_call) {
        op->pending++;
        return;
    }
    e2b_error_free(e);
    op->error = NULL;
    prep_end(op, why, "writing the snapshot record");
}

static void prep_taken(void *ud, e2b_snapshot *snap, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->api_call = NULL;
    op->pending--;
    if (err || !snap || op->cancelled) {
        e2b_snapshot_free(snap);
        prep_end(op, err ? e2b_error_copy(err) : e2b_error_new(E2B_ERR_CANCELLED, "cancelled"),
                 "taking the prepared snapshot");
        return;
    }
    op->res.snapshot_id = strdup(snap->snapshot_id);
    e2b_snapshot_free(snap);
    e2b_snap_record r = {.name = op->res.prepared_as, .snapshot_id = op->res.snapshot_id,
                         .box = "", .sandbox_id = op->sb.sandbox_id,
                         .template_id = op->rec.template_id, .dir = op->rec.dir,
                         .branch = op->rec.branch, .commit = op->rec.base, .port = op->rec.port,
                         .opencode = op->rec.opencode, .created_at = time(NULL),
                         .setup_key = op->prep.key};
    e2b_error *werr = op->res.snapshot_id ? e2b_snap_record_write(op->env.cfg->state_dir, &r)
                                          : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    if (werr) {
        if (op->res.snapshot_id)
            prep_undo(op, werr);
        else
            prep_end(op, werr, "writing the snapshot record");
        return;
    }
    prep_end(op, NULL, NULL);
}

/* E2B keeps the set-up sandbox as prep-<key>-<time>-m<machine id>: this machine's (the
 * template GC deletes only those), a new name per prepare. */
static void prep_snapshot(e2b_box_op *op)
{
    char mid[E2B_MACHINE_ID_LEN + 1];
    e2b_error *e = e2b_machine_id(op->env.cfg->state_dir, mid);
    if (e) {
        prep_end(op, e, "taking the prepared snapshot");
        return;
    }
    op->res.prepared_as = e2b_strfmt("prep-%.8s-%llx-m%s", op->prep.key,
                                     (unsigned long long)time(NULL), mid);
    char ename[72];
    if (!op->res.prepared_as) {
        prep_end(op, e2b_error_new(E2B_ERR_INTERNAL, "out of memory"), "taking the prepared snapshot");
        return;
    }
    box_snapshot_e2b_name(op->res.prepared_as, ename, sizeof ename);
    box_op_progress(op, "taking the prepared snapshot", 0, 0);
    op->api_call = e2b_api_snapshot_create(op->env.client, op->sb.sandbox_id, ename, prep_taken, op, &e);
    if (!op->api_call) {
        prep_end(op, e, "taking the prepared snapshot");
        return;
    }
    op->pending++;
}

/* What the script printed (bounded by box_op_run; untrusted): the setup's exit status and
 * its last lines. */
static void prep_ran(e2b_box_op *op, const e2b_error *err)
{
    const char *step = "running the project's setup";
    if (err || op->cancelled) {
        prep_end(op, err ? e2b_error_copy(err) : e2b_error_new(E2B_ERR_CANCELLED, "cancelled"), step);
        return;
    }
    const char *out = op->out ? op->out : "";
    if (strstr(out, "E2B-TUI-NODIR")) {
        prep_end(op, e2b_error_new(E2B_ERR_REMOTE, "the project %s is not in the box", op->rec.dir), step);
        return;
    }
    const char *p = strstr(out, "E2B-TUI-RC ");
    int rc;
    if (!p || sscanf(p + 11, "%d", &rc) != 1) {
        prep_end(op, e2b_error_new(E2B_ERR_REMOTE, "the box did not say how the setup ended (exit %d)",
                                   op->proc_exit), step);
        return;
    }
    if (rc == 0) {
        prep_snapshot(op);
        return;
    }
    char *safe = box_op_output_tail(p);
    const char *lines = safe && *safe ? safe : "(no output)\n";
    e2b_error *e;
    if (rc == 124 || rc == 137)
        e = e2b_error_new(E2B_ERR_REMOTE,
                          "the project's setup (%s) timed out after %d s (setup_timeout); nothing "
                          "was kept; its last lines:\n%s",
                          op->prep.command, op->env.cfg->setup_timeout_s, lines);
    else
        e = e2b_error_new(E2B_ERR_REMOTE,
                          "the project's setup (%s) failed (exit %d); nothing was kept; fix it "
                          "or run --up --no-prepared; its last lines:\n%s",
                          op->prep.command, rc, lines);
    free(safe);
    prep_end(op, e, step);
}

void box_up_prepare_run(e2b_box_op *op, void (*then)(e2b_box_op *op, e2b_error *err, const char *step))
{
    op->prep.then = then;
    char timeout[24];
    snprintf(timeout, sizeof timeout, "%d", op->env.cfg->setup_timeout_s);
    e2b_metadata env = {0};
    e2b_metadata_set(&env, "E2B_TUI_DIR", op->rec.dir);
    e2b_metadata_set(&env, "E2B_TUI_SETUP", op->prep.command);
    e2b_metadata_set(&env, "E2B_TUI_TIMEOUT", timeout);
    const char *args[] = {"-c", SCRIPT, NULL};
    e2b_process_spec spec = {.cmd = "/bin/bash", .args = args, .envs = &env, .cwd = op->rec.dir,
                             /* timeout ends it first; this is the backstop */
                             .timeout_ms = (op->env.cfg->setup_timeout_s + 60) * 1000L};
    box_op_progress(op, "running the project's setup", 0, 0);
    box_op_run(op, op->envd, &spec, prep_ran);
    e2b_metadata_clear(&env);
}
