/* The kill's check for unpulled work: find the box -> the last pulled commit (the local
 * e2b/<name> tip, on a worker thread) -> the sandbox's state (a paused box is not resumed:
 * unknown) -> the changes script's summary in the box (commits and changed files with the
 * blob ids of their contents, against that commit or the base) -> each changed file looked
 * up in the local work tree (worker thread) -> the answer. One deadline covers it all. */
#include "core/box/box_internal.h"
#include "core/git/changes_script.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    UNPULLED_TIMEOUT_MS = 30000,
    UNPULLED_MAX_FILES = 1000,          /* changed files looked at */
    UNPULLED_OUTPUT_CAP = 200 * 1024,   /* what the script may print (box_op_run keeps 256 KiB) */
};
#define UNPULLED_HASH_MAX (256ULL << 20) /* a larger local file is not hashed: not a match */

__attribute__((format(printf, 3, 4))) static void un_end(e2b_box_op *op, e2b_unpulled_state st,
                                                          const char *fmt, ...)
{
    e2b_unpulled *u = &op->res.unpulled;
    u->state = st;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        box_op_why(u->why, sizeof u->why, fmt, ap);
        va_end(ap);
    }
    box_op_finish(op, NULL); /* it cancels the deadline */
}

/* The first words of every step after a call: true when the op ended (timed out: unknown;
 * cancelled by its owner: done gets the cancel). */
static int un_stopped(e2b_box_op *op)
{
    if (op->unpulled_timed_out) {
        un_end(op, E2B_UNPULLED_UNKNOWN, "no answer from the box within %ld s: unpulled work "
                                         "unknown", op->unpulled_timeout_ms / 1000);
        return 1;
    }
    if (!op->cancelled)
        return 0;
    box_op_finish(op, e2b_error_new(E2B_ERR_CANCELLED, "cancelled"));
    return 1;
}

static void un_deadline(void *ud)
{
    e2b_box_op *op = ud;
    op->unpulled_timer = 0;
    op->pending--;
    op->unpulled_timed_out = 1;
    e2b_box_op_cancel(op); /* the call in flight comes back cancelled: un_stopped */
}

/* ---- the local work tree ---- */

static e2b_error *un_match_run(void *arg, const atomic_int *cancel)
{
    e2b_box_op *op = arg;
    e2b_unpulled *u = &op->res.unpulled;
    const e2b_changes_summary *s = op->summary;
    for (size_t i = 0; i < s->count && !atomic_load(cancel); i++) {
        const e2b_changes_summary_file *f = &s->files[i];
        /* A deletion has no blob; any other file without one (a submodule, an unreadable
         * file) cannot be matched. */
        int gone = f->status == 'D' && !f->blob[0];
        if ((gone || f->blob[0]) &&
            e2b_gitwork_file_matches(op->git, f->raw, gone ? NULL : f->blob, UNPULLED_HASH_MAX))
            u->here++;
        else
            u->files++;
    }
    return NULL;
}

static void un_tally(e2b_box_op *op)
{
    e2b_unpulled *u = &op->res.unpulled;
    int work = u->files > 0 || u->files_more || u->commits > 0;
    un_end(op, work ? E2B_UNPULLED_WORK : E2B_UNPULLED_NONE, NULL);
}

static void un_matched(e2b_box_op *op, e2b_error *err)
{
    e2b_error_free(err);
    if (un_stopped(op))
        return;
    un_tally(op);
}

/* ---- the box ---- */

static void un_scripted(e2b_box_op *op, const e2b_error *err)
{
    if (un_stopped(op))
        return;
    if (err) {
        un_end(op, E2B_UNPULLED_UNKNOWN, "cannot run git in the box (%s): unpulled work unknown",
               e2b_error_message(err));
        return;
    }
    e2b_changes_summary *s = calloc(1, sizeof *s);
    if (!s) {
        un_end(op, E2B_UNPULLED_UNKNOWN, "out of memory: unpulled work unknown");
        return;
    }
    op->summary = s;
    e2b_error *e = e2b_changes_parse_summary(op->out ? op->out : "", op->out_len,
                                         UNPULLED_MAX_FILES, s);
    if (e) {
        e2b_error *pe = op->proc_exit > 0 && !op->out_len
                            ? box_op_process_error(op, "the changes script")
                            : NULL;
        un_end(op, E2B_UNPULLED_UNKNOWN, "%s: unpulled work unknown",
               e2b_error_message(pe ? pe : e));
        e2b_error_free(pe);
        e2b_error_free(e);
        return;
    }
    e2b_unpulled *u = &op->res.unpulled;
    u->pulled = strcmp(s->against, "pulled") == 0;
    u->commits = s->commits;
    u->files_more = s->cut;
    if (s->count == 0) {
        un_tally(op);
        return;
    }
    if (!op->git) { /* the project is not here: nothing can match */
        u->files = (long)s->count;
        un_tally(op);
        return;
    }
    box_op_progress(op, "comparing with the work tree", 0, 0);
    if (box_op_work(op, un_match_run, op, un_matched) < 0) {
        u->files = (long)s->count;
        un_tally(op);
    }
}

static void un_got_sandbox(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)status;
    op->api_call = NULL;
    op->pending--;
    if (un_stopped(op)) {
        e2b_sandbox_free(sb);
        return;
    }
    if (err && err->kind == E2B_ERR_NOT_FOUND) {
        e2b_sandbox_free(sb);
        un_end(op, E2B_UNPULLED_NONE, "its sandbox is gone: nothing is left to pull");
        return;
    }
    if (err && (err->kind == E2B_ERR_AUTH || err->kind == E2B_ERR_FORBIDDEN))
        op->res.unpulled.found = 0; /* the kill is refused the same way and says so */
    if (err || !sb) {
        e2b_sandbox_free(sb);
        un_end(op, E2B_UNPULLED_UNKNOWN, "cannot reach E2B (%s): unpulled work unknown",
               err ? e2b_error_message(err) : "no reply");
        return;
    }
    if (sb->state != E2B_STATE_RUNNING) {
        /* Resuming it only to look would change it (and its lifetime): not done. */
        un_end(op, E2B_UNPULLED_UNKNOWN, "%s: unpulled work unknown",
               e2b_sandbox_state_name(sb->state));
        e2b_sandbox_free(sb);
        return;
    }
    op->sb = *sb;
    free(sb);
    e2b_error *e = NULL;
    op->envd = e2b_envd_new(op->env.loop, op->env.cfg, &op->sb, NULL, &e);
    if (!op->envd) {
        un_end(op, E2B_UNPULLED_UNKNOWN, "cannot reach envd (%s): unpulled work unknown",
               e ? e2b_error_message(e) : "out of memory");
        e2b_error_free(e);
        return;
    }
    char cap[32], maxf[32];
    snprintf(cap, sizeof cap, "%d", UNPULLED_OUTPUT_CAP);
    snprintf(maxf, sizeof maxf, "%d", UNPULLED_MAX_FILES + 1); /* one more says "cut" */
    e2b_metadata env = {0};
    e2b_metadata_set(&env, "E2B_TUI_DIR", op->rec.dir);
    e2b_metadata_set(&env, "E2B_TUI_BASE", op->rec.base ? op->rec.base : "");
    e2b_metadata_set(&env, "E2B_TUI_PREV", op->commit);
    e2b_metadata_set(&env, "E2B_TUI_MODE", "summary");
    e2b_metadata_set(&env, "E2B_TUI_CAP", cap);
    e2b_metadata_set(&env, "E2B_TUI_MAXFILES", maxf);
    const char *args[] = {"-c", e2b_changes_script_text(), NULL};
    long left = (long)(op->started_ms + op->unpulled_timeout_ms - e2b_now_ms());
    e2b_process_spec spec = {.cmd = "/bin/bash", .args = args, .envs = &env,
                             /* the deadline ends it first (unknown, not a cut list) */
                             .timeout_ms = (left > 1000 ? left : 1000) + 2000};
    box_op_progress(op, "looking at the box's git", 0, 0);
    box_op_run(op, op->envd, &spec, un_scripted);
    e2b_metadata_clear(&env);
}

/* ---- this machine ---- */

/* On the worker: the project (for the file comparison) and the e2b/<name> tip. A project
 * that cannot be opened leaves op->git NULL: the base is compared and nothing matches. */
static e2b_error *un_local_run(void *arg, const atomic_int *cancel)
{
    e2b_box_op *op = arg;
    char branch[300];
    (void)cancel;
    op->commit[0] = '\0';
    e2b_error *g = e2b_gitwork_open(&op->git, op->rec.dir, 0);
    if (g) {
        e2b_error_free(g);
        op->git = NULL;
        return NULL;
    }
    /* a group member's pull goes to the group's branch (box_pull.c) */
    snprintf(branch, sizeof branch, "e2b/%s", op->rec.group[0] ? op->rec.group : op->res.name);
    if ((g = e2b_gitwork_branch_tip(op->git, branch, op->commit)))
        op->commit[0] = '\0';
    e2b_error_free(g);
    return NULL;
}

static void un_local_done(e2b_box_op *op, e2b_error *err)
{
    e2b_error *e = NULL;
    e2b_error_free(err);
    if (un_stopped(op))
        return;
    if (!op->env.client) {
        un_end(op, E2B_UNPULLED_UNKNOWN, "no API key: unpulled work unknown");
        return;
    }
    box_op_progress(op, "asking E2B for the sandbox", 0, 0);
    op->api_call = e2b_api_get(op->env.client, op->res.sandbox_id, un_got_sandbox, op, &e);
    if (!op->api_call) {
        un_end(op, E2B_UNPULLED_UNKNOWN, "%s: unpulled work unknown",
               e ? e2b_error_message(e) : "no request");
        e2b_error_free(e);
        return;
    }
    op->pending++;
}

static void un_resolved(e2b_box_op *op, const e2b_error *err)
{
    if (un_stopped(op))
        return;
    if (err) {
        un_end(op, E2B_UNPULLED_UNKNOWN, "%s", e2b_error_message(err));
        return;
    }
    op->res.unpulled.found = 1;
    if (!op->have_record || !op->rec.dir || op->rec.dir[0] != '/') {
        un_end(op, E2B_UNPULLED_UNKNOWN,
               "no record of its sandbox on this machine: unpulled work unknown");
        return;
    }
    box_op_progress(op, "reading the last pull", 0, 0);
    if (box_op_work(op, un_local_run, op, un_local_done) < 0)
        un_local_done(op, NULL); /* no thread: compared with the base, nothing matches */
}

e2b_box_op *e2b_box_unpulled(const e2b_box_env *env, const char *name, long timeout_ms,
                             e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                             e2b_error **err)
{
    e2b_box_op *op = box_op_new(OP_UNPULLED, env, progress, done, ud);
    if (!op) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    op->res.unpulled.commits = -1;
    /* 30 s, or less when API requests may take less (http_timeout): a look never holds
     * the kill up longer than one of its requests could. */
    long dflt = UNPULLED_TIMEOUT_MS;
    if (env->cfg->http_timeout_s > 0 && env->cfg->http_timeout_s * 1000L < dflt)
        dflt = env->cfg->http_timeout_s * 1000L;
    op->unpulled_timeout_ms = timeout_ms > 0 ? timeout_ms : dflt;
    op->unpulled_timer = e2b_loop_timer_add(env->loop, op->unpulled_timeout_ms, un_deadline, op);
    if (op->unpulled_timer)
        op->pending++;
    box_op_start(op, name, un_resolved);
    return op;
}

void e2b_box_unpulled_text(const char *name, const e2b_unpulled *u, char *buf, size_t n)
{
    switch (u->state) {
    case E2B_UNPULLED_UNKNOWN: snprintf(buf, n, "%s: %s", name, u->why); return;
    case E2B_UNPULLED_NONE:
        if (u->why[0])
            snprintf(buf, n, "%s: %s", name, u->why);
        else if (u->pulled)
            snprintf(buf, n, "no unpulled work in %s: all of it is in e2b/%s", name, name);
        else if (u->here)
            snprintf(buf, n, "no unpulled work in %s: its changes are those of your work tree",
                     name);
        else
            snprintf(buf, n, "no unpulled work in %s", name);
        return;
    case E2B_UNPULLED_WORK: break;
    }
    char files[64] = "", commits[48] = "";
    if (u->files_more)
        snprintf(files, sizeof files, "more than %ld files changed", u->files + u->here);
    else if (u->files > 0)
        snprintf(files, sizeof files, "%ld file%s changed", u->files, u->files == 1 ? "" : "s");
    if (u->commits > 0)
        snprintf(commits, sizeof commits, "%ld commit%s", u->commits, u->commits == 1 ? "" : "s");
    snprintf(buf, n, "%s has unpulled work: %s%s%s%s", name, files, *files && *commits ? ", " : "",
             commits, u->pulled ? " since the last pull" : "");
}
