/* The live model: the dashboard's data, kept current, with no idea of how it is shown
 * (ncdu's dirlist under its browser, neovim's UI-independent state). One object owns the
 * loop, the API client, the config, the password store, the sandbox list with its metrics,
 * the secrets, the refresh timer and the running box operations, and runs the log
 * followers (core/live/log_server.h, core/live/log_e2b.h: made on the model, closed by
 * their opener). A UI subscribes to what it shows and reads through const accessors; it
 * changes things only through the commands below.
 *
 *   e2b_live *m = e2b_live_new(&opts, why, sizeof why);   // config only: no loop yet
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
 * Refresh (unchanged from the dashboard's first wave): every refresh lists all pages of
 * sandboxes, then asks the latest metrics of the running sandboxes a metrics source names
 * (those on the screen); the next refresh is scheduled when the list has answered, so calls
 * never pile up on a slow server. Secrets are listed at the start and then only while a
 * subscriber says it shows them. A failed call is a notice; the data already held stays. */
#ifndef E2B_LIVE_H
#define E2B_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/box/box.h"
#include "core/e2b/api.h"
#include "core/e2b/config.h"
#include "core/e2b/model.h"
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
    E2B_LIVE_ALL = 0x3fu,
};

typedef void (*e2b_live_fn)(void *ud, unsigned what);

/* The dashboard's flags that feed the config (argv strings, borrowed; NULL = not given). */
typedef struct e2b_live_options {
    int refresh_seconds; /* 0 = the config's refresh, else E2B_DEFAULT_REFRESH_S */
    const char *config_file, *domain, *api_url, *keystore;
} e2b_live_options;

/* Loads the config (defaults < file < environment < these flags). Never NULL except out of
 * memory; a config problem is written to why (empty when none) and the model still works
 * with what could be read. */
e2b_live *e2b_live_new(const e2b_live_options *o, char *why, size_t whysz);
/* Makes the loop and, with an API key, the client, and starts the first refresh. Returns
 * 0, or -1 when out of memory (no loop). A client that cannot be made is a notice. */
int e2b_live_start(e2b_live *m);
/* Cancels the box operations and gives them 5 s to clean up (a cancelled up kills the
 * sandbox it made), closes the followers, frees the loop (calls still in flight end; their
 * callbacks only free), closes the password store and frees everything. NULL is fine. */
void e2b_live_free(e2b_live *m);

/* Subscribes cb to the bits in mask. Returns 0, or -1 when out of memory. */
int e2b_live_subscribe(e2b_live *m, unsigned mask, e2b_live_fn cb, void *ud);
void e2b_live_unsubscribe(e2b_live *m, e2b_live_fn cb, void *ud);

/* ---- accessors (owned by the model; valid until the next change of that kind) ---- */

e2b_loop *e2b_live_loop(const e2b_live *m);
const e2b_config *e2b_live_config(const e2b_live *m);
bool e2b_live_has_client(const e2b_live *m);
/* Shutting down: followers and callbacks only free. */
bool e2b_live_closing(const e2b_live *m);
long e2b_live_refresh_ms(const e2b_live *m);

enum e2b_live_list_state {
    E2B_LIVE_NO_CLIENT,    /* no API key (or no client): nothing is listed */
    E2B_LIVE_LOADING,      /* the first list is on its way */
    E2B_LIVE_LIST_FAILED,  /* the first list failed; retrying */
    E2B_LIVE_LISTED,       /* a list arrived */
};
enum e2b_live_list_state e2b_live_list_state(const e2b_live *m);
const e2b_sandbox_list *e2b_live_sandboxes(const e2b_live *m);
/* The sandbox with that id, or NULL. */
const e2b_sandbox *e2b_live_sandbox(const e2b_live *m, const char *id);
/* The latest metrics, in sandbox id order (newest first among equal ids). */
const e2b_metric_list *e2b_live_metrics(const e2b_live *m);
const e2b_metric *e2b_live_metric(const e2b_live *m, const char *id);
/* The secrets; secrets_listed is false until the first list arrived. */
const e2b_secret_list *e2b_live_secrets(const e2b_live *m, bool *secrets_listed);
bool e2b_live_secret_known(const e2b_live *m, const char *name);

/* The words a sandbox is called by: a box's name, else the metadata "name", else the
 * template alias, else the id. Raw text from the network: sanitise before drawing. */
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
int e2b_live_resume(e2b_live *m, const char *sandbox_id);
/* Kills it: a box through the boxes' kill (its record and password go too, when they are
 * this sandbox's), any other sandbox through the API. */
int e2b_live_kill(e2b_live *m, const char *sandbox_id);
int e2b_live_extend(e2b_live *m, const char *sandbox_id, int hours);

/* ---- secrets (core/e2b/secret_put.h: create, or update when it exists) ---- */

/* value is copied into the request and not kept. */
int e2b_live_secret_set(e2b_live *m, const char *name, const char *value);
int e2b_live_secret_remove(e2b_live *m, const char *name);

/* ---- box operations (any number at once, one per box) ---- */

typedef enum e2b_live_op_kind {
    E2B_LIVE_OP_UP,
    E2B_LIVE_OP_ATTACH,
    E2B_LIVE_OP_PULL,
    E2B_LIVE_OP_KILL,
} e2b_live_op_kind;

/* A running operation, as shown. Strings owned by the model (valid until its next change). */
typedef struct e2b_live_op_info {
    unsigned id;
    e2b_live_op_kind kind;
    const char *verb;       /* "up", "attach", "pull", "kill" */
    const char *name;       /* the box ("" = an up from the current branch) */
    const char *sandbox_id; /* "" when not known yet */
    const char *step;       /* "uploading" */
    int64_t done, total;    /* bytes of the step; 0 when they mean nothing */
    bool cancelling;
} e2b_live_op_info;

/* Starts an up (name "" = from the current branch; template NULL and hours 0 = config).
 * Returns the operation's id (> 0), or 0 when it was refused or could not start (notice). */
unsigned e2b_live_up(e2b_live *m, const char *name, const char *template_id, int hours);
/* Attach, pull or kill of the box shown as sandbox_id: the operation acts on that sandbox
 * (a local record of the same name that points elsewhere is not used). Refused while
 * another operation runs on the same box. Returns the id or 0 (notice). */
unsigned e2b_live_box_op(e2b_live *m, e2b_live_op_kind kind, const char *sandbox_id);

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

#endif
