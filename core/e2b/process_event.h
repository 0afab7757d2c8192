/* envd process events (reference §2.6) decoded from the JSON of Connect stream messages,
 * and a process stream that puts the envelope decoder and the event decoder together.
 *
 *   e2b_process_stream ps;
 *   e2b_process_stream_init(&ps, on_event, ud);
 *   ... for every chunk of the response body: err = e2b_process_stream_feed(&ps, p, n);
 *   ... at the end of the body:               err = e2b_process_stream_finish(&ps);
 *   e2b_process_stream_clear(&ps);
 *
 * Pure: no I/O, no global state. */
#ifndef E2B_PROCESS_EVENT_H
#define E2B_PROCESS_EVENT_H

#include "core/e2b/connect_codec.h"
#include "core/util/error.h"

#include <stddef.h>
#include <stdint.h>

typedef enum e2b_process_event_type {
    E2B_PROC_UNKNOWN = 0, /* an event this client does not know (ignored) */
    E2B_PROC_START,       /* pid set */
    E2B_PROC_STDOUT,      /* data/len set */
    E2B_PROC_STDERR,      /* data/len set */
    E2B_PROC_PTY,         /* data/len set */
    E2B_PROC_END,         /* exit_code, exited, status, error set */
    E2B_PROC_KEEPALIVE,
} e2b_process_event_type;

typedef struct e2b_process_event {
    e2b_process_event_type type;
    uint32_t pid;
    uint8_t *data; /* decoded bytes; may split UTF-8 sequences */
    size_t len;
    int exit_code; /* absent = 0; -1 when killed by a signal */
    int exited;    /* 1 for a normal exit */
    char *status;  /* "exit status 1", "signal: killed"; may be NULL (sanitised; its first 256 bytes) */
    char *error;   /* may be NULL (sanitised; its first 256 bytes) */
} e2b_process_event;

/* Parses one message {"event":{...}}. *out is overwritten. Returns NULL or an
 * E2B_ERR_PROTOCOL error naming what is wrong. */
e2b_error *e2b_process_event_parse(const uint8_t *json, size_t len, e2b_process_event *out);
void e2b_process_event_clear(e2b_process_event *ev);
const char *e2b_process_event_type_name(e2b_process_event_type t);

/* Receives every event of a stream in order; ev and its data are valid only during the call.
 * Return 0 to go on, non-zero to stop (feed then returns an E2B_ERR_CANCELLED error). */
typedef int (*e2b_process_event_fn)(void *ud, const e2b_process_event *ev);

typedef struct e2b_process_stream {
    e2b_connect_decoder decoder;
    e2b_process_event_fn on_event;
    void *ud;
    int started;    /* the start event was seen */
    int ended;      /* the end event was seen */
    uint32_t pid;   /* from the start event */
    int exit_code;  /* from the end event */
    e2b_error *parse_error;
} e2b_process_stream;

void e2b_process_stream_init(e2b_process_stream *ps, e2b_process_event_fn on_event, void *ud);
/* Feeds body bytes; errors as e2b_connect_decoder_feed, plus a malformed event or a first
 * event that is not "start". Caller frees the error. */
e2b_error *e2b_process_stream_feed(e2b_process_stream *ps, const uint8_t *data, size_t len);
/* The body ended: NULL when the stream ended cleanly (whatever the exit code), else why not. */
e2b_error *e2b_process_stream_finish(const e2b_process_stream *ps);
void e2b_process_stream_clear(e2b_process_stream *ps);

#endif
