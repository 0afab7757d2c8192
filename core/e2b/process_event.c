#include "core/e2b/process_event.h"

#include "core/e2b/json_read.h"
#include "core/util/base64.h"
#include "core/util/sanitize.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static e2b_error *bad(const char *what)
{
    return e2b_error_new(E2B_ERR_PROTOCOL, "process event: %s", what);
}

/* A bytes field: base64 text to data/len. */
static e2b_error *take_bytes(json_t *v, e2b_process_event *out)
{
    if (!json_is_string(v))
        return bad("output is not a base64 string");
    if (e2b_base64_decode(json_string_value(v), json_string_length(v), &out->data, &out->len) < 0)
        return bad("output is not valid base64");
    return NULL;
}

/* A text the box's envd sends for people (the end event's status and error): kept to its
 * first TEXT_MAX bytes and sanitised here, so that no caller can draw it raw. */
enum { TEXT_MAX = 256 };
static int display_field(json_t *obj, const char *key, char **out)
{
    json_t *v = e2b_json_field(obj, key);
    size_t n;
    *out = NULL;
    if (!v)
        return 0;
    if (!json_is_string(v))
        return -1;
    n = json_string_length(v);
    *out = e2b_sanitize_display(json_string_value(v), n < TEXT_MAX ? n : TEXT_MAX, 0);
    return *out ? 0 : -1;
}

e2b_error *e2b_process_event_parse(const uint8_t *json, size_t len, e2b_process_event *out)
{
    json_t *root, *ev, *v;
    e2b_error *err = NULL;
    memset(out, 0, sizeof *out);
    root = json_loadb((const char *)json, len, 0, NULL);
    if (!json_is_object(root)) {
        json_decref(root);
        return bad("not a JSON object");
    }
    ev = json_object_get(root, "event");
    if (!json_is_object(ev)) {
        json_decref(root);
        return bad("no \"event\" object");
    }
    if ((v = json_object_get(ev, "start"))) {
        int pid;
        e2b_error *fe = NULL; /* the reader's words; the event's own are clearer here */
        out->type = E2B_PROC_START;
        if (!json_is_object(v) || e2b_json_int(v, "start", "pid", 0, &pid, &fe) < 0 || pid < 0)
            err = bad("start without a valid pid");
        else
            out->pid = (uint32_t)pid;
        e2b_error_free(fe);
    } else if ((v = json_object_get(ev, "data"))) {
        json_t *b;
        if (!json_is_object(v)) {
            err = bad("data is not an object");
        } else if ((b = json_object_get(v, "stdout"))) {
            out->type = E2B_PROC_STDOUT;
            err = take_bytes(b, out);
        } else if ((b = json_object_get(v, "stderr"))) {
            out->type = E2B_PROC_STDERR;
            err = take_bytes(b, out);
        } else if ((b = json_object_get(v, "pty"))) {
            out->type = E2B_PROC_PTY;
            err = take_bytes(b, out);
        } else {
            out->type = E2B_PROC_UNKNOWN; /* an empty data event: nothing to pass on */
        }
    } else if ((v = json_object_get(ev, "end"))) {
        int exited = -1;
        e2b_error *fe = NULL;
        out->type = E2B_PROC_END;
        if (!json_is_object(v) || e2b_json_int(v, "end", "exitCode", 0, &out->exit_code, &fe) < 0 ||
            e2b_json_bool(v, "end", "exited", &exited, &fe) < 0 ||
            display_field(v, "status", &out->status) < 0 ||
            display_field(v, "error", &out->error) < 0)
            err = bad("malformed end event");
        else
            out->exited = exited == 1;
        e2b_error_free(fe);
    } else if (json_object_get(ev, "keepalive")) {
        out->type = E2B_PROC_KEEPALIVE;
    } else {
        out->type = E2B_PROC_UNKNOWN;
    }
    json_decref(root);
    if (err)
        e2b_process_event_clear(out);
    return err;
}

void e2b_process_event_clear(e2b_process_event *ev)
{
    if (!ev)
        return;
    free(ev->data);
    free(ev->status);
    free(ev->error);
    memset(ev, 0, sizeof *ev);
}

const char *e2b_process_event_type_name(e2b_process_event_type t)
{
    switch (t) {
    case E2B_PROC_START: return "start";
    case E2B_PROC_STDOUT: return "stdout";
    case E2B_PROC_STDERR: return "stderr";
    case E2B_PROC_PTY: return "pty";
    case E2B_PROC_END: return "end";
    case E2B_PROC_KEEPALIVE: return "keepalive";
    default: return "unknown";
    }
}

void e2b_process_stream_init(e2b_process_stream *ps, e2b_process_event_fn on_event, void *ud)
{
    memset(ps, 0, sizeof *ps);
    e2b_connect_decoder_init(&ps->decoder, 0);
    ps->on_event = on_event;
    ps->ud = ud;
}

static int on_message(void *ud, const uint8_t *payload, size_t len)
{
    e2b_process_stream *ps = ud;
    e2b_process_event ev;
    int stop = 0;
    e2b_error *err = e2b_process_event_parse(payload, len, &ev);
    if (err) {
        ps->parse_error = err;
        return 1;
    }
    if (!ps->started && ev.type != E2B_PROC_START) {
        e2b_process_event_clear(&ev);
        ps->parse_error = bad("the stream did not begin with a start event");
        return 1;
    }
    if (ev.type == E2B_PROC_START) {
        ps->started = 1;
        ps->pid = ev.pid;
    } else if (ev.type == E2B_PROC_END) {
        ps->ended = 1;
        ps->exit_code = ev.exit_code;
    }
    if (ev.type != E2B_PROC_UNKNOWN && ps->on_event)
        stop = ps->on_event(ps->ud, &ev);
    e2b_process_event_clear(&ev);
    return stop;
}

e2b_error *e2b_process_stream_feed(e2b_process_stream *ps, const uint8_t *data, size_t len)
{
    e2b_error *err;
    if (ps->parse_error)
        return e2b_error_copy(ps->parse_error);
    err = e2b_connect_decoder_feed(&ps->decoder, data, len, on_message, ps);
    if (err && ps->parse_error) {
        /* The decoder reports "stopped"; the real reason is the parse error. */
        e2b_error_free(err);
        return e2b_error_copy(ps->parse_error);
    }
    return err;
}

e2b_error *e2b_process_stream_finish(const e2b_process_stream *ps)
{
    if (ps->parse_error)
        return e2b_error_copy(ps->parse_error);
    return e2b_connect_decoder_finish(&ps->decoder);
}

void e2b_process_stream_clear(e2b_process_stream *ps)
{
    if (!ps)
        return;
    e2b_connect_decoder_clear(&ps->decoder);
    e2b_error_free(ps->parse_error);
    memset(ps, 0, sizeof *ps);
}
