/* Up from the dashboard: prompts for the name ("NAME xN": a group of N attempts, then its
 * task and models: core/live/live.h e2b_live_try), the template, hours and project
 * directory, each
 * answer checked when it is given (a bad name, a name in use, hours out of range, a
 * directory that is not in a git project), the answer kept and the question asked again
 * with the reason on an error. The name's prompt shows the real default name (the current
 * branch, "feat/x" -> "feat-x"), found by the model's project probe (off the UI thread).
 * The form is the prompts' context: it lives while one of its prompts or probes does. */
#ifndef E2B_TUI_UP_FORM_H
#define E2B_TUI_UP_FORM_H

#include "tui/ui.h"

/* Called with the operation's id once the up has started (to select its box later). */
typedef void (*up_form_started_fn)(struct view *v, unsigned op_id);

void up_form_open(struct ui *ui, struct view *v, up_form_started_fn started);

/* An answer to an hours question (up's, extend's): a whole number from 1 to 24, trailing
 * spaces allowed. Returns false for anything else. */
bool up_form_hours(const char *text, int *hours);
/* The name question's answer: "NAME xN" (or "NAME *N", N from 1 to 100) asks for N
 * attempts, anything else one; the name without the count into name. False for a count
 * out of range. */
bool up_form_attempts(const char *text, char *name, size_t n, int *count);

#endif
