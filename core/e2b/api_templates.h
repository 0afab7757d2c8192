/* Snapshots, forks and templates on the E2B API (asynchronous, as api.h):
 *
 *   POST /sandboxes/{id}/snapshots {name}  -> e2b_snapshot (snapshotID, names)
 *   GET  /snapshots?sandboxID=            -> every page, e2b_snapshot_list
 *   DELETE /templates/{id}                  (as the SDK's deleteSnapshot; 404 = not found)
 *   GET  /templates                        -> e2b_template_list
 *   POST /sandboxes/{id}/fork {count, timeout} -> e2b_fork_list (a sandbox or an error each)
 *
 * Results belong to the callback (free with the matching *_free). Every string in them came
 * from the network: sanitise before drawing (core/util/sanitize.h). */
#ifndef E2B_API_TEMPLATES_H
#define E2B_API_TEMPLATES_H

#include "core/e2b/api.h"

#include <stddef.h>
#include <time.h>

typedef struct e2b_snapshot {
    char *snapshot_id; /* "team/name:tag" or "id:tag" */
    char **names;
    size_t nnames;
} e2b_snapshot;

typedef struct e2b_snapshot_list {
    e2b_snapshot *items;
    size_t count;
} e2b_snapshot_list;

typedef struct e2b_template {
    char *template_id;
    char **aliases;
    size_t naliases;
    char **names;
    size_t nnames;
    int is_public;
    time_t created_at, updated_at, last_spawned_at; /* 0 = unknown / never */
    long spawn_count, build_count;
} e2b_template;

typedef struct e2b_template_list {
    e2b_template *items;
    size_t count;
} e2b_template_list;

typedef struct e2b_fork_result {
    e2b_sandbox *sandbox; /* the fork, or NULL */
    e2b_error *error;     /* why it did not start, or NULL */
} e2b_fork_result;

typedef struct e2b_fork_list {
    e2b_fork_result *items;
    size_t count;
} e2b_fork_list;

void e2b_snapshot_free(e2b_snapshot *s);
void e2b_snapshot_list_free(e2b_snapshot_list *l);
void e2b_template_list_free(e2b_template_list *l);
void e2b_fork_list_free(e2b_fork_list *l);

/* Parsers (exposed for tests and fuzzing); NULL error on success. */
e2b_error *e2b_snapshot_from_json(const json_t *o, e2b_snapshot *out);
e2b_error *e2b_template_list_from_json(const json_t *a, e2b_template_list *out);

/* The most recent of lastSpawnedAt, updatedAt and createdAt (0 when none is known). */
time_t e2b_template_last_used(const e2b_template *t);

/* The OpenCode plugin's managed templates: the id or an alias starts with this. */
#define E2B_MANAGED_TEMPLATE_PREFIX "opencode-e2b-"
int e2b_template_is_managed(const e2b_template *t);

/* Who made a managed template: E2B's templates carry no metadata, so the name does. A
 * managed name that ends in "-m" and a machine id (core/util/machine_id.h) was made on that
 * machine, for the project named between the prefix and it:
 * "opencode-e2b-<project>-m<12 hex>". A managed template whose id and aliases carry no such
 * ending, or another machine's, is another machine's (the GC never deletes it). */
#define E2B_MANAGED_MACHINE_MARK "-m"
/* Whether one of t's managed names (id or alias) carries machine_id. */
int e2b_template_made_here(const e2b_template *t, const char *machine_id);
/* The project part of t's first managed name that carries a machine mark, into out (""
 * when there is none). */
void e2b_template_project(const e2b_template *t, char *out, size_t outsz);

/* Whether the GC removes t: managed, made on this machine (machine_id; NULL: none is),
 * not public, and last used (e2b_template_last_used) more than ttl_s before now. A
 * template with no time at all is kept (nothing says it is old). */
int e2b_template_gc_due(const e2b_template *t, time_t now, long ttl_s, const char *machine_id);

typedef void (*e2b_api_snapshot_fn)(void *ud, e2b_snapshot *snap, const e2b_error *err);
typedef void (*e2b_api_snapshot_list_fn)(void *ud, e2b_snapshot_list *list, const e2b_error *err);
typedef void (*e2b_api_template_list_fn)(void *ud, e2b_template_list *list, const e2b_error *err);
typedef void (*e2b_api_fork_fn)(void *ud, e2b_fork_list *forks, const e2b_error *err);

/* name may be NULL (the server names it). 404: no such sandbox; 409: paused. */
e2b_api_call *e2b_api_snapshot_create(e2b_client *c, const char *sandbox_id, const char *name,
                                      e2b_api_snapshot_fn fn, void *ud, e2b_error **err);
/* sandbox_id NULL = every snapshot of the team. All pages. */
e2b_api_call *e2b_api_snapshots_list(e2b_client *c, const char *sandbox_id, e2b_api_snapshot_list_fn fn,
                                     void *ud, e2b_error **err);
/* Deletes a template or snapshot; 404 comes back as E2B_ERR_NOT_FOUND. */
e2b_api_call *e2b_api_template_delete(e2b_client *c, const char *template_id, e2b_api_status_fn fn, void *ud,
                                      e2b_error **err);
e2b_api_call *e2b_api_templates_list(e2b_client *c, e2b_api_template_list_fn fn, void *ud, e2b_error **err);
/* count 1..100; timeout_s the forks' lifetime (0 = the server's default, 15 s). */
e2b_api_call *e2b_api_fork(e2b_client *c, const char *sandbox_id, int count, long timeout_s, e2b_api_fork_fn fn,
                           void *ud, e2b_error **err);

#endif
