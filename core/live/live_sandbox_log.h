/* The sandbox's E2B logs (v2 logs API) for the Log pane, fetched incrementally: the newest
 * entries first (one "backward" page), then, every refresh interval while shown, only what
 * is new ("forward" from the last timestamp seen, in ms). The cursor is inclusive, so the
 * entries at exactly that millisecond are remembered and skipped the next time.
 *
 *   struct e2b_live_sandbox_log *e = e2b_live_sandbox_log_open(m, id);
 *   e2b_live_sandbox_log_set_active(e, true);   // fetch now and poll; false (not shown): no timer
 *   ... draw e's lines and e2b_live_sandbox_log_error(e) ...
 *   e2b_live_sandbox_log_close(e);   // cancels; the memory goes when the last callback ran */
#ifndef E2B_LIVE_SANDBOX_LOG_H
#define E2B_LIVE_SANDBOX_LOG_H

#include <stdbool.h>

#include "core/live/live.h"
#include "core/live/live_lines.h"

struct e2b_live_sandbox_log;

struct e2b_live_sandbox_log *e2b_live_sandbox_log_open(e2b_live *m, const char *sandbox_id);
void e2b_live_sandbox_log_close(struct e2b_live_sandbox_log *e);
void e2b_live_sandbox_log_set_active(struct e2b_live_sandbox_log *e, bool active);
struct e2b_live_lines *e2b_live_sandbox_log_lines(struct e2b_live_sandbox_log *e);
/* The last fetch's error ("" when it worked); owned by e. */
const char *e2b_live_sandbox_log_error(const struct e2b_live_sandbox_log *e);
/* True until the first reply arrived. */
bool e2b_live_sandbox_log_loading(const struct e2b_live_sandbox_log *e);

#endif
