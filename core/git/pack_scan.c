/* The pack scanner: a byte-at-a-time state machine over entry headers, zlib for the data. */
#include "core/git/pack_scan.h"

#include "core/util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { S_HEADER, S_ENTRY, S_OFS, S_REF, S_DATA, S_END, S_FAILED };

#define OBJ_OFS_DELTA 6
#define OBJ_REF_DELTA 7
#define SINK_BYTES 65536

typedef struct {
    uint64_t offset; /* where the entry starts in the pack */
    uint32_t depth;  /* chain length along offsets (0: not a delta) */
} scan_entry;

struct pack_scan {
    pack_scan_limits lim;
    pack_scan_local_cb local;
    pack_scan_tick_cb tick;
    void *ud;
    int state;
    pack_scan_refusal refused;
    e2b_error_sub code; /* what pack_scan_feed reports (S_FAILED) */
    char why[400]; /* the refusal, for every later call (errors are sticky) */

    uint64_t pos;         /* bytes of the pack consumed */
    uint8_t head[12];     /* "PACK", version, object count */
    unsigned head_len;
    uint32_t count, done; /* objects declared, objects scanned */
    uint64_t declared;    /* sizes declared so far, added up */

    /* the entry being read */
    uint64_t entry_off;
    int type;
    uint64_t size;   /* its declared (inflated) size */
    unsigned shift;  /* varint decoding */
    uint64_t ofs;    /* OFS_DELTA distance */
    unsigned ofs_bytes;
    uint8_t ref[20];
    unsigned ref_len;
    uint32_t depth;      /* its depth along offsets */
    uint8_t dhead[20];   /* a delta's first inflated bytes: base and result sizes */
    unsigned dhead_len;
    int dhead_done;
    uint64_t out;        /* inflated so far */
    uint64_t since_tick; /* inflated since the last tick */
    z_stream z;
    int z_live;

    scan_entry *entries;
    size_t nentries, cap;
    uint64_t ref_unknown; /* REF_DELTAs whose base is not local */
    uint32_t max_depth;   /* the longest chain of offsets */
    uint8_t sink[SINK_BYTES];
};

pack_scan *pack_scan_new(const pack_scan_limits *lim, pack_scan_local_cb local,
                         pack_scan_tick_cb tick, void *ud)
{
    pack_scan *ps = calloc(1, sizeof *ps);
    if (!ps)
        return NULL;
    ps->lim = *lim;
    ps->local = local;
    ps->tick = tick;
    ps->ud = ud;
    return ps;
}

void pack_scan_free(pack_scan *ps)
{
    if (!ps)
        return;
    if (ps->z_live)
        inflateEnd(&ps->z);
    free(ps->entries);
    free(ps);
}

int pack_scan_complete(const pack_scan *ps) { return ps->state == S_END; }

/* A size for a message: whole MiB from 1 MiB up, else KiB or bytes. */
typedef struct {
    char s[32];
} size_text;

static size_text size_str(uint64_t n)
{
    size_text t;
    if (n >= (1u << 20))
        snprintf(t.s, sizeof t.s, "%llu MiB", (unsigned long long)(n >> 20));
    else if (n >= 1024)
        snprintf(t.s, sizeof t.s, "%llu KiB", (unsigned long long)(n >> 10));
    else
        snprintf(t.s, sizeof t.s, "%llu bytes", (unsigned long long)n);
    return t;
}

/* Records the refusal (the state becomes S_FAILED); returns non-zero (its subcode). */
static int refuse(pack_scan *ps, pack_scan_refusal what, e2b_error_sub code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(pack_scan *ps, pack_scan_refusal what, e2b_error_sub code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->why, sizeof ps->why, fmt, ap);
    va_end(ap);
    ps->state = S_FAILED;
    ps->refused = what;
    ps->code = code;
    return (int)code;
}

static int bad(pack_scan *ps, const char *what)
{
    return refuse(ps, PACK_SCAN_BAD, E2B_SUB_BAD_BUNDLE, "bad pack in bundle (%s, at byte %llu of the pack)",
                  what, (unsigned long long)ps->pos);
}

static int too_big(pack_scan *ps, const char *what, uint64_t n)
{
    return refuse(ps, PACK_SCAN_OBJECT, E2B_SUB_BAD_BUNDLE,
                  "the bundle holds %s %s, more than %s (limit.object_bytes in the config); "
                  "nothing was imported",
                  what, size_str(n).s, size_str(ps->lim.object_bytes).s);
}

/* Adds n to the declared total, refusing past inflated_bytes. */
static int declare(pack_scan *ps, uint64_t n)
{
    if (n > ps->lim.inflated_bytes - ps->declared) /* declared never passes the limit */
        return refuse(ps, PACK_SCAN_INFLATED, E2B_SUB_BAD_BUNDLE,
                      "the bundle's objects inflate to more than %s (limit.inflated_bytes in the "
                      "config); nothing was imported",
                      size_str(ps->lim.inflated_bytes).s);
    ps->declared += n;
    return 0;
}

/* The chain bound of pack_scan.h: (unknown REF bases + 1) * longest chain of offsets. */
static int check_depth(pack_scan *ps)
{
    uint64_t bound = (ps->ref_unknown + 1) * (uint64_t)ps->max_depth;
    if (bound <= ps->lim.delta_depth)
        return 0;
    if (ps->ref_unknown == 0)
        return refuse(ps, PACK_SCAN_DEPTH, E2B_SUB_BAD_BUNDLE,
                      "the bundle has a delta chain more than %u deep (limit.delta_depth in the "
                      "config); nothing was imported",
                      ps->lim.delta_depth);
    return refuse(ps, PACK_SCAN_DEPTH, E2B_SUB_BAD_BUNDLE,
                  "the bundle's delta chains may be more than %u deep (%llu deltas name their "
                  "base in the bundle by id; limit.delta_depth in the config); nothing was "
                  "imported",
                  ps->lim.delta_depth, (unsigned long long)ps->ref_unknown);
}

/* The entry whose pack offset is off, by binary search (entries are in pack order). */
static const scan_entry *find_entry(const pack_scan *ps, uint64_t off)
{
    size_t lo = 0, hi = ps->nentries;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ps->entries[mid].offset == off)
            return &ps->entries[mid];
        if (ps->entries[mid].offset < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The entry's header is read (and its base named): check it, then inflate its data. */
static int start_data(pack_scan *ps)
{
    if (ps->type == OBJ_OFS_DELTA) {
        const scan_entry *base = ps->ofs <= ps->entry_off ? find_entry(ps, ps->entry_off - ps->ofs)
                                                          : NULL;
        if (!base)
            return bad(ps, "a delta's base offset is not an object");
        ps->depth = base->depth + 1;
    } else if (ps->type == OBJ_REF_DELTA) {
        ps->depth = 1;
        if (!ps->local || !ps->local(ps->ref, ps->ud))
            ps->ref_unknown++;
    } else {
        ps->depth = 0;
    }
    if (ps->depth > ps->max_depth)
        ps->max_depth = ps->depth;
    int rc = check_depth(ps);
    if (rc)
        return rc;
    if (ps->size > ps->lim.object_bytes)
        return too_big(ps, ps->type >= OBJ_OFS_DELTA ? "delta instructions of" : "an object of",
                       ps->size);
    if ((rc = declare(ps, ps->size)) != 0)
        return rc;
    if (e2b_array_grow((void **)&ps->entries, &ps->cap, ps->nentries + 1, sizeof *ps->entries) < 0)
        return refuse(ps, PACK_SCAN_BAD, E2B_SUB_NOMEM, "out of memory");
    ps->entries[ps->nentries++] = (scan_entry){ps->entry_off, ps->depth};
    memset(&ps->z, 0, sizeof ps->z);
    if (inflateInit(&ps->z) != Z_OK)
        return refuse(ps, PACK_SCAN_BAD, E2B_SUB_NOMEM, "out of memory");
    ps->z_live = 1;
    ps->out = 0;
    ps->dhead_len = 0;
    ps->dhead_done = ps->type < OBJ_OFS_DELTA;
    ps->state = S_DATA;
    return 0;
}

/* One size of a delta's header (git's 7-bit little-endian varint) from dhead at *at; 1 when
 * complete, 0 when more bytes are needed, -1 when malformed. */
static int delta_size(const uint8_t *d, unsigned len, unsigned *at, uint64_t *out)
{
    uint64_t v = 0;
    unsigned shift = 0;
    for (unsigned i = *at; i < len; i++) {
        if (shift > 63)
            return -1;
        v |= (uint64_t)(d[i] & 0x7f) << shift;
        shift += 7;
        if (!(d[i] & 0x80)) {
            *at = i + 1;
            *out = v;
            return 1;
        }
    }
    return len == sizeof ((pack_scan *)0)->dhead ? -1 : 0;
}

/* A delta's first inflated bytes arrived: its base and result sizes are known once both
 * varints are complete. */
static int check_delta_head(pack_scan *ps, const uint8_t *p, size_t n)
{
    size_t take = sizeof ps->dhead - ps->dhead_len;
    if (take > n)
        take = n;
    memcpy(ps->dhead + ps->dhead_len, p, take);
    ps->dhead_len += (unsigned)take;
    unsigned at = 0;
    uint64_t base, result;
    int a = delta_size(ps->dhead, ps->dhead_len, &at, &base);
    int b = a == 1 ? delta_size(ps->dhead, ps->dhead_len, &at, &result) : a;
    if (a < 0 || b < 0)
        return bad(ps, "a delta's header is malformed");
    if (b == 0)
        return 0; /* more to come (a stream that ends first is refused at its end) */
    ps->dhead_done = 1;
    if (base > ps->lim.object_bytes)
        return too_big(ps, "a delta whose base is", base);
    if (result > ps->lim.object_bytes)
        return too_big(ps, "a delta whose result is", result);
    return declare(ps, result);
}

/* Inflates the entry's data from p[0..n); *used is what it consumed. */
static int inflate_data(pack_scan *ps, const uint8_t *p, size_t n, size_t *used)
{
    ps->z.next_in = (Bytef *)p;
    ps->z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
    int zr = Z_OK;
    while (ps->z.avail_in > 0 && zr != Z_STREAM_END) {
        /* at most one byte past the declared size, so a lie shows at once */
        uint64_t room = ps->size - ps->out + 1;
        ps->z.next_out = ps->sink;
        ps->z.avail_out = room < SINK_BYTES ? (uInt)room : SINK_BYTES;
        zr = inflate(&ps->z, Z_NO_FLUSH);
        size_t got = (size_t)(ps->z.next_out - ps->sink);
        if (zr == Z_BUF_ERROR && got == 0) /* no progress with input and room: corrupt */
            return bad(ps, "an object's data does not inflate");
        if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
            return bad(ps, "an object's data does not inflate");
        if (!ps->dhead_done && got > 0) {
            int rc = check_delta_head(ps, ps->sink, got);
            if (rc)
                return rc;
        }
        ps->out += got;
        if (ps->out > ps->size)
            return bad(ps, "an object inflates to more than its declared size");
        ps->since_tick += got;
        if (ps->since_tick >= PACK_SCAN_TICK_BYTES) {
            ps->since_tick = 0;
            if (ps->tick && ps->tick(ps->ud) != 0)
                return refuse(ps, PACK_SCAN_CANCELLED, E2B_SUB_CANCELLED, "import cancelled");
        }
    }
    *used = n - ps->z.avail_in;
    if (zr != Z_STREAM_END)
        return 0;
    if (ps->out != ps->size)
        return bad(ps, "an object inflates to less than its declared size");
    if (!ps->dhead_done)
        return bad(ps, "a delta's header is truncated");
    inflateEnd(&ps->z);
    ps->z_live = 0;
    ps->done++;
    ps->state = ps->done == ps->count ? S_END : S_ENTRY;
    ps->shift = 0;
    return 0;
}

/* One byte of the pack outside an object's data. */
static int step(pack_scan *ps, uint8_t c)
{
    switch (ps->state) {
    case S_HEADER:
        ps->head[ps->head_len++] = c;
        if (ps->head_len < 12)
            return 0;
        if (memcmp(ps->head, "PACK", 4) != 0)
            return bad(ps, "no pack signature");
        {
            uint32_t v = (uint32_t)ps->head[4] << 24 | (uint32_t)ps->head[5] << 16 |
                         (uint32_t)ps->head[6] << 8 | ps->head[7];
            if (v != 2 && v != 3)
                return bad(ps, "unknown pack version");
        }
        ps->count = (uint32_t)ps->head[8] << 24 | (uint32_t)ps->head[9] << 16 |
                    (uint32_t)ps->head[10] << 8 | ps->head[11];
        ps->state = ps->count ? S_ENTRY : S_END;
        ps->shift = 0;
        return 0;
    case S_ENTRY:
        if (ps->shift == 0) {
            ps->entry_off = ps->pos;
            ps->type = (c >> 4) & 7;
            ps->size = c & 15;
            ps->shift = 4;
            if (ps->type == 0 || ps->type == 5)
                return bad(ps, "unknown object type");
        } else {
            if (ps->shift > 57)
                return bad(ps, "an object size overflows");
            ps->size |= (uint64_t)(c & 0x7f) << ps->shift;
            ps->shift += 7;
        }
        if (c & 0x80)
            return 0;
        ps->ofs = 0;
        ps->ofs_bytes = 0;
        ps->ref_len = 0;
        if (ps->type == OBJ_OFS_DELTA)
            ps->state = S_OFS;
        else if (ps->type == OBJ_REF_DELTA)
            ps->state = S_REF;
        else
            return start_data(ps);
        return 0;
    case S_OFS:
        /* git's offset encoding: each continuation adds one before shifting */
        if (ps->ofs_bytes++ > 0) {
            if (ps->ofs > (UINT64_MAX >> 8))
                return bad(ps, "a delta's base offset overflows");
            ps->ofs = (ps->ofs + 1) << 7;
        }
        ps->ofs |= c & 0x7f;
        if (c & 0x80)
            return 0;
        if (ps->ofs == 0)
            return bad(ps, "a delta is its own base");
        return start_data(ps);
    case S_REF:
        ps->ref[ps->ref_len++] = c;
        return ps->ref_len < 20 ? 0 : start_data(ps);
    }
    return 0;
}

e2b_error *pack_scan_feed(pack_scan *ps, const uint8_t *p, size_t n)
{
    while (n > 0 && ps->state != S_FAILED && ps->state != S_END) {
        size_t used = 1;
        int rc = ps->state == S_DATA ? inflate_data(ps, p, n, &used) : step(ps, *p);
        if (rc)
            break;
        ps->pos += used;
        p += used;
        n -= used;
    }
    if (ps->state == S_FAILED)
        return e2b_error_local(ps->code, "%s", ps->why);
    return NULL;
}
