/* ports: find the box -> connect (resumes) -> read /proc/net/tcp{,6} in the box -> the
 * listening ports; and the owner-only forward to one of them (box_ports.h). */
#include "core/box/box_internal.h"
#include "core/util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { PORTS_LINES_MAX = 4096 };

/* Whether the n hex digits at p are all hex. */
static int all_hex(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (e2b_hex_digit(p[i]) < 0)
            return 0;
    return 1;
}

/* Whether a /proc/net address (8 hex digits for IPv4, 32 for IPv6, in the kernel's byte
 * order) is a loopback one: 127.x.x.x, ::1, ::ffff:127.x.x.x. */
static int loopback_addr(const char *a, size_t n)
{
    if (n == 8)
        return strncasecmp(a + 6, "7F", 2) == 0;
    if (n == 32)
        return strncmp(a, "00000000000000000000000001000000", 32) == 0 ||
               (strncasecmp(a, "0000000000000000FFFF0000", 24) == 0 &&
                strncasecmp(a + 30, "7F", 2) == 0);
    return 0;
}

static void add_port(e2b_box_ports *out, int port, int loopback)
{
    size_t i = 0;
    while (i < out->count && out->items[i].port < port)
        i++;
    if (i < out->count && out->items[i].port == port) {
        out->items[i].loopback &= loopback; /* reachable on one address is reachable */
        return;
    }
    if (out->count == E2B_BOX_PORTS_MAX) {
        out->more = 1;
        return;
    }
    memmove(&out->items[i + 1], &out->items[i], (out->count - i) * sizeof out->items[0]);
    out->items[i] = (e2b_box_port){.port = port, .loopback = loopback};
    out->count++;
}

/* One line: "  N: LOCAL:PORT REMOTE:PORT ST ..." */
static void parse_line(const char *p, const char *e, e2b_box_ports *out)
{
    while (p < e && *p == ' ')
        p++;
    const char *colon = memchr(p, ':', (size_t)(e - p));
    if (!colon || colon == p || !all_hex(p, (size_t)(colon - p)) || colon - p > 8)
        return; /* the header line, or junk */
    p = colon + 1;
    while (p < e && *p == ' ')
        p++;
    const char *addr = p;
    while (p < e && *p != ':' && p - addr <= 32)
        p++;
    size_t an = (size_t)(p - addr);
    if (p >= e || *p != ':' || (an != 8 && an != 32) || !all_hex(addr, an))
        return;
    p++;
    if (e - p < 4 || !all_hex(p, 4) || (e - p > 4 && p[4] != ' '))
        return;
    int port = (e2b_hex_digit(p[0]) << 12) | (e2b_hex_digit(p[1]) << 8) | (e2b_hex_digit(p[2]) << 4) |
               e2b_hex_digit(p[3]);
    p += 4;
    while (p < e && *p == ' ')
        p++;
    /* the remote address:port, then the state */
    while (p < e && *p != ' ')
        p++;
    while (p < e && *p == ' ')
        p++;
    if (e - p < 2 || (e - p > 2 && p[2] != ' ') || strncasecmp(p, "0A", 2) != 0)
        return; /* not TCP_LISTEN */
    if (port == 0 || port == E2B_BOX_ENVD_PORT)
        return;
    add_port(out, port, loopback_addr(addr, an));
}

void e2b_box_ports_parse(const char *text, size_t len, e2b_box_ports *out)
{
    memset(out, 0, sizeof *out);
    const char *p = text, *end = text + len;
    for (int lines = 0; p < end && lines < PORTS_LINES_MAX; lines++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        if (e - p < 512)
            parse_line(p, e, out);
        p = nl ? nl + 1 : end;
    }
}

/* ---- connecting without extending ---- */

static void as_is_looked(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    e2b_error *e = NULL;
    op->api_call = NULL;
    op->pending--;
    (void)status;
    if (err || op->cancelled) {
        e2b_sandbox_free(sb);
        e2b_error *c = err ? NULL : e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
        op->pending++; /* then() takes it back, as a connect's callback */
        op->connect_then(op, NULL, 0, err ? err : c);
        e2b_error_free(c);
        return;
    }
    long lifetime = sb->state == E2B_STATE_PAUSED ? box_op_lifetime_s(op) : 60;
    e2b_sandbox_free(sb);
    op->api_call = e2b_api_connect(op->env.client, op->res.sandbox_id, lifetime,
                                   op->connect_then, op, &e);
    if (!op->api_call) {
        op->connect_then(op, NULL, 0, e);
        e2b_error_free(e);
        return;
    }
    op->pending++;
}

int box_op_connect_as_is(e2b_box_op *op, e2b_api_sandbox_fn then)
{
    e2b_error *e = NULL;
    op->connect_then = then;
    op->api_call = e2b_api_get(op->env.client, op->res.sandbox_id, as_is_looked, op, &e);
    if (!op->api_call) {
        /* then() decrements pending as a call's callback does */
        op->pending++;
        then(op, NULL, 0, e);
        e2b_error_free(e);
        return -1;
    }
    op->pending++;
    return 0;
}

/* ---- the op ---- */

static void ports_fail(e2b_box_op *op, const e2b_error *err, const char *step)
{
    e2b_error *e = err ? e2b_error_copy(err) : e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    e2b_error_set_action(e, "reading the ports of box %s: %s", op->res.name ? op->res.name : "",
                         step);
    box_op_finish(op, e);
}

static void ports_read(e2b_box_op *op, const e2b_error *err)
{
    if (err || op->cancelled) {
        ports_fail(op, err, "reading /proc/net/tcp in the box");
        return;
    }
    e2b_box_ports_parse(op->out ? op->out : "", op->out_len, &op->ports);
    box_op_finish(op, NULL);
}

static void ports_connected(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    e2b_box_op *op = ud;
    e2b_error *e = NULL;
    op->api_call = NULL;
    op->pending--;
    if (err && err->kind == E2B_ERR_NOT_FOUND) {
        e2b_sandbox_free(sb);
        e = e2b_error_new(E2B_ERR_NOT_FOUND,
                          "its sandbox %s is gone (e2b-tui --kill %s removes the record)",
                          op->res.sandbox_id ? op->res.sandbox_id : "", op->res.name);
        ports_fail(op, e, "connecting");
        e2b_error_free(e);
        return;
    }
    if (err || op->cancelled) {
        e2b_sandbox_free(sb);
        ports_fail(op, err, "connecting");
        return;
    }
    op->sb = *sb;
    free(sb);
    op->have_sandbox = 1;
    op->res.resumed = status == 201;
    if (op->sb.traffic_access_token && *op->sb.traffic_access_token)
        op->res.traffic_token = strdup(op->sb.traffic_access_token);
    op->envd = e2b_envd_new(op->env.loop, op->env.cfg, &op->sb, NULL, &e);
    if (!op->envd) {
        ports_fail(op, e, "reaching envd");
        e2b_error_free(e);
        return;
    }
    static const char *const args[] = {"-c", "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; true",
                                       NULL};
    e2b_process_spec spec = {.cmd = "/bin/sh", .args = args, .timeout_ms = 30000};
    box_op_progress(op, "reading the box's ports", 0, 0);
    box_op_run(op, op->envd, &spec, ports_read);
}

static void ports_resolved(e2b_box_op *op, const e2b_error *err)
{
    e2b_error *e = NULL;
    if (err) {
        ports_fail(op, err, "finding the box");
        return;
    }
    (void)e;
    box_op_progress(op, "connecting", 0, 0);
    box_op_connect_as_is(op, ports_connected);
}

e2b_box_op *e2b_box_ports_read(const e2b_box_env *env, const char *name,
                               e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                               e2b_error **err)
{
    e2b_box_op *op = box_op_new(OP_PORTS, env, progress, done, ud);
    if (!op) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    box_op_start(op, name, ports_resolved);
    return op;
}

const e2b_box_ports *e2b_box_ports_of(const e2b_box_op *op)
{
    return &op->ports;
}

int e2b_box_ports_public(const e2b_box_op *op)
{
    return op->have_sandbox && !(op->sb.traffic_access_token && *op->sb.traffic_access_token);
}

char *e2b_box_port_url(const e2b_box_op *op, int port)
{
    if (!op->have_sandbox || port < 1 || port > 65535)
        return NULL;
    return e2b_config_port_url(op->env.cfg, port, op->sb.sandbox_id, op->sb.domain);
}

e2b_tunnel *e2b_box_forward_open(const e2b_box_op *op, int port, int local_port,
                                 e2b_error **err)
{
    char *url = e2b_box_port_url(op, port), *tok = NULL;
    if (!url) {
        *err = e2b_error_new(E2B_ERR_INVALID, "the box has no sandbox to forward to, or %d is "
                             "no port (1 to 65535)", port);
        return NULL;
    }
    if (op->res.traffic_token && asprintf(&tok, "e2b-traffic-access-token: %s",
                                          op->res.traffic_token) < 0) {
        free(url);
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    const char *headers[2] = {tok, NULL};
    e2b_tunnel_params p = {.upstream_url = url, .headers = headers, .owner_only = 1,
                           .local_port = local_port};
    e2b_tunnel *t = e2b_tunnel_open(&p, err);
    if (tok) {
        explicit_bzero(tok, strlen(tok));
        free(tok);
    }
    free(url);
    if (!t)
        e2b_error_set_action(*err, "forwarding port %d of box %s", port,
                             op->res.name ? op->res.name : "");
    return t;
}
