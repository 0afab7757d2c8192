/* bundle: import a git bundle (v2/v3, gitformat-bundle) into the local repository.
 *
 * The bundle comes from a remote sandbox, so it is untrusted: the header is validated
 * strictly and capped, prerequisites must already be present locally (checked before
 * anything is written), and the pack goes through libgit2's indexer with connectivity
 * verification (thin packs are completed from the local object database). A bundle that
 * fails at any point leaves no new file in the repository.
 *
 * Two layers:
 *  - e2b_bundle_header_parse(): a pure parser over bytes (no libgit2, no I/O), fuzzable;
 *  - bundle_import_*(): a push-style importer; feed it bytes as they arrive (a download
 *    callback), then finish, which commits the pack and optionally points
 *    refs/heads/<branch> at the chosen bundle ref (through e2b_gitwork_update_branch). Refs in
 *    the bundle are never written as refs: only the caller's branch is. */
#ifndef E2B_BUNDLE_H
#define E2B_BUNDLE_H

#include "core/git/gitwork.h"
#include "core/util/error.h"
#include "core/util/limits.h"

#include <stddef.h>
#include <stdint.h>

#define E2B_BUNDLE_HEADER_MAX (4u << 20) /* whole header, including the blank line */
#define E2B_BUNDLE_LINE_MAX 4096         /* one header line, without its newline */

typedef struct {
    char oid[41]; /* 40 lowercase hex */
    char *name;   /* "refs/heads/main", "HEAD", ... (malloc'd, owned by the header) */
} e2b_bundle_ref;

typedef struct {
    int version;          /* 2 or 3 */
    char (*prereqs)[41];  /* nprereqs commit ids that must exist locally */
    size_t nprereqs;
    e2b_bundle_ref *refs;     /* nrefs >= 1 */
    size_t nrefs;
    size_t header_len;    /* bytes up to and including the blank line; the pack follows */
    size_t prereqs_cap, refs_cap; /* the arrays' room (the parser's, through e2b_array_grow) */
} e2b_bundle_header;

/* Parses the header at the start of buf[0..len).
 * Returns 1 when complete (out filled; free with e2b_bundle_header_free), 0 when buf is a valid
 * prefix that needs more bytes, -1 when invalid (*err, when err is not NULL, set to a new
 * error: E2B_SUB_BAD_BUNDLE with the reason; out left empty). Rules: signature "# v2 git bundle" or "# v3 git bundle"; v3 capabilities
 * "@object-format=sha1" only (sha256 and "@filter=" are refused, as are unknown ones);
 * "-<40 hex>[ comment]" prerequisites; "<40 hex> <name>" refs (name: printable, no space;
 * "HEAD" and names outside refs/ allowed); lowercase hex of exactly 40 digits; no NUL or CR;
 * lines at most E2B_BUNDLE_LINE_MAX, header at most E2B_BUNDLE_HEADER_MAX; at least one ref. */
int e2b_bundle_header_parse(const uint8_t *buf, size_t len, e2b_bundle_header *out, e2b_error **err);
void e2b_bundle_header_free(e2b_bundle_header *h);

typedef struct {
    uint64_t bytes;            /* bytes fed so far (header + pack) */
    unsigned objects_received; /* from git_indexer_progress */
    unsigned objects_total;
    unsigned deltas_indexed;
    unsigned deltas_total;
    unsigned local_objects;    /* bases taken from the local repository (thin pack) */
} e2b_bundle_progress;

/* Called after each write of pack bytes and during finish's indexing, every MiB the scanner
 * inflates (inside an object too) and every few thousand objects of finish's history check;
 * a non-zero return cancels the import (E2B_SUB_CANCELLED). Threads: an importer is used by
 * one thread at a time, but finish may run on another thread than the writes (a worker: it
 * is the slow part); it touches only bi, its gitwork and the callback. While the pack is
 * fed, libgit2's indexer appends on a thread of the importer's own (core/git/pack_feed.h),
 * so the scan of the next bytes overlaps it; the callback is only called on the caller's. */
typedef int (*e2b_bundle_progress_cb)(const e2b_bundle_progress *p, void *ud);

typedef struct e2b_bundle_import e2b_bundle_import;

/* Prepares an import into g's repository (g must outlive the importer). cb may be NULL. */
e2b_error *e2b_bundle_import_new(e2b_bundle_import **out, e2b_gitwork *g, e2b_bundle_progress_cb cb,
                                 void *ud);

/* The caps of the input policy that apply (core/util/limits.h): limits->bundle_bytes
 * (bytes fed in all; more is E2B_SUB_BAD_BUNDLE), limits->tree_depth (trees nested
 * deeper are E2B_SUB_BAD_BUNDLE at finish), and object_bytes, inflated_bytes and
 * delta_depth, which the pack scanner (core/git/pack_scan.h) checks as the bytes are fed,
 * before libgit2's indexer gets them: a refused pack is E2B_SUB_BAD_BUNDLE from that write,
 * its memory never spent. The defaults apply until this is called (before the first write). */
void e2b_bundle_import_set_limits(e2b_bundle_import *bi, const e2b_limits *limits);

/* Feeds the next n bytes of the bundle. Returns NULL, or the import's error (owned by bi, as
 * e2b_bundle_import_error; e2b_error_copy keeps it); after an error every later call returns
 * it again. Errors (subcodes): E2B_SUB_BAD_BUNDLE (bad header/pack), E2B_SUB_MISSING_BASE (a
 * prerequisite is not here: nothing was written), E2B_SUB_CANCELLED,
 * E2B_SUB_FILE_IO/E2B_SUB_FAILED (local repository). */
const e2b_error *e2b_bundle_import_write(e2b_bundle_import *bi, const void *buf, size_t n);


/* Ends the input: commits the pack and resolves want_ref (a ref name from the bundle;
 * NULL = the bundle's only ref) to oid_out (41 bytes). The commit must be in the
 * repository afterwards. Errors: as for write, plus E2B_SUB_BAD_BUNDLE for a truncated bundle and
 * E2B_SUB_NO_REF when want_ref is not in the bundle (or NULL with several refs). */
const e2b_error *e2b_bundle_import_finish(e2b_bundle_import *bi, const char *want_ref,
                                          char oid_out[41]);

/* e2b_bundle_import_finish, then e2b_gitwork_update_branch(branch, force): the whole pull import.
 * outcome is set on success. Errors: those of both. */
const e2b_error *e2b_bundle_import_finish_branch(e2b_bundle_import *bi, const char *want_ref,
                                                 const char *branch, int force,
                                                 e2b_gitwork_branch_outcome *outcome,
                                                 char oid_out[41]);

const e2b_error *e2b_bundle_import_error(const e2b_bundle_import *bi);
const e2b_bundle_progress *e2b_bundle_import_progress(const e2b_bundle_import *bi);

/* Frees bi; an import that was not finished is abandoned and its temporary pack removed. */
void e2b_bundle_import_free(e2b_bundle_import *bi);

#endif
