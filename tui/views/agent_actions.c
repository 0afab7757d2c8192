#include "tui/views/agent_actions.h"
#include "tui/views/budget_ask.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/sandbox_rows.h"
#include "tui/term/term.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/textwidth.h"
#include "tui/views/view_changes.h"
#include "tui/views/message_edit.h"
#include "tui/widgets/prompt.h"

int agent_tone_role(enum agent_tone t)
{
    switch (t) {
    case TONE_GOOD: return ROLE_ADDED;
    case TONE_BAD: return ROLE_REMOVED;
    case TONE_BUSY: return ROLE_HUNK;
    case TONE_WAITING: return ROLE_WAITING;
    default: return ROLE_NORMAL;
    }
}

void agent_cells_colour(struct view *v, const e2b_live *m, int y, int x, int h, int w)
{
    struct table *t = &v->table;
    int widths[32];
    if (t->ncols > 32 || t->ncols <= SBCOL_AGENT || h < 2)
        return;
    table_layout(t, w, widths);
    /* Where list_draw put the cell (a hidden column takes no room, not even its gap). */
    int col_x = table_column_x(t, widths, SBCOL_AGENT);
    int cw = widths[SBCOL_AGENT];
    if (col_x + cw > w)
        cw = w - col_x;
    if (cw <= 0)
        return;
    char cell[4 * 64 + 8];
    for (int i = 0; i < h - 1 && t->top + (size_t)i < t->nvisible; i++) {
        size_t vi = t->top + (size_t)i;
        if (vi == t->cursor)
            continue;
        const struct table_row *row = &t->rows[t->visible[vi]];
        /* the tone of the state itself, as the Agent pane's (not read back from the text) */
        enum agent_tone tone = agent_text_tone(e2b_live_agent(m, row->id));
        if (tone == TONE_PLAIN || cw > 64)
            continue;
        char shorter[128];
        text_cell(cell, sizeof cell, table_cell_fit(t, row, SBCOL_AGENT, cw, shorter, sizeof shorter),
                  cw);
        draw_text(y + 1 + i, x + col_x, cw, agent_tone_role(tone), cell, false);
    }
}

bool agent_actions_handles(enum action_id a)
{
    switch (a) {
    case ACT_CHANGES:
    case ACT_ALLOW:
    case ACT_ALLOW_ALWAYS:
    case ACT_REJECT:
    case ACT_MESSAGE:
    case ACT_MESSAGE_NEW:
    case ACT_ANSWER:
    case ACT_INTERRUPT: return true;
    default: return false;
    }
}

/* Is the sandbox one of the boxes (else says so)? */
static bool is_box(struct ui *ui, const char *id, enum action_id a)
{
    if (!e2b_live_is_box(ui->model, id)) {
        ui_flash(ui, FLASH_ERROR, "%s: only for boxes (made by e2b-tui)", action_info(a)->name);
        return false;
    }
    return true;
}

/* The box's agent status, or NULL (said in words). */
static const e2b_agent_status *watched(struct ui *ui, const char *id, enum action_id a)
{
    const e2b_agent_status *st = e2b_live_agent(ui->model, id);
    if (!st)
        ui_flash(ui, FLASH_ERROR, "%s: no agent status for this box (only boxes made on this "
                                  "machine are watched)", action_info(a)->name);
    return st;
}

static void allow_always(struct ui *ui, const char *id, const char *name,
                         const e2b_agent_request *r);

/* The oldest pending permission request (a = ACT_ANSWER: question), or NULL (said). */
static const e2b_agent_request *pending(struct ui *ui, const e2b_agent_status *st,
                                        enum action_id a)
{
    bool question = a == ACT_ANSWER;
    for (size_t i = 0; i < st->nrequests; i++)
        if (st->requests[i].question == question)
            return &st->requests[i];
    if (st->nrequests)
        ui_flash(ui, FLASH_INFO, question ? "%s: no question waits in this box (y/n answer its "
                                            "permission request)"
                                          : "%s: the agent asks a question: A answers it",
                 action_info(a)->name);
    else
        ui_flash(ui, FLASH_INFO, "%s: nothing is waiting for you in this box", action_info(a)->name);
    return NULL;
}

/* ---- answering a question in place ---- */

struct answer_ctx {
    char id[128], request[256];
    size_t noptions;
};

static void answer_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct answer_ctx *c = ctx;
    if (!ok || !text || !*text)
        return;
    /* a number of an option picks it; anything else is the answer's text */
    char *end = NULL;
    long n = strtol(text, &end, 10);
    int option = end && end != text && !*end && n >= 1 && (size_t)n <= c->noptions ? (int)n : 0;
    e2b_live_agent_answer(ui->model, c->id, c->request, option ? NULL : text, option);
}

void agent_answer_open(struct ui *ui, const char *id, const char *name, const e2b_agent_request *r)
{
    struct answer_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        ui_flash(ui, FLASH_ERROR, "answer: out of memory");
        return;
    }
    snprintf(c->id, sizeof c->id, "%s", id);
    snprintf(c->request, sizeof c->request, "%s", r->id);
    c->noptions = r->noptions;
    char label[512], opts[300] = "";
    size_t used = 0;
    for (size_t i = 0; i < r->noptions && used + 8 < sizeof opts; i++)
        used += (size_t)snprintf(opts + used, sizeof opts - used, "%s%zu %s", i ? ", " : "", i + 1,
                                 r->option_labels[i]);
    snprintf(label, sizeof label, "answer %s: %s [%s%s]: ", name, r->detail ? r->detail : "?",
             opts, r->custom ? r->noptions ? "; or type" : "type the answer" : "");
    prompt_open(ui, label, false, "", NULL, answer_done, c, free);
}

void agent_reply_to(struct ui *ui, const char *id, const char *name, const e2b_agent_request *r,
                    enum action_id a)
{
    if (r->question) {
        if (a == ACT_ANSWER)
            agent_answer_open(ui, id, name, r);
        else
            ui_flash(ui, FLASH_INFO, "%s: this is a question: A answers it", action_info(a)->name);
        return;
    }
    if (a == ACT_ANSWER) {
        ui_flash(ui, FLASH_INFO, "answer: this is a permission request: y, Y or n replies");
        return;
    }
    if (a == ACT_ALLOW_ALWAYS) {
        allow_always(ui, id, name, r);
        return;
    }
    e2b_live_agent_reply(ui->model, id, r->id,
                         a == ACT_ALLOW ? E2B_AGENT_REPLY_ONCE : E2B_AGENT_REPLY_REJECT);
}

/* Y: the dialog's argument carries "<sandbox id>\t<request id>" (both short ids). */
static void allow_always_confirmed(struct ui *ui, void *ctx, const char *arg)
{
    (void)ctx;
    char id[256];
    snprintf(id, sizeof id, "%s", arg);
    char *tab = strchr(id, '\t');
    if (!tab)
        return;
    *tab = '\0';
    e2b_live_agent_reply(ui->model, id, tab + 1, E2B_AGENT_REPLY_ALWAYS);
}

static void allow_always(struct ui *ui, const char *id, const char *name,
                         const e2b_agent_request *r)
{
    char text[480], patterns[200] = "", arg[256];
    size_t used = 0;
    for (size_t i = 0; i < r->nalways && used + 4 < sizeof patterns; i++)
        used += (size_t)snprintf(patterns + used, sizeof patterns - used, "%s%s", i ? ", " : "",
                                 r->always[i]);
    if (snprintf(arg, sizeof arg, "%s\t%s", id, r->id) >= (int)sizeof arg) {
        ui_flash(ui, FLASH_ERROR, "allow-always: the request id is too long");
        return;
    }
    snprintf(text, sizeof text,
             "Allow from now on in box \"%s\":\n%s\n%s%s\nThe box's server keeps this rule.",
             name, r->summary, patterns[0] ? "Saved as: " : "", patterns);
    dialog_open(&ui->dialog, "Allow always", text, arg, allow_always_confirmed, NULL);
}

/* The budget was raised (budget_ask): the message editor opens as m asked. */
static void message_after_raise(struct ui *ui, const char *id, const char *name,
                                const char *session_id, int action)
{
    agent_actions_run(ui, id, name, *session_id ? session_id : NULL, (enum action_id)action);
}

bool agent_actions_run(struct ui *ui, const char *id, const char *name, const char *session_id,
                       enum action_id a)
{
    if (!is_box(ui, id, a))
        return true;
    if (a == ACT_CHANGES) {
        struct view *v = view_changes_new(ui, id, name);
        if (v)
            ui_set_pane(ui, v);
        else
            ui_flash(ui, FLASH_ERROR, "changes: out of memory");
        return true;
    }
    const e2b_agent_status *st = watched(ui, id, a);
    if (!st)
        return true;
    const e2b_agent_request *r;
    switch (a) {
    case ACT_ALLOW:
    case ACT_REJECT:
        if ((r = pending(ui, st, a)))
            e2b_live_agent_reply(ui->model, id, r->id,
                                 a == ACT_ALLOW ? E2B_AGENT_REPLY_ONCE : E2B_AGENT_REPLY_REJECT);
        return true;
    case ACT_ALLOW_ALWAYS:
        if ((r = pending(ui, st, a)))
            allow_always(ui, id, name, r);
        return true;
    case ACT_ANSWER:
        if ((r = pending(ui, st, a)))
            agent_answer_open(ui, id, name, r);
        return true;
    case ACT_INTERRUPT:
        if (!e2b_agent_state_in_turn(st->state)) {
            ui_flash(ui, FLASH_INFO, "interrupt: the agent in %s is not running a turn", name);
            return true;
        }
        e2b_live_agent_interrupt(ui->model, id);
        return true;
    case ACT_MESSAGE:
    case ACT_MESSAGE_NEW:
        if (budget_ask(ui, id, name, session_id, a, message_after_raise))
            return true; /* at its budget: asked first */
        message_edit_open(ui, id, name, session_id ? session_id : st->session_id,
                          a == ACT_MESSAGE_NEW);
        return true;
    default: return false;
    }
}
