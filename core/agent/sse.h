/* A pure, incremental parser of server-sent events (the WHATWG "event stream" format), for
 * the OpenCode servers' event streams. No I/O: bytes go in as they arrive, events come out.
 *
 *   e2b_sse p;
 *   e2b_sse_init(&p, E2B_SSE_LINE_MAX, E2B_SSE_EVENT_MAX, on_event, ctx);
 *   rc = e2b_sse_feed(&p, chunk, n);   // any split: one byte at a time gives the same events
 *   ...
 *   e2b_sse_finish(&p);                // end of stream: an unterminated event is dropped
 *   e2b_sse_clear(&p);
 *
 * Lines end in LF, CRLF or CR (a CR at the end of one chunk and an LF at the start of the
 * next are one line end). A leading UTF-8 BOM is skipped. "data:" lines are joined with
 * '\n'; "event:" sets the type, "id:" the last event id (not with a NUL), "retry:" the
 * reconnection delay; lines starting with ':' are comments (heartbeats: counted); unknown
 * fields are ignored. A blank line dispatches the event when it has data.
 *
 * Bounded: the stream is untrusted. A line longer than line_max is dropped whole, and so is
 * the event it belongs to; an event whose data would pass event_max is dropped whole; both
 * are counted in `dropped`. Memory never passes line_max + event_max plus small fields. */
#ifndef E2B_SSE_H
#define E2B_SSE_H

#include "core/util/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Default bounds (core/util/limits.h keeps the policy; these are its SSE caps). */
#define E2B_SSE_LINE_MAX (128u * 1024u)
#define E2B_SSE_EVENT_MAX (256u * 1024u)

typedef struct e2b_sse_event {
    const char *type; /* "message" when no event: field was given */
    const char *data; /* NUL-terminated; data_len bytes (may hold NULs) */
    size_t data_len;
    const char *id;   /* the last event id ("" none) */
} e2b_sse_event;

/* Called for each dispatched event (borrowed: valid during the call). Return 0 to go on, or
 * any other value to stop: e2b_sse_feed then returns it at once. */
typedef int (*e2b_sse_fn)(void *ud, const e2b_sse_event *ev);

typedef struct e2b_sse {
    e2b_sse_fn fn;
    void *ud;
    size_t line_max, event_max;
    e2b_buf line;          /* the line being read */
    e2b_buf data, type, id;
    bool have_data;        /* a data: line was seen in this event */
    bool line_too_long;    /* skipping the rest of an overlong line */
    bool event_dropped;    /* skipping the rest of an oversize event */
    bool cr_pending;       /* the last byte was a CR: a following LF belongs to it */
    bool bom_done;         /* past the first bytes (a BOM is skipped once) */
    size_t bom_seen;
    long retry_ms;         /* the last retry: value, -1 none */
    uint64_t events;       /* dispatched */
    uint64_t comments;     /* comment lines (heartbeats) */
    uint64_t dropped;      /* overlong lines plus oversize events dropped */
    bool failed;           /* out of memory: feed returns -1 from then on */
} e2b_sse;

void e2b_sse_init(e2b_sse *p, size_t line_max, size_t event_max, e2b_sse_fn fn, void *ud);
/* Parses len bytes. Returns 0, the callback's non-zero value (parsing stopped there; the
 * rest of this chunk is not read), or -1 when out of memory. */
int e2b_sse_feed(e2b_sse *p, const void *data, size_t len);
/* The stream ended: a partial line is taken as ended (a final event without its blank line
 * is dropped, as the format says). */
void e2b_sse_finish(e2b_sse *p);
/* Frees the buffers (p may be reused after e2b_sse_init). */
void e2b_sse_clear(e2b_sse *p);

#endif
