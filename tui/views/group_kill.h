/* K in the Compare pane: kill the members of a group of attempts that are not pulled. Every
 * member's work is looked at first (core/live/live_unpulled.h, the kill question's look):
 * a member whose work is all home (the one pulled as e2b/GROUP) stays; the question names
 * the others, with what each would lose, and y kills them. No member pulled yet: nothing is
 * killed (p pulls one first). */
#ifndef E2B_TUI_GROUP_KILL_H
#define E2B_TUI_GROUP_KILL_H

#include "tui/ui.h"

void group_kill_open(struct ui *ui, const char *group);

#endif
