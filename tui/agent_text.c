#include "tui/agent_text.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

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

void agent_text_todo(const e2b_agent_status *st, char *buf, size_t n)
{
    if (!n)
        return;
    if (!st || st->todo_total == 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%u/%u", st->todo_done, st->todo_total);
}

void agent_text_apply(struct table *t, const e2b_live *m, int64_t now_ms, bool *changed)
{
    char agent[300], todo[32];
    for (size_t i = 0; i < t->nrows; i++) {
        const e2b_agent_status *st = e2b_live_agent(m, t->rows[i].id);
        agent_text_cell(st, now_ms, agent, sizeof agent);
        agent_text_todo(st, todo, sizeof todo);
        if (table_set_cell(t, i, SBCOL_AGENT, agent) > 0)
            *changed = true;
        if (table_set_cell(t, i, SBCOL_TODO, todo) > 0)
            *changed = true;
    }
}
