/* The bottom-line editor: printable characters (UTF-8), Backspace, ctrl-u (clear),
 * ctrl-w (delete a word), Enter (done) and Esc (cancel); a default it opens with is
 * selected until a key replaces it or keeps it (prompt.h); multi-line: Enter is a new line,
 * ctrl-d done, ctrl-e done for $EDITOR. A hidden prompt draws nothing of
 * what is typed and wipes its buffer once its callback has returned. */
#include <curses.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "core/util/sanitize.h"
#include "tui/term/keys.h"
#include "tui/term/term.h"
#include "tui/ui.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/prompt.h"
#include "tui/widgets/textwidth.h"

static void wipe(struct prompt *p)
{
    /* explicit_bzero is not optimised away, unlike memset before the buffer dies. */
    explicit_bzero(p->buf, sizeof p->buf);
    p->len = p->cur = 0;
}

static void drop_ctx(struct prompt *p)
{
    if (p->ctx && p->ctx_free)
        p->ctx_free(p->ctx);
    p->ctx = NULL;
    p->ctx_free = NULL;
}

void prompt_clear(struct prompt *p)
{
    wipe(p);
    drop_ctx(p);
    p->active = false;
    p->on_change = NULL;
    p->on_done = NULL;
    p->on_key = NULL;
}

void prompt_open(struct ui *ui, const char *label, bool hidden, const char *initial,
                 prompt_change_fn on_change, prompt_done_fn on_done, void *ctx,
                 void (*ctx_free)(void *ctx))
{
    struct prompt *p = &ui->prompt;
    if (p->ctx != ctx)
        drop_ctx(p);
    wipe(p);
    p->active = true;
    p->hidden = hidden;
    p->multiline = p->editor_asked = false;
    snprintf(p->label, sizeof p->label, "%s", label);
    snprintf(p->buf, sizeof p->buf, "%s", initial ? initial : "");
    p->len = p->cur = strlen(p->buf);
    p->selected = p->len > 0;
    p->on_change = on_change;
    p->on_done = on_done;
    p->on_key = NULL;
    p->hint[0] = '\0';
    p->ctx = ctx;
    p->ctx_free = ctx_free;
    ui->dirty = true;
}

void prompt_open_multiline(struct ui *ui, const char *label, const char *initial,
                           prompt_done_fn on_done, void *ctx, void (*ctx_free)(void *ctx))
{
    prompt_open(ui, label, false, initial, NULL, on_done, ctx, ctx_free);
    ui->prompt.multiline = true;
}

/* Removes the last UTF-8 character. */
static void backspace(struct prompt *p)
{
    while (p->len > 0) {
        unsigned char c = (unsigned char)p->buf[--p->len];
        p->buf[p->len] = '\0';
        if ((c & 0xC0) != 0x80)
            break;
    }
}

/* ---- the message editor's cursor (multiline) ---- */

static size_t char_back(const struct prompt *p, size_t at)
{
    while (at > 0 && (p->buf[--at] & 0xC0) == 0x80)
        ;
    return at;
}

static size_t char_next(const struct prompt *p, size_t at)
{
    if (at < p->len)
        at++;
    while (at < p->len && (p->buf[at] & 0xC0) == 0x80)
        at++;
    return at;
}

static size_t line_start(const struct prompt *p, size_t at)
{
    while (at > 0 && p->buf[at - 1] != '\n')
        at--;
    return at;
}

static size_t line_end(const struct prompt *p, size_t at)
{
    while (at < p->len && p->buf[at] != '\n')
        at++;
    return at;
}

/* The characters from a line's start to at. */
static size_t column(const struct prompt *p, size_t at)
{
    size_t n = 0;
    for (size_t i = line_start(p, at); i < at; i = char_next(p, i))
        n++;
    return n;
}

/* The offset col characters into the line that starts at start (or its end). */
static size_t at_column(const struct prompt *p, size_t start, size_t col)
{
    size_t at = start;
    while (col-- > 0 && at < p->len && p->buf[at] != '\n')
        at = char_next(p, at);
    return at;
}

/* Moves the cursor for an arrow, Home or End; false for any other key. */
static bool cursor_key(struct prompt *p, int key)
{
    size_t col;
    switch (key) {
    case KEYC_LEFT: p->cur = char_back(p, p->cur); return true;
    case KEYC_RIGHT: p->cur = char_next(p, p->cur); return true;
    case KEYC_HOME: p->cur = line_start(p, p->cur); return true;
    case KEYC_END: p->cur = line_end(p, p->cur); return true;
    case KEYC_UP:
        col = column(p, p->cur);
        if (line_start(p, p->cur) > 0)
            p->cur = at_column(p, line_start(p, line_start(p, p->cur) - 1), col);
        return true;
    case KEYC_DOWN:
        col = column(p, p->cur);
        if (line_end(p, p->cur) < p->len)
            p->cur = at_column(p, line_end(p, p->cur) + 1, col);
        return true;
    default: return false;
    }
}

/* Removes the character before the cursor. */
static void delete_back(struct prompt *p)
{
    size_t from = char_back(p, p->cur);
    memmove(p->buf + from, p->buf + p->cur, p->len - p->cur + 1);
    p->len -= p->cur - from;
    p->cur = from;
    explicit_bzero(p->buf + p->len, sizeof p->buf - p->len);
}

static void finish(struct ui *ui, bool ok)
{
    struct prompt *p = &ui->prompt;
    prompt_done_fn done = p->on_done;
    void *ctx = p->ctx;
    void (*ctx_free)(void *) = p->ctx_free;
    char text[sizeof p->buf];
    memcpy(text, p->buf, sizeof text);
    wipe(p);
    p->active = false;
    p->on_change = NULL;
    p->on_done = NULL;
    p->on_key = NULL;
    p->ctx = NULL;
    p->ctx_free = NULL;
    /* The callback may open another prompt (secret name, then value) and pass ctx on. */
    if (done)
        done(ui, ctx, ok, text);
    p->editor_asked = false;
    explicit_bzero(text, sizeof text);
    if (ctx && ctx_free && !(p->active && p->ctx == ctx))
        ctx_free(ctx);
    ui->dirty = true;
}

void prompt_key(struct ui *ui, int key)
{
    struct prompt *p = &ui->prompt;
    bool changed = false;
    p->hint[0] = '\0';
    if (p->on_key && p->on_key(ui, p->ctx, key)) {
        p->selected = false;
        ui->dirty = true;
        return;
    }
    if (p->selected && !(p->multiline && key == KEYC_CTRL('d'))) {
        p->selected = false;
        ui->dirty = true;
        switch (key) {
        case KEYC_ENTER:
        case KEYC_ESC:
        case KEYC_CTRL('e'): break; /* taken as it is, or cancelled */
        case KEYC_LEFT:
        case KEYC_RIGHT:
        case KEYC_HOME:
        case KEYC_END: return; /* kept, to be edited */
        case KEYC_BACKSPACE:
        case KEYC_DELETE:
            key = KEYC_CTRL('u'); /* the selection goes */
            break;
        default:
            if (key == KEYC_SPACE || (key >= ' ' && key < KEYC_SPECIAL))
                wipe(p); /* the first character typed replaces the default */
            break;
        }
    }
    if (p->multiline) {
        switch (key) {
        case KEYC_ENTER: key = '\n'; break;
        case KEYC_CTRL('d'): finish(ui, true); return;
        case KEYC_CTRL('e'):
            p->editor_asked = true;
            finish(ui, true);
            return;
        case KEYC_BACKSPACE:
            if (p->cur > 0)
                delete_back(p);
            if (p->on_change)
                p->on_change(ui, p->ctx, p->buf);
            ui->dirty = true;
            return;
        default:
            if (cursor_key(p, key)) {
                ui->dirty = true;
                return;
            }
            break;
        }
    } else {
        p->cur = p->len;
    }
    switch (key) {
    case KEYC_ENTER: finish(ui, true); return;
    case KEYC_ESC: finish(ui, false); return;
    case KEYC_BACKSPACE:
        /* On an empty line it stays: only Enter or Esc leave, so what is typed next is
         * never run as commands (a filter's "paused" would pause and extend). */
        backspace(p);
        changed = true;
        break;
    case KEYC_CTRL('u'):
        wipe(p);
        changed = true;
        break;
    case KEYC_CTRL('w'):
        while (p->len > 0 && p->buf[p->len - 1] == ' ')
            backspace(p);
        while (p->len > 0 && p->buf[p->len - 1] != ' ')
            backspace(p);
        changed = true;
        break;
    case KEYC_SPACE: key = ' '; /* fall through */
    default:
        if ((key == '\n' && p->multiline) ||
            (key >= ' ' && key < KEYC_SPECIAL && (key == ' ' || iswprint((wint_t)key)))) {
            char mb[MB_LEN_MAX];
            mbstate_t st;
            memset(&st, 0, sizeof st);
            size_t n = wcrtomb(mb, (wchar_t)key, &st);
            if (n != (size_t)-1 && p->len + n < sizeof p->buf) {
                size_t at = p->multiline ? p->cur : p->len; /* typed where the cursor is */
                memmove(p->buf + at + n, p->buf + at, p->len - at + 1);
                memcpy(p->buf + at, mb, n);
                p->len += n;
                p->cur = at + n;
                changed = true;
            }
        }
        break;
    }
    if (!p->multiline || p->cur > p->len)
        p->cur = p->len;
    if (changed) {
        if (p->on_change)
            p->on_change(ui, p->ctx, p->buf);
        ui->dirty = true;
    }
}

/* The message editor: its lines wrapped to the width, the cursor ('_') always among the
 * rows shown (the last ones, or up to the cursor's), over the rows above y; the keys on y. */
static void draw_multiline(struct prompt *p, int y, int w)
{
    enum { ROWS = 8, ROW_MAX = 1024 };
    int room = w - 2 > 1 ? w - 2 : 1; /* a leading space, and the cursor's column */
    size_t starts[ROW_MAX], ends[ROW_MAX];
    int nrows = 0, cur_row = 0;
    size_t at = 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    for (;;) { /* visual rows: a line's text, cut every room columns */
        size_t start = at;
        int cols = 0;
        while (at < p->len && p->buf[at] != '\n') {
            wchar_t wc;
            size_t n = mbrtowc(&wc, p->buf + at, p->len - at, &st);
            if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
                memset(&st, 0, sizeof st);
                n = 1, wc = '?';
            }
            int cw = wcwidth(wc) > 0 ? wcwidth(wc) : 1;
            if (cols + cw > room)
                break;
            cols += cw;
            at += n;
        }
        if (nrows == ROW_MAX) { /* keep the last rows */
            memmove(starts, starts + 1, (ROW_MAX - 1) * sizeof *starts);
            memmove(ends, ends + 1, (ROW_MAX - 1) * sizeof *ends);
            nrows--;
            cur_row--;
        }
        starts[nrows] = start;
        ends[nrows] = at;
        if (p->cur >= start && (p->cur < at || (p->cur == at && (at == p->len || p->buf[at] == '\n'))))
            cur_row = nrows;
        nrows++;
        if (at < p->len && p->buf[at] == '\n')
            at++;
        else if (at >= p->len)
            break;
    }
    if (p->len && p->buf[p->len - 1] == '\n' && p->cur == p->len)
        cur_row = nrows - 1;
    int first = nrows > ROWS ? nrows - ROWS : 0;
    if (cur_row < first)
        first = cur_row > 0 ? cur_row : 0;
    int shown = nrows - first < ROWS ? nrows - first : ROWS;
    int top = y - shown - 1;
    if (top < 1)
        top = 1;
    draw_text(top, 0, w, ROLE_DIALOG, p->label, true);
    for (int i = 0; i < shown && top + 1 + i < y; i++) {
        int r = first + i;
        size_t s0 = starts[r], e0 = ends[r];
        char line[sizeof p->buf + 4];
        if (r == cur_row) {
            size_t c = p->cur < s0 ? s0 : p->cur > e0 ? e0 : p->cur;
            snprintf(line, sizeof line, " %.*s_%.*s", (int)(c - s0), p->buf + s0, (int)(e0 - c),
                     p->buf + c);
        } else {
            snprintf(line, sizeof line, " %.*s", (int)(e0 - s0), p->buf + s0);
        }
        draw_text(top + 1 + i, 0, w, ROLE_NORMAL, line, true);
    }
    draw_text(y, 0, w, ROLE_DIALOG,
              " Enter: new line   ctrl-d: send   ctrl-e: edit in $EDITOR   Esc: cancel", true);
}

/* The label, then the default highlighted as a selection (each part sanitised: the label
 * and the default may hold names from metadata). */
static void draw_selected(const char *label, const char *text, const char *hint, int y, int w)
{
    char *l = e2b_sanitize_display(label, strlen(label), 0);
    char *t = e2b_sanitize_display(text, strlen(text), 0);
    char *h = *hint ? e2b_sanitize_display(hint, strlen(hint), 0) : NULL;
    int lw = l ? text_width(l) : 0, tw = t ? text_width(t) : 0;
    draw_text(y, 0, w, ROLE_NORMAL, l ? l : "", true);
    if (lw < w && t)
        draw_text(y, lw, w - lw, ROLE_SELECTED, t, false);
    if (h && lw + tw + 3 < w) /* the hint after the default, as after typed text */
        draw_text(y, lw + tw + 3, w - lw - tw - 3, ROLE_NORMAL, h, false);
    free(l);
    free(t);
    free(h);
}

void prompt_draw(struct ui *ui, int y, int w)
{
    struct prompt *p = &ui->prompt;
    if (p->multiline) {
        draw_multiline(p, y, w);
        return;
    }
    char line[sizeof p->buf + sizeof p->label + sizeof p->hint + 32];
    if (p->hidden)
        snprintf(line, sizeof line, "%s%s", p->label,
                 p->len ? "(typing hidden; Enter: done, Esc: cancel)" : "");
    else {
        /* Show the end of the text when it is wider than the line. */
        const char *shown = p->buf;
        int room = w - text_width(p->label) - 1;
        while (room > 0 && text_width(shown) > room) {
            shown++;
            while ((*shown & 0xC0) == 0x80)
                shown++;
        }
        if (p->selected) {
            draw_selected(p->label, shown, p->hint, y, w);
            return;
        }
        snprintf(line, sizeof line, "%s%s_%s%s", p->label, shown, p->hint[0] ? "   " : "",
                 p->hint);
    }
    /* Tab completes sandbox names from metadata into the text and the hint: sanitised. */
    char *safe = e2b_sanitize_display(line, strlen(line), 0);
    draw_text(y, 0, w, ROLE_NORMAL, safe ? safe : "", true);
    free(safe);
}
