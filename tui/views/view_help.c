/* The Help overlay: generated from the action table and the current key map, for the view
 * it was opened on; --readonly hides the actions that change something. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/views/view_help.h"
#include "tui/term/term.h"
#include "tui/widgets/draw.h"

/* Fills lines[] with "keys  help" for the current view; returns how many. */
static int help_lines(struct ui *ui, char lines[][160], int max)
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
        snprintf(lines[n++], 160, "%-19s %s", keys, ai->help);
    }
    return n;
}

void view_help_draw(struct ui *ui)
{
    char lines[ACT_COUNT][160];
    int n = help_lines(ui, lines, ACT_COUNT);
    int w = COLS - 4 > 90 ? 90 : COLS - 4;
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
        char row[200];
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
