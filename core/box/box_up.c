/* up: the repository and its HEAD, then side by side the file list (on a worker) and the
 * name is free (no record, no box sandbox) -> secrets -> create (on the loop); once both are
 * done: password -> upload the archives into tars already extracting them
 * (box_up_extract.c) -> start the server -> health -> record. A failure
 * after create kills the sandbox (unless keep_failed) and removes the password, so nothing
 * is left half made; a SIGKILL after create leaves a sandbox without a record and an entry
 * in the journal of creates in doubt, and the next start of e2b-tui removes that sandbox
 * (core/box/orphans.h). */
#include "core/box/box_internal.h"
#include "core/box/orphans.h"
#include "core/box/box_egress.h"
#include "core/box/secrets_providers.h"
#include "core/box/snap_records.h"
#include "core/git/setup_key.h"
#include "core/git/upload.h"
#include "core/util/log.h"
#include "core/util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* gzip level 1: on the bench project level 6 costs 40% more CPU for 2.5% fewer bytes, and
 * the upload is CPU-bound on fast links. */
#define UP_GZIP_LEVEL 1

static void up_fail(e2b_box_op *op, e2b_error *err, const char *step);
static void up_prepared(e2b_box_op *op, e2b_error *err, const char *step);
static void up_created(void *ud, e2b_sandbox *sb, long status, const e2b_error *err);

/* Whether the new box's ports are open to anyone with the password (--public or
 * public_traffic = true); otherwise they need the sandbox's traffic token. */
static int box_up_public(const e2b_box_op *op)
{
    return op->up.public_traffic || op->env.cfg->public_traffic;
}

static void set_action(e2b_error *e, e2b_box_op *op, const char *step)
{
    if (!e->action)
        e2b_error_set_action(e, "up %s: %s", op->up_name ? op->up_name : "", step);
    else {
        char *old = strdup(e->action);
        e2b_error_set_action(e, "up %s: %s: %s", op->up_name ? op->up_name : "", step,
                             old ? old : "");
        free(old);
    }
}

/* ---- cleanup after a failure ---- */

/* The fate of the journal entry of a failed up: removed when no sandbox can be left (none
 * was made, or it was killed, or the user keeps it with --keep-failed); handed to the
 * orphans' second sweep when E2B may still make it; otherwise kept for the next start. */
static void up_journal_settle(e2b_box_op *op)
{
    const char *state = op->env.cfg->state_dir;
    if (op->journal.fd < 0)
        return;
    if (op->have_sandbox) {
        if (op->kill_failed)
            e2b_up_journal_release(&op->journal);
        else
            e2b_up_journal_remove(state, &op->journal);
    } else if (op->orphan_killed || op->up.keep_failed) {
        e2b_up_journal_remove(state, &op->journal);
    } else if (op->orphan_unsure) {
        e2b_up_journal_release(&op->journal);
    } else if (op->create_late_possible) {
        if (op->env.orphans && !op->detached) {
            box_op_progress(op, "a sandbox may still appear: looking again later", 0, 0);
            e2b_orphans_sweep_later(op->env.orphans, &op->journal);
        } else {
            e2b_up_journal_release(&op->journal);
        }
    } else { /* E2B answered the create with an error and the sweep found nothing */
        e2b_up_journal_remove(state, &op->journal);
    }
}

static void up_cleanup_done(e2b_box_op *op)
{
    up_journal_settle(op);
    e2b_error *err = op->error;
    op->error = NULL;
    box_op_finish(op, err);
}

static void up_password_removed(e2b_box_op *op)
{
    ks_error kerr;
    box_op_job_result(op, &kerr);
    up_cleanup_done(op);
}

static void up_remove_password(e2b_box_op *op)
{
    if (op->password_stored && op->env.ks) { /* without a record it is of no use */
        op->password_stored = 0;
        box_op_job_delete(op, up_password_removed);
        return;
    }
    up_cleanup_done(op);
}

static void up_killed(void *ud, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)status;
    op->api_call = NULL;
    op->pending--;
    if (err && err->kind != E2B_ERR_NOT_FOUND) {
        op->kill_failed = 1;
        free(op->res.note);
        char buf[600];
        snprintf(buf, sizeof buf, "the %s sandbox %s could not be killed: %s",
                 op->prep.active ? "set-up" : "failed box's", op->sb.sandbox_id,
                 e2b_error_message(err));
        op->res.note = strdup(buf);
    }
    up_remove_password(op);
}

static void up_swept(e2b_box_op *op, const e2b_error *unused)
{
    (void)unused;
    up_remove_password(op);
}

/* Cleans up after err (owned, its action set) and finishes. While the worker lists the
 * files nothing is cleaned up: it is asked to stop, and its end (up_listed) comes back
 * here, so the op never finishes while the worker runs. */
static void up_settle(e2b_box_op *op, e2b_error *err)
{
    if (op->work) {
        if (op->uo.fail_err)
            e2b_error_free(err);
        else
            op->uo.fail_err = err;
        box_op_work_cancel(op);
        return;
    }
    op->error = err; /* kept until the cleanup is done */
    if (op->have_sandbox && !op->up.keep_failed) {
        e2b_error *e = NULL;
        box_op_progress(op, "removing the failed sandbox", 0, 0);
        op->api_call = e2b_api_kill(op->env.client, op->sb.sandbox_id, up_killed, op, &e);
        if (op->api_call) {
            op->pending++;
            return;
        }
        op->kill_failed = 1;
        e2b_error_free(e);
    } else if (op->have_sandbox) {
        free(op->res.note);
        char buf[300];
        snprintf(buf, sizeof buf, "kept the failed sandbox %s (--keep-failed)", op->sb.sandbox_id);
        op->res.note = strdup(buf);
    } else if (op->create_in_doubt) {
        op->create_in_doubt = 0;
        if (box_up_orphan_sweep(op, up_swept) == 0)
            return;
    }
    up_remove_password(op);
}

static void up_fail(e2b_box_op *op, e2b_error *err, const char *step)
{
    set_action(err, op, step);
    up_settle(op, err);
}

/* The listing failed while this request was in flight: now that it is answered (and what
 * it made is known to the cleanup) the listing's error is told. */
static int up_list_failed(e2b_box_op *op)
{
    if (!op->uo.list_err)
        return 0;
    e2b_error *e = op->uo.list_err;
    op->uo.list_err = NULL;
    up_settle(op, e);
    return 1;
}

static int up_check(e2b_box_op *op, const e2b_error *err, const char *step)
{
    if (!err && !op->cancelled)
        return 0;
    up_fail(op, err ? e2b_error_copy(err) : e2b_error_new(E2B_ERR_CANCELLED, "cancelled"), step);
    return 1;
}

/* ---- the steps, in order ---- */

static void up_recorded(e2b_box_op *op)
{
    e2b_error *err = e2b_box_record_write(op->env.cfg->records_dir, &op->rec, 1);
    if (err) {
        up_fail(op, err, "writing the record");
        return;
    }
    e2b_up_journal_remove(op->env.cfg->state_dir, &op->journal); /* the record knows it now */
    box_op_finish(op, NULL);
}

/* The server was started and answered its health check. */
static void up_healthy(e2b_box_op *op, const e2b_error *err)
{
    if (up_check(op, err, err && err->kind == E2B_ERR_TIMEOUT ? "health check"
                                                               : "starting the server"))
        return;
    box_op_progress(op, "writing the record", 0, 0);
    up_recorded(op);
}

/* Both the files and (when it started early) the server have ended: the first real cause
 * of a failure wins (the other side was stopped because of it and says "cancelled"). */
static void up_joined(e2b_box_op *op)
{
    if (!op->upj.files_done || !op->ocp.done || (op->upj.early && !op->upj.server_done))
        return;
    e2b_error *files = op->upj.files_err, *server = op->upj.server_err;
    op->upj.files_err = op->upj.server_err = NULL;
    if (files && (files->kind != E2B_ERR_CANCELLED || !server || op->cancelled)) {
        e2b_error_free(server);
        up_fail(op, files, op->upj.files_step);
        return;
    }
    if (server) {
        e2b_error_free(files);
        up_fail(op, server, server->kind == E2B_ERR_TIMEOUT ? "health check" : "starting the server");
        return;
    }
    if (up_check(op, NULL, op->upj.files_step))
        return;
    if (op->upj.early) {
        up_healthy(op, NULL);
        return;
    }
    box_op_progress(op, "starting the server", 0, 0);
    box_op_start_server(op, 0, up_healthy);
}

/* The early server's start ended. A failure stops the extraction (the up fails anyway). */
static void up_server_ended(e2b_box_op *op, const e2b_error *err)
{
    op->upj.server_done = 1;
    if (err) {
        op->upj.server_err = e2b_error_copy(err);
        if (!op->upj.files_done)
            box_up_extract_stop(op);
    }
    up_joined(op);
}

/* The project's directory exists in the box: an OpenCode server may start now and load
 * while the files arrive (e2b_config_serve_early); its progress stays quiet until then. */
static void up_probed(e2b_box_op *op);

static void up_dir_ready(e2b_box_op *op)
{
    if (op->prep.active) /* a prepare starts no server */
        return;
    if (!op->ocp.asked)
        box_oc_probe(op, up_probed);
    if (!e2b_config_serve_early(op->env.cfg))
        return;
    if (!op->ocp.done && !op->ocp.bin_known) { /* which server to start: not known yet */
        op->ocp.early_wanted = 1;
        return;
    }
    e2b_logf("box up %s (server): started while the files arrive", op->rec.name);
    op->upj.early = 1;
    /* A start that fails runs up_server_ended at once, which stops the extraction. */
    (void)box_op_start_server(op, 1, up_server_ended);
}

/* The archives are in place (box_up_extract.c sent them into tars already extracting). */
static void up_extracted(e2b_box_op *op, e2b_error *err, const char *step)
{
    int failed = err || op->cancelled;
    if (op->prep.active) {
        if (failed)
            up_fail(op, err ? err : e2b_error_new(E2B_ERR_CANCELLED, "cancelled"), step);
        else
            box_up_prepare_run(op, up_prepared);
        return;
    }
    op->upj.files_done = 1;
    op->upj.files_err = err;
    op->upj.files_step = step;
    if (!op->ocp.asked) { /* the directory was never reported: no probe, no early server */
        if (failed)
            box_oc_probe_skip(op, up_probed);
        else
            box_oc_probe(op, up_probed);
        return;
    }
    if (failed)
        box_oc_probe_cancel(op); /* the up fails: its answer is not needed */
    if (op->upj.early && !op->upj.server_done) {
        if (failed)
            box_server_cancel(op);
        else
            box_server_speak(op); /* the server is what is left to wait for */
    }
    up_joined(op);
}

/* The prepared snapshot is recorded (or err, owned): the set-up sandbox goes, and the op
 * ends with res.prepared_as for the caller's up from it. */
static void up_prepared(e2b_box_op *op, e2b_error *err, const char *step)
{
    if (err || op->cancelled) {
        up_fail(op, err ? err : e2b_error_new(E2B_ERR_CANCELLED, "cancelled"), step);
        return;
    }
    e2b_error *e = NULL;
    box_op_progress(op, "removing the set-up sandbox", 0, 0);
    op->api_call = e2b_api_kill(op->env.client, op->sb.sandbox_id, up_killed, op, &e);
    if (op->api_call) {
        op->pending++;
        return;
    }
    op->kill_failed = 1;
    free(op->res.note);
    op->res.note = e2b_strfmt("the set-up sandbox %s could not be killed: %s", op->sb.sandbox_id,
                              e ? e2b_error_message(e) : "out of memory");
    e2b_error_free(e);
    up_remove_password(op);
}

/* The box said which OpenCode it has: a start that waited for it goes on. */
static void up_probed(e2b_box_op *op)
{
    if (op->ocp.early_wanted && !op->upj.files_done && !op->cancelled) {
        op->ocp.early_wanted = 0;
        up_dir_ready(op);
        return;
    }
    up_joined(op);
}

static void up_send_files(e2b_box_op *op);

static void up_password_stored(e2b_box_op *op)
{
    ks_error kerr = {0};
    if (box_op_job_result(op, &kerr) != KS_OK) {
        up_fail(op, e2b_keystore_error(&kerr), "storing the password");
        return;
    }
    op->password_stored = 1;
    if (up_check(op, NULL, "storing the password"))
        return;
    up_send_files(op);
}

/* The sandbox exists (and its password is stored): the archives go into it. */
static void up_send_files(e2b_box_op *op)
{
    e2b_error *err = NULL;
    op->envd = e2b_envd_new(op->env.loop, op->env.cfg, &op->sb, NULL, &err);
    if (op->envd)
        op->envd_root = e2b_envd_new(op->env.loop, op->env.cfg, &op->sb, "root", &err);
    if (!op->envd || !op->envd_root) {
        up_fail(op, err, "reaching envd");
        return;
    }
    /* The probe starts from up_dir_ready: the extraction's request is always the first. */
    box_up_extract(op, up_dir_ready, up_extracted);
}

/* Both sides are done: the sandbox exists and the archives are ready. The password is
 * stored only now: a keystore job that cannot start finishes the op at once
 * (box_op_job_put), which must not happen while the worker runs. */
static void up_store_password(e2b_box_op *op)
{
    if (op->prep.active) { /* no server: no password */
        up_send_files(op);
        return;
    }
    if (!op->env.ks) {
        up_fail(op, e2b_error_new(E2B_ERR_INVALID, "no password store is open"),
                "storing the password");
        return;
    }
    box_op_progress(op, "storing the password", 0, 0);
    box_op_job_put(op, up_password_stored);
}

static void up_created(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    (void)status;
    op->api_call = NULL;
    op->pending--;
    if (sb) {
        op->sb = *sb;
        free(sb);
        op->have_sandbox = 1;
    }
    op->create_in_doubt = !op->have_sandbox && box_up_orphan_possible(err);
    op->create_late_possible = op->create_in_doubt && box_up_orphan_late_possible(err);
    if (up_list_failed(op))
        return;
    e2b_error *gone = box_up_snapshot_gone(op, err); /* says what to do about a --from */
    if (gone) {
        up_fail(op, gone, "creating the sandbox");
        return;
    }
    if (up_check(op, err, "creating the sandbox"))
        return;
    op->rec.sandbox_id = strdup(op->sb.sandbox_id);
    op->res.sandbox_id = strdup(op->sb.sandbox_id);
    op->res.url = e2b_config_port_url(op->env.cfg, op->rec.port, op->sb.sandbox_id, op->sb.domain);
    if (!op->uo.listed) { /* what is left of the listing is now the up's wait */
        op->uo.created = 1;
        box_op_progress(op, "listing files", 0, 0);
        return;
    }
    up_store_password(op);
}

static void up_secrets_listed(void *ud, e2b_secret_list *list, const e2b_error *err)
{
    e2b_box_op *op = ud;
    e2b_error *e = NULL;
    op->api_call = NULL;
    op->pending--;
    if (list) {
        op->secrets = *list;
        free(list);
    }
    if (up_list_failed(op))
        return;
    if (up_check(op, err, "reading the secrets"))
        return;
    e2b_metadata md = {0}, env = {0};
    char hours[16];
    snprintf(hours, sizeof hours, "%d", op->rec.hours);
    if (op->prep.active) {
        /* No box: nothing of a secret goes into what E2B snapshots (no secrets' rules or
         * placeholders, no password, no server), and no box name to clash with the up
         * that follows. */
        e2b_secret_list_clear(&op->secrets);
        e2b_metadata_set(&md, E2B_META_APP, E2B_META_APP_PREPARE);
    } else {
        e2b_metadata_set(&md, E2B_META_APP, E2B_META_APP_BOX);
        e2b_metadata_set(&md, E2B_META_NAME, op->rec.name);
        e2b_metadata_set(&md, E2B_META_BRANCH, op->rec.branch);
        e2b_metadata_set(&md, E2B_META_BASE, op->rec.base);
        e2b_metadata_set(&md, E2B_META_HOURS, hours);
        e2b_metadata_set(&md, E2B_META_TRAFFIC, box_up_public(op) ? "public" : "private");
    }
    if (e2b_box_password(op->up_nonce) == 0) {
        e2b_metadata_set(&md, E2B_META_UP, op->up_nonce);
        /* In the journal before the create is sent: a crash from here until the record is
         * written leaves the entry, and the next start removes what the create made. */
        if ((e = e2b_up_journal_add(op->env.cfg->state_dir, op->up_nonce, op->rec.name,
                                &op->journal))) {
            e2b_metadata_clear(&md);
            up_fail(op, e, "writing the journal of creates in doubt");
            return;
        }
    }
    e2b_box_egress eg = {.allow_out = op->up_allow_out, .deny_out = op->up_deny_out,
                         .allow_internet = op->up_internet};
    int internet = -1;
    json_t *network = e2b_box_egress_network(&eg, &op->secrets, &env, &internet);
    json_t *summary = e2b_box_egress_summary(network, internet);
    free(op->rec.egress);
    op->rec.egress = summary ? json_dumps(summary, JSON_COMPACT) : NULL;
    json_decref(summary);
    /* Private unless asked: the ports then answer only requests with the traffic token. */
    if (!box_up_public(op)) {
        if (!network)
            network = json_object();
        json_object_set_new(network, "allowPublicTraffic", json_false());
    }
    long life_s = (long)(op->up.hours ? op->up.hours : op->env.cfg->hours) * 3600;
    if (op->prep.active) /* long enough for the setup, then gone (not paused) */
        life_s = op->env.cfg->setup_timeout_s + 900L;
    e2b_create_params p = {.template_id = op->rec.template_id, .timeout_s = life_s,
                           .metadata = &md, .env_vars = env.count ? &env : NULL,
                           .auto_pause = !op->prep.active, .allow_internet_access = internet,
                           .network = network};
    box_op_progress(op, op->prep.active       ? "creating the set-up sandbox (no prepared snapshot yet)"
                        : op->prep.phrase[0] ? op->prep.phrase
                                             : "creating the sandbox", 0, 0);
    op->api_call = e2b_api_create(op->env.client, &p, up_created, op, &e);
    json_decref(network);
    e2b_metadata_clear(&md);
    e2b_metadata_clear(&env);
    if (!op->api_call) {
        up_fail(op, e, "creating the sandbox");
        return;
    }
    op->pending++;
}

static void up_read_secrets(e2b_box_op *op);

/* The name is free only when no box sandbox carries it either: an up killed after
 * creating its sandbox leaves one without a record here (or another machine made it), and
 * a second box of the same name would make every later command ambiguous. */
static void up_name_checked(void *ud, e2b_sandbox_list *list, const e2b_error *err)
{
    e2b_box_op *op = ud;
    e2b_error *e = NULL;
    op->api_call = NULL;
    op->pending--;
    if (up_list_failed(op)) {
        e2b_sandbox_list_free(list);
        return;
    }
    const e2b_sandbox *taken = NULL;
    for (size_t i = 0; list && i < list->count; i++)
        if (list->items[i].kind == E2B_KIND_BOX && list->items[i].box_name &&
            strcmp(list->items[i].box_name, op->rec.name) == 0)
            taken = &list->items[i];
    if (taken) {
        e = e2b_error_new(E2B_ERR_CONFLICT,
                          "name in use: sandbox %s is box %s, which this machine has no record "
                          "of (an interrupted --up, or made on another machine); e2b-tui --kill "
                          "%s removes it, or pick another name (e2b-tui --up NAME)",
                          taken->sandbox_id, op->rec.name, op->rec.name);
        e2b_sandbox_list_free(list);
        up_fail(op, e, "choosing the name");
        return;
    }
    e2b_sandbox_list_free(list);
    if (up_check(op, err, "checking the name"))
        return;
    up_read_secrets(op);
}

static void up_read_secrets(e2b_box_op *op)
{
    e2b_error *e = NULL;
    box_op_progress(op, "reading the secrets", 0, 0);
    op->api_call = e2b_api_secrets_list(op->env.client, up_secrets_listed, op, &e);
    if (!op->api_call) {
        up_fail(op, e, "reading the secrets");
        return;
    }
    op->pending++;
}

/* ---- the local side: on a worker thread, first the repository, its HEAD and a
 * snapshot's record (quick), then the file list and archives while the loop makes the
 * sandbox ---- */

/* The worker's state (op->work_arg): owned by the up until up_work_hand_over gives what it
 * made to the op; while a step runs only the worker touches it. */
typedef struct {
    const char *dir, *state_dir, *from; /* the op's, unchanged while it runs */
    unsigned upload_flags;              /* E2B_UPLOAD_STASH from the config */
    e2b_gitwork *git;
    e2b_gitwork_head head;
    e2b_snap_record snap; /* --from: the snapshot's record */
    int prepare_mode;     /* E2B_BOX_PREPARE_* */
    const char *setup_command, *template_id; /* the config's setup_command, the base template */
    e2b_setup setup;      /* the project's setup, when it has one */
    int need_prepare;     /* no prepared snapshot for its key (or --prepare): make one */
    char *prep_from;      /* the prepared snapshot it starts from (owned), or NULL */
    up_source src;
    e2b_upload_set set;
    const char *failed_step;
} up_local_work;

/* The project's setup, and the prepared snapshot of its key: the up starts from it (as a
 * --from), or, when there is none (or --prepare), makes it first (need_prepare). */
static e2b_error *up_find_prepared(up_local_work *w)
{
    w->failed_step = "finding the project's setup";
    e2b_error *e = e2b_setup_find(e2b_gitwork_workdir(w->git), w->setup_command, w->template_id,
                                  &w->setup);
    if (e)
        return e;
    if (!w->setup.command) {
        if (w->prepare_mode != E2B_BOX_PREPARE_ONLY)
            return NULL;
        return e2b_error_new(E2B_ERR_INVALID,
                             "the project %s has no setup: set setup_command in the config, or "
                             "add an executable " E2B_SETUP_SCRIPT " to the project",
                             e2b_gitwork_workdir(w->git));
    }
    if (w->prepare_mode == E2B_BOX_PREPARE_AUTO) {
        e2b_snap_record_list l;
        if (!e2b_snap_record_list_read(w->state_dir, &l)) {
            const e2b_snap_record *r = e2b_snap_record_list_find_key(&l, w->setup.key);
            w->prep_from = r ? strdup(r->name) : NULL;
            e2b_snap_record_list_clear(&l);
        }
        if (w->prep_from) {
            w->from = w->prep_from;
            w->failed_step = "listing the project's files";
            return box_up_source(w->state_dir, w->from, &w->snap, &w->src);
        }
    }
    w->need_prepare = 1;
    return NULL;
}

static e2b_error *up_open_run(void *arg, const atomic_int *cancel)
{
    up_local_work *w = arg;
    (void)cancel; /* quick: the steps after it look at the cancel */
    w->failed_step = "opening the git project";
    e2b_error *g = e2b_gitwork_open(&w->git, w->dir, 0);
    if (!g)
        g = e2b_gitwork_head_info(w->git, &w->head);
    if (g)
        return g;
    w->failed_step = "listing the project's files";
    g = box_up_source(w->state_dir, w->from, &w->snap, &w->src);
    if (!g && !w->from && w->prepare_mode != E2B_BOX_PREPARE_NONE)
        g = up_find_prepared(w);
    if (!g && w->snap.setup_key)
        w->src.prepared_at = w->snap.created_at ? w->snap.created_at : 1;
    return g;
}

static e2b_error *up_list_run(void *arg, const atomic_int *cancel)
{
    up_local_work *w = arg;
    /* Already-compressed data (git's objects, random-looking files) goes in a plain tar:
     * gzip would spend most of the upload's CPU on it for nothing. */
    return box_up_prepare(w->git, &w->snap, w->from, UP_GZIP_LEVEL, w->upload_flags, cancel,
                          &w->set, &w->src);
}

/* The worker is done with w: the op owns what it made (op_release frees it). */
static void up_work_hand_over(e2b_box_op *op, up_local_work *w)
{
    op->work_arg = NULL;
    op->git = w->git;
    op->tar = w->set.gz;
    op->tar_plain = w->set.plain;
    op->up_src = w->src;
    e2b_snap_record_clear(&w->snap);
    e2b_setup_clear(&w->setup);
    free(w->prep_from);
    free(w);
}

/* The file list's end. Whichever side ends last goes on: the password once the sandbox
 * exists, the cleanup of a failure on either side. */
static void up_listed(e2b_box_op *op, e2b_error *g)
{
    up_work_hand_over(op, op->work_arg);
    e2b_logf("up %s: the file list %s after %lld ms", op->rec.name ? op->rec.name : "-",
             g ? "failed" : "is ready", (long long)(e2b_now_ms() - op->uo.list_started_ms));
    if (op->uo.fail_err) { /* the loop's side failed meanwhile: its cause is told */
        e2b_error *e = op->uo.fail_err;
        op->uo.fail_err = NULL;
        e2b_error_free(g);
        up_settle(op, e);
        return;
    }
    if (g || op->cancelled) {
        e2b_error *e = g ? g : e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
        set_action(e, op, "listing the project's files");
        if (op->api_call) { /* a create may be in flight: told once it is answered */
            op->uo.list_err = e;
            return;
        }
        up_settle(op, e);
        return;
    }
    op->uo.listed = 1;
    if (op->up_src.note && !op->res.note)
        op->res.note = strdup(op->up_src.note);
    if (op->uo.created)
        up_store_password(op);
}

/* Before the worker lists the files: its state goes to the op, then the failure. */
static void up_opened_fail(e2b_box_op *op, e2b_error *err, const char *step)
{
    up_work_hand_over(op, op->work_arg);
    up_fail(op, err, step);
}

/* The repository is open: the name, the record, then the listing on the worker and the
 * name check on the loop, side by side. */
static void up_opened(e2b_box_op *op, e2b_error *g)
{
    up_local_work *w = op->work_arg;
    char name[E2B_GITWORK_BOX_NAME_MAX + 8];
    e2b_error *err = NULL;
    if (g || op->cancelled) {
        up_opened_fail(op, g ? g : e2b_error_new(E2B_ERR_CANCELLED, "cancelled"), w->failed_step);
        return;
    }
    if (op->up_name) {
        snprintf(name, sizeof name, "%s", op->up_name);
    } else {
        e2b_gitwork_default_box_name(&w->head, name, sizeof name);
        op->up_name = strdup(name);
    }
    op->res.name = strdup(name);
    if (w->need_prepare) { /* the setup moves to the op, the worker lists everything */
        op->prep.active = op->res.preparing = 1;
        op->prep.command = w->setup.command;
        w->setup.command = NULL;
        snprintf(op->prep.key, sizeof op->prep.key, "%s", w->setup.key);
    } else if (w->src.prepared_at) {
        char ago[40];
        box_up_prepared_age(w->src.prepared_at, time(NULL), ago, sizeof ago);
        snprintf(op->prep.phrase, sizeof op->prep.phrase, "from the prepared snapshot (set up %s)", ago);
        if (w->prep_from && !op->snap_as)
            op->snap_as = strdup(w->prep_from);
        op->res.prepared_at = w->src.prepared_at;
    }
    int only = op->up.prepare == E2B_BOX_PREPARE_ONLY;
    if (!only && e2b_box_record_exists(op->env.cfg->records_dir, name)) {
        up_opened_fail(op, e2b_error_new(E2B_ERR_CONFLICT,
                                         "a box named %s already exists on this machine; pick "
                                         "another name (e2b-tui --up NAME) or kill it",
                                         name),
                       "choosing the name");
        return;
    }
    op->rec.name = strdup(name);
    op->rec.template_id = strdup(w->src.snapshot_id ? w->src.snapshot_id
                                 : op->up_template  ? op->up_template
                                                    : op->env.cfg->template_id);
    op->rec.branch = strdup(w->head.kind == E2B_GITWORK_HEAD_DETACHED ? "" : w->head.branch);
    op->rec.base = strdup(w->head.oid);
    op->rec.dir = strdup(e2b_gitwork_workdir(w->git));
    op->rec.port = E2B_BOX_PORT;
    op->rec.opencode = e2b_config_box_api(op->env.cfg, NULL); /* until the box says */
    op->rec.hours = op->up.hours ? op->up.hours : op->env.cfg->hours;
    op->rec.budget_usd = op->up.budget_usd;
    op->rec.created_at = time(NULL);
    op->res.dir = strdup(op->rec.dir);
    if (e2b_box_password(op->password) < 0) {
        up_opened_fail(op, e2b_error_new(E2B_ERR_INTERNAL, "no randomness for the password"),
                       "making the password");
        return;
    }
    op->uo.list_started_ms = e2b_now_ms();
    if (box_op_work(op, up_list_run, w, up_listed) < 0) {
        up_opened_fail(op, e2b_error_new(E2B_ERR_INTERNAL, "cannot start a worker thread"),
                       "listing files");
        return;
    }
    /* From here a failure on the loop waits for the worker (up_settle). */
    if (only) { /* --prepare makes no box: no name to check */
        up_read_secrets(op);
        return;
    }
    box_op_progress(op, "checking the name", 0, 0);
    e2b_metadata md = {0};
    e2b_metadata_set(&md, E2B_META_APP, E2B_META_APP_BOX);
    e2b_metadata_set(&md, E2B_META_NAME, name);
    e2b_list_query q = {.metadata = &md, .workspace_keys = op->env.cfg->workspace_keys};
    op->api_call = e2b_api_list(op->env.client, &q, up_name_checked, op, &err);
    e2b_metadata_clear(&md);
    if (!op->api_call) {
        up_fail(op, err, "checking the name");
        return;
    }
    op->pending++;
}

/* Local work, before anything is made remotely: the name, then (on a worker thread) the
 * repository. */
static void up_local(e2b_box_op *op, const e2b_error *unused)
{
    (void)unused;
    if (op->up_name && !e2b_gitwork_box_name_valid(op->up_name)) {
        up_fail(op, e2b_error_new(E2B_ERR_INVALID,
                                  "'%s' is not a valid box name (letters, digits, '.', '_', "
                                  "'-'; at most %d)",
                                  op->up_name, E2B_GITWORK_BOX_NAME_MAX),
                "choosing the name");
        return;
    }
    box_op_progress(op, "listing files", 0, 0);
    up_local_work *w = calloc(1, sizeof *w);
    if (w) {
        w->dir = op->up_dir ? op->up_dir : ".";
        w->state_dir = op->env.cfg->state_dir;
        w->from = op->snap_as;
        w->prepare_mode = op->up.prepare;
        w->setup_command = op->env.cfg->setup_command;
        w->template_id = op->up_template ? op->up_template : op->env.cfg->template_id;
        w->upload_flags = op->env.cfg->up_stash ? E2B_UPLOAD_STASH : 0;
        op->work_arg = w;
    }
    if (!w || box_op_work(op, up_open_run, w, up_opened) < 0) {
        free(w);
        op->work_arg = NULL;
        up_fail(op, e2b_error_new(E2B_ERR_INTERNAL, "cannot start a worker thread"),
                "listing files");
    }
}

e2b_box_op *e2b_box_up(const e2b_box_env *env, const e2b_box_up_params *p,
                       e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                       e2b_error **err)
{
    e2b_box_op *op = box_op_new(OP_UP, env, progress, done, ud);
    if (!op) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    op->up = *p;
    op->up_name = box_strdup(p->name);
    op->up_dir = box_strdup(p->dir);
    op->up_template = box_strdup(p->template_id);
    op->snap_as = box_strdup(p->from_snapshot); /* an up from a snapshot: its local name */
    op->up_allow_out = box_strdup(p->allow_out ? p->allow_out : env->cfg->allow_out);
    op->up_deny_out = box_strdup(p->deny_out ? p->deny_out : env->cfg->deny_out);
    op->up_internet = p->no_internet ? 0 : env->cfg->allow_internet;
    op->up.name = op->up.dir = op->up.template_id = op->up.from_snapshot = NULL;
    op->up.allow_out = op->up.deny_out = NULL;
    for (size_t i = 0; i < p->napprove; i++)
        if (e2b_box_record_approve_add(&op->rec, p->approve[i]) < 0) {
            *err = e2b_error_new(E2B_ERR_INVALID, "approval rule \"%.60s\": too long, a "
                                 "control character, or more than %d rules", p->approve[i],
                                 E2B_BOX_RULES_MAX);
            e2b_box_op_free(op);
            return NULL;
        }
    op->rec.yes_all = p->yes_all != 0;
    op->up.approve = NULL;
    op->up.napprove = 0;
    op->health_timeout_ms = p->health_timeout_ms;
    box_op_start(op, NULL, up_local);
    return op;
}
