/* Attach's last step, the one the model cannot do: hand the terminal to the attach command
 * (the box password only in its environment) and say in the status line how it ended. The
 * live model calls it when an attach operation is ready (e2b_live_set_attach_handler). */
#ifndef E2B_TUI_ATTACH_H
#define E2B_TUI_ATTACH_H

#include "core/live/live.h"

/* ud is the struct ui. */
void attach_run(void *ud, const char *name, const e2b_box_result *r);

#endif
