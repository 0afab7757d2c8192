/* The Help overlay: generated from the action table and the current key map, for the view
 * it was opened on; --readonly hides the actions that change something. */
#ifndef E2B_TUI_VIEW_HELP_H
#define E2B_TUI_VIEW_HELP_H

#include "tui/ui.h"

void view_help_draw(struct ui *ui);
bool view_help_act(struct ui *ui, enum action_id a);

#endif
