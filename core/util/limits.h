/* The input policy for untrusted data, in one place: every cap on what a box, envd or the
 * E2B API can make e2b-tui read, keep or walk. A box runs an agent on code and prompts we do
 * not control, and the network can be anything: nothing it sends is trusted to be small,
 * finite or well-formed.
 *
 * Caps a user may raise (config file: `limit.<name> = <value>`, see
 * share/e2b-tui.conf.example), with their defaults:
 *   limit.bundle_bytes  2G     a pulled bundle as downloaded (a box could fill the disk)
 *   limit.get_bytes     1G     what --get copies from a box: its archive as downloaded and
 *                              the sizes its entries declare, added up
 *   limit.object_bytes  256M   one object of a pulled bundle, or one delta's base, result
 *                              or instructions, as declared (checked before inflating:
 *                              a few KB can declare gigabytes, which the import would build
 *                              in memory); GitHub refuses files over 100 MiB, and a delta's
 *                              import holds its base and result at once, so a pull's peak
 *                              stays near 0.5 GB
 *   limit.inflated_bytes 8G    all the sizes a pulled bundle declares, added up (the work
 *                              its import does; many deltas under object_bytes)
 *   limit.tree_depth    4096   trees nested in a pulled bundle (git's own limit)
 *   limit.delta_depth   4095   a delta chain in a pulled bundle (git never writes deeper;
 *                              its default is 50); libgit2 may rebuild a chain per object
 *   limit.list_pages    1000   pages of one list request (100 sandboxes or secrets each);
 *                              a nextToken seen before in the same list ends it too
 * Fixed caps, kept where they apply (they bound memory, not work a user may want more of):
 *   a bundle header 4 MiB, one header line 4096 bytes (core/git/bundle.h); the Log pane's
 *   history read 64 KiB (core/live/live_server_log.c); the pull script's output (core/box); the
 *   Changes pane's reads from a box (core/live/live_changes.c), the E2B_CHANGES_* below; the
 *   agent's newest message, read for how its last turn ended (E2B_AGENT_MESSAGE_BYTES).
 * Algorithms over untrusted input are linear (e.g. core/util/overlap.h) or bounded by a
 * cap above. Checked before use: a limit reached is an error that names the key to raise. */
#ifndef E2B_LIMITS_H
#define E2B_LIMITS_H

#include <stdint.h>

#include "core/util/error.h"

/* What the Changes pane reads from a box: the file list's output (cut in the box too) and
 * the files it keeps, one file's diff and the lines of it kept. */
enum {
    E2B_CHANGES_LIST_BYTES = 512 * 1024,
    E2B_CHANGES_FILES = 4096,
    E2B_CHANGES_DIFF_BYTES = 1024 * 1024,
    E2B_CHANGES_DIFF_LINES = 40000,
};

/* One page of a session's messages read to tell how its last turn ended (core/agent). */
enum { E2B_AGENT_MESSAGE_BYTES = 1024 * 1024 };

typedef struct e2b_limits {
    uint64_t bundle_bytes;
    uint64_t object_bytes;
    uint64_t inflated_bytes;
    uint64_t get_bytes;
    unsigned tree_depth;
    unsigned delta_depth;
    unsigned list_pages;
} e2b_limits;

/* The defaults above. */
e2b_limits e2b_limits_default(void);

/* Sets limit `name` (without the "limit." prefix) from text: the *_bytes limits take a number
 * of bytes with an optional K, M or G suffix (binary units); the others a plain number. Returns
 * NULL, or an E2B_ERR_INVALID error (the caller frees) for an unknown name or a bad value. */
e2b_error *e2b_limits_set(e2b_limits *l, const char *name, const char *value);

#endif
