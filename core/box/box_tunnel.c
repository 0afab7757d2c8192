/* The loopback tunnel to a box's server (core/net/tunnel.h) from an attach result: the
 * upstream is the server's port URL on E2B's proxy, and the one added header is the
 * sandbox's traffic token (private boxes). The password is not added: the client sends it,
 * and the tunnel forwards only requests that carry it. */
#include "core/box/box.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

e2b_tunnel *e2b_box_tunnel_open(const e2b_box_result *r, e2b_error **err)
{
    if (!r || !r->url) {
        *err = e2b_error_new(E2B_ERR_INVALID, "the box has no server URL to tunnel to");
        return NULL;
    }
    char *tok = NULL;
    if (r->traffic_token && *r->traffic_token &&
        asprintf(&tok, "e2b-traffic-access-token: %s", r->traffic_token) < 0) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    const char *headers[2] = {tok, NULL};
    e2b_tunnel_params p = {.upstream_url = r->url, .headers = headers, .password = r->password};
    e2b_tunnel *t = e2b_tunnel_open(&p, err);
    if (tok) {
        explicit_bzero(tok, strlen(tok));
        free(tok);
    }
    if (!t)
        e2b_error_set_action(*err, "opening the tunnel to box %s", r->name ? r->name : "");
    return t;
}
