/* Fuzz target: envd process events (core/e2b/process_event.h).
 *
 * The input is used twice: as one message's JSON (e2b_process_event_parse), and as a whole
 * response body for a process stream, fed whole and split at a data-derived offset; both
 * feeds must deliver the same events and end with the same outcome. */
#include "core/e2b/process_event.h"
#include "tests/fuzz/fuzz_common.h"

#include <string.h>

static void put_str(fuzz_log *log, const char *s)
{
    if (s)
        fuzz_log_put(log, s, strlen(s) + 1);
    else
        fuzz_log_put(log, "\xff", 1);
}

static int record(void *ud, const e2b_process_event *ev)
{
    fuzz_log *log = ud;
    FUZZ_CHECK(ev->data != NULL || ev->len == 0);
    fuzz_log_put(log, &ev->type, sizeof ev->type);
    fuzz_log_put(log, &ev->pid, sizeof ev->pid);
    fuzz_log_put(log, &ev->len, sizeof ev->len);
    if (ev->len)
        fuzz_log_put(log, ev->data, ev->len);
    fuzz_log_put(log, &ev->exit_code, sizeof ev->exit_code);
    fuzz_log_put(log, &ev->exited, sizeof ev->exited);
    put_str(log, ev->status);
    put_str(log, ev->error);
    FUZZ_CHECK(e2b_process_event_type_name(ev->type) != NULL);
    return 0;
}

static void stream(const uint8_t *data, size_t size, size_t cut, fuzz_log *log)
{
    e2b_process_stream ps;
    e2b_process_stream_init(&ps, record, log);
    e2b_error *err = e2b_process_stream_feed(&ps, data, cut);
    if (!err)
        err = e2b_process_stream_feed(&ps, data + cut, size - cut);
    if (!err)
        err = e2b_process_stream_finish(&ps);
    const char *outcome = err ? e2b_error_message(err) : "ok";
    put_str(log, outcome);
    if (err)
        fuzz_log_put(log, &err->kind, sizeof err->kind);
    e2b_error_free(err);
    e2b_process_stream_clear(&ps);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    e2b_process_event ev;
    memset(&ev, 0xA5, sizeof ev); /* "*out is overwritten": garbage in it must not matter */
    e2b_error *err = e2b_process_event_parse(data, size, &ev);
    if (err) {
        FUZZ_CHECK(err->kind == E2B_ERR_PROTOCOL);
        e2b_error_free(err);
    } else {
        FUZZ_CHECK(ev.data != NULL || ev.len == 0);
        e2b_process_event_clear(&ev);
    }

    fuzz_log whole = {0}, split = {0};
    stream(data, size, size, &whole);
    stream(data, size, fuzz_split_offset(data, size), &split);
    FUZZ_CHECK(fuzz_log_equal(&whole, &split));
    fuzz_log_free(&whole);
    fuzz_log_free(&split);
    return 0;
}
