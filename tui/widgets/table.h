/* The list/table model shared by the list views: rows with an id and cells, a filter, a
 * sort column, and a cursor that stays on the same row (by id) across refreshes, sorts and
 * filters. Pure: no curses (tui/widgets/list.c draws it), so tests/unit can check it.
 *
 * Ownership: the table copies everything it is given. Cells are passed through
 * e2b_sanitize_display() on the way in, so nothing stored here can reach the terminal with a
 * control or escape sequence in it. Column descriptions are borrowed (static tables). */
#ifndef E2B_TUI_TABLE_H
#define E2B_TUI_TABLE_H

#include <stdbool.h>
#include <stddef.h>

struct table_column {
    const char *title;
    char sort_letter; /* sortable (< and >; a click on the header); 0 = not sortable */
    int min_width;
    int max_width; /* 0 = no limit */
    bool numeric;  /* sort by numeric value */
    bool flex;     /* takes the spare width */
};

/* One row handed to table_set_rows: id (unique) and ncols cells (NULL means ""). */
struct table_row_in {
    const char *id;
    const char *const *cells;
};

struct table_row {
    char *id;
    char **cells;
    int *widths; /* display width of each cell */
};

struct table {
    const struct table_column *cols;
    int ncols;
    struct table_row *rows;
    size_t nrows;
    size_t *visible; /* indexes into rows, filtered and sorted */
    size_t nvisible;
    int *content_width; /* widest cell per column over all rows */
    char *filter;       /* NULL or "" = no filter */
    int sort_col;       /* -1 = arrival order */
    bool sort_desc;
    size_t cursor; /* index into visible */
    size_t top;    /* first visible row drawn */
    char *selected_id;
    /* Drop ranks per column (borrowed, NULL = none): too narrow a screen hides the column
     * with the highest rank first; 0 = never hidden (what users read and copy); < 0 =
     * hidden whatever the width (a column with nothing to say now). */
    const int *drop;
    /* Widths a column may be narrowed to before any column is hidden (borrowed, NULL or 0 =
     * none): a view that has more to show (the Boxes view's GROUP) squeezes AGENT, whose
     * fit keeps its meaning ("idle 1m done"), rather than hide a column. */
    const int *squeeze;
    /* A shorter form of a cell of column fit_col wider than width (into buf; returns buf or
     * the text), tried before the cell is cut with an ellipsis; NULL = cut only. */
    const char *(*fit)(const char *text, int width, char *buf, size_t bufsz);
    int fit_col;
};

void table_init(struct table *t, const struct table_column *cols, int ncols);
void table_free(struct table *t);

/* Replaces all rows (a refresh). The cursor stays on the row with the same id when it is
 * still there; otherwise it keeps its position, clamped. Returns 0, or -1 when out of
 * memory (the old rows stay). */
int table_set_rows(struct table *t, const struct table_row_in *rows, size_t n);

/* A refresh that touches only what changed: when in holds the same ids in the same order
 * as the stored rows, only the cells that differ are replaced, and the visible order is
 * rebuilt only when a changed cell can move a row (the sort column, or any change while a
 * filter is set). Otherwise it is table_set_rows. *changed (may be NULL) is the number of
 * rows whose cells changed (every row, old or new, when rows came, went or moved; 0 when
 * nothing changed, so the caller can skip the frame). Returns 0, or -1 when out of memory
 * (every stored cell stays valid: a cell that could not be replaced keeps its old text). */
int table_update_rows(struct table *t, const struct table_row_in *rows, size_t n,
                      size_t *changed);

/* Sets one cell of stored row `row` (an index into rows) to the sanitised text; the
 * visible order is rebuilt only when that can move the row. Returns 1 when the cell
 * changed, 0 when it already held that text, -1 when out of memory or out of range. */
int table_set_cell(struct table *t, size_t row, int col, const char *text);

/* Case-insensitive substring filter over every cell; NULL or "" clears it. */
int table_set_filter(struct table *t, const char *filter);

/* Sorts by the column whose sort_letter is letter (case-insensitive); the same letter again
 * reverses the order. Returns the column index, or -1 if no column has that letter. */
int table_sort_by_letter(struct table *t, char letter);

/* Sorts by the next (dir 1) or previous (dir -1) sortable column, ascending; past the last
 * the rows go back to arrival order (-1). shown (may be NULL): the layout's widths, whose
 * hidden (0) columns are passed over. Returns the new sort column or -1. Rows that tie
 * go by the first column (the name); a numeric column compares figures by bands half as
 * wide again as the one below, so small changes do not move rows. */
int table_sort_step(struct table *t, int dir, const int *shown);
/* The other order of the sort column (nothing without one). */
void table_sort_reverse(struct table *t);

/* Cursor movement, clamped to the visible rows. */
void table_move(struct table *t, long delta);
void table_move_to(struct table *t, size_t index);

/* The selected row, or NULL when nothing is visible. */
const struct table_row *table_selected(const struct table *t);

/* Adjusts t->top so that the cursor is on screen with height rows. */
void table_scroll(struct table *t, int height);

/* Column widths for a screen width: each column gets its wanted width (title or content,
 * within min/max); when they do not fit the widest are narrowed. Spare space first lets a
 * column cut by its max_width show its whole content (the flex column first), then widens
 * the gaps between columns to at most three blanks; the rest stays blank at the right.
 * Before anything is narrowed, columns with a drop rank are hidden (width 0), the highest
 * rank first, until the rest fits whole. Columns are separated by one space. widths has
 * ncols entries. */
void table_layout(const struct table *t, int width, int *widths);

/* The text a cell shows in width columns: the table's shorter form (fit) when it is wider (the
 * caller still cuts it to width). */
const char *table_cell_fit(const struct table *t, const struct table_row *row, int col,
                           int width, char *buf, size_t bufsz);

/* The screen column where column col starts in a line of these widths (hidden columns take
 * no room, not even their gap). */
int table_column_x(const struct table *t, const int *widths, int col);

/* Formats one line (a row, or the header when row is NULL) into buf: exactly `width`
 * columns, cells cut with an ellipsis (after their column's shorter form). The header marks the sort column with its order. */
void table_format_line(const struct table *t, const struct table_row *row, const int *widths,
                       int width, char *buf, size_t bufsz);

#endif
