#include "core/net/loop.h"

#include "core/net/loop_curl.h"
#include "core/util/buf.h"
#include "core/util/log.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct watch {
    int fd;
    unsigned events;
    e2b_loop_fd_fn fn;
    void *ud;
} watch;

typedef struct timer {
    uint64_t id;
    int64_t deadline;
    e2b_loop_fn fn;
    void *ud;
} timer;

struct e2b_loop {
    CURLM *multi;
    watch *watches;
    size_t nwatches, capwatches;
    timer *timers;
    size_t ntimers, captimers;
    uint64_t next_timer_id;
    pthread_mutex_t post_lock;
    e2b_loop_slot *post_head, *post_tail;
    e2b_loop_transfer *transfers;
    int ntransfers;
    int failing;        /* the multi handle failed in the last round (logged once) */
    int inject_failure; /* tests: e2b_loop_inject_multi_failure */
    int inject_timer_failure; /* tests: e2b_loop_inject_timer_failure */
    unsigned long n429;       /* 429 answers seen (e2b_loop_note_429) */
    long retry_after_ms;      /* the last one's Retry-After */
    int64_t last_429_ms;
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_ok;

static void curl_init_once(void)
{
    curl_ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

int64_t e2b_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

e2b_loop *e2b_loop_new(void)
{
    e2b_loop *loop;
    pthread_once(&curl_once, curl_init_once);
    if (!curl_ok)
        return NULL;
    loop = calloc(1, sizeof *loop);
    if (!loop)
        return NULL;
    loop->multi = curl_multi_init();
    if (!loop->multi) {
        free(loop);
        return NULL;
    }
    /* HTTP/2 multiplexing where the server offers it; a modest connection cache. */
    curl_multi_setopt(loop->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    curl_multi_setopt(loop->multi, CURLMOPT_MAXCONNECTS, 32L);
    pthread_mutex_init(&loop->post_lock, NULL);
    loop->next_timer_id = 1;
    return loop;
}

void e2b_loop_free(e2b_loop *loop)
{
    e2b_loop_slot *p;
    if (!loop)
        return;
    /* Each abandon unregisters its transfer. */
    while (loop->transfers) {
        e2b_loop_transfer *t = loop->transfers;
        t->abandon(t);
        if (loop->transfers == t) /* a broken abandon must not loop forever */
            e2b_loop_transfer_unregister(loop, t);
    }
    curl_multi_cleanup(loop->multi);
    while ((p = loop->post_head)) {
        loop->post_head = p->next;
        p->queued = 0;
        if (p->owned)
            free(p);
    }
    pthread_mutex_destroy(&loop->post_lock);
    free(loop->watches);
    free(loop->timers);
    free(loop);
}

CURLM *e2b_loop_multi(e2b_loop *loop)
{
    return loop->multi;
}

void e2b_loop_transfer_register(e2b_loop *loop, e2b_loop_transfer *t)
{
    t->prev = NULL;
    t->next = loop->transfers;
    if (loop->transfers)
        loop->transfers->prev = t;
    loop->transfers = t;
    loop->ntransfers++;
}

void e2b_loop_transfer_unregister(e2b_loop *loop, e2b_loop_transfer *t)
{
    if (t->prev)
        t->prev->next = t->next;
    else if (loop->transfers == t)
        loop->transfers = t->next;
    else
        return; /* not registered */
    if (t->next)
        t->next->prev = t->prev;
    t->next = t->prev = NULL;
    loop->ntransfers--;
}

int e2b_loop_requests_in_flight(const e2b_loop *loop)
{
    return loop->ntransfers;
}

int e2b_loop_watch_fd(e2b_loop *loop, int fd, unsigned events, e2b_loop_fd_fn fn, void *ud)
{
    for (size_t i = 0; i < loop->nwatches; i++) {
        if (loop->watches[i].fd == fd) {
            loop->watches[i] = (watch){fd, events, fn, ud};
            return 0;
        }
    }
    if (e2b_array_grow((void **)&loop->watches, &loop->capwatches, loop->nwatches + 1,
                       sizeof *loop->watches) < 0)
        return -1;
    loop->watches[loop->nwatches++] = (watch){fd, events, fn, ud};
    return 0;
}

void e2b_loop_unwatch_fd(e2b_loop *loop, int fd)
{
    for (size_t i = 0; i < loop->nwatches; i++) {
        if (loop->watches[i].fd == fd) {
            loop->watches[i] = loop->watches[--loop->nwatches];
            return;
        }
    }
}

uint64_t e2b_loop_timer_add(e2b_loop *loop, long delay_ms, e2b_loop_fn fn, void *ud)
{
    if (loop->inject_timer_failure)
        return 0;
    if (e2b_array_grow((void **)&loop->timers, &loop->captimers, loop->ntimers + 1,
                       sizeof *loop->timers) < 0)
        return 0;
    loop->timers[loop->ntimers++] =
        (timer){loop->next_timer_id, e2b_now_ms() + (delay_ms > 0 ? delay_ms : 0), fn, ud};
    return loop->next_timer_id++;
}

void e2b_loop_timer_cancel(e2b_loop *loop, uint64_t id)
{
    for (size_t i = 0; i < loop->ntimers; i++) {
        if (loop->timers[i].id == id) {
            loop->timers[i] = loop->timers[--loop->ntimers];
            return;
        }
    }
}

void e2b_loop_post_slot(e2b_loop *loop, e2b_loop_slot *slot, e2b_loop_fn fn, void *ud)
{
    pthread_mutex_lock(&loop->post_lock);
    slot->fn = fn;
    slot->ud = ud;
    if (!slot->queued) {
        slot->queued = 1;
        slot->next = NULL;
        if (loop->post_tail)
            loop->post_tail->next = slot;
        else
            loop->post_head = slot;
        loop->post_tail = slot;
    }
    pthread_mutex_unlock(&loop->post_lock);
    curl_multi_wakeup(loop->multi);
}

int e2b_loop_post(e2b_loop *loop, e2b_loop_fn fn, void *ud)
{
    e2b_loop_slot *p = calloc(1, sizeof *p);
    if (!p)
        return -1;
    p->owned = 1;
    e2b_loop_post_slot(loop, p, fn, ud);
    return 0;
}

void e2b_loop_inject_multi_failure(e2b_loop *loop, int on)
{
    loop->inject_failure = on;
}

void e2b_loop_inject_timer_failure(e2b_loop *loop, int on)
{
    loop->inject_timer_failure = on;
}

static CURLMcode multi_perform(e2b_loop *loop, int *running)
{
    return loop->inject_failure ? CURLM_INTERNAL_ERROR
                                : curl_multi_perform(loop->multi, running);
}

static CURLMcode multi_poll(e2b_loop *loop, struct curl_waitfd *fds, unsigned n, int ms,
                            int *numfds)
{
    return loop->inject_failure ? CURLM_INTERNAL_ERROR
                                : curl_multi_poll(loop->multi, fds, n, ms, numfds);
}

/* The multi handle failed: every transfer ends now with an error (their owners see a failed
 * request, as for any other), so nothing waits for a transfer that cannot move. Logged when
 * the failure starts, not every round. */
static void multi_failed(e2b_loop *loop, const char *call, CURLMcode mc)
{
    char why[160];
    snprintf(why, sizeof why, "the network layer failed (%s: %s)", call, curl_multi_strerror(mc));
    if (!loop->failing)
        e2b_logf("loop: %s; requests in flight end with this error", why);
    loop->failing = 1;
    while (loop->transfers) {
        e2b_loop_transfer *t = loop->transfers;
        t->fail(t, why);
        if (loop->transfers == t) /* a broken fail must not loop forever */
            e2b_loop_transfer_unregister(loop, t);
    }
}

/* Finished transfers: the owner gets them outside any curl callback. */
static int drain_done(e2b_loop *loop)
{
    CURLMsg *msg;
    int left, n = 0;
    while ((msg = curl_multi_info_read(loop->multi, &left))) {
        e2b_loop_transfer *t = NULL;
        CURL *easy;
        CURLcode rc;
        if (msg->msg != CURLMSG_DONE)
            continue;
        easy = msg->easy_handle;
        rc = msg->data.result;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&t);
        curl_multi_remove_handle(loop->multi, easy);
        if (t)
            t->done(t, rc);
        n++;
    }
    return n;
}

/* Runs the timers that are due now (not those added by the callbacks themselves). */
static int run_timers(e2b_loop *loop)
{
    uint64_t limit = loop->next_timer_id;
    int n = 0;
    for (;;) {
        int64_t now = e2b_now_ms();
        size_t best = (size_t)-1;
        timer t;
        for (size_t i = 0; i < loop->ntimers; i++)
            if (loop->timers[i].id < limit && loop->timers[i].deadline <= now &&
                (best == (size_t)-1 || loop->timers[i].deadline < loop->timers[best].deadline))
                best = i;
        if (best == (size_t)-1)
            return n;
        t = loop->timers[best];
        loop->timers[best] = loop->timers[--loop->ntimers];
        t.fn(t.ud);
        n++;
    }
}

static int run_posted(e2b_loop *loop)
{
    e2b_loop_slot *p, *next;
    int n = 0;
    pthread_mutex_lock(&loop->post_lock);
    p = loop->post_head;
    loop->post_head = loop->post_tail = NULL;
    for (e2b_loop_slot *q = p; q; q = q->next)
        q->queued = 0; /* from here on a slot may be posted again, even by its own fn */
    pthread_mutex_unlock(&loop->post_lock);
    for (; p; p = next) {
        e2b_loop_fn fn = p->fn;
        void *ud = p->ud;
        next = p->next;
        if (p->owned)
            free(p);
        fn(ud);
        n++;
    }
    return n;
}

static long next_timer_wait(const e2b_loop *loop, long max_wait_ms)
{
    int64_t now = e2b_now_ms();
    long wait = max_wait_ms < 0 ? 60 * 60 * 1000L : max_wait_ms;
    for (size_t i = 0; i < loop->ntimers; i++) {
        int64_t d = loop->timers[i].deadline - now;
        if (d < 0)
            d = 0;
        if (d < wait)
            wait = (long)d;
    }
    return wait;
}

/* poll(2) on the watched fds, filling in their revents with every event, hang-up and error
 * included. Used twice:
 * - after curl_multi_poll, with no wait: it reports only POLLIN/POLLOUT/POLLPRI for extra
 *   fds, so a hang-up (e.g. a pty whose master closed) showed as nothing at all while poll
 *   returned at once, and the loop spun;
 * - instead of curl_multi_poll while the multi handle fails, with a wait bounded to 100 ms
 *   so that work posted from other threads (whose wakeup goes through the multi handle) is
 *   still seen. */
static void poll_watched(struct curl_waitfd *fds, size_t nfds, long wait)
{
    struct pollfd *pfd = nfds ? calloc(nfds, sizeof *pfd) : NULL;
    if (!pfd) {
        if (wait > 0)
            poll(NULL, 0, (int)wait);
        return;
    }
    for (size_t i = 0; i < nfds; i++)
        pfd[i] = (struct pollfd){fds[i].fd,
                                 (short)((fds[i].events & CURL_WAIT_POLLIN ? POLLIN : 0) |
                                         (fds[i].events & CURL_WAIT_POLLOUT ? POLLOUT : 0)),
                                 0};
    if (poll(pfd, nfds, (int)wait) >= 0)
        for (size_t i = 0; i < nfds; i++)
            fds[i].revents = (short)((pfd[i].revents & POLLIN ? CURL_WAIT_POLLIN : 0) |
                                     (pfd[i].revents & POLLOUT ? CURL_WAIT_POLLOUT : 0) |
                                     (pfd[i].revents & ~(POLLIN | POLLOUT) ? POLLERR : 0));
    free(pfd);
}

/* What a watched fd reports to its callback. */
static unsigned fd_events(short revents)
{
    unsigned rev = 0;
    if (revents & CURL_WAIT_POLLIN)
        rev |= E2B_LOOP_IN;
    if (revents & CURL_WAIT_POLLOUT)
        rev |= E2B_LOOP_OUT;
    if (revents & ~(CURL_WAIT_POLLIN | CURL_WAIT_POLLOUT | CURL_WAIT_POLLPRI))
        rev |= E2B_LOOP_ERR;
    return rev;
}

int e2b_loop_run_once(e2b_loop *loop, long max_wait_ms)
{
    int running = 0, numfds = 0, worked = 0, failed = 0;
    struct curl_waitfd *fds = NULL;
    size_t nfds = loop->nwatches;
    long wait;
    CURLMcode mc;

    /* A failed multi handle ends the transfers; timers and posted work run all the same
     * (a cancel completes through a timer). */
    if ((mc = multi_perform(loop, &running)) != CURLM_OK) {
        multi_failed(loop, "curl_multi_perform", mc);
        failed = 1;
    } else {
        worked = drain_done(loop);
    }
    worked += run_timers(loop);
    worked += run_posted(loop);

    wait = worked ? 0 : next_timer_wait(loop, max_wait_ms);
    if (nfds) {
        fds = calloc(nfds, sizeof *fds);
        if (!fds) {
            /* Out of memory: do not wait on nothing (a busy loop); wait a little. */
            poll(NULL, 0, wait < 0 || wait > 100 ? 100 : (int)wait);
            return -1;
        }
        for (size_t i = 0; i < nfds; i++) {
            fds[i].fd = loop->watches[i].fd;
            fds[i].events = (short)((loop->watches[i].events & E2B_LOOP_IN ? CURL_WAIT_POLLIN : 0) |
                                    (loop->watches[i].events & E2B_LOOP_OUT ? CURL_WAIT_POLLOUT : 0));
        }
    }
    if (!failed && (mc = multi_poll(loop, fds, (unsigned)nfds, (int)wait, &numfds)) != CURLM_OK) {
        multi_failed(loop, "curl_multi_poll", mc);
        failed = 1;
    }
    if (failed)
        poll_watched(fds, nfds, wait < 0 || wait > 100 ? 100 : wait);
    else if (nfds)
        poll_watched(fds, nfds, 0);
    for (size_t i = 0; i < nfds; i++) {
        if (!fds[i].revents)
            continue;
        /* The watch may have been removed or replaced by an earlier callback. */
        for (size_t j = 0; j < loop->nwatches; j++) {
            if (loop->watches[j].fd == fds[i].fd) {
                loop->watches[j].fn(loop->watches[j].ud, fds[i].fd, fd_events(fds[i].revents));
                break;
            }
        }
    }
    free(fds);
    if (failed)
        return -1;
    /* Move transfers on at once, so that their completion does not wait for the next round. */
    if ((mc = multi_perform(loop, &running)) != CURLM_OK) {
        multi_failed(loop, "curl_multi_perform", mc);
        return -1;
    }
    drain_done(loop);
    if (loop->failing) {
        e2b_logf("loop: the network layer works again");
        loop->failing = 0;
    }
    return 0;
}

int e2b_wait(e2b_loop *loop, const int *done)
{
    int rc = 0;
    while (!*done)
        if (e2b_loop_run_once(loop, 1000) < 0)
            rc = -1;
    return rc;
}

void e2b_loop_note_429(e2b_loop *loop, long retry_after_ms)
{
    loop->n429++;
    loop->retry_after_ms = retry_after_ms > 0 ? retry_after_ms : 1000;
    loop->last_429_ms = e2b_now_ms();
}

unsigned long e2b_loop_429s(const e2b_loop *loop, long *retry_after_ms, int64_t *at_ms)
{
    if (retry_after_ms)
        *retry_after_ms = loop->retry_after_ms;
    if (at_ms)
        *at_ms = loop->last_429_ms;
    return loop->n429;
}
