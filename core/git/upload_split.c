#include "core/git/upload_split.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SAMPLE 4096

static int push(e2b_upload_list *l, const char *a, const char *b)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **n = realloc(l->paths, cap * sizeof *n);
        if (!n)
            return -1;
        l->paths = n;
        l->cap = cap;
    }
    size_t la = strlen(a), lb = b ? strlen(b) : 0;
    char *s = malloc(la + lb + 2);
    if (!s)
        return -1;
    memcpy(s, a, la);
    if (b) {
        s[la] = '/';
        memcpy(s + la + 1, b, lb + 1);
    } else {
        s[la] = '\0';
    }
    l->paths[l->count++] = s;
    return 0;
}

void e2b_upload_list_free(e2b_upload_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->paths[i]);
    free(l->paths);
    memset(l, 0, sizeof *l);
}

int e2b_upload_looks_compressed(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    unsigned char buf[SAMPLE];
    ssize_t n = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= E2B_UPLOAD_SPLIT_MIN_SIZE)
        n = read(fd, buf, sizeof buf);
    close(fd);
    if (n < (ssize_t)sizeof buf)
        return 0;
    /* Random-looking: nearly every byte value present and none much above its expected
     * 16 occurrences in 4 KiB. Text uses ~100 values; machine code is full of zeros;
     * deflate, JPEG, PNG and encrypted data pass. */
    size_t count[256] = {0}, distinct = 0, most = 0;
    for (ssize_t i = 0; i < n; i++)
        count[buf[i]]++;
    for (int i = 0; i < 256; i++) {
        distinct += count[i] != 0;
        if (count[i] > most)
            most = count[i];
    }
    return distinct >= 240 && most <= 48;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int e2b_upload_git_entry(const char *name)
{
    static const char *const send[] = {
        "HEAD", "index", "shallow", "info", "hooks", "description", "COMMIT_EDITMSG",
        "MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "MERGE_RR", "MERGE_AUTOSTASH", "AUTO_MERGE",
        "CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge", "rebase-apply", "sequencer",
        "rr-cache", NULL};
    if (!strcmp(name, "config") || !strcmp(name, "config.worktree"))
        return E2B_UPLOAD_GIT_REWRITE;
    if (!strcmp(name, "objects") || !strcmp(name, "refs") || !strcmp(name, "packed-refs"))
        return E2B_UPLOAD_GIT_HISTORY;
    if (!strncmp(name, "BISECT_", 7))
        return E2B_UPLOAD_GIT_SEND;
    for (const char *const *s = send; *s; s++)
        if (!strcmp(name, *s))
            return E2B_UPLOAD_GIT_SEND;
    return E2B_UPLOAD_GIT_KEEP;
}

static int read_names(const char *dir, e2b_upload_list *names)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && push(names, de->d_name, NULL))
            rc = -2;
    closedir(d);
    if (rc == 0 && names->count > 1)
        qsort(names->paths, names->count, sizeof *names->paths, cmp_str);
    return rc;
}

/* .git/hooks without git's *.sample files (its templates, not the project's hooks). */
static e2b_error *split_hooks(const char *gitdir, const char *git, e2b_upload_list *gz)
{
    char dir[4300], hooks[4200];
    snprintf(dir, sizeof dir, "%s/hooks", gitdir);
    snprintf(hooks, sizeof hooks, "%.4100s/hooks", git);
    e2b_upload_list names = {0};
    int r = read_names(dir, &names);
    e2b_error *e = NULL;
    if (r == -2)
        e = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    for (size_t i = 0; !e && i < names.count; i++) {
        size_t n = strlen(names.paths[i]);
        if ((n < 7 || strcmp(names.paths[i] + n - 7, ".sample") != 0) &&
            push(gz, hooks, names.paths[i]))
            e = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    }
    e2b_upload_list_free(&names);
    return e;
}

/* .git's children that a box may have, in name order: objects to plain, the rest to gz. */
static e2b_error *split_git(const char *root, const char *git, unsigned flags,
                            e2b_upload_list *gz, e2b_upload_list *plain)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", root, git);
    e2b_upload_list names = {0};
    int r = read_names(dir, &names);
    e2b_error *e = NULL;
    if (r == -1)
        e = e2b_error_local(E2B_SUB_FILE_IO, "cannot read %s: %s", git, strerror(errno));
    else if (r == -2)
        e = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    for (size_t i = 0; !e && i < names.count; i++) {
        const char *name = names.paths[i];
        int what = e2b_upload_git_entry(name);
        if (what == E2B_UPLOAD_GIT_HISTORY && !(flags & E2B_UPLOAD_SPLIT_HISTORY_FILES))
            continue;
        if (what == E2B_UPLOAD_GIT_SEND && !strcmp(name, "hooks")) {
            e = split_hooks(dir, git, gz);
        } else if ((what == E2B_UPLOAD_GIT_SEND || what == E2B_UPLOAD_GIT_HISTORY) &&
                   push(strcmp(name, "objects") ? gz : plain, git, name)) {
            e = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
        }
    }
    e2b_upload_list_free(&names);
    return e;
}

e2b_error *e2b_upload_split(const char *root, const char *const *paths, size_t count,
                            unsigned flags, e2b_upload_list *gz, e2b_upload_list *plain)
{
    memset(gz, 0, sizeof *gz);
    memset(plain, 0, sizeof *plain);
    size_t rl = strlen(root);
    char *full = malloc(rl + 4098 + 2);
    if (!full)
        return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    e2b_error *e = NULL;
    for (size_t i = 0; !e && i < count; i++) {
        if (strcmp(paths[i], ".git") == 0) {
            e = split_git(root, paths[i], flags, gz, plain);
            continue;
        }
        snprintf(full, rl + 4098 + 2, "%s/%.4096s", root, paths[i]);
        if (push(e2b_upload_looks_compressed(full) ? plain : gz, paths[i], NULL))
            e = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    }
    free(full);
    return e;
}
