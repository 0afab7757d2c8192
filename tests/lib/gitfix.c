#include "tests/lib/gitfix.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[512];

const char *gitfix_tmpdir(void)
{
    if (tmpdir[0])
        return tmpdir;
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/e2b-gitfix.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        exit(2);
    }
    /* Reproducible identity; no user or system config leaks into the fixtures. */
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    setenv("HOME", tmpdir, 1);
    setenv("GIT_AUTHOR_NAME", "Fixture Author", 1);
    setenv("GIT_AUTHOR_EMAIL", "fixture@example.invalid", 1);
    setenv("GIT_COMMITTER_NAME", "Fixture Author", 1);
    setenv("GIT_COMMITTER_EMAIL", "fixture@example.invalid", 1);
    unsetenv("GIT_DIR");
    unsetenv("GIT_WORK_TREE");
    unsetenv("GIT_INDEX_FILE");
    return tmpdir;
}

void gitfix_cleanup(void)
{
    if (!tmpdir[0])
        return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "gitfix: cannot remove %s\n", tmpdir);
    tmpdir[0] = '\0';
}

static char *vformat(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        return NULL;
    return s;
}

/* Commands run under bash (not sh) from a script file, so tests may use bash syntax and
 * need no second level of quoting. */
static char *wrap(const char *cmd)
{
    char *script = NULL, *full = NULL;
    static unsigned seq;
    if (asprintf(&script, "%s/.gitfix-cmd-%u.sh", gitfix_tmpdir(), seq++) < 0)
        return NULL;
    FILE *f = fopen(script, "w");
    if (!f || fprintf(f, "cd '%s' || exit 2\n%s\n", gitfix_tmpdir(), cmd) < 0) {
        if (f)
            fclose(f);
        free(script);
        return NULL;
    }
    fclose(f);
    if (asprintf(&full, "bash '%s'; rc=$?; rm -f '%s'; exit $rc", script, script) < 0)
        full = NULL;
    free(script);
    return full;
}

int gitfix_sh(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *cmd = vformat(fmt, ap);
    va_end(ap);
    char *full = cmd ? wrap(cmd) : NULL;
    free(cmd);
    if (!full)
        return -1;
    fflush(stdout);
    int st = system(full);
    free(full);
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

char *gitfix_out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *cmd = vformat(fmt, ap);
    va_end(ap);
    char *full = cmd ? wrap(cmd) : NULL;
    free(cmd);
    if (!full)
        return NULL;
    FILE *p = popen(full, "r");
    free(full);
    if (!p)
        return NULL;
    size_t cap = 256, n = 0;
    char *buf = malloc(cap);
    int c;
    while (buf && (c = fgetc(p)) != EOF) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        buf[n++] = (char)c;
    }
    int st = pclose(p);
    if (!buf)
        return NULL;
    while (n > 0 && buf[n - 1] == '\n')
        n--;
    buf[n] = '\0';
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

char *gitfix_bash_script(const char *script, const char *argv0, const char *const *names,
                         const char *const *values, size_t n, size_t *len, int *status)
{
    char **envp = calloc(n + 3, sizeof *envp);
    char *out = NULL;
    int fds[2] = {-1, -1};
    if (!envp)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (asprintf(&envp[i], "%s=%s", names[i], values[i]) < 0) {
            envp[i] = NULL;
            goto out;
        }
    if (asprintf(&envp[n], "PATH=%s", getenv("PATH")) < 0) {
        envp[n] = NULL;
        goto out;
    }
    if (asprintf(&envp[n + 1], "HOME=%s", gitfix_tmpdir()) < 0) {
        envp[n + 1] = NULL;
        goto out;
    }
    if (pipe(fds) != 0)
        goto out;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        char *argv[] = {"bash", "-c", (char *)script, (char *)argv0, NULL};
        execve("/bin/bash", argv, envp);
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        goto out;
    }
    size_t cap = 4096, l = 0;
    out = malloc(cap);
    ssize_t r;
    while (out && (r = read(fds[0], out + l, cap - l - 1)) > 0) {
        l += (size_t)r;
        if (l + 1 == cap) {
            char *bigger = realloc(out, cap *= 2);
            if (!bigger)
                free(out);
            out = bigger;
        }
    }
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (out) {
        out[l] = '\0';
        *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (len)
            *len = l;
    }
out:
    for (size_t i = 0; i < n + 2; i++)
        free(envp[i]);
    free(envp);
    return out;
}

unsigned char *gitfix_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            unsigned char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            } else {
                buf = nb;
            }
        }
    }
    fclose(f);
    if (buf)
        *len = n;
    return buf;
}
