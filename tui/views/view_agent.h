/* The Agent pane (Enter or o on a box): the box's sessions with their state and title, the
 * selected session's recent activity (the assistant's text tail, tool calls with their
 * state), its todo list and the pending request in full; c switches to the Changes tab
 * (tui/views/view_changes.h) and back; ( and ) show the previous and next box of the list
 * without leaving the pane. The actions on the agent (y Y n m M i) work here as
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

/* The preview beside the Boxes list (tui/views/view_sandboxes.c owns it): the state line,
 * the pending request and the activity of the box it is told to show, or its Changes; no
 * sessions and no keys of its own. It follows the model as the pane does (coalesced
 * frames) and reads a box's changes only once the choice of box rests. NULL when out of
 * memory; freed with its ops' destroy. */
struct view *view_agent_preview_new(struct ui *ui);
/* Shows the box sandbox_id (name: its sanitised words) in the pane or the preview; the same
 * box again changes nothing. */
void view_agent_show(struct view *v, const char *sandbox_id, const char *name);
/* Not shown for now: the Changes tab lets go of its panel (no reads of the box's git),
 * made again when it is drawn next. */
void view_agent_rest(struct view *v);
/* The Changes tab (true) or the activity; leaving Changes lets go of its panel. */
void view_agent_set_changes(struct view *v, bool changes);

#endif
