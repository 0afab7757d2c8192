/* Whole-screen texts: "terminal too small" and the first screen without an API key. */
#include <curses.h>
#include <stdio.h>

#include "tui/views/screens.h"
#include "tui/term/term.h"
#include "tui/ui.h"
#include "tui/widgets/draw.h"

void screens_too_small(int lines, int cols)
{
    char a[80], b[80];
    snprintf(a, sizeof a, "Terminal too small: %dx%d", cols, lines);
    snprintf(b, sizeof b, "needs at least %dx%d", UI_MIN_COLS, UI_MIN_LINES);
    int y = lines / 2 - 1;
    if (y < 0)
        y = 0;
    draw_text(y, 0, cols, ROLE_ERROR, a, false);
    draw_text(y + 1, 0, cols, ROLE_NORMAL, b, false);
    draw_text(y + 2, 0, cols, ROLE_DIM, "q quits", false);
}

void screens_no_api_key(int y, int x, int h, int w)
{
    static const struct {
        int role;
        const char *text;
    } lines[] = {
        {ROLE_HEADER, "Welcome to e2b-tui"},
        {ROLE_NORMAL, ""},
        {ROLE_NORMAL, "No E2B API key is set, so there is nothing to list yet."},
        {ROLE_NORMAL, ""},
        {ROLE_NORMAL, "To use your E2B account:"},
        {ROLE_NORMAL, "  1. Create an API key in the E2B dashboard: https://e2b.dev/dashboard"},
        {ROLE_NORMAL, "  2. export E2B_API_KEY=e2b_...     and start e2b-tui again"},
        {ROLE_NORMAL, ""},
        {ROLE_NORMAL, "To try it without an account, against a local E2B-compatible server:"},
        {ROLE_NORMAL, "     make demo        (in the e2b-tui source folder)"},
        {ROLE_NORMAL, ""},
        {ROLE_DIM, "? help    : commands    q quit"},
    };
    int n = (int)(sizeof lines / sizeof lines[0]);
    int top = y + (h > n ? (h - n) / 3 : 0);
    for (int i = 0; i < n && top + i < y + h; i++)
        draw_text(top + i, x + 2, w - 2, lines[i].role, lines[i].text, false);
}
