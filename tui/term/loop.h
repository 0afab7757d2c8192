/* The TUI side of the event loop, written against a small interface. The waiting itself is
 * core's loop (core/net/loop.h: curl_multi_poll on the API sockets plus the terminal and the
 * signal pipe as extra fds), so network requests started on the same e2b_loop run while
 * the dashboard waits for keys, and one place blocks.
 *
 * Per round: frame() draws if anything changed; the loop waits for the terminal, a signal,
 * a transfer, a core timer or the client's next deadline; with next_timeout_ms = -1 and no
 * transfer in flight nothing wakes it (idle costs no wake-ups); then on_signal for each
 * caught signal, on_input_ready when the terminal is readable (the client drains every
 * pending key), and on_tick. */
#ifndef E2B_TUI_LOOP_H
#define E2B_TUI_LOOP_H

#include <stdbool.h>

#include "core/net/loop.h"

struct loop_client {
    void *ctx;
    void (*frame)(void *ctx);
    void (*on_input_ready)(void *ctx);
    void (*on_signal)(void *ctx, int signo); /* SIGHUP also when the terminal goes away */
    void (*on_tick)(void *ctx, long long now_ms);
    long (*next_timeout_ms)(void *ctx, long long now_ms); /* -1: nothing scheduled */
    bool (*done)(void *ctx);
};

/* Runs until done() is true. signal_fd is the read end of a non-blocking pipe carrying one
 * byte (the signal number) per caught signal, as tui/term/term.c writes it. The watches are
 * removed before it returns. Returns 0, or -1 when the watches could not be set up. */
int loop_run(const struct loop_client *c, e2b_loop *loop, int input_fd, int signal_fd);

/* Monotonic clock in milliseconds. */
long long loop_now_ms(void);

#endif
