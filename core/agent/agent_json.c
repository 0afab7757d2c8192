/* --status --json's document (core/agent/agent_json.h). */
#include "core/agent/agent_json.h"
#include "core/util/json_style.h"

#include <jansson.h>
#include <stdlib.h>
#include <time.h>

static json_t *jstr(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *jtime(int64_t ms)
{
    if (!ms)
        return json_null();
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    char buf[32];
    gmtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return json_string(buf);
}

static json_t *box_json(const e2b_agent_box_view *b)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", jstr(b->name));
    json_object_set_new(o, "group", b->group && *b->group ? jstr(b->group) : json_null());
    json_object_set_new(o, "sandbox_id", jstr(b->sandbox_id));
    json_object_set_new(o, "sandbox", jstr(b->sandbox));
    json_object_set_new(o, "state", jstr(b->state));
    if (b->opencode) /* the version is "" when not known (an older record) */
        json_object_set_new(o, "opencode", json_pack("{s:i,s:s,s:s}", "api", b->opencode->api,
                                                     "bin", b->opencode->bin, "version",
                                                     b->opencode->version));
    /* cost: each figure null when unknown (never 0 for "not said") */
    const e2b_agent_usage *tot = b->status ? &b->status->total : NULL;
    json_object_set_new(o, "cost", json_pack("{s:o,s:o}", "agent_usd",
                                             tot && tot->have_cost ? json_real(tot->cost_usd)
                                                                   : json_null(),
                                             "sandbox_usd", b->have_sandbox_usd
                                                 ? json_real(b->sandbox_usd) : json_null()));
    json_object_set_new(o, "budget_usd", b->budget_usd > 0 ? json_real(b->budget_usd) : json_null());
    json_object_set_new(o, "budget_stopped", json_boolean(b->budget_stopped));
    if (!b->status) {
        json_object_set_new(o, "detail", jstr(b->why));
        json_object_set_new(o, "tokens", json_null());
        return o;
    }
    const e2b_agent_status *st = b->status;
    char line[1024];
    e2b_agent_status_line(st, line, sizeof line);
    json_object_set_new(o, "detail", json_string(line));
    json_object_set_new(o, "api", json_integer(st->api));
    json_object_set_new(o, "last_end", st->last_end ? json_string(e2b_agent_end_name(st->last_end))
                                                    : json_null());
    json_object_set_new(o, "error", jstr(st->error));
    json_object_set_new(o, "idle_since", jtime(st->state == E2B_AGENT_IDLE ? st->idle_since_ms : 0));
    json_object_set_new(o, "last_activity", jtime(st->last_activity_ms));
    json_object_set_new(o, "state_since", jtime(st->state_since_ms));
    json_object_set_new(o, "turn_started", jtime(st->turn_started_ms));
    json_object_set_new(o, "waiting_since", jtime(st->nrequests ? st->requests[0].asked_ms : 0));
    if (st->state == E2B_AGENT_RETRYING)
        json_object_set_new(o, "retry", json_pack("{s:i,s:o,s:o}", "attempt", st->retry_attempt,
                                                  "message", jstr(st->retry_message),
                                                  "next", jtime(st->retry_next_ms)));
    json_object_set_new(o, "session", st->session_id
                        ? json_pack("{s:s,s:s}", "id", st->session_id, "title",
                                    st->session_title ? st->session_title : "")
                        : json_null());
    json_t *items = json_array();
    for (size_t i = 0; i < st->ntodos; i++)
        json_array_append_new(items, json_pack("{s:s,s:s,s:s}", "content", st->todos[i].content,
                                               "status", st->todos[i].status, "priority",
                                               st->todos[i].priority));
    json_object_set_new(o, "todos", json_pack("{s:i,s:i,s:o}", "done", (int)st->todo_done, "total",
                                              (int)st->todo_total, "items", items));
    json_t *reqs = json_array();
    for (size_t i = 0; i < st->nrequests; i++) {
        const e2b_agent_request *r = &st->requests[i];
        json_t *ro = json_pack("{s:s,s:o,s:s,s:o,s:o,s:o}", "id", r->id,
                               "session_id", jstr(r->session_id),
                               "kind", r->question ? "question" : "permission",
                               "action", jstr(r->action), "detail", jstr(r->detail),
                               "summary", jstr(r->summary));
        if (ro && r->question) {
            json_t *opts = json_array();
            for (size_t k = 0; k < r->noptions; k++)
                json_array_append_new(opts, json_pack("{s:i,s:s,s:s}", "n", (int)k + 1, "label",
                                                      r->option_labels[k], "description",
                                                      r->option_descs[k]));
            json_object_set_new(ro, "options", opts);
            json_object_set_new(ro, "custom", json_boolean(r->custom));
            json_object_set_new(ro, "multiple", json_boolean(r->multiple));
        }
        json_object_set_new(ro, "seen_at", jtime(r->asked_ms));
        json_array_append_new(reqs, ro);
    }
    json_object_set_new(o, "requests", reqs);
    json_object_set_new(o, "stream", json_pack("{s:b,s:i}", "up", st->stream_up, "reconnects",
                                               (int)st->reconnects));
    /* usage: the last step's figures (seen ending, or v2: read from the active session's
     * newest messages), else the box's totals (v1: the server's own, from its sessions);
     * null when the server said none; its cost null when not priced */
    const e2b_agent_usage *t = &st->total;
    json_object_set_new(o, "usage", st->have_usage
                        ? json_pack("{s:I,s:I,s:I,s:o}", "input", (json_int_t)st->tokens_input,
                                    "output", (json_int_t)st->tokens_output, "reasoning",
                                    (json_int_t)st->tokens_reasoning, "cost",
                                    st->have_step_cost ? json_real(st->cost) : json_null())
                        : t->have_tokens || t->have_cost
                        ? json_pack("{s:I,s:I,s:I,s:o}", "input", (json_int_t)t->input, "output",
                                    (json_int_t)t->output, "reasoning", (json_int_t)t->reasoning,
                                    "cost", t->have_cost ? json_real(t->cost_usd) : json_null())
                        : json_null());
    json_object_set_new(o, "tokens", t->have_tokens
                        ? json_pack("{s:I,s:I,s:I,s:I,s:I}", "input", (json_int_t)t->input,
                                    "output", (json_int_t)t->output, "reasoning",
                                    (json_int_t)t->reasoning, "cache_read",
                                    (json_int_t)t->cache_read, "cache_write",
                                    (json_int_t)t->cache_write)
                        : json_null());
    return o;
}

char *e2b_agent_status_json(const e2b_agent_box_view *boxes, size_t n, bool pretty)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++)
        json_array_append_new(arr, box_json(&boxes[i]));
    json_t *root = arr ? json_pack("{s:i,s:o}", "version", 1, "boxes", arr) : NULL;
    char *s = root ? json_dumps(root, e2b_json_style(pretty)) : NULL;
    json_decref(root);
    return s;
}

char *e2b_agent_change_json(const e2b_agent_box_view *b, int64_t at_ms)
{
    json_t *o = box_json(b);
    if (!o)
        return NULL;
    json_object_set_new(o, "version", json_integer(1));
    json_object_set_new(o, "at", jtime(at_ms));
    const e2b_agent_status *st = b->status;
    const e2b_agent_request *r = st && st->nrequests ? &st->requests[0] : NULL;
    json_object_set_new(o, "request", r ? json_pack("{s:s,s:s,s:o,s:o,s:o}", "id", r->id, "kind",
                                                    r->question ? "question" : "permission",
                                                    "action", jstr(r->action), "summary",
                                                    jstr(r->summary), "since", jtime(r->asked_ms))
                                        : json_null());
    char *s = json_dumps(o, e2b_json_style(false));
    json_decref(o);
    return s;
}
