#include "core/util/error.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

static int contains(const char *hay, const char *needle)
{
    return hay && needle && strstr(hay, needle) != NULL;
}

static void test_401_names_the_api_key(void)
{
    const char body[] = "{\"code\":401,\"message\":\"Invalid API key\"}";
    e2b_error *e = e2b_error_from_http(401, body, sizeof body - 1, NULL, NULL);
    e2b_error_set_action(e, "pausing box %s", "feat-x");
    CHECK_INT_EQ(e->kind, E2B_ERR_AUTH);
    CHECK_INT_EQ(e->http_status, 401);
    CHECK_STR_EQ(e2b_error_message(e), "pausing box feat-x: E2B rejected the API key (E2B_API_KEY)");
    CHECK_STR_EQ(e->e2b_message, "Invalid API key");
    CHECK_INT_EQ(e2b_error_exit_code(e), 4);
    e2b_error_free(e);
}

static void test_network_down_names_the_host(void)
{
    e2b_error *e = e2b_error_network(E2B_ERR_NETWORK, "api.e2b.app", "Could not resolve host");
    e2b_error_set_action(e, "listing sandboxes");
    CHECK_STR_EQ(e2b_error_message(e),
                 "listing sandboxes: cannot reach api.e2b.app: Could not resolve host");
    CHECK_INT_EQ(e2b_error_exit_code(e), 1);
    e2b_error_free(e);
}

static void test_malformed_json_is_unexpected_reply(void)
{
    e2b_error *e = e2b_error_new(E2B_ERR_PROTOCOL, "sandbox 2: field '%s' is missing", "sandboxID");
    CHECK_STR_EQ(e2b_error_message(e),
                 "unexpected reply from E2B: sandbox 2: field 'sandboxID' is missing");
    e2b_error_free(e);
}

static void test_timeout(void)
{
    e2b_error *e = e2b_error_network(E2B_ERR_TIMEOUT, "api.e2b.app", "after 30000 ms");
    CHECK(contains(e2b_error_message(e), "api.e2b.app did not answer in time"));
    CHECK_INT_EQ(e->kind, E2B_ERR_TIMEOUT);
    e2b_error_free(e);
}

static void test_404_uses_the_call_text(void)
{
    const char body[] = "{\"code\":404,\"message\":\"sandbox \\\"ixyz\\\" not found\"}";
    e2b_error *e = e2b_error_from_http(404, body, sizeof body - 1, NULL, "no sandbox with id ixyz");
    e2b_error_set_action(e, "killing box old");
    CHECK_STR_EQ(e2b_error_message(e), "killing box old: no sandbox with id ixyz");
    CHECK_INT_EQ(e2b_error_exit_code(e), 3);
    e2b_error_free(e);
    e = e2b_error_from_http(404, NULL, 0, NULL, NULL);
    CHECK_STR_EQ(e2b_error_message(e), "not found");
    e2b_error_free(e);
}

static void test_409_conflict(void)
{
    const char body[] = "{\"code\":409,\"message\":\"sandbox is already paused\"}";
    e2b_error *e = e2b_error_from_http(409, body, sizeof body - 1, NULL, NULL);
    CHECK_INT_EQ(e->kind, E2B_ERR_CONFLICT);
    CHECK(contains(e2b_error_message(e), "conflict (409): sandbox is already paused"));
    CHECK_INT_EQ(e2b_error_exit_code(e), 5);
    e2b_error_free(e);
}

/* A conflict found here (no HTTP reply) is told in its own words, not as E2B's 409. */
static void test_local_conflict(void)
{
    e2b_error *e = e2b_error_new(E2B_ERR_CONFLICT, "2 sandboxes are box x (ia, ib)");
    CHECK_STR_EQ(e2b_error_message(e), "2 sandboxes are box x (ia, ib)");
    CHECK_INT_EQ(e2b_error_exit_code(e), 5);
    e2b_error_free(e);
}

static void test_429_after_retries(void)
{
    e2b_error *e = e2b_error_from_http(429, "", 0, NULL, NULL);
    CHECK_INT_EQ(e->kind, E2B_ERR_RATE_LIMITED);
    CHECK(contains(e2b_error_message(e), "rate limiting"));
    CHECK(contains(e2b_error_message(e), "429"));
    e2b_error_free(e);
}

static void test_5xx_carries_message_code_and_trace(void)
{
    const char body[] = "{\"code\":500,\"message\":\"placement failed\\nretry later\","
                        "\"error_code\":\"sandbox_placement_timeout\",\"extra\":[1,2]}";
    e2b_error *e = e2b_error_from_http(500, body, sizeof body - 1, "trace-77", NULL);
    e2b_error_set_action(e, "creating box %s", "feat-y");
    CHECK_INT_EQ(e->kind, E2B_ERR_SERVER);
    CHECK_INT_EQ(e->e2b_code, 500);
    CHECK_STR_EQ(e->e2b_error_code, "sandbox_placement_timeout");
    CHECK_STR_EQ(e->trace_id, "trace-77");
    /* One line: the newline in E2B's message does not survive. */
    CHECK_STR_EQ(e2b_error_message(e), "creating box feat-y: E2B server error 500: placement "
                                       "failed retry later (trace trace-77)");
    e2b_error_free(e);
}

static void test_503_busy(void)
{
    e2b_error *e = e2b_error_from_http(503, "not json at all", 15, NULL, NULL);
    CHECK_INT_EQ(e->kind, E2B_ERR_BUSY);
    CHECK(e->e2b_message == NULL);
    CHECK(contains(e2b_error_message(e), "temporarily busy (503)"));
    e2b_error_free(e);
}

static void test_connect_error_body(void)
{
    const char body[] = "{\"code\":\"not_found\",\"message\":\"process with pid 9 not found\"}";
    e2b_error *e = e2b_error_from_http(404, body, sizeof body - 1, NULL, NULL);
    CHECK_STR_EQ(e->e2b_error_code, "not_found");
    CHECK_STR_EQ(e2b_error_message(e), "not found: process with pid 9 not found");
    e2b_error_free(e);
}

static void test_wrong_typed_error_body_ignored(void)
{
    const char body[] = "{\"code\":[],\"message\":42}";
    e2b_error *e = e2b_error_from_http(418, body, sizeof body - 1, NULL, NULL);
    CHECK_INT_EQ(e->kind, E2B_ERR_HTTP);
    CHECK_STR_EQ(e2b_error_message(e), "E2B answered 418");
    e2b_error_free(e);
}

static void test_copy_is_deep(void)
{
    e2b_error *e = e2b_error_from_http(500, "{\"message\":\"boom\"}", 18, "t1", NULL);
    e2b_error *c = e2b_error_copy(e);
    e2b_error_set_action(e, "first");
    CHECK(c != e);
    CHECK_STR_EQ(c->e2b_message, "boom");
    CHECK_STR_EQ(c->trace_id, "t1");
    CHECK(!contains(e2b_error_message(c), "first"));
    e2b_error_free(e);
    e2b_error_free(c);
}

static void test_missing_key_auth(void)
{
    e2b_error *e = e2b_error_new(E2B_ERR_AUTH, "no API key: set E2B_API_KEY");
    CHECK(contains(e2b_error_message(e), "set E2B_API_KEY"));
    CHECK_INT_EQ(e2b_error_exit_code(e), 4);
    e2b_error_free(e);
    e2b_error_free(NULL);
}

int main(void)
{
    RUN(test_401_names_the_api_key);
    RUN(test_network_down_names_the_host);
    RUN(test_malformed_json_is_unexpected_reply);
    RUN(test_timeout);
    RUN(test_404_uses_the_call_text);
    RUN(test_409_conflict);
    RUN(test_429_after_retries);
    RUN(test_5xx_carries_message_code_and_trace);
    RUN(test_local_conflict);
    RUN(test_503_busy);
    RUN(test_connect_error_body);
    RUN(test_wrong_typed_error_body_ignored);
    RUN(test_copy_is_deep);
    RUN(test_missing_key_auth);
    return harness_finish();
}
