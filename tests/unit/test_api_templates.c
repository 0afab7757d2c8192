/* Templates and snapshots from the network (core/e2b/api_templates.h): well-formed replies
 * parse, hostile ones are protocol errors without leaks, and the GC's rule (managed, most
 * recent of lastSpawnedAt/updatedAt/createdAt older than the TTL) holds at its edges. */
#include "core/e2b/api_templates.h"
#include "tests/lib/harness.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *parse(const char *text)
{
    return json_loads(text, 0, NULL);
}

static void test_template_list_parses(void)
{
    json_t *j = parse("[{\"templateID\":\"opencode-e2b-a\",\"aliases\":[\"x\",\"y\"],\"names\":[\"t/x\"],"
                      "\"public\":false,\"createdAt\":\"2025-01-01T00:00:00Z\",\"updatedAt\":\"2025-01-02T00:00:00Z\","
                      "\"lastSpawnedAt\":null,\"spawnCount\":3,\"buildCount\":2},"
                      "{\"templateID\":\"base\",\"public\":true}]");
    e2b_template_list l;
    e2b_error *e = e2b_template_list_from_json(j, &l);
    json_decref(j);
    CHECK(e == NULL);
    CHECK_INT_EQ(l.count, 2);
    CHECK_STR_EQ(l.items[0].aliases[1], "y");
    CHECK_INT_EQ(l.items[0].build_count, 2);
    CHECK_INT_EQ(l.items[0].last_spawned_at, 0);
    CHECK_INT_EQ(e2b_template_last_used(&l.items[0]), 1735776000);
    CHECK(l.items[1].is_public);
    CHECK_INT_EQ(l.items[1].naliases, 0);
    for (size_t i = 0; i < l.count; i++) {
        free(l.items[i].template_id);
        for (size_t k = 0; k < l.items[i].naliases; k++)
            free(l.items[i].aliases[k]);
        free(l.items[i].aliases);
        for (size_t k = 0; k < l.items[i].nnames; k++)
            free(l.items[i].names[k]);
        free(l.items[i].names);
    }
    free(l.items);
}

static void test_hostile_template_lists_are_refused(void)
{
    const char *bad[] = {
        "{\"templateID\":\"x\"}",                          /* not an array */
        "[{\"aliases\":[]}]",                             /* no id */
        "[{\"templateID\":\"a\"},{\"templateID\":7}]",     /* a later one without an id */
        "[{\"templateID\":\"a\",\"aliases\":[\"x\",3]}]",   /* a non-string alias */
        "[{\"templateID\":\"a\",\"names\":\"t/a\"}]",       /* names not an array */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_t *j = parse(bad[i]);
        e2b_template_list l;
        e2b_error *e = e2b_template_list_from_json(j, &l);
        json_decref(j);
        CHECK_MSG(e != NULL, "accepted %s", bad[i]);
        CHECK_INT_EQ(e->kind, E2B_ERR_PROTOCOL);
        CHECK_INT_EQ(l.count, 0);
        e2b_error_free(e);
    }
}

static void test_snapshot_parses_and_refuses(void)
{
    json_t *j = parse("{\"snapshotID\":\"t/s:default\",\"names\":[\"t/s:default\"]}");
    e2b_snapshot s;
    CHECK(e2b_snapshot_from_json(j, &s) == NULL);
    json_decref(j);
    CHECK_STR_EQ(s.snapshot_id, "t/s:default");
    CHECK_INT_EQ(s.nnames, 1);
    free(s.snapshot_id);
    free(s.names[0]);
    free(s.names);
    const char *bad[] = {"{}", "{\"snapshotID\":\"\"}", "[]", "{\"snapshotID\":\"a\",\"names\":[null]}"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        j = parse(bad[i]);
        e2b_error *e = e2b_snapshot_from_json(j, &s);
        json_decref(j);
        CHECK_MSG(e != NULL, "accepted %s", bad[i]);
        e2b_error_free(e);
    }
}

#define HERE "0123456789ab"
#define THERE "ba9876543210"

static void test_gc_rule(void)
{
    char *aliases[] = {"opencode-e2b-ws-m" HERE};
    e2b_template t = {.template_id = "opencode-e2b-a-m" HERE, .created_at = 1000};
    long ttl = 3 * 86400;
    CHECK(e2b_template_is_managed(&t));
    CHECK(!e2b_template_gc_due(&t, 1000 + ttl, ttl, HERE)); /* exactly the TTL: kept */
    CHECK(e2b_template_gc_due(&t, 1000 + ttl + 1, ttl, HERE));
    t.last_spawned_at = 1000 + ttl; /* used since: kept */
    CHECK(!e2b_template_gc_due(&t, 1000 + ttl + 1, ttl, HERE));
    t.last_spawned_at = 0;
    t.updated_at = 1000 + 10;
    CHECK(!e2b_template_gc_due(&t, 1000 + ttl + 5, ttl, HERE));
    e2b_template team = {.template_id = "mine", .created_at = 1};
    CHECK(!e2b_template_gc_due(&team, 1 + 10 * ttl, ttl, HERE)); /* not managed: never */
    team.aliases = aliases;
    team.naliases = 1;
    CHECK(e2b_template_gc_due(&team, 1 + 10 * ttl, ttl, HERE)); /* managed by its alias */
    team.is_public = 1;
    CHECK(!e2b_template_gc_due(&team, 1 + 10 * ttl, ttl, HERE)); /* a public one is not the team's */
    e2b_template unknown = {.template_id = "opencode-e2b-b-m" HERE};
    CHECK(!e2b_template_gc_due(&unknown, 10 * ttl, ttl, HERE)); /* no time known: kept */
}

static void test_gc_keeps_other_machines_templates(void)
{
    long ttl = 3 * 86400, old = 1 + 10 * ttl;
    e2b_template there = {.template_id = "opencode-e2b-proj-m" THERE, .created_at = 1};
    CHECK(e2b_template_is_managed(&there));
    CHECK(!e2b_template_made_here(&there, HERE));
    CHECK(!e2b_template_gc_due(&there, old, ttl, HERE));
    CHECK(e2b_template_gc_due(&there, old, ttl, THERE)); /* on its own machine it goes */
    e2b_template unmarked = {.template_id = "opencode-e2b-proj", .created_at = 1};
    CHECK(!e2b_template_gc_due(&unmarked, old, ttl, HERE)); /* no maker known: kept */
    /* Near misses of the mark: a capital, a short id, the mark with no project before it. */
    const char *near[] = {"opencode-e2b-p-m0123456789AB", "opencode-e2b-p-m0123456789a",
                          "opencode-e2b--m" HERE "x", "opencode-e2b-m" HERE, "x-opencode-e2b-p-m" HERE};
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        e2b_template n = {.template_id = (char *)near[i], .created_at = 1};
        CHECK(!e2b_template_gc_due(&n, old, ttl, HERE));
    }
    CHECK(!e2b_template_gc_due(&there, old, ttl, NULL)); /* no machine id: nothing goes */
    CHECK(!e2b_template_gc_due(&there, old, ttl, ""));
    char project[64];
    e2b_template_project(&there, project, sizeof project);
    CHECK_STR_EQ(project, "proj");
    e2b_template_project(&unmarked, project, sizeof project);
    CHECK_STR_EQ(project, "");
}

int main(void)
{
    RUN(test_template_list_parses);
    RUN(test_hostile_template_lists_are_refused);
    RUN(test_snapshot_parses_and_refuses);
    RUN(test_gc_rule);
    RUN(test_gc_keeps_other_machines_templates);
    return harness_finish();
}
