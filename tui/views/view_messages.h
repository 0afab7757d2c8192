/* The Messages pane (`:messages`, ctrl-g): the status line's history (tui/messages.h),
 * oldest first, each message whole (wrapped to the width) with its time; it follows the
 * newest unless scrolled up. */
#ifndef E2B_TUI_VIEW_MESSAGES_H
#define E2B_TUI_VIEW_MESSAGES_H

#include "tui/ui.h"

struct view *view_messages_new(struct ui *ui);

#endif
