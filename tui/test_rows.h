/* A test-only data source for the sandbox lists, until core's model and API loop land.
 * When E2B_TUI_TEST_ROWS names a file, its lines fill the Boxes, Workspaces and All
 * sandboxes views (and the status line says the rows are test data). This drives the real
 * list widget, sanitising, sort and filter with names no server would send today (escape
 * sequences, CJK, emoji, thousands of rows). Remove it once the tests can use e2b-local.
 *
 * Line format, tab-separated:  kind  id  name  template  state  cpu  mem  ends
 * kind is box, workspace or other; '#' lines and blank lines are skipped. */
#ifndef E2B_TUI_TEST_ROWS_H
#define E2B_TUI_TEST_ROWS_H

#include "tui/ui.h"

/* Loads the file named by E2B_TUI_TEST_ROWS, if set. Returns the number of rows, 0 when the
 * variable is unset, -1 on error (message flashed). */
int test_rows_load(struct ui *ui);

#endif
