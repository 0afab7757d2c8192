/* core/box_util: passwords, command templates (argv and shell forms), merged listing. */
#include "core/box/box.h"
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

static void test_password(void)
{
    char a[33], b[33];
    CHECK(e2b_box_password(a) == 0);
    CHECK(e2b_box_password(b) == 0);
    CHECK_INT_EQ((int)strlen(a), 32);
    CHECK(strcmp(a, b) != 0);
    for (int i = 0; i < 32; i++)
        CHECK((a[i] >= 'A' && a[i] <= 'Z') || (a[i] >= 'a' && a[i] <= 'z') ||
              (a[i] >= '0' && a[i] <= '9'));
}

static void test_argv_substitution(void)
{
    char **v = e2b_box_command_argv("opencode2 --server {url} {dir}", "http://x:1", "/p q/r", 4096);
    CHECK(v);
    CHECK_STR_EQ(v[0], "opencode2");
    CHECK_STR_EQ(v[1], "--server");
    CHECK_STR_EQ(v[2], "http://x:1");
    CHECK_STR_EQ(v[3], "/p q/r"); /* a directory with a space stays one argument */
    CHECK(v[4] == NULL);
    e2b_box_argv_free(v);
}

static void test_argv_quotes(void)
{
    char **v = e2b_box_command_argv("sh -c 'echo \"$1\"; x' sh --dir={dir}", NULL, "/d", 1);
    CHECK(v);
    CHECK_STR_EQ(v[1], "-c");
    CHECK_STR_EQ(v[2], "echo \"$1\"; x");
    CHECK_STR_EQ(v[4], "--dir=/d");
    e2b_box_argv_free(v);
    CHECK(e2b_box_command_argv("a 'unbalanced", NULL, NULL, 1) == NULL);
    CHECK(e2b_box_command_argv("   ", NULL, NULL, 1) == NULL);
    CHECK(e2b_box_command_argv(NULL, NULL, NULL, 1) == NULL);
}

static void test_shell_form_quotes_values(void)
{
    char *s = e2b_box_command_shell("{dir}/tools/srv serve --port {port}", NULL,
                                    "/a b/it's $(rm -rf x)", 4096);
    CHECK(s);
    /* each word single-quoted: the directory is data, never shell code */
    CHECK_STR_EQ(s, "'/a b/it'\\''s $(rm -rf x)/tools/srv' 'serve' '--port' '4096'");
    free(s);
}

static void test_listing(void)
{
    e2b_sandbox sbs[3] = {0};
    sbs[0].sandbox_id = "i1";
    sbs[0].kind = E2B_KIND_OTHER;
    sbs[0].state = E2B_STATE_RUNNING;
    sbs[1].sandbox_id = "i2";
    sbs[1].kind = E2B_KIND_BOX;
    sbs[1].box_name = "zeta";
    sbs[1].state = E2B_STATE_PAUSED;
    sbs[2].sandbox_id = "i3";
    sbs[2].kind = E2B_KIND_WORKSPACE;
    e2b_sandbox_list list = {.items = sbs, .count = 3, .total_running = -1};
    box_record recs[2] = {{.name = "alpha", .sandbox_id = "i9", .dir = "/x"},
                          {.name = "zeta", .sandbox_id = "i2", .dir = "/y"}};
    box_record_list rl = {recs, 2};
    e2b_box_listing l;
    CHECK(e2b_box_listing_build(&rl, &list, &l) == 0);
    CHECK_INT_EQ((int)l.count, 4);
    CHECK_STR_EQ(l.items[0].name, "alpha"); /* boxes first, by name */
    CHECK(l.items[0].state == E2B_BOX_GONE && l.items[0].sandbox == NULL);
    CHECK_STR_EQ(l.items[1].name, "zeta");
    CHECK(l.items[1].state == E2B_BOX_PAUSED && l.items[1].record == &recs[1]);
    CHECK(l.items[2].kind == E2B_KIND_WORKSPACE);
    CHECK(l.items[3].kind == E2B_KIND_OTHER);
    e2b_box_listing_clear(&l);
}

int main(void)
{
    RUN(test_password);
    RUN(test_argv_substitution);
    RUN(test_argv_quotes);
    RUN(test_shell_form_quotes_values);
    RUN(test_listing);
    return harness_finish();
}
