/* m and e on a box at its budget ask first (budget_ask.h). */
#include "tui/views/budget_ask.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/box/records.h"
#include "core/e2b/cost.h"
#include "core/live/live_budget.h"
#include "tui/widgets/dialog.h"
#include "tui/widgets/prompt.h"

/* What the question is about; the dialog and then the prompt own a copy each. */
struct budget_ctx {
    char id[128], name[128], session[128];
    int action;
    budget_go_fn go;
};

double budget_ask_raise(double budget_usd, double spent_usd)
{
    double r = budget_usd > 0 ? budget_usd * 2 : 1;
    while (r <= spent_usd && r < E2B_BUDGET_MAX_USD)
        r *= 2;
    return r < E2B_BUDGET_MAX_USD ? r : E2B_BUDGET_MAX_USD;
}

/* Writes the new budget and goes on with the action. */
static void raise_to(struct ui *ui, const struct budget_ctx *c, double usd)
{
    const e2b_box_record *r =
        e2b_box_record_list_find_sandbox(e2b_live_records(ui->model, NULL), c->id);
    e2b_live_budget b;
    if (!r || !r->name || !e2b_live_budget_of(ui->model, c->id, &b)) {
        ui_flash(ui, FLASH_ERROR, "budget: %s has no record on this machine", c->name);
        return;
    }
    char f[24];
    if (!(usd > b.spent_usd)) {
        e2b_cost_format(b.spent_usd, f, sizeof f);
        ui_flash(ui, FLASH_ERROR, "budget: %s has cost %s already: give it more than that",
                 c->name, f);
        return;
    }
    e2b_error *e = e2b_live_budget_set(ui->model, r->name, usd);
    if (e) {
        ui_flash(ui, FLASH_ERROR, "budget: %s", e2b_error_message(e));
        e2b_error_free(e);
        return;
    }
    c->go(ui, c->id, c->name, c->session, c->action);
}

static void on_yes(struct ui *ui, void *ctx, const char *arg)
{
    (void)arg;
    struct budget_ctx *c = ctx;
    e2b_live_budget b;
    if (e2b_live_budget_of(ui->model, c->id, &b))
        raise_to(ui, c, budget_ask_raise(b.usd, b.spent_usd));
}

static void typed(struct ui *ui, void *ctx, bool ok, const char *text)
{
    double usd;
    if (!ok)
        return;
    if (e2b_budget_parse(text, &usd) < 0) {
        ui_flash(ui, FLASH_ERROR, "budget: '%s' is not dollars (a number from 0.01 to %g)",
                 text, E2B_BUDGET_MAX_USD);
        return;
    }
    raise_to(ui, ctx, usd);
}

static void on_type(struct ui *ui, void *ctx, const char *arg)
{
    (void)arg;
    struct budget_ctx *c = malloc(sizeof *c);
    if (!c)
        return;
    *c = *(struct budget_ctx *)ctx;
    e2b_live_budget b;
    char initial[32] = "", label[200];
    if (e2b_live_budget_of(ui->model, c->id, &b))
        snprintf(initial, sizeof initial, "%.2f", budget_ask_raise(b.usd, b.spent_usd));
    snprintf(label, sizeof label, "budget of %s in dollars: ", c->name);
    prompt_open(ui, label, false, initial, NULL, typed, c, free);
}

bool budget_ask(struct ui *ui, const char *id, const char *name, const char *session_id,
                int action, budget_go_fn go)
{
    e2b_live_budget b;
    if (!e2b_live_budget_of(ui->model, id, &b) || b.usd <= 0 || !(b.stopped || b.reached))
        return false;
    struct budget_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return true;
    snprintf(c->id, sizeof c->id, "%s", id);
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->session, sizeof c->session, "%s", session_id ? session_id : "");
    c->action = action;
    c->go = go;
    char f[24], s[24], r[24], text[400];
    e2b_cost_format(b.usd, f, sizeof f);
    e2b_cost_format(b.spent_usd, s, sizeof s);
    e2b_cost_format(budget_ask_raise(b.usd, b.spent_usd), r, sizeof r);
    snprintf(text, sizeof text, "%s is at its %s budget (%s spent now).\nRaise it to %s?\n"
             "y: raise it; t: type a budget; n: leave it.", name, f, s, r);
    dialog_open(&ui->dialog, "Budget", text, id, on_yes, c);
    dialog_set_alt(&ui->dialog, 't', on_type);
    dialog_watch(&ui->dialog, 0, NULL, free);
    return true;
}
