/* The box server's start and health (box_internal.h: box_op_start_server, box_op_health,
 * box_op_health_once). The start keeps its state in op->srv, apart from a process run's,
 * so that an up can start the server while its files are still arriving. */
#include "core/box/box_internal.h"
#include "core/net/http.h"
#include "core/util/base64.h"
#include "core/util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- health probes ---- */

/* One GET of op->health_url with the box's basic auth (and the traffic token when the
 * sandbox has one). Returns the request, or NULL with *err. */
static e2b_http_request *health_probe(e2b_box_op *op, e2b_http_done_fn done, void *ud,
                                      e2b_error **err)
{
    char auth[200], traffic[300], userpass[100];
    snprintf(userpass, sizeof userpass, "opencode:%s", op->password);
    char *b64 = e2b_base64_encode((const uint8_t *)userpass, strlen(userpass));
    explicit_bzero(userpass, sizeof userpass);
    snprintf(auth, sizeof auth, "Authorization: Basic %s", b64 ? b64 : "");
    if (b64) {
        explicit_bzero(b64, strlen(b64));
        free(b64);
    }
    const char *headers[3] = {auth, NULL, NULL};
    if (op->sb.traffic_access_token) {
        snprintf(traffic, sizeof traffic, "e2b-traffic-access-token: %s",
                 op->sb.traffic_access_token);
        headers[1] = traffic;
    }
    e2b_http_options o = {.method = "GET", .url = op->health_url, .headers = headers,
                          .timeout_ms = op->health_probe_ms, .connect_timeout_ms = 3000,
                          .max_body = 64 * 1024, .log_path = "health"};
    e2b_http_request *r = e2b_http_start(op->env.loop, &o, done, ud, err);
    explicit_bzero(auth, sizeof auth);
    explicit_bzero(traffic, sizeof traffic);
    return r;
}

/* A probe's time limit: 0.5 s, doubling after each probe that timed out up to 5 s. The
 * OpenCode server (1.18.33) often accepts a request that comes just as it starts to listen
 * and never answers it: with a 5 s limit such a start cost 5 s more. A slow link that
 * needs longer gets it after a timeout or two. */
static void health_probe_timed(e2b_box_op *op, const e2b_error *err)
{
    if (!err || err->kind != E2B_ERR_TIMEOUT)
        return;
    /* A link that answered fast (the proxy's 502 while nobody listens) grows the limit by a
     * quarter second only: a probe it timed out was most likely ignored by the server, and a
     * doubled limit makes the next ignored one cost more (two cost 8 s at 4 s each); a
     * server slow to answer as it starts is still reached. */
    long next = op->srv.link_fast ? op->health_probe_ms + 250 : op->health_probe_ms * 2;
    op->health_probe_ms = next > 5000 ? 5000 : next;
}

/* The wait before the next probe: 50 ms, doubling up to cap_ms. A server that is up at
 * once is seen at once; a slow one costs at most 1000 / cap_ms requests a second. */
static long health_backoff(e2b_box_op *op, long cap_ms)
{
    long d = op->health_delay_ms ? op->health_delay_ms * 2 : 50;
    op->health_delay_ms = d > cap_ms ? cap_ms : d;
    return op->health_delay_ms;
}

/* Sets op->health_url, the deadline and the backoff for a new wait. */
static void health_prepare(e2b_box_op *op)
{
    const char *path = e2b_config_health_path(op->env.cfg, op->rec.opencode);
    free(op->health_url);
    size_t n = strlen(op->res.url) + strlen(path) + 2;
    op->health_url = malloc(n);
    if (op->health_url)
        snprintf(op->health_url, n, "%s%s%s", op->res.url, path[0] == '/' ? "" : "/", path);
    if (!op->health_timeout_ms)
        op->health_timeout_ms = 90000;
    op->deadline_ms = e2b_now_ms() + op->health_timeout_ms;
    op->health_delay_ms = 0;
    op->health_probe_ms = 500;
}

static e2b_error *health_timeout_error(e2b_box_op *op, const e2b_http_response *resp,
                                       const e2b_error *err)
{
    char last[200];
    if (err)
        snprintf(last, sizeof last, "%s", e2b_error_message(err));
    else
        snprintf(last, sizeof last, "HTTP %ld", resp->status);
    return e2b_error_new(E2B_ERR_TIMEOUT,
                         "the OpenCode server did not become healthy within %ld s (last "
                         "answer: %s); its log is " E2B_BOX_SERVER_LOG
                         " in the box (l shows it in the dashboard)",
                         op->health_timeout_ms / 1000, last);
}

/* ---- server start ----
 * The server's process stream stays open while its health is probed: the stream says at
 * once when the command exits (not installed, bad flags), a 2xx probe says it is up. The
 * first of the two ends the wait; the stream is then closed (the server keeps running,
 * detached) and then(op, err) runs once the stream, the probes and their timers are done.
 *
 * A probe that has not answered after HEDGE_MS gets a second one beside it: an OpenCode
 * server (1.18.33) often accepts the request that comes just as it starts to listen and
 * never answers it, and while that probe waits out its 0.5 s the server is already up
 * (a proxy answers a port nobody listens on at once, with 502). */
#define HEDGE_MS 150

static void server_probe_try(void *ud);
static void server_probe_done(void *ud, const e2b_http_response *resp, const e2b_error *err);

/* A starting server is probed at most every 200 ms for its first 10 s (it is usually up
 * in 1-3 s; the hedge makes a dropped probe cheap), then every 500 ms. Probes every 100 ms
 * were tried without the hedge: they found the start sooner but nearly always also sent
 * the request the server drops as it starts to listen, which cost 0.5 s more. */
static long server_probe_cap(const e2b_box_op *op)
{
    int64_t waited = e2b_now_ms() - (op->deadline_ms - op->health_timeout_ms);
    return waited < 10000 ? 200 : 500;
}

static int probes_in_flight(const e2b_box_op *op)
{
    return (op->srv.probes[0].req != NULL) + (op->srv.probes[1].req != NULL);
}

static void srv_timer_cancel(e2b_box_op *op, uint64_t *timer)
{
    if (*timer) {
        e2b_loop_timer_cancel(op->env.loop, *timer);
        *timer = 0;
        op->pending--;
    }
}

static void server_maybe_done(e2b_box_op *op)
{
    if (!op->srv.running || op->srv.stream || probes_in_flight(op) || op->srv.probe_timer ||
        op->srv.hedge_timer)
        return;
    op->srv.running = 0;
    box_step_fn then = op->srv.then;
    e2b_error *e = op->srv.err;
    op->srv.err = NULL;
    if (!op->srv.healthy && !e)
        e = e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    then(op, op->srv.healthy ? NULL : e);
    e2b_error_free(e);
}

static void probes_cancel(e2b_box_op *op)
{
    for (int i = 0; i < 2; i++)
        if (op->srv.probes[i].req)
            e2b_http_cancel(op->srv.probes[i].req);
}

/* Ends the wait with err (owned; NULL = healthy): closes what is still open. */
static void server_settle(e2b_box_op *op, e2b_error *err)
{
    if (err && !op->srv.err && !op->srv.healthy)
        op->srv.err = err;
    else
        e2b_error_free(err);
    srv_timer_cancel(op, &op->srv.probe_timer);
    srv_timer_cancel(op, &op->srv.hedge_timer);
    probes_cancel(op);
    if (op->srv.stream)
        e2b_http_cancel(op->srv.stream);
    server_maybe_done(op);
}

/* Asynchronous like every cancel here: the stream's and the probes' callbacks (or the
 * probe timer's, at most 0.5 s later) see stop and settle; then never runs from inside. */
void box_server_cancel(e2b_box_op *op)
{
    if (!op->srv.running)
        return;
    op->srv.stop = 1;
    probes_cancel(op);
    if (op->srv.stream)
        e2b_http_cancel(op->srv.stream);
}

void box_server_speak(e2b_box_op *op)
{
    if (!op->srv.quiet)
        return;
    op->srv.quiet = 0;
    if (op->srv.running && op->srv.started && !op->srv.healthy)
        box_op_progress(op, "waiting for the server", 0, 0);
}

static int probe_send(e2b_box_op *op, e2b_error **err);
static void probe_later(e2b_box_op *op);

/* The first probe is still out after HEDGE_MS: a second one beside it (two in flight arm
 * no further hedge). */
static void hedge_fire(void *ud)
{
    e2b_box_op *op = ud;
    e2b_error *err = NULL;
    op->srv.hedge_timer = 0;
    op->pending--;
    if (op->srv.healthy || op->srv.err || op->cancelled || op->srv.stop || probes_in_flight(op) != 1) {
        server_maybe_done(op);
        return;
    }
    if (probe_send(op, &err) < 0)
        e2b_error_free(err); /* the first probe still runs and decides */
}

/* Sends a probe in a free slot, and arms the hedge when the other slot is free. */
static int probe_send(e2b_box_op *op, e2b_error **err)
{
    struct box_srv_probe *slot = &op->srv.probes[op->srv.probes[0].req ? 1 : 0];
    slot->op = op;
    slot->req = health_probe(op, server_probe_done, slot, err);
    if (!slot->req)
        return -1;
    op->pending++;
    if (probes_in_flight(op) == 1 && !op->srv.hedge_timer) {
        op->srv.hedge_timer = e2b_loop_timer_add(op->env.loop, HEDGE_MS, hedge_fire, op);
        if (op->srv.hedge_timer)
            op->pending++; /* no timer: no hedge, the probe alone decides */
    }
    return 0;
}

static void server_probe_done(void *ud, const e2b_http_response *resp, const e2b_error *err)
{
    struct box_srv_probe *slot = ud;
    e2b_box_op *op = slot->op;
    slot->req = NULL;
    op->pending--;
    if (!err && resp->status && resp->ms < 500)
        op->srv.link_fast = 1;
    health_probe_timed(op, err);
    if (op->srv.healthy || op->srv.err) {
        server_maybe_done(op);
        return;
    }
    if (!err && resp->status >= 200 && resp->status < 300) {
        op->srv.healthy = 1;
        server_settle(op, NULL);
        return;
    }
    if (op->cancelled || op->srv.stop) {
        server_settle(op, e2b_error_new(E2B_ERR_CANCELLED, "cancelled"));
        return;
    }
    if (probes_in_flight(op)) {
        /* The other probe is still unanswered (a server that ignores a request never
         * answers it): this slot probes on beside it, two in flight at most, instead of
         * waiting out the other's limit. */
        if (!(err && err->kind == E2B_ERR_CANCELLED) && e2b_now_ms() < op->deadline_ms)
            probe_later(op);
        return;
    }
    if (err && err->kind == E2B_ERR_CANCELLED) {
        server_settle(op, e2b_error_new(E2B_ERR_CANCELLED, "cancelled"));
        return;
    }
    if (e2b_now_ms() >= op->deadline_ms) {
        server_settle(op, health_timeout_error(op, resp, err));
        return;
    }
    srv_timer_cancel(op, &op->srv.hedge_timer);
    probe_later(op);
}

/* The next probe after the backoff (one timer at a time: a probe that ends while it is
 * set adds none). */
static void probe_later(e2b_box_op *op)
{
    if (op->srv.probe_timer)
        return;
    op->srv.probe_timer = e2b_loop_timer_add(op->env.loop, health_backoff(op, server_probe_cap(op)),
                                             server_probe_try, op);
    if (op->srv.probe_timer)
        op->pending++;
    else
        server_settle(op, e2b_error_new(E2B_ERR_INTERNAL, "cannot set a timer"));
}

/* What a probe or the server stream finishing does first: a known outcome (healthy, failed)
 * may complete the step, a cancel settles it. True when one of them applied. */
static bool server_outcome_known(e2b_box_op *op)
{
    if (op->srv.healthy || op->srv.err) {
        server_maybe_done(op);
        return true;
    }
    if (op->cancelled || op->srv.stop) {
        server_settle(op, e2b_error_new(E2B_ERR_CANCELLED, "cancelled"));
        return true;
    }
    return false;
}

static void server_probe_try(void *ud)
{
    e2b_box_op *op = ud;
    e2b_error *err = NULL;
    if (op->srv.probe_timer) {
        op->srv.probe_timer = 0;
        op->pending--;
    }
    if (server_outcome_known(op) || probes_in_flight(op) == 2)
        return; /* both slots busy: the first to end sets the next */
    if (probe_send(op, &err) < 0)
        server_settle(op, err);
}

static int server_on_event(void *ud, const e2b_process_event *ev)
{
    e2b_box_op *op = ud;
    if (ev->type == E2B_PROC_START && !op->srv.started) {
        op->srv.started = 1;
        if (!op->srv.quiet)
            box_op_progress(op, "waiting for the server", 0, 0);
        if (op->kind == OP_UP && !op->ocp.done) { /* which health route: not known yet */
            op->srv.health_deferred = 1;
            return 0;
        }
        /* From the loop: no new transfer may start inside curl's callback. */
        op->srv.probe_timer = e2b_loop_timer_add(op->env.loop, 0, server_probe_try, op);
        if (op->srv.probe_timer)
            op->pending++;
        else
            e2b_http_cancel(op->srv.stream);
    } else if (ev->type == E2B_PROC_END) {
        op->srv.ended = 1;
        op->srv.exit_code = ev->exit_code;
    }
    return 0;
}

static void server_done(void *ud, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->srv.stream = NULL;
    op->pending--;
    if (server_outcome_known(op))
        return;
    if (op->srv.started && !op->srv.ended) {
        /* The stream broke but the server runs on (detached): its health decides. */
        server_maybe_done(op);
        return;
    }
    if (!err || op->srv.ended) {
        server_settle(op, e2b_error_new(E2B_ERR_REMOTE,
                                        "the server command exited at once (exit %d); check "
                                        "serve_command",
                                        op->srv.exit_code));
        return;
    }
    server_settle(op, e2b_error_copy(err));
}

void box_server_api_known(e2b_box_op *op)
{
    if (!op->srv.health_deferred)
        return;
    op->srv.health_deferred = 0;
    if (server_outcome_known(op))
        return;
    health_prepare(op); /* the API's health route; the server's wait starts now */
    op->srv.probe_timer = e2b_loop_timer_add(op->env.loop, 0, server_probe_try, op);
    if (op->srv.probe_timer)
        op->pending++;
    else
        server_settle(op, e2b_error_new(E2B_ERR_INTERNAL, "cannot set a timer (out of memory)"));
}

int box_op_start_server(e2b_box_op *op, int quiet, box_step_fn then)
{
    const e2b_config *cfg = op->env.cfg;
    e2b_error *err = NULL;
    e2b_opencode_kind k;
    e2b_box_record_opencode(&op->rec, &k);
    if (op->kind == OP_UP && op->ocp.done && !op->ocp.found.api && !cfg->serve_command &&
        !cfg->opencode) {
        err = e2b_error_new(E2B_ERR_INVALID,
                            "the box has no OpenCode: neither opencode2 nor opencode on its PATH "
                            "answered --version (template %s); use a template with OpenCode 1.x "
                            "or 2 installed, or set serve_command (and opencode = 1 or 2)",
                            op->rec.template_id ? op->rec.template_id : "?");
        then(op, err);
        e2b_error_free(err);
        return -1;
    }
    char *cmd = e2b_box_command_shell(e2b_config_serve_command(cfg, &k), op->res.url,
                                      op->rec.dir, op->rec.port ? op->rec.port : E2B_BOX_PORT);
    if (!cmd) {
        err = e2b_error_new(E2B_ERR_INVALID, "serve_command is empty or has unbalanced quotes");
        then(op, err);
        e2b_error_free(err);
        return -1;
    }
    /* exec keeps the server the process envd knows by the tag (its exit status is the
     * server's). Its output goes through tee to the log file in the box and to envd's pipe:
     * envd always reads that pipe (output nobody is connected to is dropped), so the server
     * never blocks on it, and the Log view follows it live with Process/Connect. tee -p
     * keeps writing the file if the pipe ever goes away; a tee without -p (busybox) is used
     * as it is. */
    static const char fmt[] =
        "exec > >(tee -p -a " E2B_BOX_SERVER_LOG " 2>/dev/null || exec tee -a " E2B_BOX_SERVER_LOG
        ") 2>&1 </dev/null; exec %s";
    size_t n = strlen(cmd) + sizeof fmt;
    char *script = malloc(n);
    if (!script) {
        free(cmd);
        err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        then(op, err);
        e2b_error_free(err);
        return -1;
    }
    snprintf(script, n, fmt, cmd);
    free(cmd);
    e2b_metadata env = {0};
    e2b_metadata_set(&env, "OPENCODE_SERVER_PASSWORD", op->password);
    e2b_metadata_set(&env, "OPENCODE_PASSWORD", op->password);
    e2b_metadata_set(&env, "OPENCODE_SERVER_USERNAME", "opencode");
    const char *args[] = {"-c", script, NULL};
    e2b_process_spec spec = {.cmd = "/bin/bash", .args = args, .envs = &env,
                             .cwd = op->rec.dir, .tag = E2B_BOX_SERVER_TAG};
    op->srv.started = op->srv.ended = op->srv.healthy = op->srv.stop = 0;
    op->srv.health_deferred = 0;
    op->srv.exit_code = -1;
    op->srv.quiet = quiet;
    e2b_error_free(op->srv.err);
    op->srv.err = NULL;
    op->srv.then = then;
    health_prepare(op);
    op->srv.stream = e2b_envd_process_start(op->envd, &spec, server_on_event, server_done, op, &err);
    for (size_t i = 0; i < env.count; i++)
        explicit_bzero(env.items[i].value, strlen(env.items[i].value));
    e2b_metadata_clear(&env);
    free(script);
    if (!op->srv.stream) {
        then(op, err);
        e2b_error_free(err);
        return -1;
    }
    op->srv.running = 1;
    op->pending++;
    return 0;
}

/* ---- health of a server that already runs ---- */

static void health_try(void *ud);

static void health_done(void *ud, const e2b_http_response *resp, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->http = NULL;
    op->pending--;
    health_probe_timed(op, err);
    if (!err && resp->status >= 200 && resp->status < 300) {
        op->step_then(op, NULL);
        return;
    }
    if (op->cancelled || (err && err->kind == E2B_ERR_CANCELLED)) {
        e2b_error *e = e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
        op->step_then(op, e);
        e2b_error_free(e);
        return;
    }
    if (e2b_now_ms() >= op->deadline_ms) {
        e2b_error *e = health_timeout_error(op, resp, err);
        op->step_then(op, e);
        e2b_error_free(e);
        return;
    }
    op->timer = e2b_loop_timer_add(op->env.loop, health_backoff(op, 500), health_try, op);
    if (!op->timer) { /* no timer, no retry: counting one as pending would wait forever */
        e2b_error *e = e2b_error_new(E2B_ERR_INTERNAL, "cannot set a timer (out of memory)");
        op->step_then(op, e);
        e2b_error_free(e);
        return;
    }
    op->pending++;
}

static void health_try(void *ud)
{
    e2b_box_op *op = ud;
    e2b_error *err = NULL;
    op->timer = 0;
    op->pending--;
    if (op->cancelled) {
        err = e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
        op->step_then(op, err);
        e2b_error_free(err);
        return;
    }
    op->http = health_probe(op, health_done, op, &err);
    if (!op->http) {
        op->step_then(op, err);
        e2b_error_free(err);
        return;
    }
    op->pending++;
}

void box_op_health(e2b_box_op *op, box_step_fn then)
{
    op->step_then = then;
    health_prepare(op);
    box_op_progress(op, "waiting for the server", 0, 0);
    op->pending++;
    health_try(op);
}

static void health_once_done(void *ud, const e2b_http_response *resp, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->http = NULL;
    op->pending--;
    if (!err && !op->cancelled && resp->status >= 200 && resp->status < 300) {
        op->step_then(op, NULL);
        return;
    }
    e2b_error *e = err ? e2b_error_copy(err)
                       : op->cancelled ? e2b_error_new(E2B_ERR_CANCELLED, "cancelled")
                                       : e2b_error_new(E2B_ERR_REMOTE, "HTTP %ld", resp->status);
    op->step_then(op, e);
    e2b_error_free(e);
}

void box_op_health_once(e2b_box_op *op, box_step_fn then)
{
    e2b_error *err = NULL;
    op->step_then = then;
    health_prepare(op);
    op->health_probe_ms = 5000; /* one probe, no retry: the whole limit */
    op->http = health_probe(op, health_once_done, op, &err);
    if (!op->http) {
        then(op, err);
        e2b_error_free(err);
        return;
    }
    op->pending++;
}

