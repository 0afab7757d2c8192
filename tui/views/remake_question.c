#include "tui/views/remake_question.h"

#include <stdio.h>

static void remake_confirmed(struct ui *ui, void *ctx, const char *name)
{
    (void)ctx;
    e2b_live_op_params p = {.kind = E2B_LIVE_OP_REMAKE, .name = name};
    e2b_live_op_by_name(ui->model, &p); /* refused or failed: a notice */
}

void remake_question_open(struct ui *ui, const char *name)
{
    if (ui->opts.readonly) {
        ui_flash(ui, FLASH_ERROR, "remake: disabled in read-only mode");
        return;
    }
    if (!name || !*name) {
        ui_flash(ui, FLASH_ERROR, "remake: name the box (:remake NAME)");
        return;
    }
    e2b_live_remake_info info;
    if (!e2b_live_remake_what(ui->model, name, &info)) {
        ui_flash(ui, FLASH_ERROR, "remake: this machine has no box named %.100s", name);
        return;
    }
    if (info.listed) {
        ui_flash(ui, FLASH_ERROR, "remake: box %.100s's sandbox is still there: nothing to remake",
                 name);
        return;
    }
    char text[1024]; /* the dialog keeps its first 511 bytes */
    snprintf(text, sizeof text,
             "Remake box \"%.100s\" from %s?\nWhat is lost: %s.\nIt gets a new sandbox and "
             "password, under its name with its settings.",
             name, info.from, info.lost);
    dialog_open(&ui->dialog, "Remake box", text, name, remake_confirmed, NULL);
}
