/* The Help overlay: generated from the action table and the current key map, for the view
 * it was opened on, each text wrapped whole to the overlay's width; --readonly hides the
 * actions that change something. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/views/view_help.h"
#include "tui/term/term.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/textwidth.h"

enum { KEYS_COLS = 20, HELP_LINES = ACT_COUNT * 4, HELP_LINE = 400 };

/* Fills lines[] with "keys  help" for the current view, the help wrapped to text_w columns
 * under its first line (never cut); returns how many. */
static int help_lines(struct ui *ui, char lines[][HELP_LINE], int max, int text_w)
{
    unsigned bit = ui->pane ? ui->pane->ops->bit : ui->tabs[ui->tab]->ops->bit;
    int n = 0;
    for (int a = ACT_NONE + 1; a < ACT_COUNT && n < max; a++) {
        const struct action_info *ai = action_info((enum action_id)a);
        if (!(ai->views & bit))
            continue;
        if (ui->opts.readonly && (ai->flags & ACTION_MUTATES))
            continue;
        char keys[96];
        keymap_keys_shown(&ui->keys, (enum action_id)a, keys, sizeof keys);
        if (!keys[0])
            continue;
        const char *h = ai->help;
        bool first = true;
        do {
            size_t k = text_wrap(h, text_w);
            snprintf(lines[n++], HELP_LINE, "%-*s %.*s", KEYS_COLS - 1, first ? keys : "", (int)k,
                     h);
            h += k;
            first = false;
        } while (*h && n < max);
    }
    return n;
}

void view_help_draw(struct ui *ui)
{
    static char lines[HELP_LINES][HELP_LINE]; /* the UI thread's only */
    int w = COLS - 4 > 110 ? 110 : COLS - 4;
    int n = help_lines(ui, lines, HELP_LINES, w - 2 - KEYS_COLS > 10 ? w - 2 - KEYS_COLS : 10);
    int h = LINES - 4;
    if (h > n + 3)
        h = n + 3;
    int y = (LINES - h) / 2, x = (COLS - w) / 2;
    int body = h - 3;
    if (ui->help_top > n - body)
        ui->help_top = n - body > 0 ? n - body : 0;
    char title[160];
    const char *vt = ui->pane ? ui->pane->ops->title : ui->tabs[ui->tab]->ops->title;
    snprintf(title, sizeof title, " Help: %s%s   (Esc, ? or q closes)", vt,
             ui->opts.readonly ? " [read-only]" : "");
    draw_text(y, x, w, ROLE_DIALOG, title, true);
    draw_text(y + 1, x, w, ROLE_DIALOG, "", true);
    for (int i = 0; i < body; i++) {
        const char *t = i + ui->help_top < n ? lines[i + ui->help_top] : "";
        char row[HELP_LINE + 4];
        snprintf(row, sizeof row, "  %s", t);
        draw_text(y + 2 + i, x, w, ROLE_DIALOG, row, true);
    }
    char foot[80];
    snprintf(foot, sizeof foot, "  %d-%d of %d (up/down scroll)", n ? ui->help_top + 1 : 0,
             ui->help_top + body < n ? ui->help_top + body : n, n);
    draw_text(y + h - 1, x, w, ROLE_DIALOG, foot, true);
}

bool view_help_act(struct ui *ui, enum action_id a)
{
    switch (a) {
    case ACT_HELP:
    case ACT_BACK:
    case ACT_QUIT: ui->help_open = false; break;
    case ACT_MOVE_UP:
        if (ui->help_top > 0)
            ui->help_top--;
        break;
    case ACT_MOVE_DOWN: ui->help_top++; break;
    case ACT_PAGE_UP: ui->help_top = 0; break;
    case ACT_PAGE_DOWN: ui->help_top += LINES / 2; break;
    case ACT_HALF_UP: ui->help_top = ui->help_top > LINES / 4 ? ui->help_top - LINES / 4 : 0; break;
    case ACT_HALF_DOWN: ui->help_top += LINES / 4; break;
    case ACT_FIRST: ui->help_top = 0; break;
    case ACT_LAST: ui->help_top = ACT_COUNT; break;
    case ACT_REDRAW: ui->full_redraw = true; break;
    default: return false;
    }
    ui->dirty = true;
    return true;
}
