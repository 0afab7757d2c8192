#include "tui/views/view_messages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/term/term.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/textwidth.h"

/* One screen line of the wrapped history. */
struct mline {
    size_t msg;       /* index in the history */
    size_t off, len;  /* the bytes of the message's text on this line */
    bool first;       /* the message's first line (it carries the time) */
};

struct messages_view {
    struct mline *lines;
    size_t n, cap;
    int width;            /* the text width the lines were wrapped for */
    unsigned long added;  /* the history's count when wrapped */
    size_t top;
    bool follow;          /* at the end: new messages scroll in */
    int page;
};

enum { TIME_COLS = 9, CONT_INDENT = 2 }; /* "HH:MM:SS ", a message's later lines */

static bool push(struct messages_view *mv, struct mline l)
{
    if (mv->n == mv->cap) {
        size_t cap = mv->cap ? mv->cap * 2 : 64;
        struct mline *p = realloc(mv->lines, cap * sizeof *p);
        if (!p)
            return false;
        mv->lines = p;
        mv->cap = cap;
    }
    mv->lines[mv->n++] = l;
    return true;
}

/* Wraps every message to width columns (after the time). */
static void rewrap(struct messages_view *mv, const struct messages *h, int width)
{
    mv->n = 0;
    mv->width = width;
    mv->added = h->added;
    int room = width - TIME_COLS > 10 ? width - TIME_COLS : 10;
    for (size_t i = 0; i < h->count; i++) {
        const char *t = messages_get(h, i)->text;
        size_t off = 0, len = strlen(t);
        bool first = true;
        do {
            /* A message's later lines are indented: where one ends and the next starts
             * shows, as does the time at each message's first line. */
            size_t k = text_wrap(t + off, first ? room : room - CONT_INDENT);
            if (!push(mv, (struct mline){i, off, k, first}))
                return;
            off += k;
            first = false;
        } while (off < len);
    }
}

static size_t last_top(const struct messages_view *mv)
{
    return mv->n > (size_t)mv->page ? mv->n - (size_t)mv->page : 0;
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    struct messages_view *mv = v->priv;
    mv->page = h - 1 > 1 ? h - 1 : 1;
    if (mv->width != w || mv->added != ui->messages.added)
        rewrap(mv, &ui->messages, w);
    if (mv->follow || mv->top > last_top(mv))
        mv->top = last_top(mv);
    char head[128];
    snprintf(head, sizeof head, "MESSAGES  %zu, oldest first  (Esc: back)", ui->messages.count);
    draw_text(y, x, w, ROLE_HEADER, head, true);
    if (!mv->n)
        draw_text(y + 2, x + 2, w - 2, ROLE_DIM, "No messages yet.", false);
    for (int i = 0; i < h - 1 && mv->top + (size_t)i < mv->n; i++) {
        const struct mline *l = &mv->lines[mv->top + (size_t)i];
        const struct message *m = messages_get(&ui->messages, l->msg);
        if (!m)
            break;
        char stamp[16] = "";
        if (l->first) {
            struct tm tm;
            localtime_r(&m->when, &tm);
            strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
        }
        char line[1200];
        snprintf(line, sizeof line, "%-8s %s%.*s", stamp, l->first ? "" : "  ",
                 (int)(l->len < 1000 ? l->len : 1000), m->text + l->off);
        draw_text(y + 1 + i, x, w, m->error ? ROLE_ERROR : ROLE_NORMAL, line, true);
    }
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    struct messages_view *mv = v->priv;
    size_t last = last_top(mv), page = (size_t)(mv->page > 1 ? mv->page : 1);
    switch (a) {
    case ACT_MOVE_UP: mv->top = mv->top > 0 ? mv->top - 1 : 0; break;
    case ACT_MOVE_DOWN: mv->top = mv->top < last ? mv->top + 1 : last; break;
    case ACT_PAGE_UP: mv->top = mv->top > page ? mv->top - page : 0; break;
    case ACT_PAGE_DOWN: mv->top = mv->top + page < last ? mv->top + page : last; break;
    case ACT_HALF_UP: mv->top = mv->top > page / 2 ? mv->top - page / 2 : 0; break;
    case ACT_HALF_DOWN: mv->top = mv->top + page / 2 < last ? mv->top + page / 2 : last; break;
    case ACT_FIRST: mv->top = 0; break;
    case ACT_LAST: mv->top = last; break;
    default: return false;
    }
    mv->follow = mv->top >= last;
    ui->dirty = true;
    return true;
}

static void changed(struct view *v, struct ui *ui, unsigned what)
{
    struct messages_view *mv = v->priv;
    (void)what;
    if (mv->added != ui->messages.added)
        ui->dirty = true;
}

static void destroy(struct view *v)
{
    struct messages_view *mv = v->priv;
    free(mv->lines);
    free(mv);
    free(v);
}

static const struct view_ops OPS = {
    .name = "messages",
    .title = "Messages",
    .bit = VIEW_MESSAGES,
    .changed = changed,
    .draw = draw,
    .act = act,
    .destroy = destroy,
};

struct view *view_messages_new(struct ui *ui)
{
    (void)ui;
    struct view *v = calloc(1, sizeof *v);
    struct messages_view *mv = calloc(1, sizeof *mv);
    if (!v || !mv) {
        free(v);
        free(mv);
        return NULL;
    }
    mv->follow = true;
    mv->width = -1;
    v->ops = &OPS;
    v->priv = mv;
    return v;
}
