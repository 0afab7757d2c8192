/* The list widget: movement, filter, sort and drawing of a view's table. */
#ifndef E2B_TUI_LIST_H
#define E2B_TUI_LIST_H

#include "tui/ui.h"

/* The generic list behaviour shared by list views. */
bool list_act(struct view *v, struct ui *ui, enum action_id a);
/* Only the cursor's moves (rows, pages, half pages, first, last): for panes with no filter. */
bool list_move_act(struct view *v, struct ui *ui, enum action_id a);
void list_draw(struct view *v, struct ui *ui, int y, int x, int h, int w);
/* Shift+letter: returns true when the letter sorted a column. */
bool list_sort_key(struct view *v, struct ui *ui, int key);

#endif
