/* The OpenCode event stream (e2b_oc_events, core/agent/opencode.h): one long GET whose
 * body goes through the SSE parser (core/agent/sse.h) and the event mapper. */
#include "core/agent/opencode_internal.h"

#include "core/agent/sse.h"
#include "core/net/http.h"
#include "core/util/str.h"

#include <stdlib.h>
#include <string.h>

struct e2b_oc_stream {
    e2b_oc_client *c;
    e2b_http_request *req;
    e2b_sse sse;
    e2b_oc_event_fn on_event;
    e2b_oc_end_fn on_end;
    void *ud;
    bool closed;
};

static int on_sse(void *ud, const e2b_sse_event *sev)
{
    e2b_oc_stream *s = ud;
    if (s->closed)
        return 1;
    e2b_oc_event ev;
    e2b_oc_event_scratch scratch;
    if (e2b_oc_event_parse(s->c->api, sev->data, sev->data_len, &ev, &scratch) == 0)
        s->on_event(s->ud, &ev);
    e2b_oc_event_scratch_clear(&scratch);
    return s->closed ? 1 : 0;
}

static e2b_error *on_body(void *ud, const char *data, size_t len)
{
    e2b_oc_stream *s = ud;
    int rc = e2b_sse_feed(&s->sse, data, len);
    if (rc == -1)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory reading the agent's events");
    return NULL;
}

static void on_done(void *ud, const e2b_http_response *resp, const e2b_error *herr)
{
    e2b_oc_stream *s = ud;
    s->req = NULL;
    e2b_error *err = NULL;
    if (s->closed)
        err = e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    else if (herr)
        err = e2b_error_copy(herr);
    else if (resp->status == 401)
        err = e2b_error_new(E2B_ERR_AUTH, "the agent's server refused the box's password (401)");
    else if (resp->status < 200 || resp->status > 299)
        err = e2b_http_status_error(resp, "the agent's server has no event stream here");
    else if (!resp->content_type || !strstr(resp->content_type, "event-stream"))
        err = e2b_error_new(E2B_ERR_PROTOCOL, "the agent's server answered the event stream with "
                                              "something else (is the opencode setting right?)");
    if (err && err->kind != E2B_ERR_CANCELLED)
        err = e2b_error_set_action(err, "following the agent's events");
    if (!s->closed)
        e2b_sse_finish(&s->sse);
    s->on_end(s->ud, err);
    e2b_error_free(err);
    e2b_sse_clear(&s->sse);
    free(s);
}

e2b_oc_stream *e2b_oc_events(e2b_oc_client *c, e2b_oc_event_fn on_event, e2b_oc_end_fn on_end,
                             void *ud, e2b_error **err)
{
    e2b_oc_stream *s = calloc(1, sizeof *s);
    const char *path = c->api == 1 ? "/event" : "/api/event";
    char *url = e2b_strfmt("%s%s", c->base_url, path);
    if (!s || !url) {
        free(s);
        free(url);
        if (err)
            *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    s->c = c;
    s->on_event = on_event;
    s->on_end = on_end;
    s->ud = ud;
    e2b_sse_init(&s->sse, E2B_SSE_LINE_MAX, E2B_SSE_EVENT_MAX, on_sse, s);
    const char *hdrs[8];
    oc_headers(c, "Accept: text/event-stream", hdrs, 8);
    e2b_http_options o = {
        .method = "GET",
        .url = url,
        .headers = hdrs,
        .write_body = on_body,
        .write_ud = s,
        .connect_timeout_ms = 10000,
        .low_speed_time_s = 90, /* the servers' heartbeats come every few seconds */
        .log_path = path,
    };
    e2b_error *e = NULL;
    s->req = e2b_http_start(c->loop, &o, on_done, s, &e);
    free(url);
    if (!s->req) {
        e2b_sse_clear(&s->sse);
        free(s);
        if (err)
            *err = e;
        else
            e2b_error_free(e);
        return NULL;
    }
    return s;
}

void e2b_oc_stream_close(e2b_oc_stream *s)
{
    if (!s || s->closed)
        return;
    s->closed = true;
    if (s->req)
        e2b_http_cancel(s->req);
}
