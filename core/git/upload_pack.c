/* The history of an up as one pack of what is reachable (upload_pack.h). */
#include "core/git/upload_pack.h"

#include "core/git/gitwork.h"
#include "core/git/oid_set.h"
#include "core/git/pack_idx.h"
#include "core/git/pack_rewrite.h"
#include "core/util/buf.h"
#include "core/util/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    git_repository *repo;
    git_packbuilder *pb;
    git_revwalk *walk;
    size_t pushed;       /* commits pushed on the walk */
    e2b_buf refs;        /* packed-refs text */
    e2b_buf symrefs;     /* "name\0target\0" pairs, written as loose files */
    uint64_t nrefs;
    const atomic_int *cancel;
    oid_set *reach;      /* the reachable set being collected, or NULL: all to the builder */
    int nomem;           /* the set could not grow */
    unsigned steps;      /* commits and trees read, for the cancel check */
} pack_ctx;

static int cancelled(const atomic_int *cancel)
{
    return cancel && atomic_load(cancel);
}

/* One object: into the reachable set, or to the builder. */
static int take_one(pack_ctx *c, const git_oid *id, const char *path)
{
    if (!c->reach)
        return git_packbuilder_insert(c->pb, id, path);
    if (oid_set_add(c->reach, id) < 0) {
        c->nomem = 1;
        return GIT_ERROR;
    }
    return 0;
}

/* A tree and all under it into the reachable set; a tree seen already is not read again
 * (so a history costs a read of each distinct tree). Submodule commits are not ours. */
static int reach_tree(pack_ctx *c, const git_oid *id, int depth)
{
    int added = oid_set_add(c->reach, id);
    if (added <= 0) {
        c->nomem |= added < 0;
        return added < 0 ? GIT_ERROR : 0;
    }
    if (depth > 4096) {
        git_error_set_str(GIT_ERROR_INVALID, "trees nested more than 4096 deep");
        return GIT_EINVALID;
    }
    if ((++c->steps & 255) == 0 && cancelled(c->cancel))
        return GIT_EUSER;
    git_tree *tree = NULL;
    int rc = git_tree_lookup(&tree, c->repo, id);
    size_t n = rc == 0 ? git_tree_entrycount(tree) : 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const git_tree_entry *e = git_tree_entry_byindex(tree, i);
        git_object_t type = git_tree_entry_type(e);
        if (type == GIT_OBJECT_TREE)
            rc = reach_tree(c, git_tree_entry_id(e), depth + 1);
        else if (type == GIT_OBJECT_BLOB)
            rc = take_one(c, git_tree_entry_id(e), NULL);
    }
    git_tree_free(tree);
    return rc;
}

/* Every commit the walk yields, with its tree. */
static int reach_walk(pack_ctx *c)
{
    git_oid id;
    int rc;
    while ((rc = git_revwalk_next(&id, c->walk)) == 0) {
        git_commit *commit = NULL;
        if ((++c->steps & 255) == 0 && cancelled(c->cancel))
            return GIT_EUSER;
        if ((rc = take_one(c, &id, NULL)) != 0 || (rc = git_commit_lookup(&commit, c->repo, &id)) != 0)
            break;
        rc = reach_tree(c, git_commit_tree_id(commit), 0);
        git_commit_free(commit);
        if (rc != 0)
            break;
    }
    return rc == GIT_ITEROVER ? 0 : rc;
}

/* A tree or blob a ref names, with all under it. */
static int take_recur(pack_ctx *c, git_object *obj)
{
    if (!c->reach)
        return git_packbuilder_insert_recur(c->pb, git_object_id(obj), NULL);
    return git_object_type(obj) == GIT_OBJECT_TREE ? reach_tree(c, git_object_id(obj), 0)
                                                   : take_one(c, git_object_id(obj), NULL);
}

/* What a ref or pseudo-ref names goes in: a commit on the walk (its history), a tag with
 * what it points at, a tree or blob as it is. *peeled: the object under the tags. */
static int take_object(pack_ctx *c, const git_oid *id, git_oid *peeled)
{
    git_object *obj = NULL;
    int rc = git_object_lookup(&obj, c->repo, id, GIT_OBJECT_ANY);
    if (rc != 0)
        return rc;
    for (int depth = 0; rc == 0 && git_object_type(obj) == GIT_OBJECT_TAG && depth < 64; depth++) {
        git_object *target = NULL;
        rc = take_one(c, git_object_id(obj), NULL);
        if (rc == 0)
            rc = git_tag_target(&target, (git_tag *)obj);
        git_object_free(obj);
        obj = target;
    }
    if (rc == 0 && obj && git_object_type(obj) == GIT_OBJECT_TAG)
        rc = GIT_EINVALID; /* a chain of tags 64 deep */
    if (rc == 0) {
        if (peeled)
            git_oid_cpy(peeled, git_object_id(obj));
        if (git_object_type(obj) == GIT_OBJECT_COMMIT) {
            rc = git_revwalk_push(c->walk, git_object_id(obj));
            c->pushed += rc == 0;
        } else {
            rc = take_recur(c, obj);
        }
    }
    git_object_free(obj);
    return rc;
}

static int take_ref(pack_ctx *c, git_reference *ref, unsigned flags)
{
    const char *name = git_reference_name(ref);
    if (strncmp(name, "refs/", 5) != 0 || (!(flags & E2B_UPLOAD_PACK_STASH) && !strcmp(name, "refs/stash")))
        return 0;
    if (git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC) {
        e2b_buf_add(&c->symrefs, name, strlen(name) + 1);
        e2b_buf_add(&c->symrefs, git_reference_symbolic_target(ref),
                    strlen(git_reference_symbolic_target(ref)) + 1);
        c->nrefs++;
        return c->symrefs.failed ? GIT_ERROR : 0;
    }
    const git_oid *id = git_reference_target(ref);
    git_oid peeled;
    char hex[GIT_OID_HEXSZ + 1], phex[GIT_OID_HEXSZ + 1];
    if (!id || take_object(c, id, &peeled) != 0) {
        git_error_clear(); /* a broken ref (its object is missing) is left out */
        return c->nomem ? GIT_ERROR : 0;
    }
    git_oid_tostr(hex, sizeof hex, id);
    e2b_buf_addf(&c->refs, "%s %s\n", hex, name);
    if (!git_oid_equal(id, &peeled)) {
        git_oid_tostr(phex, sizeof phex, &peeled);
        e2b_buf_addf(&c->refs, "^%s\n", phex);
    }
    c->nrefs++;
    return c->refs.failed ? GIT_ERROR : 0;
}

static int take_mergehead(const git_oid *id, void *payload)
{
    return take_object(payload, id, NULL);
}

/* HEAD, every ref under refs/, and the pseudo-refs of an operation in progress. */
static int take_refs(pack_ctx *c, unsigned flags)
{
    git_reference_iterator *it = NULL;
    git_reference *ref;
    int rc = git_reference_iterator_new(&it, c->repo);
    while (rc == 0 && (rc = git_reference_next(&ref, it)) == 0) {
        rc = take_ref(c, ref, flags);
        git_reference_free(ref);
    }
    git_reference_iterator_free(it);
    if (rc != GIT_ITEROVER)
        return rc;
    static const char *const pseudo[] = {"HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "AUTO_MERGE",
                                         NULL};
    for (const char *const *p = pseudo; *p; p++) {
        git_oid id;
        /* unborn, absent or broken: nothing to send for it */
        if (git_reference_name_to_id(&id, c->repo, *p) != 0 || take_object(c, &id, NULL) != 0)
            git_error_clear();
    }
    rc = git_repository_mergehead_foreach(c->repo, take_mergehead, c);
    if (rc == GIT_ENOTFOUND || rc == GIT_ERROR) { /* none, or a MERGE_HEAD git cannot read */
        git_error_clear();
        rc = 0;
    }
    return rc;
}

typedef struct {
    pack_ctx *c;
    git_tree *hide_tree;
    int rc;
} tree_walk;

/* Each subtree of the index's tree but those hide_tree has at the same path. */
static int on_tree_entry(const char *dir, const git_tree_entry *e, void *payload)
{
    tree_walk *w = payload;
    if (git_tree_entry_type(e) != GIT_OBJECT_TREE)
        return 0;
    if (w->hide_tree) {
        char path[4200];
        git_tree_entry *he = NULL;
        snprintf(path, sizeof path, "%s%s", dir, git_tree_entry_name(e));
        int same = git_tree_entry_bypath(&he, w->hide_tree, path) == 0 &&
                   git_oid_equal(git_tree_entry_id(he), git_tree_entry_id(e));
        git_tree_entry_free(he);
        git_error_clear();
        if (same)
            return 1; /* the box has it and all under it */
    }
    if ((w->rc = git_packbuilder_insert(w->c->pb, git_tree_entry_id(e), NULL)) != 0)
        return -1;
    return 0;
}

/* The trees of the index as it is (written to the in-memory object store, never to the
 * repository): the index's cache tree names them, and a box's git that lacks them finds
 * the index broken (git fsck: "invalid sha1 pointer in cache-tree"). An index with
 * conflicts has no tree: nothing to add. */
static int take_index_trees(pack_ctx *c, git_index *index, git_tree *hide_tree)
{
    git_oid id;
    git_tree *tree = NULL;
    if (git_index_write_tree_to(&id, index, c->repo) != 0 || git_tree_lookup(&tree, c->repo, &id) != 0) {
        git_error_clear();
        return 0;
    }
    int rc = 0;
    if (c->reach) {
        rc = reach_tree(c, &id, 0);
    } else if (!hide_tree || !git_oid_equal(&id, git_tree_id(hide_tree))) {
        tree_walk w = {c, hide_tree, 0};
        rc = git_packbuilder_insert(c->pb, &id, NULL);
        if (rc == 0 && git_tree_walk(tree, GIT_TREEWALK_PRE, on_tree_entry, &w) != 0)
            rc = w.rc ? w.rc : GIT_ERROR;
    }
    git_tree_free(tree);
    return rc;
}

/* The blobs of the index's entries that hide_tree lacks at their path, and its trees. */
static int take_index(pack_ctx *c, git_tree *hide_tree)
{
    git_index *index = NULL;
    git_odb *odb = NULL;
    int rc = git_repository_index(&index, c->repo);
    if (rc == 0)
        rc = git_repository_odb(&odb, c->repo);
    size_t n = rc == 0 ? git_index_entrycount(index) : 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const git_index_entry *e = git_index_get_byindex(index, i);
        if ((i & 255) == 255 && cancelled(c->cancel))
            rc = GIT_EUSER;
        /* gitlinks are the submodule's; an intent-to-add entry names no object */
        if (rc != 0 || !e || (e->mode & 0170000) == 0160000 || !git_odb_exists(odb, &e->id))
            continue;
        if (hide_tree) {
            git_tree_entry *te = NULL;
            int same = git_tree_entry_bypath(&te, hide_tree, e->path) == 0 &&
                       git_oid_equal(git_tree_entry_id(te), &e->id);
            git_tree_entry_free(te);
            git_error_clear();
            if (same)
                continue;
        }
        rc = take_one(c, &e->id, e->path);
    }
    if (rc == 0)
        rc = take_index_trees(c, index, hide_tree);
    git_odb_free(odb);
    git_index_free(index);
    return rc;
}

static int on_index_progress(const git_indexer_progress *stats, void *payload)
{
    (void)stats;
    return cancelled(payload) ? -1 : 0;
}

/* Removes dir with whatever the indexer left in it (after an error, a temporary file). */
static void remove_dir(const char *dir)
{
    char path[4096 + 260];
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* Hands dir/pack-<name>.<ext> to t as the box's .git/objects/pack/pack-<name>.<ext>: the
 * open file goes to the archive, its name is removed with the directory. */
static e2b_error *add_pack_file(e2b_tarball *t, const char *dir, const char *name,
                                const char *ext)
{
    char path[4096 + 260], rel[260];
    snprintf(path, sizeof path, "%s/pack-%.128s.%.8s", dir, name, ext);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return e2b_error_local(E2B_SUB_FILE_IO, "cannot read the pack just written: %s",
                               strerror(errno));
    snprintf(rel, sizeof rel, ".git/objects/pack/pack-%.128s.%.8s", name, ext);
    return e2b_tarball_add_fd(t, rel, fd);
}

/* Writes the pack with its index into dir and hands both files to pack_to. */
static e2b_error *write_pack(pack_ctx *c, const char *dir, e2b_tarball *pack_to)
{
    e2b_error *e = NULL;
    if (git_packbuilder_write(c->pb, dir, 0600, on_index_progress, (void *)c->cancel) != 0)
        e = cancelled(c->cancel)
                 ? e2b_error_local(E2B_SUB_CANCELLED, "cancelled")
                 : e2b_gitwork_git_error(E2B_SUB_FAILED, "writing the pack of the project's history");
    char name[128];
    snprintf(name, sizeof name, "%s", !e && git_packbuilder_name(c->pb) ? git_packbuilder_name(c->pb) : "");
    if (!e)
        e = add_pack_file(pack_to, dir, name, "pack");
    if (!e)
        e = add_pack_file(pack_to, dir, name, "idx");
    return e;
}

/* The bytes of the regular files in dir whose names end with suffix ("" for all). */
static unsigned long long dir_bytes(const char *dir, const char *suffix)
{
    char path[4400];
    unsigned long long sum = 0;
    size_t sl = strlen(suffix);
    DIR *d = opendir(dir);
    struct dirent *de;
    struct stat st;
    while (d && (de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (de->d_name[0] == '.' || n < sl || strcmp(de->d_name + n - sl, suffix) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
            sum += (unsigned long long)st.st_size;
    }
    if (d)
        closedir(d);
    return sum;
}

/* Whether most of the repository's object bytes are loose (objects/xx/) rather than in
 * packs: a project never packed, or one a pull or two added small packs to. */
static int mostly_loose(git_repository *repo)
{
    char dir[4300];
    unsigned long long loose = 0, packed;
    for (int i = 0; i < 256; i++) {
        snprintf(dir, sizeof dir, "%sobjects/%02x", git_repository_path(repo), i);
        loose += dir_bytes(dir, "");
    }
    snprintf(dir, sizeof dir, "%sobjects/pack", git_repository_path(repo));
    packed = dir_bytes(dir, ".pack");
    return loose >= packed;
}

/* The private handle's config: the repository's own, and, when most of its object bytes
 * are loose, no delta search (pack.windowMemory = 1 leaves libgit2's window a single
 * object). Loose objects never were deltas, so the pack weighs about what they do, and
 * libgit2 1.5's delta search, which cannot be limited by object size, is most of the
 * pack's CPU on a large project (3.7 times the rest on the bench project, for no smaller
 * pack). A history mostly in packs keeps its deltas: without them it could weigh many
 * times more. */
static int set_config(git_repository *own, const char *dir)
{
    char local[4200], app[4096 + 32];
    snprintf(local, sizeof local, "%sconfig", git_repository_path(own));
    snprintf(app, sizeof app, "%s/pack.config", dir);
    git_config *cfg = NULL;
    int rc = git_config_new(&cfg);
    if (rc == 0 && access(local, F_OK) == 0)
        rc = git_config_add_file_ondisk(cfg, local, GIT_CONFIG_LEVEL_LOCAL, own, 0);
    if (rc == 0 && mostly_loose(own)) {
        FILE *f = fopen(app, "w");
        rc = f && fputs("[pack]\n\twindowMemory = 1\n", f) >= 0 ? 0 : -1;
        if (f && fclose(f) != 0)
            rc = -1;
        if (rc == 0)
            rc = git_config_add_file_ondisk(cfg, app, GIT_CONFIG_LEVEL_APP, own, 0);
    }
    if (rc == 0)
        rc = git_repository_set_config(own, cfg);
    git_config_free(cfg);
    return rc;
}

/* packed-refs, the symbolic refs as loose files, and the directories git looks for. */
static e2b_error *add_refs(pack_ctx *c, e2b_tarball *t)
{
    static const char *const dirs[] = {".git/refs", ".git/refs/heads", ".git/refs/tags",
                                       ".git/objects", ".git/objects/pack", NULL};
    e2b_error *e = NULL;
    for (const char *const *d = dirs; !e && *d; d++)
        e = e2b_tarball_add_empty_dir(t, *d);
    if (!e)
        e = e2b_tarball_add_data(t, ".git/packed-refs", c->refs.data, c->refs.len);
    for (size_t at = 0; !e && at < c->symrefs.len;) {
        const char *name = c->symrefs.data + at, *target = name + strlen(name) + 1;
        at = (size_t)(target - c->symrefs.data) + strlen(target) + 1;
        char rel[4200];
        e2b_buf text = {0};
        snprintf(rel, sizeof rel, ".git/%s", name);
        e2b_buf_addf(&text, "ref: %s\n", target);
        e = text.failed ? e2b_error_local(E2B_SUB_NOMEM, "out of memory")
                         : e2b_tarball_add_data(t, rel, text.data, text.len);
        e2b_buf_clear(&text);
    }
    return e;
}

static int on_unreachable(const git_oid *id, void *reach)
{
    return oid_set_get(reach, id) == 0;
}

static int on_sent(const git_oid *id, void *reach)
{
    oid_set_mark(reach, id);
    return 0;
}

/* Whether id is one to send that nothing has sent yet. */
static int on_unsent(const git_oid *id, void *reach)
{
    return oid_set_get(reach, id) == 1;
}

/* A pack that also holds objects nothing reaches: a copy of it with only the unsent
 * reachable ones (pack_rewrite.h), written to tmp and handed to t, its objects marked as
 * sent. A pack that cannot be rewritten (odd, corrupt) is logged and left: its objects go
 * to the builder, which reads them through libgit2 (and fails, saying so, on what is
 * really broken). */
static e2b_error *send_rewritten(pack_ctx *c, const char *idx, const char *pack, const char *tmp,
                                 e2b_tarball *t, e2b_upload_pack_info *info)
{
    git_odb *odb = NULL;
    pack_rewrite_info ri;
    if (git_repository_odb(&odb, c->repo) != 0)
        return e2b_gitwork_git_error(E2B_SUB_FAILED, "collecting the project's history");
    /* The user's own pack: bounds that only a corrupt one crosses (a bigger object goes
     * through the builder, as every object did before); depth is no memory bound. */
    static const pack_scan_limits lim = {.object_bytes = 1ull << 30,
                                         .inflated_bytes = UINT64_MAX,
                                         .delta_depth = UINT_MAX};
    e2b_error *why = pack_rewrite(odb, idx, pack, on_unsent, c->reach, &lim, tmp, c->cancel, &ri);
    git_odb_free(odb);
    if (e2b_error_sub_of(why) == E2B_SUB_FAILED) {
        e2b_logf("up: %s; its objects are packed here instead", e2b_error_message(why));
        e2b_error_free(why);
        return NULL;
    }
    if (why)
        return why;
    if (ri.kept == 0)
        return NULL;
    const char *base = strrchr(pack, '/');
    e2b_logf("up: %s rewritten without what is not sent: %llu objects, %llu copied as they are, "
             "%llu deltas written whole (their base was dropped)",
             base ? base + 1 : pack, (unsigned long long)ri.kept, (unsigned long long)ri.copied,
             (unsigned long long)ri.resolved);
    char new_idx[4400], new_pack[4400];
    snprintf(new_idx, sizeof new_idx, "%s/pack-%s.idx", tmp, ri.name);
    snprintf(new_pack, sizeof new_pack, "%s/pack-%s.pack", tmp, ri.name);
    if (pack_idx_each(new_idx, new_pack, on_sent, c->reach) != 0)
        return e2b_error_local(E2B_SUB_FILE_IO, "cannot read the pack just written");
    info->packs_rewritten++;
    info->rewritten += ri.kept;
    e2b_error *e = add_pack_file(t, tmp, ri.name, "pack");
    return e ? e : add_pack_file(t, tmp, ri.name, "idx");
}

/* One round over objects/pack (send_packs). */
static e2b_error *send_packs_round(pack_ctx *c, int round, const char *tmp, e2b_tarball *t,
                                   e2b_upload_pack_info *info)
{
    char dir[4200], idx[4500], pack[4500], rel[600];
    snprintf(dir, sizeof dir, "%sobjects/pack", git_repository_path(c->repo));
    DIR *d = opendir(dir);
    struct dirent *de;
    e2b_error *e = NULL;
    while (!e && d && (de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n < 9 || n > 200 || strncmp(de->d_name, "pack-", 5) || strcmp(de->d_name + n - 4, ".idx"))
            continue;
        int stem = (int)(n - 4);
        snprintf(idx, sizeof idx, "%s/%s", dir, de->d_name);
        snprintf(pack, sizeof pack, "%s/%.*s.pack", dir, stem, de->d_name);
        if (round == 1) {
            e = send_rewritten(c, idx, pack, tmp, t, info);
        } else if (pack_idx_each(idx, pack, on_unreachable, c->reach) == 0) {
            if (pack_idx_each(idx, pack, on_sent, c->reach) != 0)
                e = e2b_error_local(E2B_SUB_FILE_CHANGED, "the pack %s changed while it "
                                         "was read; try again", de->d_name);
            snprintf(rel, sizeof rel, ".git/objects/pack/%.*s.pack", stem, de->d_name);
            if (!e)
                e = e2b_tarball_add_path(t, rel);
            snprintf(rel, sizeof rel, ".git/objects/pack/%s", de->d_name);
            if (!e)
                e = e2b_tarball_add_path(t, rel);
            info->packs_as_is += !e;
        }
        if (!e && cancelled(c->cancel))
            e = e2b_error_local(E2B_SUB_CANCELLED, "cancelled");
    }
    if (d)
        closedir(d);
    return e;
}

/* The packs of objects/pack, in two rounds. First each pack whose every object is
 * reachable goes as it is (its .pack and .idx read from disk when their turn comes), its
 * objects marked as sent. Then each other pack goes rewritten without what is not to be
 * sent (send_rewritten): a pack sent as it is has nothing left to send. What neither
 * round sends goes another way. */
static e2b_error *send_packs(pack_ctx *c, const char *tmp, e2b_tarball *t,
                             e2b_upload_pack_info *info)
{
    e2b_error *e = NULL;
    for (int round = 0; !e && round < 2; round++)
        e = send_packs_round(c, round, tmp, t, info);
    return e;
}

/* What no pack sent: a loose object as its file (objects/xx/...), the rest (objects
 * of the other packs, of alternates, the index's trees made in memory) to the builder. */
static e2b_error *send_loose_or_build(pack_ctx *c, e2b_tarball *t, e2b_upload_pack_info *info)
{
    char hex[GIT_OID_HEXSZ + 1], path[4300], rel[64];
    struct stat st;
    e2b_error *e = NULL;
    for (size_t i = 0; !e && i < c->reach->cap; i++) {
        int marked;
        const git_oid *id = oid_set_slot(c->reach, i, &marked);
        if (!id || marked)
            continue;
        if ((i & 1023) == 1023 && cancelled(c->cancel))
            return e2b_error_local(E2B_SUB_CANCELLED, "cancelled");
        git_oid_tostr(hex, sizeof hex, id);
        snprintf(path, sizeof path, "%sobjects/%.2s/%s", git_repository_path(c->repo), hex, hex + 2);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            snprintf(rel, sizeof rel, ".git/objects/%.2s/%s", hex, hex + 2);
            e = e2b_tarball_add_path(t, rel);
            info->loose++;
        } else if (git_packbuilder_insert(c->pb, id, NULL) != 0) {
            e = e2b_gitwork_git_error(E2B_SUB_FAILED, "collecting the project's history");
        }
    }
    return e;
}

/* Whether the repository's git directory is the work tree's .git (the archive's names are
 * relative to the work tree): else its objects cannot be named there, and all go through
 * the builder. */
static int git_dir_in_tree(git_repository *repo)
{
    const char *wd = git_repository_workdir(repo), *path = git_repository_path(repo);
    size_t n = wd ? strlen(wd) : 0;
    return wd && !strncmp(path, wd, n) && !strcmp(path + n, ".git/") &&
           !strcmp(git_repository_commondir(repo), path);
}

e2b_error *e2b_upload_pack_add(git_repository *repo, const git_oid *hide, git_tree *hide_tree,
                               unsigned flags, const atomic_int *cancel, e2b_tarball *refs_to,
                               e2b_tarball *pack_to, e2b_upload_pack_info *info)
{
    memset(info, 0, sizeof *info);
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/e2b-tui-pack.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) /* mode 0700: the pack holds the project's history */
        return e2b_error_local(E2B_SUB_FILE_IO, "cannot make a temporary directory for the "
                                                "pack: %s", strerror(errno));
    /* A handle of its own, whose object store writes to memory first (the index's trees
     * are computed there: nothing is written into the repository) and whose config says
     * how to pack (set_config). */
    git_repository *own = NULL;
    git_odb *odb = NULL;
    git_odb_backend *mem = NULL;
    int rc = git_repository_open(&own, git_repository_path(repo));
    if (rc == 0)
        rc = set_config(own, dir);
    if (rc == 0)
        rc = git_repository_odb(&odb, own);
    if (rc == 0)
        rc = git_mempack_new(&mem);
    if (rc == 0 && (rc = git_odb_add_backend(odb, mem, 1000)) != 0)
        mem->free(mem);
    git_odb_free(odb);
    if (rc != 0) {
        e2b_error *e = e2b_gitwork_git_error(E2B_SUB_FAILED, "opening the repository for its pack");
        git_repository_free(own);
        remove_dir(dir);
        return e;
    }
    oid_set reach = {0};
    pack_ctx c = {.repo = own, .cancel = cancel, .reach = !hide && git_dir_in_tree(own) ? &reach : NULL};
    e2b_buf_adds(&c.refs, "# pack-refs with: peeled fully-peeled \n");
    rc = git_packbuilder_new(&c.pb, own);
    if (rc == 0) {
        git_packbuilder_set_threads(c.pb, 0); /* a delta search on every core */
        rc = git_revwalk_new(&c.walk, own);
    }
    if (rc == 0)
        rc = take_refs(&c, flags);
    if (rc == 0 && hide)
        rc = git_revwalk_hide(c.walk, hide);
    if (rc == 0 && cancelled(cancel))
        rc = GIT_EUSER;
    if (rc == 0 && c.pushed)
        rc = c.reach ? reach_walk(&c) : git_packbuilder_insert_walk(c.pb, c.walk);
    if (rc == 0 && cancelled(cancel))
        rc = GIT_EUSER;
    if (rc == 0)
        rc = take_index(&c, hide_tree);
    e2b_error *e = NULL;
    if (rc == GIT_EUSER || (rc == 0 && cancelled(cancel)))
        e = e2b_error_local(E2B_SUB_CANCELLED, "cancelled");
    else if (rc != 0)
        e = e2b_gitwork_git_error(E2B_SUB_FAILED, "collecting the project's history");
    else if (c.refs.failed || c.symrefs.failed || c.nomem)
        e = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    if (!e)
        e = add_refs(&c, refs_to);
    if (!e && c.reach)
        e = send_packs(&c, dir, pack_to, info);
    if (!e && c.reach)
        e = send_loose_or_build(&c, pack_to, info);
    if (!e && git_packbuilder_object_count(c.pb) > 0)
        e = write_pack(&c, dir, pack_to);
    if (!e) {
        info->built = git_packbuilder_object_count(c.pb);
        info->objects = c.reach ? reach.count : info->built;
        info->refs = c.nrefs;
    } else {
        memset(info, 0, sizeof *info);
    }
    oid_set_free(&reach);
    remove_dir(dir);
    e2b_buf_clear(&c.refs);
    e2b_buf_clear(&c.symrefs);
    git_revwalk_free(c.walk);
    git_packbuilder_free(c.pb);
    git_repository_free(own);
    return e;
}
