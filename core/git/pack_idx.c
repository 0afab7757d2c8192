/* Reading a pack index's ids (pack_idx.h); layout from git's pack-format documentation. */
#include "core/git/pack_idx.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
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

/* The object count a pack's header declares, or -1. */
static int64_t pack_count(const char *pack_path)
{
    off_t size;
    unsigned char h[12];
    int fd = open_regular(pack_path, &size);
    int ok = fd >= 0 && size >= 12 + 20 && read_all(fd, h, sizeof h) == 0 &&
             !memcmp(h, "PACK", 4) && (be32(h + 4) == 2 || be32(h + 4) == 3);
    if (fd >= 0)
        close(fd);
    return ok ? (int64_t)be32(h + 8) : -1;
}

int pack_idx_each(const char *idx_path, const char *pack_path,
                  int (*each)(const git_oid *id, void *payload), void *payload)
{
    off_t size;
    unsigned char head[8 + 256 * 4];
    int fd = open_regular(idx_path, &size);
    if (fd < 0 || size < (off_t)sizeof head || read_all(fd, head, sizeof head) != 0 ||
        memcmp(head, "\377tOc", 4) != 0 || be32(head + 4) != 2) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    uint32_t prev = 0;
    for (int i = 0; i < 256; i++) { /* cumulative counts: never decreasing */
        uint32_t v = be32(head + 8 + 4 * i);
        if (v < prev) {
            close(fd);
            return -1;
        }
        prev = v;
    }
    uint64_t n = prev;
    /* ids, CRCs, 4-byte offsets, up to n 8-byte offsets, two checksums */
    uint64_t least = sizeof head + n * 28 + 40, most = least + n * 8;
    if ((uint64_t)size < least || (uint64_t)size > most || pack_count(pack_path) != (int64_t)n) {
        close(fd);
        return -1;
    }
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
