#include "tui/box_task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/box/box.h"
#include "core/util/log.h"
#include "core/util/str.h"
#include "keystore/keystore.h"
#include "tui/refresh.h"
#include "tui/term/term.h"

extern char **environ;

struct box_task {
    struct ui *ui;
    enum action_id action;
    char name[128];
    char template_id[128];
    int hours;
    e2b_box_op *op;
    ks_job *ks_open; /* opening the password store, or NULL */
    char step[64];
    int64_t done, total;
};

static const char *verb(enum action_id a)
{
    switch (a) {
    case ACT_UP: return "up";
    case ACT_ATTACH: return "attach";
    case ACT_PULL: return "pull";
    default: return "kill";
    }
}

static void free_task(void *ud)
{
    struct box_task *t = ud;
    e2b_box_op_free(t->op);
    if (t->ks_open)
        keystore_job_free(t->ks_open);
    free(t);
}

/* Runs the attach command with the password only in its environment; returns the wait
 * status or -1. */
static int run_attach(struct ui *ui, const e2b_box_result *r)
{
    char **argv = e2b_box_command_argv(ui->cfg.attach_command, r->url, r->dir, E2B_BOX_PORT);
    if (!argv)
        return -1;
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 4, sizeof *env);
    char *pw1 = NULL, *pw2 = NULL;
    int rc = -1;
    if (env && asprintf(&pw1, "OPENCODE_SERVER_PASSWORD=%s", r->password ? r->password : "") > 0 &&
        asprintf(&pw2, "OPENCODE_PASSWORD=%s", r->password ? r->password : "") > 0) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (strncmp(environ[i], "OPENCODE_SERVER_PASSWORD=", 25) &&
                strncmp(environ[i], "OPENCODE_PASSWORD=", 18) &&
                strncmp(environ[i], "OPENCODE_SERVER_USERNAME=", 25))
                env[k++] = environ[i];
        }
        env[k++] = pw1;
        env[k++] = pw2;
        env[k++] = "OPENCODE_SERVER_USERNAME=opencode";
        env[k] = NULL;
        rc = term_run_foreground(argv, env);
    }
    e2b_wipe_free(pw1);
    e2b_wipe_free(pw2);
    free(env);
    e2b_box_argv_free(argv);
    return rc;
}

static void on_done(void *ud, e2b_box_op *op, const e2b_error *err)
{
    struct box_task *t = ud;
    struct ui *ui = t->ui;
    (void)op;
    if (ui->task == t)
        ui->task = NULL;
    if (ui->closing) {
        e2b_loop_post(ui->loop, free_task, t); /* runs in box_task_shutdown's rounds */
        return;
    }
    const e2b_box_result *r = e2b_box_op_result(t->op);
    if (err) {
        if (err->kind == E2B_ERR_CANCELLED)
            ui_flash(ui, FLASH_INFO, "%s %s: cancelled", verb(t->action), t->name);
        else
            ui_flash(ui, FLASH_ERROR, "%s", e2b_error_message(err));
    } else {
        switch (t->action) {
        case ACT_ATTACH: {
            /* Nothing reads the loop's transfers while the child runs: a Log pane's stream
             * would back up into envd and, through it, block the server's output. */
            if (ui->pane && ui->pane->ops->bit == VIEW_LOG)
                ui_set_pane(ui, NULL);
            int st = run_attach(ui, r);
            ui->full_redraw = ui->dirty = true;
            if (st == -1)
                ui_flash(ui, FLASH_ERROR, "attach %s: the attach command could not be run",
                         t->name);
            else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
                ui_flash(ui, FLASH_ERROR, "attach %s: the attach command exited with status %d",
                         t->name, WEXITSTATUS(st));
            else if (WIFSIGNALED(st))
                ui_flash(ui, FLASH_ERROR, "attach %s: the attach command died of signal %d",
                         t->name, WTERMSIG(st));
            else
                ui_flash(ui, FLASH_INFO, "back from %s", t->name);
            break;
        }
        case ACT_PULL:
            ui_flash(ui, FLASH_INFO, "pulled %s into branch %s (%s)", t->name,
                     r && r->branch ? r->branch : "?", r && r->outcome ? r->outcome : "done");
            break;
        case ACT_UP:
            ui_flash(ui, FLASH_INFO, "box %s is up (a attaches)", r && r->name ? r->name : t->name);
            break;
        default:
            ui_flash(ui, FLASH_INFO, "box %s killed%s%s", t->name, r && r->note ? ": " : "",
                     r && r->note ? r->note : "");
            break;
        }
    }
    refresh_now(ui);
    /* Not inside the op's own callback: free it from the loop. */
    if (e2b_loop_post(ui->loop, free_task, t) != 0)
        e2b_logf("box task: leaked after out of memory");
}

static void on_progress(void *ud, const char *step, int64_t done, int64_t total)
{
    struct box_task *t = ud;
    snprintf(t->step, sizeof t->step, "%s", step ? step : "");
    t->done = done;
    t->total = total;
    t->ui->dirty = true;
}

static void begin(struct box_task *t)
{
    struct ui *ui = t->ui;
    e2b_box_env env = {.loop = ui->loop, .client = ui->client, .cfg = &ui->cfg, .ks = ui->ks};
    e2b_error *err = NULL;
    switch (t->action) {
    case ACT_ATTACH:
        t->op = e2b_box_attach(&env, t->name, 0, on_progress, on_done, t, &err);
        break;
    case ACT_PULL: {
        e2b_box_pull_params p = {.name = t->name};
        t->op = e2b_box_pull(&env, &p, on_progress, on_done, t, &err);
        break;
    }
    case ACT_UP: {
        e2b_box_up_params p = {.name = t->name[0] ? t->name : NULL,
                               .template_id = t->template_id[0] ? t->template_id : NULL,
                               .hours = t->hours};
        t->op = e2b_box_up(&env, &p, on_progress, on_done, t, &err);
        break;
    }
    default: t->op = e2b_box_kill(&env, t->name, on_progress, on_done, t, &err); break;
    }
    if (!t->op) {
        ui_flash(ui, FLASH_ERROR, "%s", err ? e2b_error_message(err) : "out of memory");
        e2b_error_free(err);
        if (ui->task == t)
            ui->task = NULL;
        free_task(t);
        return;
    }
    snprintf(t->step, sizeof t->step, "starting");
    ui->dirty = true;
}

/* The password store opened (on the loop thread, posted by the job's wake). */
static void on_store_open(void *ud)
{
    struct box_task *t = ud;
    struct ui *ui = t->ui;
    if (!t->ks_open || !keystore_job_done(t->ks_open))
        return;
    char *warning = NULL;
    ks_error kerr = {0};
    keystore *ks = keystore_job_take_store(t->ks_open, &warning);
    if (!ks)
        keystore_job_result(t->ks_open, &kerr, NULL, NULL, NULL);
    keystore_job_free(t->ks_open);
    t->ks_open = NULL;
    if (ui->closing)
        return;
    if (!ks && t->action != ACT_KILL) {
        ui_flash(ui, FLASH_ERROR, "%s %s: password store: %s", verb(t->action), t->name,
                 kerr.message[0] ? kerr.message : "cannot be opened");
        if (ui->task == t)
            ui->task = NULL;
        free_task(t);
        return;
    }
    ui->ks = ks;
    if (warning) {
        ui_flash(ui, FLASH_INFO, "%s", warning);
        free(warning);
    }
    begin(t);
}

static void wake_store(void *ctx)
{
    struct box_task *t = ctx;
    e2b_loop_post(t->ui->loop, on_store_open, t);
}

void box_task_start(struct ui *ui, enum action_id a, const char *name, const char *template_id,
                    int hours)
{
    if (!ui->client) {
        ui_flash(ui, FLASH_ERROR, "%s: no API key (set E2B_API_KEY)", verb(a));
        return;
    }
    if (ui->task) {
        ui_flash(ui, FLASH_ERROR, "%s %s is still running (ctrl-x cancels it)",
                 verb(ui->task->action), ui->task->name);
        return;
    }
    struct box_task *t = calloc(1, sizeof *t);
    if (!t)
        return;
    t->ui = ui;
    t->action = a;
    t->hours = hours;
    snprintf(t->name, sizeof t->name, "%s", name ? name : "");
    snprintf(t->template_id, sizeof t->template_id, "%s", template_id ? template_id : "");
    ui->task = t;
    if (ui->ks) {
        begin(t);
        return;
    }
    const char *env = getenv("E2B_TUI_KEYSTORE");
    ks_select sel = {.env = env && *env ? env : NULL, .config = ui->cfg.keystore};
    ks_error kerr = {0};
    snprintf(t->step, sizeof t->step, "opening the password store");
    t->ks_open = keystore_job_open(&sel, 10000, wake_store, t, &kerr);
    if (!t->ks_open) {
        ui_flash(ui, FLASH_ERROR, "password store: %s", kerr.message);
        ui->task = NULL;
        free(t);
    }
    ui->dirty = true;
}

void box_task_cancel(struct ui *ui)
{
    struct box_task *t = ui->task;
    if (!t) {
        ui_flash(ui, FLASH_INFO, "nothing to cancel");
        return;
    }
    if (t->op)
        e2b_box_op_cancel(t->op);
    else
        ui_flash(ui, FLASH_INFO, "%s %s: will stop once the password store answers",
                 verb(t->action), t->name);
}

bool box_task_status(const struct ui *ui, char *buf, size_t bufsz)
{
    const struct box_task *t = ui->task;
    if (!t)
        return false;
    char bar[24] = "";
    char bytes[64] = "";
    if (t->total > 0) {
        int fill = (int)(t->done * 20 / t->total);
        if (fill > 20)
            fill = 20;
        for (int i = 0; i < 20; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[20] = '\0';
        snprintf(bytes, sizeof bytes, " [%s] %.1f/%.1f KiB", bar, t->done / 1024.0,
                 t->total / 1024.0);
    } else if (t->done > 0) {
        snprintf(bytes, sizeof bytes, " %.1f KiB", t->done / 1024.0);
    }
    snprintf(buf, bufsz, " %s %s: %s%s   (ctrl-x cancels)", verb(t->action),
             t->name[0] ? t->name : "(current branch)", t->step, bytes);
    return true;
}

void box_task_shutdown(struct ui *ui)
{
    struct box_task *t = ui->task;
    if (!t)
        return;
    if (t->op)
        e2b_box_op_cancel(t->op);
    /* A cancelled up kills the sandbox it made: give it a few seconds, then leave. */
    int64_t end = e2b_now_ms() + 5000;
    while (ui->task && e2b_now_ms() < end)
        e2b_loop_run_once(ui->loop, 100);
    for (int i = 0; i < 3; i++)
        e2b_loop_run_once(ui->loop, 0); /* the posted free */
    if (ui->task && !ui->task->op) {
        free_task(ui->task); /* still opening the store: nothing to clean up remotely */
        ui->task = NULL;
    }
}

void box_task_free_all(struct ui *ui)
{
    ui->task = NULL; /* one that did not finish in time is left to the process exit */
    if (ui->ks) {
        keystore_close(ui->ks);
        ui->ks = NULL;
    }
    keystore_jobs_drain(2000);
}
