/* What a remake makes a gone box again from (core/box/box.h e2b_box_remake_plan_of): the
 * newest snapshot of the box, else its project on the template under its snapshots; the
 * egress its record keeps, less what the rules add by themselves; the sentence it says. */
#include "core/box/box.h"
#include "core/box/snap_records.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char state[256];

static void snap(const char *name, const char *id, const char *box, const char *tmpl, time_t at)
{
    e2b_snap_record r = {.name = (char *)name, .snapshot_id = (char *)id, .box = (char *)box,
                         .sandbox_id = "sb", .template_id = (char *)tmpl, .dir = "/p",
                         .branch = "main", .commit = "", .port = 4096, .opencode = 1,
                         .created_at = at};
    e2b_error *e = e2b_snap_record_write(state, &r);
    CHECK(e == NULL);
    e2b_error_free(e);
}

static void test_from_the_project(void)
{
    /* made from snapshot s-old (taken of another box, from "base"), now gone: its project
     * is remade on "base", not on a snapshot */
    snap("other-snap", "tpl-other", "other", "base", 100);
    e2b_box_record rec = {.name = "feat", .template_id = "tpl-other", .dir = "/p", .branch = "main"};
    e2b_box_remake_plan p;
    e2b_box_remake_plan_of(state, &rec, 1000, &p);
    CHECK_STR_EQ(p.snapshot, "");
    CHECK_STR_EQ(p.base_template, "base");
    CHECK_STR_EQ(p.says, "box feat's sandbox is gone: remaking it from its project /p, branch main "
                         "(it has no snapshot); everything the box did that was not pulled is lost");
    CHECK_INT_EQ(p.internet, -1);
}

static void test_from_the_newest_snapshot(void)
{
    snap("feat-1", "tpl-1", "feat", "base", 1000);
    snap("feat-2", "tpl-2", "feat", "tpl-1", 5000);
    e2b_box_record rec = {.name = "feat", .template_id = "tpl-2", .dir = "/p", .branch = "main"};
    e2b_box_remake_plan p;
    e2b_box_remake_plan_of(state, &rec, 5000 + 2 * 86400 + 5, &p);
    CHECK_STR_EQ(p.snapshot, "feat-2");
    CHECK_INT_EQ((long)p.taken_at, 5000);
    CHECK_STR_EQ(p.base_template, "base"); /* tpl-2 -> tpl-1 -> base */
    CHECK_STR_EQ(p.says, "box feat's sandbox is gone: remaking it from its snapshot feat-2 (taken 2 "
                         "days ago); what the box did after that and was not pulled is lost");
}

static void test_egress_kept(void)
{
    /* an allow list: the rules added 0.0.0.0/0 to deny and the secret's host to allow */
    e2b_box_record rec = {
        .name = "net", .template_id = "base", .dir = "/p", .branch = "",
        .egress = "{\"internet\":true,\"allow_out\":[\"api.example.com\",\"api.openai.com\"],"
                  "\"deny_out\":[\"0.0.0.0/0\",\"10.0.0.0/8\"],"
                  "\"secrets\":[{\"name\":\"openai\",\"host\":\"api.openai.com\"}]}"};
    e2b_box_remake_plan p;
    e2b_box_remake_plan_of(state, &rec, 0, &p);
    CHECK_STR_EQ(p.allow_out, "api.example.com");
    CHECK_STR_EQ(p.deny_out, "10.0.0.0/8");
    CHECK_INT_EQ(p.internet, 1);
    /* no internet */
    rec.egress = "{\"internet\":false,\"allow_out\":[],\"deny_out\":[],\"secrets\":[]}";
    e2b_box_remake_plan_of(state, &rec, 0, &p);
    CHECK_INT_EQ(p.internet, 0);
    CHECK_STR_EQ(p.allow_out, "");
    /* an edited record's bad entry is not passed on */
    rec.egress = "{\"internet\":true,\"allow_out\":[\"bad host!\"],\"deny_out\":[\"x.com\"]}";
    e2b_box_remake_plan_of(state, &rec, 0, &p);
    CHECK_STR_EQ(p.allow_out, "");
    CHECK_STR_EQ(p.deny_out, "");
    /* not a summary: the config's */
    rec.egress = "[1]";
    e2b_box_remake_plan_of(state, &rec, 0, &p);
    CHECK_INT_EQ(p.internet, -1);
}

static void test_hint_names_remake(void)
{
    char *h = e2b_box_remake_hint(state, "feat", "/p");
    CHECK(h != NULL);
    CHECK(strstr(h, "e2b-tui --remake feat makes it again from its last snapshot feat-2; ") == h);
    CHECK(strstr(h, "e2b-tui --up feat --from feat-2 --dir /p") != NULL);
    free(h);
    h = e2b_box_remake_hint(state, "lonely", NULL);
    CHECK(h != NULL);
    CHECK(strstr(h, "e2b-tui --remake lonely makes it again from its project; ") == h);
    free(h);
}

int main(void)
{
    snprintf(state, sizeof state, "%s/e2b-remake-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(state))
        return 1;
    RUN(test_from_the_project);
    RUN(test_from_the_newest_snapshot);
    RUN(test_egress_kept);
    RUN(test_hint_names_remake);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", state);
    if (system(cmd) != 0)
        return 1;
    return harness_finish();
}
