#include "tui/views/view_sandboxes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/views/screens.h"
#include "tui/views/view_detail.h"
#include "tui/views/view_log.h"
#include "tui/widgets/list.h"

static const struct table_column SANDBOX_COLUMNS[SBCOL_COUNT] = {
    [SBCOL_NAME] = {"NAME", 'N', 8, 40, false, true},
    [SBCOL_BRANCH] = {"BRANCH", 'B', 6, 30, false, false},
    [SBCOL_ID] = {"ID", 'I', 6, 24, false, false},
    [SBCOL_TEMPLATE] = {"TEMPLATE", 'T', 8, 24, false, false},
    [SBCOL_STATE] = {"STATE", 'S', 7, 10, false, false},
    [SBCOL_CPU] = {"CPU", 'C', 5, 6, true, false},
    [SBCOL_MEM] = {"MEM", 'M', 6, 8, true, false},
    [SBCOL_ENDS] = {"ENDS", 'E', 6, 10, false, false},
};

struct sandboxes_view {
    enum sandbox_filter filter;
    bool complete_seen; /* a list of every sandbox filled it (Workspaces, All) */
};

static enum sandbox_filter filter_of(const struct view *v)
{
    return ((const struct sandboxes_view *)v->priv)->filter;
}

/* ---- following the model ---- */

static void set_empty_text(struct view *v, struct ui *ui)
{
    switch (e2b_live_list_state(ui->model)) {
    case E2B_LIVE_LOADING: v->empty_text = "Loading sandboxes from E2B..."; break;
    case E2B_LIVE_LIST_FAILED:
        v->empty_text = "Could not list sandboxes yet (see the status line); retrying.";
        break;
    case E2B_LIVE_LISTED:
        v->empty_text = filter_of(v) == SANDBOX_FILTER_BOXES
                            ? "No boxes yet: u starts one from the current git project."
                            : "No sandboxes.";
        break;
    default: break; /* no client: the no-key screen, or "Loading..." */
    }
}

static void changed(struct view *v, struct ui *ui, unsigned what)
{
    const e2b_sandbox_list *list = e2b_live_sandboxes(ui->model);
    const e2b_metric_list *metrics = e2b_live_metrics(ui->model);
    time_t now = time(NULL);
    bool dirty = false;
    int rc = 0;
    if (what & E2B_LIVE_SANDBOXES) {
        set_empty_text(v, ui);
        if (e2b_live_list_state(ui->model) == E2B_LIVE_LISTED) {
            bool first = !v->loaded;
            rc = sandbox_rows_fill(&v->table, filter_of(v), list, metrics, now, &dirty);
            struct sandboxes_view *sv = v->priv;
            if (rc == 0 && filter_of(v) != SANDBOX_FILTER_BOXES && !sv->complete_seen &&
                e2b_live_list_complete(ui->model)) {
                /* Its first whole list: the cursor starts at the top, not on the box it
                 * was on among the few rows known before. */
                sv->complete_seen = true;
                table_move_to(&v->table, 0);
                dirty = true;
            }
            if (rc == 0) {
                v->loaded = true;
                ui->ends_due = 0; /* other sandboxes, other end times */
                if (first)
                    dirty = true; /* "Loading..." becomes the rows, or the empty text */
            } else if (filter_of(v) == SANDBOX_FILTER_ALL) {
                ui_flash(ui, FLASH_ERROR, "out of memory while listing sandboxes");
            }
        } else {
            dirty = true;
        }
    } else if ((what & E2B_LIVE_METRICS) && v->loaded) {
        sandbox_rows_set_usage(&v->table, filter_of(v), list, metrics, now, &dirty);
    }
    if ((what & UI_CHANGED_CLOCK) && v->loaded)
        sandbox_rows_redraw_times(&v->table, filter_of(v), list, metrics, now, &dirty);
    if (dirty)
        ui->dirty = true;
}

size_t view_sandboxes_running_ids(struct view *v, const char **ids, size_t max)
{
    size_t n = 0;
    int rows = v->rows_shown > 0 ? v->rows_shown : 60;
    for (size_t i = v->table.top; i < v->table.nvisible && n < max && rows-- > 0; i++) {
        /* The row says the state; looking each sandbox up would cost a scan per row. */
        const struct table_row *row = &v->table.rows[v->table.visible[i]];
        if (strcmp(row->cells[SBCOL_STATE], e2b_sandbox_state_name(E2B_STATE_RUNNING)) == 0)
            ids[n++] = row->id;
    }
    return n;
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    if (!ui_have_api_key(ui) && !v->loaded) {
        screens_no_api_key(y, x, h, w);
        return;
    }
    list_draw(v, ui, y, x, h, w);
}

/* ---- up: name, template, hours (the chain's state travels in its context) ---- */

struct up_form {
    char name[128], template_id[128];
};

static void up_hours_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct up_form *f = ctx;
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "up: cancelled");
        return;
    }
    char *end = NULL;
    long h = strtol(text, &end, 10);
    if (!*text || *end || h < 1 || h > 24) {
        ui_flash(ui, FLASH_ERROR, "up: give a whole number of hours from 1 to 24");
        return;
    }
    e2b_live_up(ui->model, f->name, f->template_id, (int)h);
}

static void up_template_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct up_form *f = ctx;
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "up: cancelled");
        return;
    }
    snprintf(f->template_id, sizeof f->template_id, "%s", text);
    const e2b_config *cfg = e2b_live_config(ui->model);
    char initial[16];
    snprintf(initial, sizeof initial, "%d", cfg->hours > 0 ? cfg->hours : 1);
    prompt_open(ui, "up: hours (1-24): ", false, initial, NULL, up_hours_done, f, free);
}

static void up_name_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct up_form *f = ctx;
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "up: cancelled");
        return;
    }
    snprintf(f->name, sizeof f->name, "%s", text);
    const e2b_config *cfg = e2b_live_config(ui->model);
    prompt_open(ui, "up: template: ", false, cfg->template_id ? cfg->template_id : "", NULL,
                up_template_done, f, free);
}

/* ---- extend: hours (the sandbox id is the context) ---- */

static void extend_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    const char *id = ctx;
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "extend: cancelled");
        return;
    }
    char *end = NULL;
    long h = strtol(text, &end, 10);
    while (end && *end == ' ')
        end++;
    if (!*text || !end || *end || h < 1 || h > 24) {
        ui_flash(ui, FLASH_ERROR, "extend: give a whole number of hours from 1 to 24");
        return;
    }
    e2b_live_extend(ui->model, id, (int)h);
}

static void kill_confirmed(struct ui *ui, void *ctx, const char *id)
{
    (void)ctx;
    e2b_live_kill(ui->model, id);
}

/* Does the selected row name a box (else says so)? */
static bool selected_is_box(struct ui *ui, const struct table_row *r, enum action_id a)
{
    const e2b_sandbox *sb = e2b_live_sandbox(ui->model, r->id);
    if (!sb || sb->kind != E2B_KIND_BOX || !sb->box_name || !*sb->box_name) {
        ui_flash(ui, FLASH_ERROR, "%s: only for boxes (made by e2b-tui)", action_info(a)->name);
        return false;
    }
    return true;
}

static void open_pane(struct ui *ui, struct view *pane, const char *what)
{
    if (pane)
        ui_set_pane(ui, pane);
    else
        ui_flash(ui, FLASH_ERROR, "%s", what);
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
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
    case ACT_DETAIL: open_pane(ui, view_detail_new(ui, v), "detail: no row selected"); return true;
    case ACT_LOGS: {
        if (!e2b_live_has_client(ui->model)) {
            ui_flash(ui, FLASH_ERROR, "logs: no API key (set E2B_API_KEY)");
            return true;
        }
        open_pane(ui, view_log_new(ui, r->id, r->cells[SBCOL_NAME]), "logs: out of memory");
        return true;
    }
    case ACT_KILL: {
        char text[400];
        snprintf(text, sizeof text,
                 "Kill sandbox \"%s\" (%s)?\nIts files and processes are deleted for good.",
                 r->cells[SBCOL_NAME], r->id);
        dialog_open(ui, "Kill sandbox", text, r->id, kill_confirmed, NULL);
        return true;
    }
    case ACT_STOP: e2b_live_stop(ui->model, r->id); return true;
    case ACT_RESUME: e2b_live_resume(ui->model, r->id); return true;
    case ACT_EXTEND: {
        char *id = strdup(r->id);
        if (!id)
            return true;
        const e2b_config *cfg = e2b_live_config(ui->model);
        char initial[16];
        snprintf(initial, sizeof initial, "%d", cfg->hours > 0 ? cfg->hours : 1);
        prompt_open(ui, "extend: hours from now (1-24): ", false, initial, NULL, extend_done, id,
                    free);
        return true;
    }
    case ACT_ATTACH:
    case ACT_PULL:
        if (selected_is_box(ui, r, a))
            e2b_live_box_op(ui->model, a == ACT_ATTACH ? E2B_LIVE_OP_ATTACH : E2B_LIVE_OP_PULL,
                            r->id);
        return true;
    case ACT_UP: {
        struct up_form *f = calloc(1, sizeof *f);
        if (f)
            prompt_open(ui, "up: box name (empty: from the current branch): ", false, "", NULL,
                        up_name_done, f, free);
        return true;
    }
    default: return false;
    }
}

static void destroy(struct view *v)
{
    table_free(&v->table);
    free(v->priv);
    free(v);
}

/* The Boxes view needs the box sandboxes only; the others every sandbox (core/live lists
 * what is shown). */
static void open_view(struct view *v, struct ui *ui)
{
    if (filter_of(v) != SANDBOX_FILTER_BOXES)
        e2b_live_show_all(ui->model, true);
}

static void close_view(struct view *v, struct ui *ui)
{
    if (filter_of(v) != SANDBOX_FILTER_BOXES)
        e2b_live_show_all(ui->model, false);
}

static const struct view_ops OPS[] = {
    [SANDBOX_FILTER_BOXES] = {.name = "boxes", .title = "Boxes", .bit = VIEW_BOXES,
                              .changed = changed, .draw = draw, .act = act, .destroy = destroy,
                              .open = open_view, .close = close_view},
    [SANDBOX_FILTER_WORKSPACES] = {.name = "workspaces", .title = "Workspaces",
                                   .bit = VIEW_WORKSPACES, .changed = changed, .draw = draw,
                                   .act = act, .destroy = destroy, .open = open_view,
                                   .close = close_view},
    [SANDBOX_FILTER_ALL] = {.name = "all", .title = "All sandboxes", .bit = VIEW_ALL,
                            .changed = changed, .draw = draw, .act = act, .destroy = destroy,
                            .open = open_view, .close = close_view},
};

struct view *view_sandboxes_new(enum sandbox_filter f)
{
    struct view *v = calloc(1, sizeof *v);
    struct sandboxes_view *sv = calloc(1, sizeof *sv);
    if (!v || !sv) {
        free(v);
        free(sv);
        return NULL;
    }
    sv->filter = f;
    v->ops = &OPS[f];
    v->priv = sv;
    v->has_table = true;
    table_init(&v->table, SANDBOX_COLUMNS, SBCOL_COUNT);
    v->empty_text = "Loading...";
    return v;
}
