/* A box's listening TCP ports and local forwards to them (README "Ports", man page
 * --forward).
 *
 *   e2b_box_op *op = e2b_box_ports_read(&env, "feat-x", progress, done, ud, &err);
 *   ... done ...
 *   const e2b_box_ports *p = e2b_box_ports_of(op);        // what listens in the box
 *   e2b_tunnel *t = e2b_box_forward_open(op, 5173, 0, &err); // http://127.0.0.1:PORT
 *
 * The op finds the box (its record, else its metadata), connects (a paused box is resumed
 * with its own lifetime: res.resumed says so) and reads /proc/net/tcp and /proc/net/tcp6 in
 * the box once (one process, its output capped). It needs no password: a dev server has none.
 *
 * The forward is an owner-only tunnel (core/net/tunnel.h): no password is asked (the port
 * has none); only connections of the local user who opened it are served (the kernel's peer
 * uid), and only with the tunnel's own Host; the box's traffic token is added for a private
 * box. A public box (no traffic token) is also reachable at its direct URL
 * (e2b_box_port_url), which anyone can open. */
#ifndef E2B_BOX_PORTS_H
#define E2B_BOX_PORTS_H

#include "core/box/box.h"

#include <stddef.h>

#define E2B_BOX_PORTS_MAX 64
#define E2B_BOX_ENVD_PORT 49983 /* envd's own port, never listed */

typedef struct e2b_box_port {
    int port;
    int loopback; /* bound to 127.0.0.1 / ::1 only (E2B's proxy may not reach it) */
} e2b_box_port;

typedef struct e2b_box_ports {
    e2b_box_port items[E2B_BOX_PORTS_MAX]; /* ascending, each port once */
    size_t count;
    int more; /* more listening ports than E2B_BOX_PORTS_MAX */
} e2b_box_ports;

/* Parses the text of /proc/net/tcp and /proc/net/tcp6 (len bytes, from the box: untrusted)
 * into out: the ports in state LISTEN, envd's left out. Lines past 4096 and malformed lines
 * are skipped. */
void e2b_box_ports_parse(const char *text, size_t len, e2b_box_ports *out);

e2b_box_op *e2b_box_ports_read(const e2b_box_env *env, const char *name,
                               e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                               e2b_error **err);
/* After done without error: the listening ports (owned by the op). */
const e2b_box_ports *e2b_box_ports_of(const e2b_box_op *op);
/* Whether the box is public (its ports need no traffic token). */
int e2b_box_ports_public(const e2b_box_op *op);
/* The direct URL of port on E2B's proxy (https://PORT-ID.DOMAIN): a new string, or NULL. */
char *e2b_box_port_url(const e2b_box_op *op, int port);
/* An owner-only tunnel to port of the op's box, listening on local_port (0: any free one).
 * NULL with *err (E2B_ERR_CONFLICT when local_port is taken). Close it with
 * e2b_tunnel_close; it does not need the op any more. */
e2b_tunnel *e2b_box_forward_open(const e2b_box_op *op, int port, int local_port,
                                 e2b_error **err);

#endif
