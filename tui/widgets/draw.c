/* Small drawing helpers over stdscr. */
#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "tui/term/term.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/textwidth.h"

/* Without a multibyte locale ncurses would spell each byte of UTF-8 text as "M-x" (and
 * break the column widths): show '?' for every non-ASCII byte instead. Returns a copy to
 * free, or NULL when text can be drawn as it is. */
static char *ascii_only(const char *text)
{
    if (MB_CUR_MAX > 1)
        return NULL;
    const unsigned char *p = (const unsigned char *)text;
    while (*p && *p < 0x80)
        p++;
    if (!*p)
        return NULL;
    char *copy = strdup(text);
    if (!copy)
        return NULL;
    for (unsigned char *q = (unsigned char *)copy; *q; q++) {
        if (*q >= 0x80)
            *q = '?';
    }
    return copy;
}

void draw_text(int y, int x, int w, int role, const char *text, bool pad)
{
    if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
        return;
    char *ascii = ascii_only(text);
    if (ascii)
        text = ascii;
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
    free(ascii);
}
