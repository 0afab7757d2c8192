/* Snapshot and fork from the Boxes view (view_sandboxes_snap.h). */
#include "tui/views/view_sandboxes_snap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/git/gitwork.h"
#include "core/live/live.h"
#include "tui/sandbox_rows.h"
#include "tui/widgets/prompt.h"

static void snapshot_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    const char *id = ctx;
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "snapshot: cancelled");
        return;
    }
    if (*text && !e2b_gitwork_box_name_valid(text)) {
        ui_flash(ui, FLASH_ERROR, "snapshot: a name is letters, digits, '.', '_' and '-'");
        return;
    }
    e2b_live_snapshot(ui->model, id, *text ? text : NULL);
}

static void fork_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    const char *id = ctx;
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "fork: cancelled");
        return;
    }
    char *end = NULL;
    long n = strtol(text, &end, 10);
    if (!*text || !end || *end || n < 1 || n > 100) {
        ui_flash(ui, FLASH_ERROR, "fork: give a whole number of forks from 1 to 100");
        return;
    }
    e2b_live_fork(ui->model, id, (int)n);
}

bool view_sandboxes_snap_act(struct ui *ui, enum action_id a, const struct table_row *r)
{
    if (a != ACT_SNAPSHOT && a != ACT_FORK)
        return false;
    const e2b_sandbox *sb = r ? e2b_live_sandbox(ui->model, r->id) : NULL;
    if (!sb || sb->kind != E2B_KIND_BOX) {
        ui_flash(ui, FLASH_ERROR, "%s: select a box (made by e2b-tui)", action_info(a)->name);
        return true;
    }
    char *id = strdup(r->id);
    if (!id)
        return true;
    if (a == ACT_SNAPSHOT)
        prompt_open(ui, "snapshot: name (empty: the box's): ", false, r->cells[SBCOL_NAME], NULL,
                    snapshot_done, id, free);
    else
        prompt_open(ui, "fork: how many copies (1-100): ", false, "2", NULL, fork_done, id, free);
    return true;
}
