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
};

/* Asks; on_yes(ui, ctx, arg) runs only for Yes. arg is copied. */
void dialog_open(struct ui *ui, const char *title, const char *text, const char *arg,
                 dialog_yes_fn on_yes, void *ctx);
/* Gives the open question a third answer: key runs on_alt(ui, ctx, arg) and closes it. */
void dialog_set_alt(struct ui *ui, int key, dialog_yes_fn on_alt);
void dialog_key(struct ui *ui, int key);
void dialog_draw(struct ui *ui);

#endif
