/* The blocking local work of up and pull runs off the loop thread (issue 13, defect 6): while
 * up lists a project of 30,000 files (a status walk, an lstat per file, sampling) and while
 * pull indexes and checks a pack of 20,000 objects, the loop keeps running its timers (the
 * dashboard keeps drawing and answering keys), and a cancel during the local step ends the
 * up without a sandbox. A 1 ms timer counts the loop's turns during each step: when the step
 * ran on the loop thread it got none. up lists while the loop makes the sandbox (issue 16):
 * "listing files" is its first step, and again its wait once the sandbox exists; a cancel
 * while both run (the create in flight, or the sandbox made and the list not yet) settles
 * both and leaves no sandbox. Run by box_worker_test.sh against e2b-local (env: E2B_*,
 * XDG_*, BIG_REPO, BOX_REPO, PULL_BOX). */
#include "core/box/box.h"
#include "core/e2b/api.h"
#include "keystore/keystore.h"
#include "tests/lib/box_env.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static t_box_env T;

typedef struct {
    const char *watch_step; /* the step whose loop turns are counted */
    int in_step;
    int ticks_in_step;
    int saw_step, saw_after;
    const char *cancel_at; /* cancel the op when this step begins ("" = at the first tick) */
    int cancel_at_nth;     /* ... the nth time it begins (0 = the first) */
    int cancel_at_seen;
    int cancel_at_first_tick;
    int done_calls;
    e2b_error_kind kind;
    e2b_box_op *op;
    uint64_t timer; /* the pending tick */
} watch;

static void tick(void *ud)
{
    watch *w = ud;
    if (w->in_step) {
        w->ticks_in_step++;
        if (w->cancel_at_first_tick && w->op)
            e2b_box_op_cancel(w->op);
    }
    w->timer = e2b_loop_timer_add(T.loop, 1, tick, w);
}

static void on_progress(void *ud, const char *step, int64_t done, int64_t total)
{
    watch *w = ud;
    (void)done, (void)total;
    int now = strcmp(step, w->watch_step) == 0;
    if (now)
        w->saw_step = 1;
    else if (w->saw_step)
        w->saw_after = 1;
    w->in_step = now;
    if (w->cancel_at && strcmp(step, w->cancel_at) == 0 &&
        ++w->cancel_at_seen >= (w->cancel_at_nth ? w->cancel_at_nth : 1))
        e2b_box_op_cancel(w->op);
}

static void on_done(void *ud, e2b_box_op *op, const e2b_error *err)
{
    watch *w = ud;
    (void)op;
    w->done_calls++;
    w->in_step = 0;
    w->kind = err ? err->kind : 0;
    if (err)
        fprintf(stderr, "op: %s\n", e2b_error_message(err));
}

static e2b_error *run(watch *w)
{
    w->timer = e2b_loop_timer_add(T.loop, 1, tick, w);
    e2b_error *res = e2b_box_op_wait(w->op);
    e2b_loop_timer_cancel(T.loop, w->timer); /* w lives on the caller's stack */
    return res;
}

/* An up of the 30,000-file project named name, watched by w, to its end. */
static e2b_error *up_big(watch *w, const char *name)
{
    e2b_box_up_params p = {.dir = getenv("BIG_REPO"), .name = name};
    e2b_error *err = NULL;
    w->op = e2b_box_up(&T.env, &p, on_progress, on_done, w, &err);
    if (!w->op) {
        harness_fail(__FILE__, __LINE__, "the up did not start: %s",
                     err ? e2b_error_message(err) : "?");
        return err;
    }
    return run(w);
}

static void test_up_listing_leaves_the_loop_running(void)
{
    size_t before = t_box_sandbox_count(&T);
    watch w = {.watch_step = "listing files", .cancel_at = "storing the password"};
    e2b_error *res = up_big(&w, "bigbox");
    CHECK(res && res->kind == E2B_ERR_CANCELLED);
    e2b_error_free(res);
    CHECK(w.saw_step && w.saw_after); /* the listing ended and the password's step began */
    CHECK_MSG(w.ticks_in_step > 0, "the loop ran no timer while up listed 30,000 files");
    fprintf(stderr, "loop turns during up's listing: %d\n", w.ticks_in_step);
    CHECK_INT_EQ(w.done_calls, 1);
    CHECK_INT_EQ((int)t_box_sandbox_count(&T), (int)before);
    e2b_box_op_free(w.op);
}

static void test_up_cancelled_while_listing(void)
{
    size_t before = t_box_sandbox_count(&T);
    watch w = {.watch_step = "listing files", .cancel_at_first_tick = 1};
    e2b_error *res = up_big(&w, "bigbox2");
    CHECK(res && res->kind == E2B_ERR_CANCELLED);
    e2b_error_free(res);
    CHECK(w.ticks_in_step > 0);
    CHECK_INT_EQ(w.done_calls, 1);
    /* wherever the cancel landed (the repository's open, or the wait for the list once the
     * sandbox exists), nothing is left */
    CHECK_INT_EQ((int)t_box_sandbox_count(&T), (int)before);
    e2b_box_op_free(w.op);
}

/* The create in flight and the worker listing 30,000 files when the cancel comes: the up
 * ends once, after both (the create's answer, the worker stopped), and leaves no sandbox. */
static void test_up_cancelled_during_create(void)
{
    size_t before = t_box_sandbox_count(&T);
    watch w = {.watch_step = "creating the sandbox", .cancel_at = "creating the sandbox"};
    e2b_error *res = up_big(&w, "bigbox3");
    CHECK_MSG(res && res->kind == E2B_ERR_CANCELLED, "%s", res ? e2b_error_message(res) : "no error");
    e2b_error_free(res);
    CHECK(w.saw_step);
    CHECK_INT_EQ(w.done_calls, 1);
    CHECK_INT_EQ((int)t_box_sandbox_count(&T), (int)before);
    e2b_box_op_free(w.op);
}

static void test_pull_import_leaves_the_loop_running(void)
{
    watch w = {.watch_step = "importing"};
    e2b_box_pull_params p = {.dir = getenv("BOX_REPO"), .name = getenv("PULL_BOX")};
    e2b_error *err = NULL;
    w.op = e2b_box_pull(&T.env, &p, on_progress, on_done, &w, &err);
    CHECK(w.op);
    e2b_error *res = run(&w);
    CHECK_MSG(!res, "%s", res ? e2b_error_message(res) : "");
    CHECK(w.saw_step && w.saw_after);
    CHECK_MSG(w.ticks_in_step > 0, "the loop ran no timer while pull imported 20,000 objects");
    fprintf(stderr, "loop turns during pull's import: %d\n", w.ticks_in_step);
    const e2b_box_result *r = e2b_box_op_result(w.op);
    CHECK(r->commit && strlen(r->commit) == 40);
    CHECK_INT_EQ(w.done_calls, 1);
    e2b_box_op_free(w.op);
}

/* The sandbox made, the worker still listing 30,000 files (the second "listing files"
 * step, the up's wait for the list): the cancel stops the worker, and the sandbox is
 * removed once it has. */
static void test_up_cancelled_waiting_for_the_list(void)
{
    size_t before = t_box_sandbox_count(&T);
    watch w = {.watch_step = "listing files", .cancel_at = "listing files", .cancel_at_nth = 2};
    e2b_error *res = up_big(&w, "bigbox4");
    CHECK_MSG(res && res->kind == E2B_ERR_CANCELLED, "%s", res ? e2b_error_message(res) : "no error");
    e2b_error_free(res);
    CHECK_INT_EQ(w.cancel_at_seen, 2);
    CHECK_INT_EQ(w.done_calls, 1);
    CHECK_INT_EQ((int)t_box_sandbox_count(&T), (int)before);
    e2b_box_op_free(w.op);
}

int main(void)
{
    if (t_box_env_open(&T) != 0)
        return 1;
    RUN(test_up_listing_leaves_the_loop_running);
    RUN(test_up_cancelled_while_listing);
    RUN(test_up_cancelled_during_create);
    RUN(test_up_cancelled_waiting_for_the_list);
    RUN(test_pull_import_leaves_the_loop_running);
    t_box_env_close(&T);
    return harness_finish();
}
