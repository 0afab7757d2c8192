/* agent_bench: core/agent's figures against a real OpenCode server on loopback (issue 15).
 *
 *   AGENT_PW=pw agent_bench API URL TURNS WATCHES IDLE_SECONDS
 *
 * 1. latency: TURNS text-only turns, followed by one watch; for each state change to
 *    "working" and back to "idle", the time from the moment the server wrote the event that
 *    causes it to the moment the watch's status changed. The watch reaches the server
 *    through a tap (a thread of this process forwarding the bytes of each connection): the
 *    tap notes when it read each state event of the event stream from the server's socket
 *    (v1 session.status busy/idle and session.idle; v2 session.next.prompted/step.started
 *    and step.ended, and session.status), before it passes it on; a change to working is
 *    measured from the latest busy event, to idle from the latest idle event. Same clock for
 *    both ends; the tap's hop counts in the figure. v1's events carry no time of their own;
 *    for v2 the figure from the server's own timestamps (e2b_agent_status.last_event_ms) is
 *    printed too. Prints the median and p95. The prompts go through a client of their own
 *    (as from another machine): a command through the watch ends with a snapshot that may
 *    change the state before the event; a change with no state event read since the one
 *    before is not counted (and said). AGENT_BENCH_VERBOSE=1 prints each change,
 *    AGENT_BENCH_TAP_LOG=1 each read of the event stream.
 * 2. memory: WATCHES more watches opened and synced; the heap in use (mallinfo2) per watch.
 * 3. idle CPU: with those WATCHES streams up and nothing happening, the process's CPU time
 *    over IDLE_SECONDS as a percentage of one core. Every change of a watch recomputes what
 *    the dashboard's Needs-you pane and COST column take from all of them (issue 33: every
 *    pending request oldest first; each box's cost, agent + sandbox, formatted, and whether
 *    it reached its budget), so they are part of the measured state; the time of one such
 *    pass over the WATCHES boxes is printed too.
 * One line per figure: "agent <figure>: <value> (target <t>: met|NOT met)". */
#include "core/agent/watch.h"
#include "core/e2b/cost.h"
#include "core/net/loop.h"

#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the tap: a loopback forwarder that notes when the server wrote each state event ---- */

#define TAP_PAIRS 32
#define TAP_MARKS 4096
enum { MARK_BUSY, MARK_IDLE };

struct tap_pair {
    int client, upstream;
    bool events;       /* the client asked for the event stream */
    char carry[64];    /* the end of the last read: a marker may span two reads */
    size_t ncarry;
};

struct tap {
    int listen_fd;
    int upstream_port;
    int port;
    pthread_t thread;
    struct tap_pair pairs[TAP_PAIRS];
    int npairs;
    pthread_mutex_t mu;
    int64_t mark_ms[TAP_MARKS];
    int mark_kind[TAP_MARKS];
    int nmarks;
};

static const struct {
    const char *text;
    int kind;
} tap_markers[] = {
    {"\"type\":\"busy\"", MARK_BUSY},               /* session.status (both APIs) */
    {"\"type\":\"idle\"", MARK_IDLE},
    {"\"type\":\"session.idle\"", MARK_IDLE},       /* v1 */
    {"\"type\":\"session.next.prompted\"", MARK_BUSY}, /* v2 */
    {"\"type\":\"session.next.step.started\"", MARK_BUSY},
    {"\"type\":\"session.next.step.ended\"", MARK_IDLE},
};

static void tap_mark(struct tap *t, int kind, int64_t ms)
{
    pthread_mutex_lock(&t->mu);
    if (t->nmarks < TAP_MARKS) {
        t->mark_ms[t->nmarks] = ms;
        t->mark_kind[t->nmarks] = kind;
        t->nmarks++;
    }
    pthread_mutex_unlock(&t->mu);
}

/* The latest mark of kind at or before ms, or -1. */
static int64_t tap_latest(struct tap *t, int kind, int64_t ms)
{
    int64_t best = -1;
    pthread_mutex_lock(&t->mu);
    for (int i = 0; i < t->nmarks; i++)
        if (t->mark_kind[i] == kind && t->mark_ms[i] <= ms && t->mark_ms[i] > best)
            best = t->mark_ms[i];
    pthread_mutex_unlock(&t->mu);
    return best;
}

static void tap_scan(struct tap *t, struct tap_pair *p, const char *buf, size_t n, int64_t now)
{
    char scan[64 + 65536];
    memcpy(scan, p->carry, p->ncarry);
    memcpy(scan + p->ncarry, buf, n);
    size_t len = p->ncarry + n;
    for (size_t m = 0; m < sizeof tap_markers / sizeof *tap_markers; m++) {
        size_t ml = strlen(tap_markers[m].text);
        for (size_t i = 0; i + ml <= len; i++)
            /* a marker wholly inside the carry was counted with the last read */
            if (i + ml > p->ncarry && !memcmp(scan + i, tap_markers[m].text, ml))
                tap_mark(t, tap_markers[m].kind, now);
    }
    p->ncarry = len < sizeof p->carry ? len : sizeof p->carry;
    memcpy(p->carry, scan + len - p->ncarry, p->ncarry);
}

static bool write_all(int fd, const char *buf, size_t n)
{
    while (n) {
        ssize_t w = write(fd, buf, n);
        if (w <= 0)
            return false;
        buf += w;
        n -= (size_t)w;
    }
    return true;
}

static void tap_close(struct tap *t, int i)
{
    close(t->pairs[i].client);
    close(t->pairs[i].upstream);
    t->pairs[i] = t->pairs[--t->npairs];
}

static void tap_accept(struct tap *t)
{
    int c = accept(t->listen_fd, NULL, NULL);
    if (c < 0)
        return;
    int u = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)t->upstream_port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (t->npairs == TAP_PAIRS || u < 0 || connect(u, (struct sockaddr *)&a, sizeof a) != 0) {
        close(c);
        if (u >= 0)
            close(u);
        return;
    }
    t->pairs[t->npairs++] = (struct tap_pair){.client = c, .upstream = u};
}

static void *tap_run(void *ud)
{
    struct tap *t = ud;
    static char buf[65536];
    for (;;) {
        struct pollfd fds[1 + 2 * TAP_PAIRS];
        int n = 0;
        fds[n++] = (struct pollfd){.fd = t->listen_fd, .events = POLLIN};
        for (int i = 0; i < t->npairs; i++) {
            fds[n++] = (struct pollfd){.fd = t->pairs[i].client, .events = POLLIN};
            fds[n++] = (struct pollfd){.fd = t->pairs[i].upstream, .events = POLLIN};
        }
        if (poll(fds, (nfds_t)n, -1) < 0)
            continue;
        int np = t->npairs;
        for (int i = np - 1; i >= 0; i--) {
            struct tap_pair *p = &t->pairs[i];
            bool gone = false;
            if (fds[1 + 2 * i + 1].revents & (POLLIN | POLLHUP | POLLERR)) {
                ssize_t r = read(p->upstream, buf, sizeof buf);
                int64_t now = wall_ms(); /* read from the server's socket: before passing on */
                if (r > 0 && p->events) {
                    tap_scan(t, p, buf, (size_t)r, now);
                    if (getenv("AGENT_BENCH_TAP_LOG"))
                    {
                        const char *ty = memmem(buf, (size_t)r, "\"type\":\"", 8);
                        const char *st = memmem(buf, (size_t)r, "\"status\":{\"type\":\"", 18);
                        fprintf(stderr, "tap %lld %zd %.40s %.12s\n", (long long)now, r, ty ? ty + 8 : "-",
                                st ? st + 18 : "");
                    }
                }
                if (r <= 0 || !write_all(p->client, buf, (size_t)r))
                    gone = true;
            }
            if (!gone && (fds[1 + 2 * i].revents & (POLLIN | POLLHUP | POLLERR))) {
                ssize_t r = read(p->client, buf, sizeof buf);
                if (r > 0 && !p->events)
                    p->events = memmem(buf, (size_t)r, "/event", 6) != NULL &&
                                !memcmp(buf, "GET ", 4);
                if (r <= 0 || !write_all(p->upstream, buf, (size_t)r))
                    gone = true;
            }
            if (gone)
                tap_close(t, i);
        }
        if (fds[0].revents & POLLIN)
            tap_accept(t);
    }
    return NULL;
}

/* Starts the tap in front of 127.0.0.1:upstream_port; its port in t->port. */
static int tap_start(struct tap *t, int upstream_port)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    t->upstream_port = upstream_port;
    t->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (t->listen_fd < 0 || bind(t->listen_fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(t->listen_fd, 16) != 0 || getsockname(t->listen_fd, (struct sockaddr *)&a, &al) != 0)
        return -1;
    t->port = ntohs(a.sin_port);
    return pthread_create(&t->thread, NULL, tap_run, t) == 0 ? 0 : -1;
}

/* One set of samples: all changes, and per kind ([0] to working, [1] to idle). */
struct samples {
    long all[4096];
    int n;
    long kind[2][2048];
    int kind_n[2];
};

static void sample_add(struct samples *s, int kind, long d)
{
    if (d < 0 || d >= 60000 || s->n >= 4096)
        return;
    s->all[s->n++] = d;
    if (s->kind_n[kind] < 2048)
        s->kind[kind][s->kind_n[kind]++] = d;
}

struct lat {
    e2b_agent_watch *w;
    e2b_agent_state last;
    struct tap *tap;
    struct samples tapped;  /* from the tap's note of the causing event */
    struct samples stamped; /* from the server's own timestamp (v2) */
    int64_t last_change_ms;
    int not_from_event;     /* changes with no state event read since the one before */
};

static void on_change(void *ud)
{
    struct lat *l = ud;
    const e2b_agent_status *st = e2b_agent_watch_status(l->w);
    if (st->state != l->last && (st->state == E2B_AGENT_WORKING || st->state == E2B_AGENT_IDLE) &&
        l->last != E2B_AGENT_UNKNOWN) {
        int64_t now = wall_ms();
        int k = st->state == E2B_AGENT_IDLE;
        int64_t at = tap_latest(l->tap, k ? MARK_IDLE : MARK_BUSY, now);
        long d = at > 0 ? (long)(now - at) : -1;
        if (at > 0 && at >= l->last_change_ms)
            sample_add(&l->tapped, k, d);
        else
            l->not_from_event++;
        l->last_change_ms = now;
        if (st->last_event_ms > 0 && st->api == 2)
            sample_add(&l->stamped, k, (long)(now - st->last_event_ms));
        if (getenv("AGENT_BENCH_VERBOSE"))
            fprintf(stderr, "%s %ld ms (server's stamp %ld ms)\n", e2b_agent_state_name(st->state), d,
                    st->last_event_ms > 0 ? (long)(now - st->last_event_ms) : -1L);
    }
    l->last = st->state;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

static long percentile(long *v, int n, int p)
{
    qsort(v, (size_t)n, sizeof *v, cmp_long);
    int i = (n * p) / 100;
    return v[i < n ? i : n - 1];
}

static void samples_print(struct samples *s, const char *api, const char *from, bool figure)
{
    if (!s->n) {
        printf("agent event -> state change (v%s): no samples (NOT met)\n", api);
        return;
    }
    long med = percentile(s->all, s->n, 50), p95 = percentile(s->all, s->n, 95);
    if (figure)
        printf("agent event -> state change (v%s, %d changes, from %s): median %ld ms, p95 %ld ms "
               "(target <= 100 ms: %s)\n", api, s->n, from, med, p95, p95 <= 100 ? "met" : "NOT met");
    else
        printf("  from %s: median %ld ms, p95 %ld ms (%d)\n", from, med, p95, s->n);
    for (int k = 0; k < 2; k++)
        if (s->kind_n[k])
            printf("  to %s: median %ld ms, p95 %ld ms (%d)\n", k ? "idle" : "working",
                   percentile(s->kind[k], s->kind_n[k], 50), percentile(s->kind[k], s->kind_n[k], 95), s->kind_n[k]);
}

static void on_tick(void *ud)
{
    *(int *)ud = 1;
}

static void sleep_loop(e2b_loop *loop, long ms)
{
    int done = 0;
    e2b_loop_timer_add(loop, ms, on_tick, &done);
    e2b_wait(loop, &done);
}

struct cmd {
    int done;
    int failed;
    char *session_id;
};

/* The prompts go through a client of their own, not the watch: a command through the watch
 * takes a snapshot when it ends, which may change the state before the event comes. */
static void on_prompt(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    struct cmd *c = ud;
    c->done = 1;
    c->failed = err != NULL;
    if (err)
        fprintf(stderr, "agent_bench: prompt: %s\n", e2b_error_message(err));
    if (!err && res && res->session_id && !c->session_id)
        c->session_id = strdup(res->session_id);
}

static bool wait_for(e2b_loop *loop, e2b_agent_watch *w, e2b_agent_state s, long ms)
{
    int64_t end = e2b_now_ms() + ms;
    while (e2b_now_ms() < end) {
        if (e2b_agent_watch_synced(w) && e2b_agent_watch_status(w)->state == s)
            return true;
        e2b_loop_run_once(loop, 50);
    }
    return false;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The boxes of the memory and idle figures, and what the dashboard recomputes from them on
 * each change: the Needs-you queue (every pending request, oldest first) and each row's
 * COST cell with its budget check (a running sandbox of 2 vCPUs and 512 MiB, E2B's prices). */
struct fleet {
    e2b_agent_watch **ws;
    int n;
    unsigned passes, idle_passes;
    const e2b_agent_request *queue[256];
    char cost[64][24];
};

static int by_asked(const void *a, const void *b)
{
    const e2b_agent_request *x = *(const e2b_agent_request *const *)a,
                            *y = *(const e2b_agent_request *const *)b;
    return (x->asked_ms > y->asked_ms) - (x->asked_ms < y->asked_ms);
}

static void fleet_pass(void *ud)
{
    struct fleet *fl = ud;
    size_t nq = 0;
    time_t now = time(NULL);
    e2b_sandbox sb = {.state = E2B_STATE_RUNNING, .cpu_count = 2, .memory_mb = 512,
                      .started_at = now - 600};
    for (int i = 0; fl->ws && i < fl->n; i++) {
        if (!fl->ws[i])
            continue;
        const e2b_agent_status *st = e2b_agent_watch_status(fl->ws[i]);
        for (size_t k = 0; k < st->nrequests && nq < 256; k++)
            fl->queue[nq++] = &st->requests[k];
        double s = 0, a = st->total.have_cost ? st->total.cost_usd : 0;
        e2b_sandbox_cost(&sb, 0.000014, 0.0000045, now, &s);
        e2b_cost_format(a + s, fl->cost[i % 64], sizeof fl->cost[0]);
        if (e2b_budget_reached(2.0, a, s))
            fl->cost[i % 64][0] = '!';
    }
    qsort(fl->queue, nq, sizeof fl->queue[0], by_asked);
    fl->passes++;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: AGENT_PW=pw agent_bench API URL TURNS WATCHES IDLE_SECONDS\n");
        return 2;
    }
    int turns = atoi(argv[3]), nwatch = atoi(argv[4]), idle_s = atoi(argv[5]);
    e2b_loop *loop = e2b_loop_new();
    e2b_oc_config oc = {.api = atoi(argv[1]), .base_url = argv[2], .password = getenv("AGENT_PW"),
                        .directory = getenv("AGENT_DIR")};
    struct lat *l = calloc(1, sizeof *l);
    static struct tap tap;
    const char *colon = strrchr(argv[2], ':');
    char tap_url[64];
    if (!l || !colon || tap_start(&tap, atoi(colon + 1)) != 0) {
        fprintf(stderr, "agent_bench: the tap cannot start (URL http://127.0.0.1:PORT)\n");
        return 1;
    }
    snprintf(tap_url, sizeof tap_url, "http://127.0.0.1:%d", tap.port);
    l->tap = &tap;
    e2b_oc_config tapped = oc;
    tapped.base_url = tap_url;
    e2b_error *err = NULL;
    l->w = e2b_agent_watch_new(loop, &tapped, on_change, l, &err);
    if (!l->w || !wait_for(loop, l->w, E2B_AGENT_IDLE, 30000)) {
        fprintf(stderr, "agent_bench: the server is not reached\n");
        return 1;
    }
    e2b_oc_client *pc = e2b_oc_new(loop, &oc, &err);
    char *sid = NULL;
    for (int i = 0; pc && i < turns; i++) {
        struct cmd c = {0};
        if (!e2b_oc_prompt(pc, sid, "hello", NULL, on_prompt, &c, &err)) {
            fprintf(stderr, "agent_bench: prompt: %s\n", e2b_error_message(err));
            return 1;
        }
        e2b_wait(loop, &c.done);
        if (c.failed)
            return 1;
        if (!sid)
            sid = c.session_id;
        else
            free(c.session_id);
        sleep_loop(loop, 200);
        if (!wait_for(loop, l->w, E2B_AGENT_IDLE, 30000))
            fprintf(stderr, "agent_bench: turn %d did not end\n", i);
    }
    free(sid);
    e2b_oc_free(pc);
    samples_print(&l->tapped, argv[1], "the tap's note of the event", true);
    if (l->not_from_event)
        printf("  (%d changes came before their event and are not counted)\n", l->not_from_event);
    if (l->stamped.n)
        samples_print(&l->stamped, argv[1], "the server's timestamps", false);

    /* memory and idle CPU with nwatch more watches, each change recomputing the queue and
     * the cost cells over all of them */
    struct fleet fl = {0};
    struct mallinfo2 before = mallinfo2();
    e2b_agent_watch **ws = calloc((size_t)nwatch, sizeof *ws);
    fl.ws = ws;
    fl.n = nwatch;
    for (int i = 0; i < nwatch; i++)
        ws[i] = e2b_agent_watch_new(loop, &oc, fleet_pass, &fl, &err);
    for (int i = 0; i < nwatch; i++)
        wait_for(loop, ws[i], E2B_AGENT_IDLE, 30000);
    sleep_loop(loop, 2000);
    struct mallinfo2 after = mallinfo2();
    double per = ((double)after.uordblks - (double)before.uordblks) / nwatch / 1024.0;
    printf("agent memory per watched box (%d watches, heap in use): %.1f KiB (target <= 256 KiB: %s)\n",
           nwatch, per, per <= 256 ? "met" : "NOT met");
    double c0 = cpu_s();
    int64_t t0 = e2b_now_ms();
    fl.passes = 0;
    sleep_loop(loop, idle_s * 1000L);
    fl.idle_passes = fl.passes;
    double pct = (cpu_s() - c0) * 100.0 / ((e2b_now_ms() - t0) / 1000.0);
    int up = 0;
    for (int i = 0; i < nwatch; i++)
        up += e2b_agent_watch_status(ws[i])->stream_up;
    printf("agent idle CPU with %d streams up, queue and COST kept (%d s): %.3f %% of a core "
           "(target <= 0.5 %%: %s)\n", up, idle_s, pct, pct <= 0.5 ? "met" : "NOT met");
    int64_t p0 = e2b_now_ms();
    unsigned passes = 0;
    while (e2b_now_ms() - p0 < 500 || passes < 100) { /* one pass alone, timed */
        fleet_pass(&fl);
        passes++;
    }
    double us = (e2b_now_ms() - p0) * 1000.0 / passes;
    printf("agent Needs-you queue and COST cells over %d boxes: %.1f us a pass, %u passes in "
           "the idle period (target <= 1000 us: %s)\n", nwatch, us, fl.idle_passes,
           us <= 1000 ? "met" : "NOT met");
    for (int i = 0; i < nwatch; i++)
        e2b_agent_watch_free(ws[i]);
    free(ws);
    e2b_agent_watch_free(l->w);
    free(l);
    e2b_loop_free(loop);
    return 0;
}
