/* The Templates pane (T, :templates): the team's templates with aliases, builds and last
 * use; e2b-tui's snapshots (with the box they came from) and the OpenCode plugin's managed
 * templates are marked, those the GC would delete flagged. x deletes the selected one and G
 * the GC's list, each after a confirmation. Rows follow E2B_LIVE_TEMPLATES. */
#ifndef E2B_TUI_VIEW_TEMPLATES_H
#define E2B_TUI_VIEW_TEMPLATES_H

#include "tui/ui.h"

struct view *view_templates_new(struct ui *ui);

#endif
