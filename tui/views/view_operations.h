/* The Operations pane (o, :ops): every running box operation of the model (up, attach,
 * pull, kill) with its box, sandbox, step, bytes and a bar; ctrl-x cancels the selected one.
 * The rows follow the model's E2B_LIVE_OPS changes; an operation that ends leaves the list
 * (its result is in the status line). */
#ifndef E2B_TUI_VIEW_OPERATIONS_H
#define E2B_TUI_VIEW_OPERATIONS_H

#include "tui/ui.h"

struct view *view_operations_new(struct ui *ui);

#endif
