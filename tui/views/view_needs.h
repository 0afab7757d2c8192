/* The "Needs you" pane (!, :needs): every pending permission request and question of every
 * watched box, oldest first, with the box, the kind, what it asks (sanitised when stored:
 * core/agent/agent.h) and how long it has waited. y / Y / n reply to the selected permission
 * request, A answers the selected question in place (an option's number or typed text),
 * Enter opens that box's Agent pane. The rows are the model's statuses (each watch's
 * snapshot of its server), so a restarted dashboard lists again what is still pending.
 *
 * needs_jump (] from any view): the Agent pane of the next box that needs you after the one
 * jumped to last, cycling through the boxes in queue order. */
#ifndef E2B_TUI_VIEW_NEEDS_H
#define E2B_TUI_VIEW_NEEDS_H

#include "tui/ui.h"

struct view *view_needs_new(struct ui *ui);
void needs_jump(struct ui *ui);

#endif
