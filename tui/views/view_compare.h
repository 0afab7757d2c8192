/* The Compare pane of a group of attempts (`:compare NAME`, or `:compare` on a member's
 * row): one row per member (state, model, diff against the group's base, the result of
 * test_command in it), the group's summary ("3/5 done, 2 passing") in its header; the tests
 * run in each member once its turn has ended (the model's E2B_LIVE_OP_TEST); p pulls the
 * selected member as the group's branch e2b/NAME and says which member it was; c opens the
 * selected member's Changes pane. */
#ifndef E2B_TUI_VIEW_COMPARE_H
#define E2B_TUI_VIEW_COMPARE_H

#include "tui/ui.h"

/* Opens the pane for group (NULL or "": the group of the selected box); an unknown group is
 * said on the status line. */
void view_compare_open(struct ui *ui, const char *group);

#endif
