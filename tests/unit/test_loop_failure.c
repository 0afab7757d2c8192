/* Loop failure is handled once, in the loop: with the curl multi handle failing (fault
 * injection, core/net/loop_curl.h), timers and posted work still run, requests in flight end
 * with an error, a cancel that completes through a timer completes, and e2b_wait returns.
 * The one HTTP peer is a local socket that accepts connections and never answers. */
#include "core/net/http.h"
#include "core/net/loop.h"
#include "core/net/loop_curl.h"
#include "tests/lib/harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

/* Rounds before giving up: a loop that never runs the timer must fail the case, not hang. */
#define ROUNDS 50

static void count(void *ud)
{
    (*(int *)ud)++;
}

static void test_timers_and_posts_run_while_the_multi_handle_fails(void)
{
    e2b_loop *loop = e2b_loop_new();
    int timers = 0, posts = 0, rc = 0;
    e2b_loop_inject_multi_failure(loop, 1);
    CHECK(e2b_loop_timer_add(loop, 0, count, &timers) != 0);
    CHECK_INT_EQ(e2b_loop_post(loop, count, &posts), 0);
    for (int i = 0; i < ROUNDS && (!timers || !posts); i++)
        rc = e2b_loop_run_once(loop, 10);
    CHECK_INT_EQ(timers, 1);
    CHECK_INT_EQ(posts, 1);
    CHECK_INT_EQ(rc, -1); /* the failure is still reported */
    e2b_loop_free(loop);
}

/* A listening socket on 127.0.0.1 that never accepts: a request to it stays in flight. */
static int silent_server(int *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 8) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

typedef struct {
    int done;
    int kind; /* -1: no error */
    char message[200];
} req_state;

static void on_done(void *ud, const e2b_http_response *resp, const e2b_error *err)
{
    req_state *st = ud;
    (void)resp;
    st->done = 1;
    st->kind = err ? (int)err->kind : -1;
    snprintf(st->message, sizeof st->message, "%s", err ? e2b_error_message(err) : "");
}

/* Starts a GET to the silent server and runs the loop until the request is in flight. */
static e2b_http_request *start_hanging(e2b_loop *loop, int port, req_state *st, char *url,
                                       size_t n)
{
    snprintf(url, n, "http://127.0.0.1:%d/never", port);
    e2b_http_options o = {.method = "GET", .url = url};
    e2b_http_request *req = e2b_http_start(loop, &o, on_done, st, NULL);
    for (int i = 0; req && i < 5; i++)
        e2b_loop_run_once(loop, 20);
    return req;
}

static void test_a_cancel_completes_through_its_timer_while_the_multi_handle_fails(void)
{
    e2b_loop *loop = e2b_loop_new();
    req_state st = {0};
    char url[64];
    int port, srv = silent_server(&port);
    CHECK(srv >= 0);
    e2b_http_request *req = start_hanging(loop, port, &st, url, sizeof url);
    CHECK(req != NULL);
    CHECK_INT_EQ(st.done, 0);
    e2b_http_cancel(req); /* completes from a timer */
    e2b_loop_inject_multi_failure(loop, 1);
    for (int i = 0; i < ROUNDS && !st.done; i++)
        e2b_loop_run_once(loop, 10);
    CHECK_MSG(st.done, "the cancelled request never completed");
    CHECK_INT_EQ(st.kind, E2B_ERR_CANCELLED);
    e2b_loop_free(loop);
    close(srv);
}

static void test_requests_in_flight_end_with_an_error_and_e2b_wait_returns(void)
{
    e2b_loop *loop = e2b_loop_new();
    req_state st = {0};
    char url[64];
    int port, srv = silent_server(&port);
    CHECK(srv >= 0);
    CHECK(start_hanging(loop, port, &st, url, sizeof url) != NULL);
    CHECK_INT_EQ(st.done, 0);
    e2b_loop_inject_multi_failure(loop, 1);
    CHECK_INT_EQ(e2b_wait(loop, &st.done), -1);
    CHECK_INT_EQ(st.kind, E2B_ERR_NETWORK);
    CHECK_MSG(strstr(st.message, "network layer failed") != NULL, "message: %s", st.message);
    CHECK_INT_EQ(e2b_loop_requests_in_flight(loop), 0);
    /* Healed: the loop works again and e2b_wait reports no failure. */
    e2b_loop_inject_multi_failure(loop, 0);
    int fired = 0;
    CHECK(e2b_loop_timer_add(loop, 0, count, &fired) != 0);
    CHECK_INT_EQ(e2b_wait(loop, &fired), 0);
    e2b_loop_free(loop);
    close(srv);
}

typedef struct {
    e2b_loop *loop;
    e2b_loop_slot slot;
    int ran;
} slot_state;

static void slot_ran(void *ud)
{
    ((slot_state *)ud)->ran++;
}

static void *post_slot_twice(void *ud)
{
    slot_state *s = ud;
    e2b_loop_post_slot(s->loop, &s->slot, slot_ran, s);
    e2b_loop_post_slot(s->loop, &s->slot, slot_ran, s); /* still queued: not twice */
    return NULL;
}

static void test_a_slot_post_from_a_thread_runs_once_even_while_failing(void)
{
    slot_state s = {.loop = e2b_loop_new()};
    pthread_t th;
    e2b_loop_inject_multi_failure(s.loop, 1);
    CHECK(pthread_create(&th, NULL, post_slot_twice, &s) == 0);
    pthread_join(th, NULL);
    for (int i = 0; i < ROUNDS && !s.ran; i++)
        e2b_loop_run_once(s.loop, 10);
    e2b_loop_run_once(s.loop, 0);
    CHECK_INT_EQ(s.ran, 1);
    e2b_loop_post_slot(s.loop, &s.slot, slot_ran, &s); /* may be posted again after it ran */
    e2b_loop_run_once(s.loop, 0);
    CHECK_INT_EQ(s.ran, 2);
    e2b_loop_free(s.loop);
}

int main(void)
{
    RUN(test_timers_and_posts_run_while_the_multi_handle_fails);
    RUN(test_a_cancel_completes_through_its_timer_while_the_multi_handle_fails);
    RUN(test_requests_in_flight_end_with_an_error_and_e2b_wait_returns);
    RUN(test_a_slot_post_from_a_thread_runs_once_even_while_failing);
    return harness_finish();
}
