/* The dashboard's shared state and the view interface (tig's view_ops, htop's Panel).
 * Only the UI thread touches any of this. Each view is one file that ends with its ops
 * table; a new view is a new file, not a new case in a switch. */
#ifndef E2B_TUI_UI_H
#define E2B_TUI_UI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/e2b/api.h"
#include "core/e2b/config.h"
#include "core/e2b/model.h"
#include "tui/actions.h"
#include "tui/app.h"
#include "tui/term/keymap.h"
#include "tui/widgets/table.h"

struct ui;
struct view;
struct box_task;
struct keystore;

struct view_ops {
    const char *name;  /* the ':' command that opens it */
    const char *title; /* the tab title */
    unsigned bit;      /* VIEW_* */
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
    bool loaded;            /* rows arrived from a data source */
    void *priv;
};

/* The tabbed list views, in tab order. */
enum { TAB_BOXES, TAB_WORKSPACES, TAB_ALL, TAB_SECRETS, TAB_COUNT };

enum flash_level { FLASH_INFO, FLASH_ERROR };

/* A one-line editor at the bottom (':' commands, '/' filter, secret name and value). */
struct prompt {
    bool active;
    bool hidden; /* a secret: nothing typed is drawn, the buffer is wiped after use */
    char label[48];
    char buf[512];
    size_t len;
    /* Called after every edit (live filter); may be NULL. */
    void (*on_change)(struct ui *ui, const char *text);
    /* Called once: ok is false for Esc. text is wiped after the call returns. */
    void (*on_done)(struct ui *ui, bool ok, const char *text);
};

/* A yes/no question; No is the default (Enter, Esc and n all answer No). */
struct dialog {
    bool active;
    bool yes_focused;
    char title[64];
    char text[512];
    char arg[256]; /* e.g. the id of the row it is about, copied */
    void (*on_yes)(struct ui *ui, const char *arg);
};

struct ui {
    struct tui_options opts;
    struct keymap keys;
    struct view *tabs[TAB_COUNT];
    int tab;
    struct view *pane;  /* Detail (or later Log) over the current tab; NULL when closed */
    bool help_open;
    int help_top;
    bool have_api_key;
    const char *data_note; /* where the rows come from, when not from the API */
    /* The sandboxes behind the three sandbox views (owned; see tui/sandbox_rows.h). */
    e2b_sandbox_list sandboxes;
    /* The latest metrics of the visible running sandboxes (owned; sandbox_id set). */
    e2b_metric_list metrics;

    /* The API side (tui/refresh.h). client is NULL without an API key. */
    e2b_loop *loop;
    e2b_client *client;
    e2b_config cfg;
    struct refresh *refresh;
    bool closing; /* shutting down: callbacks only free what they were given */
    struct box_task *task; /* the box operation running in the background (tui/box_task.h) */
    struct keystore *ks;   /* the password store, opened for the first box operation */
    int list_rows; /* rows of the list drawn last (which sandboxes are on screen) */

    struct prompt prompt;
    struct dialog dialog;
    struct {
        char text[256];
        enum flash_level level;
        long long expires_ms; /* 0 = no flash */
    } flash;

    bool dirty;        /* something changed: draw a frame */
    bool full_redraw;  /* repaint every cell (ctrl-l, after a child program) */
    bool quit;
    int exit_code;
    long long now_ms;
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

/* A message in the status line that expires (4 s, errors 8 s). The text is sanitised. */
void ui_flash(struct ui *ui, enum flash_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Asks a yes/no question; on_yes(ui, arg) runs only for Yes. arg is copied. */
void ui_confirm(struct ui *ui, const char *title, const char *text, const char *arg,
                void (*on_yes)(struct ui *ui, const char *arg));

/* Opens the bottom prompt. */
void ui_prompt(struct ui *ui, const char *label, bool hidden, const char *initial,
               void (*on_change)(struct ui *ui, const char *text),
               void (*on_done)(struct ui *ui, bool ok, const char *text));

/* Switches to a tab (closes the pane and the help overlay). */
void ui_show_tab(struct ui *ui, int tab);

/* Opens the detail pane for the selected row of the current tab. */
void ui_open_detail(struct ui *ui);

/* Replaces the pane over the current tab with v (the old one is destroyed). */
void ui_set_pane(struct ui *ui, struct view *v);

/* Opens the Log pane for the selected sandbox of the current tab (tui/views/view_log.c). */
void ui_open_log(struct ui *ui);


/* The generic list behaviour shared by list views (tui/widgets/list.c). */
bool list_act(struct view *v, struct ui *ui, enum action_id a);
void list_draw(struct view *v, struct ui *ui, int y, int x, int h, int w);
/* Shift+letter: returns true when the letter sorted a column. */
bool list_sort_key(struct view *v, struct ui *ui, int key);

/* Prompt and dialog key handling and drawing (tui/widgets/prompt.c, tui/widgets/dialog.c). */
void prompt_key(struct ui *ui, int key);
void prompt_draw(struct ui *ui, int y, int w);
void dialog_key(struct ui *ui, int key);
void dialog_draw(struct ui *ui);

/* Full-screen or overlay texts (tui/views/screens.c, tui/views/view_help.c). */
void screen_too_small(int lines, int cols);
void screen_no_api_key(int y, int x, int h, int w);
void help_draw(struct ui *ui);
bool help_act(struct ui *ui, enum action_id a);

/* Draws text at (y, x) in at most w columns with a role's attributes; the text must already
 * be safe (static or sanitised). Pads to w when pad is true. */
void draw_text(int y, int x, int w, int role, const char *text, bool pad);

/* The views. */
struct view *view_boxes_new(void);
struct view *view_workspaces_new(void);
struct view *view_all_new(void);
struct view *view_secrets_new(void);
/* The Detail pane for the selected row of list: the sandbox's full record when ui holds it
 * (id, name, kind, template, state, times, CPU/memory, branch, metadata), else the row's
 * columns. NULL when nothing is selected or out of memory. */
struct view *view_detail_new(struct ui *ui, const struct view *list);

#endif
