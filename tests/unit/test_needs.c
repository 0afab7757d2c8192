/* Issue 33 without a server: a question's options (and whether a typed answer is allowed)
 * parsed from both APIs' request bodies, hostile text in them sanitised; usage figures of a
 * step (a cost of 0 for tokens used is unknown, not free); a session list's totals; a
 * sandbox's cost from its size, running time and the prices; the cost's words. */
#include "core/agent/agent.h"
#include "core/agent/opencode.h"
#include "core/agent/opencode_internal.h"
#include "core/e2b/cost.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_question_options(void)
{
    const char *body =
        "[{\"id\":\"que_1\",\"sessionID\":\"ses_1\",\"questions\":[{\"question\":\"Which\\u001b[2J colour?\","
        "\"header\":\"Colour\",\"options\":[{\"label\":\"red\",\"description\":\"warm\"},"
        "{\"label\":\"bl\\u202eue\",\"description\":\"cool\"},{\"label\":\"\",\"description\":\"x\"}]},"
        "{\"question\":\"Second?\",\"header\":\"Two\",\"options\":[]}]},"
        "{\"id\":\"que_2\",\"sessionID\":\"ses_1\",\"questions\":[{\"question\":\"Ship?\",\"header\":\"Ship\","
        "\"custom\":false,\"multiple\":true,\"options\":[{\"label\":\"yes\",\"description\":\"now\"}]}]}]";
    json_error_t je;
    json_t *root = json_loads(body, 0, &je);
    CHECK(root);
    e2b_oc_result res = {0};
    CHECK(oc_parse_requests(1, true, root, &res) == 0);
    json_decref(root);
    CHECK(res.nrequests == 2);
    const e2b_agent_request *q = &res.requests[0];
    CHECK(q->question);
    CHECK(q->noptions == 2); /* the one without a label is dropped */
    CHECK(!strcmp(q->option_labels[0], "red") && !strcmp(q->option_descs[0], "warm"));
    CHECK(!strstr(q->option_labels[1], "\xe2\x80\xae")); /* the bidi override is gone */
    CHECK(!strchr(q->detail, '\033'));
    CHECK(q->custom && !q->multiple && q->nquestions == 2);
    CHECK(!res.requests[1].custom && res.requests[1].multiple);
    /* a copy of a status keeps the options */
    e2b_agent_status st = {0}, cp;
    st.requests = res.requests;
    st.nrequests = res.nrequests;
    CHECK(e2b_agent_status_copy(&cp, &st) == 0);
    CHECK(cp.requests[0].noptions == 2 && !strcmp(cp.requests[0].option_labels[0], "red"));
    e2b_agent_status_clear(&cp);
    e2b_oc_result_clear(&res);
}

static void test_usage(void)
{
    e2b_agent_usage u;
    json_t *o = json_loads("{\"cost\":0.25,\"tokens\":{\"input\":10,\"output\":5,\"reasoning\":1,"
                           "\"cache\":{\"read\":3,\"write\":2}}}", 0, NULL);
    oc_usage_from(o, &u);
    json_decref(o);
    CHECK(u.have_cost && u.cost_usd == 0.25 && u.have_tokens);
    CHECK(u.input == 10 && u.output == 5 && u.reasoning == 1 && u.cache_read == 3 && u.cache_write == 2);
    /* 1.18.33's v2: cost 0 for tokens used: not priced, unknown */
    o = json_loads("{\"cost\":0,\"tokens\":{\"input\":100000,\"output\":50000}}", 0, NULL);
    oc_usage_from(o, &u);
    json_decref(o);
    CHECK(!u.have_cost && u.have_tokens);
    /* nothing used, nothing paid: a known 0 */
    o = json_loads("{\"cost\":0,\"tokens\":{\"input\":0,\"output\":0}}", 0, NULL);
    oc_usage_from(o, &u);
    json_decref(o);
    CHECK(u.have_cost && u.cost_usd == 0);
    /* no figures at all: unknown */
    o = json_loads("{}", 0, NULL);
    oc_usage_from(o, &u);
    json_decref(o);
    CHECK(!u.have_cost && !u.have_tokens);
    /* a hostile figure is refused */
    o = json_loads("{\"cost\":-3}", 0, NULL);
    oc_usage_from(o, &u);
    json_decref(o);
    CHECK(!u.have_cost);
    /* sums keep what each side knows */
    e2b_agent_usage a = {0}, b = {.have_cost = true, .cost_usd = 1.5, .have_tokens = true, .input = 7};
    e2b_agent_usage_add(&a, &b);
    e2b_agent_usage_add(&a, &b);
    CHECK(a.have_cost && a.cost_usd == 3.0 && a.input == 14);
}

static void test_session_totals(void)
{
    json_t *root = json_loads(
        "[{\"id\":\"ses_a\",\"title\":\"A\",\"time\":{\"updated\":2},\"cost\":0.5,"
        "\"tokens\":{\"input\":100,\"output\":10}},"
        "{\"id\":\"ses_b\",\"title\":\"B\",\"time\":{\"updated\":1},\"cost\":0.25,"
        "\"tokens\":{\"input\":50,\"output\":5}},{\"id\":\"ses_c\",\"title\":\"C\"}]", 0, NULL);
    e2b_oc_result res = {0};
    CHECK(oc_parse_sessions(1, root, &res) == 0);
    json_decref(root);
    CHECK(res.nsessions == 3);
    CHECK(res.usage.have_cost && res.usage.cost_usd == 0.75);
    CHECK(res.usage.input == 150 && res.usage.output == 15);
    e2b_oc_result_clear(&res);
}

static void test_sandbox_cost(void)
{
    e2b_sandbox sb = {.state = E2B_STATE_RUNNING, .cpu_count = 2, .memory_mb = 1024,
                      .started_at = 1000};
    double usd = -1;
    CHECK(e2b_sandbox_cost(&sb, 0.000014, 0.0000045, 1000 + 3600, &usd));
    /* an hour of 2 vCPUs and 1 GiB: 3600 x (2 x 0.000014 + 0.0000045) */
    CHECK(usd > 0.1169 && usd < 0.1171);
    sb.state = E2B_STATE_PAUSED; /* paused: not billed, and not known from the API */
    CHECK(!e2b_sandbox_cost(&sb, 0.000014, 0.0000045, 5000, &usd));
    sb.state = E2B_STATE_RUNNING;
    sb.cpu_count = -1;
    CHECK(!e2b_sandbox_cost(&sb, 0.000014, 0.0000045, 5000, &usd));
    char buf[32];
    e2b_cost_format(0.42, buf, sizeof buf);
    CHECK(!strcmp(buf, "$0.42"));
    e2b_cost_format(0.004, buf, sizeof buf);
    CHECK(!strcmp(buf, "$0.004"));
    e2b_cost_format(0.0001, buf, sizeof buf);
    CHECK(!strcmp(buf, "<$0.001"));
    e2b_cost_format(0, buf, sizeof buf);
    CHECK(!strcmp(buf, "$0.000"));
}

int main(void)
{
    RUN(test_question_options);
    RUN(test_usage);
    RUN(test_session_totals);
    RUN(test_sandbox_cost);
    return harness_finish();
}
