/* The delta of an up from a snapshot (delta.h). */
#include "core/git/delta.h"

#include "core/git/upload_pack.h"
#include "core/git/upload_split.h"
#include "core/util/strvec.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    e2b_strvec send;     /* work tree paths to send */
    e2b_strvec deleted;  /* paths to remove in the box */
    size_t del_bytes;
} diff_lists;

static int on_file(const git_diff_delta *d, float progress, void *payload)
{
    diff_lists *l = payload;
    (void)progress;
    /* Submodules (gitlinks) are the box's own business, as in a full up. */
    if (d->new_file.mode == GIT_FILEMODE_COMMIT || d->old_file.mode == GIT_FILEMODE_COMMIT)
        return 0;
    switch (d->status) {
    case GIT_DELTA_DELETED:
        l->del_bytes += strlen(d->old_file.path) + 1;
        return e2b_strvec_push(&l->deleted, d->old_file.path);
    case GIT_DELTA_ADDED:
    case GIT_DELTA_MODIFIED:
    case GIT_DELTA_UNTRACKED:
    case GIT_DELTA_TYPECHANGE:
        /* A type change (file <-> symlink) is sent whole: the reset put base's kind there. */
        return e2b_strvec_push(&l->send, d->new_file.path);
    default:
        return 0;
    }
}

/* .git's children a full up sends (e2b_upload_split without the history: the pack and the
 * refs come from e2b_upload_pack_add). */
static e2b_error *git_children(const char *root, e2b_strvec *out)
{
    const char *git[] = {".git"};
    e2b_upload_list gz = {0}, plain = {0};
    e2b_error *e = e2b_upload_split(root, git, 1, 0, &gz, &plain);
    if (e2b_error_sub_of(e) == E2B_SUB_FILE_IO) {
        e2b_error_free(e);
        e = e2b_error_local(E2B_SUB_FAILED, "cannot read %s/.git (linked worktrees and separate "
                                            "git directories cannot be uploaded)", root);
    }
    for (size_t i = 0; !e && i < gz.count + plain.count; i++)
        if (e2b_strvec_push(out, i < gz.count ? gz.paths[i] : plain.paths[i - gz.count]) < 0)
            e = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    e2b_upload_list_free(&gz);
    e2b_upload_list_free(&plain);
    return e;
}

static e2b_error *cancelled(const atomic_int *cancel)
{
    if (cancel && atomic_load(cancel))
        return e2b_error_local(E2B_SUB_CANCELLED, "cancelled");
    return NULL;
}

e2b_error *e2b_delta_prepare(e2b_gitwork *g, const char *base_hex, int gzip_level, unsigned flags,
                             const atomic_int *cancel, e2b_upload_set *out, e2b_delta_info *info)
{
    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    git_repository *repo = e2b_gitwork_repo(g);
    const char *root = e2b_gitwork_workdir(g);
    git_oid base;
    git_commit *commit = NULL;
    git_tree *tree = NULL;
    if (!base_hex || git_oid_fromstr(&base, base_hex) != 0 || git_commit_lookup(&commit, repo, &base) != 0 ||
        git_commit_tree(&tree, commit) != 0) {
        git_commit_free(commit);
        return e2b_error_local(E2B_SUB_MISSING_BASE, "the snapshot's commit %.40s is not in this repository",
                               base_hex ? base_hex : "");
    }
    git_commit_free(commit);

    diff_lists l = {0};
    git_diff *diff = NULL;
    git_diff_options o;
    git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
    o.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS | GIT_DIFF_INCLUDE_TYPECHANGE;
    e2b_error *e = NULL;
    if (git_diff_tree_to_workdir_with_index(&diff, repo, tree, &o) != 0 ||
        git_diff_foreach(diff, on_file, NULL, NULL, NULL, &l) != 0)
        e = e2b_gitwork_git_error(E2B_SUB_FAILED, "comparing the project with the snapshot's commit");
    git_diff_free(diff);
    if (!e)
        e = cancelled(cancel);
    if (!e)
        e = git_children(root, &l.send);
    if (!e)
        e = e2b_tarball_new(&out->gz, root, (const char *const *)l.send.v, l.send.n, gzip_level);
    if (!e)
        e = e2b_upload_add_gitconfig(out->gz, root, "config");
    if (!e)
        e = e2b_upload_add_gitconfig(out->gz, root, "config.worktree");
    /* the pack is compressed already: a plain tar after the tar.gz */
    if (!e)
        e = e2b_tarball_new(&out->plain, root, NULL, 0, E2B_TARBALL_PLAIN);
    e2b_upload_pack_info pinfo = {0};
    if (!e)
        e = e2b_upload_pack_add(repo, &base, tree, (flags & E2B_UPLOAD_STASH) ? E2B_UPLOAD_PACK_STASH : 0, cancel,
                                out->gz, out->plain, &pinfo);
    info->objects = pinfo.objects;
    if (!e && !pinfo.objects) { /* nothing new: no second archive to send */
        e2b_tarball_free(out->plain);
        out->plain = NULL;
    }
    if (!e && l.deleted.n) {
        char *names = malloc(l.del_bytes ? l.del_bytes : 1);
        size_t at = 0;
        for (size_t i = 0; names && i < l.deleted.n; i++) {
            size_t n = strlen(l.deleted.v[i]) + 1;
            memcpy(names + at, l.deleted.v[i], n);
            at += n;
        }
        e = names ? e2b_tarball_add_data(out->gz, E2B_DELTA_DELETED, names, at)
                  : e2b_error_local(E2B_SUB_NOMEM, "out of memory");
        free(names);
    }
    info->deleted = l.deleted.n;
    /* .git's entries are not files of the project: count only the work tree's. */
    for (size_t i = 0; i < l.send.n; i++)
        info->changed += strncmp(l.send.v[i], ".git/", 5) != 0;
    git_tree_free(tree);
    e2b_strvec_clear(&l.send);
    e2b_strvec_clear(&l.deleted);
    if (e)
        e2b_upload_set_free(out);
    return e;
}
