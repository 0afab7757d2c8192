/* y n i m s p on every marked box (tui/views/batch_actions.h). */
#include "tui/views/batch_actions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/widgets/prompt.h"

/* What one question shows at most: the dialog holds 512 bytes in 8 lines. */
enum { SUMMARY_SHOWN = 40 };

struct batch_item {
    char id[128];
    char name[64];
    char request[256]; /* y / n: the request shown in the question */
    char what[SUMMARY_SHOWN + 1];
};

struct batch {
    enum action_id a;
    struct batch_item *items; /* the boxes acted on */
    size_t n;
    char left_out[200]; /* the marked boxes the action does not apply to, by name */
    size_t nleft;
    char *message; /* m: the text sent (wiped when freed) */
};

static void batch_free(void *p)
{
    struct batch *b = p;
    if (!b)
        return;
    if (b->message) {
        explicit_bzero(b->message, strlen(b->message));
        free(b->message);
    }
    free(b->items);
    free(b);
}

bool batch_handles(enum action_id a)
{
    switch (a) {
    case ACT_ALLOW:
    case ACT_REJECT:
    case ACT_INTERRUPT:
    case ACT_MESSAGE:
    case ACT_STOP:
    case ACT_PULL: return true;
    default: return false;
    }
}

/* The oldest permission request of the box (a question is answered with A, one by one). */
static const e2b_agent_request *oldest_permission(const e2b_agent_status *st)
{
    for (size_t i = 0; st && i < st->nrequests; i++)
        if (!st->requests[i].question)
            return &st->requests[i];
    return NULL;
}

/* Whether a applies to box id now; for y / n the request it would answer goes into it. */
static bool applies(struct ui *ui, struct batch_item *it, enum action_id a)
{
    const e2b_agent_status *st = e2b_live_agent(ui->model, it->id);
    const e2b_sandbox *sb = e2b_live_sandbox(ui->model, it->id);
    switch (a) {
    case ACT_ALLOW:
    case ACT_REJECT: {
        const e2b_agent_request *r = oldest_permission(st);
        if (!r || !r->id)
            return false;
        snprintf(it->request, sizeof it->request, "%s", r->id);
        snprintf(it->what, sizeof it->what, "%s", r->summary ? r->summary : "?");
        return true;
    }
    case ACT_INTERRUPT: return st && e2b_agent_state_in_turn(st->state);
    case ACT_MESSAGE: return st != NULL;
    case ACT_STOP: return sb && sb->state == E2B_STATE_RUNNING;
    case ACT_PULL: return e2b_live_is_box(ui->model, it->id);
    default: return false;
    }
}

/* Why a left a box out, in words. */
static const char *left_out_why(enum action_id a)
{
    switch (a) {
    case ACT_ALLOW:
    case ACT_REJECT: return "nothing waits";
    case ACT_INTERRUPT: return "no turn runs";
    case ACT_MESSAGE: return "no agent watched";
    case ACT_STOP: return "not running";
    default: return "not a box";
    }
}

/* The question: what is done, then each box (with its request for y / n), then the boxes
 * left out; cut with "and N more" where the dialog would overflow. */
static void question(const struct batch *b, char *text, size_t n)
{
    const char *verb = b->a == ACT_ALLOW    ? "Allow"
                       : b->a == ACT_REJECT ? "Reject"
                       : b->a == ACT_INTERRUPT ? "Interrupt the turns of"
                       : b->a == ACT_MESSAGE   ? "Send the message to"
                       : b->a == ACT_STOP      ? "Pause"
                                               : "Pull the work home (branches e2b/NAME) of";
    bool req = b->a == ACT_ALLOW || b->a == ACT_REJECT;
    size_t k = (size_t)snprintf(text, n, "%s %zu %s: ", verb, b->n,
                                req ? (b->n == 1 ? "waiting request" : "waiting requests")
                                    : (b->n == 1 ? "box" : "boxes"));
    size_t room = n > 120 ? n - 120 : n / 2; /* what stays for "and N more" and the rest */
    for (size_t i = 0; i < b->n && k < n; i++) {
        if (k > room) {
            k += (size_t)snprintf(text + k, n - k, "and %zu more", b->n - i);
            break;
        }
        k += (size_t)snprintf(text + k, n - k, "%s%s%s%s", i ? ", " : "", b->items[i].name,
                              req ? " " : "", req ? b->items[i].what : "");
    }
    if (k < n)
        k += (size_t)snprintf(text + k, n - k, "?");
    if (b->nleft && k < n)
        k += (size_t)snprintf(text + k, n - k, "\n(left out, %s: %s)", left_out_why(b->a),
                              b->left_out);
    if (b->message && k < n)
        snprintf(text + k, n - k, "\n\"%.60s%s\"", b->message, strlen(b->message) > 60 ? "..." : "");
}

static void confirmed(struct ui *ui, void *ctx, const char *arg)
{
    (void)arg;
    struct batch *b = ctx;
    size_t done = 0;
    for (size_t i = 0; i < b->n; i++) {
        const char *id = b->items[i].id;
        int rc = -1;
        switch (b->a) {
        case ACT_ALLOW:
        case ACT_REJECT: {
            /* only the request the question showed: one that went meanwhile is not answered
             * in its place by another */
            const e2b_agent_status *st = e2b_live_agent(ui->model, id);
            bool still = false;
            for (size_t k = 0; st && k < st->nrequests; k++)
                still |= st->requests[k].id && !strcmp(st->requests[k].id, b->items[i].request);
            if (still)
                rc = e2b_live_agent_reply(ui->model, id, b->items[i].request,
                                          b->a == ACT_ALLOW ? E2B_AGENT_REPLY_ONCE
                                                            : E2B_AGENT_REPLY_REJECT);
            break;
        }
        case ACT_INTERRUPT: rc = e2b_live_agent_interrupt(ui->model, id); break;
        case ACT_MESSAGE: {
            /* each box's active session (a new one where it has none), as m on its row */
            rc = e2b_live_agent_prompt(ui->model, id, NULL, false, b->message);
            break;
        }
        case ACT_STOP: rc = e2b_live_stop(ui->model, id); break;
        case ACT_PULL: rc = e2b_live_box_op(ui->model, E2B_LIVE_OP_PULL, id) ? 0 : -1; break;
        default: break;
        }
        if (rc == 0)
            done++;
    }
    ui_flash(ui, done == b->n ? FLASH_INFO : FLASH_ERROR, "%s: %zu of %zu boxes%s",
             action_info(b->a)->name, done, b->n,
             done == b->n ? "" : " (the others changed meanwhile: see Messages)");
}

static void ask(struct ui *ui, struct batch *b)
{
    char text[512], title[64];
    question(b, text, sizeof text);
    snprintf(title, sizeof title, "%s %zu marked", action_info(b->a)->name, b->n);
    dialog_open(&ui->dialog, title, text, "", confirmed, b);
    dialog_watch(&ui->dialog, 0, NULL, batch_free); /* the question owns the batch now */
}

/* m: the text is typed once, then the question names the boxes it goes to. */
static void message_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct batch *typed = ctx;
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "message: cancelled");
        return;
    }
    if (ui->prompt.editor_asked) {
        ui_flash(ui, FLASH_ERROR, "message: ctrl-e ($EDITOR) is for one box; nothing sent");
        return;
    }
    size_t len = strlen(text);
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
        len--;
    if (!len) {
        ui_flash(ui, FLASH_INFO, "message: empty, nothing sent");
        return;
    }
    /* the prompt frees its batch once this returns: the question takes the boxes over */
    struct batch *b = calloc(1, sizeof *b);
    char *message = strndup(text, len);
    if (!b || !message) {
        free(b);
        free(message);
        ui_flash(ui, FLASH_ERROR, "message: out of memory");
        return;
    }
    *b = *typed;
    b->message = message;
    typed->items = NULL;
    typed->n = 0;
    ask(ui, b);
}

void batch_run(struct ui *ui, const char *const *ids, const char *const *names, size_t n,
               enum action_id a)
{
    struct batch *b = calloc(1, sizeof *b);
    if (b)
        b->items = calloc(n ? n : 1, sizeof *b->items);
    if (!b || !b->items) {
        batch_free(b);
        ui_flash(ui, FLASH_ERROR, "%s: out of memory", action_info(a)->name);
        return;
    }
    b->a = a;
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        struct batch_item *it = &b->items[b->n];
        memset(it, 0, sizeof *it);
        snprintf(it->id, sizeof it->id, "%s", ids[i]);
        snprintf(it->name, sizeof it->name, "%s", names[i]);
        if (applies(ui, it, a)) {
            b->n++;
            continue;
        }
        b->nleft++;
        if (left < sizeof b->left_out)
            left += (size_t)snprintf(b->left_out + left, sizeof b->left_out - left, "%s%s",
                                     left ? ", " : "", names[i]);
    }
    if (!b->n) {
        ui_flash(ui, FLASH_INFO, "%s: none of the %zu marked boxes (%s: %s)", action_info(a)->name,
                 n, left_out_why(a), b->left_out);
        batch_free(b);
        return;
    }
    if (a != ACT_MESSAGE) {
        ask(ui, b);
        return;
    }
    char label[300];
    size_t k = (size_t)snprintf(label, sizeof label, " Message to %zu boxes (each its current session):", b->n);
    for (size_t i = 0; i < b->n && k < sizeof label; i++)
        k += (size_t)snprintf(label + k, sizeof label - k, "%s %s", i ? "," : "", b->items[i].name);
    prompt_open_multiline(ui, label, "", message_done, b, batch_free);
}
