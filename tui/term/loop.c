#include "tui/term/loop.h"

#include <signal.h>
#include <unistd.h>

long long loop_now_ms(void)
{
    return (long long)e2b_now_ms();
}

static void on_signal_fd(void *ud, int fd, unsigned revents)
{
    const struct loop_client *c = ud;
    unsigned char sig[32];
    ssize_t r = read(fd, sig, sizeof sig);
    for (ssize_t i = 0; i < r; i++)
        c->on_signal(c->ctx, sig[i]);
    (void)revents;
}

static void on_input_fd(void *ud, int fd, unsigned revents)
{
    const struct loop_client *c = ud;
    (void)fd;
    if (revents & E2B_LOOP_ERR)
        c->on_signal(c->ctx, SIGHUP); /* the terminal is gone: polling it again would spin */
    else if (revents & E2B_LOOP_IN)
        c->on_input_ready(c->ctx);
}

int loop_run(const struct loop_client *c, e2b_loop *loop, int input_fd, int signal_fd)
{
    /* The callbacks only read the client: a const pointer is passed as user data. */
    void *ud = (void *)c;
    if (e2b_loop_watch_fd(loop, signal_fd, E2B_LOOP_IN, on_signal_fd, ud) != 0 ||
        e2b_loop_watch_fd(loop, input_fd, E2B_LOOP_IN, on_input_fd, ud) != 0) {
        e2b_loop_unwatch_fd(loop, signal_fd);
        return -1;
    }
    while (!c->done(c->ctx)) {
        c->frame(c->ctx);
        long timeout = c->next_timeout_ms(c->ctx, loop_now_ms());
        /* A failure of the multi handle is handled by core's loop (the requests in flight end
         * with an error the views show); the dashboard goes on. */
        (void)e2b_loop_run_once(loop, timeout);
        c->on_tick(c->ctx, loop_now_ms());
    }
    e2b_loop_unwatch_fd(loop, input_fd);
    e2b_loop_unwatch_fd(loop, signal_fd);
    return 0;
}
