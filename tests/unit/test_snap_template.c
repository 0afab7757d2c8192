/* e2b_snap_record_of_template and e2b_snap_template_is_ours: which snapshot record is a template (the Templates pane's and
 * --templates' "snapshot" kind): by id or alias, with the team namespace and the tag of the
 * record's snapshot id left out, and nothing that only begins the same. */
#include "core/box/snap_records.h"
#include "tests/lib/harness.h"

static e2b_snap_record recs_items[] = {
    {.name = "plain", .snapshot_id = "abc123"},
    {.name = "teamed", .snapshot_id = "team-x/def456:default"},
    {.name = "tagged", .snapshot_id = "ghi789:v2"},
};
static const e2b_snap_record_list recs = {recs_items, 3};

static void test_by_id(void)
{
    e2b_template t = {.template_id = "abc123"};
    const e2b_snap_record *r = e2b_snap_record_of_template(&recs, &t);
    CHECK(r);
    CHECK_STR_EQ(r->name, "plain");
    t.template_id = "def456"; /* the namespace and the tag are not part of the id */
    r = e2b_snap_record_of_template(&recs, &t);
    CHECK(r);
    CHECK_STR_EQ(r->name, "teamed");
}

static void test_by_alias(void)
{
    char *aliases[] = {"other", "ghi789"};
    e2b_template t = {.template_id = "zzz", .aliases = aliases, .naliases = 2};
    const e2b_snap_record *r = e2b_snap_record_of_template(&recs, &t);
    CHECK(r);
    CHECK_STR_EQ(r->name, "tagged");
}

static void test_no_prefix_match(void)
{
    char *aliases[] = {"def45", "team-x"};
    e2b_template t = {.template_id = "abc12", .aliases = aliases, .naliases = 2};
    CHECK(e2b_snap_record_of_template(&recs, &t) == NULL);
    t.template_id = "abc1234";
    CHECK(e2b_snap_record_of_template(&recs, &t) == NULL);
    CHECK(e2b_snap_record_of_template(&(e2b_snap_record_list){0}, &t) == NULL);
}

/* Ours: a record here, or an "e2b-tui-" alias in any place (made on another machine). */
static void test_is_ours(void)
{
    char *aliases[] = {"team-alias", "e2b-tui-feat-x-1"};
    e2b_template t = {.template_id = "zzz", .aliases = aliases, .naliases = 2};
    CHECK(e2b_snap_template_is_ours(&(e2b_snap_record_list){0}, &t));
    t.naliases = 1;
    CHECK(!e2b_snap_template_is_ours(&(e2b_snap_record_list){0}, &t));
    t.template_id = "abc123";
    CHECK(e2b_snap_template_is_ours(&recs, &t));
    char *near[] = {"e2b-tu-x", "xe2b-tui-"};
    e2b_template u = {.template_id = "zzz", .aliases = near, .naliases = 2};
    CHECK(!e2b_snap_template_is_ours(&recs, &u));
}

int main(void)
{
    RUN(test_by_id);
    RUN(test_by_alias);
    RUN(test_no_prefix_match);
    RUN(test_is_ours);
    return harness_finish();
}
