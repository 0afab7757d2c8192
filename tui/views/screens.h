/* Whole-screen texts: "terminal too small" and the first screen without an API key. */
#ifndef E2B_TUI_SCREENS_H
#define E2B_TUI_SCREENS_H

void screens_too_small(int lines, int cols);
void screens_no_api_key(int y, int x, int h, int w);

#endif
