/* Idle boxes sleep (live_idle.h): an internal subscriber of the model that keeps, per
 * watched box, when it was first seen idle, and one timer for the earliest box due. */
#include "core/live/live_idle.h"
#include "core/live/live_internal.h"
#include "core/live/live_ports.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void live_refresh_start(e2b_live *m); /* live_refresh.c */

enum { IDLE_BOXES = 64 };

struct live_idle_box {
    char id[128];
    int64_t seen_idle_ms; /* when first seen idle in this idle spell */
    int64_t due_ms;       /* when it pauses (0: not counting) */
    bool pausing;         /* the pause was asked (once per spell) */
};

struct live_idle {
    e2b_live *m;
    struct live_idle_box boxes[IDLE_BOXES];
    size_t n;
    uint64_t timer;
    int64_t timer_at;
};

int64_t e2b_live_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t e2b_live_idle_due(const e2b_agent_status *st, int64_t seen_idle_ms, long idle_ms)
{
    if (idle_ms <= 0 || !st || st->state != E2B_AGENT_IDLE || st->nrequests)
        return 0;
    /* the latest of: the last turn's end, the last activity, and when this model saw the
     * spell begin (a resume, or the start of its watch), so a box is never paused for idle
     * time nobody here saw */
    int64_t start = st->idle_since_ms;
    if (st->last_activity_ms > start)
        start = st->last_activity_ms;
    if (seen_idle_ms > start)
        start = seen_idle_ms;
    return start ? start + idle_ms : 0;
}

static struct live_idle_box *box_of(struct live_idle *li, const char *id, bool make)
{
    for (size_t i = 0; i < li->n; i++)
        if (strcmp(li->boxes[i].id, id) == 0)
            return &li->boxes[i];
    if (!make || li->n == IDLE_BOXES)
        return NULL;
    struct live_idle_box *b = &li->boxes[li->n++];
    *b = (struct live_idle_box){0};
    snprintf(b->id, sizeof b->id, "%s", id);
    return b;
}

static void on_timer(void *ud);

/* Whether something of this model keeps the box awake besides its agent. */
static bool kept_awake(e2b_live *m, const e2b_sandbox *sb)
{
    char why[64];
    /* a message waits for the resumed agent (m on a paused box): until it went, the box
     * is not idle, however long the agent takes to answer again */
    if (live_agent_pending(m, sb->sandbox_id))
        return true;
    if (live_op_busy(m, sb->sandbox_id, sb->box_name ? sb->box_name : "", why, sizeof why))
        return true;
    e2b_live_ports_info pi;
    e2b_live_ports_get(m, sb->sandbox_id, &pi);
    return pi.nforwards > 0;
}

/* Looks at every box: who counts, who is due. act: pause the boxes due (from the timer,
 * never inside a subscriber's call). */
static void look(struct live_idle *li, bool act)
{
    e2b_live *m = li->m;
    long idle_ms = m->cfg.idle_ms;
    int64_t now = e2b_live_wall_ms(), next = 0;
    const e2b_sandbox_list *l = &m->sandboxes;
    /* boxes no longer listed are forgotten */
    for (size_t i = 0; i < li->n;) {
        if (!live_sandbox_find(l, li->boxes[i].id))
            li->boxes[i] = li->boxes[--li->n];
        else
            i++;
    }
    for (size_t i = 0; i < l->count; i++) {
        const e2b_sandbox *sb = &l->items[i];
        const e2b_agent_status *st = e2b_live_agent(m, sb->sandbox_id);
        if (sb->kind != E2B_KIND_BOX || !st)
            continue;
        struct live_idle_box *b = box_of(li, sb->sandbox_id, true);
        if (!b)
            continue;
        bool idle = sb->state == E2B_STATE_RUNNING && st->state == E2B_AGENT_IDLE &&
                    !st->nrequests && !kept_awake(m, sb);
        if (!idle) { /* a new spell starts when it is idle again */
            b->seen_idle_ms = 0;
            b->due_ms = 0;
            b->pausing = false;
            continue;
        }
        if (!b->seen_idle_ms)
            b->seen_idle_ms = now;
        int64_t due = e2b_live_idle_due(st, b->seen_idle_ms, idle_ms);
        b->due_ms = due;
        if (!due || b->pausing)
            continue;
        if (due <= now && act) {
            b->pausing = true;
            char mins[32];
            snprintf(mins, sizeof mins, "%g", idle_ms / 60000.0);
            live_notice(m, E2B_LIVE_INFO, "box %s: its agent was idle for %s min with nothing "
                        "pending: pausing it (idle_minutes; m, a or --prompt resume it)",
                        sb->box_name ? sb->box_name : sb->sandbox_id, mins);
            e2b_live_stop(m, sb->sandbox_id);
            continue;
        }
        if (!next || due < next)
            next = due;
    }
    if (act && li->timer) /* it fired */
        li->timer = 0;
    int64_t at = next ? next : 0;
    if (!act && li->timer && at && at >= li->timer_at)
        at = li->timer_at; /* the timer set is soon enough */
    if (at && (!li->timer || at != li->timer_at)) {
        if (li->timer)
            e2b_loop_timer_cancel(m->loop, li->timer);
        long delay = at > now ? (long)(at - now) : 0;
        li->timer = e2b_loop_timer_add(m->loop, delay + 20, on_timer, li);
        li->timer_at = at;
    } else if (!at && li->timer) {
        e2b_loop_timer_cancel(m->loop, li->timer);
        li->timer = 0;
    }
}

static void on_timer(void *ud)
{
    struct live_idle *li = ud;
    li->timer = 0;
    if (!li->m->closing)
        look(li, true);
}

static void on_change(void *ud, unsigned what)
{
    struct live_idle *li = ud;
    (void)what;
    if (!li->m->closing)
        look(li, false);
}

void live_idle_start(e2b_live *m)
{
    if (m->idle || !m->loop || m->cfg.idle_ms <= 0)
        return;
    struct live_idle *li = calloc(1, sizeof *li);
    if (!li)
        return;
    li->m = m;
    if (e2b_live_subscribe(m, E2B_LIVE_AGENTS | E2B_LIVE_SANDBOXES | E2B_LIVE_OPS, on_change,
                           li) != 0) {
        free(li);
        return;
    }
    m->idle = li;
}

void live_idle_free(e2b_live *m)
{
    struct live_idle *li = m->idle;
    if (!li)
        return;
    if (li->timer && m->loop)
        e2b_loop_timer_cancel(m->loop, li->timer);
    e2b_live_unsubscribe(m, on_change, li);
    free(li);
    m->idle = NULL;
}

int64_t e2b_live_idle_pause_at(const e2b_live *m, const char *sandbox_id)
{
    struct live_idle *li = m->idle;
    if (!li)
        return 0;
    for (size_t i = 0; i < li->n; i++)
        if (strcmp(li->boxes[i].id, sandbox_id) == 0)
            return li->boxes[i].pausing ? 0 : li->boxes[i].due_ms;
    return 0;
}

void e2b_live_keepalive(e2b_live *m)
{
    m->is_headless = false; /* the refresh cycle and the agents' watches, as the dashboard */
    live_refresh_start(m);
    live_idle_start(m);
    live_budget_start(m);
}
