/* The tunnel's gate: what a request head must show before the tunnel (tunnel.h) forwards it
 * to the box, and where its body ends (so that no byte of a second request on the same
 * connection reaches the box unchecked).
 *
 * A head passes when its request line is "METHOD /origin-form-target HTTP/1.x" (not
 * CONNECT, not an absolute-form or asterisk target), it has exactly one Host header naming
 * the tunnel itself (127.0.0.1:PORT or localhost:PORT: a page that rebinds its own name to
 * 127.0.0.1 sends its own name), and it carries the box's password as OpenCode's server
 * takes it: "Authorization: Basic b64(opencode:PASSWORD)" or the query parameter
 * auth_token=b64(opencode:PASSWORD) (what OpenCode's web client puts on a WebSocket URL).
 * The credential is compared in constant time. Its body is framed by one Content-Length or
 * by "Transfer-Encoding: chunked", never both (a request the box could frame otherwise than
 * the tunnel would smuggle a second request past it).
 *
 * Pure functions, no I/O, no logging: the credential never leaves the caller's memory. */
#ifndef E2B_TUNNEL_GATE_H
#define E2B_TUNNEL_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a request body is in the stream that follows its head. */
typedef struct e2b_tunnel_body {
    int state;      /* internal: BODY_* of tunnel_gate.c */
    uint64_t left;  /* bytes left of a Content-Length body or of the current chunk */
    unsigned digits; /* of the chunk size line being read */
    unsigned line;   /* length of the chunk extension or trailer line being read */
} e2b_tunnel_body;

/* The gate's answer: status 0 lets the request through (*body then frames its body);
 * otherwise the HTTP status the tunnel answers itself (400, 401, 405, 421, 501) and
 * *reason a short static text for the client and the log (no part of the request). */
typedef struct e2b_tunnel_verdict {
    int status;
    const char *reason;
} e2b_tunnel_verdict;

/* Checks the head (len bytes ending in CRLF CRLF) of a request to the tunnel listening on
 * port; cred is "opencode:PASSWORD" (cred_len bytes), or NULL for an owner-only tunnel
 * (tunnel.h: its caller checked the peer's uid; no credential is asked then, and an
 * Authorization header goes through to the box untouched). */
e2b_tunnel_verdict e2b_tunnel_gate(const char *head, size_t len, int port, const uint8_t *cred,
                                   size_t cred_len, e2b_tunnel_body *body);

/* Feeds n bytes that follow the head: returns how many of them belong to the body. Then
 * e2b_tunnel_body_done() tells whether the body is complete (what follows is another
 * request, which the tunnel never forwards), e2b_tunnel_body_bad() whether its chunked
 * framing is broken (the connection is dropped). */
size_t e2b_tunnel_body_feed(e2b_tunnel_body *b, const char *p, size_t n);
bool e2b_tunnel_body_done(const e2b_tunnel_body *b);
bool e2b_tunnel_body_bad(const e2b_tunnel_body *b);

/* Whether a and b hold the same bytes, in a time that depends only on b_len (b is the
 * secret). */
bool e2b_tunnel_same_secret(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len);

#endif
