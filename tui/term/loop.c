#include "tui/term/loop.h"

#include "core/util/log.h"

#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
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

/* Whether the terminal's input has ended: a hang-up or error, or "readable" with not one
 * byte to read (end of file; in the dashboard's modes a tty is readable only with a byte
 * pending). A pty whose master closed without a SIGHUP reaching us looks like this, and
 * curses reads it as "no key", so polling it again would spin a core. */
static int input_ended(int fd, unsigned revents)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int pending = 0;
    if (revents & E2B_LOOP_ERR)
        return 1;
    if (poll(&p, 1, 0) <= 0)
        return 0; /* nothing left: the keys were read */
    if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
        return 1;
    return (p.revents & POLLIN) && ioctl(fd, FIONREAD, &pending) == 0 && pending == 0;
}

static void on_input_fd(void *ud, int fd, unsigned revents)
{
    const struct loop_client *c = ud;
    if (revents & E2B_LOOP_IN && !(revents & E2B_LOOP_ERR))
        c->on_input_ready(c->ctx); /* drains every pending key */
    if (input_ended(fd, revents)) {
        e2b_logf("terminal input ended (hang-up or end of file): the dashboard exits as on "
                 "SIGHUP");
        c->on_signal(c->ctx, SIGHUP);
    }
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
