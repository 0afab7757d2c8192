/* The journal of creates in doubt (up_journal.h): flock'ed entry files. */
#include "core/box/up_journal.h"

#include "core/util/fs.h"
#include "core/util/str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define ENTRY_MAX 1024 /* an entry is two short lines: anything longer is not ours */

static int tag_valid(const char *t)
{
    size_t n = 0;
    for (; t[n]; n++)
        if (!((t[n] >= 'a' && t[n] <= 'z') || (t[n] >= 'A' && t[n] <= 'Z') ||
              (t[n] >= '0' && t[n] <= '9')))
            return 0;
    return n == 32;
}

static char *journal_dir(const char *state_dir)
{
    return e2b_strfmt("%s/" E2B_UP_JOURNAL_DIR, state_dir);
}

e2b_error *e2b_up_journal_add(const char *state_dir, const char *tag, const char *name,
                          e2b_up_journal_entry *out)
{
    memset(out, 0, sizeof *out);
    out->fd = -1;
    if (!tag_valid(tag))
        return e2b_error_new(E2B_ERR_INTERNAL, "bad create tag");
    char *dir = journal_dir(state_dir);
    char *tmp = dir ? e2b_strfmt("%s/.%s.tmp", dir, tag) : NULL;
    char *final = dir ? e2b_strfmt("%s/%s", dir, tag) : NULL;
    char *text = e2b_strfmt("name=%s\nsent=%lld\n", name, (long long)time(NULL));
    e2b_error *err = NULL;
    int fd = -1;
    if (!dir || !tmp || !final || !text) {
        err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        goto out;
    }
    if (e2b_mkdir_private(dir) < 0) {
        err = e2b_error_new(E2B_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
        goto out;
    }
    unlink(tmp); /* a temp file of a crashed add with this very tag: ours to replace */
    /* Locked before it has its name, so no sweeper can claim it in between (which is why
     * this is not e2b_replace_file: the entry stays open and locked while its up runs). */
    fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0 || e2b_write_all(fd, text, strlen(text)) < 0 ||
        fsync(fd) < 0 || rename(tmp, final) < 0) {
        err = e2b_error_new(E2B_ERR_IO, "cannot write the journal entry %s: %s", final,
                            strerror(errno));
        if (fd >= 0)
            close(fd);
        unlink(tmp);
        fd = -1;
        goto out;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd); /* the entry must survive the crash it is there for */
        close(dfd);
    }
    out->fd = fd;
    snprintf(out->tag, sizeof out->tag, "%s", tag);
    snprintf(out->name, sizeof out->name, "%s", name);
    out->sent_at = time(NULL);
out:
    free(dir);
    free(tmp);
    free(final);
    free(text);
    return err;
}

void e2b_up_journal_remove(const char *state_dir, e2b_up_journal_entry *e)
{
    if (e->fd < 0)
        return;
    char *dir = journal_dir(state_dir);
    char *path = dir ? e2b_strfmt("%s/%s", dir, e->tag) : NULL;
    if (path)
        unlink(path); /* under the lock: a sweeper that opened it sees nlink 0 */
    free(path);
    free(dir);
    close(e->fd);
    e->fd = -1;
}

void e2b_up_journal_release(e2b_up_journal_entry *e)
{
    if (e->fd >= 0)
        close(e->fd);
    e->fd = -1;
}

/* Reads name= and sent= from a claimed entry. */
static int parse_entry(int fd, e2b_up_journal_entry *e)
{
    char buf[ENTRY_MAX + 1];
    ssize_t n = pread(fd, buf, ENTRY_MAX, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    for (char *line = buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (strncmp(line, "name=", 5) == 0)
            snprintf(e->name, sizeof e->name, "%s", line + 5);
        else if (strncmp(line, "sent=", 5) == 0)
            e->sent_at = (time_t)strtoll(line + 5, NULL, 10);
    }
    return 0;
}

/* ".<tag>.tmp" of an add that crashed before its rename: nobody holds it, so it goes. */
static void reap_temp(int dfd, const char *name)
{
    size_t n = strlen(name);
    if (n != 1 + 32 + 4 || strcmp(name + n - 4, ".tmp") != 0)
        return;
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        unlinkat(dfd, name, 0);
    close(fd);
}

long e2b_up_journal_claim(const char *state_dir, e2b_up_journal_entry **out)
{
    *out = NULL;
    char *dir = journal_dir(state_dir);
    if (!dir)
        return -1;
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return errno == ENOENT ? 0 : -1;
    }
    size_t n = 0, cap = 0;
    e2b_up_journal_entry *list = NULL;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' && de->d_name[1] && de->d_name[1] != '.') {
            reap_temp(dirfd(d), de->d_name);
            continue;
        }
        if (!tag_valid(de->d_name))
            continue;
        int fd = openat(dirfd(d), de->d_name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            continue;
        struct stat st;
        /* Locked: its up is running. Unlinked meanwhile: settled by its owner. */
        if (flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &st) < 0 || st.st_nlink == 0 ||
            !S_ISREG(st.st_mode)) {
            close(fd);
            continue;
        }
        if (n == cap) {
            e2b_up_journal_entry *nl = realloc(list, (cap = cap ? cap * 2 : 4) * sizeof *nl);
            if (!nl) {
                close(fd);
                break;
            }
            list = nl;
        }
        e2b_up_journal_entry *e = &list[n];
        memset(e, 0, sizeof *e);
        e->fd = fd;
        memcpy(e->tag, de->d_name, 33); /* tag_valid: 32 characters and the NUL */
        if (parse_entry(fd, e) < 0)
            e->sent_at = st.st_mtime;
        n++;
    }
    closedir(d);
    free(dir);
    *out = list;
    return (long)n;
}

void e2b_up_journal_claims_free(e2b_up_journal_entry *entries, size_t n)
{
    for (size_t i = 0; i < n; i++)
        e2b_up_journal_release(&entries[i]);
    free(entries);
}

int e2b_up_journal_any(const char *state_dir)
{
    char *dir = journal_dir(state_dir);
    DIR *d = dir ? opendir(dir) : NULL;
    int any = 0;
    struct dirent *de;
    while (d && !any && (de = readdir(d)))
        any = tag_valid(de->d_name);
    if (d)
        closedir(d);
    free(dir);
    return any;
}
