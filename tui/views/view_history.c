/* The History pane (tui/views/view_history.h). */
#include "tui/views/view_history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/git/gitwork.h"
#include "tui/term/term.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/list.h"

enum { HCOL_AT, HCOL_BOX, HCOL_EVENT, HCOL_COUNT };

static const struct table_column COLUMNS[HCOL_COUNT] = {
    [HCOL_AT] = {"TIME", 0, 14, 14, false, false},
    [HCOL_BOX] = {"BOX", 0, 4, 24, false, false},
    [HCOL_EVENT] = {"EVENT", 0, 16, 0, false, true},
};

struct history_view {
    bool every;
    char name[128]; /* one box ("" with every) */
};

static void fill(struct view *v, struct ui *ui)
{
    size_t dropped = 0;
    bool loading = false;
    const e2b_live_history *h = e2b_live_history_followed(ui->model, &dropped, &loading, NULL);
    if (!h || loading)
        return;
    struct table *t = &v->table;
    /* at the end (or nothing read yet): stays at the end, so new lines come into view */
    bool at_end = !v->loaded || !t->nvisible || t->cursor + 1 >= t->nvisible;
    struct row {
        char id[32], at[24];
        const char *cells[HCOL_COUNT];
    } *text = calloc(h->count ? h->count : 1, sizeof *text);
    struct table_row_in *rows = calloc(h->count ? h->count : 1, sizeof *rows);
    if (text && rows) {
        for (size_t i = 0; i < h->count; i++) {
            const e2b_live_history_entry *e = &h->items[i];
            struct row *r = &text[i];
            struct tm tm;
            snprintf(r->id, sizeof r->id, "%zu", dropped + i); /* its place since the cap */
            strftime(r->at, sizeof r->at, "%m-%d %H:%M:%S", localtime_r(&e->at, &tm));
            r->cells[HCOL_AT] = r->at;
            r->cells[HCOL_BOX] = e->box;
            r->cells[HCOL_EVENT] = e->text;
            rows[i] = (struct table_row_in){r->id, r->cells};
        }
        if (list_set_rows(v, ui, rows, h->count) == 0) {
            v->loaded = true;
            if (at_end && t->nvisible && t->cursor + 1 != t->nvisible) {
                table_move_to(t, t->nvisible - 1);
                ui->dirty = true;
            }
        }
    }
    free(text);
    free(rows);
}

static void open_view(struct view *v, struct ui *ui)
{
    struct history_view *hv = v->priv;
    v->loaded = false;
    e2b_live_history_follow(ui->model, hv->every ? NULL : hv->name);
    ui->dirty = true;
}

static void close_view(struct view *v, struct ui *ui)
{
    (void)v;
    e2b_live_history_unfollow(ui->model);
}

static void changed(struct view *v, struct ui *ui, unsigned what)
{
    if (what & E2B_LIVE_HISTORY) {
        fill(v, ui);
        ui->dirty = true; /* the header's count and status */
    }
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    struct history_view *hv = v->priv;
    size_t dropped = 0;
    bool loading = false;
    const char *why = NULL;
    const e2b_live_history *hist = e2b_live_history_followed(ui->model, &dropped, &loading, &why);
    char head[600], more[80] = "";
    if (dropped)
        snprintf(more, sizeof more, ", the newest %d (%zu older not shown)", E2B_LIVE_HISTORY_CAP,
                 dropped);
    if (loading || !hist)
        snprintf(head, sizeof head, "HISTORY  %s  reading...", hv->every ? "every box" : hv->name);
    else
        snprintf(head, sizeof head, "HISTORY  %s  %zu events%s  (newest last; Esc: back)",
                 hv->every ? "every box" : hv->name, hist->count, more);
    draw_text(y, x, w, ROLE_HEADER, head, true);
    int top = y + 1;
    if (why && h > 3) {
        draw_text(top++, x, w, ROLE_ERROR, why, false);
        h--;
    }
    if (!v->loaded)
        draw_text(top, x, w, ROLE_DIM, "reading the history...", false);
    else
        list_draw(v, ui, top, x, h - 1, w);
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    return list_move_act(v, ui, a);
}

static const struct view_ops OPS = {
    .name = "history",
    .title = "History",
    .bit = VIEW_HISTORY,
    .open = open_view,
    .close = close_view,
    .changed = changed,
    .draw = draw,
    .act = act,
    .destroy = list_view_destroy,
};

void view_history_open(struct ui *ui, const char *name, bool every)
{
    char box[128] = "";
    if (name && *name) {
        const e2b_box_record_list *recs = e2b_live_records(ui->model, NULL);
        for (size_t i = 0; recs && i < recs->count && !box[0]; i++)
            if (recs->items[i].sandbox_id && !strcmp(recs->items[i].sandbox_id, name))
                snprintf(box, sizeof box, "%s", recs->items[i].name);
        /* a box of the past has a history too: any box name */
        if (!box[0] && !e2b_gitwork_box_name_valid(name)) {
            ui_flash(ui, FLASH_ERROR, "history: '%s' is not a box name", name);
            return;
        }
        if (!box[0])
            snprintf(box, sizeof box, "%s", name);
    } else if (!every && ui->tab != TAB_SECRETS) {
        const struct table_row *row = table_selected(&ui->tabs[ui->tab]->table);
        const e2b_box_record *rec = row ? e2b_live_record(ui->model, row->id) : NULL;
        if (rec)
            snprintf(box, sizeof box, "%s", rec->name);
    }
    struct view *v = list_view_new(&OPS, COLUMNS, HCOL_COUNT,
                                   box[0] ? "No history for this box yet: its state changes "
                                            "show here as they happen."
                                          : "No history yet: the boxes' state changes show "
                                            "here as they happen.");
    struct history_view *hv = v ? calloc(1, sizeof *hv) : NULL;
    if (!hv) {
        if (v)
            list_view_destroy(v);
        ui_flash(ui, FLASH_ERROR, "history: out of memory");
        return;
    }
    hv->every = !box[0];
    snprintf(hv->name, sizeof hv->name, "%s", box);
    v->priv = hv;
    ui_set_pane(ui, v);
}
