/* The one reader of JSON fields in core/ (the API's and envd's replies, the box records):
 * typed lookups that treat an absent and a null field alike.
 *
 * The checked readers return 0, or set *err (a protocol error naming what and the field,
 * caller frees) and return -1; "what" names the object for that message ("sandbox 3").
 * Their out values are set either way (the default when absent). The lenient ones
 * (e2b_json_text, e2b_json_dup) take a field of the wrong type as absent: for files this
 * machine wrote and for optional fields whose absence is no error. */
#ifndef E2B_JSON_READ_H
#define E2B_JSON_READ_H

#include <jansson.h>
#include <stdint.h>
#include <time.h>

#include "core/e2b/objects.h"
#include "core/util/error.h"

/* "an object", "a string", ... (for messages). */
const char *e2b_json_type_name(const json_t *v);
/* Sets *err to "what: field 'key' should be want, got <type of v>"; returns -1. */
int e2b_json_wrong_type(const char *what, const char *key, const char *want, const json_t *v,
                        e2b_error **err);
/* The field when present and not null, else NULL (borrowed). */
json_t *e2b_json_field(const json_t *obj, const char *key);

/* A string, malloc'd into *out (NULL when absent; an error when required and absent). */
int e2b_json_str(const json_t *obj, const char *what, const char *key, int required, char **out,
                 e2b_error **err);
/* Integers; an int64 may also arrive as a decimal string (protobuf JSON). */
int e2b_json_i64(const json_t *obj, const char *what, const char *key, int64_t dflt, int64_t *out,
                 e2b_error **err);
int e2b_json_int(const json_t *obj, const char *what, const char *key, int dflt, int *out,
                 e2b_error **err);
int e2b_json_real(const json_t *obj, const char *what, const char *key, double *out,
                  e2b_error **err);
/* *out: -1 absent, else 0/1. */
int e2b_json_bool(const json_t *obj, const char *what, const char *key, int *out, e2b_error **err);
/* An RFC 3339 date; ms (may be NULL) gets its milliseconds. */
int e2b_json_time(const json_t *obj, const char *what, const char *key, time_t *out, int *ms,
                  e2b_error **err);
/* An object of strings into *md (emptied first; the caller clears it). */
int e2b_json_metadata(const json_t *obj, const char *what, const char *key, e2b_metadata *md,
                      e2b_error **err);
int e2b_json_need_object(const json_t *obj, const char *what, e2b_error **err);
int e2b_json_need_array(const json_t *v, const char *what, e2b_error **err);

/* Lenient: the string at key (borrowed from obj), or dflt when absent or not a string. */
const char *e2b_json_text(const json_t *obj, const char *key, const char *dflt);
/* Lenient: a malloc'd copy of the string at key, or NULL when absent, not a string or out
 * of memory. */
char *e2b_json_dup(const json_t *obj, const char *key);

#endif
