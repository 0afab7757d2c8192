/* K's question: what goes with the sandbox and, for this machine's box, whether it has work not
 * pulled home. The question opens at once saying "checking for unpulled work..." and follows
 * the look's answer (core/live/live_unpulled.h); p pulls first, y kills, No is the default. */
#ifndef E2B_TUI_KILL_QUESTION_H
#define E2B_TUI_KILL_QUESTION_H

#include "tui/ui.h"

/* Asks about the sandbox shown as id with the display name name; whose is "" for one of
 * this machine's boxes, else what it is in words ("a team sandbox, ..."). */
void kill_question_open(struct ui *ui, const char *id, const char *name, const char *whose);

#endif
