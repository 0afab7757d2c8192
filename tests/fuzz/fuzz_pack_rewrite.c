/* Fuzz target: rewriting a pack without some of its objects (core/git/pack_rewrite.h), the
 * index read by pack_idx_load (core/git/pack_idx.h).
 *
 * Input: a flags byte, a keep byte, the index's length (4 bytes, big-endian), the index,
 * the pack. They are written as pack-f.idx and pack-f.pack in a scratch directory (bounds:
 * objects of 1 MiB, 16 MiB in all, chains 64 deep); the
 * repository's objects (for a delta written whole) are that pack alone, read by libgit2.
 * Flag 1 makes the index agree with the pack where a mutation broke only the checksums
 * (each entry's CRC-32 recomputed over the bytes up to the next offset, the pack's trailer
 * copied in), so that the fuzzer reaches the copy, the indexer and the id check with
 * mutated entries. The keep byte picks the objects kept: those whose id's first byte,
 * xor'd with it, is even (about half of them).
 *
 * Invariants:
 *  - only 0, E2B_SUB_FAILED or E2B_SUB_NOMEM, and an error has a message naming the pack;
 *  - 0: kept is the number of ids keep said yes to (or 0 when none was), copied + resolved
 *    is kept, and the new pack and index exist, the index listing exactly the kept ids;
 *  - nothing but the new pack and index is left in the output directory, and an error
 *    leaves nothing there. */
#include "core/git/pack_idx.h"
#include "core/git/pack_rewrite.h"
#include "tests/fuzz/fuzz_common.h"

#include <dirent.h>
#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char dir[256], out[300], idx_path[320], pack_path[320];

static void setup(void)
{
    if (dir[0])
        return;
    git_libgit2_init();
    snprintf(dir, sizeof dir, "/tmp/fuzz-pack-rewrite.XXXXXX");
    FUZZ_CHECK(mkdtemp(dir) != NULL);
    snprintf(out, sizeof out, "%s/out", dir);
    FUZZ_CHECK(mkdir(out, 0700) == 0);
    snprintf(idx_path, sizeof idx_path, "%s/pack-f.idx", dir);
    snprintf(pack_path, sizeof pack_path, "%s/pack-f.pack", dir);
}

static void put_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(fwrite(p, 1, n, f) == n || n == 0);
    fclose(f);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Flag 1: CRCs and the recorded trailer made to match the pack (4-byte offsets only). */
static void fix_index(uint8_t *idx, size_t ilen, const uint8_t *pack, size_t plen)
{
    if (ilen < 8 + 1024 + 40 || plen < 32)
        return;
    uint64_t n = be32(idx + 8 + 255 * 4);
    if (n > 100000 || ilen < 8 + 1024 + n * 28 + 40)
        return;
    uint8_t *crcs = idx + 8 + 1024 + n * 20, *offs = crcs + n * 4;
    uint64_t *sorted = malloc(n * sizeof *sorted + 1);
    FUZZ_CHECK(sorted != NULL);
    for (uint64_t i = 0; i < n; i++)
        sorted[i] = be32(offs + 4 * i);
    qsort(sorted, n, sizeof *sorted, cmp_u64);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t off = be32(offs + 4 * i), end = plen - 20;
        for (uint64_t k = 0; k < n; k++)
            if (sorted[k] > off) {
                end = sorted[k];
                break;
            }
        if (off >= end || end > plen - 20)
            continue;
        uint32_t c = (uint32_t)crc32(crc32(0, Z_NULL, 0), pack + off, (uInt)(end - off));
        crcs[4 * i] = (uint8_t)(c >> 24);
        crcs[4 * i + 1] = (uint8_t)(c >> 16);
        crcs[4 * i + 2] = (uint8_t)(c >> 8);
        crcs[4 * i + 3] = (uint8_t)c;
    }
    free(sorted);
    memcpy(idx + ilen - 40, pack + plen - 20, 20);
}

static uint8_t keep_xor;
static uint64_t said_yes;

static int keep(const git_oid *id, void *payload)
{
    (void)payload;
    int yes = ((id->id[0] ^ keep_xor) & 1) == 0;
    said_yes += yes;
    return yes;
}

typedef struct {
    uint64_t n;
} counted;

static int count_id(const git_oid *id, void *payload)
{
    FUZZ_CHECK(((id->id[0] ^ keep_xor) & 1) == 0);
    ((counted *)payload)->n++;
    return 0;
}

static int files_in(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *de;
    int n = 0;
    while (d && (de = readdir(d)))
        n += de->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void empty_out(void)
{
    DIR *d = opendir(out);
    struct dirent *de;
    char p[700];
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", out, de->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    if (size < 6)
        return 0;
    uint8_t flags = data[0];
    keep_xor = data[1];
    size_t ilen = be32(data + 2);
    if (ilen > size - 6)
        return 0;
    const uint8_t *pack = data + 6 + ilen;
    size_t plen = size - 6 - ilen;
    uint8_t *idx = malloc(ilen + 1);
    FUZZ_CHECK(idx != NULL);
    memcpy(idx, data + 6, ilen);
    if (flags & 1)
        fix_index(idx, ilen, pack, plen);
    put_file(idx_path, idx, ilen);
    put_file(pack_path, pack, plen);
    free(idx);

    git_odb *odb = NULL;
    git_odb_backend *one = NULL;
    FUZZ_CHECK(git_odb_new(&odb) == 0);
    if (git_odb_backend_one_pack(&one, idx_path) == 0 && git_odb_add_backend(odb, one, 1) != 0)
        one->free(one);
    git_error_clear();

    said_yes = 0;
    pack_rewrite_info info;
    atomic_int cancel = 0;
    static const pack_scan_limits lim = {1u << 20, 16u << 20, 64};
    e2b_error *err = pack_rewrite(odb, idx_path, pack_path, keep, NULL, &lim, out, &cancel, &info);
    int rc = (int)e2b_error_sub_of(err);
    FUZZ_CHECK(!err || rc == E2B_SUB_FAILED || rc == E2B_SUB_NOMEM);
    if (!err) {
        FUZZ_CHECK(info.kept == said_yes);
        FUZZ_CHECK(info.copied + info.resolved == info.kept);
        if (info.kept) {
            char ni[400], np[400];
            snprintf(ni, sizeof ni, "%s/pack-%s.idx", out, info.name);
            snprintf(np, sizeof np, "%s/pack-%s.pack", out, info.name);
            counted c = {0};
            FUZZ_CHECK(pack_idx_each(ni, np, count_id, &c) == 0);
            FUZZ_CHECK(c.n == info.kept);
            FUZZ_CHECK(files_in(out) == 2);
        } else {
            FUZZ_CHECK(files_in(out) == 0);
        }
    } else {
        FUZZ_CHECK(strstr(e2b_error_message(err), rc == E2B_SUB_FAILED ? "pack-f.pack" : ""));
        FUZZ_CHECK(files_in(out) == 0);
    }
    e2b_error_free(err);
    git_odb_free(odb);
    empty_out();
    return 0;
}
