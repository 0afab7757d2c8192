/* The egress proxy: a sandbox reaches the outside only through it. Each running sandbox has
 * a listening TCP socket bound to 127.0.0.1:EGRESS_PORT *inside* its network namespace
 * (made with runtime_socket_locked, so the socket belongs to the sandbox's namespace while
 * e2b-local accepts on it from the host's); HTTP_PROXY/HTTPS_PROXY in every process's
 * environment point there. Each connection is handled on a thread of its own: an HTTP
 * request in absolute form (http://host[:port]/path) or a CONNECT host:port. The decision
 * follows egress_policy.h with the sandbox's config read at that moment (so a PUT
 * /sandboxes/{id}/network applies to the next connection); plain HTTP requests get the
 * rule headers, ${e2b.secrets.NAME} resolved from e2b-local's secret store as the request
 * passes. CONNECT tunnels are passed byte for byte (no TLS termination: rules do not apply
 * to them). Names resolve only through E2B_LOCAL_EGRESS_HOSTS ("name=IPv4,..."), and only
 * loopback addresses are ever connected to: e2b-local never leaves the machine. Every
 * decision is one "egress ..." line of the request log, without header values. */
#ifndef E2B_LOCAL_EGRESS_H
#define E2B_LOCAL_EGRESS_H

#include "sandbox.h"

#define EGRESS_PORT 3128

/* Reads E2B_LOCAL_EGRESS_HOSTS and starts the accepting thread; 0 or -1 (message on stderr). */
int egress_init(void);
void egress_shutdown(void);
/* After the sandbox's holder started: its listener (replacing one of an earlier holder). */
void egress_attach_locked(struct sandbox *sb);
/* When the holder goes: the listener is closed (by the accepting thread). */
void egress_detach_locked(struct sandbox *sb);

#endif
