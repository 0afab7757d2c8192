/* One box operation as a line of text: "pull feat-x: uploading [####....] 1.2/3.0 KiB",
 * for the status line and the Operations pane. No curses. */
#ifndef E2B_TUI_OP_STATUS_H
#define E2B_TUI_OP_STATUS_H

#include <stddef.h>

#include "core/live/live.h"

void op_status_format(const e2b_live_op_info *op, char *buf, size_t bufsz);
/* Only the bytes: "[####......] 1.2/3.0 KiB" with a total, "12.0 KiB" without, "" for a
 * step that moves none (the Operations pane's PROGRESS column). */
void op_status_progress(const e2b_live_op_info *op, char *buf, size_t bufsz);

#endif
