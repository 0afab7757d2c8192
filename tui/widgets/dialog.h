/* The yes/no question; No is the default (Enter, Esc and n all answer No). The question
 * carries a copy of the id it is about and a context pointer for its callback. */
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
    void *ctx; /* borrowed */
    int alt_key;          /* a third answer (e.g. p: pull first), 0 = none */
    dialog_yes_fn on_alt; /* called like on_yes for alt_key */
    /* A question whose text follows the model (dialog_watch): on_change(ui, ctx, arg) runs
     * for each model change in watch while it is open; ctx_free(ctx) when it closes. */
    unsigned watch;
    dialog_yes_fn on_change;
    void (*ctx_free)(void *ctx);
};

/* Asks; on_yes(ui, ctx, arg) runs only for Yes. arg is copied. */
void dialog_open(struct ui *ui, const char *title, const char *text, const char *arg,
                 dialog_yes_fn on_yes, void *ctx);
/* Gives the open question a third answer: key runs on_alt(ui, ctx, arg) and closes it. */
void dialog_set_alt(struct ui *ui, int key, dialog_yes_fn on_alt);
/* The open question owns its ctx from now (ctx_free, may be NULL, runs when it closes,
 * after the answer's callback) and on_change(ui, ctx, arg) runs on each model change in
 * what (E2B_LIVE_* bits), typically to call dialog_set_text. */
void dialog_watch(struct ui *ui, unsigned what, dialog_yes_fn on_change,
                  void (*ctx_free)(void *ctx));
/* New text for the open question (sanitised like dialog_open's). */
void dialog_set_text(struct ui *ui, const char *text);
/* A model change (ui_changed): the watching question's on_change. */
void dialog_changed(struct ui *ui, unsigned what);
/* Closes the question without an answer (its ctx is freed): the dashboard's end. */
void dialog_close(struct ui *ui);
void dialog_key(struct ui *ui, int key);
void dialog_draw(struct ui *ui);

#endif
