#include "tui/sandbox_list.h"

#include <stdio.h>
#include <stdlib.h>

static const struct table_column SANDBOX_COLUMNS[SBCOL_COUNT] = {
    [SBCOL_NAME] = {"NAME", 'N', 8, 40, false, true},
    [SBCOL_ID] = {"ID", 'I', 6, 24, false, false},
    [SBCOL_TEMPLATE] = {"TEMPLATE", 'T', 8, 24, false, false},
    [SBCOL_STATE] = {"STATE", 'S', 7, 10, false, false},
    [SBCOL_CPU] = {"CPU", 'C', 5, 6, true, false},
    [SBCOL_MEM] = {"MEM", 'M', 6, 8, true, false},
    [SBCOL_ENDS] = {"ENDS", 'E', 6, 10, false, false},
};

struct view *sandbox_view_new(const struct view_ops *ops)
{
    struct view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->ops = ops;
    v->has_table = true;
    table_init(&v->table, SANDBOX_COLUMNS, SBCOL_COUNT);
    v->empty_text = "No data yet: the E2B API loop is not part of this build.";
    return v;
}

void sandbox_view_destroy(struct view *v)
{
    table_free(&v->table);
    free(v);
}

void sandbox_view_draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    if (!ui->have_api_key && !v->loaded) {
        screen_no_api_key(y, x, h, w);
        return;
    }
    list_draw(v, ui, y, x, h, w);
}

static void kill_confirmed(struct ui *ui, const char *id)
{
    (void)id;
    /* The kill itself is core's (boxes end to end); nothing is changed here. */
    ui_not_available(ui, ACT_KILL);
}

bool sandbox_view_act(struct view *v, struct ui *ui, enum action_id a)
{
    if (list_act(v, ui, a))
        return true;
    const struct table_row *r = table_selected(&v->table);
    switch (a) {
    case ACT_DETAIL:
    case ACT_LOGS:
    case ACT_STOP:
    case ACT_RESUME:
    case ACT_KILL:
    case ACT_EXTEND:
    case ACT_ATTACH:
    case ACT_PULL:
        if (!r) {
            ui_flash(ui, FLASH_ERROR, "%s: no sandbox selected", action_info(a)->name);
            return true;
        }
        break;
    default: break;
    }
    switch (a) {
    case ACT_DETAIL: ui_open_detail(ui); return true;
    case ACT_KILL: {
        char text[400];
        snprintf(text, sizeof text,
                 "Kill sandbox \"%s\" (%s)?\nIts files and processes are deleted for good.",
                 r->cells[SBCOL_NAME], r->id);
        ui_confirm(ui, "Kill sandbox", text, r->id, kill_confirmed);
        return true;
    }
    case ACT_LOGS:
    case ACT_STOP:
    case ACT_RESUME:
    case ACT_EXTEND:
    case ACT_ATTACH:
    case ACT_PULL:
    case ACT_UP: ui_not_available(ui, a); return true;
    default: return false;
    }
}
