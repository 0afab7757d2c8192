/* Plain JSON calls on the E2B API client, for the calls built outside api.c
 * (api_templates.c). Same rules as api.h: the callback runs once on the loop; value is the
 * parsed body (a paged call: every page's array items joined), owned by the callback
 * (json_decref), NULL on error or for an empty reply. */
#ifndef E2B_API_JSON_H
#define E2B_API_JSON_H

#include "core/e2b/api.h"

#include <jansson.h>

typedef void (*e2b_api_json_fn)(void *ud, json_t *value, long status, const e2b_error *err);

typedef struct e2b_json_call {
    const char *method;
    const char *path;      /* escaped already */
    const char *query;     /* without '?', may be NULL; a paged call adds nextToken to it */
    const json_t *body;    /* borrowed, may be NULL */
    const char *action;    /* "taking a snapshot of sandbox i1" */
    const char *not_found; /* the 404's sentence, may be NULL */
    long ok1, ok2;         /* accepted statuses (ok2 0 = only ok1) */
    int paged;             /* follow X-Next-Token; every page is an array */
    int retry_503;
    long timeout_ms;       /* at least this long (0 = the client's) */
} e2b_json_call;

e2b_api_call *e2b_api_json_call(e2b_client *c, const e2b_json_call *jc, e2b_api_json_fn fn, void *ud,
                                e2b_error **err);
/* The metadata keys that mark a workspace, for e2b_sandbox_classify. Borrowed. */
const char *e2b_client_workspace_keys(const e2b_client *c);

#endif
