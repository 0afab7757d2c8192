/* core/util's one growable buffer and its file system helpers (private directory, full
 * write, atomic replace), and the one keystore-to-core error translation. */
#include "core/box/box.h"
#include "core/util/buf.h"
#include "core/util/fs.h"
#include "tests/lib/harness.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char scratch[256];

static void make_scratch(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/e2b-buf-fs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch))
        scratch[0] = '\0';
}

static void test_buf_grows_and_takes(void)
{
    e2b_buf b = {0};
    for (int i = 0; i < 1000; i++)
        e2b_buf_addf(&b, "%d,", i);
    e2b_buf_add(&b, "\0x", 2); /* bytes, NUL included */
    CHECK(!b.failed);
    CHECK(b.len > 3000);
    CHECK(strncmp(b.data, "0,1,2,", 6) == 0);
    CHECK_INT_EQ(b.data[b.len], '\0');
    size_t len = b.len;
    char *s = e2b_buf_take(&b);
    CHECK(s != NULL);
    CHECK_INT_EQ(s[len - 1], 'x');
    CHECK(b.data == NULL && b.len == 0);
    free(s);
    s = e2b_buf_take(&b); /* empty: "" */
    CHECK_STR_EQ(s, "");
    free(s);
}

static void test_buf_failed_after_a_null(void)
{
    e2b_buf b = {0};
    e2b_buf_adds(&b, "a");
    e2b_buf_adds(&b, NULL); /* an allocation that failed upstream */
    e2b_buf_adds(&b, "b");
    CHECK(b.failed);
    CHECK(e2b_buf_take(&b) == NULL);
    /* taken: empty and usable again */
    e2b_buf_adds(&b, "c");
    char *s = e2b_buf_take(&b);
    CHECK_STR_EQ(s, "c");
    free(s);
}

static void test_secret_buf_long_text(void)
{
    e2b_buf b = {.secret = 1};
    char big[1000];
    memset(big, 'p', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    e2b_buf_addf(&b, "%s", big); /* longer than addf's stack buffer */
    e2b_buf_adds(&b, big);
    CHECK_INT_EQ(b.len, 2 * (sizeof big - 1));
    e2b_buf_clear(&b);
    CHECK(b.data == NULL && b.secret);
}

static void test_array_grow(void)
{
    int *a = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < 100; i++) {
        CHECK_INT_EQ(e2b_array_grow((void **)&a, &cap, i + 1, sizeof *a), 0);
        a[i] = (int)i;
    }
    CHECK(cap >= 100 && cap < 256);
    CHECK_INT_EQ(a[99], 99);
    CHECK_INT_EQ(e2b_array_grow((void **)&a, &cap, (size_t)-1 / 2, sizeof *a), -1);
    CHECK_INT_EQ(a[99], 99); /* unchanged on failure */
    free(a);
}

static void test_mkdir_private(void)
{
    char d[512], f[512], l[512];
    struct stat st;
    CHECK(scratch[0]);
    snprintf(d, sizeof d, "%s/a/b/c", scratch);
    CHECK_INT_EQ(e2b_mkdir_private(d), 0);
    CHECK(stat(d, &st) == 0 && (st.st_mode & 0777) == 0700);
    CHECK(chmod(d, 0755) == 0);
    CHECK_INT_EQ(e2b_mkdir_private(d), 0); /* an existing open one is tightened */
    CHECK(stat(d, &st) == 0 && (st.st_mode & 0777) == 0700);
    snprintf(f, sizeof f, "%s/file", scratch);
    CHECK(close(open(f, O_CREAT | O_WRONLY, 0600)) == 0);
    errno = 0;
    CHECK_INT_EQ(e2b_mkdir_private(f), -1);
    CHECK_INT_EQ(errno, ENOTDIR);
    snprintf(l, sizeof l, "%s/link", scratch);
    CHECK(symlink(d, l) == 0);
    errno = 0;
    CHECK_INT_EQ(e2b_mkdir_private(l), -1); /* a symlink is not our directory */
    CHECK_INT_EQ(errno, ENOTDIR);
    if (geteuid() == 0) { /* another user's directory (root can make one) */
        char o[512];
        snprintf(o, sizeof o, "%s/other", scratch);
        CHECK(mkdir(o, 0755) == 0 && chown(o, 12345, 12345) == 0);
        errno = 0;
        CHECK_INT_EQ(e2b_mkdir_private(o), -1);
        CHECK_INT_EQ(errno, EPERM);
        CHECK(stat(o, &st) == 0 && (st.st_mode & 0777) == 0755); /* left alone */
    }
}

typedef struct {
    int fd;
    char *back;
    size_t n, got;
} reader;

static void *read_all(void *ud)
{
    reader *r = ud;
    ssize_t k;
    while (r->got < r->n && (k = read(r->fd, r->back + r->got, r->n - r->got)) > 0)
        r->got += (size_t)k;
    return NULL;
}

/* 1 MiB through a pipe (64 KiB of kernel buffer): many short writes to resume. */
static void test_write_all_through_a_pipe(void)
{
    int p[2];
    pthread_t th;
    CHECK(pipe(p) == 0);
    size_t n = 1 << 20;
    char *data = malloc(n);
    reader r = {p[0], malloc(n), n, 0};
    CHECK(data && r.back);
    for (size_t i = 0; i < n; i++)
        data[i] = (char)(i * 7);
    CHECK(pthread_create(&th, NULL, read_all, &r) == 0);
    int rc = e2b_write_all(p[1], data, n);
    close(p[1]);
    pthread_join(th, NULL);
    close(p[0]);
    int same = r.got == n && memcmp(data, r.back, n) == 0;
    free(data);
    free(r.back);
    CHECK_INT_EQ(rc, 0);
    CHECK(same);
}

static int count_entries(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *f = popen(cmd, "r");
    int n = -1;
    if (f) {
        if (fscanf(f, "%d", &n) != 1)
            n = -1;
        pclose(f);
    }
    return n;
}

static void test_replace_file(void)
{
    char d[512], path[600], buf[64];
    struct stat st;
    snprintf(d, sizeof d, "%s/r", scratch);
    CHECK_INT_EQ(e2b_mkdir_private(d), 0);
    CHECK_INT_EQ(e2b_replace_file(d, "x.json", "one\n", 4, 0600, 0), 0);
    CHECK_INT_EQ(e2b_replace_file(d, "x.json", "two!\n", 5, 0600, 0), 0);
    snprintf(path, sizeof path, "%s/x.json", d);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    CHECK_INT_EQ(r, 5);
    buf[r] = '\0';
    CHECK_STR_EQ(buf, "two!\n");
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    errno = 0;
    CHECK_INT_EQ(e2b_replace_file(d, "x.json", "three\n", 6, 0600, E2B_REPLACE_EXCLUSIVE), -1);
    CHECK_INT_EQ(errno, EEXIST);
    CHECK(stat(path, &st) == 0 && st.st_size == 5); /* the old file stays */
    CHECK_INT_EQ(count_entries(d), 1);             /* no temp file left behind */
    errno = 0;
    CHECK_INT_EQ(e2b_replace_file("/nonexistent-dir-e2b", "y", "z", 1, 0600, 0), -1);
    CHECK(errno == ENOENT);
}

static void test_keystore_errors_translate_in_one_place(void)
{
    ks_error nf = {.code = KS_ERR_NOT_FOUND, .message = "no password for box a"};
    ks_error lk = {.code = KS_ERR_LOCKED, .message = "the keyring is locked: unlock it"};
    ks_error bad = {.code = KS_ERR_INVALID, .message = "x is not a keystore"};
    e2b_error *e = e2b_keystore_error(&nf);
    CHECK_INT_EQ(e->kind, E2B_ERR_NOT_FOUND);
    CHECK_STR_EQ(e2b_error_message(e), "password store: no password for box a");
    e2b_error_free(e);
    e = e2b_keystore_error(&lk);
    CHECK_INT_EQ(e->kind, E2B_ERR_IO);
    CHECK_STR_EQ(e2b_error_message(e), "password store: the keyring is locked: unlock it");
    e2b_error_free(e);
    e = e2b_keystore_error(&bad);
    CHECK_INT_EQ(e->kind, E2B_ERR_INVALID);
    e2b_error_free(e);
}

int main(void)
{
    make_scratch();
    RUN(test_buf_grows_and_takes);
    RUN(test_buf_failed_after_a_null);
    RUN(test_secret_buf_long_text);
    RUN(test_array_grow);
    RUN(test_mkdir_private);
    RUN(test_write_all_through_a_pipe);
    RUN(test_replace_file);
    RUN(test_keystore_errors_translate_in_one_place);
    if (scratch[0]) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", scratch);
    }
    return harness_finish();
}
