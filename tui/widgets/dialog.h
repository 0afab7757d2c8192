/* The yes/no question; No is the default (Enter, Esc and n all answer No). The question
 * carries a copy of the id it is about and a context pointer for its callback. The widget
 * knows the dashboard only as the opaque owner its answers' callbacks get (dialog_init):
 * it includes nothing of tui/ui.h, which holds it. */
#ifndef E2B_TUI_DIALOG_H
#define E2B_TUI_DIALOG_H

#include <stdbool.h>

struct ui;

typedef void (*dialog_yes_fn)(struct ui *ui, void *ctx, const char *arg);

struct dialog {
    bool active;
    bool yes_focused;
    char title[64];
    char text[512];
    char arg[256]; /* e.g. the id of the row it is about, copied */
    dialog_yes_fn on_yes;
    void *ctx;            /* borrowed */
    int alt_key;          /* a third answer (e.g. p: pull first), 0 = none */
    dialog_yes_fn on_alt; /* called like on_yes for alt_key */
    /* A question whose text follows the model (dialog_watch): on_change(owner, ctx, arg) runs
     * for each model change in watch while it is open; ctx_free(ctx) when it closes. */
    unsigned watch;
    dialog_yes_fn on_change;
    void (*ctx_free)(void *ctx);
    /* Set once by dialog_init. */
    struct ui *owner;                                       /* passed to the callbacks */
    bool *dirty;                                            /* set when a frame is due */
    void (*cancelled)(struct ui *owner, const char *title); /* No was answered; may be NULL */
};

/* Ties the widget to its owner: the callbacks get owner, *dirty is set when the question
 * changed on screen, cancelled(owner, title) runs when it is answered No. */
void dialog_init(struct dialog *d, struct ui *owner, bool *dirty,
                 void (*cancelled)(struct ui *owner, const char *title));

/* Asks; on_yes(owner, ctx, arg) runs only for Yes. arg is copied. */
void dialog_open(struct dialog *d, const char *title, const char *text, const char *arg,
                 dialog_yes_fn on_yes, void *ctx);
/* Gives the open question a third answer: key runs on_alt(owner, ctx, arg) and closes it. */
void dialog_set_alt(struct dialog *d, int key, dialog_yes_fn on_alt);
/* The open question owns its ctx from now (ctx_free, may be NULL, runs when it closes,
 * after the answer's callback) and on_change(owner, ctx, arg) runs on each model change in
 * what (E2B_LIVE_* bits), typically to call dialog_set_text. */
void dialog_watch(struct dialog *d, unsigned what, dialog_yes_fn on_change,
                  void (*ctx_free)(void *ctx));
/* New text for the open question (sanitised like dialog_open's). */
void dialog_set_text(struct dialog *d, const char *text);
/* A model change (ui_changed): the watching question's on_change. */
void dialog_changed(struct dialog *d, unsigned what);
/* Closes the question without an answer (its ctx is freed): the dashboard's end. */
void dialog_close(struct dialog *d);
void dialog_key(struct dialog *d, int key);
void dialog_draw(const struct dialog *d);

#endif
