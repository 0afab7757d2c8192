#include "tui/views/view_operations.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/op_status.h"
#include "tui/term/term.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/list.h"

enum { OPCOL_OP, OPCOL_BOX, OPCOL_SANDBOX, OPCOL_STEP, OPCOL_PROGRESS, OPCOL_COUNT };

static const struct table_column COLUMNS[OPCOL_COUNT] = {
    [OPCOL_OP] = {"OP", 'O', 6, 8, false, false},
    [OPCOL_BOX] = {"BOX", 'B', 8, 30, false, true},
    [OPCOL_SANDBOX] = {"SANDBOX", 'S', 8, 24, false, false},
    [OPCOL_STEP] = {"STEP", 'T', 10, 36, false, false},
    [OPCOL_PROGRESS] = {"PROGRESS", 'P', 10, 40, false, false},
};

static void fill(struct view *v, struct ui *ui)
{
    size_t n = e2b_live_op_count(ui->model);
    struct row {
        char id[16], progress[96];
        const char *cells[OPCOL_COUNT];
    } *text = calloc(n ? n : 1, sizeof *text);
    struct table_row_in *rows = calloc(n ? n : 1, sizeof *rows);
    if (text && rows) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            e2b_live_op_info op;
            if (!e2b_live_op_get(ui->model, i, &op))
                continue;
            struct row *r = &text[k];
            snprintf(r->id, sizeof r->id, "%u", op.id);
            op_status_progress(&op, r->progress, sizeof r->progress);
            r->cells[OPCOL_OP] = op.verb;
            r->cells[OPCOL_BOX] = op.name[0] ? op.name : "(current branch)";
            r->cells[OPCOL_SANDBOX] = op.sandbox_id[0] ? op.sandbox_id : "-";
            r->cells[OPCOL_STEP] = op.step;
            r->cells[OPCOL_PROGRESS] = r->progress;
            rows[k] = (struct table_row_in){r->id, r->cells};
            k++;
        }
        list_set_rows(v, ui, rows, k);
        v->loaded = true;
    }
    free(text);
    free(rows);
}

static void open_view(struct view *v, struct ui *ui)
{
    fill(v, ui);
}

static void changed(struct view *v, struct ui *ui, unsigned what)
{
    if (what & E2B_LIVE_OPS)
        fill(v, ui);
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    char head[160];
    snprintf(head, sizeof head, "OPERATIONS  %zu running  (ctrl-x: cancel the selected one; Esc: back)",
             v->table.nrows);
    draw_text(y, x, w, ROLE_HEADER, head, true);
    list_draw(v, ui, y + 1, x, h - 1, w);
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    if (a == ACT_CANCEL) {
        const struct table_row *r = table_selected(&v->table);
        if (!r) {
            ui_flash(ui, FLASH_INFO, "nothing to cancel");
            return true;
        }
        unsigned id = (unsigned)strtoul(r->id, NULL, 10);
        if (e2b_live_op_cancel(ui->model, id) != 0)
            ui_flash(ui, FLASH_INFO, "that operation has ended already");
        return true;
    }
    return list_move_act(v, ui, a);
}

static const struct view_ops OPS = {
    .name = "ops",
    .title = "Operations",
    .bit = VIEW_OPS,
    .open = open_view,
    .changed = changed,
    .draw = draw,
    .act = act,
    .destroy = list_view_destroy,
};

struct view *view_operations_new(struct ui *ui)
{
    (void)ui;
    return list_view_new(&OPS, COLUMNS, OPCOL_COUNT,
                         "No box operation is running (u, a, p or K on a box starts one).");
}
