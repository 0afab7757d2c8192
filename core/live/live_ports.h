/* A box's ports in the dashboard (live_ports.c): what listens in the box, read on demand
 * (the Detail pane asks when it opens), and the local forwards the user opened to them
 * (core/box/box_ports.h: owner-only tunnels, no password, the traffic token added). A
 * forward lives until the model is freed or it is closed. Changes come as E2B_LIVE_OPS;
 * results and failures as notices. At most E2B_LIVE_PORT_BOXES boxes are kept (the oldest
 * reading without a forward goes first) and E2B_LIVE_FORWARDS forwards per box. */
#ifndef E2B_LIVE_PORTS_H
#define E2B_LIVE_PORTS_H

#include "core/box/box_ports.h"
#include "core/live/live.h"

#define E2B_LIVE_PORT_BOXES 16
#define E2B_LIVE_FORWARDS 8

enum e2b_live_ports_state {
    E2B_LIVE_PORTS_NONE,    /* not asked */
    E2B_LIVE_PORTS_READING, /* the first read is on its way */
    E2B_LIVE_PORTS_READ,    /* (a later read may be on its way: the last one stays) */
    E2B_LIVE_PORTS_FAILED,
};

/* What is known of the ports of one box (owned by the model, valid until its next change). */
typedef struct e2b_live_ports_info {
    enum e2b_live_ports_state state;
    const e2b_box_ports *ports; /* READ (else an empty list) */
    const char *why;            /* FAILED: in words (sanitised) */
    bool is_public;             /* its ports need no traffic token */
    size_t nforwards;
    int fwd_port[E2B_LIVE_FORWARDS];      /* the box's port */
    const char *fwd_url[E2B_LIVE_FORWARDS]; /* http://127.0.0.1:PORT */
} e2b_live_ports_info;

/* Reads the listening ports of the box shown as sandbox_id (again, when read before).
 * Returns 0, or -1 when refused (not a box, no client: notice). */
int e2b_live_ports_read(e2b_live *m, const char *sandbox_id);
/* What is known; state NONE when never asked. */
void e2b_live_ports_get(const e2b_live *m, const char *sandbox_id, e2b_live_ports_info *out);
/* Opens a forward to port of the box (its ports read first: the op that read them holds the
 * box's connection), or finds the one open. Its URL goes to *url (owned by the model) and a
 * notice. Returns 0, or -1 (notice). */
int e2b_live_forward(e2b_live *m, const char *sandbox_id, int port, const char **url);
/* The direct URL of port of a public box (new string), NULL for a private one. */
char *e2b_live_port_direct_url(const e2b_live *m, const char *sandbox_id, int port);

#endif
