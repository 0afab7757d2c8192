/* Budgets without a server (core/e2b/cost.h, core/live/live_budget.h, core/box/records.h):
 * a budget as a person writes it, when a cost reaches it (only the parts known count), a
 * box's budget (its own, else the config's), the box's cost as agent + sandbox, and the
 * record's budget fields (bounded when read: a file may be edited). */
#include "core/box/records.h"
#include "core/e2b/config.h"
#include "core/e2b/cost.h"
#include "core/live/live_budget.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_parse(void)
{
    double d = 0;
    CHECK(e2b_budget_parse("2", &d) == 0 && d == 2);
    CHECK(e2b_budget_parse("2.50", &d) == 0 && d == 2.5);
    CHECK(e2b_budget_parse("$0.01", &d) == 0 && d == 0.01);
    const char *bad[] = {"", "$", "0", "0.001", "-1", " 2", "2 ", "nine", "inf", "nan", "1e9",
                         "+2", "2$", "100001", NULL};
    for (size_t i = 0; bad[i]; i++)
        CHECK_MSG(e2b_budget_parse(bad[i], &d) < 0, "'%s' taken", bad[i]);
    CHECK(e2b_budget_parse(NULL, &d) < 0);
}

static void test_reached(void)
{
    CHECK(!e2b_budget_reached(2, 1.5, 0.4));
    CHECK(e2b_budget_reached(2, 1.5, 0.5));  /* at it: reached */
    CHECK(e2b_budget_reached(2, 0, 2.1));    /* the sandbox's part alone (v2 prices nothing) */
    CHECK(e2b_budget_reached(2, 2.1, 0));
    CHECK(!e2b_budget_reached(0, 100, 100)); /* no budget: never */
    CHECK(!e2b_budget_reached(-1, 100, 100));
}

static void test_budget_of_record(void)
{
    e2b_config cfg = {.budget_usd = 0};
    e2b_box_record r = {.budget_usd = 0};
    CHECK(e2b_live_budget_usd(&r, &cfg) == 0);
    cfg.budget_usd = 3;
    CHECK(e2b_live_budget_usd(&r, &cfg) == 3); /* the config's */
    r.budget_usd = 1.25;
    CHECK(e2b_live_budget_usd(&r, &cfg) == 1.25); /* its own wins */
    CHECK(e2b_live_budget_usd(NULL, &cfg) == 3);
}

static void test_box_cost(void)
{
    e2b_config cfg = {.price_vcpu_second = 0.01, .price_gib_second = 0.001};
    e2b_sandbox sb = {.state = E2B_STATE_RUNNING, .cpu_count = 2, .memory_mb = 2048,
                      .started_at = 1000};
    e2b_agent_status st = {.total = {.have_cost = true, .cost_usd = 0.5}};
    double a, s;
    CHECK(e2b_live_box_cost(&st, &sb, &cfg, 1100, &a, &s));
    CHECK(a == 0.5);
    CHECK(s > 2.199 && s < 2.201); /* 100 s x (2 x 0.01 + 2 x 0.001) */
    st.total.have_cost = false; /* not priced: unknown, counted as 0 */
    CHECK(!e2b_live_box_cost(&st, &sb, &cfg, 1100, &a, &s));
    CHECK(a == 0 && s > 2.199);
    sb.state = E2B_STATE_PAUSED; /* paused: its sandbox adds nothing (known) */
    st.total.have_cost = true;
    CHECK(e2b_live_box_cost(&st, &sb, &cfg, 1100, &a, &s));
    CHECK(a == 0.5 && s == 0);
}

static void test_record_fields(void)
{
    char dir[] = "/tmp/e2b-budget-XXXXXX", file[128];
    CHECK(mkdtemp(dir));
    e2b_box_record r = {.name = "feat", .sandbox_id = "isb1", .template_id = "t", .branch = "",
                        .base = "", .dir = "/p", .port = 4096, .opencode = 1, .hours = 1,
                        .budget_usd = 2.5, .budget_stopped = true},
                   back;
    CHECK(!e2b_box_record_write(dir, &r, 1));
    CHECK(!e2b_box_record_read(dir, "feat", &back));
    CHECK(back.budget_usd == 2.5 && back.budget_stopped);
    e2b_box_record_clear(&back);
    /* an edited file: a budget out of range is none */
    snprintf(file, sizeof file, "%s/feat.json", dir);
    FILE *f = fopen(file, "w");
    CHECK(f);
    fputs("{\"version\":2,\"name\":\"feat\",\"sandbox_id\":\"isb1\",\"budget_usd\":-3,"
          "\"budget_stopped\":\"yes\"}", f);
    fclose(f);
    CHECK(!e2b_box_record_read(dir, "feat", &back));
    CHECK(back.budget_usd == 0 && !back.budget_stopped);
    e2b_box_record_clear(&back);
    CHECK(!e2b_box_record_remove(dir, "feat"));
    CHECK(rmdir(dir) == 0);
}

static void test_config_key(void)
{
    e2b_config cfg;
    e2b_config_init(&cfg);
    CHECK(cfg.budget_usd == 0); /* none by default */
    e2b_error *e = e2b_config_set(&cfg, "budget_usd", "2.50", E2B_SRC_FILE);
    CHECK(!e && cfg.budget_usd == 2.5);
    CHECK(!(e = e2b_config_set(&cfg, "budget_usd", "0", E2B_SRC_FILE)) && cfg.budget_usd == 0);
    e = e2b_config_set(&cfg, "budget_usd", "lots", E2B_SRC_FILE);
    CHECK(e && strstr(e2b_error_message(e), "budget_usd must be dollars"));
    e2b_error_free(e);
    e2b_config_clear(&cfg);
}

int main(void)
{
    RUN(test_parse);
    RUN(test_reached);
    RUN(test_budget_of_record);
    RUN(test_box_cost);
    RUN(test_record_fields);
    RUN(test_config_key);
    return harness_finish();
}
