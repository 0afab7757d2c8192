#include "core/e2b/objects.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    if (!j)
        fprintf(stderr, "bad test JSON: %s\n", je.text);
    return j;
}

static int contains(const char *hay, const char *needle)
{
    return hay && needle && strstr(hay, needle) != NULL;
}

static void test_listed_sandbox_all_fields(void)
{
    json_t *j = parse("{\"sandboxID\":\"iabc\",\"templateID\":\"opencode\",\"alias\":\"oc\","
                      "\"clientID\":\"x\",\"cpuCount\":2,\"memoryMB\":1024,\"diskSizeMB\":4096,"
                      "\"envdVersion\":\"0.6.4\",\"startedAt\":\"2025-01-02T03:04:05.678Z\","
                      "\"endAt\":\"2025-01-02T04:04:05+01:00\",\"state\":\"paused\","
                      "\"metadata\":{\"e2b-tui\":\"box\",\"e2b-tui.name\":\"feat-x\","
                      "\"e2b-tui.branch\":\"feat/x\",\"e2b-tui.base\":\"abc123\"},"
                      "\"volumeMounts\":[{\"name\":\"v\",\"path\":\"/v\"}],\"newField\":{}}");
    e2b_sandbox sb;
    e2b_error *err = e2b_sandbox_from_json(j, &sb);
    json_decref(j);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_STR_EQ(sb.sandbox_id, "iabc");
    CHECK_STR_EQ(sb.template_id, "opencode");
    CHECK_STR_EQ(sb.alias, "oc");
    CHECK_STR_EQ(sb.envd_version, "0.6.4");
    CHECK_INT_EQ(sb.state, E2B_STATE_PAUSED);
    CHECK_INT_EQ(sb.cpu_count, 2);
    CHECK_INT_EQ(sb.memory_mb, 1024);
    CHECK_INT_EQ(sb.disk_size_mb, 4096);
    CHECK_INT_EQ(sb.started_at, 1735787045);
    CHECK_INT_EQ(sb.end_at, 1735787045); /* 04:04:05+01:00 is 03:04:05Z */
    CHECK_INT_EQ(sb.metadata.count, 4);
    CHECK(sb.envd_access_token == NULL);
    CHECK_INT_EQ(sb.allow_internet_access, -1);
    CHECK_INT_EQ(e2b_sandbox_classify(&sb, NULL), 0);
    CHECK_INT_EQ(sb.kind, E2B_KIND_BOX);
    CHECK_STR_EQ(sb.box_name, "feat-x");
    CHECK_STR_EQ(sb.box_branch, "feat/x");
    CHECK_STR_EQ(sb.box_base, "abc123");
    e2b_sandbox_clear(&sb);
}

static void test_missing_optional_fields_and_nulls(void)
{
    json_t *j = parse("{\"sandboxID\":\"i1\",\"alias\":null,\"cpuCount\":-1,\"metadata\":null}");
    e2b_sandbox sb;
    e2b_error *err = e2b_sandbox_from_json(j, &sb);
    json_decref(j);
    CHECK(err == NULL);
    CHECK(sb.alias == NULL);
    CHECK(sb.template_id == NULL);
    CHECK_INT_EQ(sb.cpu_count, -1);
    CHECK_INT_EQ(sb.memory_mb, -1);
    CHECK_INT_EQ(sb.started_at, 0);
    CHECK_INT_EQ(sb.state, E2B_STATE_UNKNOWN);
    CHECK_INT_EQ(sb.metadata.count, 0);
    e2b_sandbox_clear(&sb);
}

static void test_create_response_tokens(void)
{
    json_t *j = parse("{\"sandboxID\":\"i2\",\"templateID\":\"t\",\"envdVersion\":\"0.5.7\","
                      "\"envdAccessToken\":\"tok\",\"trafficAccessToken\":null,"
                      "\"domain\":\"e2b.app\",\"lifecycle\":{\"onTimeout\":\"pause\","
                      "\"autoResume\":false},\"allowInternetAccess\":true}");
    e2b_sandbox sb, copy;
    e2b_error *err = e2b_sandbox_from_json(j, &sb);
    json_decref(j);
    CHECK(err == NULL);
    CHECK_STR_EQ(sb.envd_access_token, "tok");
    CHECK(sb.traffic_access_token == NULL);
    CHECK_STR_EQ(sb.domain, "e2b.app");
    CHECK_STR_EQ(sb.on_timeout, "pause");
    CHECK_INT_EQ(sb.auto_resume, 0);
    CHECK_INT_EQ(sb.allow_internet_access, 1);
    CHECK_INT_EQ(e2b_sandbox_copy(&sb, &copy), 0);
    e2b_sandbox_clear(&sb);
    CHECK_STR_EQ(copy.envd_access_token, "tok");
    CHECK_STR_EQ(copy.sandbox_id, "i2");
    e2b_sandbox_clear(&copy);
}

static void test_missing_required_id(void)
{
    json_t *j = parse("[{\"sandboxID\":\"a\"},{\"templateID\":\"t\"}]");
    e2b_sandbox_list list = {0};
    e2b_error *err = e2b_sandbox_list_append_json(j, &list);
    json_decref(j);
    CHECK(err != NULL);
    CHECK_INT_EQ(err->kind, E2B_ERR_PROTOCOL);
    CHECK_STR_EQ(e2b_error_message(err),
                 "unexpected reply from E2B: sandbox 2: field 'sandboxID' is missing");
    CHECK_INT_EQ(list.count, 0);
    e2b_error_free(err);
    e2b_sandbox_list_clear(&list);
}

static void test_wrong_typed_fields(void)
{
    static const char *const cases[][2] = {
        {"{\"sandboxID\":5}", "field 'sandboxID' should be a string, got an integer"},
        {"{\"sandboxID\":\"a\",\"cpuCount\":\"two\"}", "field 'cpuCount' should be an integer"},
        {"{\"sandboxID\":\"a\",\"startedAt\":12}", "field 'startedAt' should be an RFC 3339"},
        {"{\"sandboxID\":\"a\",\"startedAt\":\"yesterday\"}", "'startedAt' is not an RFC 3339"},
        {"{\"sandboxID\":\"a\",\"metadata\":[]}", "field 'metadata' should be an object"},
        {"{\"sandboxID\":\"a\",\"metadata\":{\"k\":1}}", "metadata value 'k' should be a string"},
        {"{\"sandboxID\":\"a\",\"lifecycle\":\"pause\"}", "'lifecycle' should be an object"},
        {"{\"sandboxID\":\"a\",\"memoryMB\":1e99}", "'memoryMB' should be an integer"},
        {"{\"sandboxID\":\"a\",\"diskSizeMB\":99999999999}", "'diskSizeMB' is out of range"},
        {"[1]", "sandbox should be a JSON object, got an array"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j = parse(cases[i][0]);
        e2b_sandbox sb;
        e2b_error *err = e2b_sandbox_from_json(j, &sb);
        json_decref(j);
        CHECK_MSG(err != NULL, "case %zu accepted", i);
        CHECK_MSG(contains(e2b_error_message(err), cases[i][1]), "case %zu: %s", i,
                  e2b_error_message(err));
        e2b_error_free(err);
    }
}

static void test_list_appends_pages(void)
{
    json_t *p1 = parse("[{\"sandboxID\":\"a\",\"state\":\"running\"},{\"sandboxID\":\"b\"}]");
    json_t *p2 = parse("[{\"sandboxID\":\"c\",\"templateID\":\"opencode-e2b-proj\"}]");
    json_t *bad = parse("{\"sandboxes\":[]}");
    e2b_sandbox_list list = {0};
    e2b_error *err;
    CHECK(e2b_sandbox_list_append_json(p1, &list) == NULL);
    CHECK(e2b_sandbox_list_append_json(p2, &list) == NULL);
    err = e2b_sandbox_list_append_json(bad, &list);
    json_decref(p1);
    json_decref(p2);
    json_decref(bad);
    CHECK(err != NULL);
    CHECK(contains(e2b_error_message(err), "should be a JSON array"));
    e2b_error_free(err);
    CHECK_INT_EQ(list.count, 3);
    CHECK_STR_EQ(list.items[2].sandbox_id, "c");
    CHECK_INT_EQ(list.items[0].state, E2B_STATE_RUNNING);
    CHECK_INT_EQ(e2b_sandbox_list_classify(&list, NULL), 0);
    CHECK_INT_EQ(list.items[0].kind, E2B_KIND_OTHER);
    CHECK_INT_EQ(list.items[2].kind, E2B_KIND_WORKSPACE);
    e2b_sandbox_list_clear(&list);
}

static void test_classification(void)
{
    e2b_sandbox sb;
    memset(&sb, 0, sizeof sb);
    /* Workspace by alias. */
    sb.alias = strdup("opencode-e2b-abc");
    e2b_sandbox_classify(&sb, NULL);
    CHECK_INT_EQ(sb.kind, E2B_KIND_WORKSPACE);
    free(sb.alias);
    sb.alias = NULL;
    /* Workspace by default metadata key. */
    e2b_metadata_set(&sb.metadata, "workspaceID", "w1");
    e2b_sandbox_classify(&sb, NULL);
    CHECK_INT_EQ(sb.kind, E2B_KIND_WORKSPACE);
    /* Not when the configured keys differ. */
    e2b_sandbox_classify(&sb, " mykey , other ");
    CHECK_INT_EQ(sb.kind, E2B_KIND_OTHER);
    e2b_metadata_set(&sb.metadata, "other", "1");
    e2b_sandbox_classify(&sb, " mykey , other ");
    CHECK_INT_EQ(sb.kind, E2B_KIND_WORKSPACE);
    /* A prefix of a key is not the key. */
    e2b_sandbox_classify(&sb, "oth,workspace");
    CHECK_INT_EQ(sb.kind, E2B_KIND_OTHER);
    /* A box wins over the workspace markers; e2b-tui with another value is not a box. */
    e2b_metadata_set(&sb.metadata, "e2b-tui", "something");
    e2b_sandbox_classify(&sb, "");
    CHECK_INT_EQ(sb.kind, E2B_KIND_OTHER);
    e2b_metadata_set(&sb.metadata, "e2b-tui", "box");
    e2b_sandbox_classify(&sb, NULL);
    CHECK_INT_EQ(sb.kind, E2B_KIND_BOX);
    CHECK(sb.box_name == NULL);
    CHECK_STR_EQ(e2b_sandbox_kind_name(sb.kind), "box");
    e2b_sandbox_clear(&sb);
}

static void test_metadata_set_replaces(void)
{
    e2b_metadata md = {0};
    json_t *j;
    char *s;
    CHECK_INT_EQ(e2b_metadata_set(&md, "a", "1"), 0);
    CHECK_INT_EQ(e2b_metadata_set(&md, "b", "2"), 0);
    CHECK_INT_EQ(e2b_metadata_set(&md, "a", "3"), 0);
    CHECK_INT_EQ(md.count, 2);
    CHECK_STR_EQ(e2b_metadata_get(&md, "a"), "3");
    CHECK(e2b_metadata_get(&md, "c") == NULL);
    j = e2b_metadata_to_json(&md);
    s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
    CHECK_STR_EQ(s, "{\"a\":\"3\",\"b\":\"2\"}");
    free(s);
    json_decref(j);
    e2b_metadata_clear(&md);
}

static void test_secrets(void)
{
    json_t *j = parse("[{\"secretID\":\"s1\",\"name\":\"anthropic\",\"currentVersion\":3,"
                      "\"metadata\":{},\"createdAt\":\"2025-01-01T00:00:00Z\","
                      "\"updatedAt\":\"2025-01-01T00:00:10Z\"},"
                      "{\"secretID\":\"s2\",\"name\":\"openai\",\"currentVersion\":\"7\"}]");
    json_t *bad = parse("[{\"secretID\":\"s3\"}]");
    json_t *bad2 = parse("[{\"secretID\":\"s3\",\"name\":\"x\",\"currentVersion\":true}]");
    e2b_secret_list list = {0};
    e2b_error *err;
    CHECK(e2b_secret_list_append_json(j, &list) == NULL);
    CHECK_INT_EQ(list.count, 2);
    CHECK_STR_EQ(list.items[0].name, "anthropic");
    CHECK_INT_EQ(list.items[0].current_version, 3);
    CHECK_INT_EQ(list.items[1].current_version, 7);
    CHECK_INT_EQ(list.items[0].updated_at - list.items[0].created_at, 10);
    err = e2b_secret_list_append_json(bad, &list);
    CHECK(contains(e2b_error_message(err), "secret 3: field 'name' is missing"));
    e2b_error_free(err);
    err = e2b_secret_list_append_json(bad2, &list);
    CHECK(contains(e2b_error_message(err), "'currentVersion' should be an integer"));
    e2b_error_free(err);
    CHECK_INT_EQ(list.count, 2);
    json_decref(j);
    json_decref(bad);
    json_decref(bad2);
    e2b_secret_list_clear(&list);
}

static void test_metrics(void)
{
    json_t *arr = parse("[{\"timestampUnix\":1700000000,\"timestamp\":\"2023-11-14T22:13:20Z\","
                        "\"cpuCount\":2,\"cpuUsedPct\":12.5,\"memUsed\":1048576,"
                        "\"memTotal\":2097152,\"memCache\":0,\"diskUsed\":10,\"diskTotal\":20},"
                        "{\"timestamp\":\"2023-11-14T22:13:25Z\",\"cpuUsedPct\":3}]");
    json_t *bulk = parse("{\"sandboxes\":{\"i1\":{\"timestampUnix\":1,\"cpuUsedPct\":50.0},"
                         "\"i2\":{\"timestampUnix\":2,\"memUsed\":5}}}");
    json_t *empty = parse("{}");
    json_t *bad = parse("{\"sandboxes\":{\"i1\":{\"cpuUsedPct\":\"high\"}}}");
    e2b_metric_list ml;
    e2b_error *err;
    CHECK(e2b_metric_list_from_json(arr, &ml) == NULL);
    CHECK_INT_EQ(ml.count, 2);
    CHECK_INT_EQ(ml.items[0].timestamp, 1700000000);
    CHECK(ml.items[0].cpu_used_pct > 12.4 && ml.items[0].cpu_used_pct < 12.6);
    CHECK_INT_EQ(ml.items[0].mem_total, 2097152);
    CHECK_INT_EQ(ml.items[1].timestamp, 1700000005);
    e2b_metric_list_clear(&ml);
    CHECK(e2b_metric_list_from_bulk_json(bulk, &ml) == NULL);
    CHECK_INT_EQ(ml.count, 2);
    CHECK_STR_EQ(ml.items[0].sandbox_id, "i1");
    CHECK_INT_EQ(ml.items[1].mem_used, 5);
    e2b_metric_list_clear(&ml);
    CHECK(e2b_metric_list_from_bulk_json(empty, &ml) == NULL);
    CHECK_INT_EQ(ml.count, 0);
    err = e2b_metric_list_from_bulk_json(bad, &ml);
    CHECK(contains(e2b_error_message(err), "metric of i1: field 'cpuUsedPct' should be a number"));
    e2b_error_free(err);
    json_decref(arr);
    json_decref(bulk);
    json_decref(empty);
    json_decref(bad);
}

static void test_logs(void)
{
    json_t *j = parse("{\"logs\":[{\"timestamp\":\"2025-03-04T05:06:07.250Z\",\"level\":\"warn\","
                      "\"message\":\"disk low\",\"fields\":{\"logger\":\"envd\"}},"
                      "{\"timestamp\":\"2025-03-04T05:06:08Z\"}]}");
    json_t *bad = parse("{\"logs\":[{\"message\":7}]}");
    e2b_log_list ll;
    e2b_error *err;
    CHECK(e2b_log_list_from_json(j, &ll) == NULL);
    CHECK_INT_EQ(ll.count, 2);
    CHECK_STR_EQ(ll.items[0].level, "warn");
    CHECK_INT_EQ(ll.items[0].timestamp_ms, 250);
    CHECK_STR_EQ(e2b_metadata_get(&ll.items[0].fields, "logger"), "envd");
    CHECK_STR_EQ(ll.items[1].message, "");
    e2b_log_list_clear(&ll);
    err = e2b_log_list_from_json(bad, &ll);
    CHECK(contains(e2b_error_message(err), "log entry 1: field 'message' should be a string"));
    e2b_error_free(err);
    json_decref(j);
    json_decref(bad);
}

static void test_rfc3339(void)
{
    time_t t;
    int ms;
    char buf[32];
    CHECK_INT_EQ(e2b_parse_rfc3339("1970-01-01T00:00:00Z", &t, NULL), 0);
    CHECK_INT_EQ(t, 0);
    CHECK_INT_EQ(e2b_parse_rfc3339("2024-02-29T23:59:59.999999999-00:30", &t, &ms), 0);
    CHECK_INT_EQ(t, 1709251199 + 1800);
    CHECK_INT_EQ(ms, 999);
    CHECK(e2b_parse_rfc3339("2024-02-29T23:59:59", &t, NULL) < 0);     /* no zone */
    CHECK(e2b_parse_rfc3339("2024-13-01T00:00:00Z", &t, NULL) < 0);    /* month */
    CHECK(e2b_parse_rfc3339("2024-01-01T00:00:00Zjunk", &t, NULL) < 0);
    CHECK(e2b_parse_rfc3339("2024-01-01T00:00:00.Z", &t, NULL) < 0);
    CHECK(e2b_parse_rfc3339("", &t, NULL) < 0);
    e2b_format_rfc3339(1735787045, buf, sizeof buf);
    CHECK_STR_EQ(buf, "2025-01-02T03:04:05Z");
}

int main(void)
{
    RUN(test_listed_sandbox_all_fields);
    RUN(test_missing_optional_fields_and_nulls);
    RUN(test_create_response_tokens);
    RUN(test_missing_required_id);
    RUN(test_wrong_typed_fields);
    RUN(test_list_appends_pages);
    RUN(test_classification);
    RUN(test_metadata_set_replaces);
    RUN(test_secrets);
    RUN(test_metrics);
    RUN(test_logs);
    RUN(test_rfc3339);
    return harness_finish();
}
