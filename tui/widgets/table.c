#include "tui/widgets/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util/sanitize.h"
#include "tui/widgets/textwidth.h"

void table_init(struct table *t, const struct table_column *cols, int ncols)
{
    memset(t, 0, sizeof *t);
    t->cols = cols;
    t->ncols = ncols;
    t->sort_col = -1;
    t->content_width = calloc((size_t)ncols, sizeof *t->content_width);
}

static void free_rows(struct table_row *rows, size_t n, int ncols)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].id);
        if (rows[i].cells) {
            for (int c = 0; c < ncols; c++)
                free(rows[i].cells[c]);
        }
        free(rows[i].cells);
        free(rows[i].widths);
    }
    free(rows);
}

void table_free(struct table *t)
{
    free_rows(t->rows, t->nrows, t->ncols);
    free(t->visible);
    free(t->content_width);
    free(t->filter);
    free(t->selected_id);
    memset(t, 0, sizeof *t);
}

static char *san(const char *s)
{
    if (!s)
        s = "";
    return e2b_sanitize_display(s, strlen(s), 0);
}

static void remember_selection(struct table *t)
{
    const struct table_row *r = table_selected(t);
    if (!r)
        return;
    if (t->selected_id && strcmp(t->selected_id, r->id) == 0)
        return;
    char *id = strdup(r->id);
    if (id) {
        free(t->selected_id);
        t->selected_id = id;
    }
}

static bool row_matches(const struct table *t, const struct table_row *r)
{
    if (!t->filter || !*t->filter)
        return true;
    for (int c = 0; c < t->ncols; c++) {
        if (strcasestr(r->cells[c], t->filter))
            return true;
    }
    return strcasestr(r->id, t->filter) != NULL;
}

/* qsort has no context argument; the table being sorted is only ever touched by the one
 * UI thread. */
static const struct table *sort_table;

/* A figure's band: each half as wide again as the one below (1, 1.5, 2.25, ... 985M to
 * 1477M), so that usage moving a little (310M to 330M) keeps a row where it is. */
static int band(double v)
{
    int b = 0;
    if (v < 1)
        return v < 0 ? -1 : 0;
    for (b = 1; v >= 1.5 && b < 200; b++)
        v /= 1.5;
    return b;
}

static int compare_rows(const void *a, const void *b)
{
    size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
    const struct table *t = sort_table;
    int c = t->sort_col, r = 0;
    const char *x = t->rows[ia].cells[c], *y = t->rows[ib].cells[c];
    bool numbers = false;
    if (t->cols[c].numeric) {
        char *ex, *ey;
        double dx = strtod(x, &ex), dy = strtod(y, &ey);
        bool nx = ex != x, ny = ey != y;
        numbers = nx && ny;
        if (numbers)
            r = (band(dx) > band(dy)) - (band(dx) < band(dy));
        else
            r = (int)ny - (int)nx; /* numbers first */
    }
    if (r == 0 && !numbers)
        r = strcasecmp(x, y);
    if (t->sort_desc)
        r = -r;
    /* Ties: by the first column (the name), then in arrival order (stable). */
    if (r == 0 && c != 0)
        r = strcasecmp(t->rows[ia].cells[0], t->rows[ib].cells[0]);
    if (r == 0)
        r = (ia > ib) - (ia < ib);
    return r;
}

/* Rebuilds the visible list and puts the cursor back on the selected id. */
static void rebuild(struct table *t, size_t old_cursor)
{
    t->nvisible = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        if (row_matches(t, &t->rows[i]))
            t->visible[t->nvisible++] = i;
    }
    if (t->sort_col >= 0 && t->nvisible > 1) {
        sort_table = t;
        qsort(t->visible, t->nvisible, sizeof *t->visible, compare_rows);
        sort_table = NULL;
    }
    bool found = false;
    if (t->selected_id) {
        for (size_t i = 0; i < t->nvisible; i++) {
            if (strcmp(t->rows[t->visible[i]].id, t->selected_id) == 0) {
                t->cursor = i;
                found = true;
                break;
            }
        }
    }
    if (!found) {
        t->cursor = old_cursor;
        if (t->cursor >= t->nvisible)
            t->cursor = t->nvisible ? t->nvisible - 1 : 0;
        remember_selection(t);
    }
}

/* Does in hold the same ids, in the same order, as the stored rows? A stored id is the
 * sanitised raw id, so a raw id equal to it is the same row. */
static bool same_ids(const struct table *t, const struct table_row_in *in, size_t n)
{
    if (n != t->nrows)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(t->rows[i].id, in[i].id ? in[i].id : "") != 0)
            return false;
    }
    return true;
}

/* Replaces one stored cell with the sanitised raw text when it differs. Returns 1 when it
 * changed, 0 when equal, -1 when out of memory (the old text stays). */
static int update_cell(struct table_row *r, int c, const char *raw)
{
    if (!raw)
        raw = "";
    if (strcmp(r->cells[c], raw) == 0)
        return 0;
    char *s = san(raw);
    if (!s)
        return -1;
    if (strcmp(r->cells[c], s) == 0) { /* the raw text only differed before sanitising */
        free(s);
        return 0;
    }
    free(r->cells[c]);
    r->cells[c] = s;
    r->widths[c] = text_width(s);
    return 1;
}

static void recompute_content_width(struct table *t)
{
    for (int c = 0; c < t->ncols; c++)
        t->content_width[c] = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        for (int c = 0; c < t->ncols; c++) {
            if (t->rows[i].widths[c] > t->content_width[c])
                t->content_width[c] = t->rows[i].widths[c];
        }
    }
}

/* The in-place refresh: same rows, some cells changed. */
static int update_in_place(struct table *t, const struct table_row_in *in, size_t *changed)
{
    size_t nchanged = 0;
    bool moved = false, oom = false, width_changed = false;
    for (size_t i = 0; i < t->nrows; i++) {
        struct table_row *r = &t->rows[i];
        bool row_changed = false;
        for (int c = 0; c < t->ncols; c++) {
            int old_width = r->widths[c];
            int u = update_cell(r, c, in[i].cells ? in[i].cells[c] : NULL);
            if (u < 0) {
                oom = true;
            } else if (u > 0) {
                row_changed = true;
                if (c == t->sort_col)
                    moved = true;
                if (r->widths[c] != old_width)
                    width_changed = true;
            }
        }
        if (row_changed) {
            nchanged++;
            if (t->filter && *t->filter)
                moved = true; /* the row may now match, or no longer */
        }
    }
    if (width_changed)
        recompute_content_width(t);
    if (moved)
        rebuild(t, t->cursor);
    if (changed)
        *changed = nchanged;
    return oom ? -1 : 0;
}

int table_set_cell(struct table *t, size_t row, int col, const char *text)
{
    if (row >= t->nrows || col < 0 || col >= t->ncols)
        return -1;
    struct table_row *r = &t->rows[row];
    int old_width = r->widths[col];
    int u = update_cell(r, col, text);
    if (u <= 0)
        return u;
    if (r->widths[col] > t->content_width[col])
        t->content_width[col] = r->widths[col];
    else if (old_width == t->content_width[col] && r->widths[col] < old_width)
        recompute_content_width(t); /* it may have been the widest */
    if (col == t->sort_col || (t->filter && *t->filter))
        rebuild(t, t->cursor);
    return 1;
}

int table_update_rows(struct table *t, const struct table_row_in *in, size_t n, size_t *changed)
{
    if (t->nrows > 0 && same_ids(t, in, n))
        return update_in_place(t, in, changed);
    /* Rows came, went or moved: rebuild everything (the previous content still counts as
     * changed, even when the new list happens to be empty). */
    if (changed)
        *changed = n > t->nrows ? n : t->nrows;
    if (n == 0 && t->nrows == 0 && changed)
        *changed = 0;
    return table_set_rows(t, in, n);
}

int table_set_rows(struct table *t, const struct table_row_in *in, size_t n)
{
    struct table_row *rows = calloc(n ? n : 1, sizeof *rows);
    size_t *visible = malloc((n ? n : 1) * sizeof *visible);
    int *cw = calloc((size_t)t->ncols, sizeof *cw);
    if (!rows || !visible || !cw)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        rows[i].id = san(in[i].id);
        rows[i].cells = calloc((size_t)t->ncols, sizeof *rows[i].cells);
        rows[i].widths = calloc((size_t)t->ncols, sizeof *rows[i].widths);
        if (!rows[i].id || !rows[i].cells || !rows[i].widths)
            goto oom;
        /* A refresh mostly repeats the same rows in the same order: an unchanged cell is
         * reused. Stored cells are sanitised, so a raw cell equal to one is safe as is. */
        struct table_row *old =
            i < t->nrows && strcmp(t->rows[i].id, rows[i].id) == 0 ? &t->rows[i] : NULL;
        for (int c = 0; c < t->ncols; c++) {
            const char *raw = in[i].cells && in[i].cells[c] ? in[i].cells[c] : "";
            if (old && old->cells[c] && strcmp(old->cells[c], raw) == 0) {
                rows[i].cells[c] = strdup(old->cells[c]);
                rows[i].widths[c] = old->widths[c];
            } else {
                rows[i].cells[c] = san(raw);
                if (rows[i].cells[c])
                    rows[i].widths[c] = text_width(rows[i].cells[c]);
            }
            if (!rows[i].cells[c])
                goto oom;
            if (rows[i].widths[c] > cw[c])
                cw[c] = rows[i].widths[c];
        }
    }
    free_rows(t->rows, t->nrows, t->ncols);
    free(t->visible);
    free(t->content_width);
    t->rows = rows;
    t->nrows = n;
    t->visible = visible;
    t->content_width = cw;
    rebuild(t, t->cursor);
    return 0;
oom:
    free_rows(rows, rows ? n : 0, t->ncols);
    free(visible);
    free(cw);
    return -1;
}

int table_set_filter(struct table *t, const char *filter)
{
    char *f = NULL;
    if (filter && *filter) {
        f = san(filter);
        if (!f)
            return -1;
    }
    free(t->filter);
    t->filter = f;
    rebuild(t, t->cursor);
    return 0;
}

int table_sort_by_letter(struct table *t, char letter)
{
    char l = (char)(letter >= 'a' && letter <= 'z' ? letter - 'a' + 'A' : letter);
    for (int c = 0; c < t->ncols; c++) {
        char cl = t->cols[c].sort_letter;
        if (cl >= 'a' && cl <= 'z')
            cl = (char)(cl - 'a' + 'A');
        if (cl && cl == l) {
            if (t->sort_col == c) {
                t->sort_desc = !t->sort_desc;
            } else {
                t->sort_col = c;
                t->sort_desc = false;
            }
            rebuild(t, t->cursor);
            return c;
        }
    }
    return -1;
}

int table_sort_step(struct table *t, int dir, const int *shown)
{
    int c = t->sort_col;
    for (int n = 0; n <= t->ncols; n++) {
        /* -1 (the list's own order) sits between the last column and the first. */
        c += dir;
        if (c >= t->ncols)
            c = -1;
        else if (c < -1)
            c = t->ncols - 1;
        if (c == -1 || (t->cols[c].sort_letter && (!shown || shown[c])))
            break;
    }
    t->sort_col = c;
    t->sort_desc = false;
    rebuild(t, t->cursor);
    return c;
}

void table_sort_reverse(struct table *t)
{
    if (t->sort_col < 0)
        return;
    t->sort_desc = !t->sort_desc;
    rebuild(t, t->cursor);
}

void table_move_to(struct table *t, size_t index)
{
    if (t->nvisible == 0) {
        t->cursor = 0;
        return;
    }
    t->cursor = index >= t->nvisible ? t->nvisible - 1 : index;
    remember_selection(t);
}

void table_move(struct table *t, long delta)
{
    long c = (long)t->cursor + delta;
    if (c < 0)
        c = 0;
    table_move_to(t, (size_t)c);
}

const struct table_row *table_selected(const struct table *t)
{
    if (t->nvisible == 0 || t->cursor >= t->nvisible)
        return NULL;
    return &t->rows[t->visible[t->cursor]];
}

void table_scroll(struct table *t, int height)
{
    if (height < 1)
        height = 1;
    size_t h = (size_t)height;
    if (t->cursor < t->top)
        t->top = t->cursor;
    else if (t->cursor >= t->top + h)
        t->top = t->cursor - h + 1;
    /* No empty space below the last row when rows were removed. */
    if (t->nvisible <= h)
        t->top = 0;
    else if (t->top > t->nvisible - h)
        t->top = t->nvisible - h;
}

void table_layout(const struct table *t, int width, int *widths)
{
    int total = 0;
    for (int c = 0; c < t->ncols; c++) {
        const struct table_column *col = &t->cols[c];
        if (t->drop && t->drop[c] < 0) { /* hidden whatever the width */
            widths[c] = 0;
            continue;
        }
        int w = text_width(col->title) + 2; /* room for the sort mark */
        if (t->content_width[c] > w)
            w = t->content_width[c];
        if (w < col->min_width)
            w = col->min_width;
        if (col->max_width && w > col->max_width)
            w = col->max_width;
        widths[c] = w;
        total += w + (c > 0);
    }
    /* Too wide: the columns the view lets squeeze go down to that width first. */
    for (int c = 0; t->squeeze && total > width && c < t->ncols; c++) {
        int cut = t->squeeze[c] > 0 && widths[c] > t->squeeze[c] ? widths[c] - t->squeeze[c] : 0;
        if (cut > total - width)
            cut = total - width;
        widths[c] -= cut;
        total -= cut;
    }
    /* Too wide: hide the least useful columns first (highest drop rank), so that what is
     * left (the name, the id) stays whole. */
    while (total > width) {
        int worst = -1;
        for (int c = 0; c < t->ncols; c++) {
            if (t->drop && widths[c] > 0 && t->drop[c] > 0 &&
                (worst < 0 || t->drop[c] > t->drop[worst]))
                worst = c;
        }
        if (worst < 0)
            break;
        total -= widths[worst] + 1;
        widths[worst] = 0;
    }
    /* Still too wide: narrow the widest column one step at a time, down to 3 columns each. */
    while (total > width) {
        int widest = -1;
        for (int c = 0; c < t->ncols; c++) {
            if (widths[c] > 3 && (widest < 0 || widths[c] > widths[widest]))
                widest = c;
        }
        if (widest < 0)
            break;
        widths[widest]--;
        total--;
    }
    /* Spare width: first to the columns cut by their max_width (the flex column first), up
     * to their content (twice max_width at most); then up to two more blanks after each column, so that the columns
     * stay readable apart. The flex column no longer swallows the rest (a short NAME on a
     * wide terminal left STATE and ENDS far off at the right edge); the rest stays blank. */
    for (int pass = 0; pass < 2 && total < width; pass++) {
        for (int c = 0; c < t->ncols && total < width; c++) {
            if (t->cols[c].flex != (pass == 0) || widths[c] == 0)
                continue;
            /* Within limits: a cut column grows to twice its max_width at most. */
            int want = t->content_width[c];
            if (t->cols[c].max_width && want > 2 * t->cols[c].max_width)
                want = 2 * t->cols[c].max_width;
            int more = want - widths[c];
            if (more > width - total)
                more = width - total;
            if (more > 0) {
                widths[c] += more;
                total += more;
            }
        }
    }
    for (int gap = 0; gap < 2 && total < width; gap++) {
        for (int c = 0; c + 1 < t->ncols && total < width; c++) {
            if (widths[c] == 0)
                continue; /* hidden */
            widths[c]++;
            total++;
        }
    }
}

const char *table_cell_fit(const struct table *t, const struct table_row *row, int col,
                           int width, char *buf, size_t bufsz)
{
    const char *text = row->cells[col];
    if (row->widths[col] <= width || !t->fit || col != t->fit_col)
        return text;
    return t->fit(text, width, buf, bufsz);
}

int table_column_x(const struct table *t, const int *widths, int col)
{
    int x = 0;
    for (int c = 0; c < col && c < t->ncols; c++)
        x += widths[c] ? widths[c] + 1 : 0; /* each shown column and its gap */
    return x;
}

void table_format_line(const struct table *t, const struct table_row *row, const int *widths,
                       int width, char *buf, size_t bufsz)
{
    size_t pos = 0;
    int used = 0;
    buf[0] = '\0';
    bool first = true;
    for (int c = 0; c < t->ncols && used < width; c++) {
        int w = widths[c];
        if (w == 0)
            continue; /* hidden on a narrow screen */
        if (!first) {
            if (pos + 2 > bufsz)
                break;
            buf[pos++] = ' ';
            buf[pos] = '\0';
            used++;
        }
        first = false;
        if (used + w > width)
            w = width - used;
        const char *text;
        char title[128], shorter[128];
        if (row) {
            text = table_cell_fit(t, row, c, w, shorter, sizeof shorter);
        } else if (t->sort_col == c) {
            snprintf(title, sizeof title, "%s%s", t->cols[c].title,
                     MB_CUR_MAX > 1 ? (t->sort_desc ? "\xe2\x86\x93" : "\xe2\x86\x91")
                                    : (t->sort_desc ? "v" : "^"));
            text = title;
        } else {
            text = t->cols[c].title;
        }
        pos += text_cell(buf + pos, bufsz - pos, text, w);
        used += w;
    }
    /* Pad to the full width so a selected row is highlighted edge to edge. */
    while (used < width && pos + 1 < bufsz) {
        buf[pos++] = ' ';
        used++;
    }
    buf[pos] = '\0';
}
