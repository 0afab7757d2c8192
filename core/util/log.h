/* The request log: $XDG_STATE_HOME/e2b-tui/e2b-tui.log (file 0600, directory 0700).
 *
 * One line per request: time, method, path (never the query), status, milliseconds, trace
 * id, and the error message when it failed (an unchanged dashboard refresh writes one
 * summary line for all its list pages instead: core/e2b/api.c). Headers and bodies are never logged, so neither
 * the API key nor access tokens nor secret values can reach the file. Until e2b_log_open
 * succeeds (or after e2b_log_close), every call does nothing. Thread-safe. */
#ifndef E2B_LOG_H
#define E2B_LOG_H

#include "core/util/error.h"

/* Opens (creating directories 0700 and the file 0600; an existing file is set to 0600) and
 * appends. Returns NULL or an error.
 * The log is capped (config log_max, default 4 MiB): a line that would take it past the
 * cap first renames it to <path>.1 (one old file is kept) and starts a new one; safe with
 * several processes writing the same log (see the rotation block in log.c). */
e2b_error *e2b_log_open(const char *path);
/* The cap in bytes (0 = the default); takes effect at the next line. */
void e2b_log_set_max(long bytes);
void e2b_log_close(void);
/* The log's file descriptor (e.g. to send stderr there while curses is active), or -1. */
int e2b_log_fd(void);

/* One request line. path may hold a query string: it is cut off. status 0 = no response.
 * trace_id and error may be NULL. */
void e2b_log_request(const char *method, const char *path, long status, long ms,
                     const char *trace_id, const char *error);
/* A free-form line; never pass secrets. Control characters are replaced. */
void e2b_logf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
