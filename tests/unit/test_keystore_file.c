/* The file backend on a real file system (a private temp directory): modes 0700/0600, atomic
 * replace when a writer dies between write and rename, refusal of unsafe files, corrupt
 * files, two writer processes, and a job that ends at its deadline while the file is locked
 * by someone else. */
#include "keystore/file_testing.h"
#include "keystore/keystore.h"
#include "tests/lib/harness.h"

#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char root[256];
static int seq;

/* A fresh directory path (not created) for one case: root/caseN/e2b-tui/passwords. */
static void case_paths(char *dir, char *file, size_t size)
{
    ++seq;
    snprintf(dir, size, "%s/case%d/e2b-tui", root, seq);
    snprintf(file, size, "%s/case%d/e2b-tui/passwords", root, seq);
}

static int mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

static void write_text(const char *path, const char *text, int mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd >= 0) {
        if (write(fd, text, strlen(text)) < 0)
            perror("write");
        fchmod(fd, (mode_t)mode);
        close(fd);
    }
}

static char *get(keystore *ks, const char *box, const char *sid)
{
    char *pw = NULL;
    ks_error err;
    return keystore_get(ks, box, sid, &pw, &err) == KS_OK ? pw : NULL;
}

static void test_dir_0700_file_0600_and_round_trip(void)
{
    char dir[512], file[512];
    case_paths(dir, file, sizeof dir);
    ks_error err;
    keystore *ks = keystore_open_file(file, &err);
    CHECK_MSG(ks, "%s", err.message);
    CHECK_STR_EQ(keystore_backend_name(ks), "file");
    CHECK_STR_EQ(keystore_location(ks), file);
    CHECK_INT_EQ(mode_of(dir), 0700);
    CHECK_INT_EQ(keystore_put(ks, "b1", "s1", "first pw", &err), KS_OK);
    CHECK_INT_EQ(keystore_put(ks, "b2", "s2", "second\tpw\n", &err), KS_OK);
    CHECK_INT_EQ(keystore_put(ks, "b1", "s1", "first pw v2", &err), KS_OK);
    CHECK_INT_EQ(mode_of(file), 0600);
    CHECK_INT_EQ(mode_of(dir), 0700);
    char *pw = get(ks, "b1", "s1");
    CHECK_STR_EQ(pw, "first pw v2");
    keystore_password_free(pw);
    pw = get(ks, "b2", "s2");
    CHECK_STR_EQ(pw, "second\tpw\n");
    keystore_password_free(pw);
    ks_entry *e;
    size_t n;
    CHECK_INT_EQ(keystore_list(ks, &e, &n, &err), KS_OK);
    CHECK_INT_EQ(n, 2);
    CHECK_STR_EQ(e[1].box, "b2");
    ks_entries_free(e, n);
    CHECK_INT_EQ(keystore_delete(ks, "b1", "s1", &err), KS_OK);
    CHECK_INT_EQ(keystore_get(ks, "b1", "s1", &pw, &err), KS_ERR_NOT_FOUND);
    CHECK(strstr(err.message, file));
    CHECK_INT_EQ(keystore_delete(ks, "b1", "s1", &err), KS_ERR_NOT_FOUND);
    keystore_close(ks);
    /* A second store on the same file sees what the first wrote. */
    ks = keystore_open_file(file, &err);
    CHECK(ks);
    pw = get(ks, "b2", "s2");
    CHECK_STR_EQ(pw, "second\tpw\n");
    keystore_password_free(pw);
    keystore_close(ks);
}

static void test_open_directory_is_made_private(void)
{
    char dir[512], file[512];
    case_paths(dir, file, sizeof dir);
    char parent[512];
    snprintf(parent, sizeof parent, "%s/case%d", root, seq);
    CHECK(mkdir(parent, 0755) == 0 && mkdir(dir, 0755) == 0);
    chmod(dir, 0755);
    ks_error err;
    keystore *ks = keystore_open_file(file, &err);
    CHECK_MSG(ks, "%s", err.message);
    CHECK_INT_EQ(mode_of(dir), 0700);
    keystore_close(ks);
}

static void test_refuses_group_readable_file(void)
{
    char dir[512], file[512];
    case_paths(dir, file, sizeof dir);
    ks_error err;
    keystore *ks = keystore_open_file(file, &err);
    CHECK(ks);
    CHECK_INT_EQ(keystore_put(ks, "b", "s", "pw-0644", &err), KS_OK);
    CHECK(chmod(file, 0644) == 0);
    char *pw = NULL;
    CHECK_INT_EQ(keystore_get(ks, "b", "s", &pw, &err), KS_ERR_PERMISSION);
    CHECK(pw == NULL);
    CHECK_MSG(strstr(err.message, "mode 0644") && strstr(err.message, "chmod 600"), "%s",
              err.message);
    /* A put must not silently rewrite (and so "fix") the exposed file either. */
    CHECK_INT_EQ(keystore_put(ks, "b", "s", "other", &err), KS_ERR_PERMISSION);
    CHECK_INT_EQ(mode_of(file), 0644);
    keystore_close(ks);
    CHECK(keystore_open_file(file, &err) == NULL);
    CHECK_INT_EQ(err.code, KS_ERR_PERMISSION);
    CHECK(chmod(file, 0600) == 0);
    ks = keystore_open_file(file, &err);
    CHECK(ks);
    pw = get(ks, "b", "s");
    CHECK_STR_EQ(pw, "pw-0644");
    keystore_password_free(pw);
    keystore_close(ks);
}

static void test_refuses_symlink(void)
{
    char dir[512], file[512], target[600];
    case_paths(dir, file, sizeof dir);
    ks_error err;
    keystore *ks = keystore_open_file(file, &err); /* creates dir */
    CHECK(ks);
    keystore_close(ks);
    snprintf(target, sizeof target, "%s/elsewhere", dir);
    write_text(target, "b\ts\tpw\n", 0600);
    CHECK(symlink(target, file) == 0);
    CHECK(keystore_open_file(file, &err) == NULL);
    CHECK_INT_EQ(err.code, KS_ERR_PERMISSION);
    CHECK_MSG(strstr(err.message, "symbolic link"), "%s", err.message);
    /* Even for a store opened before the link appeared. */
    unlink(file);
    ks = keystore_open_file(file, &err);
    CHECK(ks);
    CHECK(symlink(target, file) == 0);
    char *pw = NULL;
    CHECK_INT_EQ(keystore_get(ks, "b", "s", &pw, &err), KS_ERR_PERMISSION);
    CHECK(pw == NULL);
    CHECK_INT_EQ(keystore_put(ks, "b", "s", "new", &err), KS_ERR_PERMISSION);
    keystore_close(ks);
    /* The link target was neither read into a result nor overwritten. */
    FILE *f = fopen(target, "r");
    char buf[64] = "";
    CHECK(f && fgets(buf, sizeof buf, f));
    fclose(f);
    CHECK_STR_EQ(buf, "b\ts\tpw\n");
}

static void crash_hook(const char *tmp_path)
{
    raise(SIGKILL);
}

static void test_crash_between_write_and_rename_keeps_old_value(void)
{
    char dir[512], file[512], tmp[600];
    case_paths(dir, file, sizeof dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    ks_error err;
    keystore *ks = keystore_open_file(file, &err);
    CHECK(ks);
    CHECK_INT_EQ(keystore_put(ks, "b", "s", "old-value", &err), KS_OK);
    fflush(NULL);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        ks_file_before_rename_hook = crash_hook;
        ks_error cerr;
        keystore_put(ks, "b", "s", "new-value", &cerr);
        _exit(0); /* not reached: the hook kills the writer */
    }
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child);
    CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d", status);
    /* The crash left the complete new content in the temp file, not in the real one. */
    CHECK_INT_EQ(mode_of(tmp), 0600);
    char *pw = get(ks, "b", "s");
    CHECK_STR_EQ(pw, "old-value");
    keystore_password_free(pw);
    /* The next write replaces the leftover temp file and succeeds. */
    CHECK_INT_EQ(keystore_put(ks, "b", "s", "next-value", &err), KS_OK);
    CHECK_INT_EQ(mode_of(tmp), -1);
    pw = get(ks, "b", "s");
    CHECK_STR_EQ(pw, "next-value");
    keystore_password_free(pw);
    keystore_close(ks);
}

static void test_corrupt_file_is_an_error_not_a_crash(void)
{
    char dir[512], file[512];
    case_paths(dir, file, sizeof dir);
    ks_error err;
    keystore *ks = keystore_open_file(file, &err);
    CHECK(ks);
    CHECK_INT_EQ(keystore_put(ks, "b", "s", "pw", &err), KS_OK);
    write_text(file, "# header\nb\ts\tpw\ngarbage line without tabs\n", 0600);
    char *pw = NULL;
    CHECK_INT_EQ(keystore_get(ks, "b", "s", &pw, &err), KS_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, "line 3"), "%s", err.message);
    /* A write does not paper over the damage by dropping lines. */
    CHECK_INT_EQ(keystore_put(ks, "c", "s", "pw", &err), KS_ERR_CORRUPT);
    keystore_close(ks);
}

static void test_relative_path_rejected(void)
{
    ks_error err;
    CHECK(keystore_open_file("passwords", &err) == NULL);
    CHECK_INT_EQ(err.code, KS_ERR_INVALID);
    CHECK(keystore_open_file(NULL, &err) == NULL);
}

static void test_two_writer_processes_lose_nothing(void)
{
    char dir[512], file[512];
    case_paths(dir, file, sizeof dir);
    ks_error err;
    keystore *ks = keystore_open_file(file, &err);
    CHECK(ks);
    fflush(NULL);
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            keystore_close(ks); /* the parent's copy */
            keystore *mine = keystore_open_file(file, NULL);
            int bad = !mine;
            for (int i = 0; i < 25 && !bad; i++) {
                char box[32];
                snprintf(box, sizeof box, "p%d-box%02d", k, i);
                bad = keystore_put(mine, box, "s", box, NULL) != KS_OK;
            }
            keystore_close(mine);
            _exit(bad);
        }
    }
    for (int k = 0; k < 2; k++) {
        int status;
        CHECK(waitpid(kids[k], &status, 0) == kids[k]);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    ks_entry *e;
    size_t n;
    CHECK_INT_EQ(keystore_list(ks, &e, &n, &err), KS_OK);
    ks_entries_free(e, n);
    CHECK_INT_EQ(n, 50);
    char *pw = get(ks, "p1-box24", "s");
    CHECK_STR_EQ(pw, "p1-box24");
    keystore_password_free(pw);
    keystore_close(ks);
}

static atomic_int woken;
static void on_wake(void *ctx)
{
    atomic_fetch_add(&woken, 1);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The file backend cannot be cancelled while another holder has the lock: the job's own
 * deadline must still end the job and call wake. Bounds are generous (loaded machine). */
static void test_job_deadline_while_backend_blocks(void)
{
    char dir[512], file[512], lock[600];
    case_paths(dir, file, sizeof dir);
    snprintf(lock, sizeof lock, "%s.lock", file);
    ks_error err;
    keystore *ks = keystore_open_file(file, &err);
    CHECK(ks);
    CHECK_INT_EQ(keystore_put(ks, "b", "s", "pw", &err), KS_OK);
    int fd = open(lock, O_RDWR);
    CHECK(fd >= 0);
    CHECK(flock(fd, LOCK_EX) == 0); /* a separate open file: conflicts with the store's */
    atomic_store(&woken, 0);
    double t0 = now_ms();
    ks_job *j = keystore_job_get(ks, "b", "s", 300, on_wake, NULL, &err);
    double started = now_ms() - t0;
    CHECK(j);
    CHECK_MSG(started < 1000, "starting a job took %.0f ms", started);
    CHECK(!keystore_job_done(j));
    keystore_job_wait(j);
    double waited = now_ms() - t0;
    char *pw = NULL;
    CHECK_INT_EQ(keystore_job_result(j, &err, &pw, NULL, NULL), KS_ERR_TIMEOUT);
    CHECK(pw == NULL);
    CHECK(strstr(err.message, "did not answer within 0.3 s"));
    CHECK_MSG(waited >= 250 && waited < 10000, "waited %.0f ms", waited);
    CHECK_INT_EQ(atomic_load(&woken), 1);
    keystore_job_free(j);
    /* Release the lock: the stuck worker finishes in the background, its result dropped. */
    close(fd);
    CHECK(keystore_jobs_drain(10000));
    CHECK_INT_EQ(atomic_load(&woken), 1);
    keystore_close(ks);
}

static void test_freed_job_never_wakes(void)
{
    char dir[512], file[512], lock[600];
    case_paths(dir, file, sizeof dir);
    snprintf(lock, sizeof lock, "%s.lock", file);
    ks_error err;
    keystore *ks = keystore_open_file(file, &err);
    CHECK(ks);
    int fd = open(lock, O_RDWR | O_CREAT, 0600);
    CHECK(fd >= 0 && flock(fd, LOCK_EX) == 0);
    atomic_store(&woken, 0);
    ks_job *j = keystore_job_put(ks, "b", "s", "pw", 200, on_wake, NULL, &err);
    CHECK(j);
    keystore_job_free(j); /* the caller gives up at once */
    keystore_close(ks);
    close(fd);
    CHECK(keystore_jobs_drain(10000));
    CHECK_INT_EQ(atomic_load(&woken), 0);
}

int main(void)
{
    snprintf(root, sizeof root, "%s/ks-file-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(root)) {
        printf("FAIL setup: mkdtemp\n");
        return 1;
    }
    RUN(test_dir_0700_file_0600_and_round_trip);
    RUN(test_open_directory_is_made_private);
    RUN(test_refuses_group_readable_file);
    RUN(test_refuses_symlink);
    RUN(test_crash_between_write_and_rename_keeps_old_value);
    RUN(test_corrupt_file_is_an_error_not_a_crash);
    RUN(test_relative_path_rejected);
    RUN(test_two_writer_processes_lose_nothing);
    RUN(test_job_deadline_while_backend_blocks);
    RUN(test_freed_job_never_wakes);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        printf("FAIL cleanup: %s\n", cmd);
    return harness_finish();
}
