/* Small drawing helpers over stdscr. */
#include <curses.h>
#include <string.h>

#include "tui/term.h"
#include "tui/textwidth.h"
#include "tui/ui.h"

void draw_text(int y, int x, int w, int role, const char *text, bool pad)
{
    if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
        return;
    if (x + w > COLS)
        w = COLS - x;
    int used;
    size_t n = text_fit(text, w, &used);
    attr_t a = term_attr((enum term_role)role);
    attron(a);
    mvaddnstr(y, x, text, (int)n);
    if (pad) {
        for (int i = used; i < w; i++)
            addch(' ');
    }
    attroff(a);
}
