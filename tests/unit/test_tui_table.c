/* Text width measurement (tui/widgets/textwidth.c) and the list model (tui/widgets/table.c): wide
 * characters, truncation, filter, sort and a cursor that follows its row by id. Both files
 * are curses-free and compiled into this test directly (tests/unit links only libraries). */
#include "tests/lib/harness.h"

#include "tui/widgets/table.c"
#include "tui/widgets/textwidth.c"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

static void test_width_ascii_cjk_emoji(void)
{
    CHECK_INT_EQ(text_width("box-1"), 5);
    CHECK_INT_EQ(text_width("\xe6\x97\xa5\xe6\x9c\xac"), 4);   /* 日本 */
    CHECK_INT_EQ(text_width("\xf0\x9f\x98\x80"), 2);           /* 😀 */
    CHECK_INT_EQ(text_width("e\xcc\x81"), 1);                  /* e + combining acute */
    CHECK_INT_EQ(text_width(""), 0);
}

static void test_fit_never_splits_wide_chars(void)
{
    int used;
    /* "a日本": a=1, 日=2: three columns fit "a日", two columns only "a". */
    CHECK_INT_EQ(text_fit("a\xe6\x97\xa5\xe6\x9c\xac", 3, &used), 4);
    CHECK_INT_EQ(used, 3);
    CHECK_INT_EQ(text_fit("a\xe6\x97\xa5\xe6\x9c\xac", 2, &used), 1);
    CHECK_INT_EQ(used, 1);
}

static void test_cell_pads_and_truncates(void)
{
    char out[64];
    text_cell(out, sizeof out, "abc", 5);
    CHECK_STR_EQ(out, "abc  ");
    text_cell(out, sizeof out, "abcdefgh", 5);
    CHECK_STR_EQ(out, "abcd\xe2\x80\xa6"); /* "abcd…" */
    CHECK_INT_EQ(text_width(out), 5);
    /* 日本語 (6 columns) in 4: "日" + "…" = 3 columns, then one space. */
    text_cell(out, sizeof out, "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 4);
    CHECK_STR_EQ(out, "\xe6\x97\xa5\xe2\x80\xa6 ");
    CHECK_INT_EQ(text_width(out), 4);
    text_cell(out, sizeof out, "\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 3); /* 😀😀 in 3 */
    CHECK_STR_EQ(out, "\xf0\x9f\x98\x80\xe2\x80\xa6");
    text_cell(out, sizeof out, "abc", 0);
    CHECK_STR_EQ(out, "");
    /* A too-small buffer is cut, never overrun. */
    char small[4];
    text_cell(small, sizeof small, "abcdef", 6);
    CHECK_INT_EQ(strlen(small), 3);
}

static const struct table_column COLS[] = {
    {"NAME", 'N', 4, 30, false, true},
    {"STATE", 'S', 5, 10, false, false},
    {"CPU", 'C', 3, 5, true, false},
};

static void fill(struct table *t, const char *spec[][4], size_t n)
{
    struct table_row_in in[16] = {{0}};
    for (size_t i = 0; i < n; i++) {
        in[i].id = spec[i][0];
        in[i].cells = &spec[i][1];
    }
    table_set_rows(t, in, n);
}

static const char *ROWS[][4] = {
    {"id-b", "beta", "running", "10"},
    {"id-a", "alpha", "paused", "2"},
    {"id-c", "gamma", "running", "100"},
};

static void test_sort_by_letter_and_reverse(void)
{
    struct table t;
    table_init(&t, COLS, 3);
    fill(&t, ROWS, 3);
    CHECK_STR_EQ(t.rows[t.visible[0]].id, "id-b"); /* arrival order */
    CHECK_INT_EQ(table_sort_by_letter(&t, 'N'), 0);
    CHECK_STR_EQ(t.rows[t.visible[0]].cells[0], "alpha");
    CHECK_STR_EQ(t.rows[t.visible[2]].cells[0], "gamma");
    CHECK_INT_EQ(table_sort_by_letter(&t, 'N'), 0); /* again: reversed */
    CHECK_STR_EQ(t.rows[t.visible[0]].cells[0], "gamma");
    CHECK_INT_EQ(table_sort_by_letter(&t, 'C'), 2); /* numeric, not "10" < "2" */
    CHECK_STR_EQ(t.rows[t.visible[0]].cells[2], "2");
    CHECK_STR_EQ(t.rows[t.visible[1]].cells[2], "10");
    CHECK_STR_EQ(t.rows[t.visible[2]].cells[2], "100");
    CHECK_INT_EQ(table_sort_by_letter(&t, 'Z'), -1);
    table_free(&t);
}

/* Issue 30: < > step through the sortable columns (and back to arrival order), ties go by
 * name, and close figures share a band: 310 and 330 keep their rows in name order, and a
 * refresh that moves one a little does not swap them. */
static void test_sort_step_bands_and_name_ties(void)
{
    static const char *rows[][4] = {
        {"id-z", "zulu", "running", "310"},
        {"id-a", "alpha", "running", "330"},
        {"id-m", "mike", "paused", "5"},
    };
    struct table t;
    table_init(&t, COLS, 3);
    fill(&t, rows, 3);
    CHECK_INT_EQ(table_sort_step(&t, 1, NULL), 0);  /* NAME */
    CHECK_INT_EQ(table_sort_step(&t, 1, NULL), 1);  /* STATE */
    CHECK_STR_EQ(t.rows[t.visible[0]].cells[0], "mike"); /* paused < running */
    CHECK_STR_EQ(t.rows[t.visible[1]].cells[0], "alpha"); /* running: by name */
    CHECK_STR_EQ(t.rows[t.visible[2]].cells[0], "zulu");
    table_sort_reverse(&t);
    CHECK_STR_EQ(t.rows[t.visible[0]].cells[0], "alpha"); /* ties still by name */
    CHECK_STR_EQ(t.rows[t.visible[2]].cells[0], "mike");
    int shown[3] = {1, 1, 1};
    CHECK_INT_EQ(table_sort_step(&t, 1, shown), 2); /* CPU, ascending */
    CHECK(!t.sort_desc);
    CHECK_STR_EQ(t.rows[t.visible[0]].cells[0], "mike");
    CHECK_STR_EQ(t.rows[t.visible[1]].cells[0], "alpha"); /* 330 and 310: one band */
    CHECK_STR_EQ(t.rows[t.visible[2]].cells[0], "zulu");
    table_set_cell(&t, 0, 2, "300"); /* zulu moves a little */
    CHECK_STR_EQ(t.rows[t.visible[1]].cells[0], "alpha");
    table_set_cell(&t, 0, 2, "900"); /* and a lot */
    CHECK_STR_EQ(t.rows[t.visible[2]].cells[0], "zulu");
    CHECK_INT_EQ(table_sort_step(&t, 1, shown), -1); /* after the last: arrival order */
    CHECK_STR_EQ(t.rows[t.visible[0]].cells[0], "zulu");
    CHECK_INT_EQ(table_sort_step(&t, -1, shown), 2); /* < from there: the last column */
    shown[2] = 0;
    CHECK_INT_EQ(table_sort_step(&t, -1, shown), 1); /* a hidden column is passed over */
    CHECK_INT_EQ(table_sort_step(&t, 1, shown), -1);
    table_free(&t);
}

static void test_cursor_follows_id_across_refresh_sort_filter(void)
{
    struct table t;
    table_init(&t, COLS, 3);
    fill(&t, ROWS, 3);
    table_move_to(&t, 2); /* gamma */
    CHECK_STR_EQ(table_selected(&t)->id, "id-c");
    table_sort_by_letter(&t, 'N');
    CHECK_STR_EQ(table_selected(&t)->id, "id-c");
    CHECK_INT_EQ(t.cursor, 2);
    /* A refresh that brings the rows in another order and adds one. */
    static const char *fresh[][4] = {
        {"id-c", "gamma", "paused", "1"},
        {"id-0", "aardvark", "running", "5"},
        {"id-a", "alpha", "paused", "2"},
    };
    fill(&t, fresh, 3);
    CHECK_STR_EQ(table_selected(&t)->id, "id-c");
    CHECK_STR_EQ(table_selected(&t)->cells[1], "paused");
    /* Filtering the selected row out moves the selection to the row the cursor lands on,
     * the one the user sees; clearing the filter keeps that row selected. */
    table_set_filter(&t, "ALP");
    CHECK_INT_EQ(t.nvisible, 1);
    CHECK_STR_EQ(table_selected(&t)->id, "id-a");
    table_set_filter(&t, NULL);
    CHECK_INT_EQ(t.nvisible, 3);
    CHECK_STR_EQ(table_selected(&t)->id, "id-a");
    /* The selected row disappears: the cursor keeps its position, clamped. */
    static const char *gone[][4] = {{"id-0", "aardvark", "running", "5"}};
    fill(&t, gone, 1);
    CHECK_STR_EQ(table_selected(&t)->id, "id-0");
    fill(&t, gone, 0);
    CHECK(table_selected(&t) == NULL);
    table_free(&t);
}

static void test_filter_case_insensitive_no_match(void)
{
    struct table t;
    table_init(&t, COLS, 3);
    fill(&t, ROWS, 3);
    table_set_filter(&t, "RUNNING");
    CHECK_INT_EQ(t.nvisible, 2);
    table_set_filter(&t, "nothing-like-this");
    CHECK_INT_EQ(t.nvisible, 0);
    CHECK(table_selected(&t) == NULL);
    table_move(&t, 1); /* harmless on an empty list */
    table_set_filter(&t, "");
    CHECK_INT_EQ(t.nvisible, 3);
    table_free(&t);
}

static void test_cells_are_sanitised(void)
{
    struct table t;
    table_init(&t, COLS, 3);
    static const char *evil[][4] = {{"id\x1b[2J", "x\x1b]0;pwned\x07y", "ok", NULL}};
    fill(&t, evil, 1);
    const struct table_row *r = table_selected(&t);
    CHECK(r != NULL);
    CHECK(strchr(r->cells[0], 0x1b) == NULL && strchr(r->cells[0], 0x07) == NULL);
    CHECK(strchr(r->id, 0x1b) == NULL);
    CHECK_STR_EQ(r->cells[2], ""); /* NULL cell */
    table_free(&t);
}

static void test_refresh_reuses_and_updates_cells(void)
{
    struct table t;
    table_init(&t, COLS, 3);
    static const char *v1[][4] = {{"id-1", "a\x1b[2Jb", "running", "1"}, {"id-2", "c", "x", "2"}};
    fill(&t, v1, 2);
    /* The same hostile raw text again: never reused as is, sanitised again. */
    fill(&t, v1, 2);
    CHECK_STR_EQ(t.rows[0].cells[0], "a?[2Jb");
    /* Changed cells change, unchanged stay, and a reordered list is handled too. */
    static const char *v2[][4] = {{"id-1", "a\x1b[2Jb", "paused", "1"}, {"id-2", "c", "x", "3"}};
    fill(&t, v2, 2);
    CHECK_STR_EQ(t.rows[0].cells[1], "paused");
    CHECK_STR_EQ(t.rows[1].cells[2], "3");
    CHECK_STR_EQ(t.rows[1].cells[0], "c");
    static const char *v3[][4] = {{"id-2", "c", "x", "3"}, {"id-1", "z", "paused", "1"}};
    fill(&t, v3, 2);
    CHECK_STR_EQ(t.rows[0].id, "id-2");
    CHECK_STR_EQ(t.rows[1].cells[0], "z");
    CHECK_INT_EQ(t.rows[1].widths[0], 1);
    table_free(&t);
}

static void test_scroll_keeps_cursor_visible(void)
{
    struct table t;
    table_init(&t, COLS, 3);
    struct table_row_in in[16];
    static char ids[16][16];
    const char *cells[3] = {"n", "s", "1"};
    for (int i = 0; i < 16; i++) {
        snprintf(ids[i], sizeof ids[i], "r%d", i);
        in[i].id = ids[i];
        in[i].cells = cells;
    }
    table_set_rows(&t, in, 16);
    table_move_to(&t, 12);
    table_scroll(&t, 5);
    CHECK(t.top <= 12 && 12 < t.top + 5);
    table_move(&t, -100);
    table_scroll(&t, 5);
    CHECK_INT_EQ(t.top, 0);
    table_move(&t, 1000);
    CHECK_INT_EQ(t.cursor, 15);
    table_scroll(&t, 5);
    CHECK_INT_EQ(t.top, 11);
    table_free(&t);
}

static void test_layout_and_line_fit_width(void)
{
    struct table t;
    table_init(&t, COLS, 3);
    static const char *wide[][4] = {
        {"w", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e-very-long-name-indeed", "running", "7"}};
    fill(&t, wide, 1);
    int widths[3];
    char line[512];
    for (int width = 12; width <= 80; width += 17) {
        table_layout(&t, width, widths);
        table_format_line(&t, table_selected(&t), widths, width, line, sizeof line);
        CHECK_MSG(text_width(line) == width, "width %d: got %d", width, text_width(line));
        table_format_line(&t, NULL, widths, width, line, sizeof line);
        CHECK_INT_EQ(text_width(line), width);
    }
    table_layout(&t, 80, widths);
    table_format_line(&t, NULL, widths, 80, line, sizeof line);
    CHECK(strncmp(line, "NAME ", 5) == 0);
    table_sort_by_letter(&t, 'S');
    table_format_line(&t, NULL, widths, 80, line, sizeof line);
    CHECK(strstr(line, "STATE\xe2\x86\x91") != NULL); /* sort mark */
    table_free(&t);
}

/* A refresh with the same rows touches only the cells that changed and says how many rows
 * changed: 0 means the frame can be skipped. */
static void test_update_rows_counts_changes(void)
{
    struct table t;
    table_init(&t, COLS, 3);
    struct table_row_in in[3];
    size_t changed = 99;
    for (int i = 0; i < 3; i++) {
        in[i].id = ROWS[i][0];
        in[i].cells = &ROWS[i][1];
    }
    CHECK(table_update_rows(&t, in, 3, &changed) == 0);
    CHECK_INT_EQ(changed, 3); /* new rows */
    char *kept = t.rows[1].cells[0];
    CHECK(table_update_rows(&t, in, 3, &changed) == 0);
    CHECK_INT_EQ(changed, 0);
    CHECK(t.rows[1].cells[0] == kept); /* not even copied */
    const char *c2[3] = {"alpha", "running", "2"};
    in[1].cells = c2;
    CHECK(table_update_rows(&t, in, 3, &changed) == 0);
    CHECK_INT_EQ(changed, 1);
    CHECK_STR_EQ(t.rows[1].cells[1], "running");
    CHECK(t.rows[1].cells[0] == kept);
    /* Sorted by CPU: a changed CPU cell moves its row, the cursor stays on it. */
    table_sort_by_letter(&t, 'C');
    table_move_to(&t, 0);
    CHECK_STR_EQ(table_selected(&t)->id, "id-a"); /* 2 < 10 < 100 */
    const char *c3[3] = {"alpha", "running", "500"};
    in[1].cells = c3;
    CHECK(table_update_rows(&t, in, 3, &changed) == 0);
    CHECK_INT_EQ(changed, 1);
    CHECK_STR_EQ(t.rows[t.visible[2]].id, "id-a");
    CHECK_STR_EQ(table_selected(&t)->id, "id-a");
    /* A row gone: everything is rebuilt and counted. */
    CHECK(table_update_rows(&t, in, 2, &changed) == 0);
    CHECK_INT_EQ(changed, 3);
    CHECK_INT_EQ(t.nrows, 2);
    /* Hostile text in place: sanitised; the same raw text again is no change. */
    const char *c4[3] = {"a\x1b]0;x\x07", "running", "1"};
    in[0].cells = c4;
    CHECK(table_update_rows(&t, in, 2, &changed) == 0);
    CHECK_INT_EQ(changed, 1);
    CHECK(strchr(t.rows[0].cells[0], '\x1b') == NULL);
    CHECK(table_update_rows(&t, in, 2, &changed) == 0);
    CHECK_INT_EQ(changed, 0);
    table_free(&t);
}

/* One cell (the countdown): changed or not, widths follow, a filter re-applies. */
static void test_set_cell(void)
{
    struct table t;
    table_init(&t, COLS, 3);
    fill(&t, ROWS, 3);
    CHECK_INT_EQ(table_set_cell(&t, 0, 2, "10"), 0);
    CHECK_INT_EQ(table_set_cell(&t, 0, 2, "1000"), 1);
    CHECK_INT_EQ(t.content_width[2], 4);
    CHECK_INT_EQ(table_set_cell(&t, 0, 2, "1"), 1);
    CHECK_INT_EQ(t.content_width[2], 3); /* "100" is the widest again */
    CHECK_INT_EQ(table_set_cell(&t, 7, 2, "1"), -1);
    table_set_filter(&t, "paused");
    CHECK_INT_EQ(t.nvisible, 1);
    CHECK_INT_EQ(table_set_cell(&t, 2, 1, "paused"), 1);
    CHECK_INT_EQ(t.nvisible, 2);
    table_free(&t);
}

/* A wide terminal: NAME is as wide as the longest name, not the rest of the screen; the
 * spare space widens the gaps a little and then stays blank at the right. */
static void test_layout_spare_width_not_all_to_name(void)
{
    struct table t;
    table_init(&t, COLS, 3);
    fill(&t, ROWS, 3);
    int widths[3];
    table_layout(&t, 200, widths);
    CHECK_INT_EQ(widths[0], 6 + 2);  /* "alpha"/"gamma" is 5, the title 4+2, plus a 2 gap */
    CHECK_INT_EQ(widths[1], 7 + 2);  /* "running" */
    CHECK_INT_EQ(widths[2], 5);      /* the last column gets no gap */
    /* A name longer than NAME's max_width (30) shows whole when there is room. */
    static const char *longname[][4] = {
        {"l", "a-very-long-sandbox-name-of-forty-two-cols", "running", "1"}};
    fill(&t, longname, 1);
    table_layout(&t, 200, widths);
    CHECK_INT_EQ(widths[0], 42 + 2);
    table_layout(&t, 40, widths);
    CHECK(widths[0] + widths[1] + widths[2] + 2 <= 40);
    table_free(&t);
}

int main(void)
{
    if (!setlocale(LC_ALL, "C.UTF-8")) {
        printf("FAIL locale: C.UTF-8 is not available\n");
        return 1;
    }
    RUN(test_width_ascii_cjk_emoji);
    RUN(test_fit_never_splits_wide_chars);
    RUN(test_cell_pads_and_truncates);
    RUN(test_sort_by_letter_and_reverse);
    RUN(test_sort_step_bands_and_name_ties);
    RUN(test_cursor_follows_id_across_refresh_sort_filter);
    RUN(test_filter_case_insensitive_no_match);
    RUN(test_cells_are_sanitised);
    RUN(test_refresh_reuses_and_updates_cells);
    RUN(test_scroll_keeps_cursor_visible);
    RUN(test_layout_and_line_fit_width);
    RUN(test_update_rows_counts_changes);
    RUN(test_set_cell);
    RUN(test_layout_spare_width_not_all_to_name);
    return harness_finish();
}
