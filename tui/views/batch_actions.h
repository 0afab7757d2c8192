/* y n i m s p on every marked box of the Boxes list (tui/views/view_sandboxes.c), after
 * one question that names them: "Allow 3 waiting requests: beta bash: python3 -m
 * unittest, gamma ..., delta ...?". What a box is asked is fixed when the question opens
 * (the request id shown, the boxes running a turn), and each box is acted on through the
 * model's own command by sandbox id (core/live/live.h), so the states stay the model's.
 * A box a question leaves out (nothing waits in it, no turn runs) is said in the question. */
#ifndef E2B_TUI_BATCH_ACTIONS_H
#define E2B_TUI_BATCH_ACTIONS_H

#include <stddef.h>

#include "tui/ui.h"

/* Is a one of the batch actions (y n i m s p)? */
bool batch_handles(enum action_id a);

/* Asks, then runs a on the n boxes ids[i] (names[i]: their sanitised words; both borrowed,
 * copied here). */
void batch_run(struct ui *ui, const char *const *ids, const char *const *names, size_t n,
               enum action_id a);

#endif
