#include "tui/sandbox_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/box_task.h"
#include "tui/refresh.h"
#include "tui/sandbox_rows.h"

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

struct view *sandbox_view_new(const struct view_ops *ops)
{
    struct view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->ops = ops;
    v->has_table = true;
    table_init(&v->table, SANDBOX_COLUMNS, SBCOL_COUNT);
    v->empty_text = "Loading...";
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

/* ---- actions through core's API ---- */

struct sandbox_op {
    struct ui *ui;
    enum action_id action;
    char id[128];
    char name[128]; /* sanitised by the table already */
    long hours;
};

static const char *op_doing(enum action_id a)
{
    switch (a) {
    case ACT_STOP: return "pausing";
    case ACT_RESUME: return "resuming";
    case ACT_KILL: return "killing";
    default: return "extending";
    }
}

static void op_finish(struct sandbox_op *op, const e2b_error *err, long status)
{
    struct ui *ui = op->ui;
    if (!ui->closing) {
        if (err) {
            ui_flash(ui, FLASH_ERROR, "%s", e2b_error_message(err));
        } else {
            switch (op->action) {
            case ACT_STOP: ui_flash(ui, FLASH_INFO, "%s paused", op->name); break;
            case ACT_RESUME:
                ui_flash(ui, FLASH_INFO, "%s %s", op->name,
                         status == 201 ? "resumed" : "was already running (timeout extended)");
                break;
            case ACT_KILL: ui_flash(ui, FLASH_INFO, "%s killed", op->name); break;
            default:
                ui_flash(ui, FLASH_INFO, "%s now ends in %ld hour%s", op->name, op->hours,
                         op->hours == 1 ? "" : "s");
                break;
            }
        }
        if (!err || err->kind != E2B_ERR_CANCELLED)
            refresh_now(ui);
    }
    free(op);
}

static void on_status(void *ud, long status, const e2b_error *err)
{
    op_finish(ud, err, status);
}

static void on_sandbox(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    e2b_sandbox_free(sb);
    op_finish(ud, err, status);
}

/* Starts action a on sandbox id; the result is flashed and the lists refresh. */
static void start_op(struct ui *ui, enum action_id a, const char *id, long hours)
{
    if (!ui->client) {
        ui_flash(ui, FLASH_ERROR, "%s: no API key (set E2B_API_KEY)", action_info(a)->name);
        return;
    }
    struct sandbox_op *op = calloc(1, sizeof *op);
    if (!op)
        return;
    op->ui = ui;
    op->action = a;
    op->hours = hours;
    snprintf(op->id, sizeof op->id, "%s", id);
    const struct table_row *r = NULL;
    struct view *v = ui->tabs[ui->tab <= TAB_ALL ? ui->tab : TAB_ALL];
    r = table_selected(&v->table);
    snprintf(op->name, sizeof op->name, "%s",
             r && strcmp(r->id, id) == 0 ? r->cells[SBCOL_NAME] : id);
    e2b_error *err = NULL;
    e2b_api_call *call = NULL;
    switch (a) {
    case ACT_STOP: call = e2b_api_pause(ui->client, id, on_status, op, &err); break;
    case ACT_KILL: call = e2b_api_kill(ui->client, id, on_status, op, &err); break;
    case ACT_RESUME:
        call = e2b_api_connect(ui->client, id, (long)ui->cfg.hours * 3600, on_sandbox, op, &err);
        break;
    default: call = e2b_api_set_timeout(ui->client, id, hours * 3600, on_status, op, &err); break;
    }
    if (!call) {
        ui_flash(ui, FLASH_ERROR, "%s", err ? e2b_error_message(err) : "out of memory");
        e2b_error_free(err);
        free(op);
        return;
    }
    ui_flash(ui, FLASH_INFO, "%s %s...", op_doing(a), op->name);
}

static void kill_confirmed(struct ui *ui, const char *id)
{
    /* A box is killed by the boxes' step machine: its record and password go too. */
    const e2b_sandbox *sb = sandbox_rows_find(ui, id);
    if (sb && sb->kind == E2B_KIND_BOX && sb->box_name && *sb->box_name)
        box_task_start(ui, ACT_KILL, sb->box_name, NULL, 0);
    else
        start_op(ui, ACT_KILL, id, 0);
}

/* ---- up: name, template, hours ---- */

static char up_name[128], up_template[128];

static void up_hours_done(struct ui *ui, bool ok, const char *text)
{
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
    box_task_start(ui, ACT_UP, up_name, up_template, (int)h);
}

static void up_template_done(struct ui *ui, bool ok, const char *text)
{
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "up: cancelled");
        return;
    }
    snprintf(up_template, sizeof up_template, "%s", text);
    char initial[16];
    snprintf(initial, sizeof initial, "%d", ui->cfg.hours > 0 ? ui->cfg.hours : 1);
    ui_prompt(ui, "up: hours (1-24): ", false, initial, NULL, up_hours_done);
}

static void up_name_done(struct ui *ui, bool ok, const char *text)
{
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "up: cancelled");
        return;
    }
    snprintf(up_name, sizeof up_name, "%s", text);
    ui_prompt(ui, "up: template: ", false, ui->cfg.template_id ? ui->cfg.template_id : "",
              NULL, up_template_done);
}

/* The box name of the selected row, or NULL (with a message) when it is not a box. */
static const char *selected_box(struct ui *ui, const struct table_row *r, enum action_id a)
{
    const e2b_sandbox *sb = sandbox_rows_find(ui, r->id);
    if (!sb || sb->kind != E2B_KIND_BOX || !sb->box_name || !*sb->box_name) {
        ui_flash(ui, FLASH_ERROR, "%s: only for boxes (made by e2b-tui)", action_info(a)->name);
        return NULL;
    }
    return sb->box_name;
}

/* The sandbox the extend prompt is about. */
static char extend_id[128];

static void extend_done(struct ui *ui, bool ok, const char *text)
{
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
    start_op(ui, ACT_EXTEND, extend_id, h);
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
    case ACT_STOP:
    case ACT_RESUME: start_op(ui, a, r->id, 0); return true;
    case ACT_EXTEND: {
        snprintf(extend_id, sizeof extend_id, "%s", r->id);
        char initial[16];
        snprintf(initial, sizeof initial, "%d", ui->cfg.hours > 0 ? ui->cfg.hours : 1);
        ui_prompt(ui, "extend: hours from now (1-24): ", false, initial, NULL, extend_done);
        return true;
    }
    case ACT_LOGS: ui_open_log(ui); return true;
    case ACT_ATTACH:
    case ACT_PULL: {
        const char *box = selected_box(ui, r, a);
        if (box)
            box_task_start(ui, a, box, NULL, 0);
        return true;
    }
    case ACT_UP:
        ui_prompt(ui, "up: box name (empty: from the current branch): ", false, "", NULL,
                  up_name_done);
        return true;
    default: return false;
    }
}
