/* The Log pane (l): for a box, the box server's live output (core/live/live_server_log.h) and,
 * on Tab, the sandbox's E2B logs (core/live/live_sandbox_log.h); for any other sandbox, the E2B
 * logs only. The newest line stays in view (follow) until the user scrolls up; End follows again.
 * Closing the pane cancels the stream and the polling. */
#ifndef E2B_TUI_VIEW_LOG_H
#define E2B_TUI_VIEW_LOG_H

#include "tui/ui.h"

/* The pane for sandbox id (shown as name); NULL when out of memory. */
struct view *view_log_new(struct ui *ui, const char *id, const char *name);

#endif
