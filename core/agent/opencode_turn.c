/* How a session's last turn ended, read from its newest message (e2b_oc_last_turn), and the
 * error texts both APIs give, in the same words for the events and the REST read.
 *
 * The shapes (1.18.33; /doc of the server):
 *   v1 GET /session/{id}/message?limit=1   [{"info":{"role","finish","error":{"name",
 *        "data":{"message"}},"time":{"created","completed"}},"parts":[{"type":"tool",
 *        "state":{"status","time":{"end"}}}]}]
 *   v2 GET /api/session/{id}/message?limit=1&order=desc   {"data":[{"type":"assistant"|
 *        "user",…,"finish","error":{"type","message"},"time":{"created","completed"},
 *        "content":[{"type":"tool","state":{"status"},"time":{"completed"}}]}]}
 * A finished turn ends with finish "stop"; a failed one with an error (v2 also finish
 * "error"); an interrupted one with v1's MessageAbortedError or v2's "Provider turn
 * interrupted" error; a rejected permission leaves the tool call in error and the message
 * unfinished (v1 finish "tool-calls", v2 no finish). Read while the session is idle: a
 * message between two steps of a turn says nothing known. */
#include "core/agent/opencode_internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* "Provider request failed with HTTP 400: {"error": {"message": "x", …}}" says the provider's
 * words at its end: "Provider request failed with HTTP 400: x". NULL when it does not. */
static char *unwrap_provider(const char *m)
{
    const char *brace = strstr(m, ": {");
    if (!brace)
        return NULL;
    json_error_t je;
    json_t *inner = json_loads(brace + 2, 0, &je);
    json_t *e = json_object_get(inner, "error");
    const char *msg = json_string_value(json_is_object(e) ? json_object_get(e, "message")
                                                          : json_object_get(inner, "message"));
    char *out = NULL;
    if (msg && *msg) {
        size_t n = (size_t)(brace - m) + 2 + strlen(msg) + 1;
        out = malloc(n);
        if (out)
            snprintf(out, n, "%.*s: %s", (int)(brace - m), m, msg);
    }
    json_decref(inner);
    return out;
}

char *oc_error_text(json_t *err)
{
    json_t *m = json_object_get(json_object_get(err, "data"), "message");
    if (!json_is_string(m))
        m = json_object_get(err, "message");
    if (!json_is_string(m))
        m = json_object_get(err, "name");
    if (!json_is_string(m))
        m = json_object_get(err, "type");
    const char *raw = json_is_string(m) ? json_string_value(m) : "unknown error";
    char *plain = unwrap_provider(raw);
    const char *s = plain ? plain : raw;
    char *out = e2b_agent_text(s, strlen(s), E2B_AGENT_DETAIL_MAX, false, false);
    free(plain);
    return out;
}

bool oc_error_is_abort(json_t *err)
{
    const char *name = json_string_value(json_object_get(err, "name"));
    const char *type = json_string_value(json_object_get(err, "type"));
    const char *msg = json_string_value(json_object_get(err, "message"));
    if ((name && !strcmp(name, "MessageAbortedError")) ||
        (type && (!strcmp(type, "aborted") || !strcmp(type, "interrupted"))))
        return true;
    /* v2 (1.18.33) says an interrupt only in words: {"type":"unknown","message":"Provider
     * turn interrupted"} */
    return msg && strlen(msg) < 64 && strcasestr(msg, "interrupted") && !strstr(msg, "HTTP");
}

/* Whether a tool call of the message ended in error; *end_ms the latest end a part says. */
static bool tool_failed(json_t *parts, int64_t *end_ms)
{
    bool failed = false;
    size_t i;
    json_t *p;
    json_array_foreach(parts, i, p) {
        json_t *st = json_object_get(p, "state");
        const char *type = json_string_value(json_object_get(p, "type"));
        const char *status = json_string_value(json_object_get(st, "status"));
        int64_t t = oc_int(json_object_get(st, "time"), "end");
        if (!t)
            t = oc_int(json_object_get(p, "time"), "completed");
        if (t > *end_ms)
            *end_ms = t;
        if (type && !strcmp(type, "tool") && status && !strcmp(status, "error"))
            failed = true;
    }
    return failed;
}

int oc_parse_last_turn(int api, json_t *root, e2b_oc_result *res)
{
    json_t *list = oc_list(api, root);
    if (!json_is_array(list))
        return -1;
    res->end = E2B_AGENT_END_NONE;
    size_t n = json_array_size(list);
    if (!n)
        return 0; /* no message: no turn yet */
    /* v1 answers the last `limit` messages oldest first; v2 (order=desc) newest first */
    json_t *msg = json_array_get(list, api == 1 ? n - 1 : 0);
    json_t *info = api == 1 ? json_object_get(msg, "info") : msg;
    json_t *parts = json_object_get(msg, api == 1 ? "parts" : "content");
    const char *role = json_string_value(json_object_get(info, api == 1 ? "role" : "type"));
    if (!json_is_object(info) || !role)
        return -1;
    res->message_id = oc_str(info, "id", E2B_AGENT_TEXT_MAX);
    if (strcmp(role, "assistant")) {
        /* the newest is the user's (its answer is still to come) or another kind */
        res->unanswered = !strcmp(role, "user");
        return 0;
    }
    json_t *time = json_object_get(info, "time");
    int64_t parts_end = 0;
    bool tool_error = tool_failed(parts, &parts_end);
    res->created_ms = oc_int(time, "created");
    res->ended_ms = oc_int(time, "completed");
    if (!res->ended_ms)
        res->ended_ms = parts_end > oc_int(time, "created") ? parts_end : oc_int(time, "created");
    const char *finish = json_string_value(json_object_get(info, "finish"));
    json_t *err = json_object_get(info, "error");
    if (json_is_object(err)) {
        if (oc_error_is_abort(err)) {
            res->end = E2B_AGENT_END_INTERRUPTED;
        } else {
            res->end = E2B_AGENT_END_FAILED;
            res->error = oc_error_text(err);
        }
    } else if (finish && strcmp(finish, "tool-calls") && strcmp(finish, "error")) {
        res->end = E2B_AGENT_END_DONE; /* "stop", "length", … */
    } else if (tool_error) {
        /* the turn stopped at a tool call that failed, without answering: a rejected
         * permission (v1 finish "tool-calls", v2 none) */
        res->end = E2B_AGENT_END_INTERRUPTED;
    }
    /* else: no finish yet, or "tool-calls" (the next step may follow): not known */
    res->unfinished = res->end == E2B_AGENT_END_NONE && !oc_int(time, "completed");
    return 0;
}

/* A time a box tells, when plausible (after 2000, at most a day ahead of this clock). */
static int64_t sane_ms(int64_t t)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    return t >= 946684800000LL && t <= now + 86400000LL ? t : 0;
}

static void latest(int64_t *acc, int64_t t)
{
    t = sane_ms(t);
    if (t > *acc)
        *acc = t;
}

int oc_parse_recent(int api, json_t *root, e2b_oc_result *res)
{
    json_t *list = oc_list(api, root);
    if (!json_is_array(list))
        return -1;
    memset(&res->step, 0, sizeof res->step);
    res->user_ms = res->activity_ms = res->tool_wait_ms = 0;
    size_t n = json_array_size(list);
    /* v1 answers the last `limit` messages oldest first; v2 (order=desc) newest first */
    for (size_t k = 0; k < n; k++) {
        json_t *msg = json_array_get(list, api == 1 ? n - 1 - k : k);
        json_t *info = api == 1 ? json_object_get(msg, "info") : msg;
        json_t *parts = json_object_get(msg, api == 1 ? "parts" : "content");
        json_t *time = json_object_get(info, "time");
        const char *role = json_string_value(json_object_get(info, api == 1 ? "role" : "type"));
        if (!role)
            continue;
        latest(&res->activity_ms, oc_int(time, "created"));
        latest(&res->activity_ms, oc_int(time, "completed"));
        size_t i;
        json_t *p;
        json_array_foreach(parts, i, p) {
            json_t *st = json_object_get(p, "state");
            json_t *pt = api == 1 ? json_object_get(st, "time") : json_object_get(p, "time");
            int64_t start = sane_ms(oc_int(pt, api == 1 ? "start" : "ran"));
            if (!start)
                start = sane_ms(oc_int(pt, "created"));
            latest(&res->activity_ms, start);
            latest(&res->activity_ms, oc_int(pt, api == 1 ? "end" : "completed"));
            const char *type = json_string_value(json_object_get(p, "type"));
            const char *status = json_string_value(json_object_get(st, "status"));
            if (k == 0 && start && type && !strcmp(type, "tool") && status &&
                (!strcmp(status, "running") || !strcmp(status, "pending")) &&
                (!res->tool_wait_ms || start < res->tool_wait_ms))
                res->tool_wait_ms = start;
        }
        if (!strcmp(role, "user") && !res->user_ms)
            res->user_ms = sane_ms(oc_int(time, "created"));
        if (!strcmp(role, "assistant") && !res->step.have_tokens && !res->step.have_cost &&
            json_is_object(json_object_get(info, "tokens")))
            oc_usage_from(info, &res->step); /* the user's, or a step still running: none */
    }
    return 0;
}
