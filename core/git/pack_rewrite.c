/* Rewriting a pack without its dropped entries (pack_rewrite.h); entry layout from git's
 * pack-format documentation. */
#include "core/git/pack_rewrite.h"

#include "core/git/pack_idx.h"
#include "core/git/pack_scan.h"

#include <fcntl.h>
#include <git2.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define OBJ_OFS_DELTA 6
#define OBJ_REF_DELTA 7
#define HEAD_MAX 32 /* type and a 64-bit size (11 bytes), then an offset (10) or an id (20) */
#define COPY_BYTES (1u << 18)

typedef struct {
    uint64_t off, end; /* the entry's bytes in the source */
    uint64_t new_off;  /* where it starts in the new pack, once written */
    uint32_t ord;      /* its place in the index's (id) order */
} entry;

/* An entry's header: type, declared size, and a delta's base. */
typedef struct {
    int type;
    uint64_t size;
    unsigned len;    /* header bytes, base included */
    uint64_t dist;   /* OFS_DELTA: how far back its base starts */
    git_oid base_id; /* REF_DELTA */
} entry_head;

/* The new pack's bytes go to the indexer (which writes the file) and into its checksum. */
typedef struct {
    git_indexer *ix;
    git_indexer_progress stats;
    EVP_MD_CTX *sha;
    uint64_t written;
    size_t len;
    int failed;
    unsigned char buf[COPY_BYTES];
} sink;

typedef struct {
    const pack_idx *idx;
    entry *entries;     /* in pack order */
    uint32_t *pos;      /* ord -> index in entries */
    unsigned char *keep; /* by ord */
    int fd;
    const char *name;   /* the source's file name, for messages */
    git_odb *odb;
    const pack_scan_limits *lim;
    sink *out;
    unsigned char *copy; /* COPY_BYTES */
} rewrite;

static int flush(sink *s)
{
    if (s->failed || s->len == 0)
        return s->failed ? -1 : 0;
    if (EVP_DigestUpdate(s->sha, s->buf, s->len) != 1 ||
        git_indexer_append(s->ix, s->buf, s->len, &s->stats) != 0)
        s->failed = 1;
    s->len = 0;
    return s->failed ? -1 : 0;
}

static int put(sink *s, const void *p, size_t n)
{
    const unsigned char *b = p;
    s->written += n;
    while (n > 0 && !s->failed) {
        size_t k = sizeof s->buf - s->len < n ? sizeof s->buf - s->len : n;
        memcpy(s->buf + s->len, b, k);
        s->len += k;
        b += k;
        n -= k;
        if (s->len == sizeof s->buf)
            flush(s);
    }
    return s->failed ? -1 : 0;
}

/* type and size as an entry header starts: 4 bits of size, then 7 a byte. */
static unsigned encode_head(unsigned char *p, int type, uint64_t size)
{
    unsigned n = 0;
    unsigned char c = (unsigned char)(type << 4 | (size & 15));
    for (size >>= 4; size; size >>= 7) {
        p[n++] = c | 0x80;
        c = size & 0x7f;
    }
    p[n++] = c;
    return n;
}

/* An OFS_DELTA's distance: big-endian 7 bits a byte, each continuation one more. */
static unsigned encode_dist(unsigned char *p, uint64_t dist)
{
    unsigned char tmp[10];
    unsigned at = sizeof tmp - 1;
    tmp[at] = dist & 0x7f;
    while (dist >>= 7)
        tmp[--at] = 0x80 | (--dist & 0x7f);
    memcpy(p, tmp + at, sizeof tmp - at);
    return (unsigned)(sizeof tmp - at);
}

/* Parses the header in p[0..n); 0, or -1 when it is malformed or longer than n. */
static int parse_head(const unsigned char *p, size_t n, entry_head *h)
{
    size_t at = 0;
    if (n == 0)
        return -1;
    h->type = (p[0] >> 4) & 7;
    h->size = p[0] & 15;
    for (unsigned shift = 4; p[at++] & 0x80; shift += 7) {
        if (at >= n || shift > 57)
            return -1;
        h->size |= (uint64_t)(p[at] & 0x7f) << shift;
    }
    if (h->type == 0 || h->type == 5)
        return -1;
    if (h->type == OBJ_OFS_DELTA) {
        if (at >= n)
            return -1;
        h->dist = p[at] & 0x7f;
        while (p[at++] & 0x80) {
            if (at >= n || h->dist > (UINT64_MAX >> 8))
                return -1;
            h->dist = ((h->dist + 1) << 7) | (p[at] & 0x7f);
        }
        if (h->dist == 0)
            return -1;
    } else if (h->type == OBJ_REF_DELTA) {
        if (n - at < 20)
            return -1;
        memcpy(h->base_id.id, p + at, 20);
        at += 20;
    }
    h->len = (unsigned)at;
    return 0;
}

static int on_progress(const git_indexer_progress *stats, void *cancel)
{
    (void)stats;
    return cancel && atomic_load((const atomic_int *)cancel) ? -1 : 0;
}

static int on_tick(void *cancel)
{
    return on_progress(NULL, cancel);
}

static e2b_error *bad(const rewrite *r, const char *what)
{
    return e2b_error_local(E2B_SUB_FAILED, "the pack %s cannot be rewritten: %s", r->name, what);
}

/* The entry starting at off, by binary search, or NULL. */
static const entry *entry_at(const rewrite *r, uint64_t off)
{
    size_t lo = 0, hi = r->idx->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->entries[mid].off == off)
            return &r->entries[mid];
        if (r->entries[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The entry of object id, or NULL. */
static const entry *entry_of(const rewrite *r, const git_oid *id)
{
    size_t lo = 0, hi = r->idx->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = git_oid_cmp(&r->idx->ids[mid], id);
        if (c == 0)
            return &r->entries[r->pos[mid]];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The entry's source bytes from skip on to the sink, all of them through the CRC, which
 * must be the index's. */
static e2b_error *copy_entry(rewrite *r, const entry *e, uint64_t skip)
{
    uint32_t crc = (uint32_t)crc32(0, Z_NULL, 0);
    for (uint64_t at = e->off; at < e->end;) {
        size_t k = e->end - at < COPY_BYTES ? (size_t)(e->end - at) : COPY_BYTES;
        ssize_t got = pread(r->fd, r->copy, k, (off_t)at);
        if (got != (ssize_t)k)
            return bad(r, "it is shorter than its index says (changed while read?)");
        crc = (uint32_t)crc32(crc, r->copy, (uInt)k);
        uint64_t from = at - e->off < skip ? skip - (at - e->off) : 0;
        if (from < k && put(r->out, r->copy + from, k - from) != 0)
            return NULL; /* the sink's failure is reported once, at the end */
        at += k;
    }
    if (crc != r->idx->crcs[e->ord])
        return bad(r, "an entry's bytes do not match their checksum in the index");
    return NULL;
}

/* A delta whose base is dropped: the object read whole from the repository and deflated. */
static e2b_error *write_whole(rewrite *r, const entry *e)
{
    git_odb_object *obj = NULL;
    if (git_odb_read(&obj, r->odb, &r->idx->ids[e->ord]) != 0) {
        const git_error *ge = git_error_last();
        char why[300];
        snprintf(why, sizeof why, "a delta's object cannot be read (%s)", ge ? ge->message : "?");
        return bad(r, why);
    }
    unsigned char head[HEAD_MAX];
    size_t size = git_odb_object_size(obj);
    put(r->out, head, encode_head(head, (int)git_odb_object_type(obj), size));
    z_stream z = {0};
    int rc = deflateInit(&z, Z_DEFAULT_COMPRESSION) == Z_OK ? 0 : -1;
    z.next_in = (Bytef *)git_odb_object_data(obj);
    int zr = Z_OK;
    while (rc == 0 && zr != Z_STREAM_END) {
        size_t left = size - (size_t)((const unsigned char *)z.next_in -
                                      (const unsigned char *)git_odb_object_data(obj));
        z.avail_in = left > UINT32_MAX ? UINT32_MAX : (uInt)left;
        z.next_out = r->copy;
        z.avail_out = COPY_BYTES;
        zr = deflate(&z, z.avail_in == left ? Z_FINISH : Z_NO_FLUSH);
        if (zr == Z_STREAM_ERROR)
            rc = -1;
        else
            put(r->out, r->copy, COPY_BYTES - z.avail_out);
    }
    deflateEnd(&z);
    git_odb_object_free(obj);
    return rc == 0 ? NULL : e2b_error_local(E2B_SUB_NOMEM, "out of memory");
}

/* One kept entry: as it is, with its base's new distance, or whole. */
static e2b_error *write_entry(rewrite *r, entry *e, pack_rewrite_info *info)
{
    unsigned char raw[HEAD_MAX];
    size_t n = e->end - e->off < HEAD_MAX ? (size_t)(e->end - e->off) : HEAD_MAX;
    entry_head h;
    if (pread(r->fd, raw, n, (off_t)e->off) != (ssize_t)n)
        return bad(r, "it is shorter than its index says (changed while read?)");
    if (parse_head(raw, n, &h) != 0 || h.len >= e->end - e->off)
        return bad(r, "an entry's header is malformed");
    e->new_off = r->out->written;
    const entry *base = NULL;
    if (h.type == OBJ_OFS_DELTA) {
        base = h.dist <= e->off ? entry_at(r, e->off - h.dist) : NULL;
        if (!base)
            return bad(r, "a delta's base is not an entry of the pack");
    } else if (h.type == OBJ_REF_DELTA) {
        base = entry_of(r, &h.base_id); /* NULL: not in this pack, written whole */
    }
    if (h.type < OBJ_OFS_DELTA) {
        info->copied++;
        return copy_entry(r, e, 0);
    }
    if (!base || !r->keep[base->ord]) {
        info->resolved++;
        return write_whole(r, e);
    }
    info->copied++;
    if (h.type == OBJ_REF_DELTA)
        return copy_entry(r, e, 0);
    unsigned char head[HEAD_MAX];
    unsigned k = encode_head(head, OBJ_OFS_DELTA, h.size);
    k += encode_dist(head + k, e->new_off - base->new_off);
    put(r->out, head, k);
    return copy_entry(r, e, h.len);
}

/* The whole source through the pack scanner before anything of it is used: every size an
 * entry or a delta declares within lim, every zlib stream no longer than declared. Then
 * libgit2 reading an object of it (a delta written whole, and the indexer applying a copied
 * delta) builds nothing larger than lim->object_bytes. */
static e2b_error *scan_source(rewrite *r, const atomic_int *cancel)
{
    pack_scan *ps = pack_scan_new(r->lim, NULL, on_tick, (void *)cancel);
    if (!ps)
        return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    e2b_error *e = NULL;
    for (uint64_t at = 0; !e && at < r->idx->pack_size - 20;) {
        uint64_t left = r->idx->pack_size - 20 - at;
        size_t k = left < COPY_BYTES ? (size_t)left : COPY_BYTES;
        e2b_error *why = NULL;
        if (pread(r->fd, r->copy, k, (off_t)at) != (ssize_t)k)
            e = bad(r, "it is shorter than its index says (changed while read?)");
        else if ((why = pack_scan_feed(ps, r->copy, k)))
            e = e2b_error_sub_of(why) == E2B_SUB_CANCELLED
                    ? e2b_error_local(E2B_SUB_CANCELLED, "cancelled")
                    : bad(r, "an entry is malformed, or larger than a rewrite reads");
        e2b_error_free(why); /* its sentence speaks of bundles: pack_rewrite says its own */
        at += k;
    }
    if (!e && !pack_scan_complete(ps))
        e = bad(r, "its entries end before the count its header declares");
    pack_scan_free(ps);
    return e;
}

static int by_offset(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* The pack's entries in pack order, each with its end (the next one's start, the trailer's
 * for the last); pos maps the index's order to them. */
static e2b_error *lay_out(rewrite *r)
{
    const pack_idx *p = r->idx;
    for (uint32_t i = 0; i < p->n; i++)
        r->entries[i] = (entry){.off = p->offsets[i], .ord = i};
    qsort(r->entries, p->n, sizeof *r->entries, by_offset);
    for (uint32_t i = 0; i < p->n; i++) {
        r->entries[i].end = i + 1 < p->n ? r->entries[i + 1].off : p->pack_size - 20;
        if (r->entries[i].end <= r->entries[i].off)
            return bad(r, "two entries of its index start at the same offset");
        r->pos[r->entries[i].ord] = i;
    }
    return NULL;
}


typedef struct {
    const rewrite *r;
    uint32_t next; /* the next kept ord to meet */
    int same;
} id_check;

/* The new index lists the kept ids in order, nothing else (both are in id order). */
static int on_new_id(const git_oid *id, void *payload)
{
    id_check *c = payload;
    while (c->next < c->r->idx->n && !c->r->keep[c->next])
        c->next++;
    if (c->next >= c->r->idx->n || git_oid_cmp(id, &c->r->idx->ids[c->next]) != 0) {
        c->same = 0;
        return 1;
    }
    c->next++;
    return 0;
}

/* Writes the kept entries, then the trailer, and has the indexer finish and check. */
static e2b_error *write_pack(rewrite *r, const char *dir, uint32_t kept, const atomic_int *cancel,
                             pack_rewrite_info *info)
{
    unsigned char head[12] = {'P', 'A', 'C', 'K', 0, 0, 0, 2,
                              (unsigned char)(kept >> 24), (unsigned char)(kept >> 16),
                              (unsigned char)(kept >> 8), (unsigned char)kept};
    e2b_error *e = NULL;
    put(r->out, head, sizeof head); /* a failure is the sink's, told below */
    for (uint32_t i = 0; !e && !r->out->failed && i < r->idx->n; i++) {
        entry *en = &r->entries[i];
        if (!r->keep[en->ord])
            continue;
        e = write_entry(r, en, info);
        if (!e && (i & 63) == 63 && on_progress(NULL, (void *)cancel))
            e = e2b_error_local(E2B_SUB_CANCELLED, "cancelled");
    }
    unsigned char sum[EVP_MAX_MD_SIZE];
    unsigned sumlen = 0;
    if (!e && (flush(r->out) != 0 ||
                    EVP_DigestFinal_ex(r->out->sha, sum, &sumlen) != 1 ||
                    git_indexer_append(r->out->ix, sum, sumlen, &r->out->stats) != 0 ||
                    git_indexer_commit(r->out->ix, &r->out->stats) != 0))
        r->out->failed = 1;
    if (!e && r->out->failed) {
        if (cancel && atomic_load(cancel))
            return e2b_error_local(E2B_SUB_CANCELLED, "cancelled");
        const git_error *ge = git_error_last();
        char why[300];
        snprintf(why, sizeof why, "the new pack does not index (%s)", ge ? ge->message : "?");
        return bad(r, why);
    }
    if (e)
        return e;
    snprintf(info->name, sizeof info->name, "%s", git_indexer_name(r->out->ix));
    char idx[4200], pack[4200];
    snprintf(idx, sizeof idx, "%s/pack-%s.idx", dir, info->name);
    snprintf(pack, sizeof pack, "%s/pack-%s.pack", dir, info->name);
    id_check c = {r, 0, 1};
    int listed = pack_idx_each(idx, pack, on_new_id, &c) == 0 && c.same;
    while (listed && c.next < r->idx->n && !r->keep[c.next])
        c.next++;
    if (!listed || c.next < r->idx->n) {
        unlink(idx);
        unlink(pack);
        info->name[0] = 0;
        return bad(r, "the new pack holds other objects than the kept ones");
    }
    info->kept = kept;
    return NULL;
}

e2b_error *pack_rewrite(git_odb *odb, const char *idx_path, const char *pack_path,
                        int (*keep)(const git_oid *id, void *payload), void *payload,
                        const pack_scan_limits *lim, const char *dir, const atomic_int *cancel,
                        pack_rewrite_info *info)
{
    memset(info, 0, sizeof *info);
    const char *slash = strrchr(pack_path, '/');
    pack_idx p;
    const char *why = NULL;
    rewrite r = {.idx = &p, .fd = -1, .name = slash ? slash + 1 : pack_path, .odb = odb, .lim = lim};
    int loaded = pack_idx_load(idx_path, pack_path, &p, &why);
    if (loaded == -2)
        return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    if (loaded != 0)
        return bad(&r, why);
    r.entries = malloc((size_t)p.n * sizeof *r.entries + 1);
    r.pos = malloc((size_t)p.n * sizeof *r.pos + 1);
    r.keep = malloc((size_t)p.n + 1);
    r.copy = malloc(COPY_BYTES);
    sink *out = r.out = calloc(1, sizeof *out);
    e2b_error *e = r.entries && r.pos && r.keep && r.copy && out
                       ? NULL
                       : e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    uint32_t kept = 0;
    for (uint32_t i = 0; !e && i < p.n; i++) {
        r.keep[i] = keep(&p.ids[i], payload) != 0;
        kept += r.keep[i];
    }
    if (!e && kept > 0)
        e = lay_out(&r);
    struct stat st;
    if (!e && kept > 0) {
        r.fd = open(pack_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (r.fd < 0 || fstat(r.fd, &st) != 0 || !S_ISREG(st.st_mode) ||
            (uint64_t)st.st_size != p.pack_size)
            e = bad(&r, "it cannot be read, or changed while read");
    }
    git_indexer_options opts;
    git_indexer_options_init(&opts, GIT_INDEXER_OPTIONS_VERSION);
    opts.progress_cb = on_progress;
    opts.progress_cb_payload = (void *)cancel;
    if (!e && kept > 0) {
        out->sha = EVP_MD_CTX_new();
        if (!out->sha || EVP_DigestInit_ex(out->sha, EVP_sha1(), NULL) != 1)
            e = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
        else if (git_indexer_new(&out->ix, dir, 0600, NULL, &opts) != 0)
            e = e2b_error_local(E2B_SUB_FILE_IO, "cannot write the rewritten pack: %s",
                                git_error_last() ? git_error_last()->message : "?");
    }
    if (!e && kept > 0)
        e = scan_source(&r, cancel);
    if (!e && kept > 0)
        e = write_pack(&r, dir, kept, cancel, info);
    if (r.fd >= 0)
        close(r.fd);
    if (out) {
        git_indexer_free(out->ix); /* removes its temporary file when not committed */
        EVP_MD_CTX_free(out->sha);
    }
    free(out);
    free(r.copy);
    free(r.entries);
    free(r.pos);
    free(r.keep);
    pack_idx_free(&p);
    if (e)
        memset(info, 0, sizeof *info);
    return e;
}
