/* core/util/limits.h: the defaults of the input policy and how a user raises them. */
#include "core/util/limits.h"
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

static void test_defaults(void)
{
    e2b_limits l = e2b_limits_default();
    CHECK(l.bundle_bytes == (uint64_t)2 << 30);
    CHECK(l.object_bytes == (uint64_t)256 << 20);
    CHECK(l.inflated_bytes == (uint64_t)8 << 30);
    CHECK_INT_EQ(l.tree_depth, 4096);
    CHECK_INT_EQ(l.delta_depth, 4095);
    CHECK_INT_EQ(l.list_pages, 1000);
}

static void test_set(void)
{
    e2b_limits l = e2b_limits_default();
    CHECK(e2b_limits_set(&l, "bundle_bytes", "8G") == NULL);
    CHECK(l.bundle_bytes == (uint64_t)8 << 30);
    CHECK(e2b_limits_set(&l, "bundle_bytes", "500m") == NULL);
    CHECK(l.bundle_bytes == (uint64_t)500 << 20);
    CHECK(e2b_limits_set(&l, "bundle_bytes", "65536") == NULL);
    CHECK(l.bundle_bytes == 65536);
    CHECK(e2b_limits_set(&l, "tree_depth", "10000") == NULL);
    CHECK_INT_EQ(l.tree_depth, 10000);
    CHECK(e2b_limits_set(&l, "list_pages", "5") == NULL);
    CHECK_INT_EQ(l.list_pages, 5);
    CHECK(e2b_limits_set(&l, "object_bytes", "1G") == NULL);
    CHECK(l.object_bytes == (uint64_t)1 << 30);
    CHECK(e2b_limits_set(&l, "inflated_bytes", "64g") == NULL);
    CHECK(l.inflated_bytes == (uint64_t)64 << 30);
    CHECK(e2b_limits_set(&l, "delta_depth", "50") == NULL);
    CHECK_INT_EQ(l.delta_depth, 50);
    CHECK(l.bundle_bytes == 65536 && l.tree_depth == 10000); /* each key sets its own */
    const char *bad[][2] = {{"bundle_bytes", "12"},        {"bundle_bytes", "-1G"},
                            {"bundle_bytes", "1T"},        {"bundle_bytes", "99999999999999G"},
                            {"bundle_bytes", ""},          {"tree_depth", "0"},
                            {"tree_depth", "4k"},          {"list_pages", "1000001"},
                            {"list_pages", " 5"},          {"nope", "1"},
                            {"object_bytes", "1000"},      {"inflated_bytes", "1T"},
                            {"delta_depth", "0"},          {"delta_depth", "1M"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        e2b_limits before = l;
        e2b_error *e = e2b_limits_set(&l, bad[i][0], bad[i][1]);
        CHECK_MSG(e && e->kind == E2B_ERR_INVALID && strstr(e2b_error_message(e), "limit."),
                  "%s = %s accepted", bad[i][0], bad[i][1]);
        CHECK(before.bundle_bytes == l.bundle_bytes && before.object_bytes == l.object_bytes &&
              before.inflated_bytes == l.inflated_bytes && before.tree_depth == l.tree_depth &&
              before.delta_depth == l.delta_depth && before.list_pages == l.list_pages);
        e2b_error_free(e);
    }
}

int main(void)
{
    RUN(test_defaults);
    RUN(test_set);
    return harness_finish();
}
