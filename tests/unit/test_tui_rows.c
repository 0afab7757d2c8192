/* Core sandboxes as dashboard rows (tui/sandbox_rows.c): the time-left column, which view a
 * sandbox lands in, and what the NAME column shows. Compiled with the curses-free table
 * model it fills; core's model and the live model's list helpers come from libe2bcore. */
#include "tests/lib/harness.h"

#include "core/live/live_internal.h"
#include "tui/sandbox_rows.c"
#include "tui/widgets/table.c"
#include "tui/widgets/textwidth.c"

#include <locale.h>
#include <stdio.h>

static void test_remaining_formats(void)
{
    char b[32];
    sandbox_rows_format_remaining(0, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "-");
    sandbox_rows_format_remaining(1000, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "expired");
    sandbox_rows_format_remaining(900, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "expired");
    sandbox_rows_format_remaining(1000 + 59, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "0:59");
    sandbox_rows_format_remaining(1000 + 599, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "9:59");
    sandbox_rows_format_remaining(1000 + 600, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "10m");
    sandbox_rows_format_remaining(1000 + 3599, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "59m");
    sandbox_rows_format_remaining(1000 + 3600 * 23 + 61, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "23h 01m");
    sandbox_rows_format_remaining(1000 + 86400 * 3 + 3600 * 4 + 5, 1000, b, sizeof b);
    CHECK_STR_EQ(b, "3d 04h");
}

/* The wake-up schedule matches the text: for every time left up to two days, the text
 * stays the same until exactly the second sandbox_rows_remaining_next_change names. */
static void test_next_change_matches_text(void)
{
    const time_t now = 100000;
    int bad = 0;
    CHECK_INT_EQ(sandbox_rows_remaining_next_change(0, now), -1);
    CHECK_INT_EQ(sandbox_rows_remaining_next_change(now, now), -1);
    CHECK_INT_EQ(sandbox_rows_remaining_next_change(now + 5, now), 1);
    CHECK_INT_EQ(sandbox_rows_remaining_next_change(now + 3000, now), 1);  /* 50m: 2999 is 49m */
    CHECK_INT_EQ(sandbox_rows_remaining_next_change(now + 3059, now), 60);
    for (long left = 1; left <= 2 * 86400 && bad < 3; left += left < 700 ? 1 : 7) {
        time_t end = now + left;
        long d = sandbox_rows_remaining_next_change(end, now);
        char a[32], b2[32], c[32];
        sandbox_rows_format_remaining(end, now, a, sizeof a);
        sandbox_rows_format_remaining(end, now + d - 1, b2, sizeof b2);
        sandbox_rows_format_remaining(end, now + d, c, sizeof c);
        if (d < 1 || strcmp(a, b2) != 0 || strcmp(a, c) == 0) {
            CHECK_MSG(0, "left %ld: next change in %ld: %s / %s / %s", left, d, a, b2, c);
            bad++;
        }
    }
}

static const struct table_column COLS[SBCOL_COUNT] = {
    {"NAME", 'N', 4, 0, false, true}, {"BRANCH", 'B', 2, 0, false, false},
    {"ID", 'I', 2, 0, false, false},
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

/* The three sandbox views' tables (Boxes, Workspaces, All), filled as the views do. */
enum { V_BOXES, V_WS, V_ALL, V_COUNT };
static const enum sandbox_filter FILTERS[V_COUNT] = {SANDBOX_FILTER_BOXES,
                                                     SANDBOX_FILTER_WORKSPACES,
                                                     SANDBOX_FILTER_ALL};

static int fill3(struct table *t, const e2b_sandbox_list *l, const e2b_metric_list *m,
                 time_t now, bool *dirty)
{
    for (int v = 0; v < V_COUNT; v++)
        if (sandbox_rows_fill(&t[v], FILTERS[v], l, m, now, dirty) != 0)
            return -1;
    return 0;
}

static int times3(struct table *t, const e2b_sandbox_list *l, const e2b_metric_list *m,
                  time_t now, bool *dirty)
{
    for (int v = 0; v < V_COUNT; v++)
        if (sandbox_rows_redraw_times(&t[v], FILTERS[v], l, m, now, dirty) != 0)
            return -1;
    return 0;
}

static int usage3(struct table *t, const e2b_sandbox_list *l, const e2b_metric_list *m,
                  time_t now, bool *dirty)
{
    for (int v = 0; v < V_COUNT; v++)
        if (sandbox_rows_set_usage(&t[v], FILTERS[v], l, m, now, dirty) != 0)
            return -1;
    return 0;
}

static void test_fill_splits_views_and_names(void)
{
    struct table t[V_COUNT];
    for (int v = 0; v < V_COUNT; v++)
        table_init(&t[v], COLS, SBCOL_COUNT);
    bool dirty = false;
    e2b_metric_list none = {0};
    e2b_sandbox_list l = {.items = calloc(4, sizeof(e2b_sandbox)), .total_running = -1};
    add(&l, "i-box", "opencode", E2B_STATE_RUNNING, 2, 1000 + 90, "e2b-tui", "box",
        "e2b-tui.name", "feat\x1b[31mred");
    add(&l, "i-ws", "opencode-e2b-x", E2B_STATE_PAUSED, -1, 0, NULL, NULL, NULL, NULL);
    add(&l, "i-named", "base", E2B_STATE_RUNNING, 1, 0, "name", "web", NULL, NULL);
    add(&l, "i-bare", NULL, E2B_STATE_RUNNING, 1, 0, NULL, NULL, NULL, NULL);
    CHECK(e2b_sandbox_list_classify(&l, NULL) == 0);
    CHECK(fill3(t, &l, &none, 1000, &dirty) == 0);
    CHECK_INT_EQ(t[V_ALL].nrows, 4);
    CHECK_INT_EQ(t[V_BOXES].nrows, 1);
    CHECK_INT_EQ(t[V_WS].nrows, 1);
    CHECK(dirty);
    const struct table *all = &t[V_ALL];
    /* The box name from metadata, sanitised by the table. */
    CHECK_STR_EQ(cell(all, "i-box", SBCOL_NAME), "feat?[31mred");
    CHECK_STR_EQ(cell(all, "i-box", SBCOL_ENDS), "1:30");
    /* Not sampled yet: no usage figure (the CPU count would read like one). */
    CHECK_STR_EQ(cell(all, "i-box", SBCOL_CPU), "-");
    CHECK_STR_EQ(cell(all, "i-box", SBCOL_MEM), "-");
    CHECK_STR_EQ(cell(all, "i-ws", SBCOL_NAME), "i-ws"); /* no name: the id, not the template */
    CHECK_STR_EQ(cell(all, "i-ws", SBCOL_BRANCH), "-");
    CHECK_STR_EQ(cell(all, "i-ws", SBCOL_ENDS), "paused");
    CHECK_STR_EQ(cell(all, "i-ws", SBCOL_CPU), "-");
    CHECK_STR_EQ(cell(all, "i-ws", SBCOL_STATE), "paused");
    CHECK_STR_EQ(cell(all, "i-named", SBCOL_NAME), "web"); /* metadata name */
    CHECK_STR_EQ(cell(all, "i-bare", SBCOL_NAME), "i-bare"); /* the id, last */
    CHECK_STR_EQ(cell(all, "i-bare", SBCOL_TEMPLATE), "tmpl-id");
    CHECK_STR_EQ(t[V_BOXES].rows[0].id, "i-box");
    CHECK_STR_EQ(t[V_WS].rows[0].id, "i-ws");
    /* The sandboxes stay the model's (borrowed), where the detail pane finds them by id. */
    CHECK_INT_EQ(l.count, 4);
    CHECK(l.items != NULL);
    CHECK(live_sandbox_find(&l, "i-ws") != NULL);
    CHECK_INT_EQ(live_sandbox_find(&l, "i-ws")->kind, E2B_KIND_WORKSPACE);
    CHECK(live_sandbox_find(&l, "nope") == NULL);
    /* The countdown runs while the running box (ends at 1090) has time left. */
    CHECK(sandbox_rows_next_change(&l, 1000) > 0);
    CHECK(sandbox_rows_next_change(&l, 1089) > 0);
    CHECK(!(sandbox_rows_next_change(&l, 1090) > 0));
    CHECK(times3(t, &l, &none, 1090, &dirty) == 0);
    CHECK_STR_EQ(cell(&t[V_ALL], "i-box", SBCOL_ENDS), "expired");
    /* A refresh replaces them. */
    e2b_sandbox_list l2 = {.items = calloc(1, sizeof(e2b_sandbox)), .total_running = -1};
    add(&l2, "i-new", "base", E2B_STATE_RUNNING, 1, 0, NULL, NULL, NULL, NULL);
    CHECK(e2b_sandbox_list_classify(&l2, NULL) == 0);
    CHECK(fill3(t, &l2, &none, 1000, &dirty) == 0);
    CHECK_INT_EQ(t[V_ALL].nrows, 1);
    CHECK_INT_EQ(t[V_BOXES].nrows, 0);
    e2b_sandbox_list_clear(&l2);
    e2b_sandbox_list_clear(&l);
    for (int v = 0; v < V_COUNT; v++)
        table_free(&t[v]);
}

/* A refresh that brings nothing new asks for no frame; a changed state, a metric or the
 * clock change only their cells; CPU and MEM show usage, never the sandbox's size. */
static void test_refresh_costs_what_changed(void)
{
    struct table t[V_COUNT];
    for (int v = 0; v < V_COUNT; v++)
        table_init(&t[v], COLS, SBCOL_COUNT);
    bool dirty = false;
    e2b_metric_list none = {0};
    e2b_sandbox_list l = {0};
    for (int round = 0; round < 3; round++) {
        e2b_sandbox_list_clear(&l);
        l = (e2b_sandbox_list){.items = calloc(3, sizeof(e2b_sandbox)), .total_running = -1};
        add(&l, "i-a", "base", E2B_STATE_RUNNING, 2, 5000, "name", "a", NULL, NULL);
        add(&l, "i-b", "base", round == 2 ? E2B_STATE_PAUSED : E2B_STATE_RUNNING, 2, 5000,
            "e2b-tui", "box", "e2b-tui.name", "b");
        add(&l, "i-c", "base", E2B_STATE_RUNNING, 2, 0, NULL, NULL, NULL, NULL);
        e2b_metadata_set(&l.items[1].metadata, "e2b-tui.branch", "feat/x");
        CHECK(e2b_sandbox_list_classify(&l, NULL) == 0);
        dirty = false;
        char *kept = round ? t[V_ALL].rows[0].cells[SBCOL_NAME] : NULL;
        CHECK(fill3(t, &l, &none, 1000, &dirty) == 0);
        CHECK_INT_EQ(t[V_ALL].nrows, 3);
        if (round == 0) {
            CHECK(dirty); /* the first rows */
            CHECK_STR_EQ(cell(&t[V_BOXES], "i-b", SBCOL_BRANCH), "feat/x");
            CHECK_STR_EQ(cell(&t[V_ALL], "i-a", SBCOL_BRANCH), "-");
        }
        if (round == 1) {
            CHECK_MSG(!dirty, "an unchanged refresh asked for a frame");
            CHECK(t[V_ALL].rows[0].cells[SBCOL_NAME] == kept);
        }
        if (round == 2) {
            CHECK(dirty);
            CHECK_STR_EQ(cell(&t[V_BOXES], "i-b", SBCOL_STATE), "paused");
            CHECK_STR_EQ(cell(&t[V_ALL], "i-b", SBCOL_ENDS), "paused");
        }
    }
    /* Metrics: CPU in percent and MEM in use for the sampled; "-" for the others. */
    e2b_metric_list m = {calloc(2, sizeof(e2b_metric)), 2};
    m.items[0].sandbox_id = strdup("i-c");
    m.items[0].cpu_used_pct = 37.4;
    m.items[0].mem_used = 300LL << 20;
    m.items[1].sandbox_id = strdup("i-a");
    m.items[1].cpu_used_pct = 0;
    live_metrics_sort(&m); /* as the model keeps them */
    CHECK_STR_EQ(m.items[0].sandbox_id, "i-a");
    dirty = false;
    CHECK(usage3(t, &l, &m, 1000, &dirty) == 0);
    CHECK(dirty);
    const struct table *all = &t[V_ALL];
    CHECK_STR_EQ(cell(all, "i-c", SBCOL_CPU), "37%");
    CHECK_STR_EQ(cell(all, "i-c", SBCOL_MEM), "300M");
    CHECK_STR_EQ(cell(all, "i-a", SBCOL_CPU), "0%");
    CHECK_STR_EQ(cell(all, "i-a", SBCOL_MEM), "0M"); /* sampled: a figure, even 0 */
    CHECK_STR_EQ(cell(all, "i-b", SBCOL_CPU), "-"); /* paused */
    CHECK(e2b_live_metric_find(&m, "i-a") != NULL);
    CHECK(e2b_live_metric_find(&m, "i-b") == NULL);
    CHECK(e2b_live_metric_find(&m, "i-zz") == NULL);
    /* The clock: within the same minute nothing changes (no frame); the next minute
     * changes only ENDS of i-a (i-c has no end time, i-b is paused). */
    dirty = false;
    CHECK_INT_EQ(sandbox_rows_next_change(&l, 1000), 41);
    CHECK(times3(t, &l, &m, 1040, &dirty) == 0);
    CHECK(!dirty);
    char *state = (char *)cell(all, "i-a", SBCOL_STATE);
    CHECK(times3(t, &l, &m, 1041, &dirty) == 0);
    CHECK(dirty);
    CHECK_STR_EQ(cell(all, "i-a", SBCOL_ENDS), "1h 05m");
    CHECK(cell(all, "i-a", SBCOL_STATE) == state);
    e2b_sandbox_list_clear(&l);
    e2b_metric_list_clear(&m);
    for (int v = 0; v < V_COUNT; v++)
        table_free(&t[v]);
}

int main(void)
{
    if (!setlocale(LC_ALL, "C.UTF-8")) {
        printf("FAIL locale: C.UTF-8 is not available\n");
        return 1;
    }
    RUN(test_remaining_formats);
    RUN(test_next_change_matches_text);
    RUN(test_fill_splits_views_and_names);
    RUN(test_refresh_costs_what_changed);
    return harness_finish();
}
