/* Which OpenCode is installed, and what follows from it (core/e2b/opencode_kind.h). */
#include "core/e2b/opencode_kind.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* First the names on PATH ("found: opencode2 opencode", at once: the serve command of a
 * box with one of them needs no more), then both versions asked side by side (one takes
 * 1.5 s from the 1.x binary); each line is one short write, so they never mix. */
const char E2B_OPENCODE_KIND_PROBE[] =
    "t=; command -v timeout >/dev/null 2>&1 && t='timeout 20'\n"
    "f=; for b in opencode2 opencode; do command -v \"$b\" >/dev/null 2>&1 && f=\"$f $b\"; done\n"
    "printf 'found:%s\\n' \"$f\"\n"
    "for b in $f; do\n"
    "  ( v=$($t \"$b\" --version </dev/null 2>/dev/null | head -c 200 | tr -d '\\r' | head -n 1)\n"
    "    printf '%s %s\\n' \"$b\" \"$v\" ) &\n"
    "done\n"
    "wait; exit 0\n";

static const char *const names[2] = {"opencode2", "opencode"};

/* A version word: digits first (a leading 'v' dropped), then only [0-9A-Za-z.+_-]; the
 * rest of the line is ignored. Returns its major number, or -1 when it is none. */
static int version_word(const char *s, size_t n, char out[40])
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    if (n && s[0] == 'v')
        s++, n--;
    if (!n || s[0] < '0' || s[0] > '9')
        return -1;
    size_t k = 0;
    while (k < n && k < 39 &&
           ((s[k] >= '0' && s[k] <= '9') || (s[k] >= 'a' && s[k] <= 'z') ||
            (s[k] >= 'A' && s[k] <= 'Z') || strchr(".+_-", s[k])))
        k++;
    memcpy(out, s, k);
    out[k] = '\0';
    long major = strtol(out, NULL, 10);
    return major > 1000 ? 1000 : (int)major;
}

static void set_kind(e2b_opencode_kind *k, int api, const char *bin, const char *version)
{
    memset(k, 0, sizeof *k);
    k->api = api;
    snprintf(k->bin, sizeof k->bin, "%s", bin);
    snprintf(k->version, sizeof k->version, "%s", version);
}

int e2b_opencode_kind_parse(const char *text, size_t len, int prefer, e2b_opencode_kind *out)
{
    /* found[0]: opencode2; found[1]: opencode (api 1 or 2 by its major) */
    e2b_opencode_kind found[2] = {{0}, {0}};
    const char *p = text, *end = text ? text + len : text;
    memset(out, 0, sizeof *out);
    while (p && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        for (int i = 0; i < 2; i++) {
            size_t nn = strlen(names[i]);
            if ((size_t)(le - p) > nn && !memcmp(p, names[i], nn) && p[nn] == ' ') {
                char v[40];
                int major = version_word(p + nn + 1, (size_t)(le - p - nn - 1), v);
                if (major >= 0)
                    set_kind(&found[i], i == 0 || major >= 2 ? 2 : 1, names[i], v);
            }
        }
        p = nl ? nl + 1 : end;
    }
    /* The order of preference: the other side's API first, then stable 2.x, the beta, 1.x. */
    const e2b_opencode_kind *order[3] = {found[1].api == 2 ? &found[1] : NULL, &found[0],
                                         found[1].api == 1 ? &found[1] : NULL};
    for (int i = 0; prefer && i < 3; i++)
        if (order[i] && order[i]->api == prefer) {
            *out = *order[i];
            return out->api;
        }
    for (int i = 0; i < 3; i++)
        if (order[i] && order[i]->api) {
            *out = *order[i];
            return out->api;
        }
    return 0;
}

int e2b_opencode_kind_found(const char *text, size_t len, char *bin, size_t size)
{
    const char *nl = text ? memchr(text, '\n', len) : NULL;
    if (!nl || len < 6 || memcmp(text, "found:", 6) != 0)
        return -1;
    int have[2] = {0, 0};
    for (const char *p = text + 6; p < nl;) {
        while (p < nl && *p == ' ')
            p++;
        size_t n = 0;
        while (p + n < nl && p[n] != ' ')
            n++;
        for (int i = 0; i < 2; i++)
            if (n == strlen(names[i]) && !memcmp(p, names[i], n))
                have[i] = 1;
        p += n;
    }
    snprintf(bin, size, "%s", have[0] && !have[1] ? names[0] : have[1] && !have[0] ? names[1] : "");
    return have[0] + have[1];
}

void e2b_opencode_kind_from_preset(int api, e2b_opencode_kind *out)
{
    set_kind(out, api == 1 ? 1 : 2, api == 1 ? "opencode" : "opencode2", "");
}

const char *e2b_opencode_kind_serve(const e2b_opencode_kind *k)
{
    return k->api && !strcmp(k->bin, "opencode") ? "opencode serve --hostname 0.0.0.0 --port {port}"
                                                 : "opencode2 serve --hostname 0.0.0.0 --port {port}";
}

const char *e2b_opencode_kind_attach(const e2b_opencode_kind *k)
{
    if (k->api == 1)
        return "opencode attach {url} --dir {dir}";
    return k->api && !strcmp(k->bin, "opencode") ? "opencode --server {url} {dir}"
                                                 : "opencode2 --server {url} {dir}";
}

const char *e2b_opencode_kind_health(int api)
{
    return api == 1 ? "/global/health" : "/api/health";
}

const char *e2b_opencode_kind_describe(const e2b_opencode_kind *k, char *buf, size_t size)
{
    if (!k->api)
        snprintf(buf, size, "none found");
    else
        snprintf(buf, size, "%s%s%s (v%d API)", k->bin, k->version[0] ? " " : "", k->version,
                 k->api);
    return buf;
}

const char *e2b_opencode_kind_mismatch(const e2b_opencode_kind *client, int server_api)
{
    if (!client->api || !server_api || client->api == server_api)
        return NULL;
    if (server_api == 1)
        return "install OpenCode 1.x here (npm package opencode-ai@1, its `opencode attach`), "
               "or set attach_command";
    return "install OpenCode 2 here (`opencode` 2.x, or the beta's `opencode2`), or set "
           "attach_command";
}

/* ---- this machine ---- */

/* What was found for each name: the file, to tell when it changed, and its answer. */
typedef struct {
    int have;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    char line[64]; /* "NAME VERSION\n", or "" when it gave no version */
} local_answer;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static local_answer cache[2];

/* The first executable file called name in PATH: its path into buf and its stat. */
static int find_on_path(const char *name, char *buf, size_t size, struct stat *st)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        size_t n = strcspn(p, ":");
        if (n && snprintf(buf, size, "%.*s/%s", (int)n, p, name) < (int)size &&
            stat(buf, st) == 0 && S_ISREG(st->st_mode) && access(buf, X_OK) == 0)
            return 0;
        if (!p[n])
            return -1;
        p += n + 1;
    }
}

/* Runs path --version with no input and stderr dropped; the first line of what it printed
 * (at most 200 bytes) into out. Gives up after 10 s or on *cancel. */
static void run_version(const char *path, const atomic_int *cancel, char *out, size_t size)
{
    int fds[2];
    out[0] = '\0';
    if (pipe2(fds, O_CLOEXEC) < 0)
        return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)path, "--version", NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return;
    }
    char buf[201];
    size_t got = 0;
    for (int waited = 0; waited < 10000 && !(cancel && atomic_load(cancel));) {
        struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
        int r = poll(&pfd, 1, 100);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            waited += 100;
            continue;
        }
        ssize_t n = read(fds[0], buf + got, sizeof buf - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got == sizeof buf - 1 || memchr(buf, '\n', got))
            break;
    }
    close(fds[0]);
    kill(pid, SIGKILL); /* done with it: a --version that lingers is not waited for */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    buf[got] = '\0';
    buf[strcspn(buf, "\r\n")] = '\0';
    snprintf(out, size, "%s", buf);
}

int e2b_opencode_kind_local(int prefer, e2b_opencode_kind *out, const atomic_int *cancel)
{
    char text[2 * sizeof cache[0].line + 1] = "";
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < 2; i++) {
        char path[4096];
        struct stat st;
        local_answer *c = &cache[i];
        if (find_on_path(names[i], path, sizeof path, &st) < 0) {
            c->have = 0;
            continue;
        }
        if (!c->have || c->dev != st.st_dev || c->ino != st.st_ino || c->size != st.st_size ||
            c->mtime.tv_sec != st.st_mtim.tv_sec || c->mtime.tv_nsec != st.st_mtim.tv_nsec) {
            char v[201];
            run_version(path, cancel, v, sizeof v);
            if (cancel && atomic_load(cancel)) {
                c->have = 0; /* an answer cut short is not kept */
                continue;
            }
            char word[40];
            if (version_word(v, strlen(v), word) < 0)
                c->line[0] = '\0';
            else
                snprintf(c->line, sizeof c->line, "%s %s\n", names[i], word);
            c->have = 1;
            c->dev = st.st_dev;
            c->ino = st.st_ino;
            c->size = st.st_size;
            c->mtime = st.st_mtim;
        }
        strcat(text, c->line);
    }
    pthread_mutex_unlock(&cache_lock);
    return e2b_opencode_kind_parse(text, strlen(text), prefer, out);
}
