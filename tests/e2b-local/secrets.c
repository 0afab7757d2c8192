/* Secrets store and API; see secrets.h. */
#include "secrets.h"
#include "sandbox.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static json_t *store; /* array of records incl. "value" */

static void store_path(char *out, size_t len)
{
    snprintf(out, len, "%s/secrets.json", g_cfg.state_dir);
}

void secrets_load(void)
{
    char path[2200];
    store_path(path, sizeof path);
    json_error_t err;
    store = json_load_file(path, 0, &err);
    if (!json_is_array(store)) {
        json_decref(store);
        store = json_array();
    }
}

void secrets_free(void)
{
    json_decref(store);
    store = NULL;
}

static int save(void)
{
    char path[2200];
    store_path(path, sizeof path);
    char *text = json_dumps(store, JSON_COMPACT);
    int rc = write_file_atomic(path, text, strlen(text), 0600);
    free(text);
    return rc;
}

static json_t *public_view(json_t *rec)
{
    char created[40], updated[40];
    rfc3339(json_integer_value(json_object_get(rec, "createdMs")), created, sizeof created);
    rfc3339(json_integer_value(json_object_get(rec, "updatedMs")), updated, sizeof updated);
    return json_pack("{s:O, s:O, s:O, s:O, s:s, s:s}", "secretID", json_object_get(rec, "secretID"), "name",
                     json_object_get(rec, "name"), "currentVersion", json_object_get(rec, "currentVersion"),
                     "metadata", json_object_get(rec, "metadata"), "createdAt", created, "updatedAt", updated);
}

static json_t *find(const char *key, size_t *index)
{
    size_t i;
    json_t *rec;
    json_array_foreach(store, i, rec) {
        if (strcmp(json_string_value(json_object_get(rec, "secretID")), key) == 0 ||
            strcasecmp(json_string_value(json_object_get(rec, "name")), key) == 0) {
            if (index)
                *index = i;
            return rec;
        }
    }
    return NULL;
}

/* NULL when valid, else why not. */
static const char *check_metadata(json_t *md)
{
    if (!md)
        return NULL;
    if (!json_is_object(md))
        return "metadata must be an object of strings";
    if (json_object_size(md) > 32)
        return "metadata may hold at most 32 entries";
    size_t total = 0;
    const char *k;
    json_t *v;
    json_object_foreach(md, k, v) {
        if (!json_is_string(v))
            return "metadata values must be strings";
        if (strlen(k) > 128 || json_string_length(v) > 1024)
            return "metadata key or value too long";
        total += strlen(k) + json_string_length(v);
    }
    return total > 8192 ? "metadata larger than 8 KiB" : NULL;
}

static const char *check_name(const char *name)
{
    if (!name || !*name)
        return "name is required";
    if (strncasecmp(name, "sec_", 4) == 0)
        return "names starting with sec_ are reserved";
    for (const char *p = name; *p; p++)
        if (*p == '{' || *p == '}' || iscntrl((unsigned char)*p))
            return "name must not contain {, } or control characters";
    return strlen(name) > 256 ? "name too long" : NULL;
}

static enum MHD_Result create(struct req *r, json_t *body)
{
    const char *name = json_string_value(json_object_get(body, "name"));
    const char *value = json_string_value(json_object_get(body, "value"));
    json_t *md = json_object_get(body, "metadata");
    const char *why = check_name(name);
    if (!why && !value)
        why = "value is required";
    if (!why)
        why = check_metadata(md);
    if (why)
        return reply_error(r, 400, "%s", why);
    char *lower = strdup(name);
    for (char *p = lower; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    if (find(lower, NULL)) {
        free(lower);
        return reply_error(r, 409, "a secret named '%s' already exists", name);
    }
    char id[40] = "sec_";
    random_alnum(id + 4, 20);
    int64_t now = now_ms();
    json_t *rec = json_pack("{s:s, s:s, s:s, s:I, s:o, s:I, s:I}", "secretID", id, "name", lower, "value", value,
                            "currentVersion", (json_int_t)1, "metadata", md ? json_incref(md) : json_object(),
                            "createdMs", (json_int_t)now, "updatedMs", (json_int_t)now);
    free(lower);
    json_array_append_new(store, rec);
    if (save() != 0)
        return reply_error(r, 500, "cannot store the secret");
    return reply_json(r, 201, public_view(rec));
}

static enum MHD_Result list(struct req *r)
{
    bool bad = false;
    char *lim = req_query(r, "limit", &bad);
    char *tok = req_query(r, "nextToken", &bad);
    long limit = lim ? strtol(lim, NULL, 10) : 100;
    long start = tok ? strtol(tok, NULL, 10) : 0;
    free(lim);
    free(tok);
    if (bad || limit <= 0 || start < 0)
        return reply_error(r, 400, "invalid limit or nextToken");
    if (limit > 100)
        limit = 100;
    json_t *out = json_array();
    size_t n = json_array_size(store);
    for (size_t i = (size_t)start; i < n && json_array_size(out) < (size_t)limit; i++)
        json_array_append_new(out, public_view(json_array_get(store, i)));
    if ((size_t)start + (size_t)limit < n) {
        char next[32];
        snprintf(next, sizeof next, "%ld", start + limit);
        req_add_header(r, "X-Next-Token", next);
    }
    return reply_json(r, 200, out);
}

enum MHD_Result secrets_handle(struct req *r)
{
    const char *key = r->path[8] == '/' ? r->path + 9 : NULL; /* after "/secrets" */
    json_t *body = NULL;
    if (r->body.len) {
        json_error_t err;
        body = json_loadb(r->body.data, r->body.len, 0, &err);
        if (!json_is_object(body)) {
            json_decref(body);
            return reply_error(r, 400, "the body must be a JSON object");
        }
    }
    enum MHD_Result rc;
    pthread_mutex_lock(&lock);
    if (!key || !*key) {
        if (strcmp(r->method, "GET") == 0)
            rc = list(r);
        else if (strcmp(r->method, "POST") == 0)
            rc = body ? create(r, body) : reply_error(r, 400, "a JSON body is required");
        else
            rc = reply_error(r, 405, "method not allowed");
    } else {
        size_t idx = 0;
        json_t *rec = find(key, &idx);
        if (!rec) {
            rc = reply_error(r, 404, "secret '%s' not found", key);
        } else if (strcmp(r->method, "GET") == 0) {
            rc = reply_json(r, 200, public_view(rec));
        } else if (strcmp(r->method, "DELETE") == 0) {
            json_array_remove(store, idx);
            rc = save() == 0 ? reply_empty(r, 204) : reply_error(r, 500, "cannot store secrets");
        } else if (strcmp(r->method, "POST") == 0 || strcmp(r->method, "PATCH") == 0) {
            const char *value = json_string_value(json_object_get(body, "value"));
            json_t *md = json_object_get(body, "metadata");
            const char *why = !body ? "a JSON body is required" : check_metadata(md);
            if (!why && !value && !md)
                why = "value or metadata is required";
            if (why) {
                rc = reply_error(r, 400, "%s", why);
            } else {
                if (value) {
                    json_object_set_new(rec, "value", json_string(value));
                    json_object_set_new(rec, "currentVersion",
                                        json_integer(json_integer_value(json_object_get(rec, "currentVersion")) + 1));
                }
                if (md)
                    json_object_set(rec, "metadata", md);
                json_object_set_new(rec, "updatedMs", json_integer(now_ms()));
                rc = save() == 0 ? reply_json(r, 200, public_view(rec)) : reply_error(r, 500, "cannot store secrets");
            }
        } else {
            rc = reply_error(r, 405, "method not allowed");
        }
    }
    pthread_mutex_unlock(&lock);
    json_decref(body);
    return rc;
}

char *secrets_value(const char *name)
{
    pthread_mutex_lock(&lock);
    json_t *rec = store && name && *name ? find(name, NULL) : NULL;
    const char *v = rec ? json_string_value(json_object_get(rec, "value")) : NULL;
    char *out = v ? strdup(v) : NULL;
    pthread_mutex_unlock(&lock);
    return out;
}
