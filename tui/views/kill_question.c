#include "tui/views/kill_question.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/live/live_unpulled.h"

/* The question's context: the look and the words it names the box by. */
struct kill_ctx {
    struct live_unpulled *look;
    char name[128], box[128], id[128];
};

static void kill_confirmed(struct ui *ui, void *ctx, const char *id)
{
    (void)ctx;
    e2b_live_kill(ui->model, id);
}

static void pull_first(struct ui *ui, void *ctx, const char *id)
{
    (void)ctx;
    e2b_live_box_op(ui->model, E2B_LIVE_OP_PULL, id);
}

static void kill_ctx_free(void *p)
{
    struct kill_ctx *k = p;
    e2b_live_unpulled_close(k->look);
    free(k);
}

static void box_text(struct ui *ui, const struct kill_ctx *k, char *text, size_t n)
{
    e2b_unpulled_state st = E2B_UNPULLED_UNKNOWN;
    const char *look = e2b_live_unpulled_text(k->look, &st, NULL);
    char hint[200] = "";
    if (!ui->opts.readonly && st == E2B_UNPULLED_WORK)
        snprintf(hint, sizeof hint, "p: pull its work first (into branch e2b/%s); y: kill anyway.",
                 k->box);
    else if (!ui->opts.readonly)
        snprintf(hint, sizeof hint, "p: pull its work first (into branch e2b/%s).", k->box);
    snprintf(text, n,
             "Kill box \"%s\" (%s)?\nIts files and processes, its record on this machine and "
             "its password go for good.\n%s\n%s",
             k->name, k->id, look, hint);
}

static void look_changed(struct ui *ui, void *ctx, const char *arg)
{
    char text[1024];
    (void)arg;
    box_text(ui, ctx, text, sizeof text);
    dialog_set_text(&ui->dialog, text);
}

void kill_question_open(struct ui *ui, const char *id, const char *name, const char *whose)
{
    char text[1024];
    const e2b_sandbox *sb = e2b_live_sandbox(ui->model, id);
    struct kill_ctx *k = !*whose && sb && sb->box_name ? calloc(1, sizeof *k) : NULL;
    if (k) {
        snprintf(k->name, sizeof k->name, "%s", name);
        snprintf(k->box, sizeof k->box, "%s", sb->box_name);
        snprintf(k->id, sizeof k->id, "%s", id);
        k->look = e2b_live_unpulled_open(ui->model, id);
    }
    if (k && k->look) {
        /* This machine's box: what goes with it, its unpulled work, the pull that saves it. */
        box_text(ui, k, text, sizeof text);
        dialog_open(&ui->dialog, "Kill sandbox", text, id, kill_confirmed, k);
        dialog_watch(&ui->dialog, E2B_LIVE_UNPULLED, look_changed, kill_ctx_free);
        if (!ui->opts.readonly)
            dialog_set_alt(&ui->dialog, 'p', pull_first);
        return;
    }
    free(k);
    snprintf(text, sizeof text,
             "Kill sandbox \"%s\" (%s)?\n%s%s%sIts files and processes are deleted for good.",
             name, id, *whose ? "It is " : "", whose, *whose ? ".\n" : "");
    dialog_open(&ui->dialog, "Kill sandbox", text, id, kill_confirmed, NULL);
}
