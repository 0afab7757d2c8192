/* The event loop without the network: timers (order, cancel), work posted from another
 * thread, fd watches, and an idle wait that ends at the next timer. */
#include "core/net/loop.h"
#include "tests/lib/harness.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static char order[64];

static void mark(void *ud)
{
    size_t n = strlen(order);
    order[n] = *(const char *)ud;
    order[n + 1] = '\0';
}

static void test_timers_fire_in_deadline_order_and_cancel(void)
{
    e2b_loop *loop = e2b_loop_new();
    uint64_t b;
    int64_t t0 = e2b_now_ms();
    order[0] = '\0';
    e2b_loop_timer_add(loop, 60, mark, "c");
    b = e2b_loop_timer_add(loop, 30, mark, "b");
    e2b_loop_timer_add(loop, 10, mark, "a");
    e2b_loop_timer_add(loop, 40, mark, "d");
    e2b_loop_timer_cancel(loop, b);
    e2b_loop_timer_cancel(loop, 999); /* unknown: ignored */
    while (strlen(order) < 3)
        e2b_loop_run_once(loop, -1);
    CHECK_STR_EQ(order, "adc");
    CHECK(e2b_now_ms() - t0 >= 60);
    e2b_loop_free(loop);
}

static void rearm(void *ud);

typedef struct {
    e2b_loop *loop;
    int count;
} rearm_state;

static void rearm(void *ud)
{
    rearm_state *s = ud;
    /* A timer added by a timer with delay 0 runs in a later round, not in a tight loop. */
    if (++s->count < 5)
        e2b_loop_timer_add(s->loop, 0, rearm, s);
}

static void test_zero_delay_timer_from_timer(void)
{
    e2b_loop *loop = e2b_loop_new();
    rearm_state s = {loop, 0};
    e2b_loop_timer_add(loop, 0, rearm, &s);
    e2b_loop_run_once(loop, 0);
    CHECK_INT_EQ(s.count, 1);
    for (int i = 0; i < 10; i++)
        e2b_loop_run_once(loop, 0);
    CHECK_INT_EQ(s.count, 5);
    e2b_loop_free(loop);
}

typedef struct {
    e2b_loop *loop;
    volatile int ran;
} post_state;

static void posted(void *ud)
{
    ((post_state *)ud)->ran++;
}

static void *worker(void *ud)
{
    post_state *p = ud;
    usleep(50 * 1000);
    for (int i = 0; i < 100; i++)
        e2b_loop_post(p->loop, posted, p);
    return NULL;
}

static void test_post_from_thread_wakes_the_loop(void)
{
    post_state p = {e2b_loop_new(), 0};
    pthread_t th;
    int64_t t0 = e2b_now_ms();
    pthread_create(&th, NULL, worker, &p);
    while (p.ran < 100)
        e2b_loop_run_once(p.loop, 10000); /* without the wakeup this would sleep 10 s */
    pthread_join(th, NULL);
    CHECK_INT_EQ(p.ran, 100);
    CHECK_MSG(e2b_now_ms() - t0 < 5000, "took %lld ms", (long long)(e2b_now_ms() - t0));
    e2b_loop_free(p.loop);
}

static void on_readable(void *ud, int fd, unsigned rev)
{
    char buf[8];
    if ((rev & E2B_LOOP_IN) && read(fd, buf, sizeof buf) > 0)
        (*(int *)ud)++;
}

static void test_fd_watch_and_unwatch(void)
{
    e2b_loop *loop = e2b_loop_new();
    int p[2], hits = 0;
    CHECK(pipe(p) == 0);
    CHECK_INT_EQ(e2b_loop_watch_fd(loop, p[0], E2B_LOOP_IN, on_readable, &hits), 0);
    e2b_loop_run_once(loop, 0);
    CHECK_INT_EQ(hits, 0);
    CHECK(write(p[1], "x", 1) == 1);
    e2b_loop_run_once(loop, 1000);
    CHECK_INT_EQ(hits, 1);
    e2b_loop_unwatch_fd(loop, p[0]);
    CHECK(write(p[1], "y", 1) == 1);
    e2b_loop_run_once(loop, 50);
    CHECK_INT_EQ(hits, 1);
    CHECK_INT_EQ(e2b_loop_requests_in_flight(loop), 0);
    close(p[0]);
    close(p[1]);
    e2b_loop_free(loop);
}

int main(void)
{
    RUN(test_timers_fire_in_deadline_order_and_cancel);
    RUN(test_zero_delay_timer_from_timer);
    RUN(test_post_from_thread_wakes_the_loop);
    RUN(test_fd_watch_and_unwatch);
    return harness_finish();
}
