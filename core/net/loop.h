/* The event loop: one thread waits in one place for network transfers (one libcurl multi
 * handle), other file descriptors (the terminal), timers, and work posted by other threads.
 *
 *   e2b_loop *loop = e2b_loop_new();
 *   e2b_loop_watch_fd(loop, STDIN_FILENO, E2B_LOOP_IN, on_key, ui);
 *   e2b_loop_timer_add(loop, 5000, on_refresh, ui);
 *   while (!quit) e2b_loop_run_once(loop, -1);
 *   e2b_loop_free(loop);
 *
 * One-shot modes wait for one asynchronous call with e2b_wait:
 *
 *   int done = 0;
 *   e2b_api_list(client, &q, on_list, &done, &err);   // on_list sets done = 1
 *   e2b_wait(loop, &done);
 *
 * Threads: only e2b_loop_post and e2b_loop_post_slot may be called from another thread;
 * every callback runs on the thread that calls e2b_loop_run_once. Callbacks may add or remove
 * watches, timers and requests (core/net/http.h), including their own.
 *
 * Loop failure is handled here, once: when the curl multi handle fails, every transfer in
 * flight ends with an error (its done callback runs, as for any failed request), timers,
 * posted work and watched fds are still served, and the failure is logged once. So anything
 * that completes through a callback, a timer or a post still completes, and no caller needs
 * its own recovery. */
#ifndef E2B_LOOP_H
#define E2B_LOOP_H

#include <stdint.h>

typedef struct e2b_loop e2b_loop;

enum {
    E2B_LOOP_IN = 1,  /* readable */
    E2B_LOOP_OUT = 2, /* writable */
    E2B_LOOP_ERR = 4, /* error or hang-up (reported, never asked for) */
};

typedef void (*e2b_loop_fd_fn)(void *ud, int fd, unsigned revents);
typedef void (*e2b_loop_fn)(void *ud);

/* A new loop with its own curl multi handle; NULL when out of memory. Initialises libcurl
 * (once per process). */
e2b_loop *e2b_loop_new(void);
/* Ends every request still in flight (their done callbacks run with E2B_ERR_CANCELLED),
 * drops watches, timers and posted work, and frees the loop. */
void e2b_loop_free(e2b_loop *loop);

/* Watches fd (replacing an earlier watch of the same fd). Returns 0, or -1 when out of memory. */
int e2b_loop_watch_fd(e2b_loop *loop, int fd, unsigned events, e2b_loop_fd_fn fn, void *ud);
void e2b_loop_unwatch_fd(e2b_loop *loop, int fd);

/* Runs fn(ud) once after delay_ms. Returns a timer id (> 0), or 0 when out of memory. */
uint64_t e2b_loop_timer_add(e2b_loop *loop, long delay_ms, e2b_loop_fn fn, void *ud);
/* Cancels a timer that has not fired yet (an unknown id is ignored). */
void e2b_loop_timer_cancel(e2b_loop *loop, uint64_t id);

/* Thread-safe: queues fn(ud) to run on the loop thread and wakes the loop. Returns 0, or -1
 * when out of memory (then fn never runs: a caller that cannot lose the call uses a slot). */
int e2b_loop_post(e2b_loop *loop, e2b_loop_fn fn, void *ud);

/* A post that cannot fail: the caller owns the slot (e.g. inside the object the call is
 * for) and keeps it alive until fn has run. A slot is queued at most once at a time: posting
 * it again before fn ran only updates fn and ud. */
typedef struct e2b_loop_slot {
    e2b_loop_fn fn;
    void *ud;
    struct e2b_loop_slot *next;
    int queued, owned; /* owned: malloc'd by e2b_loop_post (private) */
} e2b_loop_slot;
void e2b_loop_post_slot(e2b_loop *loop, e2b_loop_slot *slot, e2b_loop_fn fn, void *ud);

/* One round: drives transfers, runs finished requests' callbacks, due timers and posted work,
 * then waits up to max_wait_ms (-1 = until something happens) for sockets, watched fds, the
 * next timer or a wakeup, and runs the fd callbacks. Returns 0, or -1 when the multi handle
 * failed in this round (handled as the header says: the caller may simply go on). */
int e2b_loop_run_once(e2b_loop *loop, long max_wait_ms);

/* Runs the loop until *done is non-zero (set by the callback of what the caller started).
 * Never from inside a loop callback (curl does not allow the re-entry). Returns 0, or -1
 * when the loop failed meanwhile (what was waited for has completed all the same, with its
 * own error). */
int e2b_wait(e2b_loop *loop, const int *done);

/* Milliseconds of a monotonic clock. */
int64_t e2b_now_ms(void);

/* The number of requests in flight (for tests and the status line). */
int e2b_loop_requests_in_flight(const e2b_loop *loop);

/* Rate limiting seen on this loop: every 429 answer of any request is noted (its
 * Retry-After in ms, 1000 when absent), so whoever paces its own requests (the dashboard's
 * refresh) can slow down for all of them. The count grows by one per 429; *retry_after_ms
 * and *at_ms (e2b_now_ms) are the last one's. */
void e2b_loop_note_429(e2b_loop *loop, long retry_after_ms);
unsigned long e2b_loop_429s(const e2b_loop *loop, long *retry_after_ms, int64_t *at_ms);

#endif
