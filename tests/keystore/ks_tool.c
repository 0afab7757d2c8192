/* ks_tool: drives the keystore from the keystore test scripts (tests/keystore/ scripts).
 *
 *   ks_tool [--keystore=C] [--config=C] [--file=PATH] [--timeout=MS] [--job[=MS]]
 *           [--log=PATH] COMMAND [ARGS]
 *
 *   open               prints backend=, location= and (auto fallback) warning= lines
 *   put BOX SID        the password is the first line of stdin (never argv)
 *   get BOX SID        prints the password
 *   delete BOX [SID]
 *   list               prints "BOX<TAB>SID" lines
 *
 * E2B_TUI_KEYSTORE is read from the environment, as e2b-tui does. --job opens the store and
 * runs the command through the job API (worker threads, timeout MS) and prints
 * "open-job-wall-ms=N woken=N" and "job-wall-ms=N woken=N" on stderr.
 * --stop-pid=PID sends SIGSTOP to PID once the store is open and SIGCONT after the command's
 * result is in (to show that a job ends at its deadline while the keyring hangs).
 * On failure it prints "error=<code>: <message>" on stderr and exits 10 + the code. */
#include "keystore/keystore.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static FILE *log_file;

static void log_sink(void *ctx, const char *level, const char *domain, const char *message)
{
    if (log_file)
        fprintf(log_file, "%s %s: %s\n", level, domain, message);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static int fail(const ks_error *err)
{
    fprintf(stderr, "error=%s: %s\n", ks_code_name(err->code), err->message);
    return 10 + (int)err->code;
}

static void wake(void *ctx)
{
    ++*(int *)ctx;
}

int main(int argc, char **argv)
{
    ks_select sel = {0};
    sel.env = getenv("E2B_TUI_KEYSTORE");
    int use_job = 0;
    long stop_pid = 0;
    unsigned job_timeout = 0;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--keystore=", 11) == 0)
            sel.flag = a + 11;
        else if (strncmp(a, "--config=", 9) == 0)
            sel.config = a + 9;
        else if (strncmp(a, "--file=", 7) == 0)
            sel.file_path = a + 7;
        else if (strncmp(a, "--timeout=", 10) == 0)
            sel.timeout_ms = (unsigned)strtoul(a + 10, NULL, 10);
        else if (strncmp(a, "--stop-pid=", 11) == 0)
            stop_pid = strtol(a + 11, NULL, 10);
        else if (strcmp(a, "--job") == 0)
            use_job = 1;
        else if (strncmp(a, "--job=", 6) == 0) {
            use_job = 1;
            job_timeout = (unsigned)strtoul(a + 6, NULL, 10);
        } else if (strncmp(a, "--log=", 6) == 0) {
            log_file = fopen(a + 6, "a");
            if (!log_file) {
                perror(a + 6);
                return 2;
            }
            setvbuf(log_file, NULL, _IOLBF, 0);
        } else {
            fprintf(stderr, "ks_tool: unknown option %s\n", a);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "usage: ks_tool [options] open|put|get|delete|list ...\n");
        return 2;
    }
    keystore_set_log(log_sink, NULL);
    const char *cmd = argv[i];
    const char *box = i + 1 < argc ? argv[i + 1] : NULL;
    const char *sid = i + 2 < argc ? argv[i + 2] : NULL;

    ks_error err;
    char *warning = NULL;
    keystore *ks = NULL;
    if (use_job) { /* the store is opened by a job too, as the TUI does */
        int woken = 0;
        double t0 = now_ms();
        ks_job *job = keystore_job_open(&sel, job_timeout, wake, &woken, &err);
        if (job) {
            keystore_job_wait(job);
            if (keystore_job_result(job, &err, NULL, NULL, NULL) == KS_OK)
                ks = keystore_job_take_store(job, &warning);
            fprintf(stderr, "open-job-wall-ms=%.0f woken=%d\n", now_ms() - t0, woken);
            keystore_job_free(job);
        }
    } else {
        ks = keystore_open_selected(&sel, &warning, &err);
    }
    if (!ks) {
        keystore_jobs_drain(10000);
        return fail(&err);
    }
    printf("backend=%s\nlocation=%s\n", keystore_backend_name(ks), keystore_location(ks));
    if (warning)
        printf("warning=%s\n", warning);
    free(warning);

    if (stop_pid > 0 && kill((pid_t)stop_pid, SIGSTOP) != 0) {
        perror("kill -STOP");
        return 2;
    }
    int status = 0;
    char *pw = NULL;
    ks_entry *entries = NULL;
    size_t count = 0;
    ks_code rc = KS_OK;
    char line[4200] = "";
    if (strcmp(cmd, "put") == 0) {
        if (!fgets(line, sizeof line, stdin)) {
            fprintf(stderr, "ks_tool: no password on stdin\n");
            keystore_close(ks);
            return 2;
        }
        line[strcspn(line, "\n")] = '\0';
    }
    if (use_job && strcmp(cmd, "open") != 0) {
        int woken = 0;
        ks_job *job = NULL;
        double t0 = now_ms();
        if (strcmp(cmd, "put") == 0)
            job = keystore_job_put(ks, box, sid, line, job_timeout, wake, &woken, &err);
        else if (strcmp(cmd, "get") == 0)
            job = keystore_job_get(ks, box, sid, job_timeout, wake, &woken, &err);
        else if (strcmp(cmd, "delete") == 0)
            job = keystore_job_delete(ks, box, sid, job_timeout, wake, &woken, &err);
        else if (strcmp(cmd, "list") == 0)
            job = keystore_job_list(ks, job_timeout, wake, &woken, &err);
        double t_start = now_ms() - t0;
        if (!job) {
            rc = err.code;
        } else {
            keystore_job_wait(job);
            rc = keystore_job_result(job, &err, &pw, &entries, &count);
            fprintf(stderr, "job-start-ms=%.0f job-wall-ms=%.0f woken=%d\n", t_start, now_ms() - t0,
                    woken);
            keystore_job_free(job);
        }
    } else if (strcmp(cmd, "put") == 0) {
        rc = keystore_put(ks, box, sid, line, &err);
    } else if (strcmp(cmd, "get") == 0) {
        rc = keystore_get(ks, box, sid, &pw, &err);
    } else if (strcmp(cmd, "delete") == 0) {
        rc = keystore_delete(ks, box, sid, &err);
    } else if (strcmp(cmd, "list") == 0) {
        rc = keystore_list(ks, &entries, &count, &err);
    } else if (strcmp(cmd, "open") != 0) {
        fprintf(stderr, "ks_tool: unknown command %s\n", cmd);
        status = 2;
    }
    explicit_bzero(line, sizeof line);
    if (stop_pid > 0)
        kill((pid_t)stop_pid, SIGCONT);
    if (rc != KS_OK) {
        status = fail(&err);
    } else {
        if (pw)
            printf("%s\n", pw);
        for (size_t k = 0; k < count; k++)
            printf("%s\t%s\n", entries[k].box, entries[k].sandbox_id);
    }
    keystore_password_free(pw);
    ks_entries_free(entries, count);
    keystore_close(ks);
    keystore_jobs_drain(10000);
    if (log_file)
        fclose(log_file);
    return status;
}
