/* The evidence of a group member (box.h e2b_box_test_run): find the box (its record) ->
 * its sandbox's state (a paused box is not resumed) -> one script in the box: the work
 * tree's diff against the record's base through a private copy of the index (untracked
 * files as intent-to-add), then the test_command under `timeout`, its output kept in a
 * file in the box and only its tail printed -> the parsed evidence. Nothing is pasted into
 * the script: its inputs come from the environment. */
#include "core/box/box_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SCRIPT[] =
    "# e2b-tui evidence: runs inside the box. Inputs come only from the environment.\n"
    "set -u\n"
    "export LC_ALL=C GIT_LITERAL_PATHSPECS=1 GIT_OPTIONAL_LOCKS=0\n"
    "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_NAMESPACE\n"
    "cd -- \"$E2B_TUI_DIR\" 2>/dev/null || { echo \"E2B-TUI-NODIR\"; exit 0; }\n"
    "tmp=$(mktemp -d \"${TMPDIR:-/tmp}/e2b-tui-evidence.XXXXXX\") || exit 1\n"
    "trap 'rm -rf -- \"$tmp\"' EXIT\n"
    "if command -v git >/dev/null 2>&1 && gitdir=$(git rev-parse --absolute-git-dir 2>/dev/null) &&\n"
    "    base=$(git rev-parse -q --verify \"${E2B_TUI_BASE:-HEAD}^{commit}\" 2>/dev/null); then\n"
    "    git ls-files -z --others --exclude-standard >\"$tmp/untracked\" 2>/dev/null || : >\"$tmp/untracked\"\n"
    "    [ -f \"$gitdir/index\" ] && cp -p -- \"$gitdir/index\" \"$tmp/index\"\n"
    "    if [ -s \"$tmp/untracked\" ]; then\n"
    "        GIT_INDEX_FILE=$tmp/index git add -N --pathspec-from-file=\"$tmp/untracked\" --pathspec-file-nul >/dev/null 2>&1 || :\n"
    "    fi\n"
    "    GIT_INDEX_FILE=$tmp/index git diff --numstat --no-renames --no-ext-diff --no-textconv \"$base\" -- 2>/dev/null |\n"
    "        awk 'BEGIN { f = 0; a = 0; d = 0 } { f++; if ($1 != \"-\") a += $1; if ($2 != \"-\") d += $2 }\n"
    "             END { printf \"E2B-TUI-DIFF %d %d %d\\n\", f, a, d }'\n"
    "fi\n"
    "[ -n \"${E2B_TUI_TEST:-}\" ] || { echo \"E2B-TUI-NOTEST\"; exit 0; }\n"
    "t0=$(date +%s%N)\n"
    "if command -v timeout >/dev/null 2>&1; then\n"
    "    timeout -k 5 \"$E2B_TUI_TIMEOUT\" bash -c \"$E2B_TUI_TEST\" </dev/null >\"$tmp/out\" 2>&1\n"
    "else\n"
    "    bash -c \"$E2B_TUI_TEST\" </dev/null >\"$tmp/out\" 2>&1\n"
    "fi\n"
    "rc=$?\n"
    "t1=$(date +%s%N)\n"
    "printf 'E2B-TUI-RC %d %d\\n' \"$rc\" \"$(( (t1 - t0) / 1000000 ))\"\n"
    "tail -c 8192 \"$tmp/out\" | tail -n 20\n";

__attribute__((format(printf, 3, 4))) static void tr_end(e2b_box_op *op, e2b_test_result t,
                                                          const char *fmt, ...)
{
    e2b_evidence *ev = &op->res.evidence;
    ev->test = t;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        box_op_why(ev->why, sizeof ev->why, fmt, ap);
        va_end(ap);
    }
    box_op_finish(op, NULL);
}

static int tr_stopped(e2b_box_op *op)
{
    if (!op->cancelled)
        return 0;
    box_op_finish(op, e2b_error_new(E2B_ERR_CANCELLED, "cancelled"));
    return 1;
}

/* Parses what the script printed (bounded by box_op_run; untrusted). */
static void tr_parse(e2b_box_op *op)
{
    e2b_evidence *ev = &op->res.evidence;
    const char *out = op->out ? op->out : "";
    const char *p = strstr(out, "E2B-TUI-DIFF ");
    long f, a, d;
    if (p && sscanf(p + 13, "%ld %ld %ld", &f, &a, &d) == 3 && f >= 0 && a >= 0 && d >= 0) {
        ev->diff_known = 1;
        ev->files = f;
        ev->added = a;
        ev->deleted = d;
    }
    if (strstr(out, "E2B-TUI-NODIR")) {
        tr_end(op, E2B_TEST_NONE, "the project %s is not in the box", op->rec.dir);
        return;
    }
    if (strstr(out, "E2B-TUI-NOTEST")) {
        tr_end(op, E2B_TEST_NONE, "no test_command is set");
        return;
    }
    p = strstr(out, "E2B-TUI-RC ");
    int rc;
    long ms;
    if (!p || sscanf(p + 11, "%d %ld", &rc, &ms) != 2) {
        tr_end(op, E2B_TEST_ERROR, "the box did not say how the tests ended (exit %d)",
               op->proc_exit);
        return;
    }
    ev->exit_code = rc;
    ev->test_ms = ms >= 0 ? ms : 0;
    char *safe = box_op_output_tail(p);
    if (safe) {
        /* the last lines that fit, from a line's start */
        size_t len = strlen(safe);
        const char *from = safe;
        while (len - (size_t)(from - safe) >= sizeof ev->tail) {
            const char *nl = strchr(from, '\n');
            from = nl ? nl + 1 : safe + len - (sizeof ev->tail - 1);
        }
        snprintf(ev->tail, sizeof ev->tail, "%s", from);
        free(safe);
    }
    if (rc == 0)
        tr_end(op, E2B_TEST_PASS, NULL);
    else if (rc == 124 || rc == 137)
        tr_end(op, E2B_TEST_ERROR, "timed out after %d s", op->test_timeout_s);
    else if (rc == 126 || rc == 127)
        tr_end(op, E2B_TEST_ERROR, "it could not run (exit %d: not found or not executable)", rc);
    else
        tr_end(op, E2B_TEST_FAIL, NULL);
}

static void tr_ran(e2b_box_op *op, const e2b_error *err)
{
    if (tr_stopped(op))
        return;
    if (err) {
        tr_end(op, E2B_TEST_ERROR, "%s", e2b_error_message(err));
        return;
    }
    tr_parse(op);
}

static void tr_got_sandbox(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)status;
    op->api_call = NULL;
    op->pending--;
    if (tr_stopped(op)) {
        e2b_sandbox_free(sb);
        return;
    }
    if (err || !sb) {
        e2b_sandbox_free(sb);
        tr_end(op, E2B_TEST_NONE, "%s", err && err->kind == E2B_ERR_NOT_FOUND ? "its sandbox is gone"
                                         : err ? e2b_error_message(err) : "no reply");
        return;
    }
    if (sb->state != E2B_STATE_RUNNING) {
        tr_end(op, E2B_TEST_NONE, "%s: not tested", e2b_sandbox_state_name(sb->state));
        e2b_sandbox_free(sb);
        return;
    }
    op->sb = *sb;
    free(sb);
    e2b_error *e = NULL;
    op->envd = e2b_envd_new(op->env.loop, op->env.cfg, &op->sb, NULL, &e);
    if (!op->envd) {
        tr_end(op, E2B_TEST_NONE, "cannot reach envd (%s)", e ? e2b_error_message(e) : "out of memory");
        e2b_error_free(e);
        return;
    }
    char timeout[24];
    snprintf(timeout, sizeof timeout, "%d", op->test_timeout_s);
    e2b_metadata env = {0};
    e2b_metadata_set(&env, "E2B_TUI_DIR", op->rec.dir);
    e2b_metadata_set(&env, "E2B_TUI_BASE", op->rec.base ? op->rec.base : "");
    e2b_metadata_set(&env, "E2B_TUI_TEST", op->test_command ? op->test_command : "");
    e2b_metadata_set(&env, "E2B_TUI_TIMEOUT", timeout);
    const char *args[] = {"-c", SCRIPT, NULL};
    e2b_process_spec spec = {.cmd = "/bin/bash", .args = args, .envs = &env,
                             .cwd = op->rec.dir,
                             /* the box's timeout ends it first; this is the backstop */
                             .timeout_ms = (op->test_timeout_s + 60) * 1000L};
    box_op_progress(op, op->test_command ? "running the tests" : "reading the diff", 0, 0);
    box_op_run(op, op->envd, &spec, tr_ran);
    e2b_metadata_clear(&env);
}

static void tr_resolved(e2b_box_op *op, const e2b_error *err)
{
    if (tr_stopped(op))
        return;
    if (err) {
        box_op_finish(op, e2b_error_copy(err));
        return;
    }
    if (!op->have_record || !op->rec.dir || op->rec.dir[0] != '/') {
        box_op_finish(op, e2b_error_new(E2B_ERR_NOT_FOUND, "box %s has no record on this "
                                                           "machine", op->res.name));
        return;
    }
    e2b_error *e = NULL;
    box_op_progress(op, "asking E2B for the sandbox", 0, 0);
    op->api_call = e2b_api_get(op->env.client, op->res.sandbox_id, tr_got_sandbox, op, &e);
    if (!op->api_call) {
        tr_end(op, E2B_TEST_NONE, "%s", e ? e2b_error_message(e) : "no request");
        e2b_error_free(e);
        return;
    }
    op->pending++;
}

e2b_box_op *e2b_box_test_run(const e2b_box_env *env, const char *name, const char *test_command,
                             int timeout_s, e2b_box_progress_fn progress, e2b_box_done_fn done,
                             void *ud, e2b_error **err)
{
    if (!env->client) {
        *err = e2b_error_new(E2B_ERR_AUTH, "no API key (set E2B_API_KEY)");
        return NULL;
    }
    e2b_box_op *op = box_op_new(OP_TEST, env, progress, done, ud);
    if (!op || (test_command && *test_command && !(op->test_command = strdup(test_command)))) {
        if (op) {
            op->finished = 1;
            e2b_box_op_free(op);
        }
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    op->test_timeout_s = timeout_s > 0 ? timeout_s : E2B_DEFAULT_TEST_TIMEOUT_S;
    op->res.evidence.exit_code = -1;
    box_op_start(op, name, tr_resolved);
    return op;
}
