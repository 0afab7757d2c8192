/* Core's sandboxes (from the live model, core/live/live.h) as the rows of a sandbox list
 * view: what each column shows, and which sandboxes a view's filter keeps. No curses.
 *
 * Columns: NAME (e2b_live_sandbox_name), BRANCH (a box's git branch, "-" for others), ID,
 * TEMPLATE (alias or id), STATE, CPU (percent in use) and MEM (MiB in use) from the latest
 * metric, "-" without one (paused or not sampled yet; the sandbox's size is in the Detail
 * pane), ENDS (time left: "3d 04h", "2h 05m", "42m", "9:59" in the last ten minutes;
 * "expired" once past; "paused"; "-" unknown), AGENT, TODO and COST ("-" here: the agent's
 * cells come from tui/agent_text.h, agent_text_apply), KIND (All only). Every cell is sanitised by the table when the
 * rows are set.
 *
 * A refresh costs what changed: rows are updated in place (tui/widgets/table.h) and
 * *changed says whether some cell did; the clock touches only ENDS, metrics only CPU/MEM. */
#ifndef E2B_TUI_SANDBOX_ROWS_H
#define E2B_TUI_SANDBOX_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/e2b/objects.h"
#include "tui/widgets/table.h"

/* Column order of every sandbox row: the cells handed to the table. */
enum { SBCOL_NAME, SBCOL_BRANCH, SBCOL_ID, SBCOL_TEMPLATE, SBCOL_STATE, SBCOL_CPU, SBCOL_MEM,
       SBCOL_ENDS, SBCOL_AGENT, SBCOL_TODO, SBCOL_COST, SBCOL_GROUP, SBCOL_KIND, SBCOL_COUNT };
/* KIND ("box", "workspace", "other") is last: only All shows it (the other views' tables
 * have SBCOL_COUNT - 1 columns, so their rows' last cell is not drawn). */

/* GROUP: a group member's group and its summary ("g: 3/5 done, 2 passing"), "-" for the
 * rest. */

/* Which sandboxes a view lists. */
enum sandbox_filter { SANDBOX_FILTER_BOXES, SANDBOX_FILTER_WORKSPACES, SANDBOX_FILTER_ALL };

bool sandbox_rows_keeps(enum sandbox_filter f, const e2b_sandbox *sb);

/* Writes the time from now to end into buf: "3d 04h", "2h 05m", "42m", in the last ten
 * minutes "9:59" (seconds count), "expired", or "-" when end is 0 (unknown). */
void sandbox_rows_format_remaining(time_t end, time_t now, char *buf, size_t bufsz);

/* Seconds after now until sandbox_rows_format_remaining(end, ...) shows another text (1 in the
 * last ten minutes, else at the next minute or hour), or -1 when it never will (expired or
 * unknown). */
long sandbox_rows_remaining_next_change(time_t end, time_t now);

/* Sets t's rows from the sandboxes f keeps (list and metrics borrowed; metrics in
 * e2b_live_metrics' order). Returns 0, or -1 when out of memory (old rows stay). */
int sandbox_rows_fill(struct table *t, enum sandbox_filter f, const e2b_sandbox_list *list,
                      const e2b_metric_list *metrics, time_t now, bool *changed);

/* Updates the ENDS cells for a new time (the countdown); only cells whose text changed are
 * touched, the cursor, sort and filter stay. Rebuilds the rows when they are not list's. */
int sandbox_rows_redraw_times(struct table *t, enum sandbox_filter f,
                              const e2b_sandbox_list *list, const e2b_metric_list *metrics,
                              time_t now, bool *changed);

/* Updates the CPU and MEM cells from new metrics. */
int sandbox_rows_set_usage(struct table *t, enum sandbox_filter f, const e2b_sandbox_list *list,
                           const e2b_metric_list *metrics, time_t now, bool *changed);

/* Seconds after now until the ENDS text of some running sandbox changes, or -1 when none
 * will (the clock can sleep). */
long sandbox_rows_next_change(const e2b_sandbox_list *list, time_t now);

struct e2b_live;
/* Sets the GROUP cell of every row from the model's groups (tui/sandbox_rows.c); *any set
 * when a row is a group member; *changed when a cell changed. */
void sandbox_rows_set_groups(struct table *t, const struct e2b_live *m, bool *any, bool *changed);

#endif
