/* The sandbox's E2B logs (v2 logs API) for the Log pane, fetched incrementally: the newest
 * entries first (one "backward" page), then, every refresh interval while shown, only what
 * is new ("forward" from the last timestamp seen, in ms). The cursor is inclusive, so the
 * entries at exactly that millisecond are remembered and skipped the next time.
 *
 *   struct log_e2b *e = log_e2b_open(m, id);
 *   log_e2b_set_active(e, true);   // fetch now and poll; false: stop the timer (not shown)
 *   ... draw e's lines and log_e2b_error(e) ...
 *   log_e2b_close(e);              // cancels; the memory goes when the last callback ran */
#ifndef E2B_LIVE_LOG_E2B_H
#define E2B_LIVE_LOG_E2B_H

#include <stdbool.h>

#include "core/live/live.h"
#include "core/live/log_lines.h"

struct log_e2b;

struct log_e2b *log_e2b_open(e2b_live *m, const char *sandbox_id);
void log_e2b_close(struct log_e2b *e);
void log_e2b_set_active(struct log_e2b *e, bool active);
struct log_lines *log_e2b_lines(struct log_e2b *e);
/* The last fetch's error ("" when it worked); owned by e. */
const char *log_e2b_error(const struct log_e2b *e);
/* True until the first reply arrived. */
bool log_e2b_loading(const struct log_e2b *e);

#endif
