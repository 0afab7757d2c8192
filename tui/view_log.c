/* The Log pane (l): the selected sandbox's E2B logs (v2 logs API), re-read every refresh
 * interval and followed (the newest line stays in view until the user scrolls up).
 * Every line is sanitised when it arrives. The request state lives apart from the view so
 * a reply that arrives after the pane was closed only frees itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sanitize.h"
#include "tui/refresh.h"
#include "tui/term.h"
#include "tui/ui.h"

enum { LOG_MAX_LINES = 2000 };

struct log_state {
    struct ui *ui;
    bool closed;          /* the pane is gone: the next callback frees this */
    e2b_api_call *call;   /* in flight, or NULL */
    uint64_t timer;
    char id[128];
    char title[256];
    char **lines;
    int n;
    int top;
    bool follow;
    int page; /* rows shown last */
    char error[300];
};

static void free_lines(struct log_state *st)
{
    for (int i = 0; i < st->n; i++)
        free(st->lines[i]);
    free(st->lines);
    st->lines = NULL;
    st->n = 0;
}

static void fetch(struct log_state *st);

static void on_timer(void *ud)
{
    struct log_state *st = ud;
    st->timer = 0;
    fetch(st);
}

static void on_logs(void *ud, e2b_log_list *logs, const e2b_error *err)
{
    struct log_state *st = ud;
    st->call = NULL;
    struct ui *ui = st->ui;
    if (st->closed || ui->closing) {
        e2b_log_list_free(logs);
        if (st->closed) {
            free_lines(st);
            free(st);
        }
        return;
    }
    if (err) {
        snprintf(st->error, sizeof st->error, "%s", e2b_error_message(err));
    } else {
        st->error[0] = '\0';
        size_t from = logs->count > LOG_MAX_LINES ? logs->count - LOG_MAX_LINES : 0;
        char **lines = calloc(logs->count - from + 1, sizeof *lines);
        int n = 0;
        for (size_t i = from; lines && i < logs->count; i++) {
            const e2b_log_entry *e = &logs->items[i];
            struct tm tm;
            char when[16] = "";
            if (gmtime_r(&e->timestamp, &tm))
                strftime(when, sizeof when, "%H:%M:%S", &tm);
            char raw[2048];
            snprintf(raw, sizeof raw, "%s %-5s %s", when, e->level ? e->level : "",
                     e->message ? e->message : "");
            char *safe = sanitize_display(raw, strlen(raw), 0);
            if (safe)
                lines[n++] = safe;
        }
        if (lines) {
            free_lines(st);
            st->lines = lines;
            st->n = n;
        }
        e2b_log_list_free(logs);
    }
    ui->dirty = true;
    st->timer = e2b_loop_timer_add(ui->loop, refresh_interval_ms(ui), on_timer, st);
}

static void fetch(struct log_state *st)
{
    struct ui *ui = st->ui;
    if (!ui->client || st->call)
        return;
    e2b_logs_query q = {.direction = "forward", .limit = 1000};
    e2b_error *err = NULL;
    st->call = e2b_api_logs(ui->client, st->id, &q, on_logs, st, &err);
    if (!st->call) {
        snprintf(st->error, sizeof st->error, "%s", err ? e2b_error_message(err) : "no request");
        e2b_error_free(err);
    }
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    struct log_state *st = v->priv;
    char head[400];
    snprintf(head, sizeof head, "LOG  %s  (E2B logs%s; Esc: back)", st->title,
             st->follow ? ", following" : "");
    draw_text(y, x, w, ROLE_HEADER, head, true);
    int rows = h - 1;
    if (st->error[0]) {
        draw_text(y + 1, x + 1, w - 1, ROLE_ERROR, st->error, false);
        y++;
        rows--;
    }
    st->page = rows > 0 ? rows : 1;
    if (st->follow)
        st->top = st->n > rows ? st->n - rows : 0;
    if (st->n == 0 && !st->error[0])
        draw_text(y + 2, x + 2, w - 2, ROLE_DIM,
                  st->call ? "Loading the sandbox's logs..." : "No log lines yet.", false);
    for (int i = 0; i < rows && st->top + i < st->n; i++)
        draw_text(y + 1 + i, x + 1, w - 1, ROLE_NORMAL, st->lines[st->top + i], false);
    (void)ui;
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    struct log_state *st = v->priv;
    int last = st->n > st->page ? st->n - st->page : 0;
    switch (a) {
    case ACT_MOVE_UP: st->top = st->top > 0 ? st->top - 1 : 0; break;
    case ACT_PAGE_UP: st->top = st->top > st->page ? st->top - st->page : 0; break;
    case ACT_FIRST: st->top = 0; break;
    case ACT_MOVE_DOWN: st->top = st->top < last ? st->top + 1 : last; break;
    case ACT_PAGE_DOWN: st->top = st->top + st->page < last ? st->top + st->page : last; break;
    case ACT_LAST: st->top = last; break;
    default: return false;
    }
    /* Scrolled to the end: follow again; anywhere else: stay put. */
    st->follow = st->top >= last;
    ui->dirty = true;
    return true;
}

static void destroy(struct view *v)
{
    struct log_state *st = v->priv;
    if (st->timer)
        e2b_loop_timer_cancel(st->ui->loop, st->timer);
    if (st->call) {
        st->closed = true; /* freed by its callback */
        e2b_api_cancel(st->call);
    } else {
        free_lines(st);
        free(st);
    }
    free(v);
}

static const struct view_ops OPS = {
    .name = "log",
    .title = "Log",
    .bit = VIEW_LOG,
    .draw = draw,
    .act = act,
    .destroy = destroy,
};

void ui_open_log(struct ui *ui)
{
    struct view *list = ui->tabs[ui->tab];
    const struct table_row *r = table_selected(&list->table);
    if (!r || !(list->ops->bit & VIEWS_SANDBOXES)) {
        ui_flash(ui, FLASH_ERROR, "logs: no sandbox selected");
        return;
    }
    if (!ui->client) {
        ui_flash(ui, FLASH_ERROR, "logs: no API key (set E2B_API_KEY)");
        return;
    }
    struct view *v = calloc(1, sizeof *v);
    struct log_state *st = calloc(1, sizeof *st);
    if (!v || !st) {
        free(v);
        free(st);
        return;
    }
    st->ui = ui;
    st->follow = true;
    snprintf(st->id, sizeof st->id, "%s", r->id);
    snprintf(st->title, sizeof st->title, "%s (%s)", r->cells[0], r->id);
    v->ops = &OPS;
    v->priv = st;
    ui_set_pane(ui, v);
    fetch(st);
}
