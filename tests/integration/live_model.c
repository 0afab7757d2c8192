/* The live model with no TUI (core/live/live.h), against e2b-local: boxes made and forked by
 * another process (the real e2b-tui binary) while the model runs are published right within
 * a few refreshes: names by this machine's records (a fork is NAME-N, not its parent's
 * metadata name), a record for each, the agent of each watched; a name several sandboxes
 * carry is a conflict in the model's look-up and in the one-shot --pull, --attach, --kill
 * and --stop (exit 5, every sandbox named, nothing done). Run by live_model_test.sh
 * (env: E2B_*, XDG_*, BOX_REPO, E2B_TUI_BIN). */
#include "core/box/box.h"
#include "core/live/live.h"
#include "tests/lib/box_env.h"
#include "tests/lib/harness.h"
#include "tests/lib/sync_calls.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static e2b_live *M;
static t_box_env T; /* a second client: the sandboxes "another machine" made */
static unsigned changes;
static char twin1[64], twin2[64], other_feature[64];

static char notices[8192]; /* every notice the model published, one a line */

static void on_change(void *ud, unsigned what)
{
    (void)ud;
    changes |= what;
    size_t used = strlen(notices);
    if ((what & E2B_LIVE_NOTICE) && used < sizeof notices - 1)
        snprintf(notices + used, sizeof notices - used, "%s\n", e2b_live_notice(M, NULL));
}

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Runs the model's loop until pred() holds or seconds pass; returns pred(). */
static bool pump_until(bool (*pred)(void), int seconds)
{
    int64_t end = now_ms() + seconds * 1000L;
    while (!pred() && now_ms() < end)
        e2b_loop_run_once(e2b_live_loop(M), 100);
    return pred();
}

/* Runs e2b-tui ARGS in BOX_REPO as another process while the model's loop runs; its stderr
 * (the first part) in err. Returns its exit status (-1 when it could not start). */
static int run_tui(char *err, size_t errsz, const char *const *args)
{
    FILE *ef = tmpfile();
    if (!ef)
        return -1;
    int efd = fileno(ef);
    const char *argv[16] = {getenv("E2B_TUI_BIN")};
    size_t n = 1;
    for (; args[n - 1] && n < 15; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addchdir_np(&fa, getenv("BOX_REPO"));
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, efd, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fclose(ef);
        return -1;
    }
    int status = 0;
    while (waitpid(pid, &status, WNOHANG) == 0)
        e2b_loop_run_once(e2b_live_loop(M), 50);
    ssize_t got = pread(efd, err, errsz - 1, 0);
    err[got > 0 ? got : 0] = '\0';
    fclose(ef);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The listed sandbox of that id, or NULL. */
static const e2b_sandbox *listed(const char *id)
{
    return id && *id ? e2b_live_sandbox(M, id) : NULL;
}

/* The model's record of the listed box called name, or NULL. */
static const e2b_box_record *record_named(const char *name)
{
    const e2b_sandbox_list *l = e2b_live_sandboxes(M);
    for (size_t i = 0; i < l->count; i++) {
        const e2b_box_record *r = e2b_live_record(M, l->items[i].sandbox_id);
        if (r && strcmp(r->name, name) == 0)
            return r;
    }
    return NULL;
}

/* The box name is published: its record, its sandbox listed under that name, its agent
 * watched (not NULL: a box of this machine) and reached (its server answered). */
static bool box_published(const char *name)
{
    const e2b_box_record *r = record_named(name);
    const e2b_sandbox *sb = r ? listed(r->sandbox_id) : NULL;
    if (!sb || strcmp(e2b_live_sandbox_name(sb), name) != 0 || !e2b_live_is_local_box(M, r->sandbox_id))
        return false;
    const e2b_agent_status *st = e2b_live_agent(M, r->sandbox_id);
    return st && st->state == E2B_AGENT_IDLE;
}

static bool feature_published(void)
{
    return box_published("feature");
}

static bool forks_published(void)
{
    return box_published("feature-2") && box_published("feature-3");
}

/* No two sandboxes of this machine's boxes carry one name. */
static bool local_names_unique(void)
{
    const e2b_sandbox_list *l = e2b_live_sandboxes(M);
    for (size_t i = 0; i < l->count; i++) {
        if (!e2b_live_is_local_box(M, l->items[i].sandbox_id))
            continue;
        for (size_t j = i + 1; j < l->count; j++)
            if (e2b_live_is_local_box(M, l->items[j].sandbox_id) &&
                strcmp(e2b_live_sandbox_name(&l->items[i]), e2b_live_sandbox_name(&l->items[j])) == 0)
                return false;
    }
    return true;
}

static void test_up_by_another_process(void)
{
    char err[2000];
    const char *up[] = {"--up", "feature", NULL};
    int rc = run_tui(err, sizeof err, up);
    CHECK_MSG(rc == 0, "--up feature: exit %d: %s", rc, err);
    /* refresh 1 s: within a few refreshes, with its server's first answer */
    CHECK_MSG(pump_until(feature_published, 30), "box feature is not published with its agent");
    CHECK(changes & E2B_LIVE_AGENTS);
}

static void test_fork_by_another_process(void)
{
    char err[2000];
    const char *fork[] = {"--fork", "feature", "--count", "2", NULL};
    int rc = run_tui(err, sizeof err, fork);
    CHECK_MSG(rc == 0, "--fork feature: exit %d: %s", rc, err);
    CHECK_MSG(pump_until(forks_published, 40),
              "the forks are not published as feature-2 and feature-3 with their agents");
    /* a fork's metadata still names its parent: the record is the truth */
    const e2b_box_record *f2 = record_named("feature-2");
    const e2b_sandbox *sb = listed(f2->sandbox_id);
    CHECK_STR_EQ(e2b_metadata_get(&sb->metadata, E2B_META_NAME), "feature");
    CHECK_STR_EQ(sb->box_name, "feature-2");
    CHECK(local_names_unique());
    /* the parent's name is the parent only */
    e2b_error *err2 = NULL;
    const e2b_sandbox *p = e2b_live_lookup(M, "feature", &err2);
    CHECK_MSG(p && !err2, "feature: %s", err2 ? e2b_error_message(err2) : "not found");
    CHECK_STR_EQ(p->sandbox_id, record_named("feature")->sandbox_id);
    p = e2b_live_lookup(M, "feature-3", &err2);
    CHECK(p && !err2);
    CHECK_STR_EQ(p->sandbox_id, record_named("feature-3")->sandbox_id);
}

static char killed_id[64];
static bool gone(void)
{
    return !record_named("feature-3") && !listed(killed_id);
}

static bool no_ops(void)
{
    return e2b_live_op_count(M) == 0;
}

/* A row action on a fork's row acts on that fork, under its record's name. */
static void test_row_action_on_a_fork(void)
{
    const e2b_box_record *f2 = record_named("feature-2");
    CHECK(f2);
    unsigned id = e2b_live_box_op(M, E2B_LIVE_OP_PULL, f2->sandbox_id);
    CHECK(id > 0);
    e2b_live_op_info info;
    CHECK(e2b_live_op_get(M, 0, &info));
    CHECK_STR_EQ(info.name, "feature-2");
    CHECK_STR_EQ(info.sandbox_id, f2->sandbox_id);
    notices[0] = '\0';
    CHECK_MSG(pump_until(no_ops, 60), "the pull did not end");
    CHECK_MSG(strstr(notices, "e2b/feature-2"), "the pull's notices: %s", notices);
}

static bool told_nothing_to_interrupt(void)
{
    return strstr(notices, "feature: nothing to interrupt") != NULL;
}

/* The model's interrupt of an idle agent says there was nothing to interrupt. */
static void test_interrupt_idle(void)
{
    notices[0] = '\0';
    CHECK(e2b_live_agent_interrupt(M, record_named("feature")->sandbox_id) == 0);
    CHECK_MSG(pump_until(told_nothing_to_interrupt, 20), "notices: %s", notices);
}

static void test_kill_by_another_process(void)
{
    char err[2000], id[64];
    const e2b_box_record *r = record_named("feature-3");
    CHECK(r);
    snprintf(id, sizeof id, "%s", r->sandbox_id);
    const char *kill[] = {"--kill", "feature-3", "--force", NULL};
    int rc = run_tui(err, sizeof err, kill);
    CHECK_MSG(rc == 0, "--kill feature-3: exit %d: %s", rc, err);
    CHECK_MSG(pump_until(gone, 20), "the killed fork is still published");
    CHECK(!e2b_live_agent(M, id));
}

/* Sandboxes made by "another machine": box metadata, no record here. */
static int make_box(const char *name, char *id, size_t idsz)
{
    e2b_metadata md = {0};
    e2b_metadata_set(&md, E2B_META_APP, E2B_META_APP_BOX);
    e2b_metadata_set(&md, E2B_META_NAME, name);
    e2b_create_params p = {.template_id = "base", .timeout_s = 3600, .metadata = &md,
                           .allow_internet_access = -1};
    e2b_sandbox sb = {0};
    e2b_error *err = t_api_create(T.client, &p, &sb);
    e2b_metadata_clear(&md);
    int rc = err ? -1 : 0;
    if (!err)
        snprintf(id, idsz, "%s", sb.sandbox_id);
    e2b_error_free(err);
    e2b_sandbox_clear(&sb);
    return rc;
}

static bool twins_listed(void)
{
    return listed(twin1) && listed(twin2) && listed(other_feature);
}

static void test_conflicts(void)
{
    CHECK(make_box("twin", twin1, sizeof twin1) == 0);
    CHECK(make_box("twin", twin2, sizeof twin2) == 0);
    /* another machine's box of this machine's name: the record here wins (its metadata is
     * only the fallback), not a conflict */
    CHECK(make_box("feature", other_feature, sizeof other_feature) == 0);
    CHECK(pump_until(twins_listed, 20));
    e2b_error *err = NULL;
    CHECK(!e2b_live_lookup(M, "twin", &err));
    CHECK(err && err->kind == E2B_ERR_CONFLICT);
    CHECK(strstr(e2b_error_message(err), twin1) && strstr(e2b_error_message(err), twin2));
    e2b_error_free(err);
    const e2b_sandbox *p = e2b_live_lookup(M, "feature", &err);
    CHECK_MSG(p && !err, "feature: %s", err ? e2b_error_message(err) : "");
    CHECK_STR_EQ(p->sandbox_id, record_named("feature")->sandbox_id);
    /* the one-shot modes: a conflict naming both, nothing done */
    static const char *const modes[] = {"--pull", "--attach", "--kill", "--stop"};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        char out[2000];
        const char *args[] = {modes[i], "twin", NULL};
        int rc = run_tui(out, sizeof out, args);
        CHECK_MSG(rc == 5, "%s twin: exit %d, want 5: %s", modes[i], rc, out);
        CHECK_MSG(strstr(out, twin1) && strstr(out, twin2), "%s twin: %s", modes[i], out);
    }
    e2b_sandbox a = {0}, b = {0};
    CHECK(!t_api_get(T.client, twin1, &a) && !t_api_get(T.client, twin2, &b));
    CHECK(a.state == E2B_STATE_RUNNING && b.state == E2B_STATE_RUNNING);
    e2b_sandbox_clear(&a);
    e2b_sandbox_clear(&b);
}

/* An operation by the box's name (the one-shot modes' way into the model): the same start
 * as a row's, its waiter gets the ended step machine; a name several sandboxes carry (no
 * record here) is a conflict naming both, and nothing is done. */
static void test_op_by_name(void)
{
    e2b_live_end end;
    e2b_live_then(M, &end);
    e2b_live_op_params look = {.kind = E2B_LIVE_OP_UNPULLED, .name = "feature-2"};
    CHECK(e2b_live_op_by_name(M, &look) > 0);
    e2b_wait(e2b_live_loop(M), &end.done);
    CHECK_MSG(!end.err, "unpulled feature-2: %s", end.err ? e2b_error_message(end.err) : "");
    CHECK(end.op != NULL);
    if (end.op) {
        const e2b_box_result *r = e2b_box_op_result(end.op);
        CHECK_STR_EQ(r->sandbox_id, record_named("feature-2")->sandbox_id);
        CHECK(r->unpulled.state == E2B_UNPULLED_NONE);
    }
    e2b_box_op_free(end.op);
    e2b_error_free(end.err);

    e2b_live_then(M, &end);
    e2b_live_op_params stop = {.kind = E2B_LIVE_OP_STOP, .name = "twin"};
    e2b_live_op_by_name(M, &stop);
    e2b_wait(e2b_live_loop(M), &end.done);
    CHECK(end.err && end.err->kind == E2B_ERR_CONFLICT);
    CHECK_MSG(end.err && strstr(e2b_error_message(end.err), twin1) &&
                  strstr(e2b_error_message(end.err), twin2),
              "stop twin: %s", end.err ? e2b_error_message(end.err) : "no error");
    e2b_box_op_free(end.op);
    e2b_error_free(end.err);
    e2b_sandbox a = {0};
    CHECK(!t_api_get(T.client, twin1, &a) && a.state == E2B_STATE_RUNNING);
    e2b_sandbox_clear(&a);
}

int main(void)
{
    if (t_box_env_open(&T) != 0)
        return 1;
    e2b_error *problem = NULL;
    e2b_live_options o = {.refresh_seconds = 1};
    M = e2b_live_new(&o, &problem);
    if (!M || problem || e2b_live_subscribe(M, E2B_LIVE_ALL, on_change, NULL) != 0 ||
        e2b_live_start(M) != 0) {
        fprintf(stderr, "live model: could not start: %s\n",
                problem ? e2b_error_message(problem) : "out of memory or no loop");
        e2b_error_free(problem);
        return 1;
    }
    RUN(test_up_by_another_process);
    RUN(test_fork_by_another_process);
    RUN(test_row_action_on_a_fork);
    RUN(test_interrupt_idle);
    const e2b_box_record *r = record_named("feature-3");
    snprintf(killed_id, sizeof killed_id, "%s", r ? r->sandbox_id : "");
    RUN(test_kill_by_another_process);
    RUN(test_conflicts);
    RUN(test_op_by_name);
    e2b_live_free(M);
    t_box_env_close(&T);
    return harness_finish();
}
