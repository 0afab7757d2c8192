/* Core's sandboxes (core/e2b/model.h) as the rows of the three sandbox views: what each column
 * shows, and which view a sandbox belongs in (by its classification). No curses.
 *
 * Columns (tui/sandbox_list.h): NAME (the box name for boxes, else the metadata "name",
 * else the template alias, else the id), BRANCH (a box's git branch, "-" for others), ID, TEMPLATE (alias or id), STATE, CPU (percent
 * in use) and MEM (MiB in use) from the latest metric, "-" without one (paused or not
 * sampled yet; the sandbox's size is in the Detail pane), ENDS (time left: "3d 04h",
 * "2h 05m", "42m", "9:59" in the last ten minutes; "expired" once past; "paused"; "-"
 * unknown).
 * Every cell is sanitised by the table when the rows are set.
 *
 * A refresh costs what changed: rows are updated in place (tui/widgets/table.h) and the frame is
 * asked for (ui->dirty) only when some cell changed; the clock touches only ENDS. */
#ifndef E2B_TUI_SANDBOX_ROWS_H
#define E2B_TUI_SANDBOX_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/e2b/model.h"
#include "tui/ui.h"

/* Writes the time from now to end into buf: "3d 04h", "2h 05m", "42m", in the last ten
 * minutes "9:59" (seconds count), "expired", or "-" when end is 0 (unknown). */
void sandbox_format_remaining(time_t end, time_t now, char *buf, size_t bufsz);

/* Seconds after now until sandbox_format_remaining(end, ...) shows another text (1 in the
 * last ten minutes, else at the next minute or hour), or -1 when it never will (expired or
 * unknown). */
long sandbox_remaining_next_change(time_t end, time_t now);

/* Sets the rows of the Boxes, Workspaces and All sandboxes views from a classified list
 * and marks the three views loaded. On success the sandboxes move into ui->sandboxes (the
 * earlier ones are freed) and *list is left empty; returns 0. Returns -1 when out of
 * memory: the views keep their old rows and list stays the caller's. */
int sandbox_rows_fill(struct ui *ui, e2b_sandbox_list *list, time_t now);

/* Updates the ENDS cells from ui->sandboxes for a new time (the countdown); only cells whose
 * text changed are touched, the cursor, sort and filter stay. Returns 0, or -1 when out of
 * memory (old rows stay). */
int sandbox_rows_redraw_times(struct ui *ui, time_t now);

/* Takes the items of a metrics reply into ui->metrics (m is left empty; the earlier
 * metrics are freed), keeps them in sandbox id order for sandbox_rows_metric, and updates
 * the CPU and MEM cells. Returns 0, or -1 when out of memory (old cells stay). */
int sandbox_rows_set_metrics(struct ui *ui, e2b_metric_list *m, time_t now);

/* Is some running sandbox still counting down after the second now (so the ENDS column
 * will change)? */
bool sandbox_rows_counting(const struct ui *ui, time_t now);

/* Seconds after now until the ENDS text of some running sandbox changes, or -1 when none
 * will (the clock can sleep). */
long sandbox_rows_next_change(const struct ui *ui, time_t now);

/* The latest metric of that sandbox in ui->metrics (kept in id order by
 * sandbox_rows_set_metrics), or NULL. */
const e2b_metric *sandbox_rows_metric(const struct ui *ui, const char *id);

/* The sandbox with that id in ui->sandboxes, or NULL. */
const e2b_sandbox *sandbox_rows_find(const struct ui *ui, const char *id);

#endif
