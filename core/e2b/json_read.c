/* Typed JSON field readers (core/e2b/json_read.h). */
#include "core/e2b/json_read.h"

#include <stdlib.h>
#include <string.h>

const char *e2b_json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "something else";
}

int e2b_json_wrong_type(const char *what, const char *key, const char *want, const json_t *v,
                        e2b_error **err)
{
    *err = e2b_error_new(E2B_ERR_PROTOCOL, "%s: field '%s' should be %s, got %s", what, key, want,
                         e2b_json_type_name(v));
    return -1;
}

/* A present, non-null field, or NULL. */
json_t *e2b_json_field(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return v && !json_is_null(v) ? v : NULL;
}

int e2b_json_str(const json_t *obj, const char *what, const char *key, int required, char **out,
                 e2b_error **err)
{
    json_t *v = e2b_json_field(obj, key);
    *out = NULL;
    if (!v) {
        if (!required)
            return 0;
        *err = e2b_error_new(E2B_ERR_PROTOCOL, "%s: field '%s' is missing", what, key);
        return -1;
    }
    if (!json_is_string(v))
        return e2b_json_wrong_type(what, key, "a string", v, err);
    *out = strdup(json_string_value(v));
    if (!*out) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return -1;
    }
    return 0;
}

/* Integers; int64 fields may also arrive as decimal strings (protobuf JSON). */
int e2b_json_i64(const json_t *obj, const char *what, const char *key, int64_t dflt, int64_t *out,
                 e2b_error **err)
{
    json_t *v = e2b_json_field(obj, key);
    *out = dflt;
    if (!v)
        return 0;
    if (json_is_integer(v)) {
        *out = (int64_t)json_integer_value(v);
        return 0;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        long long n = strtoll(s, &end, 10);
        if (*s && !*end) {
            *out = n;
            return 0;
        }
    }
    return e2b_json_wrong_type(what, key, "an integer", v, err);
}

int e2b_json_int(const json_t *obj, const char *what, const char *key, int dflt, int *out,
                 e2b_error **err)
{
    int64_t v;
    if (e2b_json_i64(obj, what, key, dflt, &v, err) < 0)
        return -1;
    if (v < -2147483647LL || v > 2147483647LL) {
        *err = e2b_error_new(E2B_ERR_PROTOCOL, "%s: field '%s' is out of range", what, key);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int e2b_json_real(const json_t *obj, const char *what, const char *key, double *out,
                  e2b_error **err)
{
    json_t *v = e2b_json_field(obj, key);
    *out = 0;
    if (!v)
        return 0;
    if (!json_is_number(v))
        return e2b_json_wrong_type(what, key, "a number", v, err);
    *out = json_number_value(v);
    return 0;
}

/* -1 unknown, else 0/1. */
int e2b_json_bool(const json_t *obj, const char *what, const char *key, int *out, e2b_error **err)
{
    json_t *v = e2b_json_field(obj, key);
    *out = -1;
    if (!v)
        return 0;
    if (!json_is_boolean(v))
        return e2b_json_wrong_type(what, key, "a boolean", v, err);
    *out = json_is_true(v);
    return 0;
}

int e2b_json_time(const json_t *obj, const char *what, const char *key, time_t *out, int *ms,
                  e2b_error **err)
{
    json_t *v = e2b_json_field(obj, key);
    *out = 0;
    if (ms)
        *ms = 0;
    if (!v)
        return 0;
    if (!json_is_string(v))
        return e2b_json_wrong_type(what, key, "an RFC 3339 date", v, err);
    if (e2b_parse_rfc3339(json_string_value(v), out, ms) < 0) {
        *err = e2b_error_new(E2B_ERR_PROTOCOL, "%s: field '%s' is not an RFC 3339 date", what, key);
        return -1;
    }
    return 0;
}

int e2b_json_metadata(const json_t *obj, const char *what, const char *key, e2b_metadata *md,
                      e2b_error **err)
{
    json_t *v = e2b_json_field(obj, key);
    const char *k;
    json_t *val;
    memset(md, 0, sizeof *md);
    if (!v)
        return 0;
    if (!json_is_object(v))
        return e2b_json_wrong_type(what, key, "an object", v, err);
    json_object_foreach(v, k, val)
    {
        if (!json_is_string(val)) {
            e2b_metadata_clear(md);
            *err = e2b_error_new(E2B_ERR_PROTOCOL, "%s: %s value '%s' should be a string, got %s",
                                 what, key, k, e2b_json_type_name(val));
            return -1;
        }
        if (e2b_metadata_set(md, k, json_string_value(val)) < 0) {
            e2b_metadata_clear(md);
            *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
            return -1;
        }
    }
    return 0;
}

int e2b_json_need_object(const json_t *obj, const char *what, e2b_error **err)
{
    if (json_is_object(obj))
        return 0;
    *err = e2b_error_new(E2B_ERR_PROTOCOL, "%s should be a JSON object, got %s", what,
                         obj ? e2b_json_type_name(obj) : "nothing");
    return -1;
}

int e2b_json_need_array(const json_t *v, const char *what, e2b_error **err)
{
    if (json_is_array(v))
        return 0;
    *err = e2b_error_new(E2B_ERR_PROTOCOL, "%s should be a JSON array, got %s", what,
                         v ? e2b_json_type_name(v) : "nothing");
    return -1;
}

const char *e2b_json_text(const json_t *obj, const char *key, const char *dflt)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : dflt;
}

char *e2b_json_dup(const json_t *obj, const char *key)
{
    const char *s = e2b_json_text(obj, key, NULL);
    return s ? strdup(s) : NULL;
}
