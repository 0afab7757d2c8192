/* Private to core/agent/opencode*.c: the client's struct and the JSON helpers its files share. */
#ifndef E2B_OPENCODE_INTERNAL_H
#define E2B_OPENCODE_INTERNAL_H

#include "core/agent/opencode.h"

#include <jansson.h>

struct e2b_oc_client {
    e2b_loop *loop;
    int api;
    char *base_url;
    char *auth_header;    /* "Authorization: Basic …" (a secret), or NULL */
    char *token_header;   /* "e2b-traffic-access-token: …" (a secret), or NULL */
    char *dir_header;     /* "x-opencode-directory: …", or NULL */
    long timeout_ms;
};

/* The request headers (NULL-terminated, borrowed from c) plus extra (may be NULL). */
void oc_headers(const e2b_oc_client *c, const char *extra, const char **out, size_t max);

/* A bounded, sanitised copy of a JSON string member (NULL when absent or not a string). */
char *oc_str(json_t *obj, const char *key, size_t max);
/* The same for a JSON string value. */
char *oc_strv(json_t *v, size_t max);
/* A JSON integer or real member as int64 (0 when absent). */
int64_t oc_int(json_t *obj, const char *key);
/* The array of a list answer: v1 answers the bare array; v2's /api/... wraps it, as
 * {"data":[...]} (1.18.33, 2.0.7), {"items":[...],"cursor":...} (a 2.x source version) or
 * {"data":{"items":[...]}}; the first of these found. NULL when none is an array. */
json_t *oc_list(int api, json_t *root);
/* The object of an object answer: v1's bare object, v2's {"data":{...}}. */
json_t *oc_object(int api, json_t *root);
/* Joins the strings of a JSON array with sep (bounded, sanitised); NULL when none. */
char *oc_join(json_t *arr, const char *sep, size_t max);

/* Parsers of the REST bodies (opencode_parse.c): fill res, return 0 or -1 (not the shape). */
int oc_parse_requests(int api, bool question, json_t *root, e2b_oc_result *res);
int oc_request_from(int api, bool question, json_t *o, e2b_agent_request *r);
int oc_parse_todos(json_t *arr, e2b_agent_todo **out, size_t *n);
int oc_parse_sessions(int api, json_t *root, e2b_oc_result *res);
/* The same, with today (res->today) the local day of now_ms (tests). */
int oc_parse_sessions_at(int api, json_t *root, int64_t now_ms, e2b_oc_result *res);
int oc_parse_active(int api, json_t *root, e2b_oc_result *res);
/* An object's "tokens" {input,output,reasoning,cache{read,write}} and "cost" (a message, a
 * step, a session: both APIs) into u; what is absent stays unknown. */
void oc_usage_from(json_t *o, e2b_agent_usage *u);
/* v1 {"type":"retry","attempt","message","next"} or v2 {"type":"running"} into a. */
void oc_run_from(json_t *status, e2b_oc_active *a);

/* opencode_turn.c: a session's newest message into res->end, error, ended_ms, message_id. */
int oc_parse_last_turn(int api, json_t *root, e2b_oc_result *res);
int oc_parse_recent(int api, json_t *root, e2b_oc_result *res);
/* v2 GET /api/permission/saved into res->requests (id, action, detail = the resource). */
int oc_parse_saved(json_t *root, e2b_oc_result *res);
/* The words of an error object of either API (v1 {"name","data":{"message"}}, v2 {"type",
 * "message"}), the provider's own message unwrapped; bounded, sanitised, new (NULL: OOM). */
char *oc_error_text(json_t *err);
/* Whether the error says the turn was interrupted (aborted), not failed. */
bool oc_error_is_abort(json_t *err);

#endif
