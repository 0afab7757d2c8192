/* The Changes pane (c on a box) and the same panel as a tab of the Agent pane: the files
 * the agent changed against the box's base with their added/removed lines (untracked files
 * too), and the selected file's diff, coloured, scrollable. The data is the model's
 * (core/live/live_changes.h: read from the box's git through envd); this only draws it. */
#ifndef E2B_TUI_VIEW_CHANGES_H
#define E2B_TUI_VIEW_CHANGES_H

#include "tui/ui.h"

struct changes_panel;

/* A panel on the box shown as sandbox_id (name: its words, sanitised by the caller).
 * Starts reading at once. NULL when out of memory. */
struct changes_panel *changes_panel_new(struct ui *ui, const char *sandbox_id, const char *name);
void changes_panel_free(struct changes_panel *p);
void changes_panel_changed(struct changes_panel *p, struct ui *ui, unsigned what);
void changes_panel_draw(struct changes_panel *p, struct ui *ui, int y, int x, int h, int w);
/* Movement (files or diff, Tab switches), R (read again); false when a does not apply. */
bool changes_panel_act(struct changes_panel *p, struct ui *ui, enum action_id a);

/* The Changes pane: the panel on its own. */
struct view *view_changes_new(struct ui *ui, const char *sandbox_id, const char *name);

#endif
