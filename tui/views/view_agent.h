/* The Agent pane (Enter or o on a box): the box's sessions with their state and title, the
 * selected session's recent activity (the assistant's text tail, tool calls with their
 * state), its todo list and the pending request in full; c switches to the Changes tab
 * (tui/views/view_changes.h) and back. The actions on the agent (y Y n m M i) work here as
 * on the row (tui/views/agent_actions.h).
 *
 * Everything shown is the model's (e2b_live_agent, sanitised and bounded by core). Frames
 * are coalesced: however fast the agent's text streams, the pane asks for at most one
 * frame every 100 ms. */
#ifndef E2B_TUI_VIEW_AGENT_H
#define E2B_TUI_VIEW_AGENT_H

#include "tui/ui.h"

/* name: the box's words (sanitised). NULL when out of memory. */
struct view *view_agent_new(struct ui *ui, const char *sandbox_id, const char *name);

#endif
