/* Fuzz target: the Connect envelope decoder (core/e2b/connect_codec.h).
 *
 * Invariants:
 *  - feeding the input whole, split at a data-derived offset, and byte by byte (short inputs)
 *    delivers the same messages and ends with the same error (or none);
 *  - encode -> decode round trip: the input as a payload comes back exactly, once, and a
 *    following {} end-of-stream ends the stream cleanly;
 *  - e2b_connect_parse_end never crashes on any payload. */
#include "core/e2b/connect_codec.h"
#include "tests/fuzz/fuzz_common.h"

#include <string.h>

/* Small enough that the fuzzer reaches the oversize check with short inputs. */
#define MAX_MESSAGE 4096

static int record(void *ud, const uint8_t *payload, size_t len)
{
    fuzz_log *log = ud;
    uint32_t n = (uint32_t)len;
    fuzz_log_put(log, &n, sizeof n);
    fuzz_log_put(log, payload, len);
    return 0;
}

/* Decodes data in pieces ending at cuts[0..ncuts) then size; logs every message and the
 * outcome (error kind and message) into log. */
static void decode(const uint8_t *data, size_t size, const size_t *cuts, size_t ncuts,
                   fuzz_log *log)
{
    e2b_connect_decoder d;
    e2b_connect_decoder_init(&d, MAX_MESSAGE);
    e2b_error *err = NULL;
    size_t at = 0;
    for (size_t i = 0; i <= ncuts && !err; i++) {
        size_t end = i < ncuts ? cuts[i] : size;
        err = e2b_connect_decoder_feed(&d, data + at, end - at, record, log);
        at = end;
    }
    if (err) {
        /* Sticky: a later feed must report the same failure. */
        e2b_error *again = e2b_connect_decoder_feed(&d, (const uint8_t *)"x", 1, record, log);
        FUZZ_CHECK(again && again->kind == err->kind);
        e2b_error_free(again);
    } else {
        err = e2b_connect_decoder_finish(&d);
    }
    const char *outcome = err ? e2b_error_message(err) : "ok";
    fuzz_log_put(log, "|", 1);
    fuzz_log_put(log, outcome, strlen(outcome));
    if (err)
        fuzz_log_put(log, &err->kind, sizeof err->kind);
    e2b_error_free(err);
    e2b_connect_decoder_clear(&d);
}

static void round_trip(const uint8_t *data, size_t size)
{
    uint8_t *env, *end;
    size_t env_len, end_len;
    FUZZ_CHECK(e2b_connect_encode(0, data, size, &env, &env_len) == 0);
    FUZZ_CHECK(env_len == size + 5);
    FUZZ_CHECK(e2b_connect_encode(E2B_CONNECT_FLAG_END_STREAM, "{}", 2, &end, &end_len) == 0);
    e2b_connect_decoder d;
    e2b_connect_decoder_init(&d, size > 2 ? size : 2); /* room for the {} end too */
    fuzz_log got = {0}, want = {0};
    record(&want, data, size);
    e2b_error *err = e2b_connect_decoder_feed(&d, env, env_len, record, &got);
    FUZZ_CHECK(err == NULL);
    FUZZ_CHECK(fuzz_log_equal(&got, &want));
    err = e2b_connect_decoder_feed(&d, end, end_len, record, &got);
    FUZZ_CHECK(err == NULL);
    err = e2b_connect_decoder_finish(&d);
    FUZZ_CHECK(err == NULL);
    FUZZ_CHECK(d.messages == 1);
    e2b_connect_decoder_clear(&d);
    fuzz_log_free(&got);
    fuzz_log_free(&want);
    free(env);
    free(end);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_log whole = {0}, split = {0};
    decode(data, size, NULL, 0, &whole);

    size_t cut = fuzz_split_offset(data, size);
    decode(data, size, &cut, 1, &split);
    FUZZ_CHECK(fuzz_log_equal(&whole, &split));

    if (size <= 256) {
        size_t cuts[256];
        for (size_t i = 0; i < size; i++)
            cuts[i] = i;
        fuzz_log bytewise = {0};
        decode(data, size, cuts, size, &bytewise);
        FUZZ_CHECK(fuzz_log_equal(&whole, &bytewise));
        fuzz_log_free(&bytewise);
    }
    fuzz_log_free(&whole);
    fuzz_log_free(&split);

    round_trip(data, size);
    e2b_error_free(e2b_connect_parse_end(data, size));
    return 0;
}
