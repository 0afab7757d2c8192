/* One event of either OpenCode API normalised (e2b_oc_event_parse, core/agent/opencode.h).
 * Names known from 1.18.33: v1 root events under "properties", v2 under "data" (some
 * schemas say "properties": both are read). Unknown names are E2B_OC_EV_OTHER. */
#include "core/agent/opencode_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *keep(e2b_oc_event_scratch *s, char *str)
{
    if (!str)
        return NULL;
    if (s->nstrs == sizeof s->strs / sizeof *s->strs) {
        free(str);
        return NULL;
    }
    s->strs[s->nstrs++] = str;
    return str;
}

static const char *str_of(e2b_oc_event_scratch *s, json_t *o, const char *key, size_t max)
{
    return keep(s, oc_str(o, key, max));
}

static bool is(const char *t, const char *name)
{
    return !strcmp(t, name);
}

static void usage_from(e2b_oc_event *ev, json_t *o)
{
    oc_usage_from(o, &ev->usage);
    if (!ev->usage.have_tokens && !ev->usage.have_cost)
        return;
    ev->have_usage = true;
    ev->tokens_input = ev->usage.input;
    ev->tokens_output = ev->usage.output;
    ev->tokens_reasoning = ev->usage.reasoning;
    ev->cost = ev->usage.cost_usd;
}

/* The error's words (oc_error_text: the same as the REST read of the turn's end). */
static const char *error_text(e2b_oc_event_scratch *s, json_t *err)
{
    const char *m = keep(s, oc_error_text(err));
    return m ? m : "unknown error";
}

/* A tool's input in one line: the command or the file when there is one, else the JSON
 * (bounded). */
static const char *tool_input(e2b_oc_event_scratch *s, json_t *input)
{
    const char *cmd = str_of(s, input, "command", E2B_AGENT_DETAIL_MAX);
    if (cmd)
        return cmd;
    cmd = str_of(s, input, "filePath", E2B_AGENT_DETAIL_MAX);
    if (!cmd) /* read, list and glob of the v2 server name it so */
        cmd = str_of(s, input, "path", E2B_AGENT_DETAIL_MAX);
    if (cmd || !input)
        return cmd;
    char *j = json_dumps(input, JSON_COMPACT);
    if (!j)
        return NULL;
    char *t = e2b_agent_text(j, strlen(j), E2B_AGENT_DETAIL_MAX, false, false);
    free(j);
    return keep(s, t);
}

static void parse_v1_part(e2b_oc_event *ev, e2b_oc_event_scratch *s, json_t *part)
{
    const char *ptype = json_string_value(json_object_get(part, "type"));
    if (!ptype)
        return;
    ev->message_id = str_of(s, part, "messageID", E2B_AGENT_TEXT_MAX);
    if (is(ptype, "text")) {
        ev->kind = E2B_OC_EV_TEXT;
        ev->key = str_of(s, part, "id", E2B_AGENT_TEXT_MAX);
        json_t *t = json_object_get(part, "text");
        ev->text = keep(s, json_is_string(t) ? e2b_agent_text(json_string_value(t), json_string_length(t),
                                                                E2B_AGENT_TAIL_MAX, true, true)
                                             : NULL);
        ev->whole = true;
    } else if (is(ptype, "tool")) {
        json_t *st = json_object_get(part, "state");
        ev->kind = E2B_OC_EV_TOOL;
        ev->key = str_of(s, part, "callID", E2B_AGENT_TEXT_MAX);
        ev->tool = str_of(s, part, "tool", E2B_AGENT_TEXT_MAX);
        ev->state = str_of(s, st, "status", 32);
        ev->text = tool_input(s, json_object_get(st, "input"));
        if (ev->state && is(ev->state, "error"))
            ev->text = str_of(s, st, "error", E2B_AGENT_DETAIL_MAX);
    } else if (is(ptype, "step-finish")) {
        ev->kind = E2B_OC_EV_STEP_ENDED;
        ev->finish = str_of(s, part, "reason", 32);
        usage_from(ev, part);
    }
}

static void parse_session_info(e2b_oc_event *ev, e2b_oc_event_scratch *s, json_t *p)
{
    json_t *info = json_object_get(p, "info");
    ev->kind = E2B_OC_EV_SESSION;
    if (!ev->session_id)
        ev->session_id = str_of(s, info, "id", E2B_AGENT_TEXT_MAX);
    ev->text = str_of(s, info, "title", E2B_AGENT_TEXT_MAX);
    json_t *t = json_object_get(info, "time");
    ev->at_ms = oc_int(t, "updated");
}

static void parse_request(e2b_oc_event *ev, e2b_oc_event_scratch *s, int api, bool question,
                          json_t *p)
{
    if (oc_request_from(api, question, p, &s->request) == 0) {
        ev->kind = E2B_OC_EV_ASKED;
        ev->request = &s->request;
        if (!ev->session_id)
            ev->session_id = s->request.session_id;
    }
}

int e2b_oc_event_parse(int api, const char *json, size_t len, e2b_oc_event *out,
                       e2b_oc_event_scratch *s)
{
    memset(out, 0, sizeof *out);
    memset(s, 0, sizeof *s);
    json_error_t je;
    json_t *root = json_loadb(json, len, 0, &je);
    if (!json_is_object(root)) {
        json_decref(root);
        return -1;
    }
    s->json = root;
    json_t *payload = json_object_get(root, "payload"); /* /global/event wraps events */
    json_t *ev_obj = json_is_object(payload) ? payload : root;
    const char *type = json_string_value(json_object_get(ev_obj, "type"));
    if (!type)
        return -1;
    out->type = str_of(s, ev_obj, "type", 64);
    json_t *p = json_object_get(ev_obj, api == 1 ? "properties" : "data");
    if (!json_is_object(p))
        p = json_object_get(ev_obj, api == 1 ? "data" : "properties");
    out->session_id = str_of(s, p, "sessionID", E2B_AGENT_TEXT_MAX);
    out->at_ms = oc_int(p, "timestamp");
    if (!out->at_ms && json_is_integer(json_object_get(p, "time")))
        out->at_ms = oc_int(p, "time");

    if (is(type, "server.connected")) {
        out->kind = E2B_OC_EV_CONNECTED;
    } else if (is(type, "session.status")) {
        e2b_oc_active a = {0};
        oc_run_from(json_object_get(p, "status"), &a);
        out->kind = a.run == E2B_OC_IDLE ? E2B_OC_EV_IDLE
                  : a.run == E2B_OC_RETRY ? E2B_OC_EV_RETRY : E2B_OC_EV_BUSY;
        out->attempt = a.attempt;
        out->next_ms = a.next_ms;
        out->text = keep(s, a.message);
    } else if (is(type, "session.idle")) {
        out->kind = E2B_OC_EV_IDLE;
    } else if (is(type, "session.created") || is(type, "session.updated")) {
        parse_session_info(out, s, p);
    } else if (is(type, "session.deleted")) {
        parse_session_info(out, s, p);
        out->kind = E2B_OC_EV_SESSION_GONE;
    } else if (is(type, "session.error")) {
        json_t *err = json_object_get(p, "error");
        out->kind = E2B_OC_EV_FAILED;
        out->text = error_text(s, err);
        if (oc_error_is_abort(err)) /* MessageAbortedError */
            out->finish = "aborted";
    } else if (is(type, "message.updated")) {
        json_t *info = json_object_get(p, "info");
        const char *role = json_string_value(json_object_get(info, "role"));
        if (role && is(role, "user")) {
            out->kind = E2B_OC_EV_USER_MESSAGE;
            out->message_id = str_of(s, info, "id", E2B_AGENT_TEXT_MAX);
        }
    } else if (is(type, "message.part.updated")) {
        parse_v1_part(out, s, json_object_get(p, "part"));
    } else if (is(type, "message.part.delta")) {
        const char *field = json_string_value(json_object_get(p, "field"));
        json_t *d = json_object_get(p, "delta");
        if (field && is(field, "text") && json_is_string(d)) {
            out->kind = E2B_OC_EV_TEXT;
            out->key = str_of(s, p, "partID", E2B_AGENT_TEXT_MAX);
            out->message_id = str_of(s, p, "messageID", E2B_AGENT_TEXT_MAX);
            out->text = keep(s, e2b_agent_text(json_string_value(d), json_string_length(d),
                                               E2B_AGENT_TAIL_MAX, true, true));
        }
    } else if (is(type, "permission.asked") || is(type, "permission.v2.asked")) {
        parse_request(out, s, is(type, "permission.asked") ? 1 : 2, false, p);
    } else if (is(type, "question.asked") || is(type, "question.v2.asked")) {
        parse_request(out, s, api, true, p);
    } else if (is(type, "permission.replied") || is(type, "permission.v2.replied") ||
               is(type, "question.replied") || is(type, "question.v2.replied") ||
               is(type, "question.rejected") || is(type, "question.v2.rejected")) {
        out->kind = E2B_OC_EV_REPLIED;
        out->request_id = str_of(s, p, "requestID", E2B_AGENT_TEXT_MAX);
        out->text = str_of(s, p, "reply", 32);
        if (!out->request_id)
            out->kind = E2B_OC_EV_OTHER;
    } else if (is(type, "todo.updated")) {
        if (oc_parse_todos(json_object_get(p, "todos"), &s->todos, &s->ntodos) == 0) {
            out->kind = E2B_OC_EV_TODOS;
            out->todos = s->todos;
            out->ntodos = s->ntodos;
        }
    } else if (is(type, "session.next.prompt.admitted") || is(type, "session.next.prompted") ||
               is(type, "session.next.step.started")) {
        out->kind = E2B_OC_EV_BUSY;
    } else if (is(type, "session.next.retried")) {
        out->kind = E2B_OC_EV_RETRY;
        out->attempt = (int)oc_int(p, "attempt");
        out->text = error_text(s, json_object_get(p, "error"));
    } else if (is(type, "session.next.text.delta") || is(type, "session.next.text.ended")) {
        bool ended = is(type, "session.next.text.ended");
        json_t *t = json_object_get(p, ended ? "text" : "delta");
        const char *msg = json_string_value(json_object_get(p, "assistantMessageID"));
        const char *tid = json_string_value(json_object_get(p, "textID"));
        out->kind = E2B_OC_EV_TEXT;
        out->whole = ended;
        out->message_id = str_of(s, p, "assistantMessageID", E2B_AGENT_TEXT_MAX);
        if (msg && tid) {
            size_t n = strlen(msg) + strlen(tid) + 2;
            char *k = malloc(n);
            if (k)
                snprintf(k, n, "%s/%s", msg, tid);
            out->key = keep(s, k ? e2b_agent_text(k, strlen(k), E2B_AGENT_TEXT_MAX, false, false) : NULL);
            free(k);
        }
        out->text = keep(s, json_is_string(t) ? e2b_agent_text(json_string_value(t), json_string_length(t),
                                                                 E2B_AGENT_TAIL_MAX, true, true)
                                              : NULL);
    } else if (is(type, "session.next.tool.input.started") || is(type, "session.next.tool.called") ||
               is(type, "session.next.tool.success") || is(type, "session.next.tool.failed")) {
        out->kind = E2B_OC_EV_TOOL;
        out->key = str_of(s, p, "callID", E2B_AGENT_TEXT_MAX);
        out->tool = str_of(s, p, is(type, "session.next.tool.input.started") ? "name" : "tool",
                           E2B_AGENT_TEXT_MAX);
        if (is(type, "session.next.tool.input.started")) {
            out->state = "pending";
        } else if (is(type, "session.next.tool.called")) {
            out->state = "running";
            out->text = tool_input(s, json_object_get(p, "input"));
        } else if (is(type, "session.next.tool.success")) {
            out->state = "completed";
        } else {
            out->state = "error";
            out->text = error_text(s, json_object_get(p, "error"));
        }
    } else if (is(type, "session.next.step.ended")) {
        out->kind = E2B_OC_EV_STEP_ENDED;
        out->finish = str_of(s, p, "finish", 32);
        out->message_id = str_of(s, p, "assistantMessageID", E2B_AGENT_TEXT_MAX);
        usage_from(out, p);
    } else if (is(type, "session.next.step.failed")) {
        json_t *err = json_object_get(p, "error");
        out->kind = E2B_OC_EV_FAILED;
        out->text = error_text(s, err);
        if (oc_error_is_abort(err))
            out->finish = "aborted"; /* an interrupt: "Provider turn interrupted" */
    }
    if (!out->key && (out->kind == E2B_OC_EV_TEXT || out->kind == E2B_OC_EV_TOOL))
        out->kind = E2B_OC_EV_OTHER; /* nothing to file it under */
    return 0;
}

void e2b_oc_event_scratch_clear(e2b_oc_event_scratch *s)
{
    for (size_t i = 0; i < s->nstrs; i++)
        free(s->strs[i]);
    e2b_agent_request_clear(&s->request);
    for (size_t i = 0; i < s->ntodos; i++)
        e2b_agent_todo_clear(&s->todos[i]);
    free(s->todos);
    json_decref(s->json);
    memset(s, 0, sizeof *s);
}
