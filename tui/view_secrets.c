/* The Secrets view: model API keys stored as E2B secrets. Listing and changing them is
 * core's work (not in this build); the name and hidden-value prompts are real, and the
 * value is wiped as soon as the prompt closes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/ui.h"

static const struct table_column COLUMNS[] = {
    {"NAME", 'N', 12, 40, false, true},
    {"HOSTS", 'H', 10, 40, false, false},
    {"CREATED", 'C', 10, 20, false, false},
};

/* The name typed in the first prompt, while the second asks for the value. */
static char pending_name[128];

static void value_done(struct ui *ui, bool ok, const char *value)
{
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "secret-set: cancelled");
    } else if (!value[0]) {
        ui_flash(ui, FLASH_ERROR, "secret-set: the value is empty; nothing was stored");
    } else {
        /* No backend yet: say so, store nothing. The prompt wipes its buffer after us. */
        ui_flash(ui, FLASH_ERROR,
                 "secret-set %s: not available yet in this build; the value was discarded",
                 pending_name);
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
    (void)name;
    ui_not_available(ui, ACT_SECRET_REMOVE);
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
        ui_confirm(ui, "Remove secret", text, r->cells[0], remove_confirmed);
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
    v->empty_text = "Secrets are not available yet in this build (n: set, x: remove).";
    return v;
}
