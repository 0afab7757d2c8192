/* Snapshot and fork from the Boxes view (view_sandboxes_snap.h). */
#include "tui/views/view_sandboxes_snap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/box/box.h"
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

/* A fork asked for: the box, how many, and the task each member gets ("" = a plain fork). */
struct fork_ask {
    char id[128];
    long n;
    char task[4096];
};

/* The fork itself: plain, or (with a task) into the box's group of attempts, every member
 * given the task (core/live/live.h e2b_live_try). */
static void fork_go(struct ui *ui, const struct fork_ask *fa)
{
    if (!fa->task[0]) {
        e2b_live_fork(ui->model, fa->id, (int)fa->n);
        return;
    }
    e2b_live_try_params tp = {.sandbox_id = fa->id, .count = (int)fa->n, .task = fa->task};
    e2b_live_try(ui->model, &tp);
}

/* Yes to a fork of many: ctx is the fork asked for. */
static void fork_yes(struct ui *ui, void *ctx, const char *id)
{
    (void)id;
    fork_go(ui, ctx);
}

/* The count's answer taken: plain, or asked first when it makes many boxes. */
static void fork_ask(struct ui *ui, const struct fork_ask *fa)
{
    long n = fa->n;
    const char *id = fa->id;
    if (n <= E2B_BOX_FORK_ASK_ABOVE) {
        fork_go(ui, fa);
        return;
    }
    /* Many copies of a box cost its size each: say what it makes, default No. */
    const e2b_sandbox *sb = e2b_live_sandbox(ui->model, id);
    if (!sb) {
        ui_flash(ui, FLASH_ERROR, "fork: the box is gone");
        return;
    }
    const char *name = e2b_live_sandbox_name(sb);
    char size[96] = "";
    if (sb->cpu_count > 0 && sb->memory_mb > 0)
        snprintf(size, sizeof size, ", each %d CPU and %d MB of memory%s", sb->cpu_count,
                 sb->memory_mb, sb->disk_size_mb > 0 ? " and" : "");
    if (sb->disk_size_mb > 0)
        snprintf(size + strlen(size), sizeof size - strlen(size), "%s%d MB of disk",
                 size[0] ? " " : ", each ", sb->disk_size_mb);
    char q[600];
    snprintf(q, sizeof q, "Fork %.100s into %ld boxes (%.100s-2, %.100s-3, ...)%s%s?", name, n,
             name, name, size, fa->task[0] ? ", each given the task" : "");
    struct fork_ask *copy = malloc(sizeof *copy); /* the question's own (the prompt frees fa) */
    if (!copy) {
        ui_flash(ui, FLASH_ERROR, "fork: out of memory");
        return;
    }
    *copy = *fa;
    dialog_open(&ui->dialog, "fork", q, id, fork_yes, copy);
    dialog_watch(&ui->dialog, 0, NULL, free);
}

static void fork_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    const char *id = ctx;
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "fork: cancelled");
        return;
    }
    /* "N" forks; "N TASK": a group of attempts, every member given TASK */
    char *end = NULL;
    long n = strtol(text, &end, 10);
    const char *task = end;
    while (task && *task == ' ')
        task++;
    if (!*text || !end || end == text || (*end && *end != ' ') || n < 1 || n > 100) {
        ui_flash(ui, FLASH_ERROR, "fork: give a whole number of forks from 1 to 100 (then, for a "
                 "group of attempts, the task)");
        return;
    }
    struct fork_ask fa = {.n = n};
    snprintf(fa.id, sizeof fa.id, "%s", id);
    snprintf(fa.task, sizeof fa.task, "%s", task);
    fork_ask(ui, &fa);
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
    if (a == ACT_SNAPSHOT)
        return true;
    prompt_open(ui, "fork: how many copies (1-100): ", false, "2", NULL, fork_done, id, free);
    snprintf(ui->prompt.hint, sizeof ui->prompt.hint,
             "(N TASK: a group of attempts, the box and its N forks each given TASK)");
    return true;
}
