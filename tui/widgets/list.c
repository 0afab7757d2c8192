/* The list widget: movement, filter, sort and drawing of a view's table. Draws only the
 * rows on screen, so thousands of rows cost no more than a screenful. */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/log.h"
#include "tui/term/keys.h"
#include "tui/term/term.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/list.h"
#include "tui/widgets/textwidth.h"

/* Rows on screen for the list body (the header takes one line); set by list_draw. */
static int page_rows(void)
{
    int h = LINES - 4; /* the body (minus tabs, header, status) less one row of overlap */
    return h > 1 ? h : 1;
}

struct view *list_view_new(const struct view_ops *ops, const struct table_column *cols, int ncols,
                           const char *empty_text)
{
    struct view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->ops = ops;
    v->has_table = true;
    table_init(&v->table, cols, ncols);
    v->empty_text = empty_text;
    return v;
}

void list_view_destroy(struct view *v)
{
    table_free(&v->table);
    free(v->priv);
    free(v);
}

int list_set_rows(struct view *v, struct ui *ui, const struct table_row_in *rows, size_t n)
{
    size_t changed = 0;
    if (table_update_rows(&v->table, rows, n, &changed) != 0)
        return -1;
    if (changed || !v->loaded)
        ui->dirty = true;
    return 0;
}

/* The filter prompt's context is the view it filters. */
static void filter_changed(struct ui *ui, void *ctx, const char *text)
{
    struct view *v = ctx;
    table_set_filter(&v->table, text);
    ui->dirty = true;
}

static void filter_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct view *v = ctx;
    table_set_filter(&v->table, ok ? text : NULL);
    ui->dirty = true;
}

/* The status line says the new order (the header marks its column). */
static void sort_said(struct view *v, struct ui *ui)
{
    const struct table *t = &v->table;
    if (t->sort_col < 0)
        ui_flash(ui, FLASH_INFO, "unsorted: the list's own order");
    else
        ui_flash(ui, FLASH_INFO, "sorted by %s (%s)", t->cols[t->sort_col].title,
                 t->sort_desc ? "descending" : "ascending");
}

bool list_act(struct view *v, struct ui *ui, enum action_id a)
{
    struct table *t = &v->table;
    switch (a) {
    case ACT_MOVE_UP: table_move(t, -1); break;
    case ACT_MOVE_DOWN: table_move(t, 1); break;
    case ACT_PAGE_UP: table_move(t, -page_rows()); break;
    case ACT_PAGE_DOWN: table_move(t, page_rows()); break;
    case ACT_HALF_UP: table_move(t, -(page_rows() + 1) / 2); break;
    case ACT_HALF_DOWN: table_move(t, (page_rows() + 1) / 2); break;
    case ACT_FIRST: table_move_to(t, 0); break;
    case ACT_LAST: table_move_to(t, t->nvisible ? t->nvisible - 1 : 0); break;
    case ACT_FILTER:
        prompt_open(ui, "/", false, t->filter ? t->filter : "", filter_changed, filter_done, v,
                    NULL);
        break;
    case ACT_SORT_NEXT:
    case ACT_SORT_PREV: {
        int widths[32];
        if (t->ncols > 32)
            return false;
        /* a column hidden on this screen is passed over */
        table_layout(t, v->w_shown > 0 ? v->w_shown : COLS, widths);
        table_sort_step(t, a == ACT_SORT_NEXT ? 1 : -1, widths);
        sort_said(v, ui);
        break;
    }
    case ACT_SORT_REVERSE:
        if (t->sort_col < 0) {
            ui_flash(ui, FLASH_INFO, "no sort to reverse: > sorts by a column");
            return true;
        }
        table_sort_reverse(t);
        sort_said(v, ui);
        break;
    case ACT_BACK:
        if (!t->filter)
            return false;
        table_set_filter(t, NULL);
        ui_flash(ui, FLASH_INFO, "filter cleared");
        break;
    default: return false;
    }
    ui->dirty = true;
    return true;
}

bool list_move_act(struct view *v, struct ui *ui, enum action_id a)
{
    switch (a) {
    case ACT_MOVE_UP:
    case ACT_MOVE_DOWN:
    case ACT_PAGE_UP:
    case ACT_PAGE_DOWN:
    case ACT_HALF_UP:
    case ACT_HALF_DOWN:
    case ACT_FIRST:
    case ACT_LAST: return list_act(v, ui, a);
    default: return false;
    }
}

bool list_sort_key(struct view *v, struct ui *ui, int key)
{
    if (!v->has_table || key < 'A' || key > 'Z')
        return false;
    if (table_sort_by_letter(&v->table, (char)key) < 0)
        return false;
    sort_said(v, ui);
    ui->dirty = true;
    return true;
}

/* E2B_TUI_DEBUG_PAINT=1 (tests): each drawn list logs how many of its lines differ from
 * the last frame's, i.e. the rows ncurses sends to the terminal. A hash per screen line. */
enum { PAINT_LINES = 512 };
static struct {
    int enabled; /* -1: not read yet */
    unsigned long long hash[PAINT_LINES];
} paint = {.enabled = -1};

static unsigned long long line_hash(const char *text, int role)
{
    unsigned long long h = 1469598103934665603ULL ^ (unsigned)role;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

/* Counts line y as painted when its text or role changed since the last frame. */
static void paint_note(int y, const char *text, int role, int *changed)
{
    if (!paint.enabled || y < 0 || y >= PAINT_LINES)
        return;
    unsigned long long h = line_hash(text, role);
    if (paint.hash[y] != h) {
        paint.hash[y] = h;
        (*changed)++;
    }
}

void list_draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    if (paint.enabled < 0) {
        const char *e = getenv("E2B_TUI_DEBUG_PAINT");
        paint.enabled = e && strcmp(e, "1") == 0;
    }
    int painted = 0, drawn = 0;
    struct table *t = &v->table;
    if (h < 2 || w < 1)
        return;
    int widths[32];
    if (t->ncols > 32)
        return;
    /* 4 bytes per column is the most a UTF-8 character takes, plus padding. */
    size_t bufsz = (size_t)w * 4 + 64;
    char *line = malloc(bufsz);
    if (!line)
        return;
    table_layout(t, w, widths);
    table_format_line(t, NULL, widths, w, line, bufsz);
    draw_text(y, x, w, ROLE_HEADER, line, true);
    int body = h - 1;
    v->rows_shown = body;
    v->x_shown = x;
    v->w_shown = w;
    table_scroll(t, body);
    if (t->nvisible == 0) {
        const char *msg = NULL;
        char buf[320];
        if (t->nrows > 0 && t->filter) {
            snprintf(buf, sizeof buf, "No row matches the filter \"%s\" (Esc clears it).",
                     t->filter);
            msg = buf;
        } else {
            msg = v->empty_text;
        }
        if (msg)
            draw_text(y + 2, x + 2, w - 2, ROLE_DIM, msg, false);
    }
    for (int i = 0; i < body && t->top + (size_t)i < t->nvisible; i++) {
        size_t vi = t->top + (size_t)i;
        const struct table_row *r = &t->rows[t->visible[vi]];
        table_format_line(t, r, widths, w, line, bufsz);
        int role = vi == t->cursor ? ROLE_SELECTED : v->dim ? ROLE_DIM : ROLE_NORMAL;
        draw_text(y + 1 + i, x, w, role, line, true);
        paint_note(y + 1 + i, line, role, &painted);
        drawn++;
    }
    /* Lines below the last row are blank now (fewer rows than before). */
    for (int i = drawn; paint.enabled && i < body; i++)
        paint_note(y + 1 + i, "", ROLE_NORMAL, &painted);
    if (paint.enabled)
        e2b_logf("paint: %d of %d list rows changed", painted, body);
    free(line);
}
