/* Budgets (live_budget.h): an internal subscriber of the model that looks at every box with
 * a budget when the agents or the list change, and keeps one timer for the next thing due
 * (a sandbox's part reaching its budget, or a stop after an interrupt). */
#include "core/live/live_budget.h"
#include "core/live/live_idle.h"
#include "core/live/live_internal.h"

#include "core/e2b/cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BUDGET_BOXES = 64, INTERRUPT_WAIT_MS = 5000 };

enum budget_phase {
    PHASE_WATCHING = 0,
    PHASE_INTERRUPTING, /* its turn was interrupted: paused once it ended (or after a wait) */
    PHASE_STOPPED,      /* the pause was asked (once per running spell) */
};

struct live_budget_box {
    char id[128];
    enum budget_phase phase;
    int64_t since_ms; /* when the phase began */
    bool seen;        /* still listed (pruning) */
};

struct live_budget {
    e2b_live *m;
    struct live_budget_box boxes[BUDGET_BOXES];
    size_t n;
    uint64_t timer;
    int64_t timer_at;
};

bool e2b_live_box_cost(const e2b_agent_status *st, const e2b_sandbox *sb, const e2b_config *cfg,
                       time_t now, double *agent_usd, double *sandbox_usd)
{
    bool a = st && st->total.have_cost;
    *agent_usd = a ? st->total.cost_usd : 0;
    bool s = e2b_sandbox_cost(sb, cfg->price_vcpu_second, cfg->price_gib_second, now, sandbox_usd);
    if (!s)
        *sandbox_usd = 0;
    return a && (s || (sb && sb->state == E2B_STATE_PAUSED));
}

double e2b_live_budget_usd(const e2b_box_record *rec, const e2b_config *cfg)
{
    if (rec && rec->budget_usd > 0)
        return rec->budget_usd;
    return cfg && cfg->budget_usd > 0 ? cfg->budget_usd : 0;
}

/* The box's record: the model's list (current), else the one its agent watch was made from. */
static e2b_box_record *record_of(e2b_live *m, const char *sandbox_id)
{
    const e2b_box_record *r = e2b_box_record_list_find_sandbox(&m->records, sandbox_id);
    return r ? (e2b_box_record *)r : live_agent_record(m, sandbox_id);
}

static struct live_budget_box *box_of(struct live_budget *lb, const char *id, bool make)
{
    for (size_t i = 0; lb && i < lb->n; i++)
        if (strcmp(lb->boxes[i].id, id) == 0)
            return &lb->boxes[i];
    if (!lb || !make || lb->n == BUDGET_BOXES)
        return NULL;
    struct live_budget_box *b = &lb->boxes[lb->n++];
    *b = (struct live_budget_box){0};
    snprintf(b->id, sizeof b->id, "%s", id);
    return b;
}

bool e2b_live_budget_of(const e2b_live *m, const char *sandbox_id, e2b_live_budget *out)
{
    memset(out, 0, sizeof *out);
    const e2b_box_record *r = record_of((e2b_live *)m, sandbox_id);
    if (!r)
        return false;
    out->usd = e2b_live_budget_usd(r, &m->cfg);
    out->own = r->budget_usd > 0;
    const struct live_budget_box *b = box_of(m->budget, sandbox_id, false);
    out->stopped = r->budget_stopped || (b && b->phase != PHASE_WATCHING);
    double a, s;
    e2b_live_box_cost(e2b_live_agent(m, sandbox_id), e2b_live_agent_sandbox(m, sandbox_id),
                      &m->cfg, time(NULL), &a, &s);
    out->spent_usd = a + s;
    out->reached = e2b_budget_reached(out->usd, a, s);
    return true;
}

/* Writes the record of name with its budget (usd > 0: set it) and stopped mark; the
 * model's copies follow at once (the list's is read again only when the folder changed). */
static e2b_error *record_update(e2b_live *m, const char *name, const char *sandbox_id,
                                double usd, bool stopped)
{
    e2b_box_record rec = {0};
    e2b_error *e = e2b_box_record_read(m->cfg.records_dir, name, &rec);
    if (!e) {
        if (usd > 0)
            rec.budget_usd = usd;
        rec.budget_stopped = stopped;
        e = e2b_box_record_write(m->cfg.records_dir, &rec, 0);
        if (!sandbox_id)
            sandbox_id = rec.sandbox_id;
    }
    e2b_box_record *copies[] = {
        (e2b_box_record *)e2b_box_record_list_find(&m->records, name),
        sandbox_id ? live_agent_record(m, sandbox_id) : NULL};
    for (size_t i = 0; !e && i < 2; i++) {
        if (!copies[i])
            continue;
        if (usd > 0)
            copies[i]->budget_usd = usd;
        copies[i]->budget_stopped = stopped;
    }
    e2b_box_record_clear(&rec);
    return e;
}

e2b_error *e2b_live_budget_set(e2b_live *m, const char *name, double usd)
{
    if (!(usd > 0))
        return e2b_error_new(E2B_ERR_INVALID, "a budget is dollars, more than 0");
    e2b_error *e = record_update(m, name, NULL, usd, false);
    if (e)
        return e;
    for (size_t i = 0; m->budget && i < m->budget->n; i++) {
        struct live_budget_box *b = &m->budget->boxes[i];
        const e2b_box_record *r = record_of(m, b->id);
        if (r && r->name && !strcmp(r->name, name))
            b->phase = PHASE_WATCHING; /* a new spell: watched again */
    }
    char f[24];
    e2b_cost_format(usd, f, sizeof f);
    live_notice(m, E2B_LIVE_INFO, "%s: its budget is %s now", name, f);
    live_notify(m, E2B_LIVE_AGENTS);
    return NULL;
}

static void on_timer(void *ud);

/* The box's turn ends, then it is paused, its record marked and the stop told. */
static void stop_box(struct live_budget *lb, struct live_budget_box *b, const e2b_sandbox *sb,
                     const e2b_agent_status *st, double budget, int64_t now)
{
    e2b_live *m = lb->m;
    const char *name = sb->box_name ? sb->box_name : sb->sandbox_id;
    bool turn = st && e2b_agent_state_in_turn(st->state);
    if (b->phase == PHASE_WATCHING && turn) {
        b->phase = PHASE_INTERRUPTING;
        b->since_ms = now;
        e2b_live_agent_interrupt(m, sb->sandbox_id);
        return;
    }
    b->phase = PHASE_STOPPED;
    b->since_ms = now;
    const e2b_box_record *r = record_of(m, sb->sandbox_id);
    e2b_error *e = r && r->name ? record_update(m, r->name, sb->sandbox_id, 0, true) : NULL;
    char f[24];
    e2b_cost_format(budget, f, sizeof f);
    if (e)
        live_notice(m, E2B_LIVE_ERROR, "%s stopped at its %s budget, but its record was not "
                    "marked: %s", name, f, e2b_error_message(e));
    else
        live_notice(m, E2B_LIVE_INFO, "%s stopped at its %s budget: pausing it (e raises the "
                    "budget; m asks before going past it)", name, f);
    e2b_error_free(e);
    e2b_live_stop(m, sb->sandbox_id);
}

/* Looks at every box with a budget. act: stop the boxes due (from the timer, never inside
 * a subscriber's call). */
static void look(struct live_budget *lb, bool act)
{
    e2b_live *m = lb->m;
    int64_t now = e2b_live_wall_ms(), next = 0;
    for (size_t i = 0; i < lb->n; i++)
        lb->boxes[i].seen = false;
    size_t n = e2b_live_agent_count(m);
    for (size_t i = 0; i < n; i++) {
        const char *id = NULL;
        const e2b_agent_status *st = e2b_live_agent_at(m, i, &id, NULL);
        const e2b_sandbox *sb = e2b_live_agent_sandbox_at(m, i);
        const e2b_box_record *r = id ? record_of(m, id) : NULL;
        double budget = e2b_live_budget_usd(r, &m->cfg);
        /* (an agent whose state is not read in full yet: a turn it runs could not be
         * interrupted; looked at again once it is, or once its server is seen down) */
        if (!st || !sb || budget <= 0 ||
            (!e2b_live_agent_synced(m, id) && st->state != E2B_AGENT_SERVER_DOWN &&
             st->state != E2B_AGENT_PAUSED))
            continue;
        struct live_budget_box *b = box_of(lb, id, true);
        if (!b)
            continue;
        b->seen = true;
        if (sb->state != E2B_STATE_RUNNING) { /* paused: a resume starts a new spell */
            b->phase = PHASE_WATCHING;
            continue;
        }
        if (b->phase == PHASE_STOPPED)
            continue;
        double a, s;
        e2b_live_box_cost(st, sb, &m->cfg, (time_t)(now / 1000), &a, &s);
        int64_t due;
        if (b->phase == PHASE_INTERRUPTING) {
            due = !e2b_agent_state_in_turn(st->state) ? now : b->since_ms + INTERRUPT_WAIT_MS;
        } else if (e2b_budget_reached(budget, a, s)) {
            due = now;
        } else {
            /* when the sandbox's part alone takes it there (its cost grows by the second) */
            double rate =
                e2b_sandbox_cost_rate(sb, m->cfg.price_vcpu_second, m->cfg.price_gib_second);
            double left = (budget - a - s) / rate;
            due = rate > 0 && left < 86400.0 * 7 ? now + (int64_t)(left * 1000) + 1 : 0;
        }
        if (due && due <= now && act) {
            stop_box(lb, b, sb, st, budget, now);
            if (b->phase == PHASE_INTERRUPTING)
                due = now + INTERRUPT_WAIT_MS;
            else
                continue;
        }
        if (due && (!next || due < next))
            next = due;
    }
    for (size_t i = 0; i < lb->n;) { /* boxes no longer known are forgotten */
        if (!lb->boxes[i].seen)
            lb->boxes[i] = lb->boxes[--lb->n];
        else
            i++;
    }
    if (act)
        lb->timer = 0; /* it fired */
    if (next && (!lb->timer || next != lb->timer_at)) {
        if (lb->timer)
            e2b_loop_timer_cancel(m->loop, lb->timer);
        long delay = next > now ? (long)(next - now) : 0;
        lb->timer = e2b_loop_timer_add(m->loop, delay + 20, on_timer, lb);
        lb->timer_at = next;
    } else if (!next && lb->timer) {
        e2b_loop_timer_cancel(m->loop, lb->timer);
        lb->timer = 0;
    }
}

static void on_timer(void *ud)
{
    struct live_budget *lb = ud;
    lb->timer = 0;
    if (!lb->m->closing)
        look(lb, true);
}

static void on_change(void *ud, unsigned what)
{
    struct live_budget *lb = ud;
    (void)what;
    if (!lb->m->closing)
        look(lb, false);
}

void live_budget_start(e2b_live *m)
{
    if (m->budget || !m->loop)
        return;
    struct live_budget *lb = calloc(1, sizeof *lb);
    if (!lb)
        return;
    lb->m = m;
    if (e2b_live_subscribe(m, E2B_LIVE_AGENTS | E2B_LIVE_SANDBOXES, on_change, lb) != 0) {
        free(lb);
        return;
    }
    m->budget = lb;
}

void live_budget_free(e2b_live *m)
{
    struct live_budget *lb = m->budget;
    if (!lb)
        return;
    if (lb->timer && m->loop)
        e2b_loop_timer_cancel(m->loop, lb->timer);
    e2b_live_unsubscribe(m, on_change, lb);
    free(lb);
    m->budget = NULL;
}
