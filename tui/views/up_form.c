#include "tui/views/up_form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/box/box.h"
#include "core/box/records.h"
#include "core/git/gitwork.h"

struct up_form {
    struct ui *ui;
    struct view *view; /* a tab: lives as long as ui */
    up_form_started_fn started;
    char name[128], template_id[128], dir[1024];
    int hours;
    int count;             /* attempts: 1 = one box; 2.. = a group NAME-1 ... NAME-count */
    char task[4096];       /* a group's task (each member's first prompt) */
    char models[512];      /* a group's models, comma-separated ("" = the configured one) */
    char default_name[64]; /* from the probe of the current directory; "" until known */
    bool probed_cwd;       /* that probe answered (ok or not) */
    char cwd_problem[256]; /* why the current directory is no project ("" = it is) */
};

static void form_free(void *ctx)
{
    struct up_form *f = ctx;
    if (f->ui->model) /* at exit the model (and its probes) went first */
        e2b_live_project_probe_cancel(f->ui->model, f); /* the name label's probe */
    free(f);
}

static void ask_name(struct up_form *f, const char *problem, const char *initial);
static void ask_template(struct up_form *f, const char *problem, const char *initial);
static void ask_hours(struct up_form *f, const char *problem, const char *initial);
static void ask_dir(struct up_form *f, const char *problem, const char *initial);
static void ask_task(struct up_form *f, const char *problem, const char *initial);
static void ask_models(struct up_form *f, const char *problem, const char *initial);
static void ask_template_next(struct up_form *f);

static void cancelled(struct ui *ui)
{
    ui_flash(ui, FLASH_INFO, "up: cancelled");
}

/* A name that is taken on this machine (one small file looked at: its record). */
static bool name_taken(const struct up_form *f, const char *name)
{
    const e2b_config *cfg = e2b_live_config(f->ui->model);
    return cfg->records_dir && e2b_box_record_exists(cfg->records_dir, name);
}

/* ---- 4: the project directory; the up starts once the probe says it is a project ---- */

static void dir_checked(void *ud, const e2b_live_project *p)
{
    struct up_form *f = ud; /* ours now */
    struct ui *ui = f->ui;
    char why[400];
    if (!p->ok) {
        snprintf(why, sizeof why, "%.300s", p->why);
        ask_dir(f, why, f->dir);
        return;
    }
    const char *name = f->name[0] ? f->name : p->default_name;
    char first[160];
    snprintf(first, sizeof first, "%s%s", name, f->count > 1 ? "-1" : "");
    if (name_taken(f, first)) {
        snprintf(why, sizeof why, "a box named %s already exists on this machine", first);
        ask_name(f, why, f->name);
        return;
    }
    unsigned id;
    if (f->count > 1) { /* a group of attempts: up, fork, the task (core/live/live_try.c) */
        e2b_live_try_params tp = {.group = name, .count = f->count, .task = f->task,
                                  .models = f->models, .template_id = f->template_id,
                                  .dir = f->dir, .hours = f->hours};
        id = e2b_live_try(ui->model, &tp);
    } else {
        e2b_live_up_params up = {.name = f->name, .template_id = f->template_id,
                                 .hours = f->hours, .dir = f->dir};
        id = e2b_live_up_in(ui->model, &up);
    }
    if (id && f->started)
        f->started(f->view, id);
    free(f);
    ui->dirty = true;
}

static void dir_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct up_form *f = ctx;
    if (!ok) {
        cancelled(ui);
        return;
    }
    snprintf(f->dir, sizeof f->dir, "%s", text);
    /* The form goes to the probe (the prompt no longer owns it); its ud_free frees it. */
    struct up_form *mine = malloc(sizeof *mine);
    if (!mine)
        return;
    *mine = *f;
    e2b_live_project_probe(ui->model, f->dir, dir_checked, mine, free);
}

/* Opens one question of the form, after the problem of the answer refused (NULL: none),
 * which comes back (initial) unselected, to be mended. */
static void ask(struct up_form *f, const char *problem, const char *question,
                const char *initial, prompt_done_fn done)
{
    char label[512];
    snprintf(label, sizeof label, "%.300s%s%s", problem ? problem : "", problem ? "; " : "",
             question);
    prompt_open(f->ui, label, false, initial, NULL, done, f, form_free);
    if (problem)
        f->ui->prompt.selected = false; /* the refused answer, to be mended */
}

static void ask_dir(struct up_form *f, const char *problem, const char *initial)
{
    ask(f, problem, "up: project directory (empty: the current one): ", initial, dir_done);
}

/* ---- 3: hours ---- */

bool up_form_hours(const char *text, int *hours)
{
    char *end = NULL;
    long h = strtol(text, &end, 10);
    while (end && *end == ' ')
        end++;
    if (!*text || !end || *end || h < 1 || h > 24)
        return false;
    *hours = (int)h;
    return true;
}

/* Yes to the hours: the form goes on with a copy of its own (the question frees its copy). */
static void hours_yes(struct ui *ui, void *ctx, const char *arg)
{
    (void)arg;
    struct up_form *f = malloc(sizeof *f);
    if (!f) {
        ui_flash(ui, FLASH_ERROR, "up: out of memory");
        return;
    }
    *f = *(const struct up_form *)ctx;
    ask_dir(f, NULL, f->dir);
}

static void hours_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct up_form *f = ctx;
    if (!ok) {
        cancelled(ui);
        return;
    }
    if (!up_form_hours(text, &f->hours)) {
        ask_hours(f, "give a whole number of hours from 1 to 24", text);
        return;
    }
    const e2b_config *cfg = e2b_live_config(ui->model);
    if (f->hours <= cfg->hours) {
        ask_dir(f, NULL, f->dir);
        return;
    }
    /* More hours than the config's cost more: asked, default No. The question owns a copy
     * of the form (this prompt frees f once the callback returns). */
    struct up_form *copy = malloc(sizeof *copy);
    if (!copy) {
        ui_flash(ui, FLASH_ERROR, "up: out of memory");
        return;
    }
    *copy = *f;
    char q[300];
    const char *name = f->name[0] ? f->name : f->default_name;
    snprintf(q, sizeof q, "Start %s%.100s for %d hours (the config's hours: %d)? It runs, and "
                          "costs, until then unless stopped.",
             name[0] ? "box " : "the box", name, f->hours, cfg->hours);
    dialog_open(&ui->dialog, "up", q, NULL, hours_yes, copy);
    dialog_watch(&ui->dialog, 0, NULL, free);
}

static void ask_hours(struct up_form *f, const char *problem, const char *initial)
{
    ask(f, problem, "up: hours (1-24): ", initial, hours_done);
}

/* ---- 2: template ---- */

static void template_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct up_form *f = ctx;
    if (!ok) {
        cancelled(ui);
        return;
    }
    while (*text == ' ')
        text++;
    if (!*text || strchr(text, ' ')) {
        ask_template(f, "give a template name or id (one word)", text);
        return;
    }
    snprintf(f->template_id, sizeof f->template_id, "%s", text);
    const e2b_config *cfg = e2b_live_config(ui->model);
    char initial[16];
    snprintf(initial, sizeof initial, "%d", cfg->hours > 0 ? cfg->hours : 1);
    ask_hours(f, NULL, initial);
}

static void ask_template(struct up_form *f, const char *problem, const char *initial)
{
    ask(f, problem, "up: template (or a snapshot): ", initial, template_done);
}

/* ---- 1: name ---- */

/* "NAME xN" (or "NAME *N"): N attempts; plain NAME (or "") one box. */
bool up_form_attempts(const char *text, char *name, size_t n, int *count)
{
    *count = 1;
    size_t len = strlen(text);
    while (len && text[len - 1] == ' ')
        len--;
    size_t d = len;
    while (d && text[d - 1] >= '0' && text[d - 1] <= '9')
        d--;
    size_t x = d;
    if (d < len && x && (text[x - 1] == 'x' || text[x - 1] == '*')) {
        size_t end = x - 1;
        if (end && text[end - 1] == ' ') { /* a word of its own after the name ("x1" is a name) */
            while (end && text[end - 1] == ' ')
                end--;
            long c = len - d > 3 ? 0 : strtol(text + d, NULL, 10);
            if (c < 1 || c > 100)
                return false;
            *count = (int)c;
            len = end;
        }
    }
    snprintf(name, n, "%.*s", (int)len, text);
    return true;
}

static void name_done(struct ui *ui, void *ctx, bool ok, const char *answer)
{
    struct up_form *f = ctx;
    if (!ok) {
        cancelled(ui);
        return;
    }
    char why[300], text[128];
    if (!up_form_attempts(answer, text, sizeof text, &f->count)) {
        ask_name(f, "NAME xN: N from 1 to 100 attempts", answer);
        return;
    }
    if (f->count > 1) {
        const char *group = *text ? text : f->default_name;
        if (!*group || strlen(group) > 50) {
            ask_name(f, "a group of attempts needs a name of at most 50 characters (NAME xN)",
                     answer);
            return;
        }
    }
    if (*text && !e2b_gitwork_box_name_valid(text)) {
        char fixed[E2B_GITWORK_BOX_NAME_MAX + 8];
        e2b_gitwork_sanitize_box_name(text, fixed, sizeof fixed);
        snprintf(why, sizeof why,
                 "'%.60s' is not a valid box name (letters, digits, '.', '_', '-'; at most %d): "
                 "perhaps %s",
                 text, E2B_GITWORK_BOX_NAME_MAX, fixed);
        ask_name(f, why, answer);
        return;
    }
    const char *name = *text ? text : f->default_name;
    char first[200];
    snprintf(first, sizeof first, "%s%s", name, f->count > 1 ? "-1" : "");
    if (*name && name_taken(f, first)) {
        snprintf(why, sizeof why, "a box named %s already exists on this machine", first);
        ask_name(f, why, answer);
        return;
    }
    snprintf(f->name, sizeof f->name, "%s", text);
    if (f->count == 1) {
        ask_template_next(f);
        return;
    }
    /* a group: NAME-1 ... NAME-N, each given the task */
    if (f->count > E2B_BOX_FORK_ASK_ABOVE)
        ui_flash(ui, FLASH_INFO, "up: %d attempts make %d boxes, each costing its size",
                 f->count, f->count);
    ask_task(f, NULL, f->task);
}

/* ---- 1b: attempts; a group's task and models ---- */

static void ask_template_next(struct up_form *f)
{
    const e2b_config *cfg = e2b_live_config(f->ui->model);
    ask_template(f, NULL, f->template_id[0] ? f->template_id
                          : cfg->template_id  ? cfg->template_id
                                              : "");
}

static void models_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct up_form *f = ctx;
    if (!ok) {
        cancelled(ui);
        return;
    }
    while (*text == ' ')
        text++;
    if (!e2b_live_try_models_valid(text)) {
        ask_models(f, "models are provider/model, comma-separated (e.g. anthropic/claude-"
                      "sonnet-4-5,openai/gpt-5)", text);
        return;
    }
    snprintf(f->models, sizeof f->models, "%s", text);
    ask_template_next(f);
}

static void ask_models(struct up_form *f, const char *problem, const char *initial)
{
    ask(f, problem, "up: the members' models, round robin (provider/model, comma-separated; "
                "empty: the configured one): ", initial, models_done);
}

static void task_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct up_form *f = ctx;
    if (!ok) {
        cancelled(ui);
        return;
    }
    const char *p = text;
    while (*p == ' ')
        p++;
    if (!*p) {
        ask_task(f, "a group of attempts needs the task its members are given", text);
        return;
    }
    snprintf(f->task, sizeof f->task, "%s", text);
    ask_models(f, NULL, f->models);
}

static void ask_task(struct up_form *f, const char *problem, const char *initial)
{
    char question[128];
    snprintf(question, sizeof question, "up: the task for each of the %d attempts: ", f->count);
    ask(f, problem, question, initial, task_done);
}

static void name_label(const struct up_form *f, const char *problem, char *buf, size_t bufsz)
{
    char empty[160];
    if (!f->probed_cwd)
        snprintf(empty, sizeof empty, "empty: from the current branch");
    else if (f->cwd_problem[0])
        snprintf(empty, sizeof empty, "this directory is no git project: give a name and, "
                                      "last, the project's directory");
    else
        snprintf(empty, sizeof empty, "empty: %s", f->default_name);
    snprintf(buf, bufsz, "%.300s%sup: box name (%.150s): ", problem ? problem : "",
             problem ? "; " : "", empty);
}

static void ask_name(struct up_form *f, const char *problem, const char *initial)
{
    char label[512];
    name_label(f, problem, label, sizeof label);
    prompt_open(f->ui, label, false, initial, NULL, name_done, f, form_free);
    snprintf(f->ui->prompt.hint, sizeof f->ui->prompt.hint,
             "(NAME xN: a group of N attempts at one task)");
    if (problem)
        f->ui->prompt.selected = false; /* the refused answer, to be mended */
}

/* The current directory's probe answered: the name's question shows the real default. */
static void cwd_probed(void *ud, const e2b_live_project *p)
{
    struct up_form *f = ud; /* still the open prompt's context (cancelled otherwise) */
    f->probed_cwd = true;
    snprintf(f->default_name, sizeof f->default_name, "%s", p->ok ? p->default_name : "");
    snprintf(f->cwd_problem, sizeof f->cwd_problem, "%.250s", p->ok ? "" : p->why);
    struct prompt *pr = &f->ui->prompt;
    if (pr->active && pr->ctx == f && pr->on_done == name_done) {
        name_label(f, NULL, pr->label, sizeof pr->label);
        f->ui->dirty = true;
    }
}

void up_form_open(struct ui *ui, struct view *v, up_form_started_fn started)
{
    struct up_form *f = calloc(1, sizeof *f);
    if (!f) {
        ui_flash(ui, FLASH_ERROR, "up: out of memory");
        return;
    }
    f->ui = ui;
    f->view = v;
    f->started = started;
    ask_name(f, NULL, "");
    /* Not owned by the probe: the prompt frees f, and form_free cancels the probe. */
    e2b_live_project_probe(ui->model, NULL, cwd_probed, f, NULL);
}
