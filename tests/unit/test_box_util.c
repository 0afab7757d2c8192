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
    e2b_box_record recs[2] = {{.name = "alpha", .sandbox_id = "i9", .dir = "/x"},
                          {.name = "zeta", .sandbox_id = "i2", .dir = "/y"}};
    e2b_box_record_list rl = {recs, 2};
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

/* A box sandbox as listed: classified from its metadata (e2b-tui=box, e2b-tui.name). */
static void box_sandbox(e2b_sandbox *sb, const char *id, const char *meta_name)
{
    memset(sb, 0, sizeof *sb);
    sb->sandbox_id = strdup(id);
    e2b_metadata_set(&sb->metadata, E2B_META_APP, E2B_META_APP_BOX);
    e2b_metadata_set(&sb->metadata, E2B_META_NAME, meta_name);
    e2b_sandbox_classify(sb, NULL);
}

/* The identity rule: a record that names the sandbox's id wins over its metadata (a fork
 * is NAME-N), a name several sandboxes answer to is a conflict naming them all. */
static void test_identity(void)
{
    e2b_sandbox_list list = {.items = calloc(5, sizeof(e2b_sandbox)), .count = 5};
    CHECK(list.items);
    box_sandbox(&list.items[0], "parent", "feature");
    box_sandbox(&list.items[1], "fork2", "feature"); /* E2B copied the parent's metadata */
    box_sandbox(&list.items[2], "t1", "twin");       /* two boxes of another machine */
    box_sandbox(&list.items[3], "t2", "twin");
    box_sandbox(&list.items[4], "new", "dup");       /* beside a stale record "dup" */
    e2b_box_record recs[3] = {{.name = "dup", .sandbox_id = "gone"},
                          {.name = "feature", .sandbox_id = "parent"},
                          {.name = "feature-2", .sandbox_id = "fork2"}};
    e2b_box_record_list rl = {recs, 3};
    CHECK_STR_EQ(e2b_box_name_of(&rl, &list.items[1]), "feature-2");
    CHECK_STR_EQ(e2b_box_name_of(&rl, &list.items[2]), "twin");
    CHECK(e2b_box_identify(&rl, &list, NULL) == 0);
    CHECK_STR_EQ(list.items[1].box_name, "feature-2");
    CHECK_STR_EQ(list.items[0].box_name, "feature");

    e2b_box_match m;
    e2b_box_lookup(&rl, &list, "feature", &m); /* the parent only: the fork is feature-2 */
    CHECK_INT_EQ((int)m.count, 1);
    CHECK(m.sandbox == &list.items[0] && m.record == &recs[1]);
    CHECK(e2b_box_match_error(&m, "feature") == NULL);
    e2b_box_lookup(&rl, &list, "feature-2", &m);
    CHECK(m.count == 1 && m.sandbox == &list.items[1]);
    e2b_box_lookup(&rl, &list, "twin", &m);
    CHECK_INT_EQ((int)m.count, 2);
    e2b_error *err = e2b_box_match_error(&m, "twin");
    CHECK(err && err->kind == E2B_ERR_CONFLICT);
    CHECK(strstr(e2b_error_message(err), "t1") && strstr(e2b_error_message(err), "t2"));
    e2b_error_free(err);
    e2b_box_lookup(&rl, &list, "dup", &m); /* the stale record and the other machine's box */
    CHECK_INT_EQ((int)m.count, 2);
    CHECK(strstr(m.ids, "gone") && strstr(m.ids, "new"));
    e2b_box_lookup(&rl, &list, "nosuch", &m);
    CHECK_INT_EQ((int)m.count, 0);
    err = e2b_box_match_error(&m, "nosuch");
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    e2b_error_free(err);

    /* the fork's record goes: it is its metadata's box again */
    rl.count = 2;
    CHECK(e2b_box_identify(&rl, &list, NULL) == 0);
    CHECK_STR_EQ(list.items[1].box_name, "feature");
    e2b_sandbox_list_clear(&list);
}

int main(void)
{
    RUN(test_password);
    RUN(test_argv_substitution);
    RUN(test_argv_quotes);
    RUN(test_shell_form_quotes_values);
    RUN(test_listing);
    RUN(test_identity);
    return harness_finish();
}
