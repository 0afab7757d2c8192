#include "core/util/base64.h"
#include "core/e2b/connect_codec.h"
#include "core/e2b/process_event.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>

/* A growing byte buffer for building streams. */
typedef struct {
    uint8_t *p;
    size_t n;
} bytes;

static void put(bytes *b, uint8_t flags, const char *payload)
{
    uint8_t *env;
    size_t len;
    if (e2b_connect_encode(flags, payload, strlen(payload), &env, &len) < 0)
        abort();
    b->p = realloc(b->p, b->n + len);
    memcpy(b->p + b->n, env, len);
    b->n += len;
    free(env);
}

/* Collects the messages a decoder delivers, separated by '|'. */
typedef struct {
    char text[4096];
    size_t n;
    int count;
} collected;

static int collect(void *ud, const uint8_t *payload, size_t len)
{
    collected *c = ud;
    if (c->n + len + 2 > sizeof c->text)
        return 1;
    memcpy(c->text + c->n, payload, len);
    c->n += len;
    c->text[c->n++] = '|';
    c->text[c->n] = '\0';
    c->count++;
    return 0;
}

/* Decodes b in pieces cut at the given offsets (sorted, < b->n). */
static e2b_error *decode_split(const bytes *b, const size_t *cuts, size_t ncuts, collected *c)
{
    e2b_connect_decoder d;
    e2b_error *err = NULL;
    size_t at = 0;
    memset(c, 0, sizeof *c);
    e2b_connect_decoder_init(&d, 0);
    for (size_t i = 0; i <= ncuts && !err; i++) {
        size_t end = i < ncuts ? cuts[i] : b->n;
        err = e2b_connect_decoder_feed(&d, b->p + at, end - at, collect, c);
        at = end;
    }
    if (!err)
        err = e2b_connect_decoder_finish(&d);
    e2b_connect_decoder_clear(&d);
    return err;
}

static bytes sample_stream(void)
{
    bytes b = {0};
    put(&b, 0, "{\"a\":1}");
    put(&b, 0, "");
    put(&b, 0, "{\"event\":{\"keepalive\":{}}}");
    put(&b, E2B_CONNECT_FLAG_END_STREAM, "{}");
    return b;
}

static void test_header_layout(void)
{
    uint8_t *env;
    size_t len;
    const char *msg = "{\"process\":{\"pid\":42}}";
    CHECK_INT_EQ(e2b_connect_encode(0, msg, strlen(msg), &env, &len), 0);
    CHECK_INT_EQ(len, 27);
    CHECK(env[0] == 0 && env[1] == 0 && env[2] == 0 && env[3] == 0 && env[4] == 0x16);
    CHECK(memcmp(env + 5, msg, 22) == 0);
    free(env);
    uint8_t h[5];
    e2b_connect_write_header(h, 2, 0x01020304u);
    CHECK(h[0] == 2 && h[1] == 1 && h[2] == 2 && h[3] == 3 && h[4] == 4);
}

static void test_whole_stream(void)
{
    bytes b = sample_stream();
    collected c;
    e2b_error *err = decode_split(&b, NULL, 0, &c);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(c.count, 3);
    CHECK_STR_EQ(c.text, "{\"a\":1}||{\"event\":{\"keepalive\":{}}}|");
    free(b.p);
}

static void test_split_at_every_offset(void)
{
    bytes b = sample_stream();
    collected whole, c;
    e2b_error *err = decode_split(&b, NULL, 0, &whole);
    CHECK(err == NULL);
    for (size_t i = 1; i < b.n; i++) {
        err = decode_split(&b, &i, 1, &c);
        CHECK_MSG(err == NULL, "split at %zu: %s", i, e2b_error_message(err));
        CHECK_MSG(strcmp(c.text, whole.text) == 0, "split at %zu", i);
        /* And every pair of cuts. */
        for (size_t j = i + 1; j < b.n; j++) {
            size_t cuts[2] = {i, j};
            err = decode_split(&b, cuts, 2, &c);
            CHECK_MSG(err == NULL, "split at %zu,%zu: %s", i, j, e2b_error_message(err));
            CHECK_MSG(strcmp(c.text, whole.text) == 0, "split at %zu,%zu", i, j);
        }
    }
    /* One byte at a time. */
    {
        size_t *cuts = malloc(b.n * sizeof *cuts);
        for (size_t i = 0; i + 1 < b.n; i++)
            cuts[i] = i + 1;
        err = decode_split(&b, cuts, b.n - 1, &c);
        free(cuts);
        CHECK(err == NULL);
        CHECK_STR_EQ(c.text, whole.text);
    }
    free(b.p);
}

static void test_bad_flags(void)
{
    static const uint8_t flags[] = {0x01, 0x04, 0x80, 0x03};
    for (size_t i = 0; i < sizeof flags; i++) {
        bytes b = {0};
        collected c;
        e2b_error *err;
        put(&b, 0, "{}");
        put(&b, flags[i], "{}");
        err = decode_split(&b, NULL, 0, &c);
        CHECK_MSG(err != NULL, "flags 0x%02x accepted", flags[i]);
        CHECK_INT_EQ(err->kind, E2B_ERR_PROTOCOL);
        CHECK(strstr(e2b_error_message(err), flags[i] & 1 ? "compressed" : "bad stream flags"));
        CHECK_INT_EQ(c.count, 1); /* the good message before it was delivered */
        e2b_error_free(err);
        free(b.p);
    }
}

static void test_oversize_length_rejected_before_buffering(void)
{
    uint8_t hdr[5];
    e2b_connect_decoder d;
    e2b_error *err;
    e2b_connect_decoder_init(&d, 1024);
    e2b_connect_write_header(hdr, 0, 0xFFFFFFF0u);
    err = e2b_connect_decoder_feed(&d, hdr, 5, NULL, NULL);
    CHECK(err != NULL);
    CHECK(strstr(e2b_error_message(err), "exceeds the limit of 1024 bytes"));
    CHECK(d.payload_cap == 0); /* nothing was allocated for it */
    e2b_error_free(err);
    /* Sticky: later data reports the same failure. */
    err = e2b_connect_decoder_feed(&d, (const uint8_t *)"x", 1, NULL, NULL);
    CHECK(err && strstr(e2b_error_message(err), "exceeds"));
    e2b_error_free(err);
    err = e2b_connect_decoder_finish(&d);
    CHECK(err && strstr(e2b_error_message(err), "exceeds"));
    e2b_error_free(err);
    e2b_connect_decoder_clear(&d);
    /* Exactly the limit is fine. */
    e2b_connect_decoder_init(&d, 4);
    e2b_connect_write_header(hdr, 0, 4);
    err = e2b_connect_decoder_feed(&d, hdr, 5, NULL, NULL);
    CHECK(err == NULL);
    e2b_connect_decoder_clear(&d);
}

static void test_truncated_stream(void)
{
    bytes b = sample_stream();
    /* Cut the body short at every offset: never a success. */
    for (size_t n = 0; n < b.n; n++) {
        bytes t = {b.p, n};
        collected c;
        e2b_error *err = decode_split(&t, NULL, 0, &c);
        CHECK_MSG(err != NULL, "truncated at %zu accepted", n);
        CHECK_INT_EQ(err->kind, E2B_ERR_PROTOCOL);
        if (n == 0 || n == b.n - 7 /* right before the end envelope */)
            CHECK_MSG(strstr(e2b_error_message(err), "without its end-of-stream"), "%zu: %s", n,
                      e2b_error_message(err));
        e2b_error_free(err);
    }
    {
        bytes t = {b.p, b.n - 3};
        collected c;
        e2b_error *err = decode_split(&t, NULL, 0, &c);
        CHECK(strstr(e2b_error_message(err), "incomplete envelope"));
        e2b_error_free(err);
    }
    free(b.p);
}

static void test_end_stream_error_and_trailing_data(void)
{
    bytes b = {0};
    collected c;
    e2b_error *err;
    put(&b, 0, "{\"x\":1}");
    put(&b, E2B_CONNECT_FLAG_END_STREAM,
        "{\"error\":{\"code\":\"deadline_exceeded\",\"message\":\"took too long\"},"
        "\"metadata\":{\"k\":[\"v\"]}}");
    err = decode_split(&b, NULL, 0, &c);
    CHECK(err != NULL);
    CHECK_INT_EQ(err->kind, E2B_ERR_REMOTE);
    CHECK_STR_EQ(err->e2b_error_code, "deadline_exceeded");
    CHECK_STR_EQ(e2b_error_message(err), "deadline_exceeded: took too long");
    e2b_error_free(err);
    put(&b, 0, "{}");
    err = decode_split(&b, NULL, 0, &c);
    CHECK(err && strstr(e2b_error_message(err), "data after the end"));
    e2b_error_free(err);
    free(b.p);
    b = (bytes){0};
    put(&b, E2B_CONNECT_FLAG_END_STREAM, "not json");
    err = decode_split(&b, NULL, 0, &c);
    CHECK(err && err->kind == E2B_ERR_PROTOCOL);
    e2b_error_free(err);
    free(b.p);
}

static void test_receiver_can_stop(void)
{
    bytes b = sample_stream();
    e2b_connect_decoder d;
    collected c = {0};
    e2b_error *err;
    e2b_connect_decoder_init(&d, 0);
    c.n = sizeof c.text; /* collect() refuses: no room */
    err = e2b_connect_decoder_feed(&d, b.p, b.n, collect, &c);
    CHECK(err && err->kind == E2B_ERR_CANCELLED);
    e2b_error_free(err);
    e2b_connect_decoder_clear(&d);
    free(b.p);
}

static void test_base64(void)
{
    static const char *const enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    const char *plain = "foobar";
    for (size_t i = 0; i < 7; i++) {
        char *e = e2b_base64_encode((const uint8_t *)plain, i);
        uint8_t *d;
        size_t n;
        CHECK_STR_EQ(e, enc[i]);
        CHECK_INT_EQ(e2b_base64_decode(e, strlen(e), &d, &n), 0);
        CHECK_INT_EQ(n, i);
        CHECK(memcmp(d, plain, i) == 0);
        free(e);
        free(d);
    }
    uint8_t all[256], *d;
    size_t n;
    for (int i = 0; i < 256; i++)
        all[i] = (uint8_t)i;
    char *e = e2b_base64_encode(all, 256);
    CHECK_INT_EQ(e2b_base64_decode(e, strlen(e), &d, &n), 0);
    CHECK_INT_EQ(n, 256);
    CHECK(memcmp(d, all, 256) == 0);
    free(d);
    free(e);
    CHECK(e2b_base64_decode("Zm9v!", 5, &d, &n) < 0);
    CHECK(e2b_base64_decode("Z", 1, &d, &n) < 0);
    CHECK(e2b_base64_decode("Zg=", 3, &d, &n) < 0);
    CHECK(e2b_base64_decode("Zm 9v", 5, &d, &n) < 0);
}

/* ---- process streams ---- */

typedef struct {
    char out[256], err[256], order[256];
    size_t on, en;
    uint32_t pid;
    int exit_code, exited;
} proc_seen;

static int on_proc(void *ud, const e2b_process_event *ev)
{
    proc_seen *s = ud;
    strncat(s->order, e2b_process_event_type_name(ev->type), sizeof s->order - strlen(s->order) - 2);
    strcat(s->order, ",");
    if (ev->type == E2B_PROC_START)
        s->pid = ev->pid;
    if (ev->type == E2B_PROC_STDOUT) {
        memcpy(s->out + s->on, ev->data, ev->len);
        s->on += ev->len;
    }
    if (ev->type == E2B_PROC_STDERR) {
        memcpy(s->err + s->en, ev->data, ev->len);
        s->en += ev->len;
    }
    if (ev->type == E2B_PROC_END) {
        s->exit_code = ev->exit_code;
        s->exited = ev->exited;
    }
    return 0;
}

static bytes process_stream_bytes(void)
{
    bytes b = {0};
    put(&b, 0, "{\"event\":{\"start\":{\"pid\":42}}}");
    put(&b, 0, "{\"event\":{\"data\":{\"stdout\":\"aGVsbG8g\"}}}");       /* "hello " */
    put(&b, 0, "{\"event\":{\"data\":{\"stderr\":\"b29wcw==\"}}}");       /* "oops" */
    put(&b, 0, "{\"event\":{\"keepalive\":{}}}");
    put(&b, 0, "{\"event\":{\"somethingNew\":{\"x\":1}},\"extra\":true}"); /* ignored */
    put(&b, 0, "{\"event\":{\"data\":{\"stdout\":\"d29ybGQK\"}}}");       /* "world\n" */
    put(&b, 0, "{\"event\":{\"end\":{\"exitCode\":3,\"exited\":true,\"status\":\"exit status 3\","
               "\"error\":\"exit status 3\"}}}");
    put(&b, E2B_CONNECT_FLAG_END_STREAM, "{}");
    return b;
}

static e2b_error *run_process(const bytes *b, size_t cut, proc_seen *s)
{
    e2b_process_stream ps;
    e2b_error *err;
    memset(s, 0, sizeof *s);
    e2b_process_stream_init(&ps, on_proc, s);
    err = e2b_process_stream_feed(&ps, b->p, cut);
    if (!err)
        err = e2b_process_stream_feed(&ps, b->p + cut, b->n - cut);
    if (!err)
        err = e2b_process_stream_finish(&ps);
    e2b_process_stream_clear(&ps);
    return err;
}

static void test_process_stream_every_split(void)
{
    bytes b = process_stream_bytes();
    for (size_t cut = 0; cut <= b.n; cut++) {
        proc_seen s;
        e2b_error *err = run_process(&b, cut, &s);
        CHECK_MSG(err == NULL, "cut %zu: %s", cut, e2b_error_message(err));
        CHECK_STR_EQ(s.order, "start,stdout,stderr,keepalive,stdout,end,");
        CHECK_INT_EQ(s.pid, 42);
        CHECK_INT_EQ(s.on, 12);
        CHECK(memcmp(s.out, "hello world\n", 12) == 0);
        CHECK(s.en == 4 && memcmp(s.err, "oops", 4) == 0);
        CHECK_INT_EQ(s.exit_code, 3);
        CHECK_INT_EQ(s.exited, 1);
    }
    free(b.p);
}

static void test_process_stream_errors(void)
{
    static const char *const bad[][2] = {
        {"{\"event\":{\"data\":{\"stdout\":\"aGVsbG8g\"}}}", "did not begin with a start"},
        {"{\"event\":{\"start\":{\"pid\":\"x\"}}}", "start without a valid pid"},
        {"{\"nope\":1}", "no \"event\" object"},
        {"[]", "not a JSON object"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bytes b = {0};
        proc_seen s;
        e2b_error *err;
        put(&b, 0, bad[i][0]);
        put(&b, E2B_CONNECT_FLAG_END_STREAM, "{}");
        err = run_process(&b, 0, &s);
        CHECK_MSG(err && strstr(e2b_error_message(err), bad[i][1]), "case %zu: %s", i,
                  err ? e2b_error_message(err) : "accepted");
        CHECK_INT_EQ(err->kind, E2B_ERR_PROTOCOL);
        e2b_error_free(err);
        free(b.p);
    }
    {
        bytes b = {0};
        proc_seen s;
        e2b_error *err;
        put(&b, 0, "{\"event\":{\"start\":{\"pid\":7}}}");
        put(&b, 0, "{\"event\":{\"data\":{\"stdout\":\"!!!\"}}}");
        err = run_process(&b, 3, &s);
        CHECK(err && strstr(e2b_error_message(err), "not valid base64"));
        e2b_error_free(err);
        free(b.p);
    }
}

static void test_process_end_defaults(void)
{
    e2b_process_event ev;
    const char *j = "{\"event\":{\"end\":{\"status\":\"signal: killed\"}}}";
    CHECK(e2b_process_event_parse((const uint8_t *)j, strlen(j), &ev) == NULL);
    CHECK_INT_EQ(ev.type, E2B_PROC_END);
    CHECK_INT_EQ(ev.exit_code, 0);
    CHECK_INT_EQ(ev.exited, 0);
    CHECK_STR_EQ(ev.status, "signal: killed");
    CHECK(ev.error == NULL);
    e2b_process_event_clear(&ev);
}

int main(void)
{
    RUN(test_header_layout);
    RUN(test_whole_stream);
    RUN(test_split_at_every_offset);
    RUN(test_bad_flags);
    RUN(test_oversize_length_rejected_before_buffering);
    RUN(test_truncated_stream);
    RUN(test_end_stream_error_and_trailing_data);
    RUN(test_receiver_can_stop);
    RUN(test_base64);
    RUN(test_process_stream_every_split);
    RUN(test_process_stream_errors);
    RUN(test_process_end_defaults);
    return harness_finish();
}
