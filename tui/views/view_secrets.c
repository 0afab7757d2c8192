/* The Secrets view: model API keys stored as E2B secrets (listed by tui/refresh.c).
 * n sets one (name, then the value in a hidden field: created, or updated when the name
 * exists), x removes the selected one after a question. The value goes to core once and is
 * wiped from the prompt's buffer as soon as the prompt closes; it is never drawn or logged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/refresh.h"
#include "tui/ui.h"

static const struct table_column COLUMNS[] = {
    {"NAME", 'N', 12, 40, false, true},
    {"HOSTS", 'H', 10, 40, false, false},
    {"CREATED", 'C', 10, 20, false, false},
};

/* The name typed in the first prompt, while the second asks for the value. */
static char pending_name[128];

void secrets_rows_fill(struct ui *ui, const e2b_secret_list *list);

void secrets_rows_fill(struct ui *ui, const e2b_secret_list *list)
{
    struct view *v = ui->tabs[TAB_SECRETS];
    size_t n = list->count;
    struct table_row_in *rows = calloc(n ? n : 1, sizeof *rows);
    const char **cells = calloc(n ? n * 3 : 1, sizeof *cells);
    char (*created)[24] = calloc(n ? n : 1, sizeof *created);
    if (rows && cells && created) {
        for (size_t i = 0; i < n; i++) {
            const e2b_secret *s = &list->items[i];
            const char *hosts = e2b_metadata_get(&s->metadata, "hosts");
            if (s->created_at)
                e2b_format_rfc3339(s->created_at, created[i], sizeof created[i]);
            else
                snprintf(created[i], sizeof created[i], "-");
            cells[i * 3] = s->name;
            cells[i * 3 + 1] = hosts ? hosts : "-";
            cells[i * 3 + 2] = created[i];
            rows[i].id = s->name;
            rows[i].cells = &cells[i * 3];
        }
        /* A refresh with the same secrets changes nothing and draws no frame. */
        size_t changed = 0;
        if (table_update_rows(&v->table, rows, n, &changed) == 0) {
            if (changed || !v->loaded)
                ui->dirty = true;
            v->loaded = true;
            v->empty_text = "No secrets yet: n sets one (e.g. anthropic).";
        }
    }
    free(rows);
    free(cells);
    free(created);
}

/* ---- set and remove through core ---- */

struct secret_op {
    struct ui *ui;
    char name[128];
    bool removing;
};

static void op_done(struct ui *ui, struct secret_op *op, const e2b_error *err)
{
    if (!ui->closing) {
        if (err)
            ui_flash(ui, FLASH_ERROR, "%s", e2b_error_message(err));
        else
            ui_flash(ui, FLASH_INFO, "secret %s %s", op->name,
                     op->removing ? "removed" : "stored");
        if (!err || err->kind != E2B_ERR_CANCELLED)
            refresh_now(ui);
    }
    free(op);
}

static void on_secret(void *ud, e2b_secret *s, const e2b_error *err)
{
    struct secret_op *op = ud;
    e2b_secret_free(s);
    op_done(op->ui, op, err);
}

static void on_removed(void *ud, long status, const e2b_error *err)
{
    struct secret_op *op = ud;
    (void)status;
    op_done(op->ui, op, err);
}

static bool secret_exists(struct ui *ui, const char *name)
{
    const struct table *t = &ui->tabs[TAB_SECRETS]->table;
    for (size_t i = 0; i < t->nrows; i++) {
        if (strcmp(t->rows[i].id, name) == 0)
            return true;
    }
    return false;
}

static void value_done(struct ui *ui, bool ok, const char *value)
{
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "secret-set: cancelled");
    } else if (!value[0]) {
        ui_flash(ui, FLASH_ERROR, "secret-set: the value is empty; nothing was stored");
    } else if (!ui->client) {
        ui_flash(ui, FLASH_ERROR, "secret-set: no API key (set E2B_API_KEY); nothing was stored");
    } else {
        struct secret_op *op = calloc(1, sizeof *op);
        e2b_error *err = NULL;
        if (op) {
            op->ui = ui;
            snprintf(op->name, sizeof op->name, "%s", pending_name);
            e2b_api_call *call =
                secret_exists(ui, pending_name)
                    ? e2b_api_secret_update(ui->client, pending_name, value, NULL, on_secret, op,
                                            &err)
                    : e2b_api_secret_create(ui->client, pending_name, value, NULL, on_secret, op,
                                            &err);
            if (call) {
                ui_flash(ui, FLASH_INFO, "storing secret %s...", pending_name);
            } else {
                ui_flash(ui, FLASH_ERROR, "%s", err ? e2b_error_message(err) : "out of memory");
                e2b_error_free(err);
                free(op);
            }
        }
    }
    memset(pending_name, 0, sizeof pending_name);
}

static bool valid_name(const char *s)
{
    if (!*s || strlen(s) >= sizeof pending_name)
        return false;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

static void name_done(struct ui *ui, bool ok, const char *name)
{
    if (!ok)
        return;
    if (!valid_name(name)) {
        ui_flash(ui, FLASH_ERROR,
                 "secret name must be letters, digits, '-' or '_' (e.g. anthropic)");
        return;
    }
    snprintf(pending_name, sizeof pending_name, "%s", name);
    char label[160];
    snprintf(label, sizeof label, "value for %s (hidden): ", name);
    ui_prompt(ui, label, true, "", NULL, value_done);
}

static void remove_confirmed(struct ui *ui, const char *name)
{
    if (!ui->client) {
        ui_flash(ui, FLASH_ERROR, "secret-remove: no API key (set E2B_API_KEY)");
        return;
    }
    struct secret_op *op = calloc(1, sizeof *op);
    if (!op)
        return;
    op->ui = ui;
    op->removing = true;
    snprintf(op->name, sizeof op->name, "%s", name);
    e2b_error *err = NULL;
    if (e2b_api_secret_delete(ui->client, name, on_removed, op, &err)) {
        ui_flash(ui, FLASH_INFO, "removing secret %s...", name);
    } else {
        ui_flash(ui, FLASH_ERROR, "%s", err ? e2b_error_message(err) : "out of memory");
        e2b_error_free(err);
        free(op);
    }
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    if (!ui->have_api_key && !v->loaded) {
        screen_no_api_key(y, x, h, w);
        return;
    }
    list_draw(v, ui, y, x, h, w);
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    if (list_act(v, ui, a))
        return true;
    if (a == ACT_SECRET_SET) {
        ui_prompt(ui, "secret name (e.g. anthropic): ", false, "", NULL, name_done);
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
        ui_confirm(ui, "Remove secret", text, r->id, remove_confirmed);
        return true;
    }
    return false;
}

static void destroy(struct view *v)
{
    table_free(&v->table);
    free(v);
}

static const struct view_ops OPS = {
    .name = "secrets",
    .title = "Secrets",
    .bit = VIEW_SECRETS,
    .draw = draw,
    .act = act,
    .destroy = destroy,
};

struct view *view_secrets_new(void)
{
    struct view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->ops = &OPS;
    v->has_table = true;
    table_init(&v->table, COLUMNS, 3);
    v->empty_text = "No secrets listed.";
    return v;
}
