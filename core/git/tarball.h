/* tarball: a streaming tar.gz of a project's upload list, produced on demand.
 *
 * The uploader pulls bytes with e2b_tarball_read() as it can send them; each call does a small
 * bounded amount of work (one header or one read of at most E2B_TARBALL_CHUNK bytes of a file),
 * so memory stays bounded whatever the project's size and nothing is written to disk.
 *
 * Entries: paths relative to the project root as given; a directory in the list (".git")
 * is walked recursively with its subdirectories as directory entries (so empty ones such
 * as refs/tags survive). Regular files get mode 0755 when any exec bit is set, else 0644;
 * directories 0755; symlinks are stored as symlinks. Owner is uid/gid 0 with no names, so
 * extract with `tar -xzf - --no-same-owner` (or as a non-root user). Long and non-ASCII
 * names go in pax headers: UTF-8 names as UTF-8 whatever the process locale; a name that
 * is not valid UTF-8 is stored as raw bytes (pax hdrcharset=BINARY; GNU tar prints a
 * warning for that keyword but extracts the exact bytes), so every name round-trips.
 * Sockets, fifos and devices are skipped (counted in skipped).
 *
 * A file deleted after the listing is left out (counted in vanished): the archive still
 * matches the disk. A file whose size or type changes between the listing and the end of
 * its read fails the stream with E2B_SUB_FILE_CHANGED (the archive is cut short, never silently
 * wrong): the uploader must abort. */
#ifndef E2B_TARBALL_H
#define E2B_TARBALL_H

#include "core/util/error.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define E2B_TARBALL_CHUNK (64 * 1024)
#define E2B_TARBALL_PLAIN (-1) /* gzip_level: no compression */

typedef struct e2b_tarball e2b_tarball;

typedef struct {
    uint64_t bytes_done, bytes_total; /* file content bytes read / to read (from lstat) */
    uint64_t files_done, files_total; /* entries written / to write (files, links, dirs) */
    uint64_t out_bytes;               /* compressed bytes handed to the reader so far */
    uint64_t skipped;                 /* special files left out */
    uint64_t vanished;                /* entries deleted between listing and reading */
    size_t peak_buffer;               /* the largest amount of output held at once */
} e2b_tarball_progress;

/* Lists and lstat()s every entry up front (for the totals) and prepares the stream.
 * root: the project directory; paths: count relative paths ("a/b.txt", ".git"). Absolute
 * paths and ".." components are refused (E2B_SUB_BAD_ARG). gzip_level 1..9, 0 for the default
 * (6), or E2B_TARBALL_PLAIN for a plain tar (for data that is compressed already). On success
 * *out is owned by the caller (e2b_tarball_free). Errors: E2B_SUB_BAD_ARG, E2B_SUB_FILE_IO
 * (a listed path cannot be lstat'ed), E2B_SUB_NOMEM, E2B_SUB_FAILED (libarchive). */
e2b_error *e2b_tarball_new(e2b_tarball **out, const char *root, const char *const *paths,
                           size_t count, int gzip_level);

/* Adds an empty directory entry rel (mode 0755, not walked) at the end of the archive; for
 * submodule paths, so that git in the box sees an uninitialised submodule rather than a
 * deleted one. Only before the first e2b_tarball_read. Errors: E2B_SUB_BAD_ARG, E2B_SUB_NOMEM. */
e2b_error *e2b_tarball_add_empty_dir(e2b_tarball *t, const char *rel);

/* Adds a regular file rel (mode 0644) whose content is data (len bytes, copied) at the end
 * of the archive, in place of anything on disk: for files the upload rewrites, such as
 * .git/config. Only before the first e2b_tarball_read. Errors: E2B_SUB_BAD_ARG, E2B_SUB_NOMEM. */
e2b_error *e2b_tarball_add_data(e2b_tarball *t, const char *rel, const void *data, size_t len);

/* Adds a regular file rel (mode 0644) whose content is the open file fd (read from its
 * start when its turn comes; its size now is the size archived), for data made for the
 * upload, such as a pack in an unlinked temporary file. Takes ownership of fd (closed by
 * the stream or e2b_tarball_free; also when this fails). Only before the first e2b_tarball_read.
 * Errors: E2B_SUB_BAD_ARG, E2B_SUB_FILE_IO (fd is not a regular file), E2B_SUB_NOMEM. */
e2b_error *e2b_tarball_add_fd(e2b_tarball *t, const char *rel, int fd);

/* Adds rel, a path under the archive's root, at the end of the archive as e2b_tarball_new lists
 * its paths (lstat'ed now, read when its turn comes, the same rules if it vanishes or
 * changes): for files picked one by one, such as the loose objects an up sends. Only before
 * the first e2b_tarball_read. Errors: E2B_SUB_BAD_ARG, E2B_SUB_FILE_IO, E2B_SUB_NOMEM. */
e2b_error *e2b_tarball_add_path(e2b_tarball *t, const char *rel);

/* Pull-style read: copies up to n bytes of the tar.gz into buf. Returns the number of
 * bytes (> 0), 0 at the end of the archive, or -1 on error (details in e2b_tarball_error()).
 * After -1 or 0, further calls return the same. */
ssize_t e2b_tarball_read(void *t, char *buf, size_t n);

/* The error that made e2b_tarball_read return -1 (NULL otherwise). Owned by t. */
const e2b_error *e2b_tarball_error(const e2b_tarball *t);
void e2b_tarball_get_progress(const e2b_tarball *t, e2b_tarball_progress *p);
void e2b_tarball_free(e2b_tarball *t);

#endif
