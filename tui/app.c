/* The dashboard: owns the views, routes keys through the key map to actions, composes
 * a frame only when something changed (one doupdate per frame), and runs on the loop
 * interface of tui/term/loop.h, whose waiting is core's loop (core/net/loop.h). */
#include "tui/app.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util/error.h"
#include "core/util/log.h"
#include "core/util/sanitize.h"
#include "tui/term/keys.h"
#include "tui/term/loop.h"
#include "tui/term/term.h"
#include "tui/sandbox_rows.h"
#include "tui/box_task.h"
#include "tui/refresh.h"
#include "tui/widgets/textwidth.h"
#include "tui/ui.h"

enum { FLASH_INFO_MS = 4000, FLASH_ERROR_MS = 8000, FLASH_NOTE_MS = 10000 };

/* ---- shared helpers (ui.h) ---- */

struct view *ui_current(struct ui *ui)
{
    return ui->pane ? ui->pane : ui->tabs[ui->tab];
}

unsigned ui_current_bit(struct ui *ui)
{
    return ui->help_open ? VIEW_HELP : ui_current(ui)->ops->bit;
}

void ui_flash(struct ui *ui, enum flash_level level, const char *fmt, ...)
{
    char raw[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* Flash texts carry names and server messages: sanitise before they can be drawn. */
    char *safe = sanitize_display(raw, strlen(raw), 0);
    snprintf(ui->flash.text, sizeof ui->flash.text, "%s", safe ? safe : "");
    free(safe);
    ui->flash.level = level;
    ui->flash.expires_ms = loop_now_ms() + (level == FLASH_ERROR ? FLASH_ERROR_MS : FLASH_INFO_MS);
    ui->dirty = true;
}

static void close_pane(struct ui *ui)
{
    if (ui->pane) {
        if (ui->pane->ops->destroy)
            ui->pane->ops->destroy(ui->pane);
        ui->pane = NULL;
    }
}

void ui_show_tab(struct ui *ui, int tab)
{
    if (tab < 0 || tab >= TAB_COUNT)
        return;
    close_pane(ui);
    ui->help_open = false;
    ui->tab = tab;
    ui->dirty = true;
    if (tab == TAB_SECRETS)
        refresh_secrets_now(ui);
}

void ui_set_pane(struct ui *ui, struct view *v)
{
    close_pane(ui);
    ui->help_open = false;
    ui->pane = v;
    ui->dirty = true;
}

void ui_open_detail(struct ui *ui)
{
    struct view *d = view_detail_new(ui, ui->tabs[ui->tab]);
    if (!d) {
        ui_flash(ui, FLASH_ERROR, "detail: no row selected");
        return;
    }
    close_pane(ui);
    ui->pane = d;
    ui->dirty = true;
}

/* ---- ':' commands ---- */

static void command_done(struct ui *ui, bool ok, const char *text)
{
    if (!ok)
        return;
    while (*text == ' ' || *text == ':')
        text++;
    char cmd[64];
    snprintf(cmd, sizeof cmd, "%s", text);
    size_t n = strlen(cmd);
    while (n > 0 && cmd[n - 1] == ' ')
        cmd[--n] = '\0';
    if (!cmd[0])
        return;
    static const struct {
        const char *name, *alias;
        int tab;
    } views[] = {
        {"boxes", "b", TAB_BOXES},
        {"workspaces", "ws", TAB_WORKSPACES},
        {"all", "a", TAB_ALL},
        {"secrets", "s", TAB_SECRETS},
    };
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        if (strcmp(cmd, views[i].name) == 0 || strcmp(cmd, views[i].alias) == 0) {
            ui_show_tab(ui, views[i].tab);
            return;
        }
    }
    if (strcmp(cmd, "q") == 0 || strcmp(cmd, "quit") == 0 || strcmp(cmd, "q!") == 0) {
        ui->quit = true;
        return;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "h") == 0) {
        ui->help_open = true;
        ui->help_top = 0;
        return;
    }
    ui_flash(ui, FLASH_ERROR, "unknown command :%s (try :boxes :workspaces :all :secrets :q)",
             cmd);
}

/* ---- actions and keys ---- */

static void run_action(struct ui *ui, enum action_id a)
{
    if (ui->opts.readonly && action_mutates(a)) {
        ui_flash(ui, FLASH_ERROR, "%s: disabled in read-only mode", action_info(a)->name);
        return;
    }
    if (ui->help_open && help_act(ui, a))
        return;
    switch (a) {
    case ACT_QUIT:
        if (ui->pane) {
            close_pane(ui);
            ui->dirty = true;
        } else {
            ui->quit = true;
        }
        return;
    case ACT_HELP:
        ui->help_open = !ui->help_open;
        ui->help_top = 0;
        ui->dirty = true;
        return;
    case ACT_REDRAW:
        ui->full_redraw = true;
        ui->dirty = true;
        return;
    case ACT_CANCEL: box_task_cancel(ui); return;
    case ACT_COMMAND: ui_prompt(ui, ":", false, "", NULL, command_done); return;
    case ACT_NEXT_VIEW: ui_show_tab(ui, (ui->tab + 1) % TAB_COUNT); return;
    case ACT_PREV_VIEW: ui_show_tab(ui, (ui->tab + TAB_COUNT - 1) % TAB_COUNT); return;
    case ACT_VIEW_BOXES: ui_show_tab(ui, TAB_BOXES); return;
    case ACT_VIEW_WORKSPACES: ui_show_tab(ui, TAB_WORKSPACES); return;
    case ACT_VIEW_ALL: ui_show_tab(ui, TAB_ALL); return;
    case ACT_VIEW_SECRETS: ui_show_tab(ui, TAB_SECRETS); return;
    default: break;
    }
    struct view *v = ui_current(ui);
    if (v->ops->act && v->ops->act(v, ui, a))
        return;
    if (a == ACT_BACK && ui->pane) {
        close_pane(ui);
        ui->dirty = true;
        return;
    }
    if (a == ACT_BACK)
        return; /* nothing to close: Esc is quietly ignored */
    ui_flash(ui, FLASH_ERROR, "%s: does not apply here", action_info(a)->name);
}

static void handle_mouse(struct ui *ui)
{
    struct term_mouse m;
    if (!term_mouse(&m) || ui->prompt.active || ui->dialog.active || ui->help_open)
        return;
    struct view *v = ui_current(ui);
    if (m.wheel) {
        run_action(ui, m.wheel < 0 ? ACT_MOVE_UP : ACT_MOVE_DOWN);
        return;
    }
    if (!m.click)
        return;
    if (m.y == 0) {
        /* The tabs line: find the tab under the click. */
        int x = 0;
        for (int t = 0; t < TAB_COUNT; t++) {
            int w = text_width(ui->tabs[t]->ops->title) + 5; /* " N title " and a gap */
            if (m.x >= x && m.x < x + w) {
                ui_show_tab(ui, t);
                return;
            }
            x += w;
        }
        return;
    }
    if (!ui->pane && v->has_table && m.y >= 2 && m.y < LINES - 1) {
        table_move_to(&v->table, v->table.top + (size_t)(m.y - 2));
        ui->dirty = true;
    }
}

static void handle_key(struct ui *ui, int key)
{
    if (key == KEYC_RESIZE) {
        ui->dirty = true;
        return;
    }
    if (key == KEYC_MOUSE) {
        handle_mouse(ui);
        return;
    }
    /* Modal first: a question or a prompt owns the keyboard while it is open. */
    if (ui->dialog.active) {
        dialog_key(ui, key);
        return;
    }
    if (ui->prompt.active) {
        prompt_key(ui, key);
        return;
    }
    enum action_id a = keymap_lookup(&ui->keys, key, ui_current_bit(ui));
    if (a != ACT_NONE) {
        run_action(ui, a);
        return;
    }
    if (!ui->help_open && !ui->pane && list_sort_key(ui_current(ui), ui, key))
        return;
    if (key != KEYC_ESC) {
        char name[32];
        ui_flash(ui, FLASH_INFO, "key %s does nothing here (? shows the keys)",
                 key_format(key, name, sizeof name));
    }
}

/* ---- drawing ---- */

static void draw_tabs(struct ui *ui)
{
    char line[256];
    draw_text(0, 0, COLS, ROLE_TABS, "", true);
    int x = 0;
    for (int t = 0; t < TAB_COUNT; t++) {
        snprintf(line, sizeof line, " %d %s ", t + 1, ui->tabs[t]->ops->title);
        int w = text_width(line) + 1;
        draw_text(0, x, w - 1, t == ui->tab ? ROLE_TAB_ACTIVE : ROLE_TABS, line, false);
        x += w;
    }
    snprintf(line, sizeof line, "%se2b-tui %s ", ui->opts.readonly ? "[read-only] " : "",
             E2B_TUI_VERSION);
    int w = text_width(line);
    if (x + w < COLS)
        draw_text(0, COLS - w, w, ROLE_TABS, line, false);
}

static void draw_status(struct ui *ui)
{
    int y = LINES - 1;
    if (ui->prompt.active) {
        prompt_draw(ui, y, COLS);
        return;
    }
    char left[512], right[96] = "";
    int role = ROLE_STATUS;
    struct view *v = ui_current(ui);
    if (ui->flash.expires_ms) {
        snprintf(left, sizeof left, " %s", ui->flash.text);
        role = ui->flash.level == FLASH_ERROR ? ROLE_ERROR : ROLE_INFO;
    } else if (box_task_status(ui, left, sizeof left)) {
        role = ROLE_INFO;
    } else if (v->has_table && v->table.filter) {
        snprintf(left, sizeof left, " filter: %s   (/ edit, Esc clear)", v->table.filter);
    } else {
        snprintf(left, sizeof left, " ? help  : command  / filter  q quit%s%s",
                 ui->data_note ? "   data: " : "", ui->data_note ? ui->data_note : "");
    }
    if (v->has_table && !ui->pane && (ui->have_api_key || v->loaded))
        snprintf(right, sizeof right, " %zu/%zu ", v->table.nvisible ? v->table.cursor + 1 : 0,
                 v->table.nvisible);
    int rw = text_width(right);
    draw_text(y, 0, COLS - rw, role, left, true);
    draw_text(y, COLS - rw, rw, ROLE_STATUS, right, true);
}

static void frame(void *ctx)
{
    struct ui *ui = ctx;
    if (!ui->dirty)
        return;
    ui->dirty = false;
    if (ui->full_redraw) {
        clearok(curscr, TRUE);
        ui->full_redraw = false;
    }
    /* erase (not clear): ncurses sends only the cells that differ from the last frame. */
    erase();
    if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES) {
        screen_too_small(LINES, COLS);
    } else {
        draw_tabs(ui);
        struct view *v = ui_current(ui);
        v->ops->draw(v, ui, 1, 0, LINES - 2, COLS);
        if (ui->help_open)
            help_draw(ui);
        if (ui->dialog.active)
            dialog_draw(ui);
        draw_status(ui);
    }
    wnoutrefresh(stdscr);
    doupdate();
}

/* ---- loop callbacks ---- */

static void on_input_ready(void *ctx)
{
    struct ui *ui = ctx;
    int key;
    /* Drain everything: ncurses may already hold the rest of an escape sequence. */
    while (!ui->quit && (key = term_read_key()) != KEYC_NONE)
        handle_key(ui, key);
}

static void on_signal(void *ctx, int signo)
{
    struct ui *ui = ctx;
    switch (signo) {
    case SIGWINCH:
        term_check_size();
        ui->dirty = true;
        break;
    case SIGTSTP:
        term_job_stop();
        ui->full_redraw = ui->dirty = true;
        break;
    case SIGCONT:
        /* Continued after a stop we did not start (kill -STOP): repaint everything. */
        term_check_size();
        ui->full_redraw = ui->dirty = true;
        break;
    case SIGINT:
    case SIGTERM:
    case SIGHUP:
        ui->quit = true;
        ui->exit_code = 128 + signo;
        break;
    default: break;
    }
}

/* Milliseconds until the wall clock's next whole second (the ENDS column's next change). */
static long ms_to_next_second(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return 1000 - ts.tv_nsec / 1000000;
}

static void on_tick(void *ctx, long long now)
{
    struct ui *ui = ctx;
    ui->now_ms = now;
    if (ui->flash.expires_ms && now >= ui->flash.expires_ms) {
        ui->flash.expires_ms = 0;
        ui->dirty = true;
    }
    /* The ENDS column: only cells whose text changed are touched (most change once a
     * minute), and a frame follows only when one did. */
    time_t wall = time(NULL);
    if (ui->ends_due == 0 || (ui->ends_due > 0 && wall >= ui->ends_due)) {
        if (wall != ui->shown_second)
            sandbox_rows_redraw_times(ui, wall);
        ui->shown_second = wall;
        long next = sandbox_rows_next_change(ui, wall);
        ui->ends_due = next > 0 ? wall + next : -1;
    }
}

static long next_timeout_ms(void *ctx, long long now)
{
    struct ui *ui = ctx;
    long t = -1; /* idle: nothing is scheduled, so the loop sleeps until input */
    if (ui->flash.expires_ms) {
        long long left = ui->flash.expires_ms - now;
        t = left < 0 ? 0 : (long)left;
    }
    /* The countdown wakes when a shown ENDS text changes: once a minute, once a second in
     * a sandbox's last ten minutes, never once none is counting down. */
    if (ui->ends_due == 0) {
        t = 0; /* new sandboxes: on_tick works out their next change */
    } else if (ui->ends_due > 0) {
        long long due = (long long)(ui->ends_due - time(NULL) - 1) * 1000 + ms_to_next_second();
        long s = due < 0 ? 0 : (long)due;
        if (t < 0 || s < t)
            t = s;
    }
    return t;
}

static bool done(void *ctx)
{
    return ((struct ui *)ctx)->quit;
}

/* ---- set-up ---- */

/* Reads the key.* lines of core's config file (core's parser skips them; the key map
 * checks them here). */
static void load_key_config(struct ui *ui)
{
    const char *path = ui->cfg.config_path;
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, n, m);
        fclose(m);
    }
    fclose(f);
    if (!text)
        return;
    char err[512];
    int bad = keymap_apply_config(&ui->keys, text, err, sizeof err);
    free(text);
    if (bad) {
        char *nl = strchr(err, '\n');
        if (nl)
            *nl = '\0';
        ui_flash(ui, FLASH_ERROR, "config %s%s (in %s)", err, bad > 1 ? " (and more)" : "",
                 path);
    }
}

/* Opens core's log (config's log_path: $XDG_STATE_HOME/e2b-tui/e2b-tui.log, 0600 in a 0700
 * directory) and sends stderr there while curses is active. Returns an error text or NULL. */
static const char *open_log(const struct ui *ui, char *why, size_t whysz)
{
    const char *path = ui->cfg.log_path;
    if (!path || !*path)
        return "no HOME: library messages may show on the screen";
    e2b_error *err = e2b_log_open(path);
    if (err) {
        snprintf(why, whysz, "log file: %.400s", e2b_error_message(err));
        e2b_error_free(err);
        return why;
    }
    term_redirect_stderr(e2b_log_fd());
    return NULL;
}

static void destroy_views(struct ui *ui)
{
    close_pane(ui);
    e2b_sandbox_list_clear(&ui->sandboxes);
    for (int t = 0; t < TAB_COUNT; t++) {
        if (ui->tabs[t] && ui->tabs[t]->ops->destroy)
            ui->tabs[t]->ops->destroy(ui->tabs[t]);
        ui->tabs[t] = NULL;
    }
}

static int print_keys(const struct tui_options *opts)
{
    struct keymap km;
    keymap_defaults(&km);
    switch (opts->print_keys) {
    case TUI_PRINT_CONF: keymap_write_conf(&km, stdout); break;
    case TUI_PRINT_MAN: keymap_write_man(&km, stdout); break;
    default: keymap_write_text(&km, stdout, opts->readonly); break;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}

int tui_run(const struct tui_options *opts)
{
    if (opts->print_keys != TUI_PRINT_NONE)
        return print_keys(opts);
    static struct ui ui; /* one dashboard per process; static keeps it off the stack */
    memset(&ui, 0, sizeof ui);
    ui.opts = *opts;
    keymap_defaults(&ui.keys);
    char cfg_problem[600] = "";
    if (refresh_config(&ui, cfg_problem, sizeof cfg_problem) != 0 && !cfg_problem[0])
        snprintf(cfg_problem, sizeof cfg_problem, "config: cannot be read");
    ui.have_api_key = ui.cfg.api_key && *ui.cfg.api_key;
    ui.tabs[TAB_BOXES] = view_boxes_new();
    ui.tabs[TAB_WORKSPACES] = view_workspaces_new();
    ui.tabs[TAB_ALL] = view_all_new();
    ui.tabs[TAB_SECRETS] = view_secrets_new();
    for (int t = 0; t < TAB_COUNT; t++) {
        if (!ui.tabs[t]) {
            destroy_views(&ui);
            e2b_config_clear(&ui.cfg);
            fputs("e2b-tui: out of memory\n", stderr);
            return 1;
        }
    }
    char err[512], why[512];
    const char *log_problem = open_log(&ui, why, sizeof why);
    struct term_options to = {.mouse = opts->mouse, .no_color = opts->no_color};
    int rc = term_open(&to, err, sizeof err);
    if (rc != 0) {
        destroy_views(&ui);
        e2b_config_clear(&ui.cfg);
        e2b_log_close();
        fputs(err, stderr);
        return rc;
    }
    if (log_problem)
        ui_flash(&ui, FLASH_ERROR, "%s", log_problem);
    load_key_config(&ui);
    if (cfg_problem[0])
        ui_flash(&ui, FLASH_ERROR, "%s", cfg_problem);
    ui.shown_second = time(NULL);
    if (term_note()[0]) {
        ui_flash(&ui, FLASH_ERROR, "%s", term_note());
        ui.flash.expires_ms = loop_now_ms() + FLASH_NOTE_MS;
    }
    /* The first frame (a "loading" state) goes out before anything slow starts: core's
     * loop initialises the TLS library, and the first request follows it. */
    ui.dirty = true;
    frame(&ui);
    /* Core's loop: the one place the dashboard waits (API requests join it). */
    e2b_loop *loop = e2b_loop_new();
    if (!loop) {
        term_close();
        destroy_views(&ui);
        e2b_config_clear(&ui.cfg);
        e2b_log_close();
        fputs("e2b-tui: out of memory\n", stderr);
        return 1;
    }
    ui.loop = loop;
    if (refresh_start(&ui) != 0)
        ui_flash(&ui, FLASH_ERROR, "out of memory");
    ui.dirty = true; /* "Loading sandboxes from E2B...", or why the client could not start */
    ui.dirty = true;
    struct loop_client client = {
        .ctx = &ui,
        .frame = frame,
        .on_input_ready = on_input_ready,
        .on_signal = on_signal,
        .on_tick = on_tick,
        .next_timeout_ms = next_timeout_ms,
        .done = done,
    };
    int lrc = loop_run(&client, loop, STDIN_FILENO, term_signal_fd());
    term_close();
    /* Calls still in flight end now: their callbacks see closing and only free. */
    ui.closing = true;
    close_pane(&ui);
    box_task_shutdown(&ui);
    e2b_loop_free(loop);
    ui.loop = NULL;
    box_task_free_all(&ui);
    refresh_free(&ui);
    destroy_views(&ui);
    e2b_log_close();
    if (lrc != 0) {
        fputs("e2b-tui: the event loop failed\n", stderr);
        return 1;
    }
    if (term_note()[0])
        fprintf(stderr, "e2b-tui: %s\n", term_note());
    return ui.exit_code;
}
