/* Sandbox paths seen from the host: every path a client names is resolved inside the
 * sandbox's root directory with openat2(RESOLVE_IN_ROOT), so neither ".." nor a symlink
 * planted inside a sandbox can reach the host's files. /usr maps to the host's /usr,
 * read-only, as inside the sandbox. */
#ifndef E2B_LOCAL_FS_H
#define E2B_LOCAL_FS_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

struct fsroot {
    int fd;             /* the directory the path is resolved in (owned) */
    bool readonly;
    char abs[4096];     /* normalised absolute path inside the sandbox */
    char rel[4096];     /* abs relative to fd ("." for the root itself) */
    uid_t uid;          /* owner for created files and directories */
    gid_t gid;
};

/* Resolves path (absolute, relative to the user's home, or "~/x") for user ("user" or
 * "root"). 0, or -1 with errno (ENOENT when the sandbox root is gone). */
int fs_resolve(const char *sandbox_id, const char *user, const char *path, struct fsroot *out);
void fs_release(struct fsroot *fr);
/* openat2 inside the root. */
int fs_open(const struct fsroot *fr, const char *rel, int flags, mode_t mode);
/* Creates every missing directory of rel (all of it when last=true; else up to its parent). */
int fs_mkdirs(const struct fsroot *fr, const char *rel, bool last);
/* EntryInfo for fr->abs (lstat semantics); NULL with errno. */
json_t *fs_entry(const struct fsroot *fr);

/* filesystem.Filesystem unary methods: body is the request; code and msg are set on failure. */
json_t *fs_rpc(const char *method, const char *sandbox_id, const char *user, json_t *body, const char **code,
               char *msg, size_t msglen);

#endif
