/* The TUI side of the event loop, written against a small interface so that the poll(2)
 * driver here can later be swapped for core's curl_multi_poll loop (the terminal fd and the
 * signal pipe become extra fds of curl_multi_poll; the timeout is next_timeout_ms).
 *
 * Per iteration: frame() draws if anything changed; the driver waits for the terminal, a
 * signal or the next deadline, with no timer at all when next_timeout_ms returns -1 (idle
 * costs zero wake-ups); then on_signal for each pending signal, on_input_ready when the
 * terminal is readable (the client drains every pending key), and on_tick. */
#ifndef E2B_TUI_LOOP_H
#define E2B_TUI_LOOP_H

#include <stdbool.h>

struct loop_client {
    void *ctx;
    void (*frame)(void *ctx);
    void (*on_input_ready)(void *ctx);
    void (*on_signal)(void *ctx, int signo); /* SIGHUP also when the terminal goes away */
    void (*on_tick)(void *ctx, long long now_ms);
    long (*next_timeout_ms)(void *ctx, long long now_ms); /* -1: nothing scheduled */
    bool (*done)(void *ctx);
};

/* Runs until done() is true. Returns 0, or -1 if poll failed for a reason other than a
 * signal (errno set). */
int loop_run(const struct loop_client *c, int input_fd, int signal_fd);
/* signal_fd is the read end of a non-blocking pipe carrying one byte (the signal number)
 * per caught signal, as tui/term.c writes it. */

/* Monotonic clock in milliseconds. */
long long loop_now_ms(void);

#endif
