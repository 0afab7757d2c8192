/* core/agent's logic on what the real OpenCode server sent: event streams, REST snapshots
 * and last messages recorded from 1.18.33 (both APIs, tests/fixtures/agent/README.md says
 * how) are replayed through the watch's own bookkeeping (watch_apply_event,
 * watch_apply_snapshot, watch_derive), and the end of each turn is read over HTTP from a
 * loopback server of this test that answers with the recorded message. Checked: the state
 * a person sees at each step (waiting beats working, retrying with the provider's words,
 * done / interrupted / failed with the provider's words), the reply body on the wire for
 * each reply (y once, Y always, n reject) of both APIs, and the --status --json document
 * against its schema (tests/fixtures/agent/status.schema.json). */
#include "core/agent/agent.h"
#include "core/agent/agent_json.h"
#include "core/agent/opencode.h"
#include "core/agent/opencode_internal.h"
#include "core/agent/sse.h"
#include "core/agent/watch_internal.h"
#include "tests/lib/harness.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- fixtures ---- */

static char *fixture(const char *scenario, const char *file)
{
    const char *root = getenv("E2B_TUI_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/agent/%s/%s", root ? root : ".", scenario, file);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    char chunk[8192];
    size_t n;
    while (m && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(f);
    if (m)
        fclose(m);
    return buf;
}

/* ---- a loopback HTTP server: answers every request, keeps what it was sent ---- */

struct server {
    int fd, port, api;
    pthread_t thread;
    char *message;          /* the body for .../message (the recorded last message) */
    bool message_fails;     /* .../message answers 500 */
    pthread_mutex_t mu;
    char last_request[512]; /* "POST /path" */
    char last_body[512];
    int requests;
};

static void serve_one(struct server *s, int c)
{
    char req[16384];
    size_t got = 0;
    char *end = NULL;
    while (got < sizeof req - 1 && !end) {
        ssize_t n = read(c, req + got, sizeof req - 1 - got);
        if (n <= 0)
            return;
        got += (size_t)n;
        req[got] = 0;
        end = strstr(req, "\r\n\r\n");
    }
    if (!end)
        return;
    long clen = 0;
    const char *cl = strcasestr(req, "\r\ncontent-length:");
    if (cl)
        clen = strtol(cl + 17, NULL, 10);
    size_t head = (size_t)(end + 4 - req);
    while ((long)(got - head) < clen && got < sizeof req - 1) {
        ssize_t n = read(c, req + got, sizeof req - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    req[got] = 0;
    pthread_mutex_lock(&s->mu);
    const char *sp = strchr(req, ' '), *sp2 = sp ? strchr(sp + 1, ' ') : NULL;
    snprintf(s->last_request, sizeof s->last_request, "%.*s", sp2 ? (int)(sp2 - req) : 0, req);
    snprintf(s->last_body, sizeof s->last_body, "%s", req + head);
    s->requests++;
    bool message = strstr(s->last_request, "/message") != NULL;
    pthread_mutex_unlock(&s->mu);
    char hdr[256];
    const char *body = message ? (s->message ? s->message : "[]") : s->api == 1 ? "true" : "";
    int status = message || s->api == 1 ? 200 : 204;
    if (message && s->message_fails)
        body = "{\"error\":\"down\"}", status = 500;
    int hl = snprintf(hdr, sizeof hdr, "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                      "Content-Length: %zu\r\nConnection: close\r\n\r\n", status, strlen(body));
    if (write(c, hdr, (size_t)hl) < 0 || write(c, body, strlen(body)) < 0)
        return;
}

static void *server_main(void *ud)
{
    struct server *s = ud;
    for (;;) {
        int c = accept(s->fd, NULL, NULL);
        if (c < 0)
            return NULL;
        serve_one(s, c);
        close(c);
    }
}

static int server_start(struct server *s, int api, char *message)
{
    memset(s, 0, sizeof *s);
    s->api = api;
    s->message = message;
    pthread_mutex_init(&s->mu, NULL);
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof a) || listen(s->fd, 8) ||
        getsockname(s->fd, (struct sockaddr *)&a, &al))
        return -1;
    s->port = ntohs(a.sin_port);
    return pthread_create(&s->thread, NULL, server_main, s);
}

static void server_stop(struct server *s)
{
    shutdown(s->fd, SHUT_RDWR); /* accept returns */
    pthread_join(s->thread, NULL);
    close(s->fd);
    pthread_mutex_destroy(&s->mu);
    free(s->message);
}

/* ---- the replay ---- */

struct replay {
    e2b_loop *loop;
    e2b_agent_watch *w;
    struct server srv;
    const char *scenario;
    char states[512]; /* the states seen, in order, each once in a row: "working|waiting for you|…" */
    e2b_agent_state last;
    bool waiting_applied;
    bool waiting_while_busy; /* a snapshot said "running" and a request pending: the state */
    e2b_agent_state at_waiting;
};

static void note_state(struct replay *r)
{
    e2b_agent_state s = r->w->st.state;
    if (s == r->last)
        return;
    r->last = s;
    size_t n = strlen(r->states);
    snprintf(r->states + n, sizeof r->states - n, "%s%s", n ? "|" : "", e2b_agent_state_name(s));
}

/* The recorded REST answers (NULL: none) as the watch's snapshot. */
static int apply_snapshot(struct replay *r, const char *active_file, const char *perms_file)
{
    int api = r->w->st.api;
    e2b_agent_watch *w = r->w;
    watch_snapshot_clear(w);
    char *active = active_file ? fixture(r->scenario, active_file) : NULL;
    char *perms = perms_file ? fixture(r->scenario, perms_file) : NULL;
    int rc = 0;
    json_error_t je;
    if (active) {
        json_t *root = json_loads(active, 0, &je);
        e2b_oc_result res = {0};
        rc |= root && oc_parse_active(api, root, &res) == 0 ? 0 : -1;
        w->snap.active = res.active;
        w->snap.nactive = res.nactive;
        res.active = NULL;
        res.nactive = 0;
        e2b_oc_result_clear(&res);
        json_decref(root);
    }
    if (perms) {
        json_t *root = json_loads(perms, 0, &je);
        e2b_oc_result res = {0};
        rc |= root && oc_parse_requests(api, false, root, &res) == 0 ? 0 : -1;
        w->snap.perms = res.requests;
        w->snap.nperms = res.nrequests;
        res.requests = NULL;
        res.nrequests = 0;
        e2b_oc_result_clear(&res);
        json_decref(root);
    }
    free(active);
    free(perms);
    watch_apply_snapshot(w);
    watch_changed(w);
    note_state(r);
    return rc;
}

static int on_frame(void *ud, const e2b_sse_event *sev)
{
    struct replay *r = ud;
    e2b_oc_event ev;
    e2b_oc_event_scratch scratch;
    if (e2b_oc_event_parse(r->w->st.api, sev->data, strlen(sev->data), &ev, &scratch) == 0) {
        watch_apply_event(r->w, &ev);
        watch_changed(r->w);
        note_state(r);
        /* the snapshot a watch takes when a request is asked (recorded at that moment) */
        if (ev.kind == E2B_OC_EV_ASKED && !r->waiting_applied) {
            r->waiting_applied = true;
            char *snap = fixture(r->scenario, "perm.json");
            if (snap) {
                free(snap);
                apply_snapshot(r, r->w->st.api == 2 ? "active_waiting.json" : "status_waiting.json",
                               "perm.json");
                r->at_waiting = r->w->st.state;
                r->waiting_while_busy = r->w->nactive > 0;
            }
        }
    }
    e2b_oc_event_scratch_clear(&scratch);
    return 0;
}

static void replay_free(struct replay *r)
{
    if (!r->w)
        return;
    e2b_agent_watch *w = r->w;
    if (w->end_call)
        e2b_oc_cancel(w->end_call);
    for (int i = 0; i < 50 && w->outstanding; i++)
        e2b_loop_run_once(r->loop, 20);
    watch_end_free(w);
    watch_state_free(w);
    watch_snapshot_clear(w);
    e2b_agent_status_clear(&w->st);
    e2b_oc_free(w->client);
    free(w);
    r->w = NULL;
    e2b_loop_free(r->loop);
    server_stop(&r->srv);
}

/* Replays scenario (API api): the whole stream, then the snapshot the watch takes when the
 * stream goes quiet (active_end.json, no request), then the end read (from the loopback
 * server). 0, or -1 when a fixture is missing or malformed. */
static int replay_as(struct replay *r, int api, const char *scenario, bool message_fails)
{
    memset(r, 0, sizeof *r);
    r->scenario = scenario;
    r->last = E2B_AGENT_UNKNOWN;
    char *events = fixture(scenario, "events.sse");
    if (!events || server_start(&r->srv, api, fixture(scenario, "last.json"))) {
        free(events);
        return -1;
    }
    r->srv.message_fails = message_fails;
    r->loop = e2b_loop_new();
    r->w = calloc(1, sizeof *r->w);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", r->srv.port);
    e2b_oc_config oc = {.api = api, .base_url = url, .timeout_ms = 5000};
    e2b_error *err = NULL;
    r->w->loop = r->loop;
    r->w->st.api = api;
    r->w->client = e2b_oc_new(r->loop, &oc, &err);
    e2b_error_free(err);
    if (!r->loop || !r->w->client) {
        free(events);
        return -1;
    }
    /* the server answered, the stream is up and a first snapshot found nothing running */
    r->w->reached = true;
    r->w->synced = true;
    r->w->st.stream_up = true;
    e2b_sse p;
    e2b_sse_init(&p, 0, 0, on_frame, r);
    e2b_sse_feed(&p, events, strlen(events));
    e2b_sse_finish(&p);
    e2b_sse_clear(&p);
    free(events);
    char *end = fixture(scenario, api == 2 ? "active_end.json" : "status_end.json");
    free(end);
    apply_snapshot(r, end ? (api == 2 ? "active_end.json" : "status_end.json") : NULL, NULL);
    for (int i = 0; i < 250 && (r->w->end_want || r->w->end_call); i++) {
        e2b_loop_run_once(r->loop, 20);
        note_state(r);
    }
    return 0;
}

static int replay(struct replay *r, int api, const char *scenario)
{
    return replay_as(r, api, scenario, false);
}

/* ---- the states ---- */

/* A todo list, a bash call that asks permission, "once", done (both APIs). */
static void test_permission_once(void)
{
    for (int api = 2; api >= 1; api--) {
        struct replay r;
        CHECK(replay(&r, api, api == 2 ? "v2_permission" : "v1_permission") == 0);
        const e2b_agent_status *st = &r.w->st;
        /* the server still said it runs while the bash call waited: waiting beats working */
        CHECK(r.waiting_while_busy);
        CHECK_STR_EQ(e2b_agent_state_name(r.at_waiting), "waiting for you");
        CHECK_MSG(strstr(r.states, "working|waiting for you|working"), "v%d: states %s", api, r.states);
        CHECK_MSG(st->state == E2B_AGENT_IDLE && st->last_end == E2B_AGENT_END_DONE, "v%d: %s, ended %s",
                  api, e2b_agent_state_name(st->state), e2b_agent_end_name(st->last_end));
        CHECK(st->nrequests == 0);
        CHECK(st->todo_total == 2 && st->todo_done == 1);
        CHECK(api == 1 || (st->have_usage && st->tokens_input > 0));
        CHECK(!st->error);
        char line[256];
        e2b_agent_status_line(st, line, sizeof line);
        CHECK_STR_EQ(line, "idle: done");
        replay_free(&r);
    }
}

/* The next turn's first step waits (no step of it ended yet): the turn's own figures are
 * unknown, the last turn's are kept (the Agent pane shows them meanwhile). */
static void test_turn_figures_kept(void)
{
    struct replay r;
    CHECK(replay(&r, 2, "v2_permission") == 0);
    e2b_agent_status *st = &r.w->st;
    CHECK(st->turn.have_tokens && st->turn.input > 0);
    e2b_agent_usage before = st->turn;
    const char *frame = "{\"type\":\"session.next.step.started\",\"data\":{\"sessionID\":"
                        "\"ses_dcb672576ffeAuQevUoUt3CCJi\",\"agent\":\"build\"}}";
    e2b_oc_event ev;
    e2b_oc_event_scratch scratch;
    CHECK(e2b_oc_event_parse(2, frame, strlen(frame), &ev, &scratch) == 0);
    watch_apply_event(r.w, &ev);
    watch_changed(r.w);
    e2b_oc_event_scratch_clear(&scratch);
    CHECK_STR_EQ(e2b_agent_state_name(st->state), "working");
    CHECK(!st->turn.have_tokens && !st->turn.have_cost);
    CHECK(st->last_turn.have_tokens && st->last_turn.input == before.input &&
          st->last_turn.output == before.output);
    replay_free(&r);
}

static void test_v1_retry_then_done(void)
{
    struct replay r;
    CHECK(replay(&r, 1, "v1_retry") == 0);
    CHECK_MSG(strstr(r.states, "retrying"), "states: %s", r.states);
    CHECK(r.w->st.state == E2B_AGENT_IDLE);
    CHECK(r.w->st.last_end == E2B_AGENT_END_DONE);
    CHECK(!r.w->st.retry_message);
    replay_free(&r);
    /* the retry itself, as the status route said it mid-turn: the provider's words */
    CHECK(replay(&r, 1, "v1_retry") == 0);
    apply_snapshot(&r, "status_retry.json", NULL);
    const e2b_agent_status *st = &r.w->st;
    CHECK(st->state == E2B_AGENT_RETRYING);
    CHECK(st->retry_attempt >= 1);
    CHECK_MSG(st->retry_message && strstr(st->retry_message, "upstream overloaded"), "message: %s",
              st->retry_message ? st->retry_message : "(none)");
    char line[256];
    e2b_agent_status_line(st, line, sizeof line);
    CHECK_MSG(strstr(line, "retrying") == line && strstr(line, "upstream overloaded"), "line: %s", line);
    replay_free(&r);
}

/* How each recorded turn ended, and in whose words. */
static const struct turn_end {
    int api;
    const char *scenario;
    bool message_fails; /* the message cannot be read (its route fails): the events decide */
    bool waited;        /* a permission request was pending on the way */
    e2b_agent_end end;
    const char *error;  /* FAILED: words of the provider's the error holds */
} turn_ends[] = {
    {2, "v2_reject", false, true, E2B_AGENT_END_INTERRUPTED, NULL},
    {2, "v2_reject", true, true, E2B_AGENT_END_INTERRUPTED, NULL},
    {1, "v1_reject", false, true, E2B_AGENT_END_INTERRUPTED, NULL},
    {2, "v2_failed", false, false, E2B_AGENT_END_FAILED, "model m1 refuses: context too long"},
    {1, "v1_failed", false, false, E2B_AGENT_END_FAILED, "model m1 refuses: context too long"},
    /* interrupted before the model was asked: the stream says only "prompted"; the snapshot
     * finds nothing running and the newest message is still the user's */
    {2, "v2_interrupted", false, false, E2B_AGENT_END_INTERRUPTED, NULL},
};

static void test_turn_ends(void)
{
    for (size_t i = 0; i < sizeof turn_ends / sizeof *turn_ends; i++) {
        const struct turn_end *t = &turn_ends[i];
        struct replay r;
        CHECK(replay_as(&r, t->api, t->scenario, t->message_fails) == 0);
        const e2b_agent_status *st = &r.w->st;
        char line[256];
        e2b_agent_status_line(st, line, sizeof line);
        CHECK_MSG(strstr(r.states, "working"), "%s: states %s", t->scenario, r.states);
        CHECK_MSG(!t->waited || r.at_waiting == E2B_AGENT_WAITING, "%s: %s while a request waited",
                  t->scenario, e2b_agent_state_name(r.at_waiting));
        CHECK_MSG(!t->message_fails || r.srv.requests > 0, "%s: the read was not tried", t->scenario);
        CHECK_MSG(st->state == E2B_AGENT_IDLE && st->last_end == t->end, "%s%s: %s, ended %s (states %s)",
                  t->scenario, t->message_fails ? " (no message)" : "", e2b_agent_state_name(st->state),
                  e2b_agent_end_name(st->last_end), r.states);
        if (t->error) {
            CHECK_MSG(st->error && strstr(st->error, t->error), "%s: error %s", t->scenario,
                      st->error ? st->error : "(none)");
            CHECK_MSG(strstr(line, "idle: failed: ") == line, "%s: line %s", t->scenario, line);
        } else {
            CHECK_MSG(!st->error, "%s: error %s", t->scenario, st->error);
        }
        replay_free(&r);
    }
}

/* ---- the reply on the wire ---- */

static void on_reply(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    (void)res;
    *(int *)ud = err ? -1 : 1;
}

static void test_reply_bodies(void)
{
    /* y = once, Y = always, n = reject (tui/views/agent_actions.c) */
    const e2b_agent_reply replies[] = {E2B_AGENT_REPLY_ONCE, E2B_AGENT_REPLY_ALWAYS,
                                       E2B_AGENT_REPLY_REJECT};
    const char *bodies[] = {"{\"reply\":\"once\"}", "{\"reply\":\"always\"}", "{\"reply\":\"reject\"}"};
    for (int api = 1; api <= 2; api++) {
        for (int i = 0; i < 3; i++) {
            struct server s;
            CHECK(server_start(&s, api, NULL) == 0);
            e2b_loop *loop = e2b_loop_new();
            char url[64];
            snprintf(url, sizeof url, "http://127.0.0.1:%d", s.port);
            e2b_oc_config oc = {.api = api, .base_url = url, .timeout_ms = 5000};
            e2b_error *err = NULL;
            e2b_oc_client *c = e2b_oc_new(loop, &oc, &err);
            int done = 0;
            e2b_oc_call *call = e2b_oc_reply(c, "ses_dcb672576ffeAuQevUoUt3CCJi",
                                             "per_23498ea48001dF6hKaSxjokz7x", replies[i], on_reply,
                                             &done, &err);
            for (int k = 0; call && k < 250 && !done; k++)
                e2b_loop_run_once(loop, 20);
            e2b_oc_free(c);
            e2b_loop_free(loop);
            e2b_error_free(err);
            server_stop(&s);
            CHECK_MSG(done == 1, "api %d reply %d: done %d", api, i, done);
            CHECK_STR_EQ(s.last_request,
                         api == 2 ? "POST /api/session/ses_dcb672576ffeAuQevUoUt3CCJi/permission/"
                                    "per_23498ea48001dF6hKaSxjokz7x/reply"
                                  : "POST /permission/per_23498ea48001dF6hKaSxjokz7x/reply");
            json_error_t je;
            json_t *got = json_loads(s.last_body, 0, &je), *want = json_loads(bodies[i], 0, &je);
            bool eq = got && want && json_equal(got, want);
            json_decref(got);
            json_decref(want);
            CHECK_MSG(eq, "api %d: body %s, want %s", api, s.last_body, bodies[i]);
        }
    }
}

/* ---- --status --json against its schema ---- */

/* The subset of JSON Schema the schema file uses: type (one or a list), enum, required,
 * properties, additionalProperties false, items, minimum, anyOf. 0 valid, else -1 with where. */
static bool type_is(const json_t *v, const char *t)
{
    if (!strcmp(t, "object")) return json_is_object(v);
    if (!strcmp(t, "array")) return json_is_array(v);
    if (!strcmp(t, "string")) return json_is_string(v);
    if (!strcmp(t, "integer")) return json_is_integer(v);
    if (!strcmp(t, "number")) return json_is_number(v);
    if (!strcmp(t, "boolean")) return json_is_boolean(v);
    if (!strcmp(t, "null")) return json_is_null(v);
    return false;
}

static int validate(const json_t *schema, const json_t *v, const char *at, char *why, size_t wn)
{
    const json_t *any = json_object_get(schema, "anyOf");
    if (any) {
        for (size_t i = 0; i < json_array_size(any); i++)
            if (validate(json_array_get(any, i), v, at, why, wn) == 0)
                return 0;
        return -1; /* why: the last one's */
    }
    const json_t *t = json_object_get(schema, "type");
    if (t) {
        bool ok = false;
        if (json_is_string(t))
            ok = type_is(v, json_string_value(t));
        for (size_t i = 0; json_is_array(t) && i < json_array_size(t); i++)
            ok |= type_is(v, json_string_value(json_array_get(t, i)));
        if (!ok) {
            snprintf(why, wn, "%s: not of type %s", at, json_is_string(t) ? json_string_value(t) : "[…]");
            return -1;
        }
    }
    const json_t *en = json_object_get(schema, "enum");
    if (en) {
        bool ok = false;
        for (size_t i = 0; i < json_array_size(en); i++)
            ok |= json_equal(json_array_get(en, i), v);
        if (!ok) {
            snprintf(why, wn, "%s: not one of the enum", at);
            return -1;
        }
    }
    const json_t *min = json_object_get(schema, "minimum");
    if (min && json_is_number(v) && json_number_value(v) < json_number_value(min)) {
        snprintf(why, wn, "%s: under the minimum", at);
        return -1;
    }
    if (json_is_object(v)) {
        const json_t *req = json_object_get(schema, "required"), *props = json_object_get(schema, "properties");
        for (size_t i = 0; i < json_array_size(req); i++)
            if (!json_object_get(v, json_string_value(json_array_get(req, i)))) {
                snprintf(why, wn, "%s: no \"%s\"", at, json_string_value(json_array_get(req, i)));
                return -1;
            }
        const char *k;
        json_t *mv;
        json_object_foreach((json_t *)v, k, mv) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s.%s", at, k);
            const json_t *ps = props ? json_object_get(props, k) : NULL;
            if (!ps && json_is_false(json_object_get(schema, "additionalProperties"))) {
                snprintf(why, wn, "%s: not in the schema", sub);
                return -1;
            }
            if (ps && validate(ps, mv, sub, why, wn))
                return -1;
        }
    }
    const json_t *items = json_object_get(schema, "items");
    for (size_t i = 0; items && json_is_array(v) && i < json_array_size(v); i++) {
        char sub[512];
        snprintf(sub, sizeof sub, "%s[%zu]", at, i);
        if (validate(items, json_array_get(v, i), sub, why, wn))
            return -1;
    }
    return 0;
}

static void test_status_json_schema(void)
{
    char *schema_text = fixture(".", "status.schema.json");
    CHECK(schema_text);
    json_error_t je;
    json_t *schema = json_loads(schema_text, 0, &je);
    free(schema_text);
    CHECK(schema);
    /* three boxes: one waiting (v2, with its request), one retrying (v1), one not watched */
    struct replay a, b;
    char why[600] = "";
    CHECK(replay(&a, 2, "v2_permission") == 0);
    CHECK(replay(&b, 1, "v1_retry") == 0);
    apply_snapshot(&b, "status_retry.json", NULL);
    apply_snapshot(&a, "active_waiting.json", "perm.json"); /* (as it was while it waited) */
    e2b_agent_box_view views[] = {
        {.name = "feat", .sandbox_id = "sbx1", .sandbox = "running",
         .state = e2b_agent_state_name(a.w->st.state), .status = &a.w->st},
        {.name = "old", .sandbox_id = "sbx2", .sandbox = "running",
         .state = e2b_agent_state_name(b.w->st.state), .status = &b.w->st},
        {.name = "gone", .sandbox_id = "sbx3", .sandbox = "gone", .state = "gone", .why = "no sandbox"},
    };
    char *doc = e2b_agent_status_json(views, 3, false);
    replay_free(&a);
    replay_free(&b);
    CHECK(doc);
    json_t *v = json_loads(doc, 0, &je);
    free(doc);
    CHECK(v);
    int rc = validate(schema, v, "$", why, sizeof why);
    /* the schema says something: a renamed field is refused */
    json_t *renamed = json_deep_copy(v);
    json_t *box0 = json_array_get(json_object_get(renamed, "boxes"), 0);
    json_object_set(box0, "agent_state", json_object_get(box0, "state"));
    json_object_del(box0, "state");
    char why2[600] = "";
    int rc2 = validate(schema, renamed, "$", why2, sizeof why2);
    json_t *st0 = json_object_get(json_array_get(json_object_get(v, "boxes"), 0), "state");
    json_t *rq = json_object_get(json_array_get(json_object_get(v, "boxes"), 0), "requests");
    bool waiting = json_is_string(st0) && !strcmp(json_string_value(st0), "waiting for you") &&
                   json_array_size(rq) == 1;
    json_decref(renamed);
    json_decref(v);
    json_decref(schema);
    CHECK_MSG(rc == 0, "--status --json against its schema: %s", why);
    CHECK_MSG(rc2 == -1, "a renamed field passes the schema");
    CHECK(waiting);
}

int main(void)
{
    RUN(test_permission_once);
    RUN(test_v1_retry_then_done);
    RUN(test_turn_figures_kept);
    RUN(test_turn_ends);
    RUN(test_reply_bodies);
    RUN(test_status_json_schema);
    return harness_finish();
}
