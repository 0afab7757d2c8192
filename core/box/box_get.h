/* Files that exist only in the box (build output, logs, dist/): e2b-tui --get NAME PATH...
 * [--dir DEST] [--force] (README "Fetching files", man page).
 *
 *   e2b_box_get_params p = {.name = "feat-x", .paths = paths, .npaths = 1, .dest = "."};
 *   e2b_box_op *op = e2b_box_get(&env, &p, progress, done, ud, &err);
 *
 * Steps: find the box (its record: project paths need its directory) -> check every path
 * (e2b_box_get_where) -> connect (resumes a paused box; res.resumed) -> in the box, tar
 * packs the paths into one file under /tmp (links kept as links, never followed) and says
 * its size -> refused above limit.get_bytes before a byte is downloaded -> downloaded into
 * an unlinked file in DEST (a cancel or a kill leaves nothing), capped again as it arrives
 * (the box may lie) -> the box's file removed -> on a worker, two passes of libarchive over
 * the archive: the first checks every entry (a name under one of the asked paths, no
 * absolute name, no "..", no entry under a link of the archive, only files, folders and
 * links, the declared sizes added up within limit.get_bytes, and without force no entry
 * that exists in DEST unless both are folders) and refuses the whole archive at the first
 * fault, writing nothing; the second extracts under the real path of DEST with libarchive's
 * secure flags (never through a link, never ".."), permissions without set-id bits.
 * res.files: the entries written; res.bytes_in: their sizes; res.bundle_bytes: the bytes
 * downloaded; res.dir: DEST's real path. A cancel (e2b_box_op_cancel) stops the download. */
#ifndef E2B_BOX_GET_H
#define E2B_BOX_GET_H

#include "core/box/box.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define E2B_BOX_GET_PATHS_MAX 32
#define E2B_BOX_GET_ENTRIES_MAX 200000

typedef struct e2b_box_get_params {
    const char *name;                /* the box */
    const char *const *paths;        /* in the box: relative to its project, or absolute
                                      * inside the project or /tmp */
    size_t npaths;                   /* 1..E2B_BOX_GET_PATHS_MAX */
    const char *dest;                /* an existing local folder; NULL = "." */
    int force;                       /* overwrite existing local files */
} e2b_box_get_params;

e2b_box_op *e2b_box_get(const e2b_box_env *env, const e2b_box_get_params *p,
                        e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                        e2b_error **err);

/* Where path (as the user gave it) is in the box: its folder (*parent) and last name
 * (*leaf), both new strings, for a box whose project is project (NULL: not known, so only
 * /tmp paths). Refused (E2B_ERR_INVALID, saying why): empty, a ".." component, outside the
 * project and /tmp, the project or /tmp itself. "." components and repeated slashes are
 * dropped. Returns 0 or -1 with *err. */
int e2b_box_get_where(const char *path, const char *project, char **parent, char **leaf,
                      e2b_error **err);

/* The two passes over a downloaded archive (exposed for the unit test; the op runs them on
 * a worker): fd is the tar (read from its start), dest a real path (no link in it), leaves
 * the names every entry must start with. Returns NULL with files/bytes set, or the error
 * (caller frees): E2B_ERR_CONFLICT for existing files without force, nothing written by a
 * refused archive. cancel may be NULL. */
typedef struct e2b_box_unpack {
    int fd;
    const char *dest;
    char *const *leaves;
    size_t nleaves;
    int force;
    uint64_t cap;          /* the sizes of the entries, added up, at most */
    uint64_t files, bytes; /* out: entries written, their sizes */
} e2b_box_unpack;
e2b_error *e2b_box_get_unpack(e2b_box_unpack *u, const atomic_int *cancel);

#endif
