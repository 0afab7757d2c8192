/* core/e2b/api.h against tests/e2b-local (started by core_api_test.sh; E2B_DOMAIN and
 * E2B_API_KEY point at it, CORE_LOCAL_URL is its plain address for fault injection). */
#include "core/e2b/api.h"
#include "core/net/http.h"
#include "core/util/log.h"
#include "tests/lib/harness.h"
#include "tests/lib/sync_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static e2b_config cfg;
static e2b_client *client;
static const char *local_url;

static int contains(const char *hay, const char *needle)
{
    return hay && needle && strstr(hay, needle) != NULL;
}

/* Queues a fault in e2b-local (its admin endpoint). */
static void fault(const char *spec)
{
    char *u;
    e2b_http_response r;
    e2b_error *err;
    if (asprintf(&u, "%s/_e2b-local/faults", local_url) < 0)
        abort();
    e2b_http_options o = {.method = "POST", .url = u, .body = spec, .body_len = strlen(spec),
                          .timeout_ms = 10000};
    err = t_http_perform(NULL, &o, &r);
    if (err || r.status != 201)
        fprintf(stderr, "fault %s not queued: %s %ld\n", spec, e2b_error_message(err), r.status);
    e2b_error_free(err);
    e2b_http_response_clear(&r);
    free(u);
}

static void clear_faults(void)
{
    char *u;
    e2b_http_response r;
    if (asprintf(&u, "%s/_e2b-local/faults", local_url) < 0)
        abort();
    e2b_http_options o = {.method = "DELETE", .url = u, .timeout_ms = 10000};
    e2b_error_free(t_http_perform(NULL, &o, &r));
    e2b_http_response_clear(&r);
    free(u);
}

static char *create_one(const char *template_id, const e2b_metadata *md)
{
    e2b_create_params p = {.template_id = template_id, .timeout_s = 600, .metadata = md,
                           .allow_internet_access = -1};
    e2b_sandbox sb;
    e2b_error *err = t_api_create(client, &p, &sb);
    char *id;
    if (err) {
        fprintf(stderr, "create failed: %s\n", e2b_error_message(err));
        e2b_error_free(err);
        return NULL;
    }
    id = strdup(sb.sandbox_id);
    e2b_sandbox_clear(&sb);
    return id;
}

static void test_create_get_classify(void)
{
    e2b_metadata md = {0};
    e2b_create_params p = {.template_id = "opencode", .timeout_s = 600, .metadata = &md,
                           .auto_pause = 1, .allow_internet_access = -1};
    e2b_sandbox sb, got;
    e2b_error *err;
    e2b_metadata_set(&md, "e2b-tui", "box");
    e2b_metadata_set(&md, "e2b-tui.name", "feat-x");
    e2b_metadata_set(&md, "e2b-tui.branch", "feat/x");
    err = t_api_create(client, &p, &sb);
    e2b_metadata_clear(&md);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK(sb.sandbox_id && *sb.sandbox_id);
    CHECK(sb.envd_access_token != NULL);
    CHECK(sb.envd_version != NULL);
    err = t_api_get(client, sb.sandbox_id, &got);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_STR_EQ(got.sandbox_id, sb.sandbox_id);
    CHECK_INT_EQ(got.state, E2B_STATE_RUNNING);
    CHECK_STR_EQ(got.box_name, "feat-x");
    CHECK_STR_EQ(got.box_branch, "feat/x");
    CHECK(got.end_at > got.started_at);
    e2b_sandbox_clear(&got);
    e2b_error_free(t_api_kill(client, sb.sandbox_id));
    e2b_sandbox_clear(&sb);
}

static void test_missing_sandbox(void)
{
    e2b_sandbox sb;
    e2b_error *err = t_api_get(client, "inosuchsandbox", &sb);
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    CHECK_STR_EQ(e2b_error_message(err),
                 "looking up sandbox inosuchsandbox: no sandbox with id inosuchsandbox");
    CHECK_INT_EQ(e2b_error_exit_code(err), 3);
    e2b_error_free(err);
}

static void test_pause_connect_kill_lifecycle(void)
{
    char *id = create_one("base", NULL);
    e2b_sandbox sb;
    e2b_error *err;
    int resumed = -1;
    CHECK(id != NULL);
    err = t_api_connect(client, id, 600, &sb, &resumed);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(resumed, 0); /* 200: it was running */
    CHECK(sb.envd_access_token != NULL);
    e2b_sandbox_clear(&sb);
    err = t_api_pause(client, id);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    err = t_api_get(client, id, &sb);
    CHECK(err == NULL);
    CHECK_INT_EQ(sb.state, E2B_STATE_PAUSED);
    e2b_sandbox_clear(&sb);
    err = t_api_pause(client, id);
    CHECK(err && err->kind == E2B_ERR_CONFLICT); /* already paused */
    CHECK_INT_EQ(e2b_error_exit_code(err), 5);
    e2b_error_free(err);
    err = t_api_connect(client, id, 600, &sb, &resumed);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(resumed, 1); /* 201: resumed from pause */
    CHECK_INT_EQ(sb.state == E2B_STATE_PAUSED, 0);
    e2b_sandbox_clear(&sb);
    err = t_api_set_timeout(client, id, 1234);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    err = t_api_get(client, id, &sb);
    CHECK(err == NULL);
    CHECK_MSG(sb.end_at - time(NULL) > 1200 && sb.end_at - time(NULL) <= 1240, "end in %ld s",
              (long)(sb.end_at - time(NULL)));
    e2b_sandbox_clear(&sb);
    err = t_api_kill(client, id);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    err = t_api_kill(client, id);
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    e2b_error_free(err);
    err = t_api_connect(client, id, 0, &sb, NULL);
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    CHECK(contains(e2b_error_message(err), "killed or expired"));
    e2b_error_free(err);
    free(id);
}

/* ---- many sandboxes, pages, filters ---- */

typedef struct {
    int pending, failed;
    char **ids;
    int n;
} creating;

static void created(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    creating *c = ud;
    (void)status;
    c->pending--;
    if (err) {
        c->failed++;
        fprintf(stderr, "create: %s\n", e2b_error_message(err));
        return;
    }
    c->ids[c->n++] = strdup(sb->sandbox_id);
    e2b_sandbox_free(sb);
}

static void test_list_260_sandboxes_across_pages(void)
{
    enum { N = 260, PARALLEL = 12 };
    creating c = {0};
    e2b_metadata md = {0};
    e2b_loop *loop = e2b_client_loop(client);
    e2b_sandbox_list list;
    e2b_list_query q = {.metadata = &md};
    e2b_error *err;
    int started = 0, found = 0;
    c.ids = calloc(N, sizeof *c.ids);
    e2b_metadata_set(&md, "batch", "pages test/1");
    while (started < N || c.pending) {
        while (started < N && c.pending < PARALLEL) {
            e2b_create_params p = {.template_id = "base", .timeout_s = 900, .metadata = &md,
                                   .allow_internet_access = -1};
            CHECK(e2b_api_create(client, &p, created, &c, NULL) != NULL);
            c.pending++;
            started++;
        }
        e2b_loop_run_once(loop, 1000);
    }
    CHECK_INT_EQ(c.failed, 0);
    CHECK_INT_EQ(c.n, N);
    err = t_api_list(client, &q, &list);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(list.count, N); /* three pages of at most 100 */
    for (size_t i = 0; i < list.count; i++) {
        CHECK_STR_EQ(e2b_metadata_get(&list.items[i].metadata, "batch"), "pages test/1");
        for (int k = 0; k < N; k++)
            if (strcmp(list.items[i].sandbox_id, c.ids[k]) == 0)
                found++;
    }
    CHECK_INT_EQ(found, N);
    CHECK_INT_EQ(list.total_running, N);
    e2b_sandbox_list_clear(&list);
    /* report_unchanged: the same pages again parse nothing; a change anywhere (here on
     * the last page: a sandbox gone) brings the whole list again. */
    q.report_unchanged = 1;
    err = t_api_list(client, &q, &list);
    CHECK(err == NULL);
    CHECK_INT_EQ(list.count, N);
    CHECK_INT_EQ(list.unchanged, 0);
    e2b_sandbox_list_clear(&list);
    err = t_api_list(client, &q, &list);
    CHECK(err == NULL);
    CHECK_INT_EQ(list.unchanged, 1);
    CHECK_INT_EQ(list.count, 0);
    e2b_sandbox_list_clear(&list);
    e2b_error_free(t_api_kill(client, c.ids[N - 1]));
    err = t_api_list(client, &q, &list);
    CHECK(err == NULL);
    CHECK_INT_EQ(list.unchanged, 0);
    CHECK_INT_EQ(list.count, N - 1);
    for (size_t i = 0; i < list.count; i++)
        CHECK(strcmp(list.items[i].sandbox_id, c.ids[N - 1]) != 0);
    e2b_sandbox_list_clear(&list);
    err = t_api_list(client, &q, &list);
    CHECK(err == NULL);
    CHECK_INT_EQ(list.unchanged, 1);
    e2b_sandbox_list_clear(&list);
    /* Another filter is another list: not compared with this one. */
    {
        e2b_list_query q2 = {.states = E2B_LIST_RUNNING, .metadata = &md, .report_unchanged = 1};
        err = t_api_list(client, &q2, &list);
        CHECK(err == NULL);
        CHECK_INT_EQ(list.unchanged, 0);
        CHECK_INT_EQ(list.count, N - 1);
        e2b_sandbox_list_clear(&list);
    }
    q.report_unchanged = 0;
    /* max_items stops after whole pages. */
    q.max_items = 150;
    err = t_api_list(client, &q, &list);
    CHECK(err == NULL);
    CHECK_INT_EQ(list.count, 200);
    e2b_sandbox_list_clear(&list);
    /* Bulk metrics: up to 100 ids in one call. */
    {
        e2b_metric_list ml;
        err = t_api_metrics_bulk(client, (const char *const *)c.ids, 100, &ml);
        CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
        CHECK(ml.count <= 100);
        for (size_t i = 0; i < ml.count; i++)
            CHECK(ml.items[i].sandbox_id != NULL);
        e2b_metric_list_clear(&ml);
        err = t_api_metrics_bulk(client, (const char *const *)c.ids, 101, &ml);
        CHECK(err && err->kind == E2B_ERR_INVALID);
        e2b_error_free(err);
    }
    /* Clean up in parallel. */
    for (int k = 0; k < N; k++) {
        if (k < N - 1) /* the last one was killed above */
            e2b_error_free(t_api_kill(client, c.ids[k]));
        free(c.ids[k]);
    }
    free(c.ids);
    e2b_metadata_clear(&md);
}

static void test_state_and_metadata_filters(void)
{
    e2b_metadata a = {0}, b = {0}, filt = {0};
    char *id1, *id2, *id3;
    e2b_sandbox_list list;
    e2b_list_query q = {.metadata = &filt};
    e2b_error *err;
    e2b_metadata_set(&a, "owner", "x y&z=1+2");
    e2b_metadata_set(&a, "role", "alpha");
    e2b_metadata_set(&b, "owner", "x y&z=1+2");
    e2b_metadata_set(&b, "role", "beta");
    id1 = create_one("base", &a);
    id2 = create_one("base", &b);
    id3 = create_one("base", &a);
    CHECK(id1 && id2 && id3);
    e2b_error_free(t_api_pause(client, id3));
    e2b_metadata_set(&filt, "owner", "x y&z=1+2");
    err = t_api_list(client, &q, &list);
    CHECK(err == NULL);
    CHECK_INT_EQ(list.count, 3);
    e2b_sandbox_list_clear(&list);
    e2b_metadata_set(&filt, "role", "alpha");
    err = t_api_list(client, &q, &list);
    CHECK(err == NULL);
    CHECK_INT_EQ(list.count, 2);
    e2b_sandbox_list_clear(&list);
    q.states = E2B_LIST_PAUSED;
    err = t_api_list(client, &q, &list);
    CHECK(err == NULL);
    CHECK_INT_EQ(list.count, 1);
    CHECK_STR_EQ(list.items[0].sandbox_id, id3);
    CHECK_INT_EQ(list.items[0].state, E2B_STATE_PAUSED);
    e2b_sandbox_list_clear(&list);
    q.states = E2B_LIST_RUNNING;
    err = t_api_list(client, &q, &list);
    CHECK(err == NULL);
    CHECK_INT_EQ(list.count, 1);
    CHECK_STR_EQ(list.items[0].sandbox_id, id1);
    e2b_sandbox_list_clear(&list);
    e2b_error_free(t_api_kill(client, id1));
    e2b_error_free(t_api_kill(client, id2));
    e2b_error_free(t_api_kill(client, id3));
    free(id1);
    free(id2);
    free(id3);
    e2b_metadata_clear(&a);
    e2b_metadata_clear(&b);
    e2b_metadata_clear(&filt);
}

static void test_metrics_logs(void)
{
    char *id = create_one("base", NULL);
    e2b_metric_list ml;
    e2b_log_list ll;
    e2b_logs_query lq = {.direction = "forward", .limit = 50};
    e2b_error *err;
    CHECK(id != NULL);
    err = t_api_metrics(client, id, 0, 0, &ml);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    for (size_t i = 0; i < ml.count; i++)
        CHECK(ml.items[i].timestamp > 0);
    e2b_metric_list_clear(&ml);
    err = t_api_logs(client, id, &lq, &ll);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    e2b_log_list_clear(&ll);
    err = t_api_metrics(client, "inope", 0, 0, &ml);
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    e2b_error_free(err);
    e2b_error_free(t_api_kill(client, id));
    free(id);
}

static void test_secrets_crud_and_pages(void)
{
    e2b_metadata md = {0};
    e2b_secret s;
    e2b_secret_list sl;
    e2b_error *err;
    char name[32];
    e2b_metadata_set(&md, "provider", "anthropic");
    err = t_api_secret_create(client, "anthropic", "sk-ant-value-1", &md, &s);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_STR_EQ(s.name, "anthropic");
    CHECK_INT_EQ(s.current_version, 1);
    CHECK_STR_EQ(e2b_metadata_get(&s.metadata, "provider"), "anthropic");
    e2b_secret_clear(&s);
    err = t_api_secret_create(client, "anthropic", "again", NULL, &s);
    CHECK(err && err->kind == E2B_ERR_CONFLICT);
    e2b_error_free(err);
    err = t_api_secret_update(client, "anthropic", "sk-ant-value-2", NULL, &s);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(s.current_version, 2);
    e2b_secret_clear(&s);
    err = t_api_secret_get(client, "anthropic", &s);
    CHECK(err == NULL);
    CHECK_INT_EQ(s.current_version, 2);
    e2b_secret_clear(&s);
    for (int i = 0; i < 110; i++) {
        snprintf(name, sizeof name, "bulk-%03d", i);
        err = t_api_secret_create(client, name, "v", NULL, &s);
        CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
        e2b_secret_clear(&s);
    }
    err = t_api_secrets_list(client, &sl);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(sl.count, 111); /* two pages */
    e2b_secret_list_clear(&sl);
    for (int i = 0; i < 110; i++) {
        snprintf(name, sizeof name, "bulk-%03d", i);
        e2b_error_free(t_api_secret_delete(client, name));
    }
    err = t_api_secret_delete(client, "anthropic");
    CHECK(err == NULL);
    err = t_api_secret_delete(client, "anthropic");
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    CHECK(contains(e2b_error_message(err), "no secret named anthropic"));
    e2b_error_free(err);
    err = t_api_secret_get(client, "anthropic", &s);
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    e2b_error_free(err);
    e2b_metadata_clear(&md);
}

static void test_faults(void)
{
    e2b_sandbox_list list;
    e2b_list_query q = {0};
    e2b_error *err;
    int64_t t0;
    /* 429 with Retry-After is retried and succeeds. */
    fault("{\"kind\":\"429\",\"path\":\"/v2/sandboxes\",\"count\":2,\"retryAfter\":1}");
    t0 = e2b_now_ms();
    err = t_api_list(client, &q, &list);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_MSG(e2b_now_ms() - t0 >= 1900, "no wait for Retry-After");
    e2b_sandbox_list_clear(&list);
    /* 500 is reported with E2B's message. */
    fault("{\"kind\":\"500\",\"path\":\"/v2/sandboxes\"}");
    err = t_api_list(client, &q, &list);
    CHECK(err && err->kind == E2B_ERR_SERVER);
    CHECK_MSG(contains(e2b_error_message(err),
                       "listing sandboxes: E2B server error 500: internal server error (injected"),
              "%s", e2b_error_message(err));
    e2b_error_free(err);
    /* 503 on pause is retried. */
    {
        char *id = create_one("base", NULL);
        fault("{\"kind\":\"503\",\"path\":\"/pause\"}");
        err = t_api_pause(client, id);
        CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
        e2b_error_free(t_api_kill(client, id));
        free(id);
    }
    /* A truncated body is an error. */
    fault("{\"kind\":\"truncate\",\"path\":\"/secrets\",\"afterBytes\":1}");
    {
        e2b_secret_list sl;
        err = t_api_secrets_list(client, &sl);
        CHECK(err != NULL);
        CHECK_MSG(err->kind == E2B_ERR_CONNECTION_LOST || err->kind == E2B_ERR_PROTOCOL, "%s",
                  e2b_error_message(err));
        e2b_error_free(err);
    }
    clear_faults();
}

static void cancel_cb(void *ud)
{
    e2b_api_cancel(ud);
}

typedef struct {
    int done;
    e2b_error *err;
} list_result;

static void on_list(void *ud, e2b_sandbox_list *l, const e2b_error *err)
{
    list_result *r = ud;
    r->done = 1;
    r->err = err ? e2b_error_copy(err) : NULL;
    e2b_sandbox_list_free(l);
}

static void test_slow_response_cancelled(void)
{
    list_result r = {0};
    e2b_list_query q = {0};
    e2b_api_call *call;
    int64_t t0 = e2b_now_ms();
    fault("{\"kind\":\"delay\",\"path\":\"/v2/sandboxes\",\"delayMs\":4000}");
    call = e2b_api_list(client, &q, on_list, &r, NULL);
    CHECK(call != NULL);
    e2b_loop_timer_add(e2b_client_loop(client), 300, cancel_cb, call);
    while (!r.done)
        e2b_loop_run_once(e2b_client_loop(client), 1000);
    CHECK(r.err && r.err->kind == E2B_ERR_CANCELLED);
    CHECK_MSG(e2b_now_ms() - t0 < 2500, "cancel took %lld ms", (long long)(e2b_now_ms() - t0));
    e2b_error_free(r.err);
    clear_faults();
}

static void test_wrong_api_key(void)
{
    e2b_config bad;
    e2b_client *c;
    e2b_error *err = NULL;
    e2b_sandbox_list list;
    e2b_list_query q = {0};
    e2b_config_init(&bad);
    e2b_config_load(&bad, NULL);
    free(bad.api_key);
    bad.api_key = strdup("e2b_wrong_key_9999");
    c = e2b_client_new(NULL, &bad, &err);
    CHECK(c != NULL);
    err = t_api_list(c, &q, &list);
    CHECK(err && err->kind == E2B_ERR_AUTH);
    CHECK_STR_EQ(e2b_error_message(err), "listing sandboxes: E2B rejected the API key (E2B_API_KEY)");
    CHECK_INT_EQ(e2b_error_exit_code(err), 4);
    e2b_error_free(err);
    e2b_client_free(c);
    e2b_config_clear(&bad);
}

static void test_unreachable_api(void)
{
    e2b_config off;
    e2b_client *c;
    e2b_error *err = NULL;
    e2b_sandbox sb;
    e2b_config_init(&off);
    CHECK(e2b_config_set(&off, "api_url", "http://127.0.0.1:1", E2B_SRC_FLAG) == NULL);
    e2b_config_load(&off, NULL);
    c = e2b_client_new(NULL, &off, &err);
    CHECK(c != NULL);
    err = t_api_pause(c, "iabc");
    CHECK(err && err->kind == E2B_ERR_NETWORK);
    CHECK_MSG(contains(e2b_error_message(err), "pausing sandbox iabc: cannot reach 127.0.0.1:1"),
              "%s", e2b_error_message(err));
    e2b_error_free(err);
    err = t_api_get(c, "", &sb);
    CHECK(err && err->kind == E2B_ERR_INVALID);
    e2b_error_free(err);
    e2b_client_free(c);
    e2b_config_clear(&off);
}

int main(void)
{
    e2b_error *err;
    local_url = getenv("CORE_LOCAL_URL");
    e2b_config_init(&cfg);
    err = e2b_config_load(&cfg, NULL);
    if (!err) /* the script checks what reached the log */
        err = e2b_log_open(cfg.log_path);
    if (!err)
        client = e2b_client_new(NULL, &cfg, &err);
    if (err || !local_url) {
        printf("FAIL core_api setup: %s\n", err ? e2b_error_message(err) : "no CORE_LOCAL_URL");
        return 1;
    }
    RUN(test_create_get_classify);
    RUN(test_missing_sandbox);
    RUN(test_pause_connect_kill_lifecycle);
    RUN(test_list_260_sandboxes_across_pages);
    RUN(test_state_and_metadata_filters);
    RUN(test_metrics_logs);
    RUN(test_secrets_crud_and_pages);
    RUN(test_faults);
    RUN(test_slow_response_cancelled);
    RUN(test_wrong_api_key);
    RUN(test_unreachable_api);
    e2b_client_free(client);
    e2b_config_clear(&cfg);
    e2b_log_close();
    return harness_finish();
}
