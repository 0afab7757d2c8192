/* agent_bench: core/agent's figures against a real OpenCode server on loopback (issue 15).
 *
 *   AGENT_PW=pw agent_bench API URL TURNS WATCHES IDLE_SECONDS
 *
 * 1. latency: TURNS text-only turns sent through one watch; for each state change to
 *    "working" and back to "idle", the time from the server's own timestamp of the event
 *    that caused it (e2b_agent_status.last_event_ms; same machine, same clock) to the moment
 *    the watch's status changed. Prints the median and p95.
 * 2. memory: WATCHES more watches opened and synced; the heap in use (mallinfo2) per watch.
 * 3. idle CPU: with those WATCHES streams up and nothing happening, the process's CPU time
 *    over IDLE_SECONDS as a percentage of one core.
 * One line per figure: "agent <figure>: <value> (target <t>: met|NOT met)". */
#include "core/agent/watch.h"
#include "core/net/loop.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct lat {
    e2b_agent_watch *w;
    e2b_agent_state last;
    long samples[4096];
    int n;
    long kind_s[2][2048]; /* [0] to working, [1] to idle */
    int kind_n[2];
};

static void on_change(void *ud)
{
    struct lat *l = ud;
    const e2b_agent_status *st = e2b_agent_watch_status(l->w);
    if (st->state != l->last && (st->state == E2B_AGENT_WORKING || st->state == E2B_AGENT_IDLE) &&
        l->last != E2B_AGENT_UNKNOWN && st->last_event_ms > 0 && l->n < 4096) {
        long d = (long)(wall_ms() - st->last_event_ms);
        if (d >= 0 && d < 60000) {
            l->samples[l->n++] = d;
            int k = st->state == E2B_AGENT_IDLE;
            if (l->kind_n[k] < 2048)
                l->kind_s[k][l->kind_n[k]++] = d;
        }
        if (getenv("AGENT_BENCH_VERBOSE"))
            fprintf(stderr, "%s %ld ms\n", e2b_agent_state_name(st->state), d);
    }
    l->last = st->state;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
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
};

static void on_cmd(void *ud, const char *sid, const e2b_error *err)
{
    struct cmd *c = ud;
    (void)sid;
    c->done = 1;
    c->failed = err != NULL;
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
    e2b_error *err = NULL;
    l->w = e2b_agent_watch_new(loop, &oc, on_change, l, &err);
    if (!l->w || !wait_for(loop, l->w, E2B_AGENT_IDLE, 30000)) {
        fprintf(stderr, "agent_bench: the server is not reached\n");
        return 1;
    }
    for (int i = 0; i < turns; i++) {
        struct cmd c = {0};
        if (e2b_agent_watch_prompt(l->w, NULL, i == 0, "hello", on_cmd, &c, &err)) {
            fprintf(stderr, "agent_bench: prompt: %s\n", e2b_error_message(err));
            return 1;
        }
        e2b_wait(loop, &c.done);
        if (c.failed)
            return 1;
        sleep_loop(loop, 200);
        if (!wait_for(loop, l->w, E2B_AGENT_IDLE, 30000))
            fprintf(stderr, "agent_bench: turn %d did not end\n", i);
    }
    if (l->n) {
        qsort(l->samples, (size_t)l->n, sizeof *l->samples, cmp_long);
        long med = l->samples[l->n / 2], p95 = l->samples[(l->n * 95) / 100 < l->n ? (l->n * 95) / 100 : l->n - 1];
        printf("agent event -> state change (v%s, %d changes): median %ld ms, p95 %ld ms (target <= 100 ms: %s)\n",
               argv[1], l->n, med, p95, p95 <= 100 ? "met" : "NOT met");
        for (int k = 0; k < 2; k++) {
            if (!l->kind_n[k])
                continue;
            qsort(l->kind_s[k], (size_t)l->kind_n[k], sizeof(long), cmp_long);
            printf("  to %s: median %ld ms, p95 %ld ms (%d)\n", k ? "idle" : "working",
                   l->kind_s[k][l->kind_n[k] / 2], l->kind_s[k][(l->kind_n[k] * 95) / 100], l->kind_n[k]);
        }
    } else {
        printf("agent event -> state change: no samples (NOT met)\n");
    }

    /* memory and idle CPU with nwatch more watches */
    struct mallinfo2 before = mallinfo2();
    e2b_agent_watch **ws = calloc((size_t)nwatch, sizeof *ws);
    for (int i = 0; i < nwatch; i++)
        ws[i] = e2b_agent_watch_new(loop, &oc, NULL, NULL, &err);
    for (int i = 0; i < nwatch; i++)
        wait_for(loop, ws[i], E2B_AGENT_IDLE, 30000);
    sleep_loop(loop, 2000);
    struct mallinfo2 after = mallinfo2();
    double per = ((double)after.uordblks - (double)before.uordblks) / nwatch / 1024.0;
    printf("agent memory per watched box (%d watches, heap in use): %.1f KiB (target <= 256 KiB: %s)\n",
           nwatch, per, per <= 256 ? "met" : "NOT met");
    double c0 = cpu_s();
    int64_t t0 = e2b_now_ms();
    sleep_loop(loop, idle_s * 1000L);
    double pct = (cpu_s() - c0) * 100.0 / ((e2b_now_ms() - t0) / 1000.0);
    int up = 0;
    for (int i = 0; i < nwatch; i++)
        up += e2b_agent_watch_status(ws[i])->stream_up;
    printf("agent idle CPU with %d streams up (%d s): %.3f %% of a core (target <= 0.5 %%: %s)\n", up,
           idle_s, pct, pct <= 0.5 ? "met" : "NOT met");
    for (int i = 0; i < nwatch; i++)
        e2b_agent_watch_free(ws[i]);
    free(ws);
    e2b_agent_watch_free(l->w);
    free(l);
    e2b_loop_free(loop);
    return 0;
}
