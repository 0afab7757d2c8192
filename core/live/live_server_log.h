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
 *   struct e2b_live_server_log *s = e2b_live_server_log_open(m, id);   // NULL: out of memory
 *   ... draw s->lines and e2b_live_server_log_status(s) ...;   // changes: E2B_LIVE_LOGS
 *   e2b_live_server_log_retry_now(s);   // e.g. after the user resumed the box
 *   e2b_live_server_log_close(s);   // cancels everything; the memory goes with the last callback
 * It starts at once. */
#ifndef E2B_LIVE_SERVER_LOG_H
#define E2B_LIVE_SERVER_LOG_H

#include <stdbool.h>

#include "core/live/live.h"
#include "core/live/live_lines.h"

struct e2b_live_server_log;

struct e2b_live_server_log *e2b_live_server_log_open(e2b_live *m, const char *sandbox_id);
void e2b_live_server_log_close(struct e2b_live_server_log *s);

/* The lines received so far (owned by s). */
struct e2b_live_lines *e2b_live_server_log_lines(struct e2b_live_server_log *s);
/* What the stream is doing, one line (owned by s); *error is true when it is a problem. */
const char *e2b_live_server_log_status(const struct e2b_live_server_log *s, bool *error);
/* Reconnects now (resets the backoff) unless the stream is up or an attempt is running. */
void e2b_live_server_log_retry_now(struct e2b_live_server_log *s);

#endif
