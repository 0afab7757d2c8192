/* core/e2b/envd.h against tests/e2b-local (started by core_envd_test.sh): files (multipart,
 * octet-stream, gzip, 50 MB round trip), processes (output, exit codes, 10 MB of output,
 * stdin, tags, list, connect, signals), the filesystem service, and a dropped stream. */
#include "core/e2b/api.h"
#include "core/e2b/envd.h"
#include "tests/lib/harness.h"
#include "tests/lib/sync_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static e2b_config cfg;
static e2b_client *client;
static e2b_envd *ev;
static e2b_sandbox sandbox;
static const char *local_url;

static int contains(const char *hay, const char *needle)
{
    return hay && needle && strstr(hay, needle) != NULL;
}

static void fault(const char *spec)
{
    char *u;
    e2b_http_response r;
    if (asprintf(&u, "%s/_e2b-local/faults", local_url) < 0)
        abort();
    e2b_http_options o = {.method = "POST", .url = u, .body = spec, .body_len = strlen(spec),
                          .timeout_ms = 10000};
    e2b_error_free(t_http_perform(NULL, &o, &r));
    e2b_http_response_clear(&r);
    free(u);
}

/* ---- pattern sources and sinks ---- */

typedef struct {
    int64_t n, pos;
    unsigned seed;
} pattern;

static unsigned char byte_at(unsigned seed, int64_t i)
{
    return (unsigned char)((i * 131 + (i >> 9) * 7 + seed) & 255);
}

static long pattern_read(void *ud, char *buf, size_t size, e2b_error **err)
{
    pattern *p = ud;
    size_t k = 0;
    (void)err;
    while (k < size && p->pos < p->n) {
        buf[k++] = (char)byte_at(p->seed, p->pos);
        p->pos++;
    }
    return (long)k;
}

typedef struct {
    int64_t got;
    int64_t first_bad;
    unsigned seed;
} checker;

static e2b_error *pattern_check(void *ud, const char *data, size_t len)
{
    checker *c = ud;
    for (size_t i = 0; i < len; i++, c->got++)
        if (c->first_bad < 0 && (unsigned char)data[i] != byte_at(c->seed, c->got))
            c->first_bad = c->got;
    return NULL;
}

typedef struct {
    char buf[4096];
    size_t len;
} small_sink;

static e2b_error *keep_small(void *ud, const char *data, size_t len)
{
    small_sink *s = ud;
    if (s->len + len >= sizeof s->buf)
        return e2b_error_new(E2B_ERR_IO, "sink full");
    memcpy(s->buf + s->len, data, len);
    s->len += len;
    s->buf[s->len] = '\0';
    return NULL;
}

/* ---- files ---- */

static void test_multipart_upload_and_download(void)
{
    e2b_upload up = {.path = "/tmp/core/hello.txt", .data = "hello, box\n", .len = 11};
    small_sink s = {0};
    e2b_error *err = t_envd_upload(ev, &up);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    err = t_envd_download(ev, "/tmp/core/hello.txt", keep_small, &s, 0);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_STR_EQ(s.buf, "hello, box\n");
}

static void test_50mb_round_trip_byte_exact(void)
{
    const int64_t n = 50LL * 1024 * 1024;
    pattern src = {n, 0, 17};
    checker chk = {0, -1, 17};
    e2b_upload up = {.path = "/tmp/core/big.bin", .read = pattern_read, .read_ud = &src,
                     .size = n, .octet_stream = 1};
    int64_t t0 = e2b_now_ms(), t1;
    e2b_error *err = t_envd_upload(ev, &up);
    t1 = e2b_now_ms();
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(src.pos, n);
    err = t_envd_download(ev, "/tmp/core/big.bin", pattern_check, &chk, 0);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(chk.got, n);
    CHECK_MSG(chk.first_bad < 0, "first differing byte at %lld", (long long)chk.first_bad);
    printf("# 50 MiB upload %lld ms, download %lld ms (ASan build)\n", (long long)(t1 - t0),
           (long long)(e2b_now_ms() - t1));
}

static void test_streamed_multipart_and_gzip_uploads(void)
{
    const int64_t n = 3 * 1024 * 1024 + 7;
    pattern src = {n, 0, 5};
    checker chk = {0, -1, 5};
    e2b_upload up = {.path = "/tmp/core/multi.bin", .read = pattern_read, .read_ud = &src,
                     .size = n};
    e2b_error *err = t_envd_upload(ev, &up);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    err = t_envd_download(ev, "/tmp/core/multi.bin", pattern_check, &chk, 1);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(chk.got, n);
    CHECK(chk.first_bad < 0);
    /* Compressed on the fly from a stream, and from memory. */
    src = (pattern){n, 0, 9};
    chk = (checker){0, -1, 9};
    up = (e2b_upload){.path = "/tmp/core/gz.bin", .read = pattern_read, .read_ud = &src,
                      .size = -1, .octet_stream = 1, .gzip = 1};
    err = t_envd_upload(ev, &up);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    err = t_envd_download(ev, "/tmp/core/gz.bin", pattern_check, &chk, 0);
    CHECK(err == NULL);
    CHECK_INT_EQ(chk.got, n);
    CHECK(chk.first_bad < 0);
    {
        small_sink s = {0};
        up = (e2b_upload){.path = "/tmp/core/gzmem.txt", .data = "squeeze me", .len = 10,
                          .octet_stream = 1, .gzip = 1};
        err = t_envd_upload(ev, &up);
        CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
        err = t_envd_download(ev, "/tmp/core/gzmem.txt", keep_small, &s, 0);
        CHECK(err == NULL);
        CHECK_STR_EQ(s.buf, "squeeze me");
    }
}

static void test_download_missing_file(void)
{
    small_sink s = {0};
    e2b_error *err = t_envd_download(ev, "/tmp/core/nope.txt", keep_small, &s, 0);
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    CHECK_MSG(contains(e2b_error_message(err), "no file /tmp/core/nope.txt in sandbox"), "%s",
              e2b_error_message(err));
    CHECK_INT_EQ(s.len, 0);
    e2b_error_free(err);
}

/* ---- processes ---- */

static e2b_process_spec shell(const char *script)
{
    static const char *args[4];
    args[0] = "-c";
    args[1] = script;
    args[2] = NULL;
    return (e2b_process_spec){.cmd = "/bin/sh", .args = args};
}

static void test_run_output_and_exit_code(void)
{
    e2b_process_spec spec = shell("echo out-line; echo err-line >&2; exit 3");
    t_process_result r;
    e2b_error *err = t_envd_run(ev, &spec, 4096, &r);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK(r.pid > 0);
    CHECK_STR_EQ(r.out, "out-line\n");
    CHECK_STR_EQ(r.err, "err-line\n");
    CHECK_INT_EQ(r.exit_code, 3);
    t_process_result_clear(&r);
}

static void test_env_and_cwd(void)
{
    e2b_metadata env = {0};
    e2b_process_spec spec = shell("printf '%s|' \"$GREETING\"; pwd");
    t_process_result r;
    e2b_error *err;
    e2b_metadata_set(&env, "GREETING", "hi there");
    spec.envs = &env;
    spec.cwd = "/tmp";
    err = t_envd_run(ev, &spec, 4096, &r);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_STR_EQ(r.out, "hi there|/tmp\n");
    t_process_result_clear(&r);
    e2b_metadata_clear(&env);
}

typedef struct {
    int64_t bytes;
    int bad;
    int ends;
} counter;

static int count_output(void *ud, const e2b_process_event *e)
{
    counter *c = ud;
    if (e->type == E2B_PROC_STDOUT) {
        for (size_t i = 0; i < e->len; i++, c->bytes++)
            if (e->data[i] != (c->bytes % 10 == 9 ? '\n' : "abcdefghi"[c->bytes % 10]))
                c->bad = 1;
    }
    if (e->type == E2B_PROC_END)
        c->ends++;
    return 0;
}

typedef struct {
    int done;
    e2b_error *err;
} done_state;

static void on_end(void *ud, const e2b_error *err)
{
    done_state *d = ud;
    d->done = 1;
    d->err = err ? e2b_error_copy(err) : NULL;
}

/* Both callbacks get the same ud: a counter followed by a done_state. */
typedef struct {
    counter c;
    done_state d;
} stream_state;

static int ss_event(void *ud, const e2b_process_event *e)
{
    return count_output(&((stream_state *)ud)->c, e);
}

static void ss_end(void *ud, const e2b_error *err)
{
    on_end(&((stream_state *)ud)->d, err);
}

static void test_10mb_output_streamed(void)
{
    e2b_process_spec spec = shell("yes abcdefghi | head -c 10485760");
    stream_state ss = {{0}, {0}};
    e2b_loop *loop = e2b_client_loop(client);
    int64_t t0 = e2b_now_ms();
    CHECK(e2b_envd_process_start(ev, &spec, ss_event, ss_end, &ss, NULL) != NULL);
    while (!ss.d.done)
        e2b_loop_run_once(loop, 1000);
    CHECK_MSG(ss.d.err == NULL, "%s", e2b_error_message(ss.d.err));
    CHECK_INT_EQ(ss.c.bytes, 10485760);
    CHECK(!ss.c.bad);
    CHECK_INT_EQ(ss.c.ends, 1);
    printf("# 10 MiB of process output streamed in %lld ms (ASan build)\n",
           (long long)(e2b_now_ms() - t0));
}

typedef struct {
    uint32_t pid;
    char out[256];
    size_t len;
    int ended, exit_code;
    done_state d;
} proc_watch;

static int watch_event(void *ud, const e2b_process_event *e)
{
    proc_watch *w = ud;
    if (e->type == E2B_PROC_START)
        w->pid = e->pid;
    if (e->type == E2B_PROC_STDOUT && w->len + e->len < sizeof w->out) {
        memcpy(w->out + w->len, e->data, e->len);
        w->len += e->len;
    }
    if (e->type == E2B_PROC_END) {
        w->ended = 1;
        w->exit_code = e->exit_code;
    }
    return 0;
}

static void watch_end(void *ud, const e2b_error *err)
{
    on_end(&((proc_watch *)ud)->d, err);
}

static void test_stdin_input_and_close(void)
{
    static const char *args[] = {NULL};
    e2b_process_spec spec = {.cmd = "/bin/cat", .args = args, .stdin_open = 1};
    proc_watch w = {0};
    e2b_loop *loop = e2b_client_loop(client);
    e2b_error *err;
    CHECK(e2b_envd_process_start(ev, &spec, watch_event, watch_end, &w, NULL) != NULL);
    while (!w.pid && !w.d.done)
        e2b_loop_run_once(loop, 1000);
    CHECK(w.pid > 0);
    err = t_envd_send_input(ev, w.pid, "typed\n", 6);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    err = t_envd_close_stdin(ev, w.pid);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    while (!w.d.done)
        e2b_loop_run_once(loop, 1000);
    CHECK(w.d.err == NULL);
    CHECK(w.ended);
    CHECK_INT_EQ(w.len, 6);
    CHECK(memcmp(w.out, "typed\n", 6) == 0);
}

static void test_tag_list_connect_signal(void)
{
    e2b_process_spec spec = shell("echo started; sleep 60");
    proc_watch w = {0}, w2 = {0};
    e2b_loop *loop = e2b_client_loop(client);
    e2b_http_request *req;
    e2b_process_list pl;
    e2b_error *err;
    int found = 0;
    spec.tag = "core-test-server";
    req = e2b_envd_process_start(ev, &spec, watch_event, watch_end, &w, NULL);
    CHECK(req != NULL);
    while (!w.pid && !w.d.done)
        e2b_loop_run_once(loop, 1000);
    CHECK(w.pid > 0);
    /* Detach: the process keeps running. */
    e2b_http_cancel(req);
    while (!w.d.done)
        e2b_loop_run_once(loop, 1000);
    CHECK(w.d.err && w.d.err->kind == E2B_ERR_CANCELLED);
    e2b_error_free(w.d.err);
    err = t_envd_process_list(ev, &pl);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    for (size_t i = 0; i < pl.count; i++)
        if (pl.items[i].pid == w.pid && pl.items[i].tag &&
            strcmp(pl.items[i].tag, "core-test-server") == 0)
            found = 1;
    e2b_process_list_clear(&pl);
    CHECK(found);
    /* Re-attach by tag, then kill it: the attached stream sees the end. */
    CHECK(e2b_envd_process_connect(ev, 0, "core-test-server", watch_event, watch_end, &w2, NULL));
    while (!w2.pid && !w2.d.done)
        e2b_loop_run_once(loop, 1000);
    CHECK_INT_EQ(w2.pid, w.pid);
    err = t_envd_send_signal(ev, w.pid, "SIGKILL");
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    while (!w2.d.done)
        e2b_loop_run_once(loop, 1000);
    CHECK_MSG(w2.d.err == NULL, "%s", e2b_error_message(w2.d.err));
    CHECK(w2.ended);
    CHECK(w2.exit_code != 0);
    /* Signalling it again: envd says not_found. */
    err = t_envd_send_signal(ev, w.pid, "SIGKILL");
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    CHECK_STR_EQ(err->e2b_error_code, "not_found");
    e2b_error_free(err);
}

static void test_dropped_process_stream(void)
{
    e2b_process_spec spec = shell("yes dropped | head -c 2000000");
    stream_state ss = {{0}, {0}};
    e2b_loop *loop = e2b_client_loop(client);
    fault("{\"kind\":\"drop\",\"path\":\"/process.Process/Start\",\"afterBytes\":5000}");
    CHECK(e2b_envd_process_start(ev, &spec, ss_event, ss_end, &ss, NULL) != NULL);
    while (!ss.d.done)
        e2b_loop_run_once(loop, 1000);
    CHECK(ss.d.err != NULL);
    CHECK_MSG(ss.d.err->kind == E2B_ERR_CONNECTION_LOST || ss.d.err->kind == E2B_ERR_PROTOCOL,
              "%s", e2b_error_message(ss.d.err));
    CHECK(contains(e2b_error_message(ss.d.err), "running /bin/sh in sandbox"));
    e2b_error_free(ss.d.err);
}

/* ---- filesystem ---- */

static void test_filesystem_calls(void)
{
    e2b_entry e;
    e2b_entry_list el;
    e2b_error *err;
    int created = -1, found = 0;
    e2b_upload up = {.path = "/tmp/core/dir/sub/file.txt", .data = "12345", .len = 5};
    err = t_envd_make_dir(ev, "/tmp/core/dir/sub", &created);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(created, 1);
    err = t_envd_make_dir(ev, "/tmp/core/dir/sub", &created);
    CHECK(err == NULL);
    CHECK_INT_EQ(created, 0);
    err = t_envd_stat(ev, "/tmp/core/dir/sub", &e);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(e.type, E2B_FILE_DIRECTORY);
    CHECK_STR_EQ(e.name, "sub");
    e2b_entry_clear(&e);
    CHECK(t_envd_upload(ev, &up) == NULL);
    err = t_envd_list_dir(ev, "/tmp/core/dir", 2, &el);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    for (size_t i = 0; i < el.count; i++)
        if (strcmp(el.items[i].path, "/tmp/core/dir/sub/file.txt") == 0 &&
            el.items[i].type == E2B_FILE_FILE && el.items[i].size == 5)
            found = 1;
    e2b_entry_list_clear(&el);
    CHECK(found);
    err = t_envd_remove(ev, "/tmp/core/dir");
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    err = t_envd_stat(ev, "/tmp/core/dir/sub/file.txt", &e);
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    e2b_error_free(err);
    err = t_envd_list_dir(ev, "/tmp/core/nothing-here", 1, &el);
    CHECK(err && err->kind == E2B_ERR_NOT_FOUND);
    e2b_error_free(err);
}

static void test_wrong_access_token(void)
{
    e2b_sandbox copy;
    e2b_envd *bad;
    e2b_error *err = NULL;
    e2b_entry e;
    CHECK(e2b_sandbox_copy(&sandbox, &copy) == 0);
    free(copy.envd_access_token);
    copy.envd_access_token = strdup("wrong-token");
    bad = e2b_envd_new(e2b_client_loop(client), &cfg, &copy, NULL, &err);
    e2b_sandbox_clear(&copy);
    CHECK(bad != NULL);
    err = t_envd_stat(bad, "/tmp", &e);
    CHECK(err != NULL);
    CHECK_INT_EQ(err->http_status, 401);
    CHECK_INT_EQ(err->kind, E2B_ERR_AUTH);
    CHECK_MSG(contains(e2b_error_message(err), "refused its access token"), "%s",
              e2b_error_message(err));
    CHECK(!contains(e2b_error_message(err), "E2B_API_KEY"));
    e2b_error_free(err);
    e2b_envd_free(bad);
}

static void test_paused_sandbox_is_not_running(void)
{
    e2b_entry e;
    e2b_sandbox sb;
    e2b_error *err = t_api_pause(client, sandbox.sandbox_id);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    err = t_envd_stat(ev, "/tmp", &e);
    CHECK(err != NULL);
    CHECK_INT_EQ(err->http_status, 502);
    CHECK_INT_EQ(err->kind, E2B_ERR_NOT_FOUND);
    CHECK_MSG(contains(e2b_error_message(err), "the sandbox is not running"), "%s",
              e2b_error_message(err));
    e2b_error_free(err);
    /* Connect resumes it; envd answers again. */
    err = t_api_connect(client, sandbox.sandbox_id, 900, &sb, NULL);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    e2b_sandbox_clear(&sb);
    err = t_envd_stat(ev, "/tmp", &e);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    e2b_entry_clear(&e);
}

int main(void)
{
    e2b_error *err;
    e2b_create_params p = {.template_id = "base", .timeout_s = 900, .allow_internet_access = -1};
    local_url = getenv("CORE_LOCAL_URL");
    e2b_config_init(&cfg);
    err = e2b_config_load(&cfg, NULL);
    if (!err)
        client = e2b_client_new(NULL, &cfg, &err);
    if (!err)
        err = t_api_create(client, &p, &sandbox);
    if (!err)
        ev = e2b_envd_new(e2b_client_loop(client), &cfg, &sandbox, NULL, &err);
    if (err || !local_url) {
        printf("FAIL core_envd setup: %s\n", err ? e2b_error_message(err) : "no CORE_LOCAL_URL");
        return 1;
    }
    RUN(test_multipart_upload_and_download);
    RUN(test_50mb_round_trip_byte_exact);
    RUN(test_streamed_multipart_and_gzip_uploads);
    RUN(test_download_missing_file);
    RUN(test_run_output_and_exit_code);
    RUN(test_env_and_cwd);
    RUN(test_10mb_output_streamed);
    RUN(test_stdin_input_and_close);
    RUN(test_tag_list_connect_signal);
    RUN(test_dropped_process_stream);
    RUN(test_filesystem_calls);
    RUN(test_wrong_access_token);
    RUN(test_paused_sandbox_is_not_running);
    e2b_envd_free(ev);
    e2b_error_free(t_api_kill(client, sandbox.sandbox_id));
    e2b_sandbox_clear(&sandbox);
    e2b_client_free(client);
    e2b_config_clear(&cfg);
    return harness_finish();
}
