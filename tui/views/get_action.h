/* Fetch files from a box (D in the Changes and Detail panes; e2b-tui --get): the status line
 * asks which paths of the box (relative to its project, or in /tmp; the selected file of
 * the Changes pane first), then into which local folder (the dashboard's current one
 * first); the copy runs as a box operation (progress on the status line and in Operations,
 * ctrl-x cancels) and its end is a message. Existing local files are never overwritten
 * here: the message says to use e2b-tui --get --force. */
#ifndef E2B_TUI_GET_ACTION_H
#define E2B_TUI_GET_ACTION_H

#include "tui/ui.h"

void get_action_open(struct ui *ui, const char *sandbox_id, const char *initial_path);

#endif
