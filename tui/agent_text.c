#include "tui/agent_text.h"

#include "core/e2b/cost.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/live/live_budget.h"
#include "core/live/live_idle.h"
#include "tui/sandbox_rows.h"
#include "tui/widgets/table.h"
#include "tui/widgets/textwidth.h"

int64_t agent_text_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

enum agent_tone agent_text_tone(const e2b_agent_status *st)
{
    if (!st)
        return TONE_PLAIN;
    switch (st->state) {
    case E2B_AGENT_WAITING: return TONE_WAITING;
    case E2B_AGENT_WORKING:
    case E2B_AGENT_RETRYING: return TONE_BUSY;
    case E2B_AGENT_SERVER_DOWN: return TONE_BAD;
    case E2B_AGENT_IDLE:
        return st->last_end == E2B_AGENT_END_FAILED ? TONE_BAD
               : st->last_end == E2B_AGENT_END_DONE ? TONE_GOOD
                                                    : TONE_PLAIN;
    default: return TONE_PLAIN;
    }
}

void agent_text_cell(const e2b_agent_status *st, int64_t now_ms, char *buf, size_t n)
{
    if (!n)
        return;
    if (!st) {
        snprintf(buf, n, "-");
        return;
    }
    char ago[16], since[20] = "";
    /* How long in this state, from a minute on ("working 12m", "! waiting 3m: ..."): the
     * clock redraws the rows once a minute. */
    e2b_agent_ago(st->state_since_ms, now_ms, ago, sizeof ago);
    if (ago[0] && ago[strlen(ago) - 1] != 's')
        snprintf(since, sizeof since, " %s", ago);
    switch (st->state) {
    case E2B_AGENT_WAITING:
        snprintf(buf, n, "! waiting%s: %s", since,
                 st->nrequests && st->requests[0].summary ? st->requests[0].summary : "?");
        break;
    case E2B_AGENT_WORKING: snprintf(buf, n, "working%s", since); break;
    case E2B_AGENT_RETRYING: snprintf(buf, n, "retrying (%d)", st->retry_attempt); break;
    case E2B_AGENT_IDLE:
        /* Minutes: the row is redrawn by the clock once a minute, not every second. */
        e2b_agent_ago(st->idle_since_ms, now_ms, ago, sizeof ago);
        if (ago[0] && ago[strlen(ago) - 1] == 's')
            snprintf(ago, sizeof ago, "<1m");
        snprintf(buf, n, "idle%s%s%s%s", ago[0] ? " " : "", ago,
                 st->last_end != E2B_AGENT_END_NONE ? " " : "", e2b_agent_end_name(st->last_end));
        break;
    default: snprintf(buf, n, "%s", e2b_agent_state_name(st->state)); break;
    }
}

const char *agent_text_fit(const char *cell, int width, char *buf, size_t n)
{
    /* The state's shorter words, for when even its lead word does not fit. */
    static const struct {
        const char *from, *to;
    } SHORTER[] = {
        {"! waiting", "! wait"}, {"working", "work"}, {"retrying", "retry"},
        {"server", "down"},      {"paused", "pause"}, {"unknown", "?"},
    };
    snprintf(buf, n, "%s", cell);
    /* The lead: "! waiting" or the first word ("idle", "working", "server"). */
    size_t lead = strncmp(buf, AGENT_WAITING_MARK, strlen(AGENT_WAITING_MARK)) == 0
                      ? strlen(AGENT_WAITING_MARK)
                      : strcspn(buf, " ");
    /* The last words go first: "idle 3m done" -> "idle 3m" -> "idle". */
    while (text_width(buf) > width && strlen(buf) > lead) {
        char *sp = strrchr(buf + lead, ' ');
        char *end = sp ? sp : buf + lead;
        while (end > buf + lead && end[-1] == ':')
            end--;
        *end = '\0';
    }
    for (size_t i = 0; text_width(buf) > width && i < sizeof SHORTER / sizeof SHORTER[0]; i++) {
        if (strcmp(buf, SHORTER[i].from) == 0)
            snprintf(buf, n, "%s", SHORTER[i].to);
    }
    return buf;
}

void agent_text_pauses(int64_t due_ms, int64_t now_ms, char *buf, size_t n)
{
    size_t len = strlen(buf);
    if (!due_ms || len + 1 >= n)
        return;
    int64_t left = due_ms - now_ms;
    if (left < 60000)
        snprintf(buf + len, n - len, ", pauses in <1m");
    else
        snprintf(buf + len, n - len, ", pauses in %lldm", (long long)((left + 59999) / 60000));
}

void agent_text_todo(const e2b_agent_status *st, char *buf, size_t n)
{
    if (!n)
        return;
    if (!st || st->todo_total == 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%u/%u", st->todo_done, st->todo_total);
}

bool agent_text_budget(const e2b_live *m, const char *sandbox_id, const e2b_agent_status *st,
                       char *buf, size_t n)
{
    e2b_live_budget b;
    if (!st || !e2b_live_budget_of(m, sandbox_id, &b) || !b.stopped || b.usd <= 0)
        return false;
    /* running again (resumed past it) shows its agent as usual */
    if (st->state != E2B_AGENT_PAUSED && !b.reached)
        return false;
    char f[24];
    e2b_cost_format(b.usd, f, sizeof f);
    snprintf(buf, n, "budget %s", f);
    return true;
}

void agent_text_cost(const e2b_agent_status *st, const e2b_sandbox *sb, const e2b_config *cfg,
                     time_t now, char *buf, size_t n)
{
    if (!st) {
        snprintf(buf, n, "-");
        return;
    }
    double a, s;
    bool whole = e2b_live_box_cost(st, sb, cfg, now, &a, &s);
    bool known = st->total.have_cost || e2b_sandbox_cost(sb, cfg->price_vcpu_second,
                                                         cfg->price_gib_second, now, &s);
    if (!known) {
        snprintf(buf, n, "?");
        return;
    }
    char f[24];
    e2b_cost_format(a + s, f, sizeof f);
    snprintf(buf, n, "%s%s", f, whole ? "" : "+?"); /* a part not known: never taken as 0 */
}

void agent_text_rules(const e2b_live *m, const char *sandbox_id, char *buf, size_t n)
{
    size_t nrules = 0, len = strlen(buf);
    bool yes_all = e2b_live_agent_rules(m, sandbox_id, &nrules);
    if (yes_all)
        snprintf(buf + len, n > len ? n - len : 0, " %s", AGENT_YES_ALL_MARK);
    else if (nrules)
        snprintf(buf + len, n > len ? n - len : 0, " [auto %zu]", nrules);
}

void agent_text_apply(struct table *t, const e2b_live *m, int64_t now_ms, bool *changed)
{
    char agent[300], todo[32], cost[32];
    const e2b_config *cfg = e2b_live_config(m);
    time_t now = (time_t)(now_ms / 1000);
    for (size_t i = 0; i < t->nrows; i++) {
        const e2b_agent_status *st = e2b_live_agent(m, t->rows[i].id);
        if (!agent_text_budget(m, t->rows[i].id, st, agent, sizeof agent)) {
            agent_text_cell(st, now_ms, agent, sizeof agent);
            agent_text_pauses(e2b_live_idle_pause_at(m, t->rows[i].id), now_ms, agent,
                              sizeof agent);
            if (st)
                agent_text_rules(m, t->rows[i].id, agent, sizeof agent);
        }
        agent_text_todo(st, todo, sizeof todo);
        agent_text_cost(st, st ? e2b_live_agent_sandbox(m, t->rows[i].id) : NULL, cfg, now, cost,
                        sizeof cost);
        if (table_set_cell(t, i, SBCOL_AGENT, agent) > 0)
            *changed = true;
        if (table_set_cell(t, i, SBCOL_TODO, todo) > 0)
            *changed = true;
        if (table_set_cell(t, i, SBCOL_COST, cost) > 0)
            *changed = true;
    }
}

bool agent_text_box_cost_today(const e2b_agent_status *st, const e2b_sandbox *sb,
                               const e2b_config *cfg, time_t now, double *agent_usd,
                               double *sandbox_usd)
{
    int64_t day = e2b_agent_day_start((int64_t)now * 1000);
    bool a;
    if (st && st->today.day_ms == day) {
        a = st->today.usage.have_cost && !st->today.partial;
        *agent_usd = st->today.usage.have_cost ? st->today.usage.cost_usd : 0;
    } else { /* nothing seen today: none spent, where the box's figures are known at all */
        a = st && st->total.have_cost;
        *agent_usd = 0;
    }
    bool s = e2b_sandbox_cost_since(sb, cfg->price_vcpu_second, cfg->price_gib_second,
                                    (time_t)(day / 1000), now, sandbox_usd);
    if (!s)
        *sandbox_usd = 0;
    return a && (s || (sb && sb->state == E2B_STATE_PAUSED));
}

bool agent_text_fleet_cost(const e2b_live *m, time_t now, double *usd)
{
    const e2b_config *cfg = e2b_live_config(m);
    bool whole = true, any = false;
    *usd = 0;
    size_t n = e2b_live_agent_count(m);
    for (size_t i = 0; i < n; i++) { /* one pass: each box's sandbox without a search */
        const e2b_agent_status *st = e2b_live_agent_at(m, i, NULL, NULL);
        if (!st)
            continue;
        double a, s;
        whole &= agent_text_box_cost_today(st, e2b_live_agent_sandbox_at(m, i), cfg, now, &a, &s);
        *usd += a + s;
        any = true;
    }
    return any && whole;
}
