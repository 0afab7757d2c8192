#include "core/util/log.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[64];

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = calloc(1, 65536);
    if (f) {
        size_t n = fread(buf, 1, 65535, f);
        buf[n] = '\0';
        fclose(f);
    }
    return buf;
}

static void test_creates_private_dir_and_file(void)
{
    char path[160], dir[128];
    struct stat st;
    e2b_error *err;
    strcpy(root, "/tmp/e2b-log-test.XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    snprintf(dir, sizeof dir, "%s/state/e2b-tui", root);
    snprintf(path, sizeof path, "%s/e2b-tui.log", dir);
    umask(022);
    err = e2b_log_open(path);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK(stat(dir, &st) == 0);
    CHECK_INT_EQ(st.st_mode & 0777, 0700);
    CHECK(stat(path, &st) == 0);
    CHECK_INT_EQ(st.st_mode & 0777, 0600);
    CHECK(e2b_log_fd() >= 0);
    e2b_log_close();
    CHECK_INT_EQ(e2b_log_fd(), -1);
}

static void test_existing_file_made_private(void)
{
    char path[160];
    struct stat st;
    snprintf(path, sizeof path, "%s/loose.log", root);
    FILE *f = fopen(path, "w");
    fclose(f);
    chmod(path, 0644);
    CHECK(e2b_log_open(path) == NULL);
    CHECK(stat(path, &st) == 0);
    CHECK_INT_EQ(st.st_mode & 0777, 0600);
    e2b_log_close();
}

static void test_request_lines_have_no_query_or_controls(void)
{
    char path[160];
    char *text;
    snprintf(path, sizeof path, "%s/state/e2b-tui/e2b-tui.log", root);
    CHECK(e2b_log_open(path) == NULL);
    e2b_log_request("GET", "/v2/sandboxes?metadata=token%3Dsecret&limit=100", 200, 42, "tr-1",
                    NULL);
    e2b_log_request("POST", "/sandboxes/iabc/pause", 503, 7, NULL, "pausing box x: busy\n\x1b[2J");
    e2b_logf("free %s", "text");
    e2b_log_close();
    e2b_log_request("GET", "/after-close", 200, 1, NULL, NULL); /* ignored */
    text = slurp(path);
    CHECK(strstr(text, "GET /v2/sandboxes 200 42ms trace=tr-1\n") != NULL);
    CHECK(strstr(text, "secret") == NULL);
    CHECK(strstr(text, "limit") == NULL);
    CHECK(strstr(text, "POST /sandboxes/iabc/pause 503 7ms error: pausing box x: busy??[2J\n"));
    CHECK(strstr(text, "Z free text\n") != NULL);
    CHECK(strstr(text, "after-close") == NULL);
    CHECK(strchr(text, 0x1b) == NULL);
    free(text);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int file_mode(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (int)(st.st_mode & 0777) : -1;
}

/* The numbers of the "seq N" lines of a file, in order; returns how many. */
static size_t seq_numbers(const char *path, long *out, size_t max)
{
    char *text = slurp(path), *p = text;
    size_t n = 0;
    while (p && (p = strstr(p, " seq ")) && n < max) {
        out[n++] = strtol(p + 5, &p, 10);
    }
    free(text);
    return n;
}

enum { CAP = 4096 };

/* One process: the log never exceeds the cap, one old file is kept, both stay 0600, and
 * the two files together hold an unbroken run of the latest lines. */
static void test_rotates_at_the_cap(void)
{
    char path[200], old[210], older[210];
    snprintf(path, sizeof path, "%s/rot/e2b-tui.log", root);
    snprintf(old, sizeof old, "%s.1", path);
    snprintf(older, sizeof older, "%s.2", path);
    e2b_log_set_max(CAP);
    CHECK(e2b_log_open(path) == NULL);
    long biggest = 0, biggest_old = 0;
    for (int i = 0; i < 2000; i++) {
        e2b_logf("seq %d some text to fill the log with", i);
        long sz = file_size(path), so = file_size(old);
        biggest = sz > biggest ? sz : biggest;
        biggest_old = so > biggest_old ? so : biggest_old;
    }
    e2b_log_close();
    CHECK_MSG(biggest <= CAP, "the log reached %ld bytes (cap %d)", biggest, CAP);
    CHECK_MSG(biggest_old <= CAP, "the old log reached %ld bytes (cap %d)", biggest_old, CAP);
    CHECK(file_size(old) > CAP / 2);
    CHECK(file_size(older) < 0);
    CHECK_INT_EQ(file_mode(path), 0600);
    CHECK_INT_EQ(file_mode(old), 0600);
    static long a[4096], b[4096];
    size_t na = seq_numbers(old, a, 4096), nb = seq_numbers(path, b, 4096);
    CHECK(na > 0 && nb > 0);
    int unbroken = nb > 0 && b[nb - 1] == 1999;
    for (size_t i = 1; i < na; i++)
        unbroken &= a[i] == a[i - 1] + 1;
    for (size_t i = 1; i < nb; i++)
        unbroken &= b[i] == b[i - 1] + 1;
    unbroken &= na > 0 && nb > 0 && b[0] == a[na - 1] + 1;
    CHECK_MSG(unbroken, "the old and the new log are not one run of the latest lines");
    /* Reopening a log left over the cap rotates it at once. */
    e2b_log_set_max(1024);
    CHECK(e2b_log_open(path) == NULL);
    e2b_logf("after");
    e2b_log_close();
    CHECK(file_size(path) < 200);
    e2b_log_set_max(0);
}

/* Four processes append to one small log at once: rotation stays safe (no file rotated
 * twice into a lost one, no torn line, never more than the cap plus a few lines). */
static void test_rotation_with_several_writers(void)
{
    char path[200], old[210];
    snprintf(path, sizeof path, "%s/multi/e2b-tui.log", root);
    snprintf(old, sizeof old, "%s.1", path);
    pid_t kids[4];
    for (int k = 0; k < 4; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            e2b_log_set_max(CAP);
            if (e2b_log_open(path))
                _exit(2);
            long worst = 0;
            for (int i = 0; i < 1500; i++) {
                e2b_logf("writer %d seq %d padding padding padding", k, i);
                long sz = file_size(path);
                worst = sz > worst ? sz : worst;
            }
            e2b_log_close();
            _exit(worst <= 2 * CAP ? 0 : 1);
        }
    }
    int all_ok = 1;
    for (int k = 0; k < 4; k++) {
        int st = 0;
        waitpid(kids[k], &st, 0);
        all_ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    CHECK_MSG(all_ok, "a writer saw the log over twice the cap");
    CHECK(file_size(path) <= 2 * CAP);
    CHECK(file_size(old) <= 2 * CAP && file_size(old) > 0);
    CHECK_INT_EQ(file_mode(path), 0600);
    CHECK_INT_EQ(file_mode(old), 0600);
    for (int f = 0; f < 2; f++) { /* every line whole */
        char *text = slurp(f ? old : path);
        int torn = 0;
        for (char *line = text, *nl; *line; line = nl + 1) {
            nl = strchr(line, '\n');
            if (!nl) {
                torn = 1;
                break;
            }
            torn |= strncmp(nl - 7, "padding", 7) != 0 || line[4] != '-' || line[19] != '.';
        }
        free(text);
        CHECK_MSG(!torn, "a torn line in %s", f ? old : path);
    }
}

static void cleanup(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "cleanup failed\n");
}

int main(void)
{
    RUN(test_creates_private_dir_and_file);
    RUN(test_existing_file_made_private);
    RUN(test_request_lines_have_no_query_or_controls);
    RUN(test_rotates_at_the_cap);
    RUN(test_rotation_with_several_writers);
    cleanup();
    return harness_finish();
}
