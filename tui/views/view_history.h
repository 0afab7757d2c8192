/* The History pane (H; :history [NAME]): the agents' state changes with their times, newest
 * last ("beta started waiting: bash: ...", "gamma idle: interrupted", "allowed by rule
 * ..."), of one box or of every box, as every process that watched them wrote them to
 * history.log (core/live/live.h "the agents' history"). The model's follower reads the file
 * on a thread of its own, the newest E2B_LIVE_HISTORY_CAP entries, and follows new lines
 * while the pane shows (it sleeps on inotify: nothing runs while nothing changes); the
 * list stays at its end when it was there, so new lines come into view. */
#ifndef E2B_TUI_VIEW_HISTORY_H
#define E2B_TUI_VIEW_HISTORY_H

#include "tui/ui.h"

/* Opens the pane for box name (NULL or "": the box of the tab's selected row, or every box
 * when that is not a box; every: every box). */
void view_history_open(struct ui *ui, const char *name, bool every);

#endif
