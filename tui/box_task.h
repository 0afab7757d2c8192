/* Box operations from the dashboard (u up, a attach, p pull, and K on a box) through the
 * boxes' step machines (core/box/box.h). One runs at a time, in the background: the user keeps
 * browsing while the status line shows its step and a progress bar with bytes; ctrl-x
 * cancels it. The password store is opened on a worker thread the first time one is needed.
 * attach hands the terminal to the attach command (the password only in its environment)
 * and shows a non-zero exit in the status line. */
#ifndef E2B_TUI_BOX_TASK_H
#define E2B_TUI_BOX_TASK_H

#include <stddef.h>

#include "tui/ui.h"

/* Starts action a (ACT_UP, ACT_ATTACH, ACT_PULL, ACT_KILL) on box name (up: the new box's
 * name, "" = from the current branch; template and hours for up only, NULL/0 = config). */
void box_task_start(struct ui *ui, enum action_id a, const char *name, const char *template_id,
                    int hours);

/* Cancels the running operation (its done callback reports it). */
void box_task_cancel(struct ui *ui);

/* Writes the running operation's status ("pull feat-x: uploading [####....] 1.2/3.0 MB")
 * into buf; returns false when nothing runs. */
bool box_task_status(const struct ui *ui, char *buf, size_t bufsz);

/* At exit, before the loop is freed (ui->closing set): cancels the running operation and
 * runs the loop (at most 5 s) until it has cleaned up. */
void box_task_shutdown(struct ui *ui);

/* Closes the password store at exit (after the loop was freed). */
void box_task_free_all(struct ui *ui);

#endif
