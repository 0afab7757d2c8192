/* The incremental SSE parser (core/agent/sse.h). */
#include "core/agent/sse.h"

#include <stdlib.h>
#include <string.h>

void e2b_sse_init(e2b_sse *p, size_t line_max, size_t event_max, e2b_sse_fn fn, void *ud)
{
    memset(p, 0, sizeof *p);
    p->fn = fn;
    p->ud = ud;
    p->line_max = line_max ? line_max : E2B_SSE_LINE_MAX;
    p->event_max = event_max ? event_max : E2B_SSE_EVENT_MAX;
    p->retry_ms = -1;
}

void e2b_sse_clear(e2b_sse *p)
{
    e2b_buf_clear(&p->line);
    e2b_buf_clear(&p->data);
    e2b_buf_clear(&p->type);
    e2b_buf_clear(&p->id);
}

static void reset_event(e2b_sse *p)
{
    p->data.len = 0;
    if (p->data.data)
        p->data.data[0] = 0;
    p->type.len = 0;
    if (p->type.data)
        p->type.data[0] = 0;
    p->have_data = false;
    p->event_dropped = false;
}

/* A blank line: dispatch the event when it has data. */
static int dispatch(e2b_sse *p)
{
    int rc = 0;
    if (p->have_data && !p->event_dropped) {
        e2b_sse_event ev = {
            .type = p->type.len ? p->type.data : "message",
            .data = p->data.data ? p->data.data : "",
            .data_len = p->data.len,
            .id = p->id.data ? p->id.data : "",
        };
        p->events++;
        rc = p->fn ? p->fn(p->ud, &ev) : 0;
    }
    reset_event(p);
    /* give back what one large event made the buffers grow to */
    if (p->data.cap > 64u * 1024)
        e2b_buf_clear(&p->data);
    return rc;
}

static int set_buf(e2b_buf *b, const char *v, size_t n)
{
    b->len = 0;
    if (b->data)
        b->data[0] = 0;
    return e2b_buf_add(b, v, n);
}

/* One complete line (without its end). */
static int process_line(e2b_sse *p, const char *line, size_t len)
{
    if (len == 0)
        return dispatch(p);
    if (line[0] == ':') {
        p->comments++;
        return 0;
    }
    if (p->event_dropped)
        return 0;
    const char *colon = memchr(line, ':', len);
    size_t flen = colon ? (size_t)(colon - line) : len;
    const char *v = colon ? colon + 1 : line + len;
    size_t vlen = colon ? len - flen - 1 : 0;
    if (vlen && v[0] == ' ') {
        v++;
        vlen--;
    }
#define FIELD(name) (flen == sizeof name - 1 && !memcmp(line, name, flen))
    if (FIELD("data")) {
        size_t need = p->data.len + (p->have_data ? 1 : 0) + vlen;
        if (need > p->event_max) {
            p->event_dropped = true;
            p->dropped++;
            p->data.len = 0;
            return 0;
        }
        if ((p->have_data && e2b_buf_add(&p->data, "\n", 1)) || e2b_buf_add(&p->data, v, vlen))
            return -1;
        p->have_data = true;
    } else if (FIELD("event")) {
        if (set_buf(&p->type, v, vlen > 256 ? 256 : vlen))
            return -1;
    } else if (FIELD("id")) {
        if (!memchr(v, 0, vlen) && set_buf(&p->id, v, vlen > 256 ? 256 : vlen))
            return -1;
    } else if (FIELD("retry")) {
        long ms = 0;
        size_t i = 0;
        for (; i < vlen && v[i] >= '0' && v[i] <= '9' && ms < 100000000; i++)
            ms = ms * 10 + (v[i] - '0');
        if (vlen && i == vlen)
            p->retry_ms = ms;
    }
#undef FIELD
    return 0;
}

/* The end of the current line. */
static int end_line(e2b_sse *p)
{
    int rc = 0;
    if (p->line_too_long) {
        /* the event it belonged to is incomplete: drop it whole */
        p->line_too_long = false;
        p->event_dropped = true;
        p->have_data = true; /* so that its blank line resets rather than dispatches */
        p->dropped++;
    } else {
        rc = process_line(p, p->line.data ? p->line.data : "", p->line.len);
    }
    p->line.len = 0;
    if (p->line.cap > 64u * 1024)
        e2b_buf_clear(&p->line);
    else if (p->line.data)
        p->line.data[0] = 0;
    return rc;
}

int e2b_sse_feed(e2b_sse *p, const void *data, size_t len)
{
    if (p->failed)
        return -1;
    const char *s = data;
    size_t i = 0;
    while (!p->bom_done && i < len) {
        static const unsigned char bom[3] = {0xEF, 0xBB, 0xBF};
        if ((unsigned char)s[i] == bom[p->bom_seen]) {
            p->bom_seen++;
            i++;
            if (p->bom_seen == 3)
                p->bom_done = true;
            continue;
        }
        p->bom_done = true;
        /* bytes that began like a BOM but were not one are text */
        if (p->bom_seen && e2b_buf_add(&p->line, bom, p->bom_seen)) {
            p->failed = true;
            return -1;
        }
    }
    while (i < len) {
        char c = s[i];
        if (p->cr_pending) {
            p->cr_pending = false;
            if (c == '\n') {
                i++;
                continue;
            }
        }
        if (c == '\n' || c == '\r') {
            p->cr_pending = c == '\r';
            i++;
            int rc = end_line(p);
            if (rc) {
                if (rc == -1)
                    p->failed = true;
                return rc;
            }
            continue;
        }
        /* a run of ordinary bytes */
        size_t j = i;
        while (j < len && s[j] != '\n' && s[j] != '\r')
            j++;
        size_t n = j - i;
        if (!p->line_too_long) {
            if (p->line.len + n > p->line_max) {
                p->line_too_long = true;
                e2b_buf_clear(&p->line); /* give the memory back */
            } else if (e2b_buf_add(&p->line, s + i, n)) {
                p->failed = true;
                return -1;
            }
        }
        i = j;
    }
    return 0;
}

void e2b_sse_finish(e2b_sse *p)
{
    /* a partial last line ends the stream: it may complete fields, but an event without its
     * blank line is never dispatched */
    if (!p->failed && (p->line.len || p->line_too_long)) {
        if (p->line_too_long)
            p->line_too_long = false;
        else
            (void)process_line(p, p->line.data, p->line.len);
    }
    p->line.len = 0;
    reset_event(p);
}
