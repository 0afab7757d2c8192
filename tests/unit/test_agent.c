/* core/agent without a server: the SSE parser's framing and bounds, the event mapper of both
 * APIs on frames as 1.18.33 sends them, and the status line. */
#include "core/agent/agent.h"
#include "core/agent/opencode.h"
#include "core/agent/opencode_internal.h"
#include "core/agent/sse.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct got {
    int n;
    char data[8][256];
    char type[8][32];
    char id[8][32];
};

static int collect(void *ud, const e2b_sse_event *ev)
{
    struct got *g = ud;
    if (g->n < 8) {
        snprintf(g->data[g->n], sizeof g->data[0], "%s", ev->data);
        snprintf(g->type[g->n], sizeof g->type[0], "%s", ev->type);
        snprintf(g->id[g->n], sizeof g->id[0], "%s", ev->id);
    }
    g->n++;
    return 0;
}

static void test_sse_framing(void)
{
    const char *s = "\xef\xbb\xbf: heartbeat\r\ndata: one\r\ndata:two\r\n\r\n"
                    "event: custom\nid: 42\ndata: x\n\nretry: 1500\n\ndata: no end";
    struct got g = {0};
    e2b_sse p;
    e2b_sse_init(&p, 0, 0, collect, &g);
    for (size_t i = 0; s[i]; i++) /* byte by byte: the same as whole */
        CHECK(e2b_sse_feed(&p, s + i, 1) == 0);
    e2b_sse_finish(&p);
    CHECK(g.n == 2);
    CHECK_STR_EQ(g.data[0], "one\ntwo");
    CHECK_STR_EQ(g.type[0], "message");
    CHECK_STR_EQ(g.data[1], "x");
    CHECK_STR_EQ(g.type[1], "custom");
    CHECK_STR_EQ(g.id[1], "42");
    CHECK(p.comments == 1);
    CHECK(p.retry_ms == 1500);
    e2b_sse_clear(&p);
}

static void test_sse_bounds(void)
{
    struct got g = {0};
    e2b_sse p;
    e2b_sse_init(&p, 64, 128, collect, &g);
    char big[200];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    char buf[600];
    /* an overlong line drops its event; an oversize event is dropped; the next one passes */
    snprintf(buf, sizeof buf, "data: %s\n\ndata: %.50s\ndata: %.50s\ndata: %.50s\n\ndata: ok\n\n",
             big, big, big, big);
    CHECK(e2b_sse_feed(&p, buf, strlen(buf)) == 0);
    CHECK(g.n == 1);
    CHECK_STR_EQ(g.data[0], "ok");
    CHECK(p.dropped == 2);
    e2b_sse_clear(&p);
}

static void test_event_v2_permission(void)
{
    const char *j = "{\"id\":\"evt_1\",\"type\":\"permission.v2.asked\",\"data\":{\"id\":\"per_1\","
                    "\"sessionID\":\"ses_1\",\"action\":\"bash\",\"resources\":[\"rm -rf build\"],"
                    "\"save\":[\"rm -rf build\"]}}";
    e2b_oc_event ev;
    e2b_oc_event_scratch s;
    CHECK(e2b_oc_event_parse(2, j, strlen(j), &ev, &s) == 0);
    CHECK(ev.kind == E2B_OC_EV_ASKED);
    CHECK(ev.request);
    CHECK_STR_EQ(ev.request->summary, "bash: rm -rf build");
    CHECK_STR_EQ(ev.session_id, "ses_1");
    CHECK(ev.request->nalways == 1);
    e2b_oc_event_scratch_clear(&s);
}

static void test_event_v1_status_and_hostile_text(void)
{
    const char *j = "{\"type\":\"session.status\",\"properties\":{\"sessionID\":\"ses_9\","
                    "\"status\":{\"type\":\"retry\",\"attempt\":2,\"message\":\"over\\u001b[31mloaded\","
                    "\"next\":1796134920000}}}";
    e2b_oc_event ev;
    e2b_oc_event_scratch s;
    CHECK(e2b_oc_event_parse(1, j, strlen(j), &ev, &s) == 0);
    CHECK(ev.kind == E2B_OC_EV_RETRY);
    CHECK(ev.attempt == 2);
    CHECK(ev.next_ms == 1796134920000LL);
    CHECK(!strchr(ev.text, 0x1b));
    e2b_oc_event_scratch_clear(&s);

    const char *d = "{\"type\":\"message.part.delta\",\"properties\":{\"sessionID\":\"s\",\"messageID\":\"m\","
                    "\"partID\":\"p\",\"field\":\"text\",\"delta\":\"a\\u202eb\\nc\"}}";
    CHECK(e2b_oc_event_parse(1, d, strlen(d), &ev, &s) == 0);
    CHECK(ev.kind == E2B_OC_EV_TEXT);
    CHECK(!strstr(ev.text, "\xe2\x80\xae"));
    CHECK(strchr(ev.text, '\n')); /* assistant text keeps its lines */
    e2b_oc_event_scratch_clear(&s);

    const char *bad = "not json";
    CHECK(e2b_oc_event_parse(1, bad, strlen(bad), &ev, &s) == -1);
    e2b_oc_event_scratch_clear(&s);
    const char *unknown = "{\"type\":\"session.execution.started\",\"data\":{}}";
    CHECK(e2b_oc_event_parse(2, unknown, strlen(unknown), &ev, &s) == 0);
    CHECK(ev.kind == E2B_OC_EV_OTHER); /* unknown names are harmless */
    e2b_oc_event_scratch_clear(&s);
}

/* v2's interrupt is a failed step in words only; the provider's own message is unwrapped. */
static void test_event_v2_step_failed(void)
{
    const char *j = "{\"type\":\"session.next.step.failed\",\"data\":{\"sessionID\":\"ses_1\","
                    "\"error\":{\"type\":\"unknown\",\"message\":\"Provider turn interrupted\"}}}";
    e2b_oc_event ev;
    e2b_oc_event_scratch s;
    CHECK(e2b_oc_event_parse(2, j, strlen(j), &ev, &s) == 0);
    CHECK(ev.kind == E2B_OC_EV_FAILED);
    CHECK_STR_EQ(ev.finish, "aborted");
    e2b_oc_event_scratch_clear(&s);
    const char *f = "{\"type\":\"session.next.step.failed\",\"data\":{\"sessionID\":\"ses_1\","
                    "\"error\":{\"type\":\"unknown\",\"message\":\"Provider request failed with HTTP 500: "
                    "{\\\"error\\\": {\\\"message\\\": \\\"over\\\\u001bloaded\\\", \\\"type\\\": \\\"server_error\\\"}}\"}}}";
    CHECK(e2b_oc_event_parse(2, f, strlen(f), &ev, &s) == 0);
    CHECK(ev.kind == E2B_OC_EV_FAILED);
    CHECK(!ev.finish);
    CHECK(ev.text && !strchr(ev.text, 0x1b));
    CHECK(ev.text && !strncmp(ev.text, "Provider request failed with HTTP 500: over", 43));
    e2b_oc_event_scratch_clear(&s);
}

/* How a turn ended, from newest messages as 1.18.33 answers them. */
static e2b_agent_end last_turn(int api, const char *body, char **error, int64_t *ended)
{
    json_error_t je;
    json_t *root = json_loads(body, 0, &je);
    e2b_oc_result res = {0};
    int rc = oc_parse_last_turn(api, root, &res);
    json_decref(root);
    e2b_agent_end end = rc ? (e2b_agent_end)-1 : res.end;
    if (error)
        *error = res.error ? strdup(res.error) : NULL;
    if (ended)
        *ended = res.ended_ms;
    e2b_oc_result_clear(&res);
    return end;
}

static void test_last_turn(void)
{
    char *err = NULL;
    int64_t at = 0;
    /* v2: done, failed, interrupted, a rejected permission, the user's message newest */
    CHECK(last_turn(2, "{\"data\":[{\"id\":\"msg_2\",\"type\":\"assistant\",\"finish\":\"stop\","
                       "\"time\":{\"created\":10,\"completed\":20}}]}", NULL, &at) == E2B_AGENT_END_DONE);
    CHECK(at == 20);
    CHECK(last_turn(2, "{\"data\":[{\"type\":\"assistant\",\"finish\":\"error\",\"error\":{\"type\":"
                       "\"unknown\",\"message\":\"quota\\u001b[2J gone\"},\"time\":{\"created\":10}}]}",
                    &err, &at) == E2B_AGENT_END_FAILED);
    CHECK(err && !strchr(err, 0x1b) && strstr(err, "gone"));
    CHECK(at == 10);
    free(err);
    CHECK(last_turn(2, "{\"data\":[{\"type\":\"assistant\",\"finish\":\"error\",\"error\":{\"type\":"
                       "\"unknown\",\"message\":\"Provider turn interrupted\"}}]}", NULL, NULL) ==
          E2B_AGENT_END_INTERRUPTED);
    CHECK(last_turn(2, "{\"data\":[{\"type\":\"assistant\",\"time\":{\"created\":10},\"content\":[{\"type\":"
                       "\"tool\",\"state\":{\"status\":\"error\"},\"time\":{\"completed\":30}}]}]}",
                    NULL, &at) == E2B_AGENT_END_INTERRUPTED);
    CHECK(at == 30);
    CHECK(last_turn(2, "{\"data\":[{\"type\":\"user\",\"text\":\"hi\"}]}", NULL, NULL) == E2B_AGENT_END_NONE);
    CHECK(last_turn(2, "{\"data\":[]}", NULL, NULL) == E2B_AGENT_END_NONE);
    {
        /* the user's message newest: no answer began (a turn stopped before its first step
         * when the server is idle); an assistant's is not */
        const char *bodies[] = {"{\"data\":[{\"type\":\"user\"}]}", "[{\"info\":{\"role\":\"user\"}}]",
                                "{\"data\":[{\"type\":\"assistant\",\"content\":[]}]}"};
        int apis[] = {2, 1, 2};
        bool want[] = {true, true, false};
        for (int i = 0; i < 3; i++) {
            json_error_t je;
            json_t *root = json_loads(bodies[i], 0, &je);
            e2b_oc_result res = {0};
            CHECK(oc_parse_last_turn(apis[i], root, &res) == 0);
            CHECK(res.unanswered == want[i]);
            json_decref(root);
            e2b_oc_result_clear(&res);
        }
    }
    CHECK(last_turn(2, "{\"data\":[{\"type\":\"assistant\",\"content\":[]}]}", NULL, NULL) ==
          E2B_AGENT_END_NONE); /* still being written */
    CHECK(last_turn(2, "[1]", NULL, NULL) == (e2b_agent_end)-1);
    /* v1: the last of the page is the newest */
    CHECK(last_turn(1, "[{\"info\":{\"role\":\"user\"}},{\"info\":{\"role\":\"assistant\",\"finish\":"
                       "\"stop\",\"time\":{\"completed\":5}}}]", NULL, NULL) == E2B_AGENT_END_DONE);
    CHECK(last_turn(1, "[{\"info\":{\"role\":\"assistant\",\"error\":{\"name\":\"APIError\",\"data\":"
                       "{\"message\":\"scripted failure\"}}}}]", &err, NULL) == E2B_AGENT_END_FAILED);
    CHECK_STR_EQ(err, "scripted failure");
    free(err);
    CHECK(last_turn(1, "[{\"info\":{\"role\":\"assistant\",\"error\":{\"name\":\"MessageAbortedError\","
                       "\"data\":{\"message\":\"Aborted\"}}}}]", NULL, NULL) == E2B_AGENT_END_INTERRUPTED);
    CHECK(last_turn(1, "[{\"info\":{\"role\":\"assistant\",\"finish\":\"tool-calls\",\"time\":{\"completed\":"
                       "9}},\"parts\":[{\"type\":\"tool\",\"state\":{\"status\":\"error\",\"time\":{\"end\":8}}}]}]",
                    NULL, NULL) == E2B_AGENT_END_INTERRUPTED); /* a rejected permission */
    CHECK(last_turn(1, "[{\"info\":{\"role\":\"assistant\",\"finish\":\"tool-calls\",\"time\":{\"completed\":"
                       "9}},\"parts\":[{\"type\":\"tool\",\"state\":{\"status\":\"completed\"}}]}]",
                    NULL, NULL) == E2B_AGENT_END_NONE); /* between two steps */
}

static void test_status_line(void)
{
    e2b_agent_request r = {.id = "per_1", .summary = "bash: rm -rf build"};
    e2b_agent_status st = {.state = E2B_AGENT_WAITING, .requests = &r, .nrequests = 1};
    char buf[64];
    e2b_agent_status_line(&st, buf, sizeof buf);
    CHECK_STR_EQ(buf, "waiting for you: bash: rm -rf build");
    e2b_agent_status idle = {.state = E2B_AGENT_IDLE, .last_end = E2B_AGENT_END_FAILED, .error = "boom"};
    e2b_agent_status_line(&idle, buf, sizeof buf);
    CHECK_STR_EQ(buf, "idle: failed: boom");
    e2b_agent_status_line(&idle, buf, 5);
    CHECK(strlen(buf) == 4);
    e2b_agent_reply rep;
    CHECK(e2b_agent_reply_parse("always", &rep) == 0 && rep == E2B_AGENT_REPLY_ALWAYS);
    CHECK(e2b_agent_reply_parse("yes", &rep) == -1);
    /* a copy is deep and equal */
    e2b_agent_status copy;
    CHECK(e2b_agent_status_copy(&copy, &st) == 0);
    CHECK(copy.requests != st.requests);
    CHECK_STR_EQ(copy.requests[0].summary, "bash: rm -rf build");
    e2b_agent_status_clear(&copy);
}

/* v2 list answers in each shape seen: {"data":[...]} (1.18.33, 2.0.7), {"items":[...],
 * "cursor":...} (a 2.x source version), {"data":{"items":[...]}}; the same sessions and
 * requests from each, and an answer with no list is an error, not a crash. */
static void test_v2_list_shapes(void)
{
    const char *sess[] = {
        "{\"data\":[{\"id\":\"ses_a\",\"title\":\"A\",\"time\":{\"updated\":5}},"
        "{\"id\":\"ses_b\",\"time\":{\"updated\":9}}],\"cursor\":{\"next\":null}}",
        "{\"items\":[{\"id\":\"ses_a\",\"title\":\"A\",\"time\":{\"updated\":5}},"
        "{\"id\":\"ses_b\",\"time\":{\"updated\":9}}],\"cursor\":\"c1\"}",
        "{\"data\":{\"items\":[{\"id\":\"ses_a\",\"title\":\"A\",\"time\":{\"updated\":5}},"
        "{\"id\":\"ses_b\",\"time\":{\"updated\":9}}],\"cursor\":null}}",
    };
    for (int i = 0; i < 3; i++) {
        json_error_t je;
        json_t *root = json_loads(sess[i], 0, &je);
        e2b_oc_result res = {0};
        CHECK_MSG(oc_parse_sessions(2, root, &res) == 0, "shape %d", i);
        CHECK_MSG(res.nsessions == 2, "shape %d: %zu sessions", i, res.nsessions);
        if (res.nsessions == 2)
            CHECK_STR_EQ(res.sessions[0].id, "ses_b"); /* newest first */
        json_decref(root);
        e2b_oc_result_clear(&res);
    }
    const char *reqs[] = {
        "{\"location\":{},\"data\":[{\"id\":\"per_1\",\"sessionID\":\"ses_a\",\"action\":\"bash\","
        "\"resources\":[\"ls\"]}]}",
        "{\"items\":[{\"id\":\"per_1\",\"sessionID\":\"ses_a\",\"action\":\"bash\","
        "\"resources\":[\"ls\"]}],\"cursor\":null}",
    };
    for (int i = 0; i < 2; i++) {
        json_error_t je;
        json_t *root = json_loads(reqs[i], 0, &je);
        e2b_oc_result res = {0};
        CHECK_MSG(oc_parse_requests(2, false, root, &res) == 0, "shape %d", i);
        CHECK(res.nrequests == 1);
        if (res.nrequests == 1)
            CHECK_STR_EQ(res.requests[0].summary, "bash: ls");
        json_decref(root);
        e2b_oc_result_clear(&res);
    }
    CHECK(last_turn(2, "{\"items\":[{\"type\":\"assistant\",\"finish\":\"stop\","
                       "\"time\":{\"created\":1,\"completed\":2}}],\"cursor\":null}", NULL, NULL) ==
          E2B_AGENT_END_DONE);
    const char *none[] = {"{\"cursor\":null}", "{\"data\":{\"x\":1}}", "{\"items\":{}}", "3"};
    for (int i = 0; i < 4; i++) {
        json_error_t je;
        json_t *root = json_loads(none[i], JSON_DECODE_ANY, &je);
        e2b_oc_result res = {0};
        CHECK_MSG(oc_parse_sessions(2, root, &res) == -1, "no list %d", i);
        json_decref(root);
        e2b_oc_result_clear(&res);
    }
    /* v2 frames of another release's shape ({id, created, type, data}) with names this
     * client does not know: harmless */
    const char *frames[] = {
        "{\"id\":\"e1\",\"created\":1,\"type\":\"session.execution.started\",\"data\":{\"sessionID\":\"s\"}}",
        "{\"id\":\"e2\",\"created\":2,\"type\":\"form.created\",\"data\":{\"id\":\"f\"}}",
        "{\"id\":\"e3\",\"type\":\"x.y\",\"data\":[1,2]}",
    };
    for (int i = 0; i < 3; i++) {
        e2b_oc_event ev;
        e2b_oc_event_scratch sc;
        CHECK(e2b_oc_event_parse(2, frames[i], strlen(frames[i]), &ev, &sc) == 0);
        CHECK(ev.kind == E2B_OC_EV_OTHER);
        e2b_oc_event_scratch_clear(&sc);
    }
}

static void test_text_bounds(void)
{
    char *big = malloc(10000);
    memset(big, 'a', 9999);
    big[9999] = 0;
    memcpy(big + 9990, "\xc3\xa9tail", 6);
    char *t = e2b_agent_text(big, strlen(big), 8, false, true);
    CHECK(t && strlen(t) <= 8);
    CHECK(strstr(t, "tail"));
    free(t);
    t = e2b_agent_text(big, strlen(big), 100, false, false);
    CHECK(t && strlen(t) == 100);
    free(t);
    free(big);
}

int main(void)
{
    RUN(test_sse_framing);
    RUN(test_sse_bounds);
    RUN(test_event_v2_permission);
    RUN(test_event_v1_status_and_hostile_text);
    RUN(test_event_v2_step_failed);
    RUN(test_last_turn);
    RUN(test_v2_list_shapes);
    RUN(test_status_line);
    RUN(test_text_bounds);
    return harness_finish();
}
