/* The "Needs you" pane (tui/views/view_needs.h). */
#include "tui/views/view_needs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agent/agent.h"
#include "tui/agent_text.h"
#include "tui/term/term.h"
#include "tui/views/agent_actions.h"
#include "tui/views/view_agent.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/list.h"

enum { NCOL_BOX, NCOL_KIND, NCOL_ASKS, NCOL_WAITED, NCOL_COUNT };

static const struct table_column COLUMNS[NCOL_COUNT] = {
    [NCOL_BOX] = {"BOX", 0, 6, 24, false, false},
    [NCOL_KIND] = {"KIND", 0, 10, 10, false, false},
    [NCOL_ASKS] = {"ASKS", 0, 16, 0, false, true},
    [NCOL_WAITED] = {"WAITED", 0, 6, 8, false, false},
};

/* One pending request of one box, borrowed from the model's status (valid until its next
 * change: rebuilt on every E2B_LIVE_AGENTS). */
struct need {
    const char *sandbox_id, *name;
    const e2b_agent_request *r;
    size_t box;   /* the box's index in the model */
};

static int by_age(const void *a, const void *b)
{
    const struct need *x = a, *y = b;
    /* oldest first; unknown times last; then by box, then as the server listed them */
    int64_t tx = x->r->asked_ms ? x->r->asked_ms : INT64_MAX;
    int64_t ty = y->r->asked_ms ? y->r->asked_ms : INT64_MAX;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->r < y->r ? -1 : x->r > y->r;
}

/* Every pending request, oldest first (caller frees; *n its count). */
static struct need *needs_list(const e2b_live *m, size_t *n)
{
    size_t nb = e2b_live_agent_count(m), total = 0;
    for (size_t i = 0; i < nb; i++) {
        const e2b_agent_status *st = e2b_live_agent_at(m, i, NULL, NULL);
        total += st ? st->nrequests : 0;
    }
    *n = 0;
    struct need *out = calloc(total ? total : 1, sizeof *out);
    if (!out)
        return NULL;
    for (size_t i = 0; i < nb; i++) {
        const char *sid = NULL, *name = NULL;
        const e2b_agent_status *st = e2b_live_agent_at(m, i, &sid, &name);
        for (size_t k = 0; st && k < st->nrequests; k++)
            out[(*n)++] = (struct need){sid, name, &st->requests[k], i};
    }
    if (*n > 1)
        qsort(out, *n, sizeof *out, by_age);
    return out;
}

static void fill(struct view *v, struct ui *ui)
{
    size_t n = 0;
    struct need *needs = needs_list(ui->model, &n);
    struct row {
        char id[400], waited[16];
        const char *cells[NCOL_COUNT];
    } *text = calloc(n ? n : 1, sizeof *text);
    struct table_row_in *rows = calloc(n ? n : 1, sizeof *rows);
    if (needs && text && rows) {
        int64_t now = agent_text_now_ms();
        for (size_t i = 0; i < n; i++) {
            struct row *r = &text[i];
            /* the row's id: "<sandbox id> <request id>" (both short and without spaces) */
            snprintf(r->id, sizeof r->id, "%s %s", needs[i].sandbox_id, needs[i].r->id);
            e2b_agent_ago(needs[i].r->asked_ms, now, r->waited, sizeof r->waited);
            r->cells[NCOL_BOX] = needs[i].name;
            r->cells[NCOL_KIND] = needs[i].r->question ? "question" : "permission";
            r->cells[NCOL_ASKS] = needs[i].r->summary ? needs[i].r->summary : "?";
            r->cells[NCOL_WAITED] = r->waited[0] ? r->waited : "-";
            rows[i] = (struct table_row_in){r->id, r->cells};
        }
        list_set_rows(v, ui, rows, n);
        v->loaded = true;
    }
    free(needs);
    free(text);
    free(rows);
}

static void open_view(struct view *v, struct ui *ui)
{
    fill(v, ui);
}

static void changed(struct view *v, struct ui *ui, unsigned what)
{
    if (what & (E2B_LIVE_AGENTS | UI_CHANGED_CLOCK))
        fill(v, ui);
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    char head[200];
    snprintf(head, sizeof head,
             "NEEDS YOU  %zu pending  (y/Y/n: reply  A: answer  Enter: the box's Agent pane  "
             "]: next box  Esc: back)",
             v->table.nrows);
    draw_text(y, x, w, ROLE_HEADER, head, true);
    list_draw(v, ui, y + 1, x, h - 1, w);
}

/* The selected row's box and request, found again in the model (NULL: gone; said). */
static const e2b_agent_request *selected(struct view *v, struct ui *ui, char *sid, size_t sidsz,
                                         const char **name)
{
    const struct table_row *row = table_selected(&v->table);
    if (!row) {
        ui_flash(ui, FLASH_INFO, "nothing needs you");
        return NULL;
    }
    const char *tab = strchr(row->id, ' ');
    if (!tab) {
        ui_flash(ui, FLASH_ERROR, "that row is not a request");
        return NULL;
    }
    snprintf(sid, sidsz, "%.*s", (int)(tab - row->id), row->id);
    size_t nb = e2b_live_agent_count(ui->model);
    for (size_t i = 0; i < nb; i++) {
        const char *id = NULL;
        const e2b_agent_status *st = e2b_live_agent_at(ui->model, i, &id, name);
        if (!st || strcmp(id, sid))
            continue;
        for (size_t k = 0; k < st->nrequests; k++)
            if (!strcmp(st->requests[k].id, tab + 1))
                return &st->requests[k];
    }
    ui_flash(ui, FLASH_INFO, "that request is no longer pending");
    return NULL;
}

static void open_agent(struct ui *ui, const char *sid, const char *name)
{
    struct view *av = view_agent_new(ui, sid, name);
    if (av)
        ui_set_pane(ui, av);
    else
        ui_flash(ui, FLASH_ERROR, "agent: out of memory");
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    char sid[256];
    const char *name = NULL;
    const e2b_agent_request *r;
    switch (a) {
    case ACT_ALLOW:
    case ACT_ALLOW_ALWAYS:
    case ACT_REJECT:
    case ACT_ANSWER:
        if ((r = selected(v, ui, sid, sizeof sid, &name)))
            agent_reply_to(ui, sid, name, r, a);
        return true;
    case ACT_AGENT:
        if (selected(v, ui, sid, sizeof sid, &name))
            open_agent(ui, sid, name);
        return true;
    case ACT_MESSAGE:
    case ACT_MESSAGE_NEW:
    case ACT_INTERRUPT:
    case ACT_CHANGES:
        if (selected(v, ui, sid, sizeof sid, &name))
            agent_actions_run(ui, sid, name, NULL, a);
        return true;
    default: return list_move_act(v, ui, a);
    }
}

static const struct view_ops OPS = {
    .name = "needs",
    .title = "Needs you",
    .bit = VIEW_NEEDS,
    .open = open_view,
    .changed = changed,
    .draw = draw,
    .act = act,
    .destroy = list_view_destroy,
};

struct view *view_needs_new(struct ui *ui)
{
    (void)ui;
    return list_view_new(&OPS, COLUMNS, NCOL_COUNT,
                         "Nothing needs you: no box asks a permission or a question.");
}

void needs_jump(struct ui *ui)
{
    size_t n = 0;
    struct need *needs = needs_list(ui->model, &n);
    if (!needs || !n) {
        ui_flash(ui, FLASH_INFO, "no box needs you");
        free(needs);
        return;
    }
    /* the boxes in queue order (each once, where its oldest request is); the next after the
     * one jumped to last, cycling (the first when that one needs nothing now) */
    size_t *boxes = calloc(n, sizeof *boxes), nboxes = 0, pick = 0;
    for (size_t i = 0; boxes && i < n; i++) {
        bool seen = false;
        for (size_t k = 0; k < nboxes && !seen; k++)
            seen = needs[boxes[k]].box == needs[i].box;
        if (!seen)
            boxes[nboxes++] = i;
    }
    for (size_t k = 0; k < nboxes; k++)
        if (!strcmp(needs[boxes[k]].sandbox_id, ui->needs_last)) {
            pick = (k + 1) % nboxes;
            break;
        }
    const struct need *to = &needs[boxes ? boxes[pick] : 0];
    snprintf(ui->needs_last, sizeof ui->needs_last, "%s", to->sandbox_id);
    open_agent(ui, to->sandbox_id, to->name);
    free(boxes);
    free(needs);
}
