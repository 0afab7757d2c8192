/* Private to core/box*.c: the operation struct shared by the step machines, and the
 * helpers they use (process runs, health polling, keystore jobs, name resolution). */
#ifndef E2B_BOX_INTERNAL_H
#define E2B_BOX_INTERNAL_H

#include "core/box/box.h"
#include "core/box/box_ports.h"
#include "core/e2b/envd.h"
#include "core/git/gitwork.h"
#include "core/git/tarball.h"
#include "core/git/upload.h"
#include "core/box/up_journal.h"
#include "keystore/keystore.h"

#include <stdarg.h>
#include <stdatomic.h>

typedef enum { OP_UP, OP_ATTACH, OP_STOP, OP_KILL, OP_PULL, OP_SNAPSHOT, OP_FORK, OP_UNPULLED,
               OP_PORTS, OP_GET, OP_TEST } op_kind;

struct box_fork_state; /* box_fork.c */
/* A step's continuation after a helper's call (a process run, the server's start). */
typedef void (*box_step_fn)(e2b_box_op *op, const e2b_error *err);

/* Where an up's archives come from (box_up_from.c): everything, or, from a snapshot that
 * holds this project, only what differs from the snapshot's commit (core/git/delta.h). */
typedef struct up_source {
    int delta;            /* the archive is a delta: the box resets to delta_base first */
    char delta_base[41];
    int clean_first;      /* a full upload over a snapshot of this path: remove it first */
    char *note;           /* for the user (owned), or NULL */
    char *snapshot_id;    /* from a snapshot: the template to create from (owned), or NULL */
    time_t prepared_at;   /* that snapshot is the project's prepared one, set up then (else 0) */
} up_source;
struct e2b_snap_record;
/* On the worker thread, first (one small file): the record *r of the snapshot from (its
 * local name, or NULL: nothing is read) and the template to create from
 * (src->snapshot_id), so the create need not wait for the archives. Errors: a snapshot that
 * has no record here (NOT_FOUND, saying what to do). */
e2b_error *box_up_source(const char *state_dir, const char *from, struct e2b_snap_record *r,
                         up_source *src);
/* On the worker thread, then: the archives of g's project into *set; from a snapshot (r and
 * src from box_up_source, from its name) of this project only what differs from its commit.
 * flags: E2B_UPLOAD_STASH (upload.h). Errors: those of e2b_upload_prepare and e2b_delta_prepare. */
e2b_error *box_up_prepare(e2b_gitwork *g, const struct e2b_snap_record *r, const char *from,
                          int gzip_level, unsigned flags, const atomic_int *cancel,
                          e2b_upload_set *set, up_source *src);
/* The create of an up from a snapshot failed with 404: the snapshot is gone on E2B. A new
 * error saying what to do, or NULL for any other error. */
e2b_error *box_up_snapshot_gone(const e2b_box_op *op, const e2b_error *err);

struct e2b_box_op {
    op_kind kind;
    e2b_box_env env;
    e2b_box_progress_fn progress;
    e2b_box_done_fn done;
    void *ud;
    int state;      /* the op's step (its own enum) */
    int finished;   /* done has run */
    int cancelled;  /* cancel was asked for */
    int detached;   /* freed while running: done must not run, free at the end */
    int pending;    /* outstanding callbacks that still point at the op */
    e2b_error *error;  /* the failure being reported (owned) */
    e2b_box_result res;
    char logged_step[64]; /* the last step written to the log (a line per change) */
    int64_t started_ms;   /* when the op was made, for the log's closing line */

    /* what is in flight (one at a time) */
    e2b_api_call *api_call;
    e2b_http_request *http;
    ks_job *job;
    struct box_work *work; /* local work on a worker thread (box_op_work) */
    void *work_arg;        /* that work's state, owned by the step that started it */
    uint64_t timer;
    e2b_loop_slot start_slot; /* the first step runs from the loop (a post cannot fail) */
    e2b_loop_slot wake_slot;  /* a keystore job's end, posted from its worker thread */
    void (*job_then)(e2b_box_op *op);                      /* after a keystore job */
    void (*step_then)(e2b_box_op *op, const e2b_error *err); /* after a helper's call */

    /* shared state */
    e2b_box_record rec;      /* the record (read, or being made) */
    int have_record;
    e2b_sandbox sb;      /* from create / connect */
    int have_sandbox;    /* the sandbox exists (up: made by us) */
    e2b_envd *envd;      /* default user */
    e2b_envd *envd_root; /* root (extraction) */
    e2b_gitwork *git;
    char password[64];
    int password_stored;
    long health_timeout_ms;
    int64_t deadline_ms;
    long health_delay_ms; /* the last wait between probes (backoff) */
    long health_probe_ms;    /* a probe's time limit (0.5 s, longer after timeouts) */
    char *health_url;

    /* the server's start (box_server.c): its process stream and the health probes side by
     * side, apart from the fields above, so that an up can run it while its files arrive */
    struct {
        e2b_http_request *stream; /* the server command's process stream, until settled */
        struct box_srv_probe {
            e2b_box_op *op;
            e2b_http_request *req;
        } probes[2];              /* at most two health probes in flight */
        uint64_t probe_timer;     /* the next probe, after a wait */
        uint64_t hedge_timer;     /* a second probe while the first is slow to answer */
        int started, ended, exit_code; /* of the server command's process */
        int healthy;
        int link_fast;            /* a probe got an answer (any status) within 0.5 s */
        int running;              /* started, and then has not run yet */
        int quiet;                /* shows no progress steps (an up still extracting) */
        int health_deferred;      /* up: started before the box's API was known (op->ocp) */
        int stop;                 /* box_server_cancel asked it to stop */
        e2b_error *err;           /* why the wait failed (owned) */
        box_step_fn then;
    } srv;

    /* up */
    e2b_box_up_params up;
    char *up_name, *up_dir, *up_template;
    char *up_allow_out, *up_deny_out; /* up: the egress lists (the params', else the config's) */
    int up_internet;                  /* up: 1 internet on, 0 off */
    e2b_tarball *tar;         /* tar.gz of what gzip shrinks */
    e2b_tarball *tar_plain;   /* plain tar of what is compressed already (or NULL) */
    e2b_secret_list secrets;
    uint64_t tar_out;
    /* up's archives sent into tars already extracting them (box_up_extract.c) */
    struct {
        e2b_tarball *tars[2];          /* borrowed: op->tar, then op->tar_plain */
        size_t count;
        size_t ready;              /* archives whose FIFO the box reads ("E2B-TUI-READY k") */
        size_t next;               /* the next archive to send */
        size_t sent;               /* archives sent in full */
        size_t scanned;            /* of op->out, the bytes looked at for READY lines */
        e2b_http_request *http;    /* the upload that runs (one at a time) */
        uint64_t timer;            /* starts the next upload from the loop */
        int ended;                 /* the extracting process's stream is done */
        e2b_error *upload_err;     /* why an upload failed (owned) */
        e2b_error *stream_err;     /* why the process's stream failed (owned) */
        char fifo_dir[96];         /* in the box, the FIFOs' directory */
        void (*dir_ready)(e2b_box_op *op); /* once, when the project directory exists */
        void (*then)(e2b_box_op *op, e2b_error *err, const char *step);
    } ux;
    /* up's server started while the files arrive (box_up.c): both ends are joined */
    struct {
        int early;             /* the server was started before the files were in place */
        int server_done;       /* its start has ended (server_err says how) */
        int files_done;        /* the extraction has ended (files_err says how) */
        e2b_error *server_err; /* owned */
        e2b_error *files_err;  /* owned */
        const char *files_step;
    } upj;
    /* up: which OpenCode the box has (box_oc_probe.c), asked once the extraction has made
     * the project's directory (so the extraction's request is always the first process);
     * the server starts once it is known */
    struct {
        int asked;                /* box_oc_probe or box_oc_probe_skip ran */
        e2b_http_request *stream; /* the probe's process stream, until it ends */
        char out[512];            /* its output, bounded */
        size_t len;
        int done;                 /* answered (or failed): op->rec's OpenCode fields are set */
        int bin_known;            /* only one binary is there: op->rec.opencode_bin, before done */
        int early_wanted;         /* the project's directory came first: start early then */
        e2b_opencode_kind found;  /* what was found (api 0: nothing) */
        void (*then)(e2b_box_op *op);
    } ocp;
    /* attach: which OpenCode this machine has, asked on a worker beside the loop's steps */
    struct {
        e2b_opencode_kind local;
        int running;             /* the worker runs: the op finishes after it */
        int finish_wanted;       /* the steps are done: finish with finish_err then */
        e2b_error *finish_err;   /* owned */
    } loc;
    void (*out_watch)(e2b_box_op *op); /* box_op_run_watch: stdout grew */
    char up_nonce[33];         /* metadata E2B_META_UP of this up's create */
    int create_in_doubt;       /* the create failed in a way that may have made a sandbox */
    e2b_sandbox_list orphans;  /* sandboxes found by the sweep */
    size_t orphan_next;
    int orphan_killed;         /* the sweep removed what the create made */
    int orphan_unsure;         /* the sweep's list or a kill failed */
    int create_late_possible;  /* no reply (or a gateway's 502/504): E2B may make it later */
    int kill_failed;           /* the failed up's own sandbox could not be killed */
    e2b_up_journal_entry journal;  /* this up's entry in the journal of creates in doubt */

    /* process runs */
    char *out;
    size_t out_len;
    char *errout;
    size_t err_len;
    int proc_exit;
    int proc_started;
    int proc_ended;

    /* pull */
    e2b_box_pull_params pull;
    int pull_had_branch;  /* e2b/<name> existed before the pull */
    int pull_repausing;   /* the resumed box is being paused again */
    e2b_error *pull_err;  /* the pull's end, held while a resumed box is paused again */
    struct e2b_bundle_import *bundle;
    char *bundle_path;
    char commit[41];
    char *start_name;
    char *expect_id; /* env.sandbox_id, owned: the sandbox the caller chose, or NULL */
    int forget_gone; /* kill: only a record whose sandbox is gone (e2b_box_forget_gone) */
    char *record_elsewhere; /* the sandbox a record of the name points at instead, or NULL */

    up_source up_src;    /* up: whole or delta (from a snapshot) */
    /* up that prepares the project's snapshot (box_up_prepare.c): no secrets, password,
     * server or record; the setup runs, E2B snapshots the box, the box is killed */
    struct {
        int active;
        char *command;  /* the setup (owned) */
        char key[65];   /* its key (core/git/setup_key.h) */
        char phrase[80]; /* up's step "from the prepared snapshot (set up 2 days ago)" */
        void (*then)(e2b_box_op *op, e2b_error *err, const char *step);
    } prep;

    /* up: the file list is made on a worker (op->work) while the loop checks the name,
     * reads the secrets and creates the sandbox; the password is stored and the archives
     * sent once both are done (box_up.c). A failure of one side waits for the other: the
     * worker is stopped and joined, a request in flight is answered, and only then the
     * cleanup runs. Both errors are consumed before the op finishes. */
    struct {
        int listed;           /* the worker's file list is in op->tar / op->tar_plain */
        int created;          /* the sandbox exists and the loop waits for the file list */
        e2b_error *list_err;  /* the listing failed while a request was in flight (owned) */
        e2b_error *fail_err;  /* the loop's side failed while the worker ran (owned) */
        int64_t list_started_ms;
    } uo;

    /* unpulled (box_unpulled.c): its deadline timer and the summary the box printed */
    uint64_t unpulled_timer;
    int unpulled_timed_out;
    long unpulled_timeout_ms;
    struct e2b_changes_summary *summary;

    /* ports (box_ports.c) and get (box_get.c) */
    e2b_box_ports ports;
    e2b_api_sandbox_fn connect_then; /* box_op_connect_as_is */
    struct box_get_state *get;              /* owned by box_get.c */
    void (*get_free)(struct box_get_state *g);
    /* test (box_test_run.c): the command to run (owned, NULL none) and its limit */
    char *test_command;
    int test_timeout_s;

    /* snapshot and fork */
    char *snap_as;               /* the snapshot's local name */
    struct box_fork_state *fork; /* owned by box_fork.c (freed through fork_free) */
    void (*fork_free)(struct box_fork_state *f);
};

/* Lifecycle. */
e2b_box_op *box_op_new(op_kind kind, const e2b_box_env *env, e2b_box_progress_fn progress,
                       e2b_box_done_fn done, void *ud);
void box_op_progress(e2b_box_op *op, const char *step, int64_t done, int64_t total);
/* Ends the op with err (owned; NULL = success): runs done, unless detached. */
void box_op_finish(e2b_box_op *op, e2b_error *err);
/* Formats a result's reason into dst (n bytes), sanitised for display: it may quote what the
 * box printed. */
void box_op_why(char *dst, size_t n, const char *fmt, va_list ap);

/* Keystore through a job whose wake posts `then` to the loop (the op stays alive). */
typedef void (*box_job_fn)(e2b_box_op *op);
int box_op_job_put(e2b_box_op *op, box_job_fn then);
int box_op_job_get(e2b_box_op *op, box_job_fn then);
int box_op_job_delete(e2b_box_op *op, box_job_fn then);
/* The finished job's result (password copied into op->password for get). Frees the job. */
ks_code box_op_job_result(e2b_box_op *op, ks_error *kerr);

/* Blocking local work (a git status walk over the project, a pack's index and connectivity
 * check) on a worker thread, so the loop keeps drawing and answering keys: fn(arg, cancel)
 * runs there and must touch nothing of the loop's (it may use what the op leaves alone
 * meanwhile, such as op->git); it should stop early when *cancel becomes non-zero (the op
 * was cancelled). Its result (an owned error, or NULL) goes to then(op, err) on the loop
 * thread, which checks op->cancelled like any step. Returns -1 (nothing started) when no
 * thread could be made. */
typedef e2b_error *(*box_work_fn)(void *arg, const atomic_int *cancel);
typedef void (*box_work_then)(e2b_box_op *op, e2b_error *err);
int box_op_work(e2b_box_op *op, box_work_fn fn, void *arg, box_work_then then);
/* Asks the running work to stop (from e2b_box_op_cancel); whether it was asked. */
void box_op_work_cancel(e2b_box_op *op);
int box_op_work_cancelled(const e2b_box_op *op);

/* Runs a process to its end collecting output into op->out / op->errout (bounded) and
 * op->proc_exit, then calls then(op, err) (box_step_fn, above). */
int box_op_run(e2b_box_op *op, e2b_envd *ev, const e2b_process_spec *spec, box_step_fn then);
/* Like box_op_run, and watch(op) runs each time stdout grows (op->out holds it so far),
 * inside the transfer's callback: it must not start a request itself. */
int box_op_run_watch(e2b_box_op *op, e2b_envd *ev, const e2b_process_spec *spec,
                     void (*watch)(e2b_box_op *op), box_step_fn then);
/* up's upload and extraction, overlapped (box_up_extract.c): a root process in the box
 * makes a FIFO per archive (op->tar, then op->tar_plain) and extracts them into op->rec.dir
 * one after the other, each as its upload arrives; one tar at a time, each reading exactly
 * one archive. dir_ready(op) (may be NULL) runs once from the loop when op->rec.dir exists
 * in the box (prepared, before the first archive). then(op, err, step) runs once, when the process and the uploads are done:
 * err (owned) NULL on success, else the first cause and the step it failed in. Memory stays
 * bounded: the box's pipe holds what tar has not read and the sender waits for it. */
void box_up_extract(e2b_box_op *op, void (*dir_ready)(e2b_box_op *op),
                    void (*then)(e2b_box_op *op, e2b_error *err, const char *step));
/* Stops the upload that runs (e2b_box_op_cancel; the process's stream is op->http). */
void box_up_extract_cancel(e2b_box_op *op);
/* Stops the extraction altogether (its upload and the process's stream): its then runs
 * later, from the loop, with the cause. */
void box_up_extract_stop(e2b_box_op *op);
/* Frees what it holds (op_release). */
void box_up_extract_clear(e2b_box_op *op);
/* A prepare's files are in place (box_up_prepare.c): runs op->prep.command in the project
 * (bash, stdin closed, setup_timeout, its output kept in the box and only its last lines
 * read back), then E2B snapshots the sandbox and the snapshot record is written; then(op,
 * err, step) once: err (owned) NULL when the record is written (res.prepared_as). */
void box_up_prepare_run(e2b_box_op *op, void (*then)(e2b_box_op *op, e2b_error *err, const char *step));
/* How long ago a prepared snapshot was set up, in words ("just now", "5 minutes ago",
 * "2 days ago"). */
void box_up_prepared_age(time_t at, time_t now, char *out, size_t n);
/* E2B's name of a snapshot of local name local: "e2b-tui-" and the name in E2B's alphabet. */
void box_snapshot_e2b_name(const char *local, char *out, size_t n);
/* up: asks the box which OpenCode it has (op->envd; not when the opencode key forces
 * it), sets op->rec's OpenCode fields and op->ocp.found, then then(op) from the loop (or
 * at once when forced or the probe cannot start). A failed probe counts as nothing found. */
void box_oc_probe(e2b_box_op *op, void (*then)(e2b_box_op *op));
void box_oc_probe_cancel(e2b_box_op *op);
/* up failed before the probe was asked: counts as nothing found, without asking; then(op)
 * at once. */
void box_oc_probe_skip(e2b_box_op *op, void (*then)(e2b_box_op *op));
/* The box's API is known now (op->ocp.done): a server started before it begins its health
 * probes (box_server.c); nothing otherwise. */
void box_server_api_known(e2b_box_op *op);
/* Starts the server (tag E2B_BOX_SERVER_TAG, password in its env, cwd op->rec.dir) and
 * probes its health while its stream is open; then(op, NULL) once it answers 2xx (the
 * stream is closed, the server keeps running), then(op, err) when the command exits, the
 * deadline passes or the op is cancelled. Uses only op->srv and the health fields, so it
 * may run beside a process run (op->http); quiet: no progress steps (box_server_speak
 * turns them on). Returns -1 when it could not start (then has run). */
int box_op_start_server(e2b_box_op *op, int quiet, box_step_fn then);
/* A quiet server start shows its steps from now on ("waiting for the server"). */
void box_server_speak(e2b_box_op *op);
/* Stops a server start that runs: its then runs later, from the loop, with CANCELLED (or
 * the outcome already known). The server process itself is left (the caller kills the
 * sandbox or keeps it). */
void box_server_cancel(e2b_box_op *op);
/* Polls the health URL of a server that already runs with basic auth until 2xx or the
 * deadline (waits of 50 ms doubling to 500 ms; a probe may take 0.5 s, doubling after each
 * timeout up to 5 s); then(op, err). */
void box_op_health(e2b_box_op *op, box_step_fn then);
/* One health probe, no retry: then(op, NULL) on 2xx, else then(op, err). */
void box_op_health_once(e2b_box_op *op, box_step_fn then);
/* After a failed process run: "<what> failed (exit N): <last stderr line>". */
e2b_error *box_op_process_error(e2b_box_op *op, const char *what);
/* The output a box script printed after its status line (the text after the first newline
 * of status_line, its last 8 KiB), sanitised with its newlines kept; malloc'd, NULL when out
 * of memory. For the setup's and the tests' last lines. */
char *box_op_output_tail(const char *status_line);

/* Finds the box: its record, else a box sandbox of that name in the API (made elsewhere).
 * Calls then(op, err); on success op->rec is filled (have_record says whether it came from
 * a local record) and op->res.sandbox_id is set. NOT_FOUND when neither exists; CONFLICT
 * (naming them all) when several sandboxes are that box. With op->expect_id (the sandbox
 * the caller chose) only that sandbox is taken: a record pointing elsewhere is not used
 * (op->record_elsewhere says where it points) and other sandboxes of the name do not count. */
int box_op_resolve(e2b_box_op *op, const char *name, box_step_fn then);
/* The record's sandbox is gone: then(op, NULL) when no other sandbox is that box, else
 * then(op, CONFLICT naming the record's sandbox and the others). */
int box_op_check_stale(e2b_box_op *op, box_step_fn then);

/* Starts an op from the loop (so done never runs inside the starting call): resolves name
 * (when not NULL) and calls then, or just calls then(op, NULL). */
void box_op_start(e2b_box_op *op, const char *name, box_step_fn then);

/* up's sweep for a sandbox a failed create may have made (box_up_orphan.c): whether err
 * leaves that possible, and the sweep (lists by op->up_nonce, kills what it finds, notes
 * what it could not; then(op, NULL)). Returns -1 when the sweep could not start. */
int box_up_orphan_possible(const e2b_error *err);
/* Whether E2B may still make the sandbox after the client gave up (a second sweep later). */
int box_up_orphan_late_possible(const e2b_error *err);
int box_up_orphan_sweep(e2b_box_op *op, box_step_fn then);
/* The lifetime a resume gives the box, in seconds: its record's hours, else the
 * configured hours. */
long box_op_lifetime_s(const e2b_box_op *op);
/* Connects to op->res.sandbox_id without changing when a running box ends: its state is
 * asked first; a running box gets a connect of 60 s (a connect never shortens a running
 * sandbox's time), a paused one is resumed with its own lifetime (box_op_lifetime_s). then
 * is the connect's callback (a failed look calls it with that error and no sandbox). For
 * the looks that should not extend a box (ports, get: box_ports.c). Returns -1 when nothing
 * could start (then has run). */
int box_op_connect_as_is(e2b_box_op *op, e2b_api_sandbox_fn then);

/* Text helpers. */
char *box_strdup(const char *s);

#endif
