/* The agent status's names, copies and one-line summary (core/agent/agent.h). */
#include "core/agent/agent.h"

#include "core/agent/activity.h"

#include "core/util/str.h"
#include "core/util/sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool e2b_agent_state_in_turn(e2b_agent_state s)
{
    return s == E2B_AGENT_WORKING || s == E2B_AGENT_WAITING || s == E2B_AGENT_RETRYING;
}

const char *e2b_agent_state_name(e2b_agent_state s)
{
    switch (s) {
    case E2B_AGENT_WORKING: return "working";
    case E2B_AGENT_WAITING: return "waiting for you";
    case E2B_AGENT_RETRYING: return "retrying";
    case E2B_AGENT_IDLE: return "idle";
    case E2B_AGENT_SERVER_DOWN: return "server down";
    case E2B_AGENT_PAUSED: return "paused";
    default: return "unknown";
    }
}

const char *e2b_agent_end_name(e2b_agent_end e)
{
    switch (e) {
    case E2B_AGENT_END_DONE: return "done";
    case E2B_AGENT_END_INTERRUPTED: return "interrupted";
    case E2B_AGENT_END_FAILED: return "failed";
    default: return "";
    }
}

const char *e2b_agent_reply_name(e2b_agent_reply r)
{
    switch (r) {
    case E2B_AGENT_REPLY_ALWAYS: return "always";
    case E2B_AGENT_REPLY_REJECT: return "reject";
    default: return "once";
    }
}

int e2b_agent_reply_parse(const char *s, e2b_agent_reply *out)
{
    if (!s)
        return -1;
    if (!strcmp(s, "once"))
        *out = E2B_AGENT_REPLY_ONCE;
    else if (!strcmp(s, "always"))
        *out = E2B_AGENT_REPLY_ALWAYS;
    else if (!strcmp(s, "reject"))
        *out = E2B_AGENT_REPLY_REJECT;
    else
        return -1;
    return 0;
}

/* The largest n <= max such that s[0..n) does not end inside a UTF-8 sequence. */
static size_t utf8_head(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

char *e2b_agent_text(const char *s, size_t len, size_t max, bool keep_newlines, bool tail)
{
    if (!s) {
        s = "";
        len = 0;
    }
    if (len > max) {
        if (tail) {
            size_t start = len - max;
            while (start < len && ((unsigned char)s[start] & 0xC0) == 0x80)
                start++;
            s += start;
            len -= start;
        } else {
            len = utf8_head(s, len, max);
        }
    }
    return e2b_sanitize_display(s, len, keep_newlines ? E2B_SANITIZE_KEEP_NEWLINES : 0);
}

void e2b_agent_usage_add(e2b_agent_usage *a, const e2b_agent_usage *b)
{
    if (b->have_tokens) {
        a->have_tokens = true;
        a->input += b->input;
        a->output += b->output;
        a->reasoning += b->reasoning;
        a->cache_read += b->cache_read;
        a->cache_write += b->cache_write;
    }
    if (b->have_cost) {
        a->have_cost = true;
        a->cost_usd += b->cost_usd;
    }
}

int64_t e2b_agent_day_start(int64_t wall_ms)
{
    time_t t = (time_t)(wall_ms / 1000);
    struct tm tm;
    if (!localtime_r(&t, &tm))
        return wall_ms - wall_ms % 86400000;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1; /* midnight's own offset */
    time_t day = mktime(&tm);
    return day == (time_t)-1 ? wall_ms - wall_ms % 86400000 : (int64_t)day * 1000;
}

void e2b_agent_request_clear(e2b_agent_request *r)
{
    if (!r)
        return;
    free(r->id);
    free(r->session_id);
    free(r->action);
    free(r->detail);
    free(r->summary);
    for (size_t i = 0; i < r->nalways; i++)
        free(r->always[i]);
    free(r->always);
    for (size_t i = 0; i < r->noptions; i++) {
        free(r->option_labels[i]);
        free(r->option_descs[i]);
    }
    free(r->option_labels);
    free(r->option_descs);
    memset(r, 0, sizeof *r);
}

void e2b_agent_todo_clear(e2b_agent_todo *t)
{
    if (!t)
        return;
    free(t->content);
    free(t->status);
    free(t->priority);
    memset(t, 0, sizeof *t);
}

void e2b_agent_session_clear(e2b_agent_session *s)
{
    if (!s)
        return;
    free(s->id);
    free(s->title);
    memset(s, 0, sizeof *s);
}

void e2b_agent_activity_clear(e2b_agent_activity *a)
{
    if (!a)
        return;
    free(a->session_id);
    free(a->key);
    free(a->tool);
    free(a->state);
    memset(a, 0, sizeof *a);
}

void e2b_agent_status_clear(e2b_agent_status *st)
{
    if (!st)
        return;
    free(st->error);
    free(st->retry_message);
    free(st->session_id);
    free(st->session_title);
    for (size_t i = 0; i < st->nsessions; i++)
        e2b_agent_session_clear(&st->sessions[i]);
    free(st->sessions);
    for (size_t i = 0; i < st->ntodos; i++)
        e2b_agent_todo_clear(&st->todos[i]);
    free(st->todos);
    for (size_t i = 0; i < st->nrequests; i++)
        e2b_agent_request_clear(&st->requests[i]);
    free(st->requests);
    e2b_activity_free(st);
    memset(st, 0, sizeof *st);
}

static int dup_str(char **dst, const char *src)
{
    *dst = NULL;
    if (!src)
        return 0;
    *dst = strdup(src);
    return *dst ? 0 : -1;
}

static int copy_request(e2b_agent_request *d, const e2b_agent_request *s)
{
    *d = *s;
    d->id = d->session_id = d->action = d->detail = d->summary = NULL;
    d->always = NULL;
    d->nalways = 0;
    int bad = dup_str(&d->id, s->id) | dup_str(&d->session_id, s->session_id) |
              dup_str(&d->action, s->action) | dup_str(&d->detail, s->detail) |
              dup_str(&d->summary, s->summary);
    if (s->nalways) {
        d->always = calloc(s->nalways, sizeof *d->always);
        if (!d->always)
            return -1;
        for (size_t i = 0; i < s->nalways; i++, d->nalways++)
            bad |= dup_str(&d->always[i], s->always[i]);
    }
    d->option_labels = d->option_descs = NULL;
    d->noptions = 0;
    if (s->noptions) {
        d->option_labels = calloc(s->noptions, sizeof *d->option_labels);
        d->option_descs = calloc(s->noptions, sizeof *d->option_descs);
        if (!d->option_labels || !d->option_descs)
            return -1;
        for (size_t i = 0; i < s->noptions; i++, d->noptions++)
            bad |= dup_str(&d->option_labels[i], s->option_labels[i]) |
                   dup_str(&d->option_descs[i], s->option_descs[i]);
    }
    return bad ? -1 : 0;
}

int e2b_agent_status_copy(e2b_agent_status *dst, const e2b_agent_status *src)
{
    *dst = *src;
    dst->error = dst->retry_message = dst->session_id = dst->session_title = NULL;
    dst->sessions = NULL;
    dst->todos = NULL;
    dst->requests = NULL;
    dst->nsessions = dst->ntodos = dst->nrequests = 0;
    int bad = dup_str(&dst->error, src->error) | dup_str(&dst->retry_message, src->retry_message) |
              dup_str(&dst->session_id, src->session_id) |
              dup_str(&dst->session_title, src->session_title);
    if (src->nsessions && (dst->sessions = calloc(src->nsessions, sizeof *dst->sessions)))
        for (size_t i = 0; i < src->nsessions; i++, dst->nsessions++) {
            dst->sessions[i] = src->sessions[i];
            bad |= dup_str(&dst->sessions[i].id, src->sessions[i].id) |
                   dup_str(&dst->sessions[i].title, src->sessions[i].title);
        }
    if (src->ntodos && (dst->todos = calloc(src->ntodos, sizeof *dst->todos)))
        for (size_t i = 0; i < src->ntodos; i++, dst->ntodos++)
            bad |= dup_str(&dst->todos[i].content, src->todos[i].content) |
                   dup_str(&dst->todos[i].status, src->todos[i].status) |
                   dup_str(&dst->todos[i].priority, src->todos[i].priority);
    if (src->nrequests && (dst->requests = calloc(src->nrequests, sizeof *dst->requests)))
        for (size_t i = 0; i < src->nrequests; i++, dst->nrequests++)
            bad |= copy_request(&dst->requests[i], &src->requests[i]);
    bad |= e2b_activity_copy(dst, src);
    if (bad || dst->nsessions != src->nsessions || dst->ntodos != src->ntodos ||
        dst->nrequests != src->nrequests) {
        e2b_agent_status_clear(dst);
        return -1;
    }
    return 0;
}

size_t e2b_agent_status_line(const e2b_agent_status *st, char *buf, size_t sz)
{
    if (!sz)
        return 0;
    int n;
    const char *name = e2b_agent_state_name(st->state);
    switch (st->state) {
    case E2B_AGENT_WAITING:
        n = snprintf(buf, sz, "%s: %s", name,
                     st->nrequests && st->requests[0].summary ? st->requests[0].summary : "?");
        break;
    case E2B_AGENT_RETRYING:
        n = snprintf(buf, sz, "%s (attempt %d): %s", name, st->retry_attempt,
                     st->retry_message ? st->retry_message : "");
        break;
    case E2B_AGENT_IDLE:
        if (st->last_end == E2B_AGENT_END_FAILED)
            n = snprintf(buf, sz, "%s: failed: %s", name, st->error ? st->error : "");
        else if (st->last_end != E2B_AGENT_END_NONE)
            n = snprintf(buf, sz, "%s: %s", name, e2b_agent_end_name(st->last_end));
        else
            n = snprintf(buf, sz, "%s", name);
        break;
    case E2B_AGENT_SERVER_DOWN:
        n = st->error ? snprintf(buf, sz, "%s: %s", name, st->error) : snprintf(buf, sz, "%s", name);
        break;
    default:
        n = snprintf(buf, sz, "%s", name);
    }
    if (n < 0) {
        buf[0] = 0;
        return 0;
    }
    return (size_t)n < sz ? (size_t)n : sz - 1;
}

void e2b_agent_ago(int64_t ms, int64_t now_ms, char *buf, size_t n)
{
    if (!n)
        return;
    buf[0] = '\0';
    if (ms <= 0 || now_ms < ms)
        return;
    e2b_span_text((long)((now_ms - ms) / 1000), buf, n);
}
