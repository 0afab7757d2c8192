/* Which OpenCode a machine has (the box, or this one), told by asking its binaries.
 *
 * OpenCode 2's beta installs as `opencode2`; OpenCode 2 stable installs as `opencode` and
 * replaces 1.x, which is also `opencode`: the name does not tell the version, `--version`
 * does. What follows from the answer:
 *
 *   found                  API              serve (in the box)    attach (here)
 *   opencode2 (any)        v2, /api/...       opencode2 serve ...   opencode2 --server {url} {dir}
 *   opencode 2.x or later  v2, /api/...       opencode serve ...    opencode --server {url} {dir}
 *   opencode 1.x           v1, root routes  opencode serve ...    opencode attach {url} --dir {dir}
 *
 * When a machine has several, the one whose API `prefer` names wins (the other side's, so
 * that both ends speak the same API), else opencode 2.x, then opencode2, then opencode 1.x.
 *
 * The probe's output is untrusted (the box's, or whatever is first on PATH): bounded and
 * sanitised before it is kept. Pure except e2b_opencode_kind_local, which runs programs
 * and blocks: call it on a worker thread or in a one-shot mode, never on the UI thread. */
#ifndef E2B_OPENCODE_KIND_H
#define E2B_OPENCODE_KIND_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct e2b_opencode_kind {
    int api;          /* 2: the v2 API under /api/...; 1: the v1 root routes; 0: none found */
    char bin[16];     /* "opencode2" or "opencode" ("" when none) */
    char version[40]; /* what its --version said (one word, sanitised); "" when unknown */
} e2b_opencode_kind;

/* The box's probe: a bash script printing at once "found: NAMES" (which of opencode2 and
 * opencode are on PATH), then "NAME VERSION" for each (VERSION empty when --version
 * failed), each bounded in time. */
extern const char E2B_OPENCODE_KIND_PROBE[];

/* The probe's first line, once it is complete in text: how many of the two names are on
 * PATH, and into bin the one whose serve command is known already (the only one found;
 * "" when none or both: then the versions decide). -1 while the line is not complete. */
int e2b_opencode_kind_found(const char *text, size_t len, char *bin, size_t size);

/* Parses probe output ("NAME VERSION" lines; anything else is skipped) and picks as above.
 * out->api is 0 when neither binary gave a version. Returns out->api. */
int e2b_opencode_kind_parse(const char *text, size_t len, int prefer, e2b_opencode_kind *out);

/* The same probe on this machine: runs `opencode2 --version` and `opencode --version` from
 * PATH (each at most 10 s; stops early when *cancel, which may be NULL, becomes non-zero).
 * An answer is kept for the process's lifetime while the binaries found on PATH are the
 * same files (the 1.x binary takes 1.5 s to print its version). prefer as for parse (the
 * box's API). Blocks. Returns out->api. */
int e2b_opencode_kind_local(int prefer, e2b_opencode_kind *out, const atomic_int *cancel);

/* The kind a record written before detection names: its preset api (1, else 2), the
 * preset's binary, no version. */
void e2b_opencode_kind_from_preset(int api, e2b_opencode_kind *out);

/* Presets for a found kind (static strings; k->api 0 gives the v2 beta's, the old
 * default): the serve command, the attach command and the health path. */
const char *e2b_opencode_kind_serve(const e2b_opencode_kind *k);
const char *e2b_opencode_kind_attach(const e2b_opencode_kind *k);
const char *e2b_opencode_kind_health(int api);

/* "opencode 1.18.33 (v1 API)", "opencode2 (v2 API)", "none found" into buf. */
const char *e2b_opencode_kind_describe(const e2b_opencode_kind *k, char *buf, size_t size);

/* NULL when a client of kind client can talk to a server of api server_api (either side
 * unknown counts as yes), else a sentence saying what to install (static). */
const char *e2b_opencode_kind_mismatch(const e2b_opencode_kind *client, int server_api);

#endif
