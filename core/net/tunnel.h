/* A loopback tunnel to one HTTP server: listens on 127.0.0.1 (a port the kernel picks) and
 * forwards each connection to the upstream URL, adding headers to each request (for a box:
 * e2b-traffic-access-token and the routing E2B's proxy needs), so a client that cannot add a
 * header (opencode attach, a browser, curl) can reach a private box at http://127.0.0.1:PORT.
 *
 *   const char *hdrs[] = {"e2b-traffic-access-token: ...", NULL};
 *   e2b_tunnel_params p = {.upstream_url = "https://4096-<id>.e2b.app", .headers = hdrs};
 *   e2b_tunnel *t = e2b_tunnel_open(&p, &err);
 *   ... run the client with e2b_tunnel_url(t) ...
 *   e2b_tunnel_close(t);
 *
 * Who may use it: only its owner. A request is forwarded only when its head passes the gate
 * (tunnel_gate.h): the box's password (Basic, user opencode), Host 127.0.0.1:PORT or
 * localhost:PORT (a DNS-rebinding page sends its own name), an origin-form target, no
 * CONNECT; otherwise the tunnel answers 4xx itself and the box sees nothing. The box's
 * traffic token is only ever added to a request that passed. One request per connection:
 * the box is asked to close after it, and no byte past the request's body goes up (until
 * the box switched protocols for a WebSocket), so a second request on a kept-alive
 * connection never reaches the box without the gate; the client opens a new connection.
 * An owner-only tunnel (a port of the box with no password of its own, such as a dev
 * server: e2b-tui --forward) asks no password; it serves only connections whose peer socket
 * belongs to the user who opened it (NETLINK_SOCK_DIAG, peer_uid.h), and refuses every other
 * with 403 before reading a byte, besides the same Host, target and framing checks (so a
 * web page of another site, which runs as the owner, still cannot reach it by DNS rebinding).
 * Each user (the peer socket's uid, from the kernel) may hold at most 16 connections that
 * have not sent a complete head, each for at most 5 s, so another local user cannot fill
 * the tunnel and lock its owner out.
 *
 * What it carries: the head is rewritten (Host set to the upstream's, the added headers
 * replace any the client sent of the same name, Connection: close); the body goes through
 * untouched (chunked or not), and so does the answer in full: long-lived responses
 * (server-sent events), chunked responses, and WebSocket upgrades (Connection: Upgrade is
 * kept). The upstream may be https (libcurl does the TLS, HTTP/1.1 only).
 *
 * Threads: the tunnel runs on threads of its own (one that accepts, one per connection),
 * because its main user, the attach command, runs while the dashboard's loop is parked
 * inside a loop callback (see tui/attach.c); nothing here touches an e2b_loop. Its threads
 * block every signal (the program's handlers keep running on the program's threads). Open
 * and close are called from one thread; close stops accepting, ends every connection and
 * joins every thread before it returns.
 *
 * Secrets: the added headers and the password are copied and wiped on close, the request
 * heads (which hold the client's credential) when the connection ends; none is ever logged
 * (the log shows a request's method and path, never its query) nor sent to the client. At
 * most 64 connections are open at once (more are answered 503). */
#ifndef E2B_TUNNEL_H
#define E2B_TUNNEL_H

#include "core/util/error.h"

typedef struct e2b_tunnel e2b_tunnel;

typedef struct e2b_tunnel_params {
    const char *upstream_url;   /* http:// or https://host[:port]; a path is ignored */
    const char *const *headers; /* "Name: value" lines added to each request; NULL-ended */
    const char *password;       /* the box's server password (required unless owner_only):
                                 * only requests that carry it as user opencode are forwarded
                                 * (tunnel_gate.h) */
    int owner_only;             /* a port with no password of its own (a dev server in the
                                 * box): no password is asked; instead only connections whose
                                 * peer socket belongs to this process's user (the kernel's
                                 * word, peer_uid.h) are served, others get 403 before their
                                 * head is read; Host, target and framing are checked alike */
    int local_port;             /* the port to listen on; 0 = one the kernel picks */
    long connect_timeout_ms;    /* 0 = 10 s */
} e2b_tunnel_params;

/* Listens and starts accepting. Returns the tunnel, or NULL with *err (also when there is
 * no password and not owner_only, or local_port is taken). */
e2b_tunnel *e2b_tunnel_open(const e2b_tunnel_params *p, e2b_error **err);
/* "http://127.0.0.1:PORT" (owned by the tunnel). */
const char *e2b_tunnel_url(const e2b_tunnel *t);
int e2b_tunnel_port(const e2b_tunnel *t);
/* Connections accepted so far (for tests and the log). */
unsigned long e2b_tunnel_connections(const e2b_tunnel *t);
/* Stops, ends every connection, joins the threads, wipes the headers, frees. NULL is fine. */
void e2b_tunnel_close(e2b_tunnel *t);

/* The head rewrite (exposed for the unit test): head is a request head of len bytes ending
 * in CRLF CRLF. Returns a new head (caller frees) with Host = host, the client's headers
 * named like one of extra dropped, extra added, and Connection: close (Connection: Upgrade
 * when the client asks for an upgrade; *upgrade is then 1). NULL when the head is not a
 * request head. */
char *e2b_tunnel_rewrite_head(const char *head, size_t len, const char *host,
                              const char *const *extra, size_t *out_len, int *upgrade);

#endif
