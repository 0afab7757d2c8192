#include "tui/views/view_templates.h"

#include "core/util/str.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/live/live.h"
#include "tui/term/term.h"
#include "tui/widgets/dialog.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/list.h"

enum { TPCOL_TEMPLATE, TPCOL_NAME, TPCOL_KIND, TPCOL_BOX, TPCOL_BUILDS, TPCOL_USED, TPCOL_GC, TPCOL_COUNT };

static const struct table_column COLUMNS[TPCOL_COUNT] = {
    [TPCOL_TEMPLATE] = {"TEMPLATE", 'T', 8, 28, false, false},
    [TPCOL_NAME] = {"NAME / ALIASES", 'N', 8, 40, false, true},
    [TPCOL_KIND] = {"KIND", 'K', 4, 18, false, false},
    [TPCOL_BOX] = {"BOX / PROJECT", 'B', 4, 24, false, false},
    [TPCOL_BUILDS] = {"BUILDS", 0, 6, 6, true, false},
    [TPCOL_USED] = {"LAST USED", 'U', 9, 9, false, false},
    [TPCOL_GC] = {"GC", 0, 2, 12, false, false},
};

static void age(time_t t, char *buf, size_t n)
{
    time_t now = time(NULL);
    long d = t > 0 && now >= t ? (long)(now - t) : -1;
    char span[24];
    e2b_span_text(d, span, sizeof span);
    snprintf(buf, n, d < 0 ? "%s" : "%s ago", span);
}

static void fill(struct view *v, struct ui *ui)
{
    size_t n = e2b_live_template_count(ui->model);
    struct row {
        char builds[24], used[32];
        const char *cells[TPCOL_COUNT];
    } *text = calloc(n ? n : 1, sizeof *text);
    struct table_row_in *rows = calloc(n ? n : 1, sizeof *rows);
    if (text && rows) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            e2b_live_template_row t;
            if (!e2b_live_template_get(ui->model, i, &t))
                continue;
            struct row *r = &text[k];
            snprintf(r->builds, sizeof r->builds, "%ld", t.builds);
            age(t.last_used, r->used, sizeof r->used);
            r->cells[TPCOL_TEMPLATE] = t.id;
            r->cells[TPCOL_NAME] = t.name;
            r->cells[TPCOL_KIND] = t.kind;
            r->cells[TPCOL_BOX] = t.source;
            r->cells[TPCOL_BUILDS] = r->builds;
            r->cells[TPCOL_USED] = r->used;
            r->cells[TPCOL_GC] = t.gc_due ? "would go" : "";
            rows[k++] = (struct table_row_in){t.id, r->cells};
        }
        list_set_rows(v, ui, rows, k);
        v->loaded = !e2b_live_templates_loading(ui->model);
        v->empty_text = v->loaded ? "No templates." : "Loading...";
    }
    free(text);
    free(rows);
}

static void open_view(struct view *v, struct ui *ui)
{
    e2b_live_templates_refresh(ui->model);
    fill(v, ui);
}

static void changed(struct view *v, struct ui *ui, unsigned what)
{
    if (what & E2B_LIVE_TEMPLATES)
        fill(v, ui);
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    char head[300];
    size_t due = 0, others = 0;
    for (size_t i = 0; i < e2b_live_template_count(ui->model); i++) {
        e2b_live_template_row t;
        if (e2b_live_template_get(ui->model, i, &t)) {
            due += t.gc_due;
            others += t.other_machine;
        }
    }
    /* The keys as the key map has them (the config may rebind them). */
    char del[48], gc[48];
    keymap_keys_for(&ui->keys, ACT_TEMPLATE_DELETE, del, sizeof del);
    keymap_keys_for(&ui->keys, ACT_TEMPLATE_GC, gc, sizeof gc);
    snprintf(head, sizeof head,
             "TEMPLATES  %zu  (%zu the GC would delete, %zu another machine's it keeps; %s: delete, "
             "%s: GC, Esc: back)",
             v->table.nrows, due, others, del[0] ? del : "unbound", gc[0] ? gc : "unbound");
    draw_text(y, x, w, ROLE_HEADER, head, true);
    list_draw(v, ui, y + 1, x, h - 1, w);
}

static void delete_confirmed(struct ui *ui, void *ctx, const char *id)
{
    (void)ctx;
    e2b_live_template_delete(ui->model, id);
}

static void gc_confirmed(struct ui *ui, void *ctx, const char *arg)
{
    (void)ctx, (void)arg;
    size_t n = e2b_live_templates_gc(ui->model, false);
    ui_flash(ui, FLASH_INFO, "GC: deleting %zu template%s", n, n == 1 ? "" : "s");
}

static void ask_gc(struct ui *ui)
{
    char text[1200];
    size_t used = 0, due = 0;
    used += (size_t)snprintf(text, sizeof text, "Delete these managed templates of this machine (unused for longer than template_ttl)?\n");
    for (size_t i = 0; i < e2b_live_template_count(ui->model) && used < sizeof text - 80; i++) {
        e2b_live_template_row t;
        if (!e2b_live_template_get(ui->model, i, &t) || !t.gc_due)
            continue;
        due++;
        char when[32];
        age(t.last_used, when, sizeof when);
        used += (size_t)snprintf(text + used, sizeof text - used, "  %s (last used %s)\n", t.id, when);
    }
    if (!due) {
        ui_flash(ui, FLASH_INFO, "GC: no managed template of this machine is older than template_ttl");
        return;
    }
    dialog_open(&ui->dialog, "Delete old templates", text, "gc", gc_confirmed, NULL);
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    if (a == ACT_TEMPLATE_DELETE) {
        const struct table_row *r = table_selected(&v->table);
        if (!r) {
            ui_flash(ui, FLASH_ERROR, "delete: no template selected");
            return true;
        }
        char text[600];
        bool other = strcmp(r->cells[TPCOL_KIND], "another machine's") == 0;
        snprintf(text, sizeof text, "Delete template \"%s\" (%s)?\n%sNew sandboxes cannot start from it any more.",
                 r->id, r->cells[TPCOL_NAME],
                 other ? "Another machine made it (the GC keeps it): that machine may still use it.\n" : "");
        dialog_open(&ui->dialog, "Delete template", text, r->id, delete_confirmed, NULL);
        return true;
    }
    if (a == ACT_TEMPLATE_GC) {
        ask_gc(ui);
        return true;
    }
    return list_move_act(v, ui, a);
}

static const struct view_ops OPS = {
    .name = "templates",
    .title = "Templates",
    .bit = VIEW_TEMPLATES,
    .open = open_view,
    .changed = changed,
    .draw = draw,
    .act = act,
    .destroy = list_view_destroy,
};

struct view *view_templates_new(struct ui *ui)
{
    (void)ui;
    return list_view_new(&OPS, COLUMNS, TPCOL_COUNT, "Loading...");
}
