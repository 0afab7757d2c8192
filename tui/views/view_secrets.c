/* The Secrets view (tui/views/view_secrets.h). n sets one (name, then the value in a
 * hidden field; the model creates it, or updates it when the name exists), x removes the
 * selected one after a question. The value goes to the model once and is wiped from the
 * prompt's buffer as soon as the prompt closes; it is never drawn or logged. */
#include "tui/views/view_secrets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/box/secrets_providers.h"
#include "tui/views/screens.h"
#include "tui/widgets/list.h"


static const struct table_column COLUMNS[] = {
    {"NAME", 'N', 12, 40, false, true},
    {"HOSTS", 'H', 10, 40, false, false},
    {"CREATED", 'C', 10, 20, false, false},
};

static void fill(struct view *v, struct ui *ui)
{
    bool listed = false;
    const e2b_secret_list *list = e2b_live_secrets(ui->model, &listed);
    if (!listed)
        return;
    size_t n = list->count;
    struct table_row_in *rows = calloc(n ? n : 1, sizeof *rows);
    const char **cells = calloc(n ? n * 3 : 1, sizeof *cells);
    char (*created)[24] = calloc(n ? n : 1, sizeof *created);
    if (rows && cells && created) {
        for (size_t i = 0; i < n; i++) {
            const e2b_secret *s = &list->items[i];
            /* As `--secrets list` shows them: the provider's host, a time for people. */
            e2b_secret_time_text(s->created_at, created[i], sizeof created[i]);
            cells[i * 3] = s->name;
            cells[i * 3 + 1] = e2b_secret_host(s->name);
            cells[i * 3 + 2] = created[i];
            rows[i].id = s->name;
            rows[i].cells = &cells[i * 3];
        }
        /* A refresh with the same secrets changes nothing and draws no frame. */
        if (list_set_rows(v, ui, rows, n) == 0) {
            v->loaded = true;
            v->empty_text = "No secrets yet: n sets one (e.g. anthropic).";
        }
    }
    free(rows);
    free(cells);
    free(created);
}

static void changed(struct view *v, struct ui *ui, unsigned what)
{
    if ((what & E2B_LIVE_SANDBOXES) && !v->loaded && e2b_live_has_client(ui->model))
        v->empty_text = "Loading secrets from E2B...";
    if (what & E2B_LIVE_SECRETS)
        fill(v, ui);
}

static void open_view(struct view *v, struct ui *ui)
{
    (void)v;
    e2b_live_show_secrets(ui->model, true);
}

static void close_view(struct view *v, struct ui *ui)
{
    (void)v;
    e2b_live_show_secrets(ui->model, false);
}

/* ---- set and remove through the model ---- */

/* The name typed in the first prompt travels to the second as its context. */
static void value_done(struct ui *ui, void *ctx, bool ok, const char *value)
{
    const char *name = ctx;
    if (!ok)
        ui_flash(ui, FLASH_INFO, "secret-set: cancelled");
    else if (!value[0])
        ui_flash(ui, FLASH_ERROR, "secret-set: the value is empty; nothing was stored");
    else if (!e2b_live_has_client(ui->model))
        ui_flash(ui, FLASH_ERROR, "secret-set: no API key (set E2B_API_KEY); nothing was stored");
    else
        e2b_live_secret_set(ui->model, name, value);
}

static void name_done(struct ui *ui, void *ctx, bool ok, const char *name)
{
    (void)ctx;
    if (!ok)
        return;
    if (!e2b_secret_name_valid(name)) { /* the CLI's rule and words */
        ui_flash(ui, FLASH_ERROR, "not a valid secret name (" E2B_SECRET_NAME_RULE ")");
        return;
    }
    char *pending = strdup(name);
    if (!pending)
        return;
    char label[160];
    snprintf(label, sizeof label, "value for %s (hidden): ", name);
    prompt_open(ui, label, true, "", NULL, value_done, pending, free);
}

static void remove_confirmed(struct ui *ui, void *ctx, const char *name)
{
    (void)ctx;
    if (!e2b_live_has_client(ui->model)) {
        ui_flash(ui, FLASH_ERROR, "secret-remove: no API key (set E2B_API_KEY)");
        return;
    }
    e2b_live_secret_remove(ui->model, name);
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    if (!ui_have_api_key(ui) && !v->loaded) {
        screens_no_api_key(y, x, h, w);
        return;
    }
    list_draw(v, ui, y, x, h, w);
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    if (list_act(v, ui, a))
        return true;
    if (a == ACT_SECRET_SET) {
        prompt_open(ui, "secret name (e.g. anthropic): ", false, "", NULL, name_done, NULL, NULL);
        return true;
    }
    if (a == ACT_SECRET_REMOVE) {
        const struct table_row *r = table_selected(&v->table);
        if (!r) {
            ui_flash(ui, FLASH_ERROR, "secret-remove: no secret selected");
            return true;
        }
        char text[300];
        snprintf(text, sizeof text, "Remove secret \"%s\"?\nBoxes using it lose access.",
                 r->cells[0]);
        dialog_open(&ui->dialog, "Remove secret", text, r->id, remove_confirmed, NULL);
        return true;
    }
    return false;
}

static const struct view_ops OPS = {
    .name = "secrets",
    .title = "Secrets",
    .bit = VIEW_SECRETS,
    .open = open_view,
    .close = close_view,
    .changed = changed,
    .draw = draw,
    .act = act,
    .destroy = list_view_destroy,
};

struct view *view_secrets_new(void)
{
    return list_view_new(&OPS, COLUMNS, 3, "No secrets listed.");
}
