/* e2b_gitwork_file_matches: is a box's version of a file the one in the local work tree? For
 * the kill's check, which counts as unpulled only what exists nowhere here. */
#include "core/git/gitwork.h"

#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A relative path with no "..", "." or empty component (it came from the box). */
static int e2b_path_safe(const char *p)
{
    if (!p || !*p || *p == '/' || strlen(p) >= PATH_MAX / 2)
        return 0;
    for (const char *c = p; *c;) {
        const char *slash = strchr(c, '/');
        size_t n = slash ? (size_t)(slash - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        c += n + (slash ? 1 : 0);
    }
    return 1;
}

int e2b_gitwork_file_matches(e2b_gitwork *g, const char *rel_path, const char *blob_hex,
                         unsigned long long max_bytes)
{
    char path[PATH_MAX];
    struct stat st;
    if (!g || !e2b_path_safe(rel_path))
        return 0;
    const char *wd = e2b_gitwork_workdir(g);
    size_t wn = strlen(wd);
    if (snprintf(path, sizeof path, "%s%s%s", wd, wn && wd[wn - 1] == '/' ? "" : "/",
                 rel_path) >= (int)sizeof path)
        return 0;
    int here = lstat(path, &st) == 0;
    if (!blob_hex || !*blob_hex)
        return !here; /* deleted in the box: a match when gone here too */
    git_oid want, got;
    if (!here || git_oid_fromstr(&want, blob_hex) != 0)
        return 0;
    if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        ssize_t n = readlink(path, target, sizeof target);
        if (n < 0 || (size_t)n >= sizeof target ||
            git_odb_hash(&got, target, (size_t)n, GIT_OBJECT_BLOB) != 0)
            return 0;
    } else if (!S_ISREG(st.st_mode) || (unsigned long long)st.st_size > max_bytes ||
               git_odb_hashfile(&got, path, GIT_OBJECT_BLOB) != 0) {
        return 0;
    }
    git_error_clear();
    return git_oid_equal(&want, &got);
}
