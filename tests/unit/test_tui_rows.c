/* Core sandboxes as dashboard rows (tui/sandbox_rows.c): the time-left column, which view a
 * sandbox lands in, and what the NAME column shows. Compiled with the curses-free table
 * model it fills; core's model comes from libe2bcore. */
#include "tests/lib/harness.h"

#include "tui/sandbox_rows.c"
#include "tui/table.c"
#include "tui/textwidth.c"

#include <locale.h>
#include <stdio.h>

static void test_remaining_formats(void)
{
    char b[32];
    sandbox_format_remaining(0, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "-");
    sandbox_format_remaining(1000, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "expired");
    sandbox_format_remaining(900, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "expired");
    sandbox_format_remaining(1000 + 59, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "0:00:59");
    sandbox_format_remaining(1000 + 3599, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "0:59:59");
    sandbox_format_remaining(1000 + 3600 * 23 + 61, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "23:01:01");
    sandbox_format_remaining(1000 + 86400 * 3 + 3600 * 4 + 5, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "3d 04h");
}

static const struct table_column COLS[SBCOL_COUNT] = {
    {"NAME", 'N', 4, 0, false, true}, {"ID", 'I', 2, 0, false, false},
    {"TEMPLATE", 'T', 2, 0, false, false}, {"STATE", 'S', 2, 0, false, false},
    {"CPU", 'C', 2, 0, true, false}, {"MEM", 'M', 2, 0, true, false},
    {"ENDS", 'E', 2, 0, false, false},
};

static void add(e2b_sandbox_list *l, const char *id, const char *alias, e2b_sandbox_state st,
                int cpu, time_t end, const char *k1, const char *v1, const char *k2,
                const char *v2)
{
    e2b_sandbox *sb = &l->items[l->count++];
    memset(sb, 0, sizeof *sb);
    sb->sandbox_id = strdup(id);
    sb->alias = alias ? strdup(alias) : NULL;
    sb->template_id = strdup("tmpl-id");
    sb->state = st;
    sb->cpu_count = cpu;
    sb->memory_mb = cpu < 0 ? -1 : 512;
    sb->end_at = end;
    if (k1)
        e2b_metadata_set(&sb->metadata, k1, v1);
    if (k2)
        e2b_metadata_set(&sb->metadata, k2, v2);
}

static const char *cell(const struct table *t, const char *id, int col)
{
    for (size_t i = 0; i < t->nrows; i++)
        if (strcmp(t->rows[i].id, id) == 0)
            return t->rows[i].cells[col];
    return NULL;
}

static void test_fill_splits_views_and_names(void)
{
    struct view views[TAB_COUNT];
    struct ui ui;
    memset(&ui, 0, sizeof ui);
    memset(views, 0, sizeof views);
    for (int t = 0; t < TAB_COUNT; t++) {
        table_init(&views[t].table, COLS, SBCOL_COUNT);
        ui.tabs[t] = &views[t];
    }
    e2b_sandbox_list l = {calloc(4, sizeof(e2b_sandbox)), 0, -1};
    add(&l, "i-box", "opencode", E2B_STATE_RUNNING, 2, 1000 + 90, "e2b-tui", "box",
        "e2b-tui.name", "feat\x1b[31mred");
    add(&l, "i-ws", "opencode-e2b-x", E2B_STATE_PAUSED, -1, 0, NULL, NULL, NULL, NULL);
    add(&l, "i-named", "base", E2B_STATE_RUNNING, 1, 0, "name", "web", NULL, NULL);
    add(&l, "i-bare", NULL, E2B_STATE_RUNNING, 1, 0, NULL, NULL, NULL, NULL);
    CHECK(e2b_sandbox_list_classify(&l, NULL) == 0);
    CHECK(sandbox_rows_fill(&ui, &l, 1000) == 0);
    CHECK_INT_EQ(ui.tabs[TAB_ALL]->table.nrows, 4);
    CHECK_INT_EQ(ui.tabs[TAB_BOXES]->table.nrows, 1);
    CHECK_INT_EQ(ui.tabs[TAB_WORKSPACES]->table.nrows, 1);
    CHECK(ui.tabs[TAB_ALL]->loaded && ui.tabs[TAB_BOXES]->loaded);
    const struct table *all = &ui.tabs[TAB_ALL]->table;
    /* The box name from metadata, sanitised by the table. */
    CHECK_STR_EQ(cell(all, "i-box", SBCOL_NAME), "feat?[31mred");
    CHECK_STR_EQ(cell(all, "i-box", SBCOL_ENDS), "0:01:30");
    CHECK_STR_EQ(cell(all, "i-box", SBCOL_CPU), "2");
    CHECK_STR_EQ(cell(all, "i-box", SBCOL_MEM), "512M");
    CHECK_STR_EQ(cell(all, "i-ws", SBCOL_NAME), "opencode-e2b-x"); /* alias */
    CHECK_STR_EQ(cell(all, "i-ws", SBCOL_ENDS), "paused");
    CHECK_STR_EQ(cell(all, "i-ws", SBCOL_CPU), "-");
    CHECK_STR_EQ(cell(all, "i-ws", SBCOL_STATE), "paused");
    CHECK_STR_EQ(cell(all, "i-named", SBCOL_NAME), "web"); /* metadata name */
    CHECK_STR_EQ(cell(all, "i-bare", SBCOL_NAME), "i-bare"); /* the id, last */
    CHECK_STR_EQ(cell(all, "i-bare", SBCOL_TEMPLATE), "tmpl-id");
    CHECK_STR_EQ(ui.tabs[TAB_BOXES]->table.rows[0].id, "i-box");
    CHECK_STR_EQ(ui.tabs[TAB_WORKSPACES]->table.rows[0].id, "i-ws");
    /* The sandboxes moved into the ui, where the detail pane finds them by id. */
    CHECK_INT_EQ(l.count, 0);
    CHECK(l.items == NULL);
    CHECK_INT_EQ(ui.sandboxes.count, 4);
    CHECK(sandbox_rows_find(&ui, "i-ws") != NULL);
    CHECK_INT_EQ(sandbox_rows_find(&ui, "i-ws")->kind, E2B_KIND_WORKSPACE);
    CHECK(sandbox_rows_find(&ui, "nope") == NULL);
    /* The countdown runs while the running box (ends at 1090) has time left. */
    CHECK(sandbox_rows_counting(&ui, 1000));
    CHECK(sandbox_rows_counting(&ui, 1089));
    CHECK(!sandbox_rows_counting(&ui, 1090));
    CHECK(sandbox_rows_redraw_times(&ui, 1090) == 0);
    CHECK_STR_EQ(cell(&ui.tabs[TAB_ALL]->table, "i-box", SBCOL_ENDS), "expired");
    /* A refresh replaces them (the old ones are freed: valgrind checks). */
    e2b_sandbox_list l2 = {calloc(1, sizeof(e2b_sandbox)), 0, -1};
    add(&l2, "i-new", "base", E2B_STATE_RUNNING, 1, 0, NULL, NULL, NULL, NULL);
    CHECK(e2b_sandbox_list_classify(&l2, NULL) == 0);
    CHECK(sandbox_rows_fill(&ui, &l2, 1000) == 0);
    CHECK_INT_EQ(ui.sandboxes.count, 1);
    CHECK_INT_EQ(ui.tabs[TAB_BOXES]->table.nrows, 0);
    free(l2.items);
    e2b_sandbox_list_clear(&ui.sandboxes);
    e2b_sandbox_list_clear(&l);
    for (int t = 0; t < TAB_COUNT; t++)
        table_free(&views[t].table);
}

int main(void)
{
    if (!setlocale(LC_ALL, "C.UTF-8")) {
        printf("FAIL locale: C.UTF-8 is not available\n");
        return 1;
    }
    RUN(test_remaining_formats);
    RUN(test_fill_splits_views_and_names);
    return harness_finish();
}
