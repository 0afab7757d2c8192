/* The Rules pane (ctrl-r: the selected box; :rules NAME; :rules alone: every box): for
 * each box, e2b-tui's approval rules (its record's, core/agent/rules.h, yes-all included)
 * and the server's saved "always" answers. The server's list is asked through the model
 * (core/live does the I/O; the rows come with E2B_LIVE_AGENTS), once per box when its agent
 * is reached; an OpenCode 1 server has no route that lists them, and the pane says so on
 * the box's row instead of showing none. x revokes the selected rule or saved answer after
 * a question naming it; the rows are read again after (the records; the server's list).
 * Every text is the model's (the records checked by core, the server's sanitised and
 * bounded by the parser) and the table sanitises its cells again. */
#ifndef E2B_TUI_VIEW_RULES_H
#define E2B_TUI_VIEW_RULES_H

#include "tui/ui.h"

/* Opens the pane for box name (NULL or "": the box of the tab's selected row, or every box
 * when that is not a box; every: every box whatever is selected). Says why when the name
 * is not a box of this machine. */
void view_rules_open(struct ui *ui, const char *name, bool every);

#endif
