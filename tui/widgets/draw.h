/* Drawing text over stdscr. */
#ifndef E2B_TUI_DRAW_H
#define E2B_TUI_DRAW_H

#include <stdbool.h>

/* Draws text at (y, x) in at most w columns with a role's attributes (tui/term/term.h); the
 * text must already be safe (static or sanitised). Pads to w when pad is true. */
void draw_text(int y, int x, int w, int role, const char *text, bool pad);

#endif
