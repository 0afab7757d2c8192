/* The bundle importer: header into memory (capped), pack into libgit2's indexer. */
#include "core/git/bundle.h"

#include <git2.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { ST_HEADER, ST_PACK, ST_DONE, ST_FAILED };

struct bundle_import {
    gitwork *g;
    git_odb *odb;
    int state;
    e2b_error *err; /* the failure, once state is ST_FAILED */

    uint8_t *hbuf; /* header bytes (and whatever pack bytes came with them) */
    size_t hlen, hcap, scanned;
    int sig_checked;
    bundle_header hdr;
    int have_hdr;

    git_indexer *idx;
    git_indexer_progress stats;
    uint8_t magic[4];
    size_t magic_len;
    uint64_t pack_bytes;

    bundle_progress prog;
    bundle_progress_cb cb;
    void *ud;
    int cancelled;
    int lock_fd; /* the import lock (see lock_and_sweep), or -1 */
};

#define FAIL(bi, code, ...) ((bi)->state = ST_FAILED, local_error_set(&(bi)->err, (code), __VA_ARGS__))

static int git_fail(bundle_import *bi, e2b_error_sub code, const char *what)
{
    bi->state = ST_FAILED;
    return gitwork_git_error(&bi->err, code, what);
}

/* An import killed mid-pack (SIGKILL, power loss) leaves libgit2's temporary pack,
 * objects/pack/pack_git2_*, which nothing else removes (git gc only knows its own tmp_*).
 * The next import removes those: it holds an exclusive lock on .git/e2b-tui-import.lock for
 * its whole life, so another e2b-tui importing into this repository (which holds the lock)
 * is never swept under; without the lock nothing is swept. Files written to within the last
 * few seconds are spared as well, in case some other libgit2 program is fetching here. */
#define STALE_TEMP_PACK_SECONDS 5

static int lock_and_sweep(git_repository *repo)
{
    char *path = NULL;
    if (asprintf(&path, "%se2b-tui-import.lock", git_repository_commondir(repo)) < 0)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    free(path);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        close(fd);
        return -1;
    }
    if (asprintf(&path, "%sobjects/pack", git_repository_commondir(repo)) < 0)
        return fd;
    DIR *d = opendir(path);
    free(path);
    if (!d)
        return fd;
    struct dirent *de;
    time_t now = time(NULL);
    while ((de = readdir(d))) {
        struct stat st;
        if (strncmp(de->d_name, "pack_git2_", 10) != 0 ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
            now - st.st_mtime < STALE_TEMP_PACK_SECONDS)
            continue;
        unlinkat(dirfd(d), de->d_name, 0);
    }
    closedir(d);
    return fd;
}

int bundle_import_new(bundle_import **out, gitwork *g, bundle_progress_cb cb, void *ud,
                      e2b_error **err)
{
    *out = NULL;
    local_error_clear(err);
    bundle_import *bi = calloc(1, sizeof *bi);
    if (!bi)
        return local_error_set(err, E2B_SUB_NOMEM, "out of memory");
    bi->g = g;
    bi->cb = cb;
    bi->ud = ud;
    bi->lock_fd = lock_and_sweep(gitwork_repo(g));
    if (git_repository_odb(&bi->odb, gitwork_repo(g)) < 0) {
        gitwork_git_error(err, E2B_SUB_FAILED, "cannot open the object database");
        if (bi->lock_fd >= 0)
            close(bi->lock_fd);
        free(bi);
        return E2B_SUB_FAILED;
    }
    *out = bi;
    return 0;
}

static int on_index_progress(const git_indexer_progress *s, void *payload)
{
    bundle_import *bi = payload;
    bi->prog.objects_received = s->received_objects;
    bi->prog.objects_total = s->total_objects;
    bi->prog.deltas_indexed = s->indexed_deltas;
    bi->prog.deltas_total = s->total_deltas;
    bi->prog.local_objects = s->local_objects;
    if (bi->cb && bi->cb(&bi->prog, bi->ud) != 0) {
        bi->cancelled = 1;
        return -1;
    }
    return 0;
}

static int index_error(bundle_import *bi, const char *what)
{
    if (bi->cancelled)
        return FAIL(bi, E2B_SUB_CANCELLED, "import cancelled");
    return git_fail(bi, E2B_SUB_BAD_BUNDLE, what);
}

/* Header complete: check prerequisites, then open the indexer. Nothing is written before
 * every prerequisite is known to be here. */
static int start_pack(bundle_import *bi)
{
    for (size_t i = 0; i < bi->hdr.nprereqs; i++) {
        git_oid oid;
        if (git_oid_fromstr(&oid, bi->hdr.prereqs[i]) < 0)
            return git_fail(bi, E2B_SUB_BAD_BUNDLE, "bad prerequisite");
        if (!git_odb_exists(bi->odb, &oid))
            return FAIL(bi, E2B_SUB_MISSING_BASE,
                        "base commit %.12s is not present locally; pull the full history "
                        "(a full bundle) instead",
                        bi->hdr.prereqs[i]);
    }
    git_repository *repo = gitwork_repo(bi->g);
    char *packdir = NULL;
    if (asprintf(&packdir, "%sobjects/pack", git_repository_commondir(repo)) < 0)
        return FAIL(bi, E2B_SUB_NOMEM, "out of memory");
    git_indexer_options o;
    git_indexer_options_init(&o, GIT_INDEXER_OPTIONS_VERSION);
    o.progress_cb = on_index_progress;
    o.progress_cb_payload = bi;
    /* No o.verify: in libgit2 1.5.1 it leaks a parsed object for every pack object that
     * already exists locally (a re-pull or a full bundle would leak megabytes); the
     * connectivity check is done after the commit instead (check_connected). */
    int rc = git_indexer_new(&bi->idx, packdir, 0, bi->odb, &o);
    free(packdir);
    if (rc < 0)
        return git_fail(bi, E2B_SUB_FAILED, "cannot start the pack import");
    bi->state = ST_PACK;
    return 0;
}

static int feed_pack(bundle_import *bi, const uint8_t *p, size_t n)
{
    while (bi->magic_len < 4 && n > 0) {
        bi->magic[bi->magic_len++] = *p;
        if (bi->magic_len == 4) {
            if (memcmp(bi->magic, "PACK", 4) != 0)
                return FAIL(bi, E2B_SUB_BAD_BUNDLE, "bundle data after the header is not a pack");
            if (git_indexer_append(bi->idx, bi->magic, 4, &bi->stats) < 0)
                return index_error(bi, "bad pack in bundle");
        }
        p++;
        n--;
    }
    while (n > 0) {
        size_t k = n < 65536 ? n : 65536;
        if (git_indexer_append(bi->idx, p, k, &bi->stats) < 0)
            return index_error(bi, "bad pack in bundle");
        bi->pack_bytes += k;
        p += k;
        n -= k;
    }
    return 0;
}

static int try_header(bundle_import *bi, int final)
{
    int r = bundle_header_parse(bi->hbuf, bi->hlen, &bi->hdr, &bi->err);
    if (r < 0) {
        bi->state = ST_FAILED;
        return local_error_code(bi->err);
    }
    if (r == 0) {
        if (final)
            return FAIL(bi, E2B_SUB_BAD_BUNDLE, "bundle is truncated (incomplete header)");
        return 0;
    }
    bi->have_hdr = 1;
    int rc = start_pack(bi);
    if (rc == 0 && bi->hlen > bi->hdr.header_len)
        rc = feed_pack(bi, bi->hbuf + bi->hdr.header_len, bi->hlen - bi->hdr.header_len);
    free(bi->hbuf); /* the parsed header keeps its own copies */
    bi->hbuf = NULL;
    bi->hlen = bi->hcap = 0;
    return rc;
}

int bundle_import_write(bundle_import *bi, const void *buf, size_t n)
{
    if (bi->state == ST_FAILED)
        return local_error_code(bi->err);
    if (bi->state == ST_DONE)
        return FAIL(bi, E2B_SUB_BAD_ARG, "bundle import already finished");
    if (n == 0) /* nothing to add (and no buffer yet to add it to) */
        return 0;
    bi->prog.bytes += n;
    if (bi->state == ST_PACK)
        return feed_pack(bi, buf, n);

    /* Header: accumulate up to the cap (plus one byte so an overlong header shows). */
    size_t room = BUNDLE_HEADER_MAX + 1 - bi->hlen;
    size_t take = n < room ? n : room;
    if (bi->hlen + take > bi->hcap) {
        size_t cap = bi->hcap ? bi->hcap : 4096;
        while (cap < bi->hlen + take)
            cap *= 2;
        uint8_t *nb = realloc(bi->hbuf, cap);
        if (!nb)
            return FAIL(bi, E2B_SUB_NOMEM, "out of memory");
        bi->hbuf = nb;
        bi->hcap = cap;
    }
    memcpy(bi->hbuf + bi->hlen, buf, take);
    bi->hlen += take;
    /* Parse only when it can decide something: the signature, the blank line, the cap. */
    int decide = 0;
    if (!bi->sig_checked && bi->hlen >= 16) {
        bi->sig_checked = 1;
        decide = 1;
    }
    size_t from = bi->scanned ? bi->scanned - 1 : 0;
    for (size_t i = from; i + 1 < bi->hlen && !decide; i++)
        if (bi->hbuf[i] == '\n' && bi->hbuf[i + 1] == '\n')
            decide = 1;
    bi->scanned = bi->hlen;
    if (bi->hlen > BUNDLE_HEADER_MAX)
        decide = 1;
    int rc = decide ? try_header(bi, 0) : 0;
    if (rc == 0 && bi->state == ST_PACK && take < n)
        rc = feed_pack(bi, (const uint8_t *)buf + take, n - take);
    return rc;
}

const bundle_header *bundle_import_header(const bundle_import *bi)
{
    return bi->have_hdr ? &bi->hdr : NULL;
}

/* Drops the pack just committed (an import that turned out unusable leaves nothing). */
static void remove_pack(bundle_import *bi)
{
    const char *name = git_indexer_name(bi->idx);
    if (!name)
        return;
    static const char *const exts[] = {".pack", ".idx", ".rev", ".keep"};
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
        char *path = NULL;
        if (asprintf(&path, "%sobjects/pack/pack-%s%s",
                     git_repository_commondir(gitwork_repo(bi->g)), name, exts[i]) >= 0) {
            unlink(path);
            free(path);
        }
    }
    git_odb_refresh(bi->odb);
}

/* A set of object ids (open addressing), for the connectivity walk. */
typedef struct {
    git_oid *slots;
    unsigned char *used;
    size_t cap, n;
} oid_set;

static size_t oid_hash(const git_oid *o)
{
    size_t h;
    memcpy(&h, o->id, sizeof h);
    return h;
}

/* 1 when added, 0 when already there, -1 out of memory. */
static int oid_set_add(oid_set *s, const git_oid *o)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        oid_set ns = {calloc(cap, sizeof *ns.slots), calloc(cap, 1), cap, 0};
        if (!ns.slots || !ns.used) {
            free(ns.slots);
            free(ns.used);
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->used[i])
                oid_set_add(&ns, &s->slots[i]);
        free(s->slots);
        free(s->used);
        *s = ns;
    }
    for (size_t i = oid_hash(o) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->used[i]) {
            s->used[i] = 1;
            s->slots[i] = *o;
            s->n++;
            return 1;
        }
        if (git_oid_equal(&s->slots[i], o))
            return 0;
    }
}

/* 0 when every object under tree exists; 1 with missing set when one does not; -1 error. */
static int check_tree(git_repository *repo, git_odb *odb, const git_oid *tree_id, oid_set *seen,
                      char missing[41])
{
    int added = oid_set_add(seen, tree_id);
    if (added <= 0)
        return added;
    git_tree *tree = NULL;
    if (git_tree_lookup(&tree, repo, tree_id) < 0) {
        git_error_clear();
        git_oid_tostr(missing, GIT_OID_HEXSZ + 1, tree_id);
        return 1;
    }
    int rc = 0;
    size_t n = git_tree_entrycount(tree);
    for (size_t i = 0; i < n && rc == 0; i++) {
        const git_tree_entry *e = git_tree_entry_byindex(tree, i);
        const git_oid *id = git_tree_entry_id(e);
        switch (git_tree_entry_type(e)) {
        case GIT_OBJECT_TREE:
            rc = check_tree(repo, odb, id, seen, missing);
            break;
        case GIT_OBJECT_BLOB: {
            int a = oid_set_add(seen, id);
            if (a < 0)
                rc = -1;
            else if (a > 0 && !git_odb_exists(odb, id)) {
                git_oid_tostr(missing, GIT_OID_HEXSZ + 1, id);
                rc = 1;
            }
            break;
        }
        default: /* submodule commits live in another repository */
            break;
        }
    }
    git_tree_free(tree);
    return rc;
}

/* Like `git rev-list --objects tip --not --all`: every commit reachable from tip and not
 * from an existing ref must exist with its whole tree (the local history is trusted to be
 * complete). 0 connected, 1 missing (missing = its id), -1 error. */
static int check_connected(git_repository *repo, const git_oid *tip, char missing[41])
{
    git_revwalk *w = NULL;
    git_odb *odb = NULL;
    oid_set seen = {0};
    int rc = -1;
    if (git_revwalk_new(&w, repo) < 0 || git_repository_odb(&odb, repo) < 0 ||
        git_revwalk_push(w, tip) < 0)
        goto out;
    git_revwalk_hide_glob(w, "refs/*");
    git_error_clear();
    git_oid id;
    int r;
    rc = 0;
    while (rc == 0 && (r = git_revwalk_next(&id, w)) == 0) {
        git_commit *c = NULL;
        if (git_commit_lookup(&c, repo, &id) < 0) {
            git_oid_tostr(missing, GIT_OID_HEXSZ + 1, &id);
            rc = 1;
            break;
        }
        rc = check_tree(repo, odb, git_commit_tree_id(c), &seen, missing);
        git_commit_free(c);
    }
    if (rc == 0 && r != GIT_ITEROVER) {
        /* the walk stops when a parent commit is not there */
        snprintf(missing, GIT_OID_HEXSZ + 1, "%s", "a parent commit");
        rc = 1;
    }
    git_error_clear();
out:
    free(seen.slots);
    free(seen.used);
    git_odb_free(odb);
    git_revwalk_free(w);
    return rc;
}

int bundle_import_finish(bundle_import *bi, const char *want_ref, char oid_out[41])
{
    if (bi->state == ST_FAILED)
        return local_error_code(bi->err);
    if (bi->state == ST_DONE)
        return FAIL(bi, E2B_SUB_BAD_ARG, "bundle import already finished");
    if (bi->state == ST_HEADER) {
        int rc = try_header(bi, 1);
        if (rc != 0)
            return rc;
    }
    if (bi->magic_len < 4)
        return FAIL(bi, E2B_SUB_BAD_BUNDLE, "bundle is truncated (no pack data)");

    /* Resolve the wanted ref before committing: a wrong name must not leave a pack. */
    const bundle_ref *ref = NULL;
    for (size_t i = 0; i < bi->hdr.nrefs; i++) {
        if (want_ref ? strcmp(bi->hdr.refs[i].name, want_ref) == 0 : bi->hdr.nrefs == 1) {
            ref = &bi->hdr.refs[i];
            break;
        }
    }
    if (!ref) {
        if (want_ref)
            return FAIL(bi, E2B_SUB_NO_REF, "the bundle has no reference named %s", want_ref);
        return FAIL(bi, E2B_SUB_NO_REF, "the bundle has %zu references; say which one to use",
                    bi->hdr.nrefs);
    }
    if (git_indexer_commit(bi->idx, &bi->stats) < 0)
        return index_error(bi, "bundle pack is truncated or corrupt");
    on_index_progress(&bi->stats, bi);
    if (git_odb_refresh(bi->odb) < 0)
        return git_fail(bi, E2B_SUB_FAILED, "cannot reload the object database");

    git_oid oid;
    git_commit *c = NULL;
    if (git_oid_fromstr(&oid, ref->oid) < 0 ||
        git_commit_lookup(&c, gitwork_repo(bi->g), &oid) < 0) {
        git_error_clear();
        remove_pack(bi);
        return FAIL(bi, E2B_SUB_BAD_BUNDLE, "the bundle does not contain the commit of %s", ref->name);
    }
    git_commit_free(c);
    char missing[GIT_OID_HEXSZ + 1] = "";
    int conn = check_connected(gitwork_repo(bi->g), &oid, missing);
    if (conn != 0) {
        remove_pack(bi);
        if (conn < 0)
            return git_fail(bi, E2B_SUB_FAILED, "cannot check the imported history");
        return FAIL(bi, E2B_SUB_BAD_BUNDLE,
                    "the bundle is incomplete (%s%.12s is missing); nothing was imported",
                    missing[0] == 'a' && missing[1] == ' ' ? "" : "object ", missing);
    }
    memcpy(oid_out, ref->oid, 41);
    bi->state = ST_DONE;
    return 0;
}

int bundle_import_finish_branch(bundle_import *bi, const char *want_ref, const char *branch,
                                int force, gitwork_branch_outcome *outcome, char oid_out[41])
{
    int rc = bundle_import_finish(bi, want_ref, oid_out);
    if (rc != 0)
        return rc;
    rc = gitwork_update_branch(bi->g, branch, oid_out, force, outcome, &bi->err);
    return rc;
}

const e2b_error *bundle_import_error(const bundle_import *bi) { return bi->err; }

const bundle_progress *bundle_import_progress(const bundle_import *bi) { return &bi->prog; }

void bundle_import_free(bundle_import *bi)
{
    if (!bi)
        return;
    git_indexer_free(bi->idx); /* an uncommitted indexer removes its temporary pack */
    git_odb_free(bi->odb);
    bundle_header_free(&bi->hdr);
    e2b_error_free(bi->err);
    free(bi->hbuf);
    if (bi->lock_fd >= 0)
        close(bi->lock_fd);
    free(bi);
}
