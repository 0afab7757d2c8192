/* pull: find the box -> open its project (the record's directory unless --dir says
 * otherwise; its base commit must be there) -> connect (a paused box is resumed with its own
 * lifetime and paused again at the end) -> run pull_script in the box (scratch commit and
 * bundle, nothing of the box's branch, index or work tree changes) -> download the bundle
 * straight into the importer -> create or fast-forward e2b/<name> -> remove the bundle.
 * Locally only refs/heads/e2b/<name> and new objects are written; HEAD, index and work tree
 * never change. No credential is sent to the box: the script gets names and ids only. */
#include "core/box/box_internal.h"
#include "core/git/bundle.h"
#include "core/git/pull_script.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The end of every pull (err owned, NULL = success): a box the pull resumed is paused
 * again first, so it is left as it was found. A failed re-pause is a note, not a failure. */
static void pull_repaused(void *ud, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)status;
    op->api_call = NULL;
    op->pending--;
    if (err && err->kind != E2B_ERR_CONFLICT && err->kind != E2B_ERR_CANCELLED) {
        char note[600];
        snprintf(note, sizeof note, "box %s was paused before the pull and could not be paused "
                                    "again: %s (e2b-tui --stop %s)",
                 op->res.name, e2b_error_message(err), op->res.name);
        free(op->res.note);
        op->res.note = strdup(note);
        op->res.resumed = 0; /* it runs now: the note says so */
    }
    e2b_error *e = op->pull_err;
    op->pull_err = NULL;
    box_op_finish(op, e);
}

static void pull_end(e2b_box_op *op, e2b_error *err)
{
    e2b_error *e = NULL;
    if (op->res.resumed && !op->pull_repausing && !op->cancelled && !op->finished) {
        op->pull_repausing = 1; /* once */
        op->pull_err = err;
        box_op_progress(op, "pausing the box again", 0, 0);
        op->api_call = e2b_api_pause(op->env.client, op->sb.sandbox_id, pull_repaused, op, &e);
        if (op->api_call) {
            op->pending++;
            return;
        }
        op->pull_err = NULL;
        e2b_error_free(e);
    }
    box_op_finish(op, err);
}

static void pull_fail(e2b_box_op *op, const e2b_error *err, const char *step)
{
    e2b_error *e = err ? e2b_error_copy(err) : e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    if (op->res.name && *op->res.name)
        e2b_error_set_action(e, "pulling box %s: %s", op->res.name, step);
    else
        e2b_error_set_action(e, "pulling: %s", step);
    pull_end(op, e);
}

/* pull_fail for a local step's error, which is freed. */
static void pull_fail_local(e2b_box_op *op, e2b_error *g, const char *step)
{
    pull_fail(op, g ? g : e2b_error_local(E2B_SUB_FAILED, "failed"), step);
    e2b_error_free(g);
}

static void pull_removed(void *ud, const json_t *reply, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)reply, (void)err; /* a left-over temp file in the box is harmless */
    op->http = NULL;
    op->pending--;
    pull_end(op, NULL);
}

static void pull_cleanup_box(e2b_box_op *op)
{
    e2b_error *e = NULL;
    json_t *req = json_pack("{s:s}", "path", op->bundle_path);
    box_op_progress(op, "cleaning up", 0, 0);
    op->http = e2b_envd_rpc(op->envd, "filesystem.Filesystem", "Remove", req, pull_removed, op, &e);
    json_decref(req);
    if (!op->http) {
        e2b_error_free(e);
        pull_end(op, NULL);
        return;
    }
    op->pending++;
}

static e2b_error *pull_write(void *ud, const char *data, size_t len)
{
    e2b_box_op *op = ud;
    if (op->cancelled)
        return e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    const e2b_error *e = e2b_bundle_import_write(op->bundle, data, len);
    if (e)
        return e2b_error_copy(e);
    op->res.bundle_bytes += len;
    box_op_progress(op, "downloading", (int64_t)op->res.bundle_bytes, (int64_t)op->tar_out);
    return NULL;
}

/* The import's heavy half, on a worker thread (box_op_work): the pack's index is written
 * and the history checked (git_indexer_commit, the connectivity walk), then e2b/<name>
 * moves. It touches only the importer and the repository. */
typedef struct {
    e2b_box_op *op;
    struct e2b_bundle_import *bundle;
    const char *branch;
    int force;
    e2b_gitwork_branch_outcome outcome;
    char oid[41];
} pull_import_work;

static e2b_error *pull_import_run(void *arg, const atomic_int *cancel)
{
    pull_import_work *w = arg;
    (void)cancel; /* the importer asks through its progress callback (pull_import_progress) */
    const e2b_error *e = e2b_bundle_import_finish_branch(w->bundle, E2B_PULL_SCRIPT_REF, w->branch,
                                                         w->force, &w->outcome, w->oid);
    return e ? e2b_error_copy(e) : NULL;
}

static void pull_imported(e2b_box_op *op, e2b_error *err)
{
    pull_import_work *w = op->work_arg;
    op->work_arg = NULL;
    if (err || op->cancelled) {
        pull_fail(op, err, "importing the bundle");
        e2b_error_free(err);
        free(w);
        return;
    }
    op->res.commit = strdup(w->oid);
    op->res.outcome = e2b_gitwork_branch_outcome_name(w->outcome);
    op->res.no_new_work = w->outcome == E2B_GITWORK_BRANCH_UP_TO_DATE;
    free(w);
    pull_cleanup_box(op);
}

/* The importer's progress: during the import's work, a cancel of the op stops it. */
static int pull_import_progress(const e2b_bundle_progress *p, void *ud)
{
    (void)p;
    return box_op_work_cancelled(ud);
}

static void pull_downloaded(void *ud, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->http = NULL;
    op->pending--;
    if (err || op->cancelled) {
        if (err && e2b_bundle_import_error(op->bundle))
            pull_fail(op, e2b_bundle_import_error(op->bundle), "importing the bundle");
        else
            pull_fail(op, err, "downloading the bundle");
        return;
    }
    box_op_progress(op, "importing", 0, 0);
    pull_import_work *w = calloc(1, sizeof *w);
    if (w) {
        *w = (pull_import_work){.op = op, .bundle = op->bundle, .branch = op->res.branch,
                                .force = op->pull.force};
        op->work_arg = w;
    }
    if (!w || box_op_work(op, pull_import_run, w, pull_imported) < 0) {
        free(w);
        op->work_arg = NULL;
        pull_fail_local(op, e2b_error_local(E2B_SUB_NOMEM, "cannot start a worker thread"),
                        "importing the bundle");
    }
}

static void pull_scripted(e2b_box_op *op, const e2b_error *err)
{
    e2b_pull_script_result r = {0};
    e2b_error *g = NULL;
    e2b_error *e = NULL;
    if (err || op->cancelled) {
        pull_fail(op, err, "committing the work in the box");
        return;
    }
    if ((g = e2b_pull_script_parse_output(op->out ? op->out : "", op->out_len, &r))) {
        e = op->proc_exit != 0 && !strstr(op->out ? op->out : "", "E2B-TUI-ERROR")
                ? box_op_process_error(op, "the pull script")
                : e2b_error_new(E2B_ERR_REMOTE, "%s", e2b_error_message(g));
        e2b_error_free(g);
        pull_fail(op, e, "committing the work in the box");
        e2b_error_free(e);
        return;
    }
    if (r.kind == E2B_PULL_SCRIPT_NOWORK) {
        op->res.commit = strdup(r.commit);
        op->res.no_new_work = 1;
        op->res.nothing_pulled = !op->pull_had_branch; /* no e2b/<name> was made */
        op->res.outcome = "no new work";
        pull_end(op, NULL);
        return;
    }
    op->bundle_path = r.path;
    op->tar_out = r.size; /* the bundle's size, for progress */
    const e2b_limits *lim = &op->env.cfg->limits;
    if (r.size > lim->bundle_bytes) { /* the box may lie: the importer counts bytes too */
        pull_fail_local(op,
                        e2b_error_local(E2B_SUB_BAD_BUNDLE,
                                        "the box's bundle is %llu MiB, more than %llu MiB "
                                        "(limit.bundle_bytes in the config); nothing was "
                                        "downloaded",
                                        (unsigned long long)(r.size >> 20),
                                        (unsigned long long)(lim->bundle_bytes >> 20)),
                        "importing the bundle");
        return;
    }
    if ((g = e2b_bundle_import_new(&op->bundle, op->git, pull_import_progress, op))) {
        pull_fail_local(op, g, "importing the bundle");
        return;
    }
    e2b_bundle_import_set_limits(op->bundle, lim);
    box_op_progress(op, "downloading", 0, (int64_t)r.size);
    op->http = e2b_envd_download(op->envd, op->bundle_path, pull_write, op, 0, pull_downloaded,
                                 op, &e);
    if (!op->http) {
        pull_fail(op, e, "downloading the bundle");
        e2b_error_free(e);
        return;
    }
    op->pending++;
}

static void pull_connected(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    e2b_error *e = NULL, *g = NULL;
    char *uname = NULL, *uemail = NULL;
    e2b_pull_script_var *vars = NULL;
    size_t nvars = 0;
    op->api_call = NULL;
    op->pending--;
    if (err || op->cancelled) {
        e2b_sandbox_free(sb);
        pull_fail(op, err, "connecting");
        return;
    }
    op->sb = *sb;
    free(sb);
    op->res.resumed = status == 201; /* paused before: paused again at the end */
    op->envd = e2b_envd_new(op->env.loop, op->env.cfg, &op->sb, NULL, &e);
    if (!op->envd) {
        pull_fail(op, e, "reaching envd");
        e2b_error_free(e);
        return;
    }
    e2b_error_free(e2b_gitwork_user(op->git, &uname, &uemail)); /* none: the script uses its own */
    const char *dir = op->rec.dir[0] ? op->rec.dir : e2b_gitwork_workdir(op->git);
    /* The local e2b/<name> tip: the box builds on it, so repeated pulls fast-forward. */
    char prev[GIT_OID_HEXSZ + 1] = "", refname[300];
    git_oid prev_oid;
    snprintf(refname, sizeof refname, "refs/heads/%s", op->res.branch);
    if (git_reference_name_to_id(&prev_oid, e2b_gitwork_repo(op->git), refname) == 0) {
        git_oid_tostr(prev, sizeof prev, &prev_oid);
        op->pull_had_branch = 1;
    }
    e2b_pull_script_params pp = {.dir = dir, .base = op->rec.base, .prev = prev,
                             .box_name = op->res.name, .user_name = uname, .user_email = uemail};
    g = e2b_pull_script_env(&pp, &vars, &nvars);
    free(uname);
    free(uemail);
    if (g) {
        pull_fail_local(op, g, "preparing the pull");
        return;
    }
    e2b_metadata env = {0};
    for (size_t i = 0; i < nvars; i++)
        e2b_metadata_set(&env, vars[i].name, vars[i].value);
    e2b_pull_script_env_free(vars, nvars);
    const char *args[] = {"-c", e2b_pull_script_text(), NULL};
    e2b_process_spec spec = {.cmd = "/bin/bash", .args = args, .envs = &env, .cwd = dir};
    box_op_progress(op, "committing the work in the box", 0, 0);
    box_op_run(op, op->envd, &spec, pull_scripted);
    e2b_metadata_clear(&env);
}

/* Opens the project the pull goes to: --dir when given, else the box's record's directory
 * (wherever the command runs), else the current directory (a box made on another machine).
 * Returns 0, or fails the op in words and returns -1. */
static int pull_open_project(e2b_box_op *op)
{
    e2b_error *g = NULL;
    const char *own = op->have_record && op->rec.dir && op->rec.dir[0] ? op->rec.dir : NULL;
    if (op->git)
        return 0; /* opened by pull_local: --dir, or the current branch's box */
    if (!(g = e2b_gitwork_open(&op->git, own ? own : ".", 0)))
        return 0;
    e2b_error *e = own ? e2b_error_local(E2B_SUB_NOT_REPO,
                                         "box %s belongs to %s, which is not a git project here "
                                         "any more (%s); use --dir PATH for where it is now",
                                         op->res.name, own, e2b_error_message(g))
                       : e2b_error_local(E2B_SUB_NOT_REPO,
                                         "box %s was made on another machine and this directory "
                                         "is not a git project; run the pull in a clone of its "
                                         "project or give --dir PATH",
                                         op->res.name);
    e2b_error_free(g);
    pull_fail_local(op, e, "opening the git project");
    return -1;
}

/* The box's base commit must be in the project the pull goes to (the bundle builds on it):
 * otherwise it is another project, told before anything is asked of the box. */
static int pull_check_base(e2b_box_op *op)
{
    git_oid oid;
    git_odb *odb = NULL;
    const char *base = op->rec.base;
    int here = 1;
    if (!base || strlen(base) != GIT_OID_HEXSZ || git_oid_fromstr(&oid, base) != 0)
        return 0; /* unborn, or not known: the import checks what it gets */
    if (git_repository_odb(&odb, e2b_gitwork_repo(op->git)) == 0) {
        here = git_odb_exists(odb, &oid);
        git_odb_free(odb);
    }
    if (here)
        return 0;
    const char *own = op->have_record && op->rec.dir && op->rec.dir[0] ? op->rec.dir : NULL;
    e2b_error *e =
        own ? e2b_error_local(E2B_SUB_MISSING_BASE,
                              "box %s belongs to %s, not to %s (its base commit %.12s is not "
                              "there); use --dir %s",
                              op->res.name, own, e2b_gitwork_workdir(op->git), base, own)
            : e2b_error_local(E2B_SUB_MISSING_BASE,
                              "box %s was made from another project: its base commit %.12s is "
                              "not in %s; use --dir with a clone of its project",
                              op->res.name, base, e2b_gitwork_workdir(op->git));
    pull_fail_local(op, e, "opening the git project");
    return -1;
}

static void pull_resolved(e2b_box_op *op, const e2b_error *err)
{
    e2b_error *e = NULL;
    if (err) {
        pull_fail(op, err, "finding the box");
        return;
    }
    if (pull_open_project(op) != 0 || pull_check_base(op) != 0)
        return;
    free(op->res.dir);
    op->res.dir = strdup(e2b_gitwork_workdir(op->git));
    char branch[300];
    /* a member of a group of attempts comes home as the group's one branch: the pick */
    snprintf(branch, sizeof branch, "e2b/%s", op->rec.group[0] ? op->rec.group : op->res.name);
    op->res.branch = strdup(branch);
    box_op_progress(op, "connecting", 0, 0);
    /* A paused box is resumed with its own lifetime (paused again at the end), not the
     * API's few-minute default. */
    op->api_call = e2b_api_connect(op->env.client, op->rec.sandbox_id, box_op_lifetime_s(op),
                                   pull_connected, op, &e);
    if (!op->api_call) {
        pull_fail(op, e, "connecting");
        e2b_error_free(e);
        return;
    }
    op->pending++;
}

/* The box: the name given, else a record made from this work tree and branch, else the
 * branch's default name. With a name and no --dir nothing local is opened yet: the pull
 * goes to the box's own project (pull_open_project). */
static void pull_local(e2b_box_op *op, const e2b_error *unused)
{
    e2b_error *g = NULL;
    e2b_gitwork_head head;
    char name[E2B_GITWORK_BOX_NAME_MAX + 8];
    (void)unused;
    if (op->pull.dir || !op->pull.name) {
        if ((g = e2b_gitwork_open(&op->git, op->pull.dir ? op->pull.dir : ".", 0))) {
            if (!op->pull.dir) {
                e2b_error_free(g);
                g = e2b_error_local(E2B_SUB_NOT_REPO,
                                    "this directory is not a git project: name the box "
                                    "(e2b-tui --pull NAME) or give --dir PATH");
            }
            pull_fail_local(op, g, "opening the git project");
            return;
        }
    }
    if (op->pull.name) {
        snprintf(name, sizeof name, "%s", op->pull.name);
    } else {
        if ((g = e2b_gitwork_head_info(op->git, &head))) {
            pull_fail_local(op, g, "opening the git project");
            return;
        }
        e2b_box_record_list list = {0};
        e2b_error *e = e2b_box_record_list_read(op->env.cfg->records_dir, &list, NULL);
        const e2b_box_record *found = NULL;
        for (size_t i = 0; !e && i < list.count; i++)
            if (strcmp(list.items[i].dir, e2b_gitwork_workdir(op->git)) == 0 &&
                strcmp(list.items[i].branch, head.branch) == 0)
                found = &list.items[i];
        if (found)
            snprintf(name, sizeof name, "%s", found->name);
        else
            e2b_gitwork_default_box_name(&head, name, sizeof name);
        e2b_box_record_list_clear(&list);
        e2b_error_free(e);
    }
    free(op->res.name);
    op->res.name = strdup(name);
    if (!e2b_gitwork_box_name_valid(name)) {
        e2b_error *e = e2b_error_new(E2B_ERR_INVALID,
                                     "'%s' is not a valid box name (letters, digits, '.', '_', "
                                     "'-')", name);
        pull_fail(op, e, "finding the box");
        e2b_error_free(e);
        return;
    }
    box_op_resolve(op, name, pull_resolved);
}

e2b_box_op *e2b_box_pull(const e2b_box_env *env, const e2b_box_pull_params *p,
                         e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                         e2b_error **err)
{
    e2b_box_op *op = box_op_new(OP_PULL, env, progress, done, ud);
    if (!op) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    op->pull = *p;
    op->pull.dir = box_strdup(p->dir);
    op->pull.name = box_strdup(p->name);
    op->res.name = box_strdup(p->name); /* every message names the box when it is known */
    box_op_start(op, NULL, pull_local);
    return op;
}
