/* The live model's pure list helpers (core/live/live_index.c): the name a sandbox is called
 * by, the words for what changed between two refreshes, and the metrics' order and lookup. */
#include "tests/lib/harness.h"

#include "core/live/live_internal.h"

#include <stdlib.h>
#include <string.h>

static void add(e2b_sandbox_list *l, const char *id, e2b_sandbox_state st, const char *k1,
                const char *v1, const char *k2, const char *v2)
{
    e2b_sandbox *sb = &l->items[l->count++];
    memset(sb, 0, sizeof *sb);
    sb->sandbox_id = strdup(id);
    sb->template_id = strdup("tmpl");
    sb->state = st;
    if (k1)
        e2b_metadata_set(&sb->metadata, k1, v1);
    if (k2)
        e2b_metadata_set(&sb->metadata, k2, v2);
}

static void test_names(void)
{
    e2b_sandbox_list l = {.items = calloc(3, sizeof(e2b_sandbox)), .total_running = -1};
    add(&l, "i-box", E2B_STATE_RUNNING, "e2b-tui", "box", "e2b-tui.name", "feat-x");
    add(&l, "i-named", E2B_STATE_RUNNING, "name", "web", NULL, NULL);
    add(&l, "i-bare", E2B_STATE_RUNNING, NULL, NULL, NULL, NULL);
    l.items[2].alias = strdup("base");
    CHECK(e2b_sandbox_list_classify(&l, NULL) == 0);
    CHECK_STR_EQ(e2b_live_sandbox_name(&l.items[0]), "feat-x");
    CHECK_STR_EQ(e2b_live_sandbox_name(&l.items[1]), "web");
    CHECK_STR_EQ(e2b_live_sandbox_name(&l.items[2]), "i-bare"); /* the id, not the template */
    CHECK(live_sandbox_find(&l, "i-named") == &l.items[1]);
    CHECK(live_sandbox_find(&l, "i-none") == NULL);
    e2b_sandbox_list_clear(&l);
}

static void test_changes(void)
{
    char buf[400];
    e2b_sandbox_list old = {.items = calloc(3, sizeof(e2b_sandbox)), .total_running = -1};
    add(&old, "i-a", E2B_STATE_RUNNING, "name", "a", NULL, NULL);
    add(&old, "i-b", E2B_STATE_RUNNING, NULL, NULL, NULL, NULL);
    add(&old, "i-c", E2B_STATE_RUNNING, NULL, NULL, NULL, NULL);
    e2b_sandbox_list same = {.items = calloc(3, sizeof(e2b_sandbox)), .total_running = -1};
    add(&same, "i-c", E2B_STATE_RUNNING, NULL, NULL, NULL, NULL);
    add(&same, "i-a", E2B_STATE_RUNNING, "name", "a", NULL, NULL);
    add(&same, "i-b", E2B_STATE_RUNNING, NULL, NULL, NULL, NULL);
    CHECK_INT_EQ(live_changes_text(&old, &same, buf, sizeof buf), 0); /* order does not count */
    CHECK_STR_EQ(buf, "");
    e2b_sandbox_list one = {.items = calloc(3, sizeof(e2b_sandbox)), .total_running = -1};
    add(&one, "i-a", E2B_STATE_PAUSED, "name", "a", NULL, NULL);
    add(&one, "i-b", E2B_STATE_RUNNING, NULL, NULL, NULL, NULL);
    add(&one, "i-c", E2B_STATE_RUNNING, NULL, NULL, NULL, NULL);
    CHECK_INT_EQ(live_changes_text(&old, &one, buf, sizeof buf), 1);
    CHECK_STR_EQ(buf, "a: running -> paused");
    e2b_sandbox_list two = {.items = calloc(1, sizeof(e2b_sandbox)), .total_running = -1};
    add(&two, "i-a", E2B_STATE_PAUSED, "name", "a", NULL, NULL);
    CHECK_INT_EQ(live_changes_text(&old, &two, buf, sizeof buf), 3);
    CHECK_STR_EQ(buf, "a: running -> paused (and 2 more changes)");
    e2b_sandbox_list none = {0};
    CHECK_INT_EQ(live_changes_text(&none, &two, buf, sizeof buf), 0); /* the first list */
    CHECK_INT_EQ(live_changes_text(&old, &none, buf, sizeof buf), 3);
    CHECK_STR_EQ(buf, "a: gone (and 2 more changes)");
    e2b_sandbox_list_clear(&old);
    e2b_sandbox_list_clear(&same);
    e2b_sandbox_list_clear(&one);
    e2b_sandbox_list_clear(&two);
}

static void test_metrics(void)
{
    e2b_metric_list m = {calloc(4, sizeof(e2b_metric)), 4};
    m.items[0].sandbox_id = strdup("i-b");
    m.items[0].timestamp = 10;
    m.items[1].sandbox_id = NULL; /* a single-sandbox reply's item: sorted last */
    m.items[2].sandbox_id = strdup("i-a");
    m.items[3].sandbox_id = strdup("i-b");
    m.items[3].timestamp = 20;
    live_metrics_sort(&m);
    CHECK_STR_EQ(m.items[0].sandbox_id, "i-a");
    CHECK(m.items[3].sandbox_id == NULL);
    const e2b_metric *b = e2b_live_metric_find(&m, "i-b");
    CHECK(b != NULL);
    CHECK_INT_EQ((long)b->timestamp, 20); /* the newest sample of that sandbox */
    CHECK(e2b_live_metric_find(&m, "i-a") == &m.items[0]);
    CHECK(e2b_live_metric_find(&m, "i-0") == NULL);
    CHECK(e2b_live_metric_find(&m, "i-z") == NULL);
    e2b_metric_list_clear(&m);
}

/* The models of a group made from the dashboard (e2b_live_try): provider/model, commas. */
static void test_try_models(void)
{
    CHECK(e2b_live_try_models_valid(NULL));
    CHECK(e2b_live_try_models_valid(""));
    CHECK(e2b_live_try_models_valid("mock/m1"));
    CHECK(e2b_live_try_models_valid("mock/m1,openai/gpt-5"));
    CHECK_MSG(!e2b_live_try_models_valid("mock"), "no provider");
    CHECK_MSG(!e2b_live_try_models_valid("/m1"), "an empty provider");
    CHECK_MSG(!e2b_live_try_models_valid("mock/"), "an empty model");
    CHECK_MSG(!e2b_live_try_models_valid("mock/m1,"), "a trailing comma");
    CHECK_MSG(!e2b_live_try_models_valid("mock/m1,,mock/m2"), "an empty entry");
    CHECK_MSG(!e2b_live_try_models_valid("mock/m 1"), "a space");
    CHECK_MSG(!e2b_live_try_models_valid("mock/m\0331"), "a control character");
}

int main(void)
{
    RUN(test_try_models);
    RUN(test_names);
    RUN(test_changes);
    RUN(test_metrics);
    return harness_finish();
}
