/* keystore: box server passwords, kept in the OS keyring (Secret Service via libsecret), in
 * a 0600 file, or in memory (tests). This is the only part of e2b-tui that includes
 * libsecret or GLib; it sits below core/ and includes nothing from it.
 *
 * An entry is keyed by the box name AND the sandbox id. Both are stored in clear text (as
 * keyring attributes or in the file) and must carry no secret; only the password is secret.
 *
 * Blocking: every keystore_* call below except the job API may block (a keyring call can wait
 * on an unlock prompt or a stuck D-Bus peer; the Secret Service backend bounds each call by
 * its timeout). The UI thread must use the job API (keystore_job_*), which runs a call on a
 * worker thread and calls the caller's wake function when it is done or has timed out.
 *
 * Passwords: a password returned to the caller is a malloc'd copy; free it with
 * keystore_password_free(), which wipes it first. Passwords are never logged and never
 * appear in error messages.
 *
 * Thread safety: one keystore may be used from several threads at once (the backends lock
 * what they share). */
#ifndef E2B_KEYSTORE_H
#define E2B_KEYSTORE_H

#include <stdbool.h>
#include <stddef.h>

/* ---- errors ------------------------------------------------------------------------------ */

typedef enum {
    KS_OK = 0,
    KS_ERR_NOT_FOUND,  /* no entry for that box and sandbox (the backend works) */
    KS_ERR_LOCKED,     /* the keyring exists but is locked (or unlocking was refused) */
    KS_ERR_NO_SERVICE, /* no session bus, no Secret Service provider, or no default keyring */
    KS_ERR_TIMEOUT,    /* the backend did not answer in time */
    KS_ERR_CANCELLED,  /* the user dismissed an unlock prompt */
    KS_ERR_PERMISSION, /* unsafe file modes, a symlink, a file owned by someone else, EACCES */
    KS_ERR_IO,         /* a read/write/D-Bus failure not covered above */
    KS_ERR_CORRUPT,    /* the password file cannot be parsed */
    KS_ERR_INVALID,    /* a bad argument (empty name, unknown --keystore value, ...) */
    KS_ERR_NOMEM,
} ks_code;

/* A code plus one human sentence that says what failed and what the user can do. The message
 * never contains a password. It may quote text received from D-Bus (control characters are
 * replaced by '?'), so the TUI still sanitises it before drawing, like any other text. */
typedef struct {
    ks_code code;
    char message[480];
} ks_error;

/* "ok", "not-found", "locked", "no-service", "timeout", ...: stable names for logs/tests. */
const char *ks_code_name(ks_code code);

/* ---- opening a store --------------------------------------------------------------------- */

typedef struct keystore keystore;

typedef enum {
    KS_BACKEND_SECRET_SERVICE,
    KS_BACKEND_FILE,
    KS_BACKEND_MEMORY,
} ks_backend;

/* In-memory store (tests, or a session that must keep nothing). Never fails except NOMEM. */
keystore *keystore_open_memory(ks_error *err);

/* File store: one file `path` (e.g. $XDG_STATE_HOME/e2b-tui/passwords). Its directory is
 * created 0700 if missing (a group/world-accessible existing directory is tightened to 0700);
 * the file is written 0600, atomically (temp file, fsync, rename), under a lock file
 * `path.lock` so that two processes never lose each other's updates. A file that is a
 * symlink, not owned by the user, or group/world-accessible is refused (KS_ERR_PERMISSION). */
keystore *keystore_open_file(const char *path, ks_error *err);

/* Secret Service store (libsecret, default collection). Probes the service first: with no
 * bus, no provider or no default collection it fails with KS_ERR_NO_SERVICE, so that a
 * later lookup returning nothing really means "not found". timeout_ms bounds the probe and
 * every later call (0 = 25000). */
keystore *keystore_open_secret_service(unsigned timeout_ms, ks_error *err);

/* Drops the caller's reference. Jobs still running keep the store alive until they end. */
void keystore_close(keystore *ks);

ks_backend keystore_backend(const keystore *ks);
/* "secret-service", "file" or "memory". */
const char *keystore_backend_name(const keystore *ks);
/* Where the passwords are: the file path, "default keyring collection" or "memory". Owned
 * by the store. */
const char *keystore_location(const keystore *ks);

/* ---- selection (--keystore, E2B_TUI_KEYSTORE, config key `keystore`) ---------------------- */

typedef enum {
    KS_CHOICE_AUTO,
    KS_CHOICE_SECRET_SERVICE,
    KS_CHOICE_FILE,
    KS_CHOICE_MEMORY, /* for tests: nothing survives the process */
} ks_choice;

/* Parses "auto", "secret-service" (also "secret_service", "keyring", "libsecret"), "file",
 * "memory". Returns false for anything else. */
bool ks_choice_parse(const char *text, ks_choice *out);
const char *ks_choice_name(ks_choice c);

typedef struct {
    const char *flag;      /* value of --keystore=, or NULL */
    const char *env;       /* value of E2B_TUI_KEYSTORE, or NULL (empty counts as unset) */
    const char *config;    /* value of the config key `keystore`, or NULL */
    const char *file_path; /* file backend path; NULL = keystore_default_file_path() */
    unsigned timeout_ms;   /* Secret Service call timeout, 0 = 25000 */
} ks_select;

/* Which choice wins: flag, then env, then config, then auto. *source is set to a static
 * string naming where it came from ("--keystore", "E2B_TUI_KEYSTORE", "config", "default").
 * An unknown value is KS_ERR_INVALID with a message naming its source. */
bool ks_select_resolve(const ks_select *sel, ks_choice *choice, const char **source, ks_error *err);

/* Resolves the choice and opens that store. For `auto`, the Secret Service is tried first;
 * when it is absent (KS_ERR_NO_SERVICE only: a locked keyring or a timeout is an error, not
 * a reason to write plain text) the file store is opened and *warning is set to a malloc'd
 * sentence naming the file, which the caller must show to the user (and free). *warning is
 * NULL otherwise. Returns NULL with err set on failure. */
keystore *keystore_open_selected(const ks_select *sel, char **warning, ks_error *err);

/* What keystore_open_selected(sel) would use, probed (the Secret Service is asked; no file
 * is created or read): "secret-service (<where>; <choice source>)", "file <path> (auto: no
 * keyring: <reason>)", ... or why none is usable. A malloc'd line for `e2b-tui --info`, or
 * NULL when out of memory. */
char *keystore_describe(const ks_select *sel);

/* $XDG_STATE_HOME/e2b-tui/passwords, or $HOME/.local/state/e2b-tui/passwords. malloc'd;
 * NULL (err set) when neither variable is usable. */
char *keystore_default_file_path(ks_error *err);

/* ---- entries ----------------------------------------------------------------------------- */

/* Stores (or replaces) the password of box `box` in sandbox `sandbox_id`. box and sandbox_id
 * must be non-empty, at most 255 bytes, without control characters; password non-empty, at
 * most 4096 bytes, without NUL. Returns KS_OK or an error code (err set). */
ks_code keystore_put(keystore *ks, const char *box, const char *sandbox_id, const char *password,
                     ks_error *err);

/* On KS_OK, *password is a malloc'd copy: free it with keystore_password_free().
 * KS_ERR_NOT_FOUND when there is no entry (and the backend is known to work). */
ks_code keystore_get(keystore *ks, const char *box, const char *sandbox_id, char **password,
                     ks_error *err);

/* Deletes the entry. sandbox_id NULL deletes every entry of that box. KS_ERR_NOT_FOUND when
 * nothing matched (callers such as `kill` may treat that as success). */
ks_code keystore_delete(keystore *ks, const char *box, const char *sandbox_id, ks_error *err);

typedef struct {
    char *box;
    char *sandbox_id;
} ks_entry;

/* Lists every entry (no passwords) into a malloc'd array sorted by box then sandbox id;
 * free it with ks_entries_free(). An empty store gives KS_OK, *entries NULL, *count 0. */
ks_code keystore_list(keystore *ks, ks_entry **entries, size_t *count, ks_error *err);
void ks_entries_free(ks_entry *entries, size_t count);

/* Wipes (explicit_bzero) and frees a password returned by this library. NULL is fine. */
void keystore_password_free(char *password);

/* ---- non-blocking use: jobs --------------------------------------------------------------- */

/* Called on the worker thread (or at the deadline, on the timer) exactly once when the job
 * has a result. It must be quick and thread-safe, and must not call keystore_job_* (it runs
 * with the job locked): e.g. a function that calls curl_multi_wakeup() on the UI loop's
 * multi handle. */
typedef void (*ks_wake_fn)(void *ctx);

typedef struct ks_job ks_job;

/* Each call starts one worker thread running the operation and returns at once (NULL only
 * when out of memory or no thread can be started: err set). The job holds its own copies of
 * the arguments (the password copy is wiped when the job is freed) and a reference to ks.
 * timeout_ms (0 = 30000) is a hard bound: when it passes, the job ends with KS_ERR_TIMEOUT
 * and calls wake, even if the backend call is still stuck; the worker then finishes in the
 * background and its late result is discarded. wake may be NULL (poll keystore_job_done). */
ks_job *keystore_job_put(keystore *ks, const char *box, const char *sandbox_id,
                         const char *password, unsigned timeout_ms, ks_wake_fn wake, void *wake_ctx,
                         ks_error *err);
ks_job *keystore_job_get(keystore *ks, const char *box, const char *sandbox_id, unsigned timeout_ms,
                         ks_wake_fn wake, void *wake_ctx, ks_error *err);
ks_job *keystore_job_delete(keystore *ks, const char *box, const char *sandbox_id,
                            unsigned timeout_ms, ks_wake_fn wake, void *wake_ctx, ks_error *err);
ks_job *keystore_job_list(keystore *ks, unsigned timeout_ms, ks_wake_fn wake, void *wake_ctx,
                          ks_error *err);

/* Opens the store chosen by sel (see keystore_open_selected) on a worker thread, so that even
 * the Secret Service probe never blocks the UI. sel's strings are copied. Its timeout_ms is
 * capped by the job's timeout. Take the result with keystore_job_take_store(). */
ks_job *keystore_job_open(const ks_select *sel, unsigned timeout_ms, ks_wake_fn wake,
                          void *wake_ctx, ks_error *err);

/* For a done open job with KS_OK: the store (the caller closes it) and *warning (the auto
 * fallback sentence, or NULL; the caller frees it). Moved out once; NULL otherwise. */
keystore *keystore_job_take_store(ks_job *job, char **warning);

/* Non-blocking: true once the job has a result (success, error or timeout). */
bool keystore_job_done(ks_job *job);

/* Blocks until the job is done (bounded by its timeout). For one-shot command-line modes and
 * tests; the UI loop uses wake + keystore_job_done instead. */
void keystore_job_wait(ks_job *job);

/* The result of a done job (KS_ERR_INVALID with a message if it is not done yet). For a get
 * job, *password (if not NULL) receives the password, which the caller then owns
 * (keystore_password_free). For a list job, *entries and *count (if not NULL) receive the
 * entries (ks_entries_free). Ownership moves out once: a second call gets NULL/0. */
ks_code keystore_job_result(ks_job *job, ks_error *err, char **password, ks_entry **entries,
                            size_t *count);

/* Releases the caller's hold on the job; never blocks. A job that is still running goes on
 * in the background (its result is then wiped and dropped) and wake is not called. */
void keystore_job_free(ks_job *job);

/* Waits up to timeout_ms for every job thread of the process to end (a stuck keyring call
 * ends at its own timeout). For a clean exit; true when none is left. */
bool keystore_jobs_drain(unsigned timeout_ms);

/* ---- logging ----------------------------------------------------------------------------- */

/* GLib and libsecret print warnings to stderr, which would corrupt the curses screen. This
 * installs (once per process) a GLib log writer and print handlers that send every message to
 * `log(ctx, level, domain, message)` instead; level is "error", "critical", "warning",
 * "message", "info" or "debug". log NULL discards the messages. May be called again to
 * change the sink (e.g. to the log file once it is open). keystore_open_secret_service()
 * installs the writer too, so that nothing reaches the terminal even without this call.
 * log may run on any thread, under a lock: it must be quick and must not log through GLib. */
typedef void (*ks_log_fn)(void *ctx, const char *level, const char *domain, const char *message);
void keystore_set_log(ks_log_fn log, void *ctx);

#endif
