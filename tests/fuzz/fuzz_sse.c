/* Fuzz target: the SSE parser (core/agent/sse.h) and the OpenCode event mapper
 * (e2b_oc_event_parse, core/agent/opencode.h) behind it.
 *
 * The input is an event stream, fed whole, split at a data-derived offset, and one byte at a
 * time: all three feeds must deliver the same events. Every event respects the bounds (data
 * within event_max, no CR or LF other than the '\n' that joins data lines... lines are split
 * on them) and each event's data goes through the mapper of both APIs, whose strings must be
 * safe to draw (no C0 control but '\n', no ESC, no bidi override). Small bounds are used so
 * that the overlong-line and oversize-event paths are reached. */
#include "core/agent/opencode.h"
#include "core/agent/sse.h"
#include "tests/fuzz/fuzz_common.h"

#include <string.h>

#define LINE_MAX_F 512
#define EVENT_MAX_F 1024

static void check_text(const char *s)
{
    if (!s)
        return;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        FUZZ_CHECK(*p >= 0x20 || *p == '\n');
        FUZZ_CHECK(*p != 0x7f);
        /* U+202E (e2 80 ae) and the other overrides/isolates are replaced */
        if (p[0] == 0xe2 && p[1] == 0x80)
            FUZZ_CHECK(p[2] < 0xaa || p[2] > 0xae);
    }
}

static void map(const e2b_sse_event *ev)
{
    for (int api = 1; api <= 2; api++) {
        e2b_oc_event oe;
        e2b_oc_event_scratch s;
        if (e2b_oc_event_parse(api, ev->data, ev->data_len, &oe, &s) == 0) {
            check_text(oe.type);
            check_text(oe.session_id);
            check_text(oe.key);
            check_text(oe.text);
            check_text(oe.tool);
            check_text(oe.state);
            if (oe.request) {
                check_text(oe.request->summary);
                check_text(oe.request->detail);
                FUZZ_CHECK(oe.request->id && *oe.request->id);
            }
            for (size_t i = 0; i < oe.ntodos; i++)
                check_text(oe.todos[i].content);
            if (oe.text)
                FUZZ_CHECK(strlen(oe.text) <= E2B_AGENT_TAIL_MAX * 3 + 8);
        }
        e2b_oc_event_scratch_clear(&s);
    }
}

static int record(void *ud, const e2b_sse_event *ev)
{
    fuzz_log *log = ud;
    FUZZ_CHECK(ev->data_len <= EVENT_MAX_F);
    FUZZ_CHECK(ev->data[ev->data_len] == 0);
    FUZZ_CHECK(!memchr(ev->data, '\r', ev->data_len));
    fuzz_log_put(log, ev->type, strlen(ev->type) + 1);
    fuzz_log_put(log, ev->id, strlen(ev->id) + 1);
    fuzz_log_put(log, &ev->data_len, sizeof ev->data_len);
    fuzz_log_put(log, ev->data, ev->data_len);
    if (log->n < 64 * 1024) /* the mapper once per event is enough: whole feed only */
        map(ev);
    return 0;
}

static int record_quiet(void *ud, const e2b_sse_event *ev)
{
    fuzz_log *log = ud;
    fuzz_log_put(log, ev->type, strlen(ev->type) + 1);
    fuzz_log_put(log, ev->id, strlen(ev->id) + 1);
    fuzz_log_put(log, &ev->data_len, sizeof ev->data_len);
    fuzz_log_put(log, ev->data, ev->data_len);
    return 0;
}

static void feed(const uint8_t *data, size_t size, size_t step, e2b_sse_fn fn, fuzz_log *log)
{
    e2b_sse p;
    e2b_sse_init(&p, LINE_MAX_F, EVENT_MAX_F, fn, log);
    if (step == 0) {
        FUZZ_CHECK(e2b_sse_feed(&p, data, size) == 0);
    } else if (step == (size_t)-1) {
        size_t cut = fuzz_split_offset(data, size);
        FUZZ_CHECK(e2b_sse_feed(&p, data, cut) == 0);
        FUZZ_CHECK(e2b_sse_feed(&p, data + cut, size - cut) == 0);
    } else {
        for (size_t i = 0; i < size; i++)
            FUZZ_CHECK(e2b_sse_feed(&p, data + i, 1) == 0);
    }
    e2b_sse_finish(&p);
    fuzz_log_put(log, &p.events, sizeof p.events);
    fuzz_log_put(log, &p.comments, sizeof p.comments);
    fuzz_log_put(log, &p.dropped, sizeof p.dropped);
    fuzz_log_put(log, &p.retry_ms, sizeof p.retry_ms);
    FUZZ_CHECK(p.line.cap <= 64u * 1024 + LINE_MAX_F + 64 || p.line.cap <= 2 * LINE_MAX_F + 64);
    e2b_sse_clear(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_log whole = {0}, split = {0}, bytes = {0};
    feed(data, size, 0, record, &whole);
    feed(data, size, (size_t)-1, record_quiet, &split);
    if (size <= 4096)
        feed(data, size, 1, record_quiet, &bytes);
    FUZZ_CHECK(fuzz_log_equal(&whole, &split));
    if (size <= 4096)
        FUZZ_CHECK(fuzz_log_equal(&whole, &bytes));
    fuzz_log_free(&whole);
    fuzz_log_free(&split);
    fuzz_log_free(&bytes);
    return 0;
}
