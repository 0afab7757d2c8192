/* The Detail pane: every column of the selected row, one per line, plus its id. It keeps
 * a copy (already sanitised by the table) so the list may refresh underneath. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/term.h"
#include "tui/ui.h"

struct detail {
    int n;
    int top;
    char *label[40];
    char *value[40];
};

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    struct detail *d = v->priv;
    draw_text(y, x, w, ROLE_HEADER, "DETAIL  (Esc: back)", true);
    for (int i = 0; i + d->top < d->n && i < h - 1; i++) {
        char line[512];
        snprintf(line, sizeof line, "%-10s %s", d->label[i + d->top], d->value[i + d->top]);
        draw_text(y + 1 + i, x + 1, w - 1, ROLE_NORMAL, line, false);
    }
    (void)ui;
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    struct detail *d = v->priv;
    switch (a) {
    case ACT_MOVE_UP:
        if (d->top > 0)
            d->top--;
        break;
    case ACT_PAGE_UP:
    case ACT_FIRST: d->top = 0; break;
    case ACT_MOVE_DOWN:
        if (d->top + 1 < d->n)
            d->top++;
        break;
    case ACT_PAGE_DOWN:
    case ACT_LAST: d->top = d->n > 0 ? d->n - 1 : 0; break;
    default: return false;
    }
    ui->dirty = true;
    return true;
}

static void destroy(struct view *v)
{
    struct detail *d = v->priv;
    for (int i = 0; i < d->n; i++) {
        free(d->label[i]);
        free(d->value[i]);
    }
    free(d);
    free(v);
}

static const struct view_ops OPS = {
    .name = "detail",
    .title = "Detail",
    .bit = VIEW_DETAIL,
    .draw = draw,
    .act = act,
    .destroy = destroy,
};

struct view *view_detail_new(const struct view *list)
{
    const struct table_row *r = table_selected(&list->table);
    if (!r)
        return NULL;
    struct view *v = calloc(1, sizeof *v);
    struct detail *d = calloc(1, sizeof *d);
    if (!v || !d) {
        free(v);
        free(d);
        return NULL;
    }
    v->ops = &OPS;
    v->priv = d;
    const struct table *t = &list->table;
    for (int c = 0; c < t->ncols && d->n < 39; c++) {
        d->label[d->n] = strdup(t->cols[c].title);
        d->value[d->n] = strdup(r->cells[c]);
        d->n++;
    }
    for (int i = 0; i < d->n; i++) {
        if (!d->label[i] || !d->value[i]) {
            destroy(v);
            return NULL;
        }
    }
    return v;
}
