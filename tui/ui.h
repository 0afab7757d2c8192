/* The dashboard's screen state and the view interface (tig's view_ops, htop's Panel), with
 * the few helpers every view and widget may use (tui/ui.c). The data lives in the live
 * model (core/live/live.h): ui holds a pointer to it and only what the screen needs. Only
 * the UI thread touches any of this. Each view is one file under tui/views/ that ends with
 * its ops table; a new view is a new file, not a new case in a switch (tui/README.md). */
#ifndef E2B_TUI_UI_H
#define E2B_TUI_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/live/live.h"
#include "tui/actions.h"
#include "tui/messages.h"
#include "tui/notify.h"
#include "tui/options.h"
#include "tui/term/keymap.h"
#include "tui/widgets/cmdline.h"
#include "tui/widgets/dialog.h"
#include "tui/widgets/prompt.h"
#include "tui/widgets/table.h"

struct ui;
struct view;

/* A "changed" bit of the screen's own, beside the model's E2B_LIVE_* bits: the wall clock
 * moved (the ENDS column may change). */
#define UI_CHANGED_CLOCK (1u << 16)

struct view_ops {
    const char *name;  /* the ':' command that opens it */
    const char *title; /* the tab title */
    unsigned bit;      /* VIEW_* */
    /* Shown (its tab selected, or the pane opened) and hidden; may be NULL. */
    void (*open)(struct view *v, struct ui *ui);
    void (*close)(struct view *v, struct ui *ui);
    /* The model (E2B_LIVE_* bits) or the clock (UI_CHANGED_CLOCK) changed; may be NULL.
     * Sets ui->dirty when what it shows changed. */
    void (*changed)(struct view *v, struct ui *ui, unsigned what);
    /* Draws the view into the rectangle (y, x, h, w) of stdscr. */
    void (*draw)(struct view *v, struct ui *ui, int y, int x, int h, int w);
    /* Handles an action; returns false when it does not apply (the caller then says so). */
    bool (*act)(struct view *v, struct ui *ui, enum action_id a);
    void (*destroy)(struct view *v); /* frees v and what it owns; may be NULL */
};

struct view {
    const struct view_ops *ops;
    struct table table; /* list views only (has_table) */
    bool has_table;
    const char *empty_text; /* shown when the list has no rows at all */
    bool loaded;            /* rows arrived from the model */
    int rows_shown;         /* list rows drawn last (which rows are on screen) */
    int x_shown, w_shown;   /* where the list was drawn last (beside a preview: narrower) */
    bool dim;               /* rows drawn dim: what they show is not current (stale) */
    void *priv;
};

/* The tabbed list views, in tab order. */
enum { TAB_BOXES, TAB_WORKSPACES, TAB_ALL, TAB_SECRETS, TAB_COUNT };

enum flash_level { FLASH_INFO, FLASH_ERROR };

/* How many panes a pane may be opened over (Detail, then Log, ...); the oldest goes beyond. */
#define UI_PANES_BELOW 8

struct ui {
    e2b_live *model;
    struct tui_options opts;
    struct keymap keys;
    struct view *tabs[TAB_COUNT];
    int tab;
    /* The pane over the current tab (Detail, Log, Operations, Messages, Templates, Agent or
     * Changes); NULL when closed. */
    struct view *pane;
    char needs_last[128]; /* ]: the sandbox id of the box jumped to last (view_needs.h) */
    /* The panes it was opened from, oldest first (Esc and q return to the last; the tab's
     * list is the bottom). Hidden: their close ran, open runs again on return. */
    struct view *below[UI_PANES_BELOW];
    int nbelow;
    bool help_open;
    int help_top;

    struct prompt prompt;
    struct dialog dialog;
    struct {
        char text[256];
        enum flash_level level;
        long long expires_ms; /* 0 = no flash */
        bool cut;             /* the whole text is longer: the Messages pane has it */
    } flash;
    struct messages messages; /* every flash, whole (the Messages pane) */
    struct cmdline cmdline;   /* the ':' line's history */

    struct notify notify; /* a box waits for the user, finished or failed (tui/notify.h) */
    size_t waiting_shown; /* the boxes waiting for the user, as the status line says */
    int debug_frames;     /* E2B_TUI_DEBUG_PAINT=1: log every frame; -1 = not read yet */

    bool dirty;       /* something changed: draw a frame */
    bool full_redraw; /* repaint every cell (ctrl-l, after a child program) */
    bool quit;
    int exit_code;
    time_t shown_second; /* the wall-clock second the ENDS column was computed for */
    /* When an ENDS text changes next: 0 = work it out (the sandboxes changed), -1 = never. */
    time_t ends_due;
};

/* Minimum usable size; below it the "terminal too small" screen is shown. */
#define UI_MIN_COLS 50
#define UI_MIN_LINES 10

/* The view the keys go to and its VIEW_* bit. */
struct view *ui_current(struct ui *ui);
unsigned ui_current_bit(struct ui *ui);

/* Is an API key set (else the views show how to get one)? */
bool ui_have_api_key(const struct ui *ui);

/* A message in the status line that expires (4 s, errors 8 s). The text is sanitised and
 * kept whole in ui->messages. */
void ui_flash(struct ui *ui, enum flash_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Switches to a tab (closes the pane and the help overlay; the views are told). */
void ui_show_tab(struct ui *ui, int tab);

/* Opens the pane v over the current one, which waits below it (ui_back_pane returns to it);
 * NULL closes every pane (they are closed and destroyed): the tab's list shows. */
void ui_set_pane(struct ui *ui, struct view *v);

/* Closes (and destroys) the pane on top: the one it was opened from shows again, told of
 * everything (it missed the changes while hidden), or the tab's list. */
void ui_back_pane(struct ui *ui);

/* Is a pane of that VIEW_* bit open, shown or below another? */
bool ui_pane_open(const struct ui *ui, unsigned bit);

/* Tells every view (the tabs and the pane) that what changed. */
void ui_changed(struct ui *ui, unsigned what);

#endif
