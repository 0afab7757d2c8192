/* The dashboard: makes the live model and the views, routes keys through the key map to
 * actions, passes the model's changes to the views, and composes a frame only when
 * something changed (one doupdate per frame). It waits in core's loop (tui/term/loop.h). */
#include "tui/app.h"

#include "core/e2b/cost.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util/error.h"
#include "core/util/log.h"
#include "tui/agent_text.h"
#include "tui/attach.h"
#include "tui/op_status.h"
#include "tui/sandbox_rows.h"
#include "tui/term/keys.h"
#include "tui/term/loop.h"
#include "tui/term/term.h"
#include "tui/ui.h"
#include "tui/views/screens.h"
#include "tui/views/view_help.h"
#include "tui/views/view_messages.h"
#include "tui/views/view_compare.h"
#include "tui/views/remake_question.h"
#include "tui/views/view_history.h"
#include "tui/views/view_needs.h"
#include "tui/views/view_operations.h"
#include "tui/views/view_rules.h"
#include "tui/views/view_templates.h"
#include "tui/views/view_sandboxes.h"
#include "tui/views/view_secrets.h"
#include "tui/network_cmd.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/list.h"
#include "tui/widgets/textwidth.h"

enum { FLASH_NOTE_MS = 10000 };

/* ---- ':' commands (their words: tui/widgets/cmdline.c) ---- */

static void open_operations(struct ui *ui);
static void open_messages(struct ui *ui);
static void open_needs(struct ui *ui);
static void run_action(struct ui *ui, enum action_id a);

/* Selects the row of sandbox id in a tab that lists it (the current one if it does). */
static bool select_sandbox(struct ui *ui, const e2b_sandbox *sb)
{
    int tabs[] = {ui->tab, sb->kind == E2B_KIND_BOX ? TAB_BOXES : TAB_ALL, TAB_ALL};
    for (size_t k = 0; k < sizeof tabs / sizeof tabs[0]; k++) {
        if (tabs[k] > TAB_ALL)
            continue;
        struct table *t = &ui->tabs[tabs[k]]->table;
        for (size_t i = 0; i < t->nvisible; i++) {
            if (strcmp(t->rows[t->visible[i]].id, sb->sandbox_id) == 0) {
                if (tabs[k] != ui->tab || ui->pane)
                    ui_show_tab(ui, tabs[k]);
                table_move_to(t, i);
                return true;
            }
        }
    }
    return false;
}

static void command_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    (void)ctx;
    if (!ok)
        return;
    while (*text == ' ' || *text == ':')
        text++;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s", text);
    size_t n = strlen(cmd);
    while (n > 0 && cmd[n - 1] == ' ')
        cmd[--n] = '\0';
    if (!cmd[0])
        return;
    cmdline_remember(&ui->cmdline, cmd);
    char *arg = strchr(cmd, ' ');
    if (arg) {
        *arg++ = '\0';
        while (*arg == ' ')
            arg++;
    }
    char why[200], list[600];
    int c = cmdline_match(cmd, why, sizeof why);
    if (c == -2) {
        ui_flash(ui, FLASH_ERROR, ":%s is ambiguous (%s)", cmd, why);
        return;
    }
    if (c < 0) {
        cmdline_list(list, sizeof list);
        ui_flash(ui, FLASH_ERROR, "unknown command :%s (Tab completes; the commands: %s)", cmd,
                 list);
        return;
    }
    const struct cmd_info *info = cmdline_info(c);
    if (c == CMD_NETWORK) {
        network_command(ui, arg);
        return;
    }
    if (c == CMD_COMPARE) {
        view_compare_open(ui, arg);
        return;
    }
    if (c == CMD_REMAKE) { /* a gone box has no row: by its record's name */
        remake_question_open(ui, arg);
        return;
    }
    if (c == CMD_RULES || c == CMD_HISTORY) { /* a name, else every box */
        (c == CMD_RULES ? view_rules_open : view_history_open)(ui, arg, true);
        return;
    }
    if (arg && *arg && !info->takes_name) {
        ui_flash(ui, FLASH_ERROR, ":%s takes no argument", info->name);
        return;
    }
    static const enum action_id acts[CMD_COUNT] = {
        [CMD_UP] = ACT_UP,         [CMD_ATTACH] = ACT_ATTACH, [CMD_PULL] = ACT_PULL,
        [CMD_STOP] = ACT_STOP,     [CMD_RESUME] = ACT_RESUME, [CMD_KILL] = ACT_KILL,
        [CMD_EXTEND] = ACT_EXTEND, [CMD_LOGS] = ACT_LOGS,     [CMD_DETAIL] = ACT_DETAIL,
    };
    switch ((enum cmd_id)c) {
    case CMD_BOXES: ui_show_tab(ui, TAB_BOXES); return;
    case CMD_WORKSPACES: ui_show_tab(ui, TAB_WORKSPACES); return;
    case CMD_ALL: ui_show_tab(ui, TAB_ALL); return;
    case CMD_SECRETS: ui_show_tab(ui, TAB_SECRETS); return;
    case CMD_OPS: open_operations(ui); return;
    case CMD_NEEDS: open_needs(ui); return;
    case CMD_MESSAGES: open_messages(ui); return;
    case CMD_WAITING:
        /* The boxes waiting for you: their AGENT cell starts with the waiting mark. */
        ui_show_tab(ui, TAB_BOXES);
        table_set_filter(&ui->tabs[TAB_BOXES]->table, AGENT_WAITING_MARK);
        ui->dirty = true;
        return;
    case CMD_HELP:
        ui->help_open = true;
        ui->help_top = 0;
        return;
    case CMD_QUIT: ui->quit = true; return;
    case CMD_UP: ui_show_tab(ui, TAB_BOXES); break;
    default: break;
    }
    if (arg && *arg) {
        e2b_error *err = NULL;
        const e2b_sandbox *sb = e2b_live_lookup(ui->model, arg, &err);
        if (err && err->kind == E2B_ERR_CONFLICT) { /* several: none is picked */
            ui_flash(ui, FLASH_ERROR, ":%s: %s", info->name, e2b_error_message(err));
            e2b_error_free(err);
            return;
        }
        e2b_error_free(err);
        if (!sb || !select_sandbox(ui, sb)) {
            ui_flash(ui, FLASH_ERROR, ":%s: no sandbox called %s (Tab completes the names)",
                     info->name, arg);
            return;
        }
    } else if (ui->pane && info->takes_name) {
        ui_set_pane(ui, NULL); /* the row under the pane */
    }
    run_action(ui, acts[c]);
}

/* Tab completes (the command, then a sandbox name), Up and Down go through the history. */
static bool command_key(struct ui *ui, void *ctx, int key)
{
    (void)ctx;
    struct prompt *p = &ui->prompt;
    if (key == KEYC_UP || key == KEYC_DOWN) {
        const char *line = cmdline_browse(&ui->cmdline, key == KEYC_UP ? -1 : 1, p->buf);
        if (line) {
            snprintf(p->buf, sizeof p->buf, "%s", line);
            p->len = strlen(p->buf);
        }
        return true;
    }
    if (key != KEYC_TAB)
        return false;
    const e2b_sandbox_list *l = e2b_live_sandboxes(ui->model);
    size_t cap = l->count < 4000 ? l->count : 4000, n = 0;
    const char **names = calloc(cap * 2 + 1, sizeof *names);
    for (size_t i = 0; names && i < cap; i++) {
        names[n++] = e2b_live_sandbox_name(&l->items[i]);
        names[n++] = l->items[i].sandbox_id;
    }
    if (cmdline_complete(p->buf, sizeof p->buf, names, n, p->hint, sizeof p->hint))
        p->len = strlen(p->buf);
    free(names);
    return true;
}

static void open_command(struct ui *ui)
{
    prompt_open(ui, ":", false, "", NULL, command_done, NULL, NULL);
    ui->prompt.on_key = command_key;
    cmdline_reset_browse(&ui->cmdline);
}

static void open_operations(struct ui *ui)
{
    struct view *v = view_operations_new(ui);
    if (v)
        ui_set_pane(ui, v);
    else
        ui_flash(ui, FLASH_ERROR, "operations: out of memory");
}

static void open_needs(struct ui *ui)
{
    struct view *v = view_needs_new(ui);
    if (v)
        ui_set_pane(ui, v);
    else
        ui_flash(ui, FLASH_ERROR, "needs: out of memory");
}

static void open_messages(struct ui *ui)
{
    struct view *v = view_messages_new(ui);
    if (v)
        ui_set_pane(ui, v);
    else
        ui_flash(ui, FLASH_ERROR, "messages: out of memory");
}

/* ---- actions and keys ---- */

static void run_action(struct ui *ui, enum action_id a)
{
    if (a == ACT_PAGE_DOWN_SPACE)
        a = ACT_PAGE_DOWN; /* space pages where it does not mark (Boxes) */
    if (ui->opts.readonly && action_mutates(a)) {
        ui_flash(ui, FLASH_ERROR, "%s: disabled in read-only mode", action_info(a)->name);
        return;
    }
    if (ui->help_open && view_help_act(ui, a))
        return;
    /* A new operation: an old error leaves the status line (the Messages pane keeps it). */
    if (action_mutates(a) && ui->flash.expires_ms && ui->flash.level == FLASH_ERROR) {
        ui->flash.expires_ms = 0;
        ui->dirty = true;
    }
    switch (a) {
    case ACT_QUIT:
        if (ui->pane) {
            ui_back_pane(ui); /* to the pane it came from, or the list */
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
    case ACT_CANCEL:
        if (ui->pane && ui->pane->ops->bit == VIEW_OPS)
            break; /* the pane cancels its selected row */
        if (e2b_live_op_cancel(ui->model, 0) != 0)
            ui_flash(ui, FLASH_INFO, "nothing to cancel");
        return;
    case ACT_OPERATIONS: open_operations(ui); return;
    case ACT_NEEDS: open_needs(ui); return;
    case ACT_NEXT_NEEDS: needs_jump(ui); return;
    case ACT_RULES: view_rules_open(ui, NULL, false); return;
    case ACT_HISTORY: view_history_open(ui, NULL, false); return;
    case ACT_MESSAGES: open_messages(ui); return;
    case ACT_TEMPLATES: {
        struct view *v = view_templates_new(ui);
        if (v)
            ui_set_pane(ui, v);
        return;
    }
    case ACT_COMMAND: open_command(ui); return;
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
        ui_back_pane(ui);
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
    /* A stale sandbox list has a banner above its header (view_sandboxes.c). */
    int head = 1 + ((v->ops->bit & VIEWS_SANDBOXES) && e2b_live_list_stale_since(ui->model) &&
                    LINES - 2 > 3);
    if (!ui->pane && v->has_table && m.y == head) {
        /* The header: sort by the column under the click (again: reverse). */
        int widths[32], x = v->x_shown;
        if (v->table.ncols > 32)
            return;
        table_layout(&v->table, v->w_shown > 0 ? v->w_shown : COLS, widths);
        for (int c = 0; c < v->table.ncols; c++) {
            if (!widths[c])
                continue;
            if (m.x >= x && m.x < x + widths[c] + 1) {
                char letter = v->table.cols[c].sort_letter;
                if (letter)
                    list_sort_key(v, ui, letter >= 'a' ? letter - 'a' + 'A' : letter);
                return;
            }
            x += widths[c] + 1;
        }
        return;
    }
    if (!ui->pane && v->has_table && m.y > head && m.y < LINES - 1 &&
        (v->w_shown <= 0 || (m.x >= v->x_shown && m.x < v->x_shown + v->w_shown))) {
        table_move_to(&v->table, v->table.top + (size_t)(m.y - head - 1));
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
    /* Too small: nothing is shown but "q quits", so no key may reach a hidden prompt or
     * question; q does what the screen says. */
    if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES) {
        if (key == 'q')
            ui->quit = true;
        else if (key == KEYC_CTRL('l'))
            ui->full_redraw = ui->dirty = true;
        return;
    }
    /* Modal first: a question or a prompt owns the keyboard while it is open. */
    if (ui->dialog.active) {
        dialog_key(&ui->dialog, key);
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

/* The box operations in the status line: the one running, or how many and the newest. */
static bool ops_status(struct ui *ui, char *buf, size_t bufsz)
{
    size_t n = e2b_live_op_count(ui->model);
    e2b_live_op_info op;
    if (!n || !e2b_live_op_get(ui->model, n - 1, &op))
        return false;
    char line[400];
    op_status_format(&op, line, sizeof line);
    if (n == 1)
        snprintf(buf, bufsz, " %s   (ctrl-x cancels)", line);
    else
        snprintf(buf, bufsz, " %zu operations running (O lists them); newest: %s", n, line);
    return true;
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
    } else if (ops_status(ui, left, sizeof left)) {
        role = ROLE_INFO;
    } else if (v->has_table && v->table.filter) {
        snprintf(left, sizeof left, " filter: %s   (/ edit, Esc clear)", v->table.filter);
    } else if (e2b_live_agents_waiting(ui->model)) {
        size_t w = e2b_live_agents_waiting(ui->model);
        snprintf(left, sizeof left, " ! %zu box%s waiting for you (! lists them, ] jumps)   ? help",
                 w, w == 1 ? "" : "es");
        role = ROLE_WAITING;
    } else {
        /* Only what works here. */
        unsigned bit = ui_current_bit(ui);
        const char *hint = bit & VIEWS_LISTS   ? " ? help  : command  / filter  q quit"
                           : bit == VIEW_LOG    ? " ? help  / search  n/N next/previous  Tab source  Esc back"
                           : bit == VIEW_DETAIL ? " ? help  a s r K p e l: the row's actions  w forward a port  D get files  Esc back"
                                                : " ? help  : command  Esc back";
        snprintf(left, sizeof left, "%s", hint);
    }
    size_t marked = ui->pane ? 0 : view_sandboxes_marked(v);
    if (v->has_table && !ui->pane && (ui_have_api_key(ui) || v->loaded))
    {
        char mk[32] = "";
        if (marked)
            snprintf(mk, sizeof mk, " %zu marked ", marked);
        snprintf(right, sizeof right, "%s %zu/%zu ", mk,
                 v->table.nvisible ? v->table.cursor + 1 : 0, v->table.nvisible);
    }
    /* the fleet's cost today (its boxes' agents and running sandboxes), where there is room */
    if (COLS >= 100 && e2b_live_agent_count(ui->model)) {
        double fleet;
        bool whole = agent_text_fleet_cost(ui->model, time(NULL), &fleet);
        char f[24], txt[48];
        e2b_cost_format(fleet, f, sizeof f);
        int k = snprintf(txt, sizeof txt, " fleet today %s%s ", f, whole ? "" : "+?");
        size_t rlen = strlen(right);
        /* a message on the line comes first: the total yields the room it would take */
        bool room = !ui->flash.expires_ms || text_width(left) + k + text_width(right) <= COLS;
        if (room && k > 0 && (size_t)k + rlen < sizeof right) {
            memmove(right + k, right, rlen + 1);
            memcpy(right, txt, (size_t)k);
        }
    }
    int rw = text_width(right);
    /* A message wider than the line ends with where to read it whole. */
    static const char more[] = " ... (ctrl-g: whole message)";
    int room = COLS - rw - (int)sizeof more;
    if (ui->flash.expires_ms && room > 10 && (ui->flash.cut || text_width(left) > COLS - rw)) {
        size_t k = text_fit(left, room, NULL);
        snprintf(left + k, sizeof left - k, "%s", more);
    }
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
        screens_too_small(LINES, COLS);
    } else {
        draw_tabs(ui);
        struct view *v = ui_current(ui);
        v->ops->draw(v, ui, 1, 0, LINES - 2, COLS);
        if (ui->help_open)
            view_help_draw(ui);
        if (ui->dialog.active)
            dialog_draw(&ui->dialog);
        draw_status(ui);
    }
    wnoutrefresh(stdscr);
    doupdate();
    /* E2B_TUI_DEBUG_PAINT=1: every frame is a log line (tests count frames per second). */
    if (ui->debug_frames < 0) {
        const char *e = getenv("E2B_TUI_DEBUG_PAINT");
        ui->debug_frames = e && strcmp(e, "1") == 0;
    }
    if (ui->debug_frames)
        e2b_logf("frame");
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
    if (ui->flash.expires_ms && now >= ui->flash.expires_ms) {
        ui->flash.expires_ms = 0;
        ui->dirty = true;
    }
    /* The ENDS column: only cells whose text changed are touched (most change once a
     * minute), and a frame follows only when one did. */
    time_t wall = time(NULL);
    if (ui->ends_due == 0 || (ui->ends_due > 0 && wall >= ui->ends_due)) {
        if (wall != ui->shown_second)
            ui_changed(ui, UI_CHANGED_CLOCK);
        ui->shown_second = wall;
        long next = sandbox_rows_next_change(e2b_live_sandboxes(ui->model), wall);
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

/* ---- the model ---- */

/* The model changed: notices become the status line's message, the views update. */
static void on_model(void *ud, unsigned what)
{
    struct ui *ui = ud;
    if (what & E2B_LIVE_NOTICE) {
        enum e2b_live_level level;
        const char *text = e2b_live_notice(ui->model, &level);
        /* A state change seen by the refresh yields to an action's own message. */
        if (level != E2B_LIVE_CHANGE || !ui->flash.expires_ms)
            ui_flash(ui, level == E2B_LIVE_ERROR ? FLASH_ERROR : FLASH_INFO, "%s", text);
    }
    if (what & E2B_LIVE_OPS)
        ui->dirty = true; /* the status line */
    if (what & (E2B_LIVE_AGENTS | E2B_LIVE_SANDBOXES)) {
        notify_check(&ui->notify, ui->model);
        /* The status line counts the boxes waiting (a frame only when the count moves:
         * an agent streaming text changes its status many times a second). */
        size_t waiting = e2b_live_agents_waiting(ui->model);
        if (waiting != ui->waiting_shown) {
            ui->waiting_shown = waiting;
            ui->dirty = true;
        }
    }
    if (what & ~(unsigned)E2B_LIVE_NOTICE)
        ui_changed(ui, what);
}

/* The running sandboxes on the screen: the current sandbox tab's, else All's. */
static size_t visible_ids(void *ud, const char **ids, size_t max)
{
    struct ui *ui = ud;
    return view_sandboxes_running_ids(ui->tabs[ui->tab <= TAB_ALL ? ui->tab : TAB_ALL], ids, max);
}

/* ---- set-up ---- */

/* Reads the key.* lines of core's config file (core's parser skips them; the key map
 * checks them here). */
static void load_key_config(struct ui *ui)
{
    const char *path = e2b_live_config(ui->model)->config_path;
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
        /* Each problem goes to the Messages pane; the status line names the first. */
        char *nl = strchr(err, '\n');
        if (nl)
            *nl = '\0';
        if (bad > 1)
            ui_flash(ui, FLASH_ERROR, "config %s (in %s); %d more problems: ctrl-g shows them all",
                     err, path, bad - 1);
        else
            ui_flash(ui, FLASH_ERROR, "config %s (in %s)", err, path);
        for (char *line = nl ? nl + 1 : NULL; line && *line;) {
            char *next = strchr(line, '\n');
            if (next)
                *next = '\0';
            messages_add(&ui->messages, true, time(NULL), line);
            line = next ? next + 1 : NULL;
        }
    }
}

/* Opens core's log (config's log_path: $XDG_STATE_HOME/e2b-tui/e2b-tui.log, 0600 in a 0700
 * directory) and sends stderr there while curses is active. Returns an error text or NULL. */
static const char *open_log(const struct ui *ui, char *why, size_t whysz)
{
    const char *path = e2b_live_config(ui->model)->log_path;
    if (!path || !*path)
        return "no HOME: library messages may show on the screen";
    e2b_log_set_max(e2b_live_config(ui->model)->log_max);
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
    ui_set_pane(ui, NULL);
    messages_free(&ui->messages);
    cmdline_free(&ui->cmdline);
    prompt_clear(&ui->prompt);
    for (int t = 0; t < TAB_COUNT; t++) {
        if (ui->tabs[t] && ui->tabs[t]->ops->destroy)
            ui->tabs[t]->ops->destroy(ui->tabs[t]);
        ui->tabs[t] = NULL;
    }
}

/* Frees what tui_run made before the loop ran (the views, the model, the log). */
static int fail_early(struct ui *ui, const char *msg)
{
    destroy_views(ui);
    e2b_live_free(ui->model);
    e2b_log_close();
    fputs(msg, stderr);
    return 1;
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

/* A question answered No says so in the status line. */
static void dialog_cancelled(struct ui *ui, const char *title)
{
    ui_flash(ui, FLASH_INFO, "%s: cancelled", title);
}

int tui_run(const struct tui_options *opts)
{
    if (opts->print_keys != TUI_PRINT_NONE)
        return print_keys(opts);
    static struct ui ui; /* one dashboard per process; static keeps it off the stack */
    memset(&ui, 0, sizeof ui);
    ui.opts = *opts;
    ui.debug_frames = -1;
    dialog_init(&ui.dialog, &ui, &ui.dirty, dialog_cancelled);
    keymap_defaults(&ui.keys);
    e2b_live_options lo = {.refresh_seconds = opts->refresh_seconds,
                           .config_file = opts->config_file,
                           .domain = opts->domain,
                           .api_url = opts->api_url,
                           .keystore = opts->keystore};
    e2b_error *problem = NULL;
    ui.model = e2b_live_new(&lo, &problem);
    char cfg_problem[600]; /* flashed once the terminal is open */
    snprintf(cfg_problem, sizeof cfg_problem, "%s", problem ? e2b_error_message(problem) : "");
    e2b_error_free(problem);
    if (!ui.model) {
        fputs("e2b-tui: out of memory\n", stderr);
        return 1;
    }
    ui.tabs[TAB_BOXES] = view_sandboxes_new(SANDBOX_FILTER_BOXES);
    ui.tabs[TAB_WORKSPACES] = view_sandboxes_new(SANDBOX_FILTER_WORKSPACES);
    ui.tabs[TAB_ALL] = view_sandboxes_new(SANDBOX_FILTER_ALL);
    ui.tabs[TAB_SECRETS] = view_secrets_new();
    for (int t = 0; t < TAB_COUNT; t++) {
        if (!ui.tabs[t])
            return fail_early(&ui, "e2b-tui: out of memory\n");
    }
    if (e2b_live_subscribe(ui.model, E2B_LIVE_ALL, on_model, &ui) != 0)
        return fail_early(&ui, "e2b-tui: out of memory\n");
    e2b_live_set_metrics_source(ui.model, visible_ids, &ui);
    e2b_live_set_attach_handler(ui.model, attach_run, &ui);
    char err[512], why[512];
    const char *log_problem = open_log(&ui, why, sizeof why);
    struct term_options to = {.mouse = opts->mouse, .no_color = opts->no_color};
    int rc = term_open(&to, err, sizeof err);
    if (rc != 0) {
        fail_early(&ui, err);
        return rc;
    }
    if (log_problem)
        ui_flash(&ui, FLASH_ERROR, "%s", log_problem);
    const char *tmux = getenv("TMUX");
    notify_init(&ui.notify, e2b_live_config(ui.model)->notify, STDOUT_FILENO, tmux && *tmux);
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
    /* The model's loop: the one place the dashboard waits (API requests join it). */
    if (e2b_live_start(ui.model) != 0) {
        term_close();
        return fail_early(&ui, "e2b-tui: out of memory\n");
    }
    /* "Loading sandboxes from E2B...", or why the client could not start. */
    ui_changed(&ui, E2B_LIVE_SANDBOXES | E2B_LIVE_SECRETS);
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
    int lrc = loop_run(&client, e2b_live_loop(ui.model), STDIN_FILENO, term_signal_fd());
    term_close();
    /* The panes' followers close first; then the model cancels its operations (5 s at
     * most), ends the calls in flight and frees everything. */
    ui_set_pane(&ui, NULL);
    dialog_close(&ui.dialog); /* a kill question's look for unpulled work */
    e2b_live_free(ui.model);
    ui.model = NULL;
    destroy_views(&ui);
    notify_clear(&ui.notify);
    e2b_log_close();
    if (lrc != 0) {
        fputs("e2b-tui: the event loop failed\n", stderr);
        return 1;
    }
    if (term_note()[0])
        fprintf(stderr, "e2b-tui: %s\n", term_note());
    return ui.exit_code;
}
