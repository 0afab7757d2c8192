/* Boxes (man/e2b-tui.1, MODES): up, attach, stop, kill and pull as step machines on core's loop.
 *
 *   e2b_box_env env = {.loop = loop, .client = client, .cfg = &cfg, .ks = ks};
 *   e2b_box_op *op = e2b_box_stop(&env, "feat-x", on_progress, on_done, ui, &err);
 *   ... the loop runs; on_progress(ui, "pausing", 0, 0) ...; on_done(ui, op, err) ...
 *   e2b_box_op_free(op);          // after on_done, or at any time to cancel and forget
 *
 * Every operation advances only from loop callbacks (HTTP replies, timers, keystore jobs
 * posted back with e2b_loop_post), so the TUI stays responsive while it runs; the one-shot
 * modes wait for them through the model (core/live: e2b_live_op_by_name and
 * e2b_live_then); core/box's own tests use e2b_box_op_wait().
 *
 * Callbacks run on the loop thread. progress: step is a static phrase ("uploading"), bytes
 * done/total are 0 when they mean nothing for the step. done runs exactly once per op that
 * was started (also after e2b_box_op_cancel, with E2B_ERR_CANCELLED); err is borrowed.
 * After done, e2b_box_op_result() holds what the operation produced.
 *
 * Secrets: the box password is made here (getrandom), handed to the server only in the
 * environment of Process/Start and to the caller in the result (wiped by e2b_box_op_free);
 * it is never logged, never put in metadata, records or command lines. */
#ifndef E2B_BOX_H
#define E2B_BOX_H

#include "core/e2b/api.h"
#include "core/e2b/config.h"
#include "core/util/error.h"
#include "core/net/loop.h"
#include "core/net/tunnel.h"
#include "core/box/records.h"
#include "keystore/keystore.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct keystore;
struct e2b_orphans;

/* What every operation needs; all borrowed and must outlive the op. ks may be NULL for
 * stop (kill then cannot delete a password and says so). orphans (core/box/orphans.h) may
 * be NULL: a failed up whose create is in doubt then leaves its journal entry for the next
 * start instead of sweeping again after a delay. */
typedef struct e2b_box_env {
    e2b_loop *loop;
    e2b_client *client;
    const e2b_config *cfg;
    struct keystore *ks;
    struct e2b_orphans *orphans;
    /* The sandbox the user chose (a row of the dashboard), or NULL: attach, pull, stop and
     * kill then act on that sandbox only, not on whatever a record of the name says. */
    const char *sandbox_id;
} e2b_box_env;

typedef struct e2b_box_op e2b_box_op;

typedef void (*e2b_box_progress_fn)(void *ud, const char *step, int64_t done, int64_t total);
typedef void (*e2b_box_done_fn)(void *ud, e2b_box_op *op, const e2b_error *err);

/* What the kill's check found (e2b_box_unpulled). */
typedef enum e2b_unpulled_state {
    E2B_UNPULLED_UNKNOWN, /* it could not tell: why says so */
    E2B_UNPULLED_NONE,    /* nothing that is not on this machine already */
    E2B_UNPULLED_WORK,    /* work a kill would lose */
} e2b_unpulled_state;

typedef struct e2b_unpulled {
    e2b_unpulled_state state;
    int found;     /* the box was found; 0 (also for a refused API key): the kill says why not */
    int pulled;    /* compared with the last pull (e2b/<name>); 0: with the box's base */
    long files;    /* changed files whose content is neither pulled nor in the work tree */
    int files_more; /* more than files (the box listed too many to look at) */
    long commits;  /* commits on the box's HEAD that are not pulled; -1 = not known */
    long here;     /* changed files whose content is the same in the local work tree */
    char why[300]; /* UNKNOWN (and a gone sandbox): why, in words (sanitised) */
} e2b_unpulled;

/* What a member of a group of attempts has to show (e2b_box_test_run): its diff against
 * the group's base and the result of the project's test_command run in it. */
typedef enum e2b_test_result {
    E2B_TEST_NONE,  /* not run: no test_command, or the box could not be asked (why) */
    E2B_TEST_PASS,  /* exit 0 */
    E2B_TEST_FAIL,  /* another exit status */
    E2B_TEST_ERROR, /* it could not run: timed out, not found (126/127), killed */
} e2b_test_result;

typedef struct e2b_evidence {
    int diff_known;             /* files, added, deleted were read */
    long files, added, deleted; /* changed files (untracked too) and their +/- lines */
    e2b_test_result test;
    int exit_code;              /* the test_command's exit status (-1 not run) */
    long test_ms;               /* how long it ran */
    char tail[2048];            /* its last lines (at most 20; sanitised, newlines kept) */
    char why[300];              /* NONE / ERROR: why, in words (sanitised) */
} e2b_evidence;

/* What an operation produced (owned by the op; valid until e2b_box_op_free). */
typedef struct e2b_box_result {
    char *name;       /* the box */
    char *sandbox_id; /* its sandbox */
    char *note;       /* a remark for the user ("already paused"), or NULL */
    /* up / attach */
    char *url;      /* the OpenCode server's URL */
    char *dir;      /* the project directory (local and in the box) */
    char *password; /* attach only: the server password (secret; wiped on free) */
    int resumed;    /* attach: the box was paused and has been resumed (pull: and has
                     * been paused again at its end; 0 with a note when that failed) */
    int restarted;  /* attach: the server was not running and was started again */
    /* attach: what a client of the box's server needs besides url and password, for the
     * tunnel (core/net/tunnel.h) and the agent client. traffic_token is the sandbox's
     * e2b-traffic-access-token (secret, wiped on free), NULL when the box is public; the same
     * token is in the op's e2b_sandbox (traffic_access_token) from connect. */
    char *traffic_token;
    int port; /* the server's port in the box */
    /* attach: the OpenCode the box runs (from its record; api as the opencode key makes it)
     * and the one this machine has (api 0: none found, or attach_command is set), for the
     * attach command's choice and its mismatch check (e2b_box_attach_cmd) */
    e2b_opencode_kind box_oc, local_oc;
    uint64_t files, bytes_in, bytes_sent; /* up: files, their bytes, compressed bytes sent */
    /* pull */
    char *branch;  /* "e2b/<name>" */
    char *commit;  /* 40 hex */
    int no_new_work;
    int nothing_pulled; /* no new work and no e2b/<name> exists: no branch was made */
    const char *outcome; /* "created", "fast-forwarded", "up to date", "forced" (static) */
    uint64_t bundle_bytes;
    /* unpulled: the kill's check */
    e2b_unpulled unpulled;
    /* snapshot: E2B's snapshot id (res.name is the snapshot's local name) */
    char *snapshot_id;
    /* up: the prepared snapshot it made (its local name; snapshot_id is E2B's), or NULL;
     * prepared_at: when the one it started from was set up (0: not from a prepared one) */
    char *prepared_as;
    time_t prepared_at;
    int preparing; /* up: this op sets the project up (its steps are the setup's) */
    /* test: a group member's evidence (e2b_box_test_run) */
    e2b_evidence evidence;
    /* fork: the boxes made (nforks names) and one line per fork that did not start */
    char **forks;
    size_t nforks;
    char *fork_failures;
} e2b_box_result;

#define E2B_BOX_SERVER_TAG "e2b-tui-server"
/* The server's output (stdout and stderr) goes both to envd's pipe of the tagged process (so
 * the dashboard's Log view can follow it with Process/Connect) and to this file in the box
 * (the history, and a place to look when the server fails). */
#define E2B_BOX_SERVER_LOG "/tmp/e2b-tui-server.log"
#define E2B_BOX_PORT 4096

typedef struct e2b_box_up_params {
    const char *dir;         /* a directory in the git project; NULL = "." */
    const char *name;        /* NULL = from the current branch */
    const char *template_id; /* NULL = cfg->template_id */
    int hours;               /* 0 = cfg->hours */
    int keep_failed;         /* leave the sandbox after a failure (for debugging) */
    int public_traffic;      /* 1: ports open to anyone with the password (--public); 0: as
                              * cfg->public_traffic (default private: the token is needed) */
    long health_timeout_ms;  /* 0 = 90 s */
    const char *from_snapshot; /* a snapshot's local name: create from it and send only
                                  what differs (template_id is then not used), or NULL */
    /* Egress (core/box/box_egress.h): checked lists, NULL = the config's network.allow_out /
     * network.deny_out; no_internet 1 = off (--no-internet), 0 = the config's allow_internet. */
    const char *allow_out;
    const char *deny_out;
    int no_internet;
    double budget_usd;       /* what it may cost (its record's budget_usd), 0 = none of its own */
    /* A project set up once (README "Set up once"; core/git/setup_key.h): AUTO starts from
     * the project's prepared snapshot when it has a setup, making it first (a box of the base
     * template runs the setup, E2B snapshots it, the box is killed) when there is none for
     * the current key: that op ends with res.prepared_as set and no box, and the caller ups
     * again from it (core/live does). NONE never (--no-prepared); ONLY makes a new one
     * and no box (--prepare). Not used with from_snapshot. */
    int prepare;
    /* Approval rules kept in the box's record (core/agent/rules.h; checked by the caller),
     * and yes_all 1: every permission request is allowed (--approve, --yes-all). */
    const char *const *approve;
    size_t napprove;
    int yes_all;
} e2b_box_up_params;
enum { E2B_BOX_PREPARE_AUTO = 0, E2B_BOX_PREPARE_NONE, E2B_BOX_PREPARE_ONLY };

e2b_box_op *e2b_box_up(const e2b_box_env *env, const e2b_box_up_params *p,
                       e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                       e2b_error **err);

/* Connects (resuming a paused box), starts the server again when it is not running, checks
 * its health, and hands back url, dir and password for the attach command. */
e2b_box_op *e2b_box_attach(const e2b_box_env *env, const char *name, long health_timeout_ms,
                           e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                           e2b_error **err);

/* A loopback tunnel (core/net/tunnel.h) to the server of an attach result r: the attach
 * command gets e2b_tunnel_url() as {url}; the tunnel adds the traffic token, never the
 * password, and forwards only requests that carry r->password (a local user who finds the
 * port gets the tunnel's own 401). Close it when the client is done. NULL with *err. */
e2b_tunnel *e2b_box_tunnel_open(const e2b_box_result *r, e2b_error **err);

/* Pause; "already paused" is a note, not an error. Works for a box made on another
 * machine (found through its metadata). */
e2b_box_op *e2b_box_stop(const e2b_box_env *env, const char *name, e2b_box_progress_fn progress,
                         e2b_box_done_fn done, void *ud, e2b_error **err);

/* Deletes the sandbox, the record and the password; a sandbox already gone is cleaned up
 * locally with a note. */
e2b_box_op *e2b_box_kill(const e2b_box_env *env, const char *name, e2b_box_progress_fn progress,
                         e2b_box_done_fn done, void *ud, e2b_error **err);

/* The kill's check (box_unpulled.c): has box name work that a kill would lose? That is
 * commits on the box's HEAD and changes in its work tree (untracked files included) beyond
 * the last pull (the local e2b/<name> tip, when the box still has it) or, before any pull,
 * beyond its base, less the files whose content is the same in the local work tree (what
 * up uploaded and nobody changed since). It reads the box's git through envd and changes
 * nothing there or here. A paused box is not resumed: the answer is unknown. Bounded:
 * timeout_ms for all of it (0 = 30 s, or http_timeout when shorter), the box's output
 * parsed with caps. done's err is
 * only a cancel or no memory: every "cannot tell" is res.unpulled's UNKNOWN with why. */
e2b_box_op *e2b_box_unpulled(const e2b_box_env *env, const char *name, long timeout_ms,
                             e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                             e2b_error **err);
/* The check's answer as one sentence about box name ("feat-x has unpulled work: 3 files
 * changed, 2 commits"). */
void e2b_box_unpulled_text(const char *name, const e2b_unpulled *u, char *buf, size_t n);

typedef struct e2b_box_pull_params {
    const char *dir;  /* a directory in the local repository; NULL = "." */
    const char *name; /* NULL = the box made from the current branch */
    int force;        /* overwrite a diverged e2b/<name> */
} e2b_box_pull_params;

e2b_box_op *e2b_box_pull(const e2b_box_env *env, const e2b_box_pull_params *p,
                         e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                         e2b_error **err);

/* Snapshot of a box (box_snapshot.c): E2B keeps a copy of the box's sandbox, usable as
 * the template of a later up (--up --from); a local record (core/box/snap_records.h) says
 * which project, branch and commit it holds. as: the snapshot's name (NULL = the box's).
 * A paused box is refused with what to do (E2B snapshots a running sandbox). */
e2b_box_op *e2b_box_snapshot(const e2b_box_env *env, const char *name, const char *as,
                             e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                             e2b_error **err);

/* Fork of a box (box_fork.c): E2B copies the box's sandbox count times; each copy becomes a
 * box of its own named NAME-2, NAME-3, ... (the first free names), with its own record and
 * a new server password (the server is started again in it, so the parent's password is
 * refused there). A fork that does not start is reported in fork_failures and leaves no
 * sandbox, record or password behind; the op fails only when no fork was made.
 * after_fork (may be NULL) runs on the loop for each box made, before done: the hook for
 * prompting the forks (the agents work). */
/* A fork of more copies than this asks first in the dashboard and needs --yes in a script
 * (as an up for more hours than the config's does). */
#define E2B_BOX_FORK_ASK_ABOVE 3
typedef void (*e2b_box_fork_hook)(void *ud, const char *fork_name, const char *sandbox_id);
typedef struct e2b_box_fork_params {
    const char *name;           /* the parent box */
    int count;                  /* 1..100 */
    e2b_box_fork_hook after_fork;
    void *hook_ud;
    const char *group;          /* a group of attempts (NULL: none): the forks are named
                                 * GROUP-2, GROUP-3, ... and they and the parent are
                                 * recorded as its members (records.h "group") */
} e2b_box_fork_params;
e2b_box_op *e2b_box_fork(const e2b_box_env *env, const e2b_box_fork_params *p,
                         e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                         e2b_error **err);

/* The evidence of a group member (box_test_run.c): in the running box, without touching its
 * index, work tree or HEAD, the diff of its work tree (untracked files too) against its
 * record's base (files, +/- lines), then test_command (NULL: none, only the diff) run in
 * the project with bash, stdin closed, for at most timeout_s (killed after), its output kept
 * in the box and only its last lines read back (bounded), into res.evidence. A paused or
 * gone box is not resumed: the evidence says why. done's err is only a cancel, no memory
 * or a name this machine has no record of. */
e2b_box_op *e2b_box_test_run(const e2b_box_env *env, const char *name, const char *test_command,
                             int timeout_s, e2b_box_progress_fn progress, e2b_box_done_fn done,
                             void *ud, e2b_error **err);

/* Stops the operation: its pending call is cancelled and done runs with E2B_ERR_CANCELLED
 * (after cleaning up what it made, e.g. the new sandbox of an up). */
void e2b_box_op_cancel(e2b_box_op *op);
const e2b_box_result *e2b_box_op_result(const e2b_box_op *op);
/* Runs the loop until the op is done; returns a copy of its error (caller frees) or NULL. */
e2b_error *e2b_box_op_wait(e2b_box_op *op);
/* Frees the op; one still running is cancelled first (its done callback is not called)
 * and goes on until it has cleaned up (e.g. killed the sandbox of a cancelled up), then
 * frees itself: keep running the loop (and do not free it) until requests in flight are 0
 * and keystore_jobs_drain(0) is true. NULL is fine. */
void e2b_box_op_free(e2b_box_op *op);

/* The commands that make box name again when its sandbox is gone (box_remake.c): its
 * record goes (--kill), then an up from its newest snapshot of this machine when it has
 * one, else from its project dir. One sentence, new string (NULL: out of memory). */
char *e2b_box_remake_hint(const char *state_dir, const char *name, const char *dir);

/* The first step of a remake (--remake NAME; box_stopkill.c): this machine's record of box
 * name, whose sandbox E2B must no longer have (GET /sandboxes/{id} says 404), goes with its
 * password, as a kill of a gone box. A sandbox that is still there (running or paused) is
 * E2B_ERR_CONFLICT (exit 5) and nothing changes; no record here is E2B_ERR_NOT_FOUND. After
 * done, e2b_box_op_record() holds the record that was removed (its settings). */
e2b_box_op *e2b_box_forget_gone(const e2b_box_env *env, const char *name,
                                e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                                e2b_error **err);
/* The record an operation read (borrowed, valid until e2b_box_op_free), or NULL. */
const e2b_box_record *e2b_box_op_record(const e2b_box_op *op);

/* What a remake of record rec makes its box again from (box_remake.c): its newest snapshot
 * of this machine (snapshot: its local name, taken_at), else its project (snapshot "");
 * base_template: the template under the snapshots it was made from (what a remake from
 * the project uses); says: one sentence for the user naming the source and what is lost
 * (the box's work after that snapshot, or all of it, unless pulled). Egress: the lists
 * and internet flag its record keeps (allow_out/deny_out "" = none; the secrets' rules
 * come again from the stored secrets). Pure local work (reads the snapshot records). */
typedef struct e2b_box_remake_plan {
    char snapshot[128];
    time_t taken_at;
    char base_template[128];
    char says[600];
    char allow_out[1024], deny_out[1024];
    int internet; /* 1 on, 0 off, -1 not recorded (the config's) */
} e2b_box_remake_plan;
void e2b_box_remake_plan_of(const char *state_dir, const e2b_box_record *rec, time_t now,
                            e2b_box_remake_plan *out);

/* ---- identity (box_identity.c): which box a sandbox is ----
 *
 * A sandbox that a record of this machine names by its sandbox id is that record's box (a
 * fork: NAME-N, whatever its metadata, copied from its parent, says); any other sandbox
 * with box metadata is the box its metadata names (made on another machine). */

/* The box name of sb (borrowed from the record or sb), or NULL when it is no box. */
const char *e2b_box_name_of(const e2b_box_record_list *records, const e2b_sandbox *sb);
/* Applies the rule to every sandbox of list: box_name becomes the record's name and kind a
 * box when a record names its id; a sandbox no record names any more gets its metadata's
 * name back. Returns 0, or -1 when out of memory. */
int e2b_box_identify(const e2b_box_record_list *records, e2b_sandbox_list *list,
                     const char *workspace_keys);

/* The sandboxes a box name answers to: this machine's record of that name when its sandbox
 * is listed (or list is NULL: not known); else the record whose sandbox is gone (sandbox
 * NULL) and every listed sandbox that no record names whose metadata has that name (boxes
 * of other machines; a fork is its record's NAME-N, never its parent's name). Borrowed. */
typedef struct e2b_box_match {
    size_t count;
    const e2b_sandbox *sandbox; /* the first match's sandbox (NULL: the record's is not listed) */
    const e2b_box_record *record;   /* this machine's record of the name, or NULL */
    char ids[600];              /* every match's sandbox id, ", "-joined */
} e2b_box_match;
void e2b_box_lookup(const e2b_box_record_list *records, const e2b_sandbox_list *list,
                    const char *name, e2b_box_match *out);
/* NULL for exactly one match; else E2B_ERR_NOT_FOUND ("no box named X") or E2B_ERR_CONFLICT
 * naming every sandbox (exit 5 in one-shot modes). Caller frees. */
e2b_error *e2b_box_match_error(const e2b_box_match *m, const char *name);

/* ---- listing (records reconciled with the API) ---- */

typedef enum e2b_box_list_state {
    E2B_BOX_RUNNING,
    E2B_BOX_PAUSED,
    E2B_BOX_GONE,  /* a record whose sandbox no longer exists */
} e2b_box_list_state;

typedef struct e2b_box_entry {
    const e2b_sandbox *sandbox;  /* borrowed from the sandbox list; NULL when gone */
    const e2b_box_record *record;    /* borrowed from the record list; NULL when made elsewhere */
    const char *name;            /* the box name (record's, else the metadata's) */
    e2b_sandbox_kind kind;       /* box, workspace or other */
    e2b_box_list_state state;
} e2b_box_entry;

typedef struct e2b_box_listing {
    e2b_box_entry *items; /* boxes first (by name), then workspaces, then others */
    size_t count;
} e2b_box_listing;

/* Merges the records with the sandboxes (both borrowed; they must outlive the listing). */
int e2b_box_listing_build(const e2b_box_record_list *records, const e2b_sandbox_list *sandboxes,
                          e2b_box_listing *out);
void e2b_box_listing_clear(e2b_box_listing *l);
/* "running", "paused" or "gone". */
const char *e2b_box_list_state_name(e2b_box_list_state s);
/* Writes the listing as the `--list --json` document (version 1: boxes, workspaces,
 * sandboxes; a box has "egress": {"internet","allow_out","deny_out","secrets":[{"name",
 * "host"}]} as e2b_box_egress_summary, or null when its record predates it) to out, in the one style (core/util/json_style.h: compact, or pretty). */
void e2b_box_listing_print_json(const e2b_box_listing *l, bool pretty, FILE *out);

/* The one translation of a keystore error into core's: "password store: <its sentence>",
 * with a kind from its code (not-found and invalid as such, out of memory internal, the
 * rest, a locked keyring or a timeout included, an I/O error). Caller frees. */
e2b_error *e2b_keystore_error(const ks_error *kerr);

/* The password store the user chose, as every mode and the dashboard ask for it: flag
 * (--keystore, NULL when not given), then E2B_TUI_KEYSTORE (unless empty), then cfg's
 * `keystore` (keystore_open_selected and keystore_job_open resolve it). The strings are
 * borrowed: the environment's and cfg's. */
ks_select e2b_keystore_choice(const char *flag, const e2b_config *cfg);

/* A box's lifetime in hours: its metadata's (what its up gave it, 1..24) when sb is a box
 * that says, else the configured hours. An operation that must resume a box gives it this
 * much, never the API's few-minute default. sb may be NULL. */
int e2b_box_hours(const e2b_sandbox *sb, const e2b_config *cfg);

/* A random password for a box server: 32 characters [A-Za-z0-9] from getrandom. buf must
 * hold 33 bytes. Returns 0, or -1 when no randomness is available. */
int e2b_box_password(char buf[33]);

/* Splits a command template into words (whitespace-separated; "..." and '...' group) and
 * substitutes {url}, {dir} and {port} inside each word, so a value with spaces stays one
 * argument. Returns a NULL-terminated malloc'd argv (free with e2b_box_argv_free), or NULL
 * for an empty or unbalanced template. */
char **e2b_box_command_argv(const char *tmpl, const char *url, const char *dir, int port);
void e2b_box_argv_free(char **argv);
/* The attach command for box r through a tunnel at url (box_attach_cmd.c): cfg's
 * attach_command, else the preset of the OpenCode found here (r->local_oc), else of the
 * box's API, as argv; and the environment without the caller's OpenCode password
 * variables plus the one that client reads with r's password (only there: never in argv;
 * OpenCode 1.x reads OPENCODE_SERVER_PASSWORD, 2 is given OPENCODE_PASSWORD too). Built
 * before a fork (a child may only exec). A client found here that cannot talk to the box's
 * server (1.x and 2 either way) is E2B_ERR_INVALID saying what to install, before anything
 * runs. Free with e2b_box_attach_cmd_free, which wipes the password. */
typedef struct e2b_attach_cmd {
    char **argv;
    char **env; /* borrows environ's strings and pw */
    char *pw[2];
    const char *template; /* the command it was made from (cfg's or static) */
} e2b_attach_cmd;
e2b_error *e2b_box_attach_cmd(const e2b_config *cfg, const e2b_box_result *r, const char *url,
                              e2b_attach_cmd *out);
void e2b_box_attach_cmd_free(e2b_attach_cmd *c);
/* Opens the box's session session_id (its active one): appends `--session ID` to an
 * `opencode attach` command (OpenCode 1.x) that names no session itself. Returns whether it
 * did (false: another client, an id that is not a session id, or out of memory). */
bool e2b_box_attach_cmd_session(e2b_attach_cmd *c, const char *session_id);
/* A shell-quoted command line for `bash -c` (the serve command in the box). New string. */
char *e2b_box_command_shell(const char *tmpl, const char *url, const char *dir, int port);

#endif
