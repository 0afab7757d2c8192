/* The list widget: movement, filter, sort and drawing of a view's table. */
#ifndef E2B_TUI_LIST_H
#define E2B_TUI_LIST_H

#include "tui/ui.h"

/* A list view (has_table set) over a table of ncols columns, with ops and the text shown
 * while it has no rows; priv is NULL (a view with state of its own sets it: it is freed with
 * free()). NULL when out of memory. Every list view's destroy can be list_view_destroy. */
struct view *list_view_new(const struct view_ops *ops, const struct table_column *cols, int ncols,
                           const char *empty_text);
/* Frees a list view: its table, its priv and the view. */
void list_view_destroy(struct view *v);
/* Sets the table's rows (table_update_rows: updated in place) and marks the screen dirty when
 * a cell changed or the view had not loaded yet (setting v->loaded is the caller's). Returns 0,
 * or -1 when out of memory (the old rows stay). */
int list_set_rows(struct view *v, struct ui *ui, const struct table_row_in *rows, size_t n);

/* The generic list behaviour shared by list views. */
bool list_act(struct view *v, struct ui *ui, enum action_id a);
/* Only the cursor's moves (rows, pages, half pages, first, last): for panes with no filter. */
bool list_move_act(struct view *v, struct ui *ui, enum action_id a);
void list_draw(struct view *v, struct ui *ui, int y, int x, int h, int w);
/* A click on a header: sorts by the column with that letter (again: reversed); true when
 * it did. The keys sort with < > = (list_act). */
bool list_sort_key(struct view *v, struct ui *ui, int key);

#endif
