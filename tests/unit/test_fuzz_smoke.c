/* Random and mutated inputs through the pure parsers (envelope codec, process events, config
 * text, JSON mappers, RFC 3339, base64): they must answer with an error or a result, never
 * crash or leak (ASan/UBSan and valgrind watch this). Deterministic: a fixed seed. */
#include "core/util/base64.h"
#include "core/e2b/config.h"
#include "core/e2b/connect_codec.h"
#include "core/e2b/objects.h"
#include "core/e2b/process_event.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)rng;
}

static int ignore(void *ud, const e2b_process_event *ev)
{
    (void)ud;
    (void)ev;
    return 0;
}

/* A valid process stream to mutate. */
static size_t seed_stream(uint8_t *buf, size_t cap)
{
    static const char *const msgs[] = {
        "{\"event\":{\"start\":{\"pid\":7}}}",
        "{\"event\":{\"data\":{\"stdout\":\"aGk=\"}}}",
        "{\"event\":{\"end\":{\"exitCode\":1,\"exited\":true}}}",
    };
    size_t n = 0;
    for (size_t i = 0; i < 3; i++) {
        size_t l = strlen(msgs[i]);
        if (n + 5 + l > cap)
            break;
        e2b_connect_write_header(buf + n, 0, (uint32_t)l);
        memcpy(buf + n + 5, msgs[i], l);
        n += 5 + l;
    }
    e2b_connect_write_header(buf + n, 2, 2);
    memcpy(buf + n + 5, "{}", 2);
    return n + 7;
}

static void test_process_stream_survives_mutations(void)
{
    uint8_t base[512], buf[512];
    size_t n = seed_stream(base, sizeof base), ok = 0;
    for (int round = 0; round < 20000; round++) {
        e2b_process_stream ps;
        e2b_error *err;
        size_t len = n, cut;
        memcpy(buf, base, n);
        for (int k = (int)(next() % 4); k >= 0; k--) {
            switch (next() % 3) {
            case 0: buf[next() % len] = (uint8_t)next(); break;
            case 1: len = next() % (len + 1); break;
            default: buf[next() % len] ^= (uint8_t)(1u << (next() % 8)); break;
            }
            if (!len)
                break;
        }
        cut = len ? next() % (len + 1) : 0;
        e2b_process_stream_init(&ps, ignore, NULL);
        err = e2b_process_stream_feed(&ps, buf, cut);
        if (!err)
            err = e2b_process_stream_feed(&ps, buf + cut, len - cut);
        if (!err)
            err = e2b_process_stream_finish(&ps);
        ok += err == NULL;
        e2b_error_free(err);
        e2b_process_stream_clear(&ps);
    }
    /* Some mutations keep the stream valid (e.g. a changed output byte), most do not. */
    CHECK(ok > 0 && ok < 20000);
}

static void test_random_bytes_everywhere(void)
{
    uint8_t buf[300];
    for (int round = 0; round < 5000; round++) {
        size_t len = next() % sizeof buf;
        e2b_connect_decoder d;
        e2b_process_event ev;
        e2b_config cfg;
        uint8_t *out;
        size_t out_len;
        time_t t;
        char text[301];
        json_t *j;
        static const char alphabet[] = " ={}[]\",:#\nabcdefhilmnoprstuy01259.-+TZ";
        for (size_t i = 0; i < len; i++)
            buf[i] = round % 2 ? (uint8_t)next()
                               : (uint8_t)alphabet[next() % (sizeof alphabet - 1)];
        e2b_connect_decoder_init(&d, 64);
        e2b_error_free(e2b_connect_decoder_feed(&d, buf, len, NULL, NULL));
        e2b_error_free(e2b_connect_decoder_finish(&d));
        e2b_connect_decoder_clear(&d);
        e2b_error_free(e2b_process_event_parse(buf, len, &ev));
        e2b_process_event_clear(&ev);
        e2b_config_init(&cfg);
        e2b_error_free(e2b_config_parse_text(&cfg, (const char *)buf, len, "fuzz"));
        e2b_config_clear(&cfg);
        if (e2b_base64_decode((const char *)buf, len, &out, &out_len) == 0)
            free(out);
        memcpy(text, buf, len);
        text[len] = '\0';
        e2b_parse_rfc3339(text, &t, NULL);
        j = json_loadb((const char *)buf, len, 0, NULL);
        if (j) {
            e2b_sandbox sb;
            e2b_secret s;
            e2b_metric_list ml;
            e2b_log_list ll;
            e2b_sandbox_list sl = {0};
            e2b_error *err = e2b_sandbox_from_json(j, &sb);
            if (!err)
                e2b_sandbox_clear(&sb);
            e2b_error_free(err);
            err = e2b_secret_from_json(j, &s);
            if (!err)
                e2b_secret_clear(&s);
            e2b_error_free(err);
            e2b_error_free(e2b_metric_list_from_bulk_json(j, &ml));
            e2b_metric_list_clear(&ml);
            e2b_error_free(e2b_log_list_from_json(j, &ll));
            e2b_log_list_clear(&ll);
            e2b_error_free(e2b_sandbox_list_append_json(j, &sl));
            e2b_sandbox_list_clear(&sl);
            json_decref(j);
        }
    }
    CHECK(1); /* reaching here without a sanitizer report is the assertion */
}

static void test_mutated_sandbox_json(void)
{
    const char *seed = "[{\"sandboxID\":\"i1\",\"templateID\":\"t\",\"cpuCount\":2,\"memoryMB\":512,"
                       "\"startedAt\":\"2025-01-02T03:04:05Z\",\"state\":\"running\","
                       "\"metadata\":{\"e2b-tui\":\"box\"}}]";
    char buf[256];
    size_t n = strlen(seed);
    int parsed = 0, mapped = 0;
    for (int round = 0; round < 20000; round++) {
        json_t *j;
        memcpy(buf, seed, n);
        buf[next() % n] = " \"0123456789abcdefnulltrue{}[],:"[next() % 32];
        j = json_loadb(buf, n, 0, NULL);
        if (j) {
            e2b_sandbox_list sl = {0};
            e2b_error *err = e2b_sandbox_list_append_json(j, &sl);
            parsed++;
            mapped += err == NULL;
            if (!err)
                CHECK(sl.count == 1 && sl.items[0].sandbox_id != NULL);
            e2b_error_free(err);
            e2b_sandbox_list_clear(&sl);
            json_decref(j);
        }
    }
    CHECK(parsed > 0 && mapped > 0 && mapped < parsed);
}

int main(void)
{
    RUN(test_process_stream_survives_mutations);
    RUN(test_random_bytes_everywhere);
    RUN(test_mutated_sandbox_json);
    return harness_finish();
}
