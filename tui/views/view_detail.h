/* The Detail pane for the selected row of a list: the sandbox's full record when the model
 * holds it (id, name, kind, template, state, times, CPU/memory, branch, metadata), else the
 * row's columns. It keeps sanitised copies, so the list may refresh underneath. */
#ifndef E2B_TUI_VIEW_DETAIL_H
#define E2B_TUI_VIEW_DETAIL_H

#include "tui/ui.h"

/* NULL when nothing is selected or out of memory. */
struct view *view_detail_new(struct ui *ui, const struct view *list);

#endif
