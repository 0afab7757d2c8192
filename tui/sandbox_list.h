/* What the three sandbox list views (Boxes, Workspaces, All sandboxes) share: the columns
 * and the actions on the selected sandbox (stop, resume, kill, extend through core's API;
 * tui/refresh.c fills the rows from core's list). */
#ifndef E2B_TUI_SANDBOX_LIST_H
#define E2B_TUI_SANDBOX_LIST_H

#include "tui/ui.h"

/* Column order of every sandbox row: the cells handed to table_set_rows. */
enum { SBCOL_NAME, SBCOL_BRANCH, SBCOL_ID, SBCOL_TEMPLATE, SBCOL_STATE, SBCOL_CPU, SBCOL_MEM,
       SBCOL_ENDS, SBCOL_COUNT };

/* Creates a list view with the sandbox columns. */
struct view *sandbox_view_new(const struct view_ops *ops);
void sandbox_view_destroy(struct view *v);
void sandbox_view_draw(struct view *v, struct ui *ui, int y, int x, int h, int w);
/* Actions on the selected sandbox common to the three views. */
bool sandbox_view_act(struct view *v, struct ui *ui, enum action_id a);

#endif
