/* Templates of e2b-local beyond the built-in ones (base, opencode): templates seeded by
 * tests (POST /_e2b-local/templates) and persistent snapshots (POST
 * /sandboxes/{id}/snapshots), plus forks (POST /sandboxes/{id}/fork).
 *
 * A snapshot is a copy of the sandbox's root directory under STATE/templates/<id>/, usable
 * as a templateID in create; a fork is a new sandbox whose root is a copy of the parent's.
 * Both are filesystem copies: processes are not carried (E2B carries memory too). A sandbox
 * made from a snapshot, and a fork of one, is copy-on-write where cow.h can mount.
 *
 * The registry (STATE/templates.json) has its own lock, taken after g_lock when both are
 * needed; file copies run with neither held. */
#ifndef E2B_LOCAL_TEMPLATES_H
#define E2B_LOCAL_TEMPLATES_H

#include "http.h"

#include <stdbool.h>
#include <stddef.h>

/* Loads STATE/templates.json at startup (a missing file is an empty registry). */
void templates_load(void);

/* Resolves a create's templateID ("id", "alias", "local/alias", each with an optional
 * ":tag"). On success tid is the id stored on the sandbox and root the directory to copy
 * (empty unless it is a snapshot); false when no such template exists. */
bool template_resolve(const char *ref, char *tid, size_t tidlen, char *root, size_t rootlen);

/* A sandbox was created from tid: lastSpawnedAt and spawnCount move. */
void template_spawned(const char *tid);

/* Copies the directory tree src into dst (which exists); 0 or -1. */
int copy_tree(const char *src, const char *dst);

/* GET /templates, DELETE /templates/{id}, GET /snapshots. */
enum MHD_Result templates_handle(struct req *r);
/* POST /sandboxes/{id}/snapshots and POST /sandboxes/{id}/fork (they take g_lock). */
enum MHD_Result snapshot_create(struct req *r, const char *sandbox_id);
enum MHD_Result sandbox_fork(struct req *r, const char *sandbox_id);
/* POST /_e2b-local/templates: seeds a template (for tests of listing and GC). */
enum MHD_Result templates_admin(struct req *r);

/* Taken once per fork: an injected per-fork failure (fault kind "fork_fail"). */
bool fault_take_fork(const char *path);

#endif
