#include "tui/loop.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

long long loop_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int loop_run(const struct loop_client *c, int input_fd, int signal_fd)
{
    while (!c->done(c->ctx)) {
        c->frame(c->ctx);
        long timeout = c->next_timeout_ms(c->ctx, loop_now_ms());
        struct pollfd fds[2] = {
            {.fd = signal_fd, .events = POLLIN},
            {.fd = input_fd, .events = POLLIN},
        };
        int n = poll(fds, 2, timeout < 0 ? -1 : (int)(timeout > 1 << 30 ? 1 << 30 : timeout));
        if (n < 0 && errno != EINTR)
            return -1;
        if (n > 0 && (fds[0].revents & POLLIN)) {
            unsigned char sig[32];
            ssize_t r = read(signal_fd, sig, sizeof sig);
            for (ssize_t i = 0; i < r; i++)
                c->on_signal(c->ctx, sig[i]);
        }
        if (n > 0 && (fds[1].revents & (POLLHUP | POLLERR | POLLNVAL)) &&
            !(fds[1].revents & POLLIN)) {
            /* The terminal is gone: polling it again would spin. */
            c->on_signal(c->ctx, SIGHUP);
        } else if (n > 0 && (fds[1].revents & POLLIN)) {
            c->on_input_ready(c->ctx);
        }
        c->on_tick(c->ctx, loop_now_ms());
    }
    return 0;
}
