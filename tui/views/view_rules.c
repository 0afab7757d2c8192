/* The Rules pane (tui/views/view_rules.h). */
#include "tui/views/view_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/term/term.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/list.h"

enum { RCOL_BOX, RCOL_FROM, RCOL_RULE, RCOL_COUNT };

static const struct table_column COLUMNS[RCOL_COUNT] = {
    [RCOL_BOX] = {"BOX", 0, 6, 24, false, false},
    [RCOL_FROM] = {"FROM", 0, 7, 7, false, false},
    [RCOL_RULE] = {"RULE", 0, 16, 0, false, true},
};

#define RULES_BOXES 256 /* boxes whose server list was asked, per pane */

struct rules_view {
    bool every;
    char name[128]; /* one box: its name ("" with every) */
    char asked[RULES_BOXES][128]; /* the sandbox ids whose saved list was asked */
    size_t nasked;
};

/* A revoke waiting for its answer (the question owns it). */
struct revoke {
    char kind; /* 'e' an e2b-tui rule, 'y' yes-all, 's' a saved answer */
    char sid[128], name[128];
    char what[E2B_AGENT_TEXT_MAX]; /* the rule, or the saved answer's id */
};

static bool in_scope(const struct rules_view *rv, const e2b_box_record *r)
{
    return rv->every || !strcmp(r->name, rv->name);
}

static bool was_asked(const struct rules_view *rv, const char *sid)
{
    for (size_t i = 0; i < rv->nasked; i++)
        if (!strcmp(rv->asked[i], sid))
            return true;
    return false;
}

/* Asks the server's list of each box in scope whose agent is reached, once. The model may
 * tell of the change at once (a v1 server's answer is known without a call): fill runs
 * again inside, so nothing of the records is held across. */
static void ask_saved(struct view *v, struct ui *ui)
{
    struct rules_view *rv = v->priv;
    for (;;) {
        const e2b_box_record_list *recs = e2b_live_records(ui->model, NULL);
        const char *sid = NULL;
        for (size_t i = 0; recs && i < recs->count && !sid; i++) {
            const e2b_box_record *r = &recs->items[i];
            if (in_scope(rv, r) && r->sandbox_id && !was_asked(rv, r->sandbox_id) &&
                e2b_live_agent_synced(ui->model, r->sandbox_id))
                sid = r->sandbox_id;
        }
        if (!sid || rv->nasked >= RULES_BOXES)
            return;
        char id[128];
        snprintf(id, sizeof id, "%s", sid);
        snprintf(rv->asked[rv->nasked++], sizeof rv->asked[0], "%s", id);
        e2b_live_saved_load(ui->model, id);
    }
}

struct rows {
    struct table_row_in *in;
    struct row_text {
        char id[E2B_AGENT_TEXT_MAX + 300], rule[1400];
        const char *cells[RCOL_COUNT];
    } *text;
    size_t n, cap;
};

static struct row_text *add_row(struct rows *rs)
{
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 16;
        struct row_text *t = realloc(rs->text, cap * sizeof *t);
        if (!t)
            return NULL;
        rs->text = t;
        rs->cap = cap;
    }
    struct row_text *t = &rs->text[rs->n++];
    memset(t, 0, sizeof *t);
    return t;
}

static void box_rows(struct ui *ui, const struct rules_view *rv, const e2b_box_record *r,
                     struct rows *rs)
{
    const char *sid = r->sandbox_id ? r->sandbox_id : "";
    struct row_text *t;
    if (r->yes_all && (t = add_row(rs))) {
        snprintf(t->id, sizeof t->id, "y %s", sid);
        snprintf(t->rule, sizeof t->rule, "yes-all: every permission request is allowed");
        t->cells[RCOL_FROM] = "e2b-tui";
    }
    for (size_t k = 0; k < r->napprove; k++) {
        if (!(t = add_row(rs)))
            return;
        snprintf(t->id, sizeof t->id, "e %s %s", sid, r->approve[k]);
        snprintf(t->rule, sizeof t->rule, "%s", r->approve[k]);
        t->cells[RCOL_FROM] = "e2b-tui";
    }
    size_t n = 0;
    bool loading = false;
    const char *why = NULL;
    const e2b_agent_request *s = e2b_live_saved(ui->model, sid, &n, &loading, &why);
    bool asked = was_asked(rv, sid);
    for (size_t k = 0; asked && !loading && !why && k < n; k++) {
        if (!(t = add_row(rs)))
            return;
        snprintf(t->id, sizeof t->id, "s %s %s", sid, s[k].id ? s[k].id : "");
        snprintf(t->rule, sizeof t->rule, "always: %s: %s", s[k].action ? s[k].action : "?",
                 s[k].detail && *s[k].detail ? s[k].detail : "*");
        t->cells[RCOL_FROM] = "server";
    }
    if ((!asked || loading || why || !n) && (t = add_row(rs))) { /* what is known instead */
        snprintf(t->id, sizeof t->id, "n %s", sid);
        const e2b_agent_status *st = e2b_live_agent(ui->model, sid);
        if (!asked)
            snprintf(t->rule, sizeof t->rule, "(saved answers not read: its agent is not reached%s)",
                     !st ? "; the box is not running" : st->state == E2B_AGENT_PAUSED
                               ? ": the box is paused" : " yet");
        else if (loading)
            snprintf(t->rule, sizeof t->rule, "(reading the server's saved \"always\" answers...)");
        else if (why)
            snprintf(t->rule, sizeof t->rule, "(not listed: %s)", why);
        else
            snprintf(t->rule, sizeof t->rule, "(no saved \"always\" answer)");
        t->cells[RCOL_FROM] = "server";
    }
}

static void fill(struct view *v, struct ui *ui)
{
    struct rules_view *rv = v->priv;
    ask_saved(v, ui);
    const e2b_box_record_list *recs = e2b_live_records(ui->model, NULL);
    struct rows rs = {0};
    for (size_t i = 0; recs && i < recs->count; i++) {
        const e2b_box_record *r = &recs->items[i];
        if (!in_scope(rv, r))
            continue;
        size_t from = rs.n;
        box_rows(ui, rv, r, &rs);
        for (size_t k = from; k < rs.n; k++)
            rs.text[k].cells[RCOL_BOX] = r->name;
    }
    rs.in = calloc(rs.n ? rs.n : 1, sizeof *rs.in);
    if (rs.in) {
        for (size_t k = 0; k < rs.n; k++) {
            rs.text[k].cells[RCOL_RULE] = rs.text[k].rule;
            rs.in[k] = (struct table_row_in){rs.text[k].id, rs.text[k].cells};
        }
        if (list_set_rows(v, ui, rs.in, rs.n) == 0)
            v->loaded = true;
    }
    free(rs.in);
    free(rs.text);
}

static void open_view(struct view *v, struct ui *ui)
{
    struct rules_view *rv = v->priv;
    rv->nasked = 0; /* shown again: the server's lists are read again */
    fill(v, ui);
}

static void changed(struct view *v, struct ui *ui, unsigned what)
{
    if (what & (E2B_LIVE_SANDBOXES | E2B_LIVE_AGENTS))
        fill(v, ui);
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    struct rules_view *rv = v->priv;
    char head[300];
    snprintf(head, sizeof head, "RULES  %s  %zu  (x: revoke  Esc: back)",
             rv->every ? "every box" : rv->name, v->table.nrows);
    draw_text(y, x, w, ROLE_HEADER, head, true);
    list_draw(v, ui, y + 1, x, h - 1, w);
}

static const e2b_box_record *record_of(struct ui *ui, const char *sid)
{
    const e2b_box_record_list *recs = e2b_live_records(ui->model, NULL);
    for (size_t i = 0; recs && i < recs->count; i++)
        if (recs->items[i].sandbox_id && !strcmp(recs->items[i].sandbox_id, sid))
            return &recs->items[i];
    return NULL;
}

static void revoke_yes(struct ui *ui, void *ctx, const char *arg)
{
    (void)arg;
    const struct revoke *r = ctx;
    if (r->kind == 's') {
        if (e2b_live_saved_revoke(ui->model, r->sid, r->what) == 0)
            ui_flash(ui, FLASH_INFO, "%s: removing the saved answer...", r->name);
        else
            ui_flash(ui, FLASH_ERROR, "%s: the saved answer cannot be removed now (its agent "
                                      "is not reached)", r->name);
        return;
    }
    e2b_error *err = e2b_live_rules_change(ui->model, r->name, r->kind == 'e' ? r->what : NULL,
                                           false, r->kind == 'y' ? 0 : -1);
    if (err)
        ui_flash(ui, FLASH_ERROR, "revoke: %s", e2b_error_message(err));
    else
        ui_flash(ui, FLASH_INFO, "%s: %s revoked", r->name, r->kind == 'e' ? r->what : "yes-all");
    e2b_error_free(err);
}

static void ask_revoke(struct view *v, struct ui *ui)
{
    const struct table_row *row = table_selected(&v->table);
    if (!row) {
        ui_flash(ui, FLASH_INFO, "revoke: no rule here");
        return;
    }
    const char *sp = strchr(row->id, ' ');
    const char *sp2 = sp ? strchr(sp + 1, ' ') : NULL;
    struct revoke *r = calloc(1, sizeof *r);
    if (!r || !sp || row->id[0] == 'n') {
        free(r);
        ui_flash(ui, FLASH_INFO, "revoke: that row is not a rule (nothing to revoke)");
        return;
    }
    r->kind = row->id[0];
    size_t len = (size_t)((sp2 ? sp2 : row->id + strlen(row->id)) - (sp + 1));
    snprintf(r->sid, sizeof r->sid, "%.*s", (int)len, sp + 1);
    snprintf(r->what, sizeof r->what, "%s", sp2 ? sp2 + 1 : "");
    const e2b_box_record *rec = record_of(ui, r->sid);
    if (!rec) {
        free(r);
        ui_flash(ui, FLASH_ERROR, "revoke: that box is no longer on this machine");
        return;
    }
    snprintf(r->name, sizeof r->name, "%s", rec->name);
    char text[1600];
    if (r->kind == 'e')
        snprintf(text, sizeof text, "Revoke e2b-tui's approval rule \"%s\" of box %s?\n"
                 "Requests it allowed will wait for you again.", r->what, r->name);
    else if (r->kind == 'y')
        snprintf(text, sizeof text, "Turn yes-all off for box %s?\n"
                 "Its permission requests will wait for you again (or for a rule).", r->name);
    else
        snprintf(text, sizeof text, "Remove the server's saved answer \"%s\" of box %s?\n"
                 "The server will ask again next time.", row->cells[RCOL_RULE], r->name);
    dialog_open(&ui->dialog, r->kind == 's' ? "Remove saved answer" : "Revoke rule", text,
                r->sid, revoke_yes, r);
    dialog_watch(&ui->dialog, 0, NULL, free);
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    if (a == ACT_RULE_REVOKE) {
        ask_revoke(v, ui);
        return true;
    }
    return list_move_act(v, ui, a);
}

static const struct view_ops OPS = {
    .name = "rules",
    .title = "Rules",
    .bit = VIEW_RULES,
    .open = open_view,
    .changed = changed,
    .draw = draw,
    .act = act,
    .destroy = list_view_destroy,
};

void view_rules_open(struct ui *ui, const char *name, bool every)
{
    char box[128] = "";
    const e2b_box_record_list *recs = e2b_live_records(ui->model, NULL);
    if (name && *name) {
        for (size_t i = 0; recs && i < recs->count && !box[0]; i++)
            if (!strcmp(recs->items[i].name, name) ||
                (recs->items[i].sandbox_id && !strcmp(recs->items[i].sandbox_id, name)))
                snprintf(box, sizeof box, "%s", recs->items[i].name);
        if (!box[0]) {
            ui_flash(ui, FLASH_ERROR, "rules: no box called %s on this machine", name);
            return;
        }
    } else if (!every && ui->tab != TAB_SECRETS) {
        const struct table_row *row = table_selected(&ui->tabs[ui->tab]->table);
        const e2b_box_record *rec = row ? e2b_live_record(ui->model, row->id) : NULL;
        if (rec)
            snprintf(box, sizeof box, "%s", rec->name);
    }
    struct view *v = list_view_new(&OPS, COLUMNS, RCOL_COUNT,
                                   box[0] ? "No approval rule and nothing saved on the server."
                                          : "No box of this machine has an approval rule.");
    struct rules_view *rv = v ? calloc(1, sizeof *rv) : NULL;
    if (!rv) {
        if (v)
            list_view_destroy(v);
        ui_flash(ui, FLASH_ERROR, "rules: out of memory");
        return;
    }
    rv->every = !box[0];
    snprintf(rv->name, sizeof rv->name, "%s", box);
    v->priv = rv;
    ui_set_pane(ui, v);
}
