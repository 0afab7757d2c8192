/* The live model: the dashboard's data, kept current, with no idea of how it is shown
 * (ncdu's dirlist under its browser, neovim's UI-independent state). One object owns the
 * loop, the API client, the config, the password store, the sandbox list with its metrics,
 * the secrets, the refresh timer and the running box operations, and runs the log
 * followers (core/live/live_server_log.h, core/live/live_sandbox_log.h: made on the model,
 * closed by their opener). A UI subscribes to what it shows and reads through const accessors; it
 * changes things only through the commands below.
 *
 *   e2b_live *m = e2b_live_new(&opts, &problem);   // config only: no loop yet
 *   e2b_live_subscribe(m, E2B_LIVE_SANDBOXES | E2B_LIVE_NOTICE, on_change, ui);
 *   e2b_live_start(m);                 // the loop, the client, the first refresh
 *   ... run e2b_live_loop(m) ...; on_change(ui, what) says what changed ...
 *   e2b_live_kill(m, sandbox_id);       // a command: the result comes as a notice
 *   e2b_live_free(m);                   // cancels operations (5 s at most), frees all
 *
 * Threads: everything runs on the loop thread. Subscribers are called synchronously from
 * the loop callbacks that changed the data; they may call accessors and commands, but must
 * not free the model. Nothing here draws, knows rows, columns, keys or curses.
 *
 * Refresh: every refresh lists all pages of sandboxes, then asks the latest metrics of the
 * running sandboxes a metrics source names (those on the screen); the next refresh is scheduled
 * when the list has answered, so calls never pile up on a slow server. Secrets are listed at
 * the start and then only while a subscriber says it shows them. A failed call is a notice; the
 * data already held stays. */
#ifndef E2B_LIVE_H
#define E2B_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/agent/agent.h"
#include "core/agent/turn_owed.h"
#include "core/box/box.h"
#include "core/e2b/api.h"
#include "core/e2b/config.h"
#include "core/e2b/objects.h"
#include "core/net/loop.h"

typedef struct e2b_live e2b_live;

/* What changed (a subscriber's mask and the bits its callback gets). */
enum e2b_live_what {
    E2B_LIVE_SANDBOXES = 1u << 0, /* the sandbox list (or its listing state) */
    E2B_LIVE_METRICS = 1u << 1,   /* the metrics of the running sandboxes */
    E2B_LIVE_SECRETS = 1u << 2,   /* the secrets list */
    E2B_LIVE_OPS = 1u << 3,       /* a box operation started, moved on or ended */
    E2B_LIVE_NOTICE = 1u << 4,    /* a message for the user: e2b_live_notice() */
    E2B_LIVE_LOGS = 1u << 5,      /* a log follower has new lines or a new status */
    E2B_LIVE_AGENTS = 1u << 6,    /* a box's agent status changed (e2b_live_agent) */
    E2B_LIVE_CHANGES = 1u << 7,   /* a Changes follower has a new list, diff or status */
    E2B_LIVE_TEMPLATES = 1u << 8, /* the templates list (e2b_live_templates_refresh) */
    E2B_LIVE_UNPULLED = 1u << 9,  /* a kill question's look for unpulled work ended */
    E2B_LIVE_HISTORY = 1u << 10,  /* the followed history has new lines (e2b_live_history_follow) */
    E2B_LIVE_ALL = 0x7ffu,
};

typedef void (*e2b_live_fn)(void *ud, unsigned what);

/* The dashboard's flags that feed the config (argv strings, borrowed; NULL = not given). */
typedef struct e2b_live_options {
    int refresh_seconds; /* 0 = the config's refresh, else E2B_DEFAULT_REFRESH_S */
    const char *config_file, *domain, *api_url, *keystore;
} e2b_live_options;

/* Loads the config (defaults < file < environment < these flags). Never NULL except out of
 * memory; a config problem is left in *problem (NULL when none; the caller frees it) and
 * the model still works with what could be read. */
e2b_live *e2b_live_new(const e2b_live_options *o, e2b_error **problem);
/* Makes the loop and, with an API key, the client, and starts the first refresh. Returns
 * 0, or -1 when out of memory (no loop). A client that cannot be made is a notice. */
int e2b_live_start(e2b_live *m);
/* Cancels the box operations and gives them 5 s to clean up (a cancelled up kills the
 * sandbox it made), closes the followers, frees the loop (calls still in flight end; their
 * callbacks only free), closes the password store and frees everything. NULL is fine. */
void e2b_live_free(e2b_live *m);

/* ---- the headless client (the one-shot modes, tui/cli) ----
 *
 *   e2b_live *m = e2b_live_new_config(&cfg, keystore_flag);  // main's resolved config
 *   err = e2b_live_start_headless(m, &h);  // loop, client, the journal's sweep: no timer
 *   e2b_live_end end; e2b_live_then(m, &end);
 *   e2b_live_refresh_now(m);              // one command ...
 *   e2b_wait(e2b_live_loop(m), &end.done); // ... its end ...
 *   print(e2b_live_sandboxes(m));          // ... and a printer
 *
 * Headless, nothing runs unless asked: no refresh timer, no secrets at the start, no
 * metrics, no agent watches, and a command's end refreshes nothing. */

/* Makes the model from a config its caller resolved (moved in: *cfg is left empty, to be
 * cleared or dropped); keystore_flag (borrowed, NULL = not given) as --keystore. */
e2b_live *e2b_live_new_config(e2b_config *cfg, const char *keystore_flag);
/* How a headless model sweeps for the sandboxes failed ups left (core/box/orphans.h):
 * what a sweep did is told to orphan_notice (not as a notice), and its second look after a
 * failed create waits at most orphan_delay_max_ms (0: the config's delay), so that a
 * one-shot mode does not linger (the journal entry stays for the next start). */
typedef struct e2b_live_headless {
    long orphan_delay_max_ms;
    void (*orphan_notice)(void *ud, const char *done, const e2b_error *failed);
    void *ud;
} e2b_live_headless;
/* Makes the loop and the client, and when the journal names a failed up opens the password
 * store (quietly: its warning waits for e2b_live_store_open) and runs the sweep to its end.
 * Returns NULL, or why the client could not be made (the caller frees). */
e2b_error *e2b_live_start_headless(e2b_live *m, const e2b_live_headless *h);
/* Opens the password store on this thread (--keystore, E2B_TUI_KEYSTORE, the config), when
 * it is not open yet. *warning: the automatic choice's fallback warning, told once (caller
 * frees; NULL when none). Returns NULL, or why it cannot be opened (caller frees). */
e2b_error *e2b_live_store_open(e2b_live *m, char **warning);
/* The API client (NULL without one): --snapshots' list of E2B's snapshots, the one mode the
 * model has no command for yet. */
e2b_client *e2b_live_client(const e2b_live *m);
/* The sweeper (made on first use, with the store open at that time), and a wait until its
 * sweeps are done. */
struct e2b_orphans *e2b_live_orphans(e2b_live *m);
void e2b_live_orphans_wait(e2b_live *m);

/* The end of a command, for a client that waits for it. */
typedef struct e2b_live_end {
    int done;       /* set when it ended (e2b_wait on it) */
    e2b_error *err; /* why it failed, or NULL (owned by the waiter: e2b_error_free) */
    long status;    /* the HTTP status (a resume: 201 resumed, else already running) */
    bool updated;   /* a secret set: it existed and was updated */
    long version;   /* a secret set: the version it made */
    char *session_id; /* an agent's prompt: the session it went to (the waiter frees) */
    e2b_box_op *op; /* a box operation: its ended step machine, what it did in
                     * e2b_box_op_result(op) (owned by the waiter: e2b_box_op_free) */
} e2b_live_end;
/* The next command started (a list by e2b_live_refresh_now, the secrets' list by
 * e2b_live_show_secrets, a sandbox, secret or box operation) fills *end when it ends, besides its
 * notice, and at once when it cannot start; a list already on its way is the list it waits
 * for. *end must outlive the command. */
void e2b_live_then(e2b_live *m, e2b_live_end *end);
/* This machine's records as last read with a list (owned by the model, valid until the
 * next E2B_LIVE_SANDBOXES change); *skipped: the unreadable ones (NULL when none). */
const e2b_box_record_list *e2b_live_records(const e2b_live *m, const char **skipped);

/* Subscribes cb to the bits in mask. Returns 0, or -1 when out of memory. */
int e2b_live_subscribe(e2b_live *m, unsigned mask, e2b_live_fn cb, void *ud);
void e2b_live_unsubscribe(e2b_live *m, e2b_live_fn cb, void *ud);

/* ---- accessors (owned by the model; valid until the next change of that kind) ---- */

e2b_loop *e2b_live_loop(const e2b_live *m);
const e2b_config *e2b_live_config(const e2b_live *m);
bool e2b_live_has_client(const e2b_live *m);
long e2b_live_refresh_ms(const e2b_live *m);

enum e2b_live_list_state {
    E2B_LIVE_NO_CLIENT,    /* no API key (or no client): nothing is listed */
    E2B_LIVE_LOADING,      /* the first list is on its way */
    E2B_LIVE_LIST_FAILED,  /* the first list failed; retrying */
    E2B_LIVE_LISTED,       /* a list arrived */
};
enum e2b_live_list_state e2b_live_list_state(const e2b_live *m);
/* When the list is stale (listed once, and the refreshes since failed): the time the
 * last good list arrived; 0 while the list is current. */
time_t e2b_live_list_stale_since(const e2b_live *m);
const e2b_sandbox_list *e2b_live_sandboxes(const e2b_live *m);
/* The sandbox with that id, or NULL. */
const e2b_sandbox *e2b_live_sandbox(const e2b_live *m, const char *id);
/* The latest metrics, in sandbox id order (newest first among equal ids). */
const e2b_metric_list *e2b_live_metrics(const e2b_live *m);
/* The newest metric of sandbox id in such a list (a binary search), or NULL. */
const e2b_metric *e2b_live_metric_find(const e2b_metric_list *metrics, const char *id);
/* The secrets; secrets_listed is false until the first list arrived. */
const e2b_secret_list *e2b_live_secrets(const e2b_live *m, bool *secrets_listed);

/* ---- the project probe (live_project.c) ---- */

/* What a directory is to up: a git project (its work tree, the default box name from its
 * HEAD: "feat/x" -> "feat-x") or not (why, in words). */
typedef struct e2b_live_project {
    bool ok;
    char workdir[4096];
    char default_name[64];
    char why[512];
} e2b_live_project;
/* Called once on the loop thread with the answer (borrowed for the call); fn owns ud. */
typedef void (*e2b_live_project_fn)(void *ud, const e2b_live_project *p);
/* Looks at dir (NULL or "" = the current directory) on a thread of its own. fn(ud, ...) is
 * called once, unless the probe is cancelled or the model freed first: then ud_free(ud)
 * (when not NULL). Returns 0, or -1 when it could not start (ud_free(ud) was called). */
int e2b_live_project_probe(e2b_live *m, const char *dir, e2b_live_project_fn fn, void *ud,
                           void (*ud_free)(void *ud));
/* Cancels every probe whose ud is ud (their ud_free runs now). */
void e2b_live_project_probe_cancel(e2b_live *m, void *ud);

/* ---- box identity (live_records.c, live_local.c; the rule: core/box/box.h) ----
 *
 * Every list that arrives is matched with this machine's records by sandbox id: a forked
 * box is NAME-N with its record, whatever its metadata says, and a box that another process
 * of this machine made or removed is seen within one refresh (one stat of the records
 * folder per list). e2b_live_sandbox_name and sb->box_name follow the rule. */

/* Is it one of this machine's boxes (a record names this sandbox)? No I/O. */
bool e2b_live_is_local_box(const e2b_live *m, const char *sandbox_id);
/* Is it a box (made by e2b-tui, here or elsewhere), with a name? */
bool e2b_live_is_box(const e2b_live *m, const char *sandbox_id);
/* This machine's record of the box shown as sandbox_id, or NULL (owned by the model, valid
 * until the next E2B_LIVE_SANDBOXES change). */
const e2b_box_record *e2b_live_record(const e2b_live *m, const char *sandbox_id);
/* The sandbox arg names: its id, else the box of that name (this machine's record, or
 * another machine's by its metadata), else a sandbox by the name shown. NULL and *err
 * (caller frees) when nothing has it (E2B_ERR_NOT_FOUND) or several do (E2B_ERR_CONFLICT,
 * naming them all: never a pick). */
const e2b_sandbox *e2b_live_lookup(const e2b_live *m, const char *arg, e2b_error **err);
/* For one of this machine's boxes: its project directory (from its record) into dir and
 * its OpenCode server's URL (*url, caller frees). false (and *url NULL) for any other. */
bool e2b_live_box_where(const e2b_live *m, const char *sandbox_id, char *dir, size_t dirsz,
                        char **url);

/* The words a sandbox is called by: a box's name, else the metadata "name", else the id. Raw text from the network: sanitise before drawing. */
const char *e2b_live_sandbox_name(const e2b_sandbox *sb);

/* ---- notices: what a command or a refresh has to tell the user ---- */

enum e2b_live_level {
    E2B_LIVE_INFO,   /* a result ("x killed") */
    E2B_LIVE_ERROR,  /* a failure, in core's words */
    E2B_LIVE_CHANGE, /* a state change seen by the refresh: yields to a message shown */
};
/* The latest notice (sanitised; owned by the model), read from an E2B_LIVE_NOTICE callback. */
const char *e2b_live_notice(const e2b_live *m, enum e2b_live_level *level);

/* ---- the refresh ---- */

/* Who says which running sandboxes are on the screen (their metrics are asked): fills ids
 * (borrowed strings, valid until the model's next change) and returns how many, at most max. */
typedef size_t (*e2b_live_ids_fn)(void *ud, const char **ids, size_t max);
void e2b_live_set_metrics_source(e2b_live *m, e2b_live_ids_fn fn, void *ud);
/* Refreshes at once (after an action), unless a list is already on its way. */
void e2b_live_refresh_now(e2b_live *m);
/* Secrets are shown (listed now and at every refresh) or not (listed no more). */
void e2b_live_show_secrets(e2b_live *m, bool shown);
/* A view of every sandbox (not only the boxes) is shown: the refresh lists them all (at
 * once when it opens) instead of the box sandboxes only; the other rows keep their last
 * known state while it is not. */
void e2b_live_show_all(e2b_live *m, bool shown);
/* Whether the sandbox list's rows come from a list of every sandbox (else the boxes are
 * fresh and the other rows as last known, or not known yet). */
bool e2b_live_list_complete(const e2b_live *m);

/* ---- commands on a sandbox, by id (the result is a notice; the lists refresh) ---- */

int e2b_live_stop(e2b_live *m, const char *sandbox_id);
/* hours: the lifetime from now (0 = a box's own, its up's hours, else the configured). */
int e2b_live_resume(e2b_live *m, const char *sandbox_id, int hours);
/* Kills it: a box through the boxes' kill (its record and password go too, when they are
 * this sandbox's), any other sandbox through the API. */
int e2b_live_kill(e2b_live *m, const char *sandbox_id);
int e2b_live_extend(e2b_live *m, const char *sandbox_id, int hours);
/* Replaces the egress of a running sandbox (live_network.c; core/box/box_egress.h): its
 * secrets' rules are kept (the stored secrets are listed first), the lists and the internet
 * flag are eg's (copied; checked here: E2B_ERR_INVALID names the bad entry). box_name: the
 * box whose record gets the new summary, or NULL. */
struct e2b_box_egress;
int e2b_live_set_network(e2b_live *m, const char *sandbox_id, const char *box_name,
                         const struct e2b_box_egress *eg);

/* ---- secrets (core/e2b/secret_put.h: create, or update when it exists) ---- */

/* value is copied into the request and not kept. */
int e2b_live_secret_set(e2b_live *m, const char *name, const char *value);
int e2b_live_secret_remove(e2b_live *m, const char *name);

/* ---- templates and snapshots (live_templates.c) ---- */

/* One template of the team as shown; strings owned by the model (valid until its next
 * E2B_LIVE_TEMPLATES change). */
typedef struct e2b_live_template_row {
    const char *id;     /* the template id */
    const char *name;   /* this machine's snapshot name, else the aliases ("-" none) */
    const char *aliases; /* the template's aliases, comma-separated ("-" none) */
    const char *kind;   /* "snapshot" (e2b-tui's), "managed" (opencode-e2b-, made on this
                         * machine), "another machine's" (opencode-e2b-, not made here:
                         * api_templates.h), "public", "" */
    const char *source; /* a snapshot's box (from its record), a managed template's project
                         * (from its name), else "" */
    long builds;
    time_t last_used;   /* most recent of lastSpawnedAt, updatedAt, createdAt; 0 unknown */
    bool gc_due;        /* managed, made here and unused for longer than template_ttl; or
                         * a prepared snapshot a newer one of its project replaces */
    bool other_machine; /* managed, made by another machine: only ever deleted one by one */
    bool superseded;    /* a prepared snapshot (its record here) with a newer one of its
                         * project (core/box/snap_records.h): the GC deletes it */
} e2b_live_template_row;

/* Lists the templates (GET /templates) and joins this machine's snapshot records; the end
 * is an E2B_LIVE_TEMPLATES change (and a notice on failure), and its waiter's
 * (e2b_live_then; a list on its way is the one it waits for). Not part of the refresh. */
void e2b_live_templates_refresh(e2b_live *m);
bool e2b_live_templates_loading(const e2b_live *m);
size_t e2b_live_template_count(const e2b_live *m);
bool e2b_live_template_get(const e2b_live *m, size_t i, e2b_live_template_row *out);
/* Deletes template id (DELETE /templates/{id}; this machine's snapshot record of it goes
 * too, also when E2B had it no more); a notice and its waiter (e2b_live_then: a 404 is
 * E2B_ERR_NOT_FOUND) tell the end, and (unless headless) the list is asked again. 0, or -1
 * when it could not start (notice). */
int e2b_live_template_delete(e2b_live *m, const char *id);
/* Deletes every gc_due template (dry_run: none); returns how many are due. */
size_t e2b_live_templates_gc(e2b_live *m, bool dry_run);

/* ---- box operations (any number at once, one per box) ---- */

typedef enum e2b_live_op_kind {
    E2B_LIVE_OP_UP,
    E2B_LIVE_OP_ATTACH,
    E2B_LIVE_OP_PULL,
    E2B_LIVE_OP_KILL,
    E2B_LIVE_OP_SNAPSHOT,
    E2B_LIVE_OP_FORK,
    E2B_LIVE_OP_STOP,     /* pause the box (no password needed) */
    E2B_LIVE_OP_UNPULLED, /* look for work a kill would lose (result: unpulled) */
    E2B_LIVE_OP_GET,      /* files of the box brought home (core/box/box_get.h) */
    E2B_LIVE_OP_PORTS,    /* what listens in the box (core/box/box_ports.h: the ended op
                           * opens forwards) */
    E2B_LIVE_OP_TEST,     /* a group member's evidence: its diff and the config's
                           * test_command run in it (result: evidence; kept by the model,
                           * e2b_live_group_members) */
    E2B_LIVE_OP_REMAKE,   /* a box whose sandbox E2B no longer has, made again under its
                           * name with its record's settings (hours, budget, approval rules,
                           * egress, group, model), from its newest snapshot else its
                           * project (core/box/box.h e2b_box_remake_plan_of); a sandbox
                           * still there is E2B_ERR_CONFLICT and nothing changes. Its
                           * result is the up's. */
    E2B_LIVE_OP_TRY,      /* a group of attempts being made (e2b_live_try): no box op of
                           * its own; name is the group, cancel stops it */
} e2b_live_op_kind;

/* A running operation, as shown. Strings owned by the model (valid until its next change). */
typedef struct e2b_live_op_info {
    unsigned id;
    e2b_live_op_kind kind;
    const char *verb;       /* "up", "attach", "pull", "kill", "snapshot", "fork", "stop",
                             * "unpulled", "get", "ports", "test", "remake", "try" */
    const char *name;       /* the box ("" = an up from the current branch) */
    const char *sandbox_id; /* "" when not known yet */
    const char *step;       /* "uploading" */
    int64_t done, total;    /* bytes of the step; 0 when they mean nothing */
    bool cancelling;
    /* up: a step of the project's setup, or the "from the prepared snapshot (set up ...)"
     * of an up from it: worth a line of its own in a log (the one-shot modes print it) */
    bool setup_step;
    /* remake: what it remakes from and what is lost, once known ("" before) */
    const char *says;
} e2b_live_op_info;

/* Starts an up (name "" = from the current branch; template NULL and hours 0 = config; a
 * template that names one of this machine's snapshots starts from it, sending only what
 * differs; dir NULL or "" = the current project, as --dir).
 * Returns the operation's id (> 0), or 0 when it was refused or could not start (notice). */
typedef struct e2b_live_up_params {
    const char *name, *template_id, *dir;
    int hours;
} e2b_live_up_params;
unsigned e2b_live_up_in(e2b_live *m, const e2b_live_up_params *p);
/* Any operation on a box named by its record (the one-shot modes: no list is needed first;
 * core/box resolves the name, and several sandboxes of that name are a conflict, never a
 * pick). The same start as the dashboard's (same busy guard, store, notices); its waiter
 * (e2b_live_then) gets the ended step machine in end->op. Strings are copied. */
typedef struct e2b_live_op_params {
    e2b_live_op_kind kind;
    const char *name;          /* the box ("" or NULL for an up: from the current branch) */
    const char *sandbox_id;    /* act on this sandbox only; NULL = the one the name resolves to */
    const char *dir;           /* up, pull: the project (NULL = the current one, as --dir);
                                * get: the local folder it goes to (NULL = ".") */
    const char *const *paths;  /* get: the paths in the box (core/box/box_get.h), npaths of
                                * them (1..E2B_BOX_GET_PATHS_MAX; copied) */
    size_t npaths;
    const char *template_id;   /* up: NULL = the config's; one of this machine's snapshots
                                * starts from it */
    const char *from_snapshot; /* up: start from this snapshot of this machine */
    const char *as;            /* snapshot: its name (NULL = the box's) */
    int hours;                 /* up: the lifetime (0 = the config's) */
    double budget_usd;         /* up: what it may cost (--budget, recorded; 0 = the config's
                                * budget_usd) */
    int count;                 /* fork: how many boxes (0 = 1) */
    const char *group;         /* fork: of a group of attempts (box.h e2b_box_fork_params) */
    bool keep_failed, public_traffic; /* up: --keep-failed, --public */
    bool force;                /* pull: --force; get: overwrite existing files */
    long health_timeout_ms;    /* up, attach: how long the server may take (0 = default) */
    /* up: the egress (checked lists, core/e2b/egress_list.h; NULL = the config's
     * network.allow_out / network.deny_out); no_internet: off (--no-internet), else the
     * config's allow_internet. */
    const char *allow_out, *deny_out;
    bool no_internet;
    /* up: the project's prepared snapshot (core/box/box.h E2B_BOX_PREPARE_*): AUTO (0)
     * starts from it, making it first when there is none (the up then runs twice: the
     * prepare, then the up from it, one operation to its waiter); NONE: never; ONLY: make
     * a new one, no box. */
    int prepare;
    /* up: the approval rules kept in the box's record (core/agent/rules.h, each checked by
     * e2b_rules_valid; copied) and yes_all: every permission request allowed */
    const char *const *approve;
    size_t napprove;
    bool yes_all;
} e2b_live_op_params;
unsigned e2b_live_op_by_name(e2b_live *m, const e2b_live_op_params *p);
/* What a remake (E2B_LIVE_OP_REMAKE) of box name makes it again from, as the dashboard
 * says it (its newest snapshot of this machine, else its project: core/box/box.h
 * e2b_box_remake_plan_of): from "its snapshot S (taken 2d ago)" / "its project DIR", lost
 * "what the box did after that snapshot and was not pulled" / "everything ...", listed: its
 * record's sandbox is in the last list (not gone as far as the dashboard knows). False when
 * this machine has no record of that name. After each list that answered, a box whose
 * sandbox two lists in a row missed is told once (a notice naming :remake). */
typedef struct e2b_live_remake_info {
    char from[400], lost[120];
    bool listed;
} e2b_live_remake_info;
bool e2b_live_remake_what(const e2b_live *m, const char *name, e2b_live_remake_info *out);
/* Attach, pull or kill of the box shown as sandbox_id: the operation acts on that sandbox
 * (a local record of the same name that points elsewhere is not used). Refused while
 * another operation runs on the same box. Returns the id or 0 (notice). */
unsigned e2b_live_box_op(e2b_live *m, e2b_live_op_kind kind, const char *sandbox_id);

/* Snapshot of the box shown as sandbox_id (as: the snapshot's name, NULL = the box's), and
 * its fork into count boxes NAME-2, ... (core/box/box.h). Returns the id or 0 (notice). */
unsigned e2b_live_snapshot(e2b_live *m, const char *sandbox_id, const char *as);
unsigned e2b_live_fork(e2b_live *m, const char *sandbox_id, int count);

/* A group of attempts from the dashboard (issue "Best of N"; the one-shot --up NAME --try N
 * as steps of the loop): u (sandbox_id NULL): an up of GROUP-1 (template_id, dir, hours
 * as e2b_live_up_params), forked into GROUP-2 ... GROUP-count (count 2..100); F
 * (sandbox_id: one of this machine's boxes): that box forked count times (1..100) into its
 * group (its record's, else its name). Then every member gets task in a new session once
 * its agent answers, models taken round robin (comma-separated provider/model; NULL or ""
 * = the configured one), and its record notes the model. The try is a row of the
 * operations (kind E2B_LIVE_OP_TRY, cancellable) besides its up and fork; each failure is
 * a notice. Strings are copied. Returns the try's id, or 0 when refused (notice). */
typedef struct e2b_live_try_params {
    const char *group;      /* u: the group's name (a box name of at most 50 characters) */
    const char *sandbox_id; /* F: the box forked; NULL for u */
    int count;
    const char *task, *models;
    const char *template_id, *dir;
    int hours;
} e2b_live_try_params;
unsigned e2b_live_try(e2b_live *m, const e2b_live_try_params *p);
/* Whether models is a comma-separated list of provider/model names (NULL or "" is). */
bool e2b_live_try_models_valid(const char *models);
/* The k-th model of the comma-separated list (round robin) into buf ("" for no list or an
 * empty one: the configured model). */
void e2b_live_try_model_of(const char *models, size_t k, char *buf, size_t n);

/* Copies paths (space-separated, in the box: relative to its project or in /tmp) of the box
 * shown as sandbox_id into the local folder dest (NULL or "" = the current one), as --get
 * (existing files are a conflict unless force). Returns the id or 0 (notice). */
unsigned e2b_live_get(e2b_live *m, const char *sandbox_id, const char *paths, const char *dest,
                      bool force);

/* Copies paths (space-separated, in the box: relative to its project or in /tmp) of the box
 * shown as sandbox_id into the local folder dest (NULL or "" = the current one), as --get
 * (existing files are a conflict unless force). Returns the id or 0 (notice). */
unsigned e2b_live_get(e2b_live *m, const char *sandbox_id, const char *paths, const char *dest,
                      bool force);

size_t e2b_live_op_count(const e2b_live *m);
/* Operation i (0 = the oldest); false when out of range. */
bool e2b_live_op_get(const e2b_live *m, size_t i, e2b_live_op_info *out);
/* Cancels operation id (its end is a notice). id 0 = the newest. Returns 0, or -1 when
 * there is no such operation. */
int e2b_live_op_cancel(e2b_live *m, unsigned id);

/* Who hands the terminal to the attach command once an attach is ready: called with the
 * box name and the op's result (url, dir, password), on the loop thread; it may block (the
 * loop does not run meanwhile) and must not keep the password. So that no transfer stalls
 * meanwhile, a ready attach waits (listed, step "ready: waits for the other operations")
 * until no other operation runs. Without a handler, attach only prepares and says the box
 * is ready. */
typedef void (*e2b_live_attach_fn)(void *ud, const char *name, const e2b_box_result *r);
void e2b_live_set_attach_handler(e2b_live *m, e2b_live_attach_fn fn, void *ud);

/* ---- groups of attempts (live_groups.c; --up NAME --try N) ----
 *
 * A group is the boxes whose records name it (core/box/records.h "group"): one task tried
 * N ways. The model keeps each member's evidence from its last E2B_LIVE_OP_TEST (an
 * E2B_LIVE_OPS change when it ends), on disk too (core/box/evidence_file.h): any process
 * reuses evidence another took. The dashboard's and --keepalive's model run the tests of
 * every member whose turn ends, whether a Compare view is open or not; a one-shot mode
 * runs those e2b_live_member_evidence_due says. */

typedef struct e2b_live_member {
    const e2b_box_record *rec;    /* its record (the model's, as e2b_live_records) */
    const e2b_evidence *evidence; /* its last test run's, or NULL (none yet) */
    int64_t evidence_ms;          /* when that run ended (wall clock ms) */
} e2b_live_member;
/* The members of group (sorted by name) into out, at most max; returns how many there are.
 * Valid until the next E2B_LIVE_SANDBOXES or E2B_LIVE_OPS change. */
size_t e2b_live_group_members(const e2b_live *m, const char *group, e2b_live_member *out,
                              size_t max);
/* Whether member mb's turn has ended after its evidence was taken (or none was): its tests
 * are due. */
bool e2b_live_member_evidence_due(const e2b_live *m, const e2b_live_member *mb);
/* The group's summary in words, e.g. "3/5 done, 2 passing" (done: the member's turn has
 * ended; passing: its last test run passed), into buf. Returns the number of members. */
size_t e2b_live_group_summary(const e2b_live *m, const char *group, char *buf, size_t n);
/* "pass", "fail", "error", "not run". */
const char *e2b_live_test_result_name(e2b_test_result t);

/* ---- approval rules (live_rules.c; the matcher: core/agent/rules.h) ----
 * A box's rules live in its record (records.h "approve", "yes_all"); the agent watch of
 * every process that runs the model (the dashboard; headless --watch, --wait, --keepalive)
 * answers "once" each pending permission request one allows, and says "allowed by rule
 * RULE: bash: ..." in the activity, a notice and the history. */
/* Adds (add) or revokes rule (NULL: none) in box name's record and sets (1) or clears (0)
 * its yes-all flag (-1: as it is); applied at once here, and by other processes at their
 * next look at the records. A rule that is not well formed, a revoke of a rule it does not
 * have (E2B_ERR_NOT_FOUND), or no such box are errors. */
e2b_error *e2b_live_rules_change(e2b_live *m, const char *name, const char *rule, bool add,
                                 int yes_all);
/* The server's saved "always" permissions (v2 only: OpenCode 1 has no list) of the watched
 * agent of sandbox_id: asks for them (each box's list kept apart, until the model goes);
 * E2B_LIVE_AGENTS when they come; the waiter's end (e2b_live_then) when the call ends. */
int e2b_live_saved_load(e2b_live *m, const char *sandbox_id);
/* Removes saved permission saved_id, then reads the list again (a notice says which). */
int e2b_live_saved_revoke(e2b_live *m, const char *sandbox_id, const char *saved_id);
/* What was read for sandbox_id (id, action, detail: the resource; owned by the model, valid
 * until the next change): *loading while asked; *why when they could not be read. */
const e2b_agent_request *e2b_live_saved(const e2b_live *m, const char *sandbox_id, size_t *n,
                                        bool *loading, const char **why);

/* ---- the agents' history (live_history.c) ----
 * Every process that runs the model (the dashboard; headless --watch, --wait, --keepalive)
 * appends each change of a watched agent's state ("started working", "started waiting:
 * bash: ...", "idle: done", "idle: interrupted") and each request an approval rule allowed
 * ("allowed by rule bash:python3 -m unittest*: bash: python3 -m unittest") to
 * <state_dir>/history.log (0600), moved to history.log.1 at history_max bytes (one old file
 * kept). The text is sanitised and bounded; it holds no secret. */
typedef struct e2b_live_history_entry {
    time_t at;
    char box[128];
    char text[512];
} e2b_live_history_entry;

typedef struct e2b_live_history {
    e2b_live_history_entry *items; /* oldest first */
    size_t count, cap;
} e2b_live_history;

/* Reads the history of box (NULL: every box) from cfg's state folder into out (cleared
 * first; e2b_live_history_clear frees it). No history yet is an empty list. */
e2b_error *e2b_live_history_read(const e2b_config *cfg, const char *box, e2b_live_history *out);
/* The same, keeping only the newest max entries (0: all); *dropped (may be NULL) counts the
 * older ones left out. */
e2b_error *e2b_live_history_read_last(const e2b_config *cfg, const char *box, size_t max,
                                      e2b_live_history *out, size_t *dropped);
void e2b_live_history_clear(e2b_live_history *h);
/* The check that keeps a change told once when several processes watch a box (pure, for
 * tests): whether tail (whole lines of history.log) tells line already, mine being the lines
 * this process wrote (live_history.c says the rule). */
bool e2b_live_history_told(const char *const *mine, size_t nmine, const char *tail,
                           const char *line);

/* The History view's follower (live_history_follow.c), one at a time: a thread of its own
 * reads the newest E2B_LIVE_HISTORY_CAP entries of box (NULL: every box), then sleeps until
 * the state folder changes (inotify: no polling) and reads the new lines (the whole again
 * after a rotation); each new list comes as E2B_LIVE_HISTORY. The UI thread never reads the
 * file. Following again replaces the follower; e2b_live_history_unfollow stops it. Returns
 * 0, or -1 (out of memory, no state folder, no thread: *why of e2b_live_history_followed). */
#define E2B_LIVE_HISTORY_CAP 2000
int e2b_live_history_follow(e2b_live *m, const char *box);
void e2b_live_history_unfollow(e2b_live *m);
/* The followed entries (oldest first; owned by the model, valid until the next
 * E2B_LIVE_HISTORY or unfollow), NULL when none is followed. *dropped: the older entries
 * past the cap; *loading until the first read ended; *why (NULL when none): why it could
 * not be read, or why new lines are not followed. */
const e2b_live_history *e2b_live_history_followed(const e2b_live *m, size_t *dropped,
                                                  bool *loading, const char **why);

/* ---- agents (live_agents.c): the OpenCode agent in each running box ----
 *
 * Every running sandbox that is one of this machine's boxes (it has a record and its
 * password is in the store) is watched through core/agent/watch.h: one event stream per
 * box, opened when the box runs and its server answers, closed when it pauses or goes.
 * Other sandboxes have no agent status. Changes come as E2B_LIVE_AGENTS. */

/* The agent status of the box shown as sandbox_id (owned by the model, valid until the next
 * E2B_LIVE_AGENTS change), or NULL when it is not watched (not a box of this machine). A
 * paused box's status says paused. */
const e2b_agent_status *e2b_live_agent(const e2b_live *m, const char *sandbox_id);
/* Headless (the one-shot agent modes): watches the agent of this machine's box rec (read by
 * the caller; copied) with no list first: its sandbox is asked (GET /sandboxes/{id}), and
 * when it runs its password read and its stream opened as the refresh does for every box.
 * Its waiter (e2b_live_then) hears when the status is settled (synced, or the server down,
 * or settle_ms passed: 0 = 20 s; e2b_live_agent_synced tells which), or why it cannot be
 * watched: E2B_ERR_NOT_FOUND its sandbox is gone, E2B_ERR_INVALID its password is not on
 * this machine, else the API's error. A paused box settles at once (status paused).
 * Returns 0, or -1 when it could not start (the waiter has heard why). */
int e2b_live_agent_watch(e2b_live *m, const e2b_box_record *rec, long settle_ms);
/* Whether the agent of sandbox_id is watched and its state read in full. */
bool e2b_live_agent_synced(const e2b_live *m, const char *sandbox_id);
/* The OpenCode client of the watched agent of sandbox_id (owned by the watch), or NULL: for
 * a client that waits on the server itself (--prompt waits for its model catalog). */
struct e2b_oc_client *e2b_live_agent_client(const e2b_live *m, const char *sandbox_id);
/* The sandbox of the agent of sandbox_id: as listed, else as its headless watch asked it
 * (borrowed, valid until the next change), or NULL when not known (a box's cost). */
const e2b_sandbox *e2b_live_agent_sandbox(const e2b_live *m, const char *sandbox_id);
/* The boxes of this machine known to the agent watcher, by index 0..count-1 (the Needs-you
 * queue, the fleet's cost): box i's sandbox id and name (borrowed, valid until the next
 * change; either pointer may be NULL) and its status as e2b_live_agent (NULL: not watched). */
size_t e2b_live_agent_count(const e2b_live *m);
const e2b_agent_status *e2b_live_agent_at(const e2b_live *m, size_t i, const char **sandbox_id,
                                          const char **name);
/* Box i's sandbox as e2b_live_agent_sandbox, without a search (the fleet's cost: linear). */
const e2b_sandbox *e2b_live_agent_sandbox_at(const e2b_live *m, size_t i);
/* A turn owed to the agent of sandbox_id (core/agent/turn_owed.h; a prompt through the model
 * that the server accepted marks its record, and the watch that sees the turn end clears it):
 * the verdict on its mark now, WAIT while owed; SEEN or LOST once the mark this model judged
 * went so; NONE when none was owed. *owed_ms (may be NULL): when the prompt was sent (the
 * mark, or the one that went), 0 none. Judged again now (a mark grows old while its box is
 * idle and silent: lost). */
e2b_turn_owed_verdict e2b_live_agent_owed(e2b_live *m, const char *sandbox_id,
                                          int64_t *owed_ms);
/* How many watched boxes are waiting for the user (for the status line). */
size_t e2b_live_agents_waiting(const e2b_live *m);

/* Commands on a box's agent (the result is a notice and its waiter's end, e2b_live_then:
 * a prompt's session in end->session_id; the status follows through its stream). Return 0
 * when sent, or -1 when refused (not watched, nothing pending: notice, E2B_ERR_INVALID). */
/* Replies to request_id (NULL = the oldest pending) with once, always or reject. */
int e2b_live_agent_reply(e2b_live *m, const char *sandbox_id, const char *request_id,
                         e2b_agent_reply reply);
/* Answers question request_id (NULL = the oldest) with option (1-based) or, when option is
 * 0, with text (core/agent/watch.h e2b_agent_watch_answer). */
int e2b_live_agent_answer(e2b_live *m, const char *sandbox_id, const char *request_id,
                          const char *text, int option);
/* Sends text to session_id (NULL = the active session, or a new one when there is none),
 * or to a new session when new_session. */
int e2b_live_agent_prompt(e2b_live *m, const char *sandbox_id, const char *session_id,
                          bool new_session, const char *text);
/* The same with a model ("provider/model", NULL = the configured one): a group member's
 * (--try --models). */
int e2b_live_agent_prompt_model(e2b_live *m, const char *sandbox_id, const char *session_id,
                                bool new_session, const char *text, const char *model);
/* Interrupts the turn running in the box. */
int e2b_live_agent_interrupt(e2b_live *m, const char *sandbox_id);
/* Whether every pending request of sandbox_id's agent is one its approval rules allow (the
 * watch answers it by itself: nobody needs to). */
bool e2b_live_agent_ruled(const e2b_live *m, const char *sandbox_id);
/* The box's approval rules as its agent applies them: returns yes-all; *nrules the count. */
bool e2b_live_agent_rules(const e2b_live *m, const char *sandbox_id, size_t *nrules);

#endif
