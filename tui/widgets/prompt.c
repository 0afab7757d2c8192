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
    p->len = 0;
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
    p->len = strlen(p->buf);
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
        default: break;
        }
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
                memcpy(p->buf + p->len, mb, n);
                p->len += n;
                p->buf[p->len] = '\0';
                changed = true;
            }
        }
        break;
    }
    if (changed) {
        if (p->on_change)
            p->on_change(ui, p->ctx, p->buf);
        ui->dirty = true;
    }
}

/* The message editor: its last lines over the rows above y, the keys on y. */
static void draw_multiline(struct prompt *p, int y, int w)
{
    enum { ROWS = 8 };
    const char *start[ROWS + 1];
    int n = 0;
    const char *s = p->buf;
    start[n++] = s;
    for (const char *q = s; *q; q++) {
        if (*q != '\n')
            continue;
        if (n == ROWS + 1) {
            memmove(start, start + 1, ROWS * sizeof *start);
            n--;
        }
        start[n++] = q + 1;
    }
    int top = y - n - 1;
    if (top < 1)
        top = 1;
    draw_text(top, 0, w, ROLE_DIALOG, p->label, true);
    for (int i = 0; i < n && top + 1 + i < y; i++) {
        const char *e = strchr(start[i], '\n');
        size_t len = e ? (size_t)(e - start[i]) : strlen(start[i]);
        char line[sizeof p->buf + 2];
        snprintf(line, sizeof line, " %.*s%s", (int)len, start[i], i == n - 1 ? "_" : "");
        draw_text(top + 1 + i, 0, w, ROLE_NORMAL, line, true);
    }
    draw_text(y, 0, w, ROLE_DIALOG,
              " Enter: new line   ctrl-d: send   ctrl-e: edit in $EDITOR   Esc: cancel", true);
}

/* The label, then the default highlighted as a selection (each part sanitised: the label
 * and the default may hold names from metadata). */
static void draw_selected(const char *label, const char *text, int y, int w)
{
    char *l = e2b_sanitize_display(label, strlen(label), 0);
    char *t = e2b_sanitize_display(text, strlen(text), 0);
    int lw = l ? text_width(l) : 0;
    draw_text(y, 0, w, ROLE_NORMAL, l ? l : "", true);
    if (lw < w && t)
        draw_text(y, lw, w - lw, ROLE_SELECTED, t, false);
    free(l);
    free(t);
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
            draw_selected(p->label, shown, y, w);
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
