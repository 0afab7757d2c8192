/* The boxes' ports and forwards in the model (live_ports.h). */
#include "core/live/live_ports.h"
#include "core/live/live_internal.h"
#include "core/util/sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct live_port_box {
    char sandbox_id[128];
    e2b_live *m;
    e2b_box_op *op;      /* the last good read (holds the box's connection), or NULL */
    e2b_box_op *reading; /* a read on its way, or NULL */
    e2b_box_op *failed;  /* the last failed read (freed later: not inside its callback) */
    enum e2b_live_ports_state state;
    char why[400];
    e2b_tunnel *fwd[E2B_LIVE_FORWARDS];
    int fwd_port[E2B_LIVE_FORWARDS];
    size_t nfwd;
    uint64_t used; /* for the eviction */
};

struct live_ports {
    struct live_port_box *boxes[E2B_LIVE_PORT_BOXES];
    size_t n;
    uint64_t clock;
};

static const e2b_box_ports NO_PORTS;

static struct live_port_box *find(const e2b_live *m, const char *id)
{
    for (size_t i = 0; m->ports && i < m->ports->n; i++)
        if (strcmp(m->ports->boxes[i]->sandbox_id, id) == 0)
            return m->ports->boxes[i];
    return NULL;
}

static void box_free(struct live_port_box *b)
{
    for (size_t i = 0; i < b->nfwd; i++)
        e2b_tunnel_close(b->fwd[i]);
    e2b_box_op_free(b->reading); /* a running one is cancelled and frees itself */
    e2b_box_op_free(b->failed);
    e2b_box_op_free(b->op);
    free(b);
}

static struct live_port_box *get_or_make(e2b_live *m, const char *id)
{
    struct live_port_box *b = find(m, id);
    if (b)
        return b;
    if (!m->ports && !(m->ports = calloc(1, sizeof *m->ports)))
        return NULL;
    struct live_ports *p = m->ports;
    if (p->n == E2B_LIVE_PORT_BOXES) { /* the least recently used without a forward goes */
        size_t victim = p->n;
        for (size_t i = 0; i < p->n; i++)
            if (!p->boxes[i]->nfwd && !p->boxes[i]->reading &&
                (victim == p->n || p->boxes[i]->used < p->boxes[victim]->used))
                victim = i;
        if (victim == p->n)
            return NULL;
        box_free(p->boxes[victim]);
        p->boxes[victim] = p->boxes[--p->n];
    }
    if (!(b = calloc(1, sizeof *b)))
        return NULL;
    snprintf(b->sandbox_id, sizeof b->sandbox_id, "%s", id);
    b->m = m;
    p->boxes[p->n++] = b;
    return b;
}

static void on_progress(void *ud, const char *step, int64_t done, int64_t total)
{
    (void)ud, (void)step, (void)done, (void)total;
}

static void on_read(void *ud, e2b_box_op *op, const e2b_error *err)
{
    struct live_port_box *b = ud;
    e2b_live *m = b->m;
    if (m->closing)
        return;
    if (err) {
        b->reading = NULL;
        b->failed = op;
        char *clean = e2b_sanitize_display(e2b_error_message(err), strlen(e2b_error_message(err)), 0);
        snprintf(b->why, sizeof b->why, "%s", clean ? clean : "failed");
        free(clean);
        b->state = b->op ? E2B_LIVE_PORTS_READ : E2B_LIVE_PORTS_FAILED; /* the last good stays */
        live_notice(m, E2B_LIVE_ERROR, "%s", b->why);
    } else {
        /* the old read goes (its forwards hold their own copies of URL and token) */
        e2b_box_op_free(b->op);
        b->op = op;
        b->reading = NULL;
        b->state = E2B_LIVE_PORTS_READ;
        if (e2b_box_op_result(op)->resumed)
            live_notice(m, E2B_LIVE_INFO, "box %s was paused: resumed it to read its ports",
                        e2b_box_op_result(op)->name ? e2b_box_op_result(op)->name : "");
    }
    live_notify(m, E2B_LIVE_OPS);
}

int e2b_live_ports_read(e2b_live *m, const char *sandbox_id)
{
    const e2b_sandbox *sb = e2b_live_sandbox(m, sandbox_id);
    if (!m->client || !sb || sb->kind != E2B_KIND_BOX || !sb->box_name) {
        live_notice(m, E2B_LIVE_ERROR, "ports: only a box's ports can be read");
        return -1;
    }
    struct live_port_box *b = get_or_make(m, sandbox_id);
    if (!b) {
        live_notice(m, E2B_LIVE_ERROR, "ports: too many boxes with forwards open");
        return -1;
    }
    b->used = ++m->ports->clock;
    if (b->reading)
        return 0;
    e2b_box_env env = {.loop = m->loop, .client = m->client, .cfg = &m->cfg,
                       .sandbox_id = sandbox_id};
    e2b_error *err = NULL;
    e2b_box_op *op = e2b_box_ports_read(&env, sb->box_name, on_progress, on_read, b, &err);
    if (!op) {
        live_notice(m, E2B_LIVE_ERROR, "ports: %s", e2b_error_message(err));
        e2b_error_free(err);
        return -1;
    }
    e2b_box_op_free(b->failed);
    b->failed = NULL;
    b->reading = op;
    if (!b->op)
        b->state = E2B_LIVE_PORTS_READING;
    live_notify(m, E2B_LIVE_OPS);
    return 0;
}

void e2b_live_ports_get(const e2b_live *m, const char *sandbox_id, e2b_live_ports_info *out)
{
    const struct live_port_box *b = find(m, sandbox_id);
    *out = (e2b_live_ports_info){.state = E2B_LIVE_PORTS_NONE, .ports = &NO_PORTS, .why = ""};
    if (!b)
        return;
    out->state = b->state;
    if (b->state == E2B_LIVE_PORTS_READ) {
        out->ports = e2b_box_ports_of(b->op);
        out->is_public = e2b_box_ports_public(b->op);
    }
    out->why = b->why;
    out->nforwards = b->nfwd;
    for (size_t i = 0; i < b->nfwd; i++) {
        out->fwd_port[i] = b->fwd_port[i];
        out->fwd_url[i] = e2b_tunnel_url(b->fwd[i]);
    }
}

int e2b_live_forward(e2b_live *m, const char *sandbox_id, int port, const char **url)
{
    struct live_port_box *b = find(m, sandbox_id);
    *url = NULL;
    for (size_t i = 0; b && i < b->nfwd; i++)
        if (b->fwd_port[i] == port) {
            *url = e2b_tunnel_url(b->fwd[i]);
            live_notice(m, E2B_LIVE_INFO, "port %d is forwarded already: %s (yours only)", port,
                        *url);
            return 0;
        }
    if (!b || b->state != E2B_LIVE_PORTS_READ) {
        live_notice(m, E2B_LIVE_ERROR, "forward: the box's ports are not read yet");
        return -1;
    }
    if (b->nfwd == E2B_LIVE_FORWARDS) {
        live_notice(m, E2B_LIVE_ERROR, "forward: %d forwards of this box are open already",
                    E2B_LIVE_FORWARDS);
        return -1;
    }
    e2b_error *err = NULL;
    e2b_tunnel *t = e2b_box_forward_open(b->op, port, 0, &err);
    if (!t) {
        live_notice(m, E2B_LIVE_ERROR, "%s", e2b_error_message(err));
        e2b_error_free(err);
        return -1;
    }
    b->fwd[b->nfwd] = t;
    b->fwd_port[b->nfwd++] = port;
    *url = e2b_tunnel_url(t);
    live_notify(m, E2B_LIVE_OPS);
    return 0;
}

char *e2b_live_port_direct_url(const e2b_live *m, const char *sandbox_id, int port)
{
    const struct live_port_box *b = find(m, sandbox_id);
    if (!b || b->state != E2B_LIVE_PORTS_READ || !e2b_box_ports_public(b->op))
        return NULL;
    return e2b_box_port_url(b->op, port);
}

void live_ports_shutdown(e2b_live *m)
{
    struct live_ports *p = m->ports;
    for (size_t i = 0; p && i < p->n; i++)
        box_free(p->boxes[i]);
    if (p)
        p->n = 0;
}

void live_ports_free(e2b_live *m)
{
    live_ports_shutdown(m);
    free(m->ports);
    m->ports = NULL;
}
