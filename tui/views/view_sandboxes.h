/* The sandbox list views (Boxes, Workspaces, All sandboxes): one view, parameterised by its
 * filter (tui/sandbox_rows.h). The rows follow the live model; the actions on the selected
 * sandbox (stop, resume, kill, extend, attach, pull, logs, detail) go to the model by the
 * row's sandbox id. The Boxes view also marks rows (space, * for every row shown; Esc
 * clears them), after which y n i m s p act on every marked box (tui/views/batch_actions.h),
 * and shows the selected box's activity or changes beside the list on a wide screen (P). */
#ifndef E2B_TUI_VIEW_SANDBOXES_H
#define E2B_TUI_VIEW_SANDBOXES_H

#include <stddef.h>

#include "tui/sandbox_rows.h"
#include "tui/ui.h"

struct view *view_sandboxes_new(enum sandbox_filter f);

/* The running sandboxes among v's rows on screen (their metrics are asked): ids borrowed
 * from v's rows. Returns how many, at most max. */
size_t view_sandboxes_running_ids(struct view *v, const char **ids, size_t max);

/* How many rows of the Boxes view v are marked (0 for the other views). */
size_t view_sandboxes_marked(const struct view *v);

#endif
