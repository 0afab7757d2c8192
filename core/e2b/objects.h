/* Plain C structs for what E2B returns (sandboxes, secrets, metrics, log lines), their free
 * functions, the JSON -> struct mappers, and the box / workspace / other classification.
 *
 * Ownership: every struct owns all of its strings and arrays. A struct filled by a mapper is
 * released with the matching *_clear (for a struct the caller allocated, e.g. on the stack)
 * or *_free (for one returned as a pointer). Strings that are optional are NULL when E2B
 * did not send them. Text from the network is stored as sent: sanitise it
 * (core/util/sanitize.h) before drawing it.
 *
 * Mappers accept missing optional fields, ignore unknown fields, treat JSON null as absent,
 * and reject a wrong-typed known field or a missing required one with an E2B_ERR_PROTOCOL
 * error that names the field ("sandbox 3: field 'cpuCount' should be an integer, got a
 * string"). On error the output is left empty (nothing to free). */
#ifndef E2B_OBJECTS_H
#define E2B_OBJECTS_H

#include "core/util/error.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* ---- metadata: an owned list of string pairs, in the order E2B sent them ---- */

typedef struct e2b_kv {
    char *key;
    char *value;
} e2b_kv;

typedef struct e2b_metadata {
    e2b_kv *items;
    size_t count;
} e2b_metadata;

/* The value for key, or NULL. The pointer is owned by md. */
const char *e2b_metadata_get(const e2b_metadata *md, const char *key);
/* Adds or replaces key (copies both). Returns 0, or -1 when out of memory. */
int e2b_metadata_set(e2b_metadata *md, const char *key, const char *value);
void e2b_metadata_clear(e2b_metadata *md);
/* A new JSON object holding md (caller decrefs). */
json_t *e2b_metadata_to_json(const e2b_metadata *md);

/* ---- sandboxes ---- */

typedef enum e2b_sandbox_state {
    E2B_STATE_UNKNOWN = 0,
    E2B_STATE_RUNNING,
    E2B_STATE_PAUSED,
} e2b_sandbox_state;

typedef enum e2b_sandbox_kind {
    E2B_KIND_OTHER = 0,
    E2B_KIND_BOX,       /* made by e2b-tui: metadata e2b-tui = box */
    E2B_KIND_WORKSPACE, /* an OpenCode 1 workspace */
} e2b_sandbox_kind;

/* One sandbox as listed (§1.5), detailed (§1.6), or created / connected (§1.4, §1.9). Fields a
 * given call does not return stay NULL / -1 / 0. */
typedef struct e2b_sandbox {
    char *sandbox_id; /* always set */
    char *template_id;
    char *alias;
    char *envd_version;
    e2b_sandbox_state state;
    int cpu_count;     /* -1 when unknown (paused sandboxes may report -1) */
    int memory_mb;     /* -1 when unknown */
    int disk_size_mb;  /* -1 when unknown */
    time_t started_at; /* 0 when unknown */
    time_t end_at;     /* 0 when unknown */
    e2b_metadata metadata;

    /* Detail / create / connect only. */
    char *domain;               /* sandbox domain, NULL = use the configured one */
    char *envd_access_token;    /* secret: never log it */
    char *traffic_access_token; /* secret: never log it */
    int allow_internet_access;  /* 1, 0, or -1 when unknown */
    char *on_timeout;           /* lifecycle.onTimeout: "kill" | "pause" */
    int auto_resume;            /* lifecycle.autoResume: 1, 0, or -1 when unknown */

    /* Filled by e2b_sandbox_classify. */
    e2b_sandbox_kind kind;
    char *box_name;   /* metadata e2b-tui.name (boxes only) */
    char *box_branch; /* metadata e2b-tui.branch (boxes only) */
    char *box_base;   /* metadata e2b-tui.base (boxes only) */
} e2b_sandbox;

typedef struct e2b_sandbox_list {
    e2b_sandbox *items;
    size_t count;
    long total_running; /* X-Total-Running of the first page, -1 when absent */
    /* 1: the pages were byte for byte those of the previous list (e2b_list_query's
     * report_unchanged), so nothing was parsed and items is empty. */
    int unchanged;
} e2b_sandbox_list;

/* Maps one sandbox object. *out is overwritten (not cleared first). */
e2b_error *e2b_sandbox_from_json(const json_t *obj, e2b_sandbox *out);
/* Appends every sandbox of a JSON array to list (which may already hold earlier pages). On
 * error the list keeps what it had before the call. */
e2b_error *e2b_sandbox_list_append_json(const json_t *array, e2b_sandbox_list *list);
void e2b_sandbox_clear(e2b_sandbox *sb);
void e2b_sandbox_free(e2b_sandbox *sb);
void e2b_sandbox_list_clear(e2b_sandbox_list *list);
/* For heap-allocated results (core/e2b/api.h callbacks): clear, then free the struct. */
void e2b_sandbox_list_free(e2b_sandbox_list *list);
/* Deep copy into *dst. Returns 0, or -1 when out of memory (dst is then empty). */
int e2b_sandbox_copy(const e2b_sandbox *src, e2b_sandbox *dst);

const char *e2b_sandbox_state_name(e2b_sandbox_state st); /* "running", "paused", "unknown" */
const char *e2b_sandbox_kind_name(e2b_sandbox_kind kind); /* "box", "workspace", "other" */

/* The default of config key workspace_keys. */
#define E2B_DEFAULT_WORKSPACE_KEYS "opencode-workspace,workspaceID"
/* The metadata keys of a box. */
#define E2B_META_APP "e2b-tui"
#define E2B_META_APP_BOX "box"
/* a sandbox that sets a project up for its prepared snapshot (never a box) */
#define E2B_META_APP_PREPARE "prepare"
#define E2B_META_NAME "e2b-tui.name"
#define E2B_META_BRANCH "e2b-tui.branch"
#define E2B_META_BASE "e2b-tui.base"
/* The box's lifetime in hours (what up gave it): a resume gives it that much again. */
#define E2B_META_HOURS "e2b-tui.hours"
/* "private" (ports need the traffic token) or "public"; absent on boxes made before. */
#define E2B_META_TRAFFIC "e2b-tui.traffic"
/* A random value per up, to find the sandbox of a create whose reply was lost. */
#define E2B_META_UP "e2b-tui.up"

/* Sets sb->kind and the box_* fields (README.md, "The dashboard"): box when metadata e2b-tui = box;
 * workspace when the template alias or id starts with "opencode-e2b-" or the metadata has
 * one of the comma-separated workspace_keys (NULL = the default); other otherwise.
 * Returns 0, or -1 when out of memory. */
int e2b_sandbox_classify(e2b_sandbox *sb, const char *workspace_keys);
/* Classifies every sandbox of the list. */
int e2b_sandbox_list_classify(e2b_sandbox_list *list, const char *workspace_keys);

/* ---- secrets (§1.14) ---- */

typedef struct e2b_secret {
    char *secret_id; /* always set */
    char *name;      /* always set */
    int64_t current_version;
    e2b_metadata metadata;
    time_t created_at; /* 0 when unknown */
    time_t updated_at; /* 0 when unknown */
} e2b_secret;

typedef struct e2b_secret_list {
    e2b_secret *items;
    size_t count;
} e2b_secret_list;

e2b_error *e2b_secret_from_json(const json_t *obj, e2b_secret *out);
e2b_error *e2b_secret_list_append_json(const json_t *array, e2b_secret_list *list);
void e2b_secret_clear(e2b_secret *s);
void e2b_secret_list_clear(e2b_secret_list *list);
void e2b_secret_free(e2b_secret *s);
void e2b_secret_list_free(e2b_secret_list *list);

/* ---- metrics (§1.11) ---- */

typedef struct e2b_metric {
    char *sandbox_id; /* set by the bulk mapper only, else NULL */
    time_t timestamp;
    int cpu_count;
    double cpu_used_pct;
    int64_t mem_used, mem_total, mem_cache; /* bytes, 0 when absent */
    int64_t disk_used, disk_total;          /* bytes, 0 when absent */
} e2b_metric;

typedef struct e2b_metric_list {
    e2b_metric *items;
    size_t count;
} e2b_metric_list;

e2b_error *e2b_metric_from_json(const json_t *obj, e2b_metric *out);
/* A JSON array of metrics (GET /sandboxes/{id}/metrics). */
e2b_error *e2b_metric_list_from_json(const json_t *array, e2b_metric_list *out);
/* The bulk shape {"sandboxes":{"<id>":metric,...}} (GET /sandboxes/metrics); sandbox_id set. */
e2b_error *e2b_metric_list_from_bulk_json(const json_t *obj, e2b_metric_list *out);
void e2b_metric_list_clear(e2b_metric_list *list);
void e2b_metric_list_free(e2b_metric_list *list);

/* ---- sandbox logs (§1.12, v2) ---- */

typedef struct e2b_log_entry {
    time_t timestamp;
    int timestamp_ms; /* the milliseconds part of the timestamp */
    char *level;      /* "debug" | "info" | "warn" | "error" or as sent; may be NULL */
    char *message;    /* always set (may be empty) */
    e2b_metadata fields;
} e2b_log_entry;

typedef struct e2b_log_list {
    e2b_log_entry *items;
    size_t count;
} e2b_log_list;

/* The shape {"logs":[...]}. */
e2b_error *e2b_log_list_from_json(const json_t *obj, e2b_log_list *out);
void e2b_log_list_clear(e2b_log_list *list);
void e2b_log_list_free(e2b_log_list *list);

/* ---- time ---- */

/* Parses an RFC 3339 date-time ("2025-01-02T03:04:05.123Z", "...+02:00") to UTC seconds;
 * the milliseconds go to *ms when ms is not NULL. Returns 0, or -1 when malformed. */
int e2b_parse_rfc3339(const char *s, time_t *out, int *ms);
/* Formats t as "2025-01-02T03:04:05Z" into buf (at least 21 bytes); an empty string when the
 * year is outside 0000..9999 (RFC 3339 cannot write it). */
void e2b_format_rfc3339(time_t t, char *buf, size_t size);

#endif
