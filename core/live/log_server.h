/* The box server's live output for the Log pane: the recent history (the last 64 KiB of
 * E2B_BOX_SERVER_LOG, read with a short `tail` in the box), then every new byte through
 * envd's Process/Connect on the tag E2B_BOX_SERVER_TAG.
 *
 * Each attempt asks E2B for the sandbox first (its state, envd's token), then connects. When
 * the stream ends (server exited, connection lost, sandbox paused or killed) the status says
 * so in words a user can act on and the follower tries again with backoff (1 s doubling to
 * 30 s) while it is open; a sandbox that is gone is not retried. After a reconnection the
 * history is read again and only the part not yet shown is added, so nothing printed while
 * disconnected is lost (up to 64 KiB) and nothing is shown twice.
 *
 * Idle cost: the stream is one more transfer in core's loop; no timer runs while it is up.
 *
 *   struct log_server *s = log_server_open(m, id);    // starts at once; NULL: out of memory
 *   ... draw s->lines and log_server_status(s) ...; every change is an E2B_LIVE_LOGS notification
 *   log_server_retry_now(s);                          // e.g. after the user resumed the box
 *   log_server_close(s);   // cancels everything; the memory goes when the last callback ran */
#ifndef E2B_LIVE_LOG_SERVER_H
#define E2B_LIVE_LOG_SERVER_H

#include <stdbool.h>

#include "core/live/live.h"
#include "core/live/log_lines.h"

struct log_server;

struct log_server *log_server_open(e2b_live *m, const char *sandbox_id);
void log_server_close(struct log_server *s);

/* The lines received so far (owned by s). */
struct log_lines *log_server_lines(struct log_server *s);
/* What the stream is doing, one line (owned by s); *error is true when it is a problem. */
const char *log_server_status(const struct log_server *s, bool *error);
/* Reconnects now (resets the backoff) unless the stream is up or an attempt is running. */
void log_server_retry_now(struct log_server *s);

#endif
