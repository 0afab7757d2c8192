/* The Boxes view's snapshot and fork actions: S asks the snapshot's name, F how
 * many forks; both go to the live model by the row's sandbox id. */
#ifndef E2B_TUI_VIEW_SANDBOXES_SNAP_H
#define E2B_TUI_VIEW_SANDBOXES_SNAP_H

#include <stdbool.h>

#include "tui/actions.h"
#include "tui/ui.h"
#include "tui/widgets/table.h"

/* Handles ACT_SNAPSHOT and ACT_FORK on the selected row r (may be NULL); false for any other
 * action. */
bool view_sandboxes_snap_act(struct ui *ui, enum action_id a, const struct table_row *r);

#endif
