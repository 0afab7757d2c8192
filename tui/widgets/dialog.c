/* The confirmation dialog: a centred box, No focused by default. y answers Yes; n, Esc
 * and q answer No; Enter answers the focused button; Tab and the arrows move the focus.
 * It is laid out again on every frame, so a resize while it is open just re-centres it. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/sanitize.h"

#include "tui/term/keys.h"
#include "tui/term/term.h"
#include "tui/widgets/dialog.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/textwidth.h"

/* Forgets the question's callbacks and hands back its ctx's free (the caller runs it). */
static void (*forget(struct dialog *d))(void *)
{
    void (*ctx_free)(void *) = d->ctx_free;
    d->active = false;
    d->on_yes = d->on_alt = d->on_change = NULL;
    d->ctx_free = NULL;
    d->watch = 0;
    return ctx_free;
}

void dialog_init(struct dialog *d, struct ui *owner, bool *dirty,
                 void (*cancelled)(struct ui *owner, const char *title))
{
    d->owner = owner;
    d->dirty = dirty;
    d->cancelled = cancelled;
}

/* The question changed on screen. */
static void redraw(struct dialog *d)
{
    if (d->dirty)
        *d->dirty = true;
}

void dialog_close(struct dialog *d)
{
    void *ctx = d->ctx;
    void (*ctx_free)(void *) = forget(d);
    d->ctx = NULL;
    if (ctx_free)
        ctx_free(ctx);
    redraw(d);
}

void dialog_set_text(struct dialog *d, const char *text)
{
    /* The text names sandboxes and secrets (ids as the API sent them): sanitised. */
    char *safe = e2b_sanitize_display(text, strlen(text), E2B_SANITIZE_KEEP_NEWLINES);
    snprintf(d->text, sizeof d->text, "%s", safe ? safe : "");
    free(safe);
    redraw(d);
}

void dialog_open(struct dialog *d, const char *title, const char *text, const char *arg,
                 dialog_yes_fn on_yes, void *ctx)
{
    if (d->active)
        dialog_close(d); /* a question it replaces lets go of its ctx */
    d->active = true;
    d->yes_focused = false;
    snprintf(d->title, sizeof d->title, "%s", title);
    dialog_set_text(d, text);
    snprintf(d->arg, sizeof d->arg, "%s", arg ? arg : "");
    d->on_yes = on_yes;
    d->ctx = ctx;
    d->alt_key = 0;
    d->on_alt = NULL;
}

void dialog_watch(struct dialog *d, unsigned what, dialog_yes_fn on_change,
                  void (*ctx_free)(void *ctx))
{
    d->watch = what;
    d->on_change = on_change;
    d->ctx_free = ctx_free;
}

void dialog_changed(struct dialog *d, unsigned what)
{
    if (d->active && d->on_change && (what & d->watch))
        d->on_change(d->owner, d->ctx, d->arg);
}

void dialog_set_alt(struct dialog *d, int key, dialog_yes_fn on_alt)
{
    d->alt_key = key;
    d->on_alt = on_alt;
}

/* Runs fn (may be NULL) for the closed question, then frees its ctx. */
static void answer_with(struct dialog *d, dialog_yes_fn fn, bool cancelled)
{
    char arg[sizeof d->arg], title[sizeof d->title];
    void *ctx = d->ctx;
    memcpy(arg, d->arg, sizeof arg);
    memcpy(title, d->title, sizeof title);
    void (*ctx_free)(void *) = forget(d);
    redraw(d);
    if (fn)
        fn(d->owner, ctx, arg); /* it may open the next question */
    else if (cancelled && d->cancelled)
        d->cancelled(d->owner, title);
    if (ctx_free)
        ctx_free(ctx);
}

static void answer(struct dialog *d, bool yes)
{
    answer_with(d, yes ? d->on_yes : NULL, !yes);
}

void dialog_key(struct dialog *d, int key)
{
    switch (key) {
    case 'y':
    case 'Y': answer(d, true); return;
    case 'n':
    case 'N':
    case 'q':
    case KEYC_ESC: answer(d, false); return;
    case KEYC_ENTER: answer(d, d->yes_focused); return;
    case KEYC_TAB:
    case KEYC_BTAB:
    case KEYC_LEFT:
    case KEYC_RIGHT:
    case 'h':
    case 'l':
        d->yes_focused = !d->yes_focused;
        redraw(d);
        return;
    default:
        if (key && key == d->alt_key && d->on_alt)
            answer_with(d, d->on_alt, false);
        return; /* every other key is ignored while the question is open */
    }
}

void dialog_draw(const struct dialog *d)
{
    /* Split the text into lines of at most w - 4 columns. */
    int w = COLS - 4 < 64 ? COLS - 4 : 64;
    if (w < 20)
        w = COLS;
    char lines[8][256];
    int n = 0;
    const char *p = d->text;
    while (*p && n < 8) {
        const char *nl = strchr(p, '\n');
        size_t seg = nl ? (size_t)(nl - p) : strlen(p);
        char part[512];
        snprintf(part, sizeof part, "%.*s", (int)seg, p);
        const char *q = part;
        do {
            int used;
            size_t fit = text_fit(q, w - 4, &used);
            if (fit == 0 && *q)
                fit = 1;
            size_t cut = fit;
            if (q[fit] && q[fit] != ' ') { /* a word would be split: break at its space */
                while (cut > 0 && q[cut - 1] != ' ')
                    cut--;
                if (cut == 0)
                    cut = fit; /* one word longer than the line */
            }
            snprintf(lines[n++], sizeof lines[0], "%.*s", (int)cut, q);
            q += cut;
        } while (*q && n < 8);
        p = nl ? nl + 1 : p + seg;
    }
    int h = n + 5;
    int y = (LINES - h) / 2, x = (COLS - w) / 2;
    if (y < 0)
        y = 0;
    if (x < 0)
        x = 0;
    char title[96];
    snprintf(title, sizeof title, " %s", d->title);
    draw_text(y, x, w, ROLE_ERROR, title, true);
    draw_text(y + 1, x, w, ROLE_DIALOG, "", true);
    for (int i = 0; i < n; i++) {
        draw_text(y + 2 + i, x, w, ROLE_DIALOG, "", true);
        draw_text(y + 2 + i, x + 2, w - 2, ROLE_DIALOG, lines[i], false);
    }
    draw_text(y + 2 + n, x, w, ROLE_DIALOG, "", true);
    char buttons[96];
    snprintf(buttons, sizeof buttons, "  %s  %s   (y/n, default No)",
             d->yes_focused ? "[ Yes ]" : "  Yes  ", d->yes_focused ? "  No  " : "[ No ]");
    draw_text(y + 3 + n, x, w, ROLE_DIALOG, buttons, true);
    draw_text(y + 4 + n, x, w, ROLE_DIALOG, "", true);
}
