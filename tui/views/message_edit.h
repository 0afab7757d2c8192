/* m / M on a box: the next task for its agent, typed in the multi-line prompt (Enter: a new
 * line, ctrl-d: send) or, for a long one, in $EDITOR (ctrl-e: the text so far goes into a
 * private temporary file; saving it non-empty sends it, empty cancels). Sent through
 * e2b_live_agent_prompt to the given session, or a new one. */
#ifndef E2B_TUI_MESSAGE_EDIT_H
#define E2B_TUI_MESSAGE_EDIT_H

#include <stdbool.h>

#include "tui/ui.h"

/* session_id NULL (or new_session): a new session. name: the box's words (sanitised). */
void message_edit_open(struct ui *ui, const char *id, const char *name, const char *session_id,
                       bool new_session);

#endif
