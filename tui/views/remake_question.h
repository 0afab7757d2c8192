/* :remake NAME's question (issue 36): a box of this machine whose sandbox E2B no longer has
 * is made again under its name (E2B_LIVE_OP_REMAKE) only after y to a question that says
 * what it is made from (its newest snapshot, else its project) and what is lost. No is the
 * default; the remake runs in the loop (the operations view shows it, its errors are
 * notices). */
#ifndef E2B_TUI_REMAKE_QUESTION_H
#define E2B_TUI_REMAKE_QUESTION_H

#include "tui/ui.h"

/* Asks about box name (borrowed); a name with no record here, or whose sandbox the last
 * list has, is an error in the status line and nothing is asked. */
void remake_question_open(struct ui *ui, const char *name);

#endif
