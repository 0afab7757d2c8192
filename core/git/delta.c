/* The delta of an up from a snapshot (delta.h). */
#include "core/git/delta.h"

#include "core/git/local_error.h"
#include "core/git/upload_split.h"
#include "core/util/strvec.h"

#include <dirent.h>
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

/* .git's children a full up sends, except objects/ (the pack brings what is missing) and
 * the config files (rewritten). */
static int git_children(const char *root, e2b_strvec *out, e2b_error **err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/.git", root);
    DIR *d = opendir(path);
    if (!d)
        return local_error_set(err, E2B_SUB_FAILED, "cannot read %s (linked worktrees and separate git "
                                                    "directories cannot be uploaded)", path);
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d))) {
        if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
            continue;
        if (strcmp(de->d_name, "objects") == 0 || upload_git_entry(de->d_name) != UPLOAD_GIT_SEND)
            continue;
        snprintf(path, sizeof path, ".git/%s", de->d_name);
        if (e2b_strvec_push(out, path) < 0)
            rc = local_error_set(err, E2B_SUB_NOMEM, "out of memory");
    }
    closedir(d);
    return rc;
}

/* Objects the box lacks: reachable from HEAD and the refs but not from base, and blobs of
 * index entries that base's tree does not have at that path. */
static int build_pack(git_repository *repo, const git_oid *base, git_tree *base_tree, git_buf *pack,
                      uint64_t *objects, e2b_error **err)
{
    git_packbuilder *pb = NULL;
    git_revwalk *walk = NULL;
    git_index *index = NULL;
    git_odb *odb = NULL;
    int rc = git_packbuilder_new(&pb, repo);
    if (rc == 0)
        rc = git_revwalk_new(&walk, repo);
    if (rc == 0) {
        int head = git_revwalk_push_head(walk);
        int refs = git_revwalk_push_glob(walk, "refs/heads");
        if (head != 0 && head != GIT_ENOTFOUND && head != GIT_EUNBORNBRANCH)
            rc = head;
        else if (refs != 0 && refs != GIT_ENOTFOUND)
            rc = refs;
    }
    if (rc == 0)
        rc = git_revwalk_hide(walk, base);
    if (rc == 0)
        rc = git_packbuilder_insert_walk(pb, walk);
    if (rc == 0)
        rc = git_repository_index(&index, repo);
    if (rc == 0)
        rc = git_repository_odb(&odb, repo);
    for (size_t i = 0; rc == 0 && i < git_index_entrycount(index); i++) {
        const git_index_entry *e = git_index_get_byindex(index, i);
        git_tree_entry *te = NULL;
        if (!e || (e->mode & 0170000) == 0160000 || !git_odb_exists(odb, &e->id))
            continue;
        int found = git_tree_entry_bypath(&te, base_tree, e->path) == 0;
        int same = found && git_oid_equal(git_tree_entry_id(te), &e->id);
        git_tree_entry_free(te);
        if (!same)
            rc = git_packbuilder_insert(pb, &e->id, e->path);
    }
    if (rc == 0)
        rc = git_packbuilder_write_buf(pack, pb);
    if (rc == 0)
        *objects = git_packbuilder_object_count(pb);
    if (rc != 0)
        gitwork_git_error(err, E2B_SUB_FAILED, "building the pack of new objects");
    git_odb_free(odb);
    git_index_free(index);
    git_revwalk_free(walk);
    git_packbuilder_free(pb);
    return rc ? -1 : 0;
}

static int cancelled(const atomic_int *cancel, e2b_error **err)
{
    if (cancel && atomic_load(cancel))
        return local_error_set(err, E2B_SUB_CANCELLED, "cancelled");
    return 0;
}

int delta_prepare(gitwork *g, const char *base_hex, int gzip_level, const atomic_int *cancel,
                  upload_set *out, delta_info *info, e2b_error **err)
{
    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    local_error_clear(err);
    git_repository *repo = gitwork_repo(g);
    const char *root = gitwork_workdir(g);
    git_oid base;
    git_commit *commit = NULL;
    git_tree *tree = NULL;
    if (!base_hex || git_oid_fromstr(&base, base_hex) != 0 || git_commit_lookup(&commit, repo, &base) != 0 ||
        git_commit_tree(&tree, commit) != 0) {
        git_commit_free(commit);
        return local_error_set(err, E2B_SUB_MISSING_BASE, "the snapshot's commit %.40s is not in this repository",
                               base_hex ? base_hex : "");
    }
    git_commit_free(commit);

    diff_lists l = {0};
    git_diff *diff = NULL;
    git_diff_options o;
    git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
    o.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS | GIT_DIFF_INCLUDE_TYPECHANGE;
    int rc = 0;
    if (git_diff_tree_to_workdir_with_index(&diff, repo, tree, &o) != 0 ||
        git_diff_foreach(diff, on_file, NULL, NULL, NULL, &l) != 0)
        rc = gitwork_git_error(err, E2B_SUB_FAILED, "comparing the project with the snapshot's commit");
    git_diff_free(diff);
    if (rc == 0)
        rc = cancelled(cancel, err);
    if (rc == 0)
        rc = git_children(root, &l.send, err);
    git_buf pack = {0};
    if (rc == 0)
        rc = build_pack(repo, &base, tree, &pack, &info->objects, err);
    if (rc == 0)
        rc = cancelled(cancel, err);
    if (rc == 0)
        rc = tarball_new(&out->gz, root, (const char *const *)l.send.v, l.send.n, gzip_level, err);
    if (rc == 0)
        rc = upload_add_gitconfig(out->gz, root, "config", err);
    if (rc == 0)
        rc = upload_add_gitconfig(out->gz, root, "config.worktree", err);
    if (rc == 0 && info->objects)
        rc = tarball_add_data(out->gz, DELTA_PACK, pack.ptr, pack.size, err);
    if (rc == 0 && l.deleted.n) {
        char *names = malloc(l.del_bytes ? l.del_bytes : 1);
        size_t at = 0;
        for (size_t i = 0; names && i < l.deleted.n; i++) {
            size_t n = strlen(l.deleted.v[i]) + 1;
            memcpy(names + at, l.deleted.v[i], n);
            at += n;
        }
        rc = names ? tarball_add_data(out->gz, DELTA_DELETED, names, at, err)
                   : local_error_set(err, E2B_SUB_NOMEM, "out of memory");
        free(names);
    }
    info->deleted = l.deleted.n;
    /* .git's entries are not files of the project: count only the work tree's. */
    for (size_t i = 0; i < l.send.n; i++)
        info->changed += strncmp(l.send.v[i], ".git/", 5) != 0;
    git_buf_dispose(&pack);
    git_tree_free(tree);
    e2b_strvec_clear(&l.send);
    e2b_strvec_clear(&l.deleted);
    if (rc != 0)
        upload_set_free(out);
    return rc;
}
