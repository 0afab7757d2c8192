/* The bundle importer: header into memory (capped), pack into libgit2's indexer. */
#include "core/git/bundle.h"

#include "core/git/pack_feed.h"
#include "core/git/pack_scan.h"

#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <git2/sys/repository.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { ST_HEADER, ST_PACK, ST_DONE, ST_FAILED };

struct e2b_bundle_import {
    e2b_gitwork *g;
    git_odb *odb;
    int state;
    e2b_error *err; /* the failure, once state is ST_FAILED */

    uint8_t *hbuf; /* header bytes (and whatever pack bytes came with them) */
    size_t hlen, hcap, scanned;
    int sig_checked;
    e2b_bundle_header hdr;
    int have_hdr;

    pack_scan *scan; /* the bounds, checked before the indexer gets the bytes */
    git_indexer *idx;
    pack_feed *feed; /* the indexer's thread while the pack is fed (NULL before and after) */
    git_indexer_progress stats;
    size_t magic_len;
    uint64_t pack_bytes;

    e2b_bundle_progress prog;
    e2b_bundle_progress_cb cb;
    void *ud;
    int cancelled;
    int lock_fd; /* the import lock (see lock_and_sweep), or -1 */
    char *qdir;  /* the quarantine the pack is indexed into (see make_quarantine), or NULL */
    char *moved[8]; /* files this import moved into objects/pack (to undo a later failure) */
    int nmoved;
    e2b_limits limits; /* bundle_bytes, tree_depth and the pack scanner's apply */
};

#define QUARANTINE_PREFIX "e2b-tui-incoming-"

/* Marks the import failed with e (replacing an earlier error); returns -1, as every step
 * of the import does on failure (the error stays in bi->err). */
static int bi_fail(e2b_bundle_import *bi, e2b_error *e)
{
    bi->state = ST_FAILED;
    e2b_error_free(bi->err);
    bi->err = e;
    return -1;
}

#define FAIL(bi, sub, ...) bi_fail((bi), e2b_error_local((sub), __VA_ARGS__))

static int git_fail(e2b_bundle_import *bi, e2b_error_sub code, const char *what)
{
    return bi_fail(bi, e2b_gitwork_git_error(code, what));
}

/* An import killed mid-pack (SIGKILL, power loss) leaves libgit2's temporary pack,
 * objects/pack/pack_git2_*, which nothing else removes (git gc only knows its own tmp_*).
 * The next import removes those: it holds an exclusive lock on .git/e2b-tui-import.lock for
 * its whole life, so another e2b-tui importing into this repository (which holds the lock)
 * is never swept under; without the lock nothing is swept. Files written to within the last
 * few seconds are spared as well, in case some other libgit2 program is fetching here. */
#define STALE_TEMP_PACK_SECONDS 5

static void remove_dir_files(const char *dir);
static int make_quarantine(e2b_bundle_import *bi);

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
    /* and the quarantines of killed imports (objects/e2b-tui-incoming-*) */
    if (asprintf(&path, "%sobjects", git_repository_commondir(repo)) < 0)
        return fd;
    d = opendir(path);
    if (!d) {
        free(path);
        return fd;
    }
    while ((de = readdir(d))) {
        struct stat st;
        char *q = NULL;
        if (strncmp(de->d_name, QUARANTINE_PREFIX, sizeof QUARANTINE_PREFIX - 1) != 0 ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
            now - st.st_mtime < STALE_TEMP_PACK_SECONDS ||
            asprintf(&q, "%s/%s", path, de->d_name) < 0)
            continue;
        remove_dir_files(q);
        free(q);
    }
    closedir(d);
    free(path);
    return fd;
}

e2b_error *e2b_bundle_import_new(e2b_bundle_import **out, e2b_gitwork *g, e2b_bundle_progress_cb cb,
                                 void *ud)
{
    *out = NULL;
    e2b_bundle_import *bi = calloc(1, sizeof *bi);
    if (!bi)
        return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    bi->g = g;
    bi->limits = e2b_limits_default();
    bi->cb = cb;
    bi->ud = ud;
    bi->lock_fd = lock_and_sweep(e2b_gitwork_repo(g));
    if (git_repository_odb(&bi->odb, e2b_gitwork_repo(g)) < 0) {
        e2b_error *e = e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot open the object database");
        if (bi->lock_fd >= 0)
            close(bi->lock_fd);
        free(bi);
        return e;
    }
    *out = bi;
    return NULL;
}

static void take_stats(e2b_bundle_import *bi, const git_indexer_progress *s)
{
    bi->prog.objects_received = s->received_objects;
    bi->prog.objects_total = s->total_objects;
    bi->prog.deltas_indexed = s->indexed_deltas;
    bi->prog.deltas_total = s->total_deltas;
    bi->prog.local_objects = s->local_objects;
}

static int on_index_progress(const git_indexer_progress *s, void *payload)
{
    e2b_bundle_import *bi = payload;
    if (bi->feed) /* appending, on the feed's thread: only its stop flag may be read */
        return pack_feed_stopping(bi->feed) ? -1 : 0;
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

static int index_error(e2b_bundle_import *bi, const char *what)
{
    if (bi->cancelled)
        return FAIL(bi, E2B_SUB_CANCELLED, "import cancelled");
    return git_fail(bi, E2B_SUB_BAD_BUNDLE, what);
}

/* The scanner's question for a delta by id: is its base already here? */
static int base_is_local(const uint8_t id[20], void *ud)
{
    e2b_bundle_import *bi = ud;
    git_oid oid;
    memcpy(oid.id, id, 20);
    return git_odb_exists(bi->odb, &oid);
}

/* While the scanner inflates (every PACK_SCAN_TICK_BYTES, inside an object too), a cancel
 * through the progress callback stops it. */
static int scan_tick(void *ud)
{
    e2b_bundle_import *bi = ud;
    if (bi->cb && bi->cb(&bi->prog, bi->ud) != 0)
        bi->cancelled = 1;
    return bi->cancelled;
}

/* Header complete: check prerequisites, then open the indexer. Nothing is written before
 * every prerequisite is known to be here. */
static int start_pack(e2b_bundle_import *bi)
{
    for (size_t i = 0; i < bi->hdr.nprereqs; i++) {
        git_oid oid;
        if (git_oid_fromstr(&oid, bi->hdr.prereqs[i]) < 0)
            return git_fail(bi, E2B_SUB_BAD_BUNDLE, "bad prerequisite");
        if (!git_odb_exists(bi->odb, &oid))
            return FAIL(bi, E2B_SUB_MISSING_BASE,
                        "base commit %.12s is not in this repository (the box was made "
                        "from another project)",
                        bi->hdr.prereqs[i]);
    }
    pack_scan_limits sl = {bi->limits.object_bytes, bi->limits.inflated_bytes,
                           bi->limits.delta_depth};
    if (!(bi->scan = pack_scan_new(&sl, base_is_local, scan_tick, bi)))
        return FAIL(bi, E2B_SUB_NOMEM, "out of memory");
    int qrc = make_quarantine(bi);
    if (qrc != 0)
        return qrc;
    git_indexer_options o;
    git_indexer_options_init(&o, GIT_INDEXER_OPTIONS_VERSION);
    o.progress_cb = on_index_progress;
    o.progress_cb_payload = bi;
    /* No o.verify: in libgit2 1.5.1 it leaks a parsed object for every pack object that
     * already exists locally (a re-pull or a full bundle would leak megabytes); the
     * connectivity check is done after the commit instead (check_connected), on the
     * quarantine. The local odb completes a thin pack. */
    int rc = git_indexer_new(&bi->idx, bi->qdir, 0, bi->odb, &o);
    if (rc < 0)
        return git_fail(bi, E2B_SUB_FAILED, "cannot start the pack import");
    e2b_error *e = NULL;
    if (!(bi->feed = pack_feed_start(bi->idx, &e)))
        return bi_fail(bi, e);
    bi->state = ST_PACK;
    return 0;
}

static int feed_pack(e2b_bundle_import *bi, const uint8_t *p, size_t n)
{
    for (size_t i = 0; bi->magic_len + i < 4 && i < n; i++)
        if (p[i] != (uint8_t)"PACK"[bi->magic_len + i])
            return FAIL(bi, E2B_SUB_BAD_BUNDLE, "bundle data after the header is not a pack");
    /* Scanned first: a refused object's bytes never reach the indexer. */
    e2b_error *e = pack_scan_feed(bi->scan, p, n);
    if (!e)
        e = pack_feed_push(bi->feed, p, n);
    if (e)
        return bi_fail(bi, e);
    bi->magic_len = bi->magic_len + n < 4 ? bi->magic_len + n : 4;
    bi->pack_bytes += n;
    git_indexer_progress st;
    pack_feed_stats(bi->feed, &st);
    take_stats(bi, &st);
    if (bi->cb && bi->cb(&bi->prog, bi->ud) != 0) {
        bi->cancelled = 1;
        return FAIL(bi, E2B_SUB_CANCELLED, "import cancelled");
    }
    return 0;
}

static int try_header(e2b_bundle_import *bi, int final)
{
    e2b_error *e = NULL;
    int r = e2b_bundle_header_parse(bi->hbuf, bi->hlen, &bi->hdr, &e);
    if (r < 0)
        return bi_fail(bi, e);
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

/* e2b_bundle_import_write: 0, or -1 with bi->err. */
static int import_write(e2b_bundle_import *bi, const void *buf, size_t n)
{
    if (bi->state == ST_FAILED)
        return -1;
    if (bi->state == ST_DONE)
        return FAIL(bi, E2B_SUB_BAD_ARG, "bundle import already finished");
    if (n == 0) /* nothing to add (and no buffer yet to add it to) */
        return 0;
    if (bi->prog.bytes + n > bi->limits.bundle_bytes)
        return FAIL(bi, E2B_SUB_BAD_BUNDLE,
                    "the bundle is larger than %llu MiB (limit.bundle_bytes in the config); "
                    "nothing was imported",
                    (unsigned long long)(bi->limits.bundle_bytes >> 20));
    bi->prog.bytes += n;
    if (bi->state == ST_PACK)
        return feed_pack(bi, buf, n);

    /* Header: accumulate up to the cap (plus one byte so an overlong header shows). */
    size_t room = E2B_BUNDLE_HEADER_MAX + 1 - bi->hlen;
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
    if (bi->hlen > E2B_BUNDLE_HEADER_MAX)
        decide = 1;
    int rc = decide ? try_header(bi, 0) : 0;
    if (rc == 0 && bi->state == ST_PACK && take < n)
        rc = feed_pack(bi, (const uint8_t *)buf + take, n - take);
    return rc;
}

const e2b_error *e2b_bundle_import_write(e2b_bundle_import *bi, const void *buf, size_t n)
{
    return import_write(bi, buf, n) != 0 ? bi->err : NULL;
}

void e2b_bundle_import_set_limits(e2b_bundle_import *bi, const e2b_limits *limits)
{
    bi->limits = *limits;
}

/* ---- quarantine: the pack is indexed and checked where no reader looks ---- */

/* Removes dir and the files in it (the quarantine holds files only). */
static void remove_dir_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)))
            if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
                unlinkat(dirfd(d), de->d_name, 0);
        closedir(d);
    }
    rmdir(dir);
}

/* Creates objects/e2b-tui-incoming-XXXXXX: inside the object directory (so a move into
 * objects/pack is a rename on one file system) but in no place git or libgit2 reads
 * objects from (only objects/xx/ and objects/pack/ are), like git's own quarantine for
 * pushes (objects/tmp_objdir-incoming-*). */
static int make_quarantine(e2b_bundle_import *bi)
{
    if (asprintf(&bi->qdir, "%sobjects/" QUARANTINE_PREFIX "XXXXXX",
                 git_repository_commondir(e2b_gitwork_repo(bi->g))) < 0) {
        bi->qdir = NULL;
        return FAIL(bi, E2B_SUB_NOMEM, "out of memory");
    }
    if (!mkdtemp(bi->qdir)) {
        int e = errno;
        free(bi->qdir);
        bi->qdir = NULL;
        return FAIL(bi, E2B_SUB_FILE_IO, "cannot create a temporary directory in .git/objects: %s",
                    strerror(e));
    }
    return 0;
}

/* Names of the files in the quarantine, the .pack before the .idx (a reader ignores a
 * pack without its index, so moving in this order never shows half a pack). */
static int quarantine_files(const char *qdir, char names[][96], int max)
{
    DIR *d = opendir(qdir);
    int n = 0;
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        size_t len = strlen(de->d_name);
        if (!strncmp(de->d_name, "pack-", 5) && len < 96)
            memcpy(names[n++], de->d_name, len + 1);
    }
    closedir(d);
    for (int i = 0; i < n; i++) /* .idx last */
        for (int j = i + 1; j < n; j++)
            if (strstr(names[i], ".idx") && !strstr(names[j], ".idx")) {
                char t[96];
                memcpy(t, names[i], 96);
                memcpy(names[i], names[j], 96);
                memcpy(names[j], t, 96);
            }
    return n;
}

/* Moves the checked pack into objects/pack. A file of that name there already (the same
 * pack pulled before: names are content hashes) is kept and not counted as ours, so a later
 * failure removes only what this import added. */
static int move_in(e2b_bundle_import *bi)
{
    char names[8][96];
    int n = quarantine_files(bi->qdir, names, 8);
    const char *common = git_repository_commondir(e2b_gitwork_repo(bi->g));
    for (int i = 0; i < n; i++) {
        char *from = NULL, *to = NULL;
        if (asprintf(&from, "%s/%s", bi->qdir, names[i]) < 0)
            from = NULL;
        if (asprintf(&to, "%sobjects/pack/%s", common, names[i]) < 0)
            to = NULL;
        int rc = !from || !to ? -1 : link(from, to);
        int e = errno;
        if (rc == 0 && bi->nmoved < 8)
            bi->moved[bi->nmoved++] = to, to = NULL;
        free(from);
        free(to);
        if (rc < 0 && e != EEXIST)
            return FAIL(bi, E2B_SUB_FILE_IO, "cannot move the imported pack into .git/objects/pack: %s",
                        strerror(e));
    }
    remove_dir_files(bi->qdir);
    free(bi->qdir);
    bi->qdir = NULL;
    git_odb_refresh(bi->odb);
    return 0;
}

/* Removes what move_in added (index first), after a failure that came later. */
static void move_out(e2b_bundle_import *bi)
{
    for (int i = bi->nmoved - 1; i >= 0; i--) {
        unlink(bi->moved[i]);
        free(bi->moved[i]);
    }
    bi->nmoved = 0;
    git_odb_refresh(bi->odb);
}

/* A second handle on the repository whose object database is the repository's plus the
 * quarantined pack: what the repository would be with the import, for the checks. */
static int open_checking_repo(e2b_bundle_import *bi, git_repository **out)
{
    git_repository *repo = e2b_gitwork_repo(bi->g), *r = NULL;
    git_odb *odb = NULL;
    git_odb_backend *pack = NULL;
    char names[8][96], *objects = NULL, *idx = NULL;
    int n = quarantine_files(bi->qdir, names, 8), rc = -1;
    for (int i = 0; i < n; i++)
        if (strstr(names[i], ".idx") && asprintf(&idx, "%s/%s", bi->qdir, names[i]) < 0)
            idx = NULL;
    if (idx && asprintf(&objects, "%sobjects", git_repository_commondir(repo)) >= 0 &&
        git_repository_open(&r, git_repository_path(repo)) == 0 &&
        git_odb_open(&odb, objects) == 0 && git_odb_backend_one_pack(&pack, idx) == 0) {
        if (git_odb_add_backend(odb, pack, 3) == 0) {
            pack = NULL; /* owned by odb now */
            if (git_repository_set_odb(r, odb) == 0)
                rc = 0;
        }
    }
    if (pack)
        pack->free(pack);
    git_odb_free(odb); /* the repository holds its own reference */
    free(objects);
    free(idx);
    if (rc < 0) {
        git_repository_free(r);
        return git_fail(bi, E2B_SUB_FAILED, "cannot check the imported pack");
    }
    *out = r;
    return 0;
}

/* A map from object id to a small value (a tree's height; 0 for blobs), open addressing,
 * for the connectivity walk. */
typedef struct {
    git_oid *slots;
    unsigned *vals;
    unsigned char *used;
    size_t cap, n;
} oid_set;

static size_t oid_hash(const git_oid *o)
{
    size_t h;
    memcpy(&h, o->id, sizeof h);
    return h;
}

static void oid_set_free(oid_set *s)
{
    free(s->slots);
    free(s->vals);
    free(s->used);
}

/* The value slot of o, added (with 0, *added = 1) when absent; NULL when out of memory.
 * The pointer is good until the next call. */
static unsigned *oid_set_slot(oid_set *s, const git_oid *o, int *added)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        oid_set ns = {calloc(cap, sizeof *ns.slots), calloc(cap, sizeof *ns.vals), calloc(cap, 1),
                      cap, 0};
        if (!ns.slots || !ns.vals || !ns.used) {
            oid_set_free(&ns);
            return NULL;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->used[i]) {
                int a;
                *oid_set_slot(&ns, &s->slots[i], &a) = s->vals[i];
            }
        oid_set_free(s);
        *s = ns;
    }
    for (size_t i = oid_hash(o) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->used[i]) {
            s->used[i] = 1;
            s->slots[i] = *o;
            s->vals[i] = 0;
            s->n++;
            *added = 1;
            return &s->vals[i];
        }
        if (git_oid_equal(&s->slots[i], o)) {
            *added = 0;
            return &s->vals[i];
        }
    }
}

enum { CHECK_OK = 0, CHECK_MISSING = 1, CHECK_TOO_DEEP = 2, CHECK_CANCELLED = 3, CHECK_ERROR = -1 };

/* Every 4096 objects of the walk, the progress callback may cancel it. */
static int walk_cancelled(e2b_bundle_import *bi, unsigned *steps)
{
    if ((++*steps & 4095) != 0 || !bi->cb)
        return 0;
    if (bi->cb(&bi->prog, bi->ud) != 0)
        bi->cancelled = 1;
    return bi->cancelled;
}

typedef struct {
    git_tree *tree;
    size_t next;     /* the next entry to look at */
    unsigned height; /* the tallest subtree seen so far under it */
} tree_frame;

/* Every object under tree_id exists and no tree is nested more than max levels deep.
 * Iterative, with an explicit stack, so a hostile tree costs memory bounded by the cap and
 * never the C stack. Each tree's height is remembered, so a tree met again (trees are
 * shared) is judged at its new depth without being walked again. */
static int check_tree(e2b_bundle_import *bi, git_repository *repo, git_odb *odb,
                      const git_oid *tree_id, oid_set *seen, unsigned max, unsigned *steps,
                      char missing[41])
{
    int added;
    unsigned *v = oid_set_slot(seen, tree_id, &added);
    if (!v)
        return CHECK_ERROR;
    if (!added)
        return *v > max ? CHECK_TOO_DEEP : CHECK_OK;
    tree_frame *st = NULL;
    size_t n = 0, cap = 0;
    int rc = CHECK_OK;
    git_oid next_id = *tree_id;
    for (int push = 1;;) {
        if (push) {
            push = 0;
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 64;
                tree_frame *ns = realloc(st, nc * sizeof *ns);
                if (!ns) {
                    rc = CHECK_ERROR;
                    break;
                }
                st = ns;
                cap = nc;
            }
            git_tree *t = NULL;
            if (git_tree_lookup(&t, repo, &next_id) < 0) {
                git_error_clear();
                git_oid_tostr(missing, GIT_OID_HEXSZ + 1, &next_id);
                rc = CHECK_MISSING;
                break;
            }
            st[n++] = (tree_frame){t, 0, 0};
        }
        tree_frame *f = &st[n - 1];
        if (walk_cancelled(bi, steps)) {
            rc = CHECK_CANCELLED;
            break;
        }
        if (f->next == git_tree_entrycount(f->tree)) {
            /* done with this tree: remember its height, hand it to the parent */
            unsigned h = f->height + 1;
            int a;
            unsigned *slot = oid_set_slot(seen, git_tree_id(f->tree), &a);
            git_tree_free(f->tree);
            n--;
            if (!slot) {
                rc = CHECK_ERROR;
                break;
            }
            *slot = h;
            if (n == 0)
                break;
            if (h > st[n - 1].height)
                st[n - 1].height = h;
            continue;
        }
        const git_tree_entry *e = git_tree_entry_byindex(f->tree, f->next++);
        const git_oid *id = git_tree_entry_id(e);
        git_object_t type = git_tree_entry_type(e);
        if (type == GIT_OBJECT_TREE) {
            unsigned *cv = oid_set_slot(seen, id, &added);
            if (!cv) {
                rc = CHECK_ERROR;
                break;
            }
            /* a child at level n + 1 whose own height is *cv reaches level n + *cv */
            if (!added) {
                if (n + *cv > max) {
                    rc = CHECK_TOO_DEEP;
                    break;
                }
                if (*cv > f->height)
                    f->height = *cv;
                continue;
            }
            if (n + 1 > max) {
                rc = CHECK_TOO_DEEP;
                break;
            }
            next_id = *id;
            push = 1;
        } else if (type == GIT_OBJECT_BLOB) {
            if (!oid_set_slot(seen, id, &added)) {
                rc = CHECK_ERROR;
                break;
            }
            if (added && !git_odb_exists(odb, id)) {
                git_oid_tostr(missing, GIT_OID_HEXSZ + 1, id);
                rc = CHECK_MISSING;
                break;
            }
        } /* else: submodule commits live in another repository */
    }
    while (n > 0)
        git_tree_free(st[--n].tree);
    free(st);
    return rc;
}

/* Like `git rev-list --objects tip --not --all`: every commit reachable from tip and not
 * from an existing ref must exist with its whole tree (the local history is trusted to be
 * complete). CHECK_OK, CHECK_MISSING (missing = its id), CHECK_TOO_DEEP or CHECK_ERROR. */
static int check_connected(e2b_bundle_import *bi, git_repository *repo, const git_oid *tip,
                           char missing[41])
{
    unsigned steps = 0;
    git_revwalk *w = NULL;
    git_odb *odb = NULL;
    oid_set seen = {0};
    int rc = CHECK_ERROR;
    if (git_revwalk_new(&w, repo) < 0 || git_repository_odb(&odb, repo) < 0 ||
        git_revwalk_push(w, tip) < 0)
        goto out;
    git_revwalk_hide_glob(w, "refs/*");
    git_error_clear();
    git_oid id;
    int r;
    rc = CHECK_OK;
    while (rc == CHECK_OK && (r = git_revwalk_next(&id, w)) == 0) {
        git_commit *c = NULL;
        if (git_commit_lookup(&c, repo, &id) < 0) {
            git_oid_tostr(missing, GIT_OID_HEXSZ + 1, &id);
            rc = CHECK_MISSING;
            break;
        }
        rc = check_tree(bi, repo, odb, git_commit_tree_id(c), &seen, bi->limits.tree_depth,
                        &steps, missing);
        git_commit_free(c);
    }
    if (rc == CHECK_OK && r != GIT_ITEROVER) {
        /* the walk stops when a parent commit is not there */
        snprintf(missing, GIT_OID_HEXSZ + 1, "%s", "a parent commit");
        rc = CHECK_MISSING;
    }
    git_error_clear();
out:
    oid_set_free(&seen);
    git_odb_free(odb);
    git_revwalk_free(w);
    return rc;
}

/* e2b_bundle_import_finish: 0, or -1 with bi->err. */
static int import_finish(e2b_bundle_import *bi, const char *want_ref, char oid_out[41])
{
    if (bi->state == ST_FAILED)
        return -1;
    if (bi->state == ST_DONE)
        return FAIL(bi, E2B_SUB_BAD_ARG, "bundle import already finished");
    if (bi->state == ST_HEADER) {
        int rc = try_header(bi, 1);
        if (rc != 0)
            return rc;
    }
    if (bi->magic_len < 4)
        return FAIL(bi, E2B_SUB_BAD_BUNDLE, "bundle is truncated (no pack data)");
    if (!pack_scan_complete(bi->scan))
        return FAIL(bi, E2B_SUB_BAD_BUNDLE, "bundle pack is truncated or corrupt");

    /* Resolve the wanted ref before committing: a wrong name must not leave a pack. */
    const e2b_bundle_ref *ref = NULL;
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
    /* Every byte appended (the feed's thread ends), then the pack is committed into the
     * quarantine and checked there; only a pack that passes moves into objects/pack. */
    e2b_error *fe = pack_feed_finish(bi->feed, &bi->stats);
    bi->feed = NULL;
    if (fe)
        return bi_fail(bi, fe);
    if (git_indexer_commit(bi->idx, &bi->stats) < 0)
        return index_error(bi, "bundle pack is truncated or corrupt");
    on_index_progress(&bi->stats, bi);
    if (bi->cancelled)
        return FAIL(bi, E2B_SUB_CANCELLED, "import cancelled");

    git_repository *check = NULL;
    int rc = open_checking_repo(bi, &check);
    if (rc != 0)
        return rc;
    git_oid oid;
    git_commit *c = NULL;
    if (git_oid_fromstr(&oid, ref->oid) < 0 || git_commit_lookup(&c, check, &oid) < 0) {
        git_error_clear();
        git_repository_free(check);
        return FAIL(bi, E2B_SUB_BAD_BUNDLE, "the bundle does not contain the commit of %s", ref->name);
    }
    git_commit_free(c);
    char missing[GIT_OID_HEXSZ + 1] = "";
    int conn = check_connected(bi, check, &oid, missing);
    git_repository_free(check);
    if (conn == CHECK_ERROR)
        return git_fail(bi, E2B_SUB_FAILED, "cannot check the imported history");
    if (conn == CHECK_CANCELLED)
        return FAIL(bi, E2B_SUB_CANCELLED, "import cancelled");
    if (conn == CHECK_TOO_DEEP)
        return FAIL(bi, E2B_SUB_BAD_BUNDLE,
                    "the bundle has trees nested more than %u levels deep (limit.tree_depth in "
                    "the config); nothing was imported",
                    bi->limits.tree_depth);
    if (conn == CHECK_MISSING)
        return FAIL(bi, E2B_SUB_BAD_BUNDLE,
                    "the bundle is incomplete (%s%.12s is missing); nothing was imported",
                    missing[0] == 'a' && missing[1] == ' ' ? "" : "object ", missing);
    rc = move_in(bi);
    if (rc != 0) {
        move_out(bi);
        return rc;
    }
    memcpy(oid_out, ref->oid, 41);
    bi->state = ST_DONE;
    return 0;
}

const e2b_error *e2b_bundle_import_finish(e2b_bundle_import *bi, const char *want_ref,
                                          char oid_out[41])
{
    return import_finish(bi, want_ref, oid_out) != 0 ? bi->err : NULL;
}

const e2b_error *e2b_bundle_import_finish_branch(e2b_bundle_import *bi, const char *want_ref,
                                                 const char *branch, int force,
                                                 e2b_gitwork_branch_outcome *outcome,
                                                 char oid_out[41])
{
    if (e2b_bundle_import_finish(bi, want_ref, oid_out))
        return bi->err;
    e2b_error *e = e2b_gitwork_update_branch(bi->g, branch, oid_out, force, outcome);
    if (e) {
        /* a refused branch update (diverged, checked out) leaves no new pack either */
        move_out(bi);
        bi_fail(bi, e);
    }
    return e;
}

const e2b_error *e2b_bundle_import_error(const e2b_bundle_import *bi) { return bi->err; }

const e2b_bundle_progress *e2b_bundle_import_progress(const e2b_bundle_import *bi) { return &bi->prog; }

void e2b_bundle_import_free(e2b_bundle_import *bi)
{
    if (!bi)
        return;
    pack_feed_stop(bi->feed); /* before the indexer it appends to goes */
    git_indexer_free(bi->idx); /* an uncommitted indexer removes its temporary pack */
    pack_scan_free(bi->scan);
    if (bi->qdir) /* a failed or abandoned import: nothing of it stays */
        remove_dir_files(bi->qdir);
    free(bi->qdir);
    for (int i = 0; i < bi->nmoved; i++)
        free(bi->moved[i]);
    git_odb_free(bi->odb);
    e2b_bundle_header_free(&bi->hdr);
    e2b_error_free(bi->err);
    free(bi->hbuf);
    if (bi->lock_fd >= 0)
        close(bi->lock_fd);
    free(bi);
}
