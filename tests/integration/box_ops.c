/* core/box/box.h as the dashboard uses it: an up reports progress with byte counts while the
 * loop keeps running, can be cancelled mid-upload (the new sandbox is killed, nothing is
 * recorded, done runs once with E2B_ERR_CANCELLED), and an op freed while running still
 * cleans up after itself; an attach whose health wait cannot set its retry timer fails
 * instead of waiting forever. Run by box_ops_test.sh against e2b-local (env: E2B_*, XDG_*). */
#include "core/e2b/api.h"
#include "core/box/box.h"
#include "core/net/loop_curl.h"
#include "core/box/records.h"
#include "keystore/keystore.h"
#include "tests/lib/box_env.h"
#include "tests/lib/harness.h"
#include "tests/lib/sync_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static t_box_env T;

typedef struct {
    int done_calls;
    int cancel_at_upload; /* cancel once this many upload bytes were reported */
    int free_at_upload;
    int progress_calls;
    int64_t last_done, last_total;
    int saw_steps; /* bit 0 listing, 1 creating, 2 uploading */
    e2b_error_kind kind;
    char message[400];
    e2b_box_op *op;
    int freed;
} watch;

static void on_progress(void *ud, const char *step, int64_t done, int64_t total)
{
    watch *w = ud;
    w->progress_calls++;
    if (strcmp(step, "listing files") == 0)
        w->saw_steps |= 1;
    if (strcmp(step, "creating the sandbox") == 0)
        w->saw_steps |= 2;
    if (strcmp(step, "uploading") == 0 && done > 0) {
        w->saw_steps |= 4;
        w->last_done = done;
        w->last_total = total;
        if (w->cancel_at_upload && done >= w->cancel_at_upload)
            e2b_box_op_cancel(w->op);
    }
}

static void on_done(void *ud, e2b_box_op *op, const e2b_error *err)
{
    watch *w = ud;
    (void)op;
    w->done_calls++;
    w->kind = err ? err->kind : 0;
    snprintf(w->message, sizeof w->message, "%s", err ? e2b_error_message(err) : "");
}

static const char *repo(void)
{
    return getenv("BOX_REPO");
}

static void test_cancel_mid_upload(void)
{
    watch w = {.cancel_at_upload = 1 << 20};
    e2b_box_up_params p = {.dir = repo(), .name = "cancelme"};
    e2b_error *err = NULL;
    w.op = e2b_box_up(&T.env, &p, on_progress, on_done, &w, &err);
    CHECK(w.op);
    CHECK_INT_EQ(w.done_calls, 0); /* never from inside the start call */
    e2b_error *res = e2b_box_op_wait(w.op);
    CHECK(res && res->kind == E2B_ERR_CANCELLED);
    e2b_error_free(res);
    CHECK_INT_EQ(w.done_calls, 1);
    CHECK(w.saw_steps == 7);
    CHECK(w.last_total > (int64_t)(8 << 20));      /* the big file is counted in the total */
    CHECK(w.last_done < w.last_total);             /* and it stopped before the end */
    CHECK_INT_EQ((int)t_box_sandbox_count(&T), 0); /* the new sandbox was killed */
    CHECK(!e2b_box_record_exists(T.cfg.records_dir, "cancelme"));
    e2b_box_op_free(w.op);
}

/* Queues an e2b-local fault (tests/e2b-local/README.md). */
static int queue_fault(const char *json)
{
    char url[512];
    e2b_http_response resp;
    snprintf(url, sizeof url, "%s/_e2b-local/faults", T.cfg.api_url);
    e2b_http_options o = {.method = "POST", .url = url, .body = json, .body_len = strlen(json),
                          .headers = (const char *const[]){"Content-Type: application/json",
                                                           NULL},
                          .timeout_ms = 10000};
    e2b_error *err = t_http_perform(T.loop, &o, &resp);
    int ok = !err && resp.status >= 200 && resp.status < 300;
    e2b_error_free(err);
    e2b_http_response_clear(&resp);
    return ok ? 0 : -1;
}

/* From the health wait on, no timer can be set (as when out of memory). */
static void no_timers_once_waiting(void *ud, const char *step, int64_t done, int64_t total)
{
    (void)ud;
    (void)done;
    (void)total;
    if (strcmp(step, "waiting for the server") == 0)
        e2b_loop_inject_timer_failure(T.loop, 1);
}

/* attach: the first probe fails (503), the server is running, so attach waits for health;
 * that probe fails too and its retry timer cannot be set. The op must fail, not count the
 * missing timer as pending and wait forever. */
static void test_attach_fails_when_its_health_retry_cannot_be_timed(void)
{
    watch w = {0};
    char fault[600];
    e2b_error *err = NULL;
    snprintf(fault, sizeof fault, "{\"kind\":\"503\",\"count\":2,\"path\":\"%s\"}",
             e2b_config_health_path(&T.cfg, 2));
    CHECK_INT_EQ(queue_fault(fault), 0);
    w.op = e2b_box_attach(&T.env, "okbox", 20000, no_timers_once_waiting, on_done, &w, &err);
    CHECK(w.op);
    for (int i = 0; i < 300 && !w.done_calls; i++) /* bounded: 30 s, not forever */
        e2b_loop_run_once(T.loop, 100);
    e2b_loop_inject_timer_failure(T.loop, 0);
    queue_fault("[]");
    CHECK_MSG(w.done_calls == 1, "the attach never ended (done ran %d times)", w.done_calls);
    CHECK_INT_EQ(w.kind, E2B_ERR_INTERNAL);
    CHECK_MSG(strstr(w.message, "cannot set a timer") != NULL, "%s", w.message);
    e2b_box_op_free(w.op);
}

static void test_progress_and_success(void)
{
    watch w = {0};
    e2b_box_up_params p = {.dir = repo(), .name = "okbox"};
    e2b_error *err = NULL;
    w.op = e2b_box_up(&T.env, &p, on_progress, on_done, &w, &err);
    CHECK(w.op);
    e2b_error *res = e2b_box_op_wait(w.op);
    CHECK_MSG(!res, "%s", res ? e2b_error_message(res) : "");
    const e2b_box_result *r = e2b_box_op_result(w.op);
    CHECK(r->bytes_in > (uint64_t)(8 << 20) && r->bytes_sent > 0 && r->files > 10);
    CHECK(w.last_done == w.last_total);
    CHECK(e2b_box_record_exists(T.cfg.records_dir, "okbox"));
    char *pw = NULL;
    ks_error kerr;
    CHECK(keystore_get(T.ks, "okbox", r->sandbox_id, &pw, &kerr) == KS_OK);
    CHECK_INT_EQ((int)strlen(pw), 32);
    keystore_password_free(pw);
    e2b_box_op_free(w.op);
}

/* kill okbox (made by test_progress_and_success) through the same machinery */
static void test_kill(void)
{
    e2b_error *err = NULL, *res;
    char *pw = NULL;
    ks_error kerr;
    watch k = {0};
    k.op = e2b_box_kill(&T.env, "okbox", NULL, on_done, &k, &err);
    CHECK(k.op);
    res = e2b_box_op_wait(k.op);
    CHECK(!res);
    e2b_box_op_free(k.op);
    CHECK_INT_EQ((int)t_box_sandbox_count(&T), 0);
    CHECK(keystore_get(T.ks, "okbox", "x", &pw, &kerr) == KS_ERR_NOT_FOUND);
}

static void free_on_upload(void *ud, const char *step, int64_t done, int64_t total)
{
    watch *w = ud;
    (void)total;
    if (strcmp(step, "uploading") == 0 && done > (1 << 20) && !w->freed) {
        w->freed = 1;
        e2b_box_op_free(w->op); /* the dashboard closed: forget the op */
    }
}

static void test_free_while_running(void)
{
    watch w = {0};
    e2b_box_up_params p = {.dir = repo(), .name = "freed"};
    e2b_error *err = NULL;
    w.op = e2b_box_up(&T.env, &p, free_on_upload, on_done, &w, &err);
    CHECK(w.op);
    /* the detached op ends once its kill call and its keystore job are both done */
    int quiet = 0;
    for (int i = 0; i < 600 && quiet < 5; i++) {
        e2b_loop_run_once(T.loop, 100);
        quiet = w.freed && e2b_loop_requests_in_flight(T.loop) == 0 && keystore_jobs_drain(0)
                    ? quiet + 1
                    : 0;
    }
    CHECK(w.freed);
    CHECK_INT_EQ(w.done_calls, 0); /* a freed op never calls back */
    CHECK_INT_EQ((int)t_box_sandbox_count(&T), 0);
    CHECK(!e2b_box_record_exists(T.cfg.records_dir, "freed"));
}

int main(void)
{
    if (t_box_env_open(&T) != 0)
        return 1;
    RUN(test_cancel_mid_upload);
    RUN(test_progress_and_success);
    RUN(test_attach_fails_when_its_health_retry_cannot_be_timed);
    RUN(test_kill);
    RUN(test_free_while_running);
    t_box_env_close(&T);
    return harness_finish();
}
