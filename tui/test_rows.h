/* A test-only data source for the sandbox lists, until the dashboard's API refresh lands.
 * When E2B_TUI_TEST_ROWS names a file, its lines become core sandboxes (core/model.h),
 * classified by core exactly as listed ones will be, and fill the views through the same
 * adapter (tui/sandbox_rows.h); the status line says the rows are test data. This drives
 * the list widget, sanitising, sort and filter with names a server could send (escape
 * sequences, CJK, emoji) and thousands of rows. Remove it once tests use e2b-local.
 *
 * Line format, tab-separated:
 *   id  template-alias  state  cpu  memory-mb  seconds-left  [key=value ...]
 * state is running or paused; cpu, memory-mb and seconds-left are "-" for unknown; each
 * further field is one metadata pair (e.g. "e2b-tui=box", "e2b-tui.name=feature-x"), so a
 * value may hold any byte but a tab or a newline. '#' lines are skipped. */
#ifndef E2B_TUI_TEST_ROWS_H
#define E2B_TUI_TEST_ROWS_H

#include "tui/ui.h"

/* Loads the file named by E2B_TUI_TEST_ROWS, if set. Returns the number of rows, 0 when the
 * variable is unset, -1 on error (message flashed). */
int test_rows_load(struct ui *ui);

#endif
