#include "core/git/upload.h"

#include "core/git/upload_gitconfig.h"
#include "core/git/upload_pack.h"
#include "core/git/upload_split.h"

#include <git2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

e2b_error *e2b_upload_add_gitconfig(e2b_tarball *t, const char *root, const char *name)
{
    char path[4200], rel[64];
    struct stat st;
    snprintf(path, sizeof path, "%s/.git/%s", root, name);
    snprintf(rel, sizeof rel, ".git/%s", name);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return NULL;
    char *text = NULL;
    size_t len = 0;
    e2b_error *e = e2b_upload_gitconfig(path, &text, &len);
    if (!e)
        e = e2b_tarball_add_data(t, rel, text, len);
    if (text) {
        explicit_bzero(text, len);
        free(text);
    }
    return e;
}

static int append(e2b_upload_list *to, e2b_upload_list *from)
{
    if (from->count == 0)
        return 0;
    char **n = realloc(to->paths, (to->count + from->count) * sizeof *n);
    if (!n)
        return -1;
    memcpy(n + to->count, from->paths, from->count * sizeof *n);
    to->paths = n;
    to->count += from->count;
    to->cap = to->count;
    free(from->paths);
    memset(from, 0, sizeof *from);
    return 0;
}

/* e, or when there is none and the caller cancelled, E2B_SUB_CANCELLED. */
static e2b_error *stop(const atomic_int *cancel, e2b_error *e)
{
    if (!e && cancel && atomic_load(cancel))
        return e2b_error_local(E2B_SUB_CANCELLED, "cancelled");
    return e;
}

static int has_git_dir(const e2b_gitwork_filelist *files)
{
    for (size_t i = 0; i < files->count; i++)
        if (strcmp(files->paths[i], ".git") == 0)
            return 1;
    return 0;
}

e2b_error *e2b_upload_prepare(e2b_gitwork *g, int gzip_level, unsigned flags,
                              const atomic_int *cancel, e2b_upload_set *out)
{
    memset(out, 0, sizeof *out);
    const char *root = e2b_gitwork_workdir(g);
    git_repository *repo = e2b_gitwork_repo(g);
    e2b_gitwork_filelist files = {0};
    e2b_upload_list gz = {0}, plain = {0};
    e2b_error *e = stop(cancel, e2b_gitwork_list_files(g, &files));
    /* The history as a pack of what is reachable (upload_pack.h); libgit2 cannot walk the
     * history of a shallow clone, whose objects go as files (reachable ones, as fetched). */
    int pack = !e && has_git_dir(&files) && git_repository_is_shallow(repo) != 1;
    if (!e)
        e = stop(cancel, e2b_upload_split(root, (const char *const *)files.paths, files.count,
                                          pack ? 0 : E2B_UPLOAD_SPLIT_HISTORY_FILES, &gz, &plain));
    if (!e && (flags & E2B_UPLOAD_ONE_ARCHIVE) && append(&gz, &plain) < 0)
        e = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    if (!e)
        e = stop(cancel, e2b_tarball_new(&out->gz, root, (const char *const *)gz.paths, gz.count,
                                         gzip_level));
    if (!e)
        e = e2b_upload_add_gitconfig(out->gz, root, "config");
    if (!e)
        e = e2b_upload_add_gitconfig(out->gz, root, "config.worktree");
    for (size_t i = 0; !e && i < files.nsubmodules; i++)
        e = e2b_tarball_add_empty_dir(out->gz, files.submodules[i]);
    if (!e && (plain.count || (pack && !(flags & E2B_UPLOAD_ONE_ARCHIVE))))
        e = e2b_tarball_new(&out->plain, root, (const char *const *)plain.paths, plain.count,
                            E2B_TARBALL_PLAIN);
    if (!e && pack) {
        e2b_upload_pack_info info;
        e = e2b_upload_pack_add(repo, NULL, NULL, (flags & E2B_UPLOAD_STASH) ? E2B_UPLOAD_PACK_STASH : 0,
                                cancel, out->gz, out->plain ? out->plain : out->gz, &info);
    }
    e2b_gitwork_filelist_free(&files);
    e2b_upload_list_free(&gz);
    e2b_upload_list_free(&plain);
    if (e)
        e2b_upload_set_free(out);
    return e;
}

void e2b_upload_set_free(e2b_upload_set *s)
{
    e2b_tarball_free(s->gz);
    e2b_tarball_free(s->plain);
    memset(s, 0, sizeof *s);
}
