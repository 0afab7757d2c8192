/* Reading a pack index's ids (pack_idx.h); layout from git's pack-format documentation. */
#include "core/git/pack_idx.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int open_regular(const char *path, off_t *size)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    if (fd >= 0)
        *size = st.st_size;
    return fd;
}

static int read_all(int fd, void *buf, size_t n)
{
    for (size_t at = 0; at < n;) {
        ssize_t r = read(fd, (char *)buf + at, n - at);
        if (r <= 0)
            return -1;
        at += (size_t)r;
    }
    return 0;
}

/* The object count a pack's header declares, or -1; *size and trail (its last 20 bytes)
 * when asked. */
static int64_t pack_count(const char *pack_path, uint64_t *psize, uint8_t trail[20])
{
    off_t size = 0;
    unsigned char h[12];
    int fd = open_regular(pack_path, &size);
    int ok = fd >= 0 && size >= 12 + 20 && read_all(fd, h, sizeof h) == 0 &&
             !memcmp(h, "PACK", 4) && (be32(h + 4) == 2 || be32(h + 4) == 3);
    if (ok && trail)
        ok = pread(fd, trail, 20, size - 20) == 20;
    if (fd >= 0)
        close(fd);
    if (psize)
        *psize = (uint64_t)size;
    return ok ? (int64_t)be32(h + 8) : -1;
}

/* Opens an index and checks its shape against its pack (pack_idx.h); the file is left just
 * after the fanout. Returns the fd, or -1 with *why. */
static int open_checked(const char *idx_path, const char *pack_path, uint64_t *n, off_t *size,
                        uint64_t *pack_size, uint8_t trail[20], const char **why)
{
    unsigned char head[8 + 256 * 4];
    int fd = open_regular(idx_path, size);
    *why = "its index is not a version 2 index";
    if (fd < 0 || *size < (off_t)sizeof head || read_all(fd, head, sizeof head) != 0 ||
        memcmp(head, "\377tOc", 4) != 0 || be32(head + 4) != 2) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    uint32_t prev = 0;
    for (int i = 0; i < 256; i++) { /* cumulative counts: never decreasing */
        uint32_t v = be32(head + 8 + 4 * i);
        if (v < prev) {
            *why = "its index's fanout decreases";
            close(fd);
            return -1;
        }
        prev = v;
    }
    *n = prev;
    /* ids, CRCs, 4-byte offsets, up to n 8-byte offsets, two checksums */
    uint64_t least = sizeof head + *n * 28 + 40, most = least + *n * 8;
    *why = "its index's size does not fit its count, or the pack's header another count";
    if ((uint64_t)*size < least || (uint64_t)*size > most ||
        pack_count(pack_path, pack_size, trail) != (int64_t)*n) {
        close(fd);
        return -1;
    }
    return fd;
}

int pack_idx_each(const char *idx_path, const char *pack_path,
                  int (*each)(const git_oid *id, void *payload), void *payload)
{
    uint64_t n;
    off_t size;
    const char *why;
    int fd = open_checked(idx_path, pack_path, &n, &size, NULL, NULL, &why);
    if (fd < 0)
        return -1;
    unsigned char chunk[20 * 512];
    int rc = 0;
    for (uint64_t done = 0; rc == 0 && done < n;) {
        size_t k = n - done < 512 ? (size_t)(n - done) : 512;
        if (read_all(fd, chunk, k * 20) != 0) {
            rc = -1;
            break;
        }
        for (size_t i = 0; rc == 0 && i < k; i++) {
            git_oid id;
            memcpy(id.id, chunk + 20 * i, 20);
            rc = each(&id, payload) ? 1 : 0;
        }
        done += k;
    }
    close(fd);
    return rc;
}

void pack_idx_free(pack_idx *p)
{
    free(p->ids);
    free(p->crcs);
    free(p->offsets);
    memset(p, 0, sizeof *p);
}

/* The tables after the fanout: ids, CRCs, offsets (4 bytes, or an index into the large
 * offsets), large offsets, the pack's checksum. */
static int load_tables(int fd, off_t size, pack_idx *p, const char **why)
{
    uint64_t n = p->n, least = 8 + 256 * 4 + n * 28 + 40;
    uint64_t nlarge = ((uint64_t)size - least) / 8;
    *why = "its index cannot be read";
    unsigned char *small = malloc(n * 4 + 1), *large = malloc(nlarge * 8 + 1);
    int rc = small && large && read_all(fd, p->ids, n * 20) == 0 ? 0 : -1;
    if (rc == 0 && read_all(fd, small, n * 4) != 0)
        rc = -1;
    for (uint64_t i = 0; rc == 0 && i < n; i++)
        p->crcs[i] = be32(small + 4 * i);
    if (rc == 0 && (read_all(fd, small, n * 4) != 0 || read_all(fd, large, nlarge * 8) != 0 ||
                    read_all(fd, p->pack_sum, 20) != 0))
        rc = -1;
    if (!small || !large)
        rc = -2;
    if (rc == 0 && ((uint64_t)size - least) % 8 != 0)
        rc = -1; /* what the offsets leave is not a table of 8-byte offsets */
    *why = "its index's offsets are out of the pack";
    for (uint64_t i = 0; rc == 0 && i < n; i++) {
        uint32_t v = be32(small + 4 * i);
        uint64_t off = v;
        if (v & 0x80000000u) {
            uint32_t k = v & 0x7fffffffu;
            if (k >= nlarge) {
                rc = -1;
                break;
            }
            off = (uint64_t)be32(large + 8 * k) << 32 | be32(large + 8 * k + 4);
        }
        if (off < 12 || off >= p->pack_size - 20)
            rc = -1;
        p->offsets[i] = off;
    }
    *why = "its index's ids are not in order";
    for (uint64_t i = 1; rc == 0 && i < n; i++)
        if (git_oid_cmp(&p->ids[i - 1], &p->ids[i]) >= 0)
            rc = -1;
    free(small);
    free(large);
    return rc;
}

int pack_idx_load(const char *idx_path, const char *pack_path, pack_idx *out, const char **why)
{
    uint64_t n;
    off_t size;
    uint8_t trail[20];
    memset(out, 0, sizeof *out);
    int fd = open_checked(idx_path, pack_path, &n, &size, &out->pack_size, trail, why);
    if (fd < 0)
        return -1;
    out->n = (uint32_t)n;
    out->ids = malloc(n * sizeof *out->ids + 1);
    out->crcs = malloc(n * sizeof *out->crcs + 1);
    out->offsets = malloc(n * sizeof *out->offsets + 1);
    int rc = out->ids && out->crcs && out->offsets ? load_tables(fd, size, out, why) : -2;
    if (rc == 0 && memcmp(trail, out->pack_sum, 20) != 0) {
        *why = "its trailer is not the one its index records";
        rc = -1;
    }
    if (rc == -2)
        *why = "out of memory";
    close(fd);
    if (rc != 0)
        pack_idx_free(out);
    return rc;
}
