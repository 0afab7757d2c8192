/* Core's sandboxes (core/model.h) as the rows of the three sandbox views: what each column
 * shows, and which view a sandbox belongs in (by its classification). No curses.
 *
 * Columns (tui/sandbox_list.h): NAME (the box name for boxes, else the metadata "name",
 * else the template alias, else the id), ID, TEMPLATE (alias or id), STATE, CPU (count),
 * MEM (MiB), ENDS (time left, "h:mm:ss" or "Nd HHh"; "expired" once past; "-" unknown).
 * Every cell is sanitised by the table when the rows are set. */
#ifndef E2B_TUI_SANDBOX_ROWS_H
#define E2B_TUI_SANDBOX_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/model.h"
#include "tui/ui.h"

/* Writes the time from now to end into buf: "0:59:07", "3d 04h", "expired", or "-" when
 * end is 0 (unknown). */
void sandbox_format_remaining(time_t end, time_t now, char *buf, size_t bufsz);

/* Sets the rows of the Boxes, Workspaces and All sandboxes views from a classified list
 * and marks the three views loaded. On success the sandboxes move into ui->sandboxes (the
 * earlier ones are freed) and *list is left empty; returns 0. Returns -1 when out of
 * memory: the views keep their old rows and list stays the caller's. */
int sandbox_rows_fill(struct ui *ui, e2b_sandbox_list *list, time_t now);

/* Rebuilds the rows from ui->sandboxes for a new time (the ENDS countdown); the cursor,
 * sort and filter stay. Returns 0, or -1 when out of memory (old rows stay). */
int sandbox_rows_redraw_times(struct ui *ui, time_t now);

/* Is some running sandbox still counting down after the second now (so the ENDS column
 * will change)? */
bool sandbox_rows_counting(const struct ui *ui, time_t now);

/* The latest metric of that sandbox in ui->metrics, or NULL. */
const e2b_metric *sandbox_rows_metric(const struct ui *ui, const char *id);

/* The sandbox with that id in ui->sandboxes, or NULL. */
const e2b_sandbox *sandbox_rows_find(const struct ui *ui, const char *id);

#endif
