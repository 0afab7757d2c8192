/* The machinery shared by the box step machines: op lifecycle, keystore jobs brought back
 * onto the loop, process runs, name resolution. The server's start and health: box_server.c. */
#include "core/box/box_internal.h"
#include "core/git/bundle.h"
#include "core/git/changes_script.h"
#include "core/net/http.h"
#include "core/util/log.h"
#include "core/util/sanitize.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUTPUT_MAX (256 * 1024)

char *box_strdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

e2b_box_op *box_op_new(op_kind kind, const e2b_box_env *env, e2b_box_progress_fn progress,
                       e2b_box_done_fn done, void *ud)
{
    e2b_box_op *op = calloc(1, sizeof *op);
    if (!op)
        return NULL;
    op->kind = kind;
    op->env = *env;
    /* Copied: a detached op outlives its caller's strings. */
    op->env.sandbox_id = NULL;
    if (env->sandbox_id && !(op->expect_id = strdup(env->sandbox_id))) {
        free(op);
        return NULL;
    }
    op->env.sandbox_id = op->expect_id;
    op->progress = progress;
    op->done = done;
    op->ud = ud;
    op->started_ms = e2b_now_ms();
    op->journal.fd = -1;
    return op;
}

static const char *op_kind_name(op_kind k)
{
    return k == OP_UP ? "up" : k == OP_ATTACH ? "attach" : k == OP_STOP ? "stop"
         : k == OP_KILL ? "kill" : k == OP_PULL ? "pull" : k == OP_SNAPSHOT ? "snapshot"
         : k == OP_FORK ? "fork" : k == OP_PORTS ? "ports" : k == OP_GET ? "get"
         : "unpulled-check";
}

void box_op_progress(e2b_box_op *op, const char *step, int64_t done, int64_t total)
{
    /* One log line per step change: with the request lines they show where the time goes. */
    if (strncmp(op->logged_step, step, sizeof op->logged_step - 1) != 0) {
        snprintf(op->logged_step, sizeof op->logged_step, "%s", step);
        e2b_logf("box %s %s: %s", op_kind_name(op->kind), op->res.name ? op->res.name : "-",
                 step);
    }
    if (op->progress && !op->detached)
        op->progress(op->ud, step, done, total);
}

static void op_release(e2b_box_op *op)
{
    e2b_up_journal_release(&op->journal); /* not settled: the next start sweeps it */
    free(op->expect_id);
    op->expect_id = NULL;
    free(op->record_elsewhere);
    op->record_elsewhere = NULL;
    op->env.sandbox_id = NULL;
    e2b_envd_free(op->envd);
    e2b_envd_free(op->envd_root);
    if (op->tar)
        e2b_tarball_free(op->tar);
    if (op->tar_plain)
        e2b_tarball_free(op->tar_plain);
    if (op->bundle) /* before the repository it writes into */
        e2b_bundle_import_free(op->bundle);
    if (op->git)
        e2b_gitwork_close(op->git);
    e2b_secret_list_clear(&op->secrets);
    e2b_sandbox_list_clear(&op->orphans);
    e2b_sandbox_clear(&op->sb);
    e2b_box_record_clear(&op->rec);
    free(op->up_name);
    free(op->up_dir);
    free(op->up_template);
    free(op->up_allow_out);
    free(op->up_deny_out);
    free(op->health_url);
    e2b_error_free(op->srv.err);
    e2b_error_free(op->upj.server_err);
    e2b_error_free(op->upj.files_err);
    e2b_error_free(op->pull_err);
    e2b_error_free(op->loc.finish_err);
    box_up_extract_clear(op);
    free(op->out);
    free(op->errout);
    free(op->bundle_path);
    free(op->start_name);
    free((char *)op->pull.dir);
    free((char *)op->pull.name);
    e2b_error_free(op->error);
    e2b_box_result *r = &op->res;
    free(r->name);
    free(r->sandbox_id);
    free(r->note);
    free(r->url);
    free(r->dir);
    if (r->password) {
        explicit_bzero(r->password, strlen(r->password));
        free(r->password);
    }
    if (r->traffic_token) {
        explicit_bzero(r->traffic_token, strlen(r->traffic_token));
        free(r->traffic_token);
    }
    free(r->branch);
    free(r->commit);
    free(r->snapshot_id);
    free(r->prepared_as);
    for (size_t i = 0; i < r->nforks; i++)
        free(r->forks[i]);
    free(r->forks);
    free(r->fork_failures);
    if (op->summary) {
        e2b_changes_summary_clear(op->summary);
        free(op->summary);
    }
    free(op->snap_as);
    free(op->test_command);
    free(op->up_src.note);
    free(op->up_src.snapshot_id);
    free(op->prep.command);
    if (op->fork && op->fork_free)
        op->fork_free(op->fork);
    if (op->get && op->get_free)
        op->get_free(op->get);
    explicit_bzero(op->password, sizeof op->password);
    free(op);
}

void box_op_finish(e2b_box_op *op, e2b_error *err)
{
    if (op->finished) {
        e2b_error_free(err);
        return;
    }
    op->finished = 1;
    op->error = err;
    if (op->unpulled_timer) { /* the unpulled check's deadline */
        e2b_loop_timer_cancel(op->env.loop, op->unpulled_timer);
        op->unpulled_timer = 0;
        op->pending--;
    }
    e2b_logf("box %s %s: %s after %lld ms", op_kind_name(op->kind),
             op->res.name ? op->res.name : "-", err ? "failed" : "done",
             (long long)(e2b_now_ms() - op->started_ms));
    if (op->detached) {
        op_release(op);
        return;
    }
    if (op->done)
        op->done(op->ud, op, err);
}

void e2b_box_op_cancel(e2b_box_op *op)
{
    if (!op || op->finished || op->cancelled)
        return;
    op->cancelled = 1;
    box_op_work_cancel(op); /* a worker stops at its next check; its then sees cancelled */
    /* The call's callback comes back with E2B_ERR_CANCELLED and runs the failure path. */
    if (op->api_call)
        e2b_api_cancel(op->api_call);
    if (op->http)
        e2b_http_cancel(op->http);
    box_server_cancel(op);
    box_up_extract_cancel(op);
    box_oc_probe_cancel(op);
}

const e2b_box_result *e2b_box_op_result(const e2b_box_op *op)
{
    return &op->res;
}

e2b_error *e2b_box_op_wait(e2b_box_op *op)
{
    e2b_wait(op->env.loop, &op->finished);
    return op->error ? e2b_error_copy(op->error) : NULL;
}

void e2b_box_op_free(e2b_box_op *op)
{
    if (!op)
        return;
    if (op->finished) {
        op_release(op);
        return;
    }
    op->detached = 1; /* it cleans up what it made, then frees itself */
    e2b_box_op_cancel(op);
}

/* ---- keystore jobs ---- */

static void job_on_loop(void *ud)
{
    e2b_box_op *op = ud;
    box_job_fn then = op->job_then;
    op->pending--;
    then(op);
}

/* From the job's worker thread. A slot post cannot fail: the op waits for this call
 * (pending), so a lost wake-up would leave it waiting forever. */
static void job_wake(void *ctx)
{
    e2b_box_op *op = ctx;
    e2b_loop_post_slot(op->env.loop, &op->wake_slot, job_on_loop, op);
}

static int job_started(e2b_box_op *op, ks_job *job, ks_error *kerr, box_job_fn then)
{
    if (!job) {
        box_op_finish(op, e2b_keystore_error(kerr));
        return -1;
    }
    op->job = job;
    op->pending++;
    op->job_then = then;
    return 0;
}

int box_op_job_put(e2b_box_op *op, box_job_fn then)
{
    ks_error kerr = {0};
    ks_job *j = keystore_job_put(op->env.ks, op->rec.name, op->rec.sandbox_id, op->password, 0,
                                 job_wake, op, &kerr);
    return job_started(op, j, &kerr, then);
}

int box_op_job_get(e2b_box_op *op, box_job_fn then)
{
    ks_error kerr = {0};
    ks_job *j = keystore_job_get(op->env.ks, op->rec.name, op->rec.sandbox_id, 0, job_wake, op,
                                 &kerr);
    return job_started(op, j, &kerr, then);
}

int box_op_job_delete(e2b_box_op *op, box_job_fn then)
{
    ks_error kerr = {0};
    ks_job *j = keystore_job_delete(op->env.ks, op->rec.name, op->rec.sandbox_id, 0, job_wake,
                                    op, &kerr);
    return job_started(op, j, &kerr, then);
}

ks_code box_op_job_result(e2b_box_op *op, ks_error *kerr)
{
    char *pw = NULL;
    ks_code c = keystore_job_result(op->job, kerr, &pw, NULL, NULL);
    if (c == KS_OK && pw) {
        snprintf(op->password, sizeof op->password, "%s", pw);
        keystore_password_free(pw);
    }
    keystore_job_free(op->job);
    op->job = NULL;
    return c;
}

/* ---- process runs ---- */


static void append(char **buf, size_t *len, const uint8_t *data, size_t n)
{
    if (*len >= OUTPUT_MAX)
        return;
    if (n > OUTPUT_MAX - *len)
        n = OUTPUT_MAX - *len;
    char *nb = realloc(*buf, *len + n + 1);
    if (!nb)
        return;
    memcpy(nb + *len, data, n);
    *len += n;
    nb[*len] = '\0';
    *buf = nb;
}

static int run_on_event(void *ud, const e2b_process_event *ev)
{
    e2b_box_op *op = ud;
    switch (ev->type) {
    case E2B_PROC_START: op->proc_started = 1; break;
    case E2B_PROC_STDOUT:
        append(&op->out, &op->out_len, ev->data, ev->len);
        if (op->out_watch)
            op->out_watch(op);
        break;
    case E2B_PROC_STDERR: append(&op->errout, &op->err_len, ev->data, ev->len); break;
    case E2B_PROC_END:
        op->proc_ended = 1;
        op->proc_exit = ev->exit_code;
        break;
    default: break;
    }
    return 0;
}

static void run_done(void *ud, const e2b_error *err)
{
    e2b_box_op *op = ud;
    box_step_fn then = op->step_then;
    op->http = NULL;
    op->pending--;
    if (!err && !op->proc_ended) {
        e2b_error *e = e2b_error_new(E2B_ERR_PROTOCOL, "the process stream ended without an exit");
        then(op, e);
        e2b_error_free(e);
        return;
    }
    then(op, err);
}

int box_op_run(e2b_box_op *op, e2b_envd *ev, const e2b_process_spec *spec, box_step_fn then)
{
    return box_op_run_watch(op, ev, spec, NULL, then);
}

int box_op_run_watch(e2b_box_op *op, e2b_envd *ev, const e2b_process_spec *spec,
                     void (*watch)(e2b_box_op *op), box_step_fn then)
{
    e2b_error *err = NULL;
    op->out_watch = watch;
    free(op->out);
    free(op->errout);
    op->out = op->errout = NULL;
    op->out_len = op->err_len = 0;
    op->proc_exit = -1;
    op->proc_started = op->proc_ended = 0;
    op->step_then = then;
    op->http = e2b_envd_process_start(ev, spec, run_on_event, run_done, op, &err);
    if (!op->http) {
        then(op, err);
        e2b_error_free(err);
        return -1;
    }
    op->pending++;
    return 0;
}

e2b_error *box_op_process_error(e2b_box_op *op, const char *what)
{
    const char *text = op->err_len ? op->errout : op->out_len ? op->out : "";
    /* the last non-empty line says most */
    char line[300] = "";
    const char *end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
        end--;
    const char *start = end;
    while (start > text && start[-1] != '\n')
        start--;
    size_t n = (size_t)(end - start) < sizeof line - 1 ? (size_t)(end - start) : sizeof line - 1;
    memcpy(line, start, n);
    line[n] = '\0';
    for (char *p = line; *p; p++)
        if ((unsigned char)*p < ' ')
            *p = ' ';
    return e2b_error_new(E2B_ERR_REMOTE, "%s failed in the box (exit %d)%s%s", what,
                         op->proc_exit, *line ? ": " : "", line);
}

char *box_op_output_tail(const char *status_line)
{
    const char *tail = status_line ? strchr(status_line, '\n') : NULL;
    tail = tail ? tail + 1 : "";
    size_t n = strlen(tail);
    if (n > 8192)
        tail += n - 8192, n = 8192;
    return e2b_sanitize_display(tail, n, E2B_SANITIZE_KEEP_NEWLINES);
}

/* ---- resolving a name ---- */


/* The ids of the box sandboxes named name in list, ", "-separated, into buf; returns how many. */
static size_t named_boxes(const e2b_sandbox_list *list, const char *name, const char *also,
                          char *buf, size_t bufsz)
{
    size_t n = 0, used = 0;
    buf[0] = '\0';
    if (also && *also) {
        used += (size_t)snprintf(buf, bufsz, "%s", also);
        n++;
    }
    for (size_t i = 0; i < list->count; i++) {
        const e2b_sandbox *sb = &list->items[i];
        if (sb->kind != E2B_KIND_BOX || !sb->box_name || strcmp(sb->box_name, name) != 0)
            continue;
        if (also && strcmp(sb->sandbox_id, also) == 0)
            continue;
        if (used < bufsz)
            used += (size_t)snprintf(buf + used, bufsz - used, "%s%s", n ? ", " : "",
                                     sb->sandbox_id);
        n++;
    }
    return n;
}

static void resolve_listed(void *ud, e2b_sandbox_list *list, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->api_call = NULL;
    op->pending--;
    if (err) {
        op->step_then(op, err);
        return;
    }
    const e2b_sandbox *found = NULL;
    size_t matches = 0;
    for (size_t i = 0; i < list->count; i++) {
        const e2b_sandbox *sb = &list->items[i];
        if (sb->kind != E2B_KIND_BOX || !sb->box_name || strcmp(sb->box_name, op->res.name) != 0)
            continue;
        matches++;
        /* The caller chose a sandbox (a dashboard row): that one, whatever else has the name. */
        if (!op->expect_id || strcmp(sb->sandbox_id, op->expect_id) == 0)
            found = sb;
    }
    e2b_error *e = NULL;
    char ids[600];
    if (op->expect_id && !found)
        e = e2b_error_new(E2B_ERR_NOT_FOUND, "sandbox %s is not box %s (any more)",
                          op->expect_id, op->res.name);
    else if (!found)
        e = e2b_error_new(E2B_ERR_NOT_FOUND, "no box named %s", op->res.name);
    else if (!op->expect_id && matches > 1 && named_boxes(list, op->res.name, NULL, ids, sizeof ids))
        e = e2b_error_new(E2B_ERR_CONFLICT,
                          "%zu sandboxes are box %s (%s): nothing was done; act on one by its id "
                          "in the dashboard",
                          matches, op->res.name, ids);
    if (e) {
        e2b_sandbox_list_free(list);
        op->step_then(op, e);
        e2b_error_free(e);
        return;
    }
    op->rec.name = strdup(op->res.name);
    op->rec.sandbox_id = strdup(found->sandbox_id);
    op->rec.template_id = box_strdup(found->template_id ? found->template_id : "");
    op->rec.branch = box_strdup(found->box_branch ? found->box_branch : "");
    op->rec.base = box_strdup(found->box_base ? found->box_base : "");
    op->rec.dir = strdup("");
    op->rec.port = E2B_BOX_PORT;
    op->rec.hours = e2b_box_hours(found, op->env.cfg);
    op->have_record = 0;
    op->res.sandbox_id = strdup(found->sandbox_id);
    e2b_sandbox_list_free(list);
    op->step_then(op, NULL);
}

/* Lists the box sandboxes named op->res.name (metadata filter); fn gets the list. */
static int list_named(e2b_box_op *op, e2b_api_list_fn fn, e2b_error **err)
{
    e2b_metadata md = {0};
    e2b_metadata_set(&md, E2B_META_APP, E2B_META_APP_BOX);
    e2b_metadata_set(&md, E2B_META_NAME, op->res.name);
    e2b_list_query q = {.metadata = &md, .workspace_keys = op->env.cfg->workspace_keys};
    op->api_call = e2b_api_list(op->env.client, &q, fn, op, err);
    e2b_metadata_clear(&md);
    if (!op->api_call)
        return -1;
    op->pending++;
    return 0;
}

long box_op_lifetime_s(const e2b_box_op *op)
{
    int h = op->rec.hours >= 1 && op->rec.hours <= 24 ? op->rec.hours : op->env.cfg->hours;
    return (long)(h > 0 ? h : 1) * 3600;
}

int box_op_resolve(e2b_box_op *op, const char *name, box_step_fn then)
{
    e2b_error *err;
    op->step_then = then;
    free(op->res.name);
    op->res.name = strdup(name);
    err = e2b_box_record_read(op->env.cfg->records_dir, name, &op->rec);
    if (!err && op->expect_id && strcmp(op->rec.sandbox_id, op->expect_id) != 0) {
        /* The record of that name points at another sandbox than the one chosen: it is not
         * this sandbox's (its password neither); look the chosen one up instead. */
        e2b_logf("box %s: the local record points at %s, not at %s: not used", name,
                 op->rec.sandbox_id, op->expect_id);
        op->record_elsewhere = strdup(op->rec.sandbox_id);
        e2b_box_record_clear(&op->rec);
        err = e2b_error_new(E2B_ERR_NOT_FOUND, "record not used");
        /* A fork carries its parent's name in its metadata (E2B copies it): the record
         * that points at the chosen sandbox is the box (NAME-2, ...). */
        e2b_box_record_list all = {0};
        e2b_error *lerr = e2b_box_record_list_read(op->env.cfg->records_dir, &all, NULL);
        const e2b_box_record *mine = lerr ? NULL : e2b_box_record_list_find_sandbox(&all, op->expect_id);
        if (mine) {
            e2b_box_record *r = (e2b_box_record *)mine;
            op->rec = *r;
            memset(r, 0, sizeof *r);
            free(op->res.name);
            op->res.name = strdup(op->rec.name);
            free(op->record_elsewhere);
            op->record_elsewhere = NULL;
            e2b_error_free(err);
            err = NULL;
        }
        e2b_error_free(lerr);
        e2b_box_record_list_clear(&all);
    }
    if (!err) {
        op->have_record = 1;
        op->res.sandbox_id = strdup(op->rec.sandbox_id);
        then(op, NULL);
        return 0;
    }
    if (err->kind != E2B_ERR_NOT_FOUND) {
        then(op, err);
        e2b_error_free(err);
        return -1;
    }
    e2b_error_free(err);
    err = NULL;
    /* Not made here: look for a box sandbox of that name (made on another machine). */
    box_op_progress(op, "looking up the box", 0, 0);
    if (list_named(op, resolve_listed, &err) != 0) {
        then(op, err);
        e2b_error_free(err);
        return -1;
    }
    return 0;
}

/* After the record's sandbox turned out gone: are there other boxes of that name? */
static void stale_listed(void *ud, e2b_sandbox_list *list, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->api_call = NULL;
    op->pending--;
    e2b_error *e = NULL;
    char ids[600];
    if (err) {
        e = e2b_error_copy(err);
    } else if (named_boxes(list, op->res.name, op->rec.sandbox_id, ids, sizeof ids) > 1) {
        e = e2b_error_new(E2B_ERR_CONFLICT,
                          "the local record of box %s points at sandbox %s, which is gone, and "
                          "other sandboxes are box %s (%s): nothing was done; act on one by its "
                          "id in the dashboard",
                          op->res.name, op->rec.sandbox_id, op->res.name, ids);
    }
    e2b_sandbox_list_free(list);
    op->step_then(op, e);
    e2b_error_free(e);
}

int box_op_check_stale(e2b_box_op *op, box_step_fn then)
{
    e2b_error *err = NULL;
    op->step_then = then;
    if (list_named(op, stale_listed, &err) != 0) {
        then(op, err);
        e2b_error_free(err);
        return -1;
    }
    return 0;
}

static void start_now(void *ud)
{
    e2b_box_op *op = ud;
    box_step_fn then = op->step_then;
    op->pending--;
    if (op->cancelled) {
        box_op_finish(op, e2b_error_new(E2B_ERR_CANCELLED, "cancelled"));
        return;
    }
    if (op->start_name) {
        char *name = op->start_name;
        op->start_name = NULL;
        box_op_resolve(op, name, then);
        free(name);
        return;
    }
    then(op, NULL);
}

void box_op_start(e2b_box_op *op, const char *name, box_step_fn then)
{
    op->step_then = then;
    op->start_name = box_strdup(name);
    op->pending++;
    e2b_loop_post_slot(op->env.loop, &op->start_slot, start_now, op); /* cannot fail */
}

void box_op_why(char *dst, size_t n, const char *fmt, va_list ap)
{
    char raw[1024];
    vsnprintf(raw, sizeof raw, fmt, ap);
    char *safe = e2b_sanitize_display(raw, strlen(raw), 0);
    snprintf(dst, n, "%s", safe ? safe : "");
    free(safe);
}
