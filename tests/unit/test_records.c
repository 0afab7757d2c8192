/* core/records: atomic 0600 box records in a 0700 directory, exclusive names, corrupt files. */
#include "core/box/records.h"
#include "tests/lib/harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char base_dir[256];

static void make_base(void)
{
    snprintf(base_dir, sizeof base_dir, "/tmp/e2b-records-XXXXXX");
    if (!mkdtemp(base_dir))
        abort();
}

static e2b_box_record sample(const char *name)
{
    e2b_box_record r = {.name = (char *)name, .sandbox_id = "isb123", .template_id = "opencode",
                    .branch = "feat/x", .base = "0123456789012345678901234567890123456789",
                    .dir = "/home/u/proj dir", .port = 4096, .opencode = 2, .hours = 3,
                    .created_at = 1700000000};
    return r;
}

static void test_write_read_modes(void)
{
    char dir[300], file[400];
    struct stat st;
    e2b_box_record r = sample("feat-x"), back;
    snprintf(dir, sizeof dir, "%s/a/boxes", base_dir);
    e2b_error *err = e2b_box_record_write(dir, &r, 1);
    CHECK_MSG(!err, "%s", err ? e2b_error_message(err) : "");
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    snprintf(file, sizeof file, "%s/feat-x.json", dir);
    CHECK(stat(file, &st) == 0 && (st.st_mode & 0777) == 0600);
    err = e2b_box_record_read(dir, "feat-x", &back);
    CHECK(!err);
    CHECK_STR_EQ(back.sandbox_id, "isb123");
    CHECK_STR_EQ(back.branch, "feat/x");
    CHECK_STR_EQ(back.dir, "/home/u/proj dir");
    CHECK_INT_EQ(back.port, 4096);
    CHECK_INT_EQ(back.opencode, 2);
    CHECK_INT_EQ(back.hours, 3); /* the box's lifetime: a resume gives it that again */
    CHECK(back.created_at == 1700000000);
    CHECK(!back.egress); /* none written: none read (an older record) */
    e2b_box_record_clear(&back);
    /* the egress summary (core/box/box_egress.h) comes back as it went */
    r.egress = "{\"allow_out\":[\"a.example\"],\"deny_out\":[],\"internet\":false,\"secrets\":[]}";
    CHECK(!e2b_box_record_write(dir, &r, 0));
    CHECK(!e2b_box_record_read(dir, "feat-x", &back));
    CHECK(back.egress);
    CHECK_STR_EQ(back.egress, r.egress);
    e2b_box_record_clear(&back);
    r.egress = NULL;
    CHECK(e2b_box_record_exists(dir, "feat-x"));
    CHECK(!e2b_box_record_exists(dir, "other"));
}

/* What up found in the box is kept (version 2), and a version 1 record, written before
 * detection, reads as its preset's OpenCode. An edited file gives only a known name and a
 * version word. */
static void test_opencode_fields(void)
{
    char dir[300], file[400];
    e2b_box_record r = sample("oc-box"), back;
    e2b_opencode_kind k;
    r.opencode = 1;
    snprintf(r.opencode_bin, sizeof r.opencode_bin, "opencode");
    snprintf(r.opencode_version, sizeof r.opencode_version, "1.18.33");
    snprintf(dir, sizeof dir, "%s/oc", base_dir);
    CHECK(!e2b_box_record_write(dir, &r, 1));
    CHECK(!e2b_box_record_read(dir, "oc-box", &back));
    CHECK_INT_EQ(back.opencode, 1);
    CHECK_STR_EQ(back.opencode_bin, "opencode");
    CHECK_STR_EQ(back.opencode_version, "1.18.33");
    e2b_box_record_clear(&back);
    snprintf(file, sizeof file, "%s/oc-box.json", dir);
    char text[600];
    FILE *f = fopen(file, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = 0;
    CHECK(strstr(text, "\"version\": 2"));
    const char *old[][2] = {
        {"{\"version\":1,\"name\":\"old1\",\"sandbox_id\":\"i1\",\"opencode\":1}", "opencode"},
        {"{\"version\":1,\"name\":\"old2\",\"sandbox_id\":\"i2\",\"opencode\":2}", "opencode2"},
        {"{\"version\":1,\"name\":\"old3\",\"sandbox_id\":\"i3\"}", "opencode2"},
        {"{\"version\":2,\"name\":\"old4\",\"sandbox_id\":\"i4\",\"opencode\":2,"
         "\"opencode_bin\":\"/tmp/evil\",\"opencode_version\":\"2.0\\u001b[2J\"}", "opencode2"},
    };
    for (int i = 0; i < 4; i++) {
        char name[8];
        snprintf(name, sizeof name, "old%d", i + 1);
        snprintf(file, sizeof file, "%s/%s.json", dir, name);
        f = fopen(file, "w");
        fputs(old[i][0], f);
        fclose(f);
        CHECK(!e2b_box_record_read(dir, name, &back));
        e2b_box_record_opencode(&back, &k);
        CHECK_STR_EQ(k.bin, old[i][1]);
        CHECK_INT_EQ(k.api, i == 0 ? 1 : 2);
        CHECK_STR_EQ(k.version, i == 3 ? "2.0" : "");
        e2b_box_record_clear(&back);
    }
}

static void test_exclusive_conflict(void)
{
    char dir[300];
    e2b_box_record r = sample("dup");
    snprintf(dir, sizeof dir, "%s/b", base_dir);
    CHECK(!e2b_box_record_write(dir, &r, 1));
    r.sandbox_id = "isb999";
    e2b_error *err = e2b_box_record_write(dir, &r, 1);
    CHECK(err && err->kind == E2B_ERR_CONFLICT);
    CHECK(strstr(e2b_error_message(err), "already exists"));
    e2b_error_free(err);
    e2b_box_record back;
    CHECK(!e2b_box_record_read(dir, "dup", &back));
    CHECK_STR_EQ(back.sandbox_id, "isb123"); /* the first one kept its record */
    e2b_box_record_clear(&back);
    CHECK(!e2b_box_record_write(dir, &r, 0)); /* replace is allowed */
    CHECK(!e2b_box_record_read(dir, "dup", &back));
    CHECK_STR_EQ(back.sandbox_id, "isb999");
    e2b_box_record_clear(&back);
}

static void test_missing_and_bad_names(void)
{
    char dir[300];
    e2b_box_record back, r = sample("../evil");
    snprintf(dir, sizeof dir, "%s/c", base_dir);
    e2b_error *err = e2b_box_record_read(dir, "nope", &back);
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    e2b_error_free(err);
    err = e2b_box_record_write(dir, &r, 0);
    CHECK(err && err->kind == E2B_ERR_INVALID);
    e2b_error_free(err);
    err = e2b_box_record_read(dir, "a/b", &back);
    CHECK(err && err->kind == E2B_ERR_INVALID);
    e2b_error_free(err);
    CHECK(!e2b_box_record_remove(dir, "nope")); /* nothing to remove is fine */
}

static void test_list_skips_corrupt_and_temp(void)
{
    char dir[300], file[400];
    e2b_box_record_list list;
    char *skipped = NULL;
    e2b_box_record a = sample("b-box"), b = sample("a-box");
    b.sandbox_id = "isb2";
    snprintf(dir, sizeof dir, "%s/d", base_dir);
    CHECK(!e2b_box_record_write(dir, &a, 1));
    CHECK(!e2b_box_record_write(dir, &b, 1));
    snprintf(file, sizeof file, "%s/broken.json", dir);
    FILE *f = fopen(file, "w");
    CHECK(f);
    fputs("{\"name\": \"broken\", ", f); /* a half-written file from another tool */
    fclose(f);
    snprintf(file, sizeof file, "%s/.c-box.1.tmp", dir);
    f = fopen(file, "w");
    CHECK(f);
    fputs("{}", f);
    fclose(f);
    CHECK(!e2b_box_record_list_read(dir, &list, &skipped));
    CHECK_INT_EQ((int)list.count, 2);
    CHECK_STR_EQ(list.items[0].name, "a-box");
    CHECK_STR_EQ(list.items[1].name, "b-box");
    CHECK(e2b_box_record_list_find_sandbox(&list, "isb2") == &list.items[0]);
    CHECK(e2b_box_record_list_find(&list, "b-box") == &list.items[1]);
    CHECK(skipped && strstr(skipped, "broken.json"));
    free(skipped);
    e2b_box_record_list_clear(&list);
    CHECK(!e2b_box_record_remove(dir, "a-box"));
    CHECK(!e2b_box_record_exists(dir, "a-box"));
}

static void touch(const char *dir, const char *name)
{
    char file[600];
    snprintf(file, sizeof file, "%s/%s", dir, name);
    FILE *f = fopen(file, "w");
    CHECK(f);
    if (f) {
        fputs("{\"name\": ", f); /* a writer killed mid-write */
        fclose(f);
    }
}

static int exists_in(const char *dir, const char *name)
{
    char file[600];
    struct stat st;
    snprintf(file, sizeof file, "%s/%s", dir, name);
    return lstat(file, &st) == 0;
}

/* A writer killed between its temp file and the rename leaves ".<name>.<pid>.tmp": the next
 * list or write removes it once that pid is gone, and leaves a live writer's file alone. */
static void test_stale_temp_files_swept(void)
{
    char dir[300], dead[64], live[64], dead2[64];
    e2b_box_record_list list;
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    CHECK(child > 0);
    waitpid(child, NULL, 0);
    snprintf(dir, sizeof dir, "%s/sweep", base_dir);
    e2b_box_record a = sample("a-box");
    CHECK(!e2b_box_record_write(dir, &a, 1));
    snprintf(dead, sizeof dead, ".c-box.%ld.tmp", (long)child);
    snprintf(dead2, sizeof dead2, ".d.x.%ld.tmp", (long)child);
    snprintf(live, sizeof live, ".e-box.%ld.tmp", (long)getpid());
    touch(dir, dead);
    touch(dir, live);
    touch(dir, ".notes");
    CHECK(!e2b_box_record_list_read(dir, &list, NULL));
    CHECK_INT_EQ((int)list.count, 1);
    e2b_box_record_list_clear(&list);
    CHECK(!exists_in(dir, dead));
    CHECK(exists_in(dir, live));
    CHECK(exists_in(dir, ".notes"));
    touch(dir, dead2);
    e2b_box_record b = sample("b-box");
    CHECK(!e2b_box_record_write(dir, &b, 1));
    CHECK(!exists_in(dir, dead2));
    CHECK(exists_in(dir, live));
}

static void test_list_missing_dir(void)
{
    e2b_box_record_list list;
    char dir[300];
    snprintf(dir, sizeof dir, "%s/none", base_dir);
    CHECK(!e2b_box_record_list_read(dir, &list, NULL));
    CHECK_INT_EQ((int)list.count, 0);
}

static void test_no_secret_fields(void)
{
    /* The record JSON holds only the documented, non-secret keys. */
    char dir[300], file[400], buf[2048];
    e2b_box_record r = sample("plain");
    snprintf(dir, sizeof dir, "%s/e", base_dir);
    CHECK(!e2b_box_record_write(dir, &r, 1));
    snprintf(file, sizeof file, "%s/plain.json", dir);
    int fd = open(file, O_RDONLY);
    CHECK(fd >= 0);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    CHECK(n > 0);
    buf[n] = '\0';
    CHECK(!strstr(buf, "password"));
    CHECK(!strstr(buf, "token"));
    CHECK(strstr(buf, "\"version\": 2"));
}

static void test_turn_owed(void)
{
    /* A turn owed goes to the record and back (and away); an edited file's nonsense is none. */
    char dir[300], file[400];
    e2b_box_record r = sample("owed"), got = {0};
    snprintf(dir, sizeof dir, "%s/owed", base_dir);
    r.turn_owed_ms = 1796179475124LL;
    snprintf(r.turn_owed_session, sizeof r.turn_owed_session, "ses_dcb5c8c6bffeyvWe3QFvspgns9");
    CHECK(!e2b_box_record_write(dir, &r, 1));
    CHECK(!e2b_box_record_read(dir, "owed", &got));
    CHECK(got.turn_owed_ms == 1796179475124LL);
    CHECK_STR_EQ(got.turn_owed_session, "ses_dcb5c8c6bffeyvWe3QFvspgns9");
    e2b_box_record_clear(&got);
    r.turn_owed_ms = 0; /* cleared: nothing of it is left in the file */
    CHECK(!e2b_box_record_write(dir, &r, 0));
    CHECK(!e2b_box_record_read(dir, "owed", &got));
    CHECK(got.turn_owed_ms == 0);
    CHECK_STR_EQ(got.turn_owed_session, "");
    e2b_box_record_clear(&got);
    snprintf(file, sizeof file, "%s/owed.json", dir);
    FILE *f = fopen(file, "w");
    CHECK(f);
    fputs("{\"version\":2,\"name\":\"owed\",\"sandbox_id\":\"isb1\",\"turn_owed_ms\":5,"
          "\"turn_owed_session\":\"x\"}\n", f);
    fclose(f);
    CHECK(!e2b_box_record_read(dir, "owed", &got));
    CHECK(got.turn_owed_ms == 0); /* not a time */
    CHECK_STR_EQ(got.turn_owed_session, "");
    e2b_box_record_clear(&got);
    f = fopen(file, "w");
    CHECK(f);
    fputs("{\"version\":2,\"name\":\"owed\",\"sandbox_id\":\"isb1\",\"turn_owed_ms\":"
          "1796179475124,\"turn_owed_session\":\"ses_1\\u001b[2J\"}\n", f);
    fclose(f);
    CHECK(!e2b_box_record_read(dir, "owed", &got));
    CHECK(got.turn_owed_ms == 1796179475124LL); /* the time stands, the session is not known */
    CHECK_STR_EQ(got.turn_owed_session, "");
    e2b_box_record_clear(&got);
}

static void test_approval_rules(void)
{
    /* The rules and yes-all go to the record and back; a bad one is refused, not kept. */
    char dir[300];
    e2b_box_record r = sample("ruled"), got = {0};
    snprintf(dir, sizeof dir, "%s/rules", base_dir);
    CHECK(e2b_box_record_approve_add(&r, "bash:python3 -m unittest*") == 0);
    CHECK(e2b_box_record_approve_add(&r, "edit") == 0);
    CHECK(e2b_box_record_approve_add(&r, "edit") == 0); /* once */
    CHECK(e2b_box_record_approve_add(&r, "bash:ls\x1b[2J") < 0);
    CHECK(e2b_box_record_approve_add(&r, "") < 0);
    r.yes_all = true;
    CHECK(!e2b_box_record_write(dir, &r, 1));
    CHECK(!e2b_box_record_read(dir, "ruled", &got));
    CHECK_INT_EQ(got.napprove, 2);
    CHECK_STR_EQ(got.approve[0], "bash:python3 -m unittest*");
    CHECK_STR_EQ(got.approve[1], "edit");
    CHECK(got.yes_all);
    CHECK(e2b_box_record_approve_remove(&got, "edit"));
    CHECK(!e2b_box_record_approve_remove(&got, "edit"));
    CHECK_INT_EQ(got.napprove, 1);
    e2b_box_record_clear(&got);
    for (size_t i = 0; i < r.napprove; i++)
        free(r.approve[i]);
    free(r.approve);
}

/* Every field counts: an open dashboard reads the records again when any differs (another
 * process's --up --try notes a member's model after its task). */
static void test_same_every_field(void)
{
    e2b_box_record a = sample("g-1"), b = sample("g-1");
    char *rules_a[] = {"bash:make *"}, *rules_b[] = {"bash:make test"};
    a.approve = b.approve = rules_a;
    a.napprove = b.napprove = 1;
    CHECK(e2b_box_record_same(&a, &b));
    b.dir = NULL, a.dir = "";
    CHECK_MSG(e2b_box_record_same(&a, &b), "NULL and \"\" are the same text");
    a = sample("g-1"), b = sample("g-1");
    snprintf(b.model, sizeof b.model, "mock/m2");
    CHECK_MSG(!e2b_box_record_same(&a, &b), "the model");
    b = sample("g-1"), b.task_at = 1700000100;
    CHECK_MSG(!e2b_box_record_same(&a, &b), "when the task was given");
    b = sample("g-1"), snprintf(b.group, sizeof b.group, "g");
    CHECK_MSG(!e2b_box_record_same(&a, &b), "the group");
    b = sample("g-1"), b.budget_usd = 2.5;
    CHECK_MSG(!e2b_box_record_same(&a, &b), "the budget");
    b = sample("g-1"), b.budget_stopped = true;
    CHECK_MSG(!e2b_box_record_same(&a, &b), "stopped at its budget");
    b = sample("g-1"), b.hours = 4;
    CHECK_MSG(!e2b_box_record_same(&a, &b), "the hours");
    b = sample("g-1"), b.egress = "{\"allow\":[]}";
    CHECK_MSG(!e2b_box_record_same(&a, &b), "the egress");
    b = sample("g-1"), snprintf(b.opencode_version, sizeof b.opencode_version, "1.18.33");
    CHECK_MSG(!e2b_box_record_same(&a, &b), "the server's version");
    b = sample("g-1"), b.yes_all = true;
    CHECK_MSG(!e2b_box_record_same(&a, &b), "yes to every request");
    a.approve = rules_a, b = sample("g-1"), b.approve = rules_b;
    a.napprove = b.napprove = 1;
    CHECK_MSG(!e2b_box_record_same(&a, &b), "an approval rule");
}

int main(void)
{
    make_base();
    RUN(test_same_every_field);
    RUN(test_approval_rules);
    RUN(test_turn_owed);
    RUN(test_write_read_modes);
    RUN(test_opencode_fields);
    RUN(test_exclusive_conflict);
    RUN(test_missing_and_bad_names);
    RUN(test_list_skips_corrupt_and_temp);
    RUN(test_stale_temp_files_swept);
    RUN(test_list_missing_dir);
    RUN(test_no_secret_fields);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base_dir);
    if (system(cmd) != 0)
        return 1;
    return harness_finish();
}
