/* Sandbox processes and their event streams; see process.h. */
#include "process.h"
#include "egress.h"
#include "envelope.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK 32768
#define BACKLOG_LIMIT (8u << 20)

struct sub {
    struct sub *next;
    struct proc *p;
    struct bytes buf;
    size_t off;
    bool ended;       /* the end event is queued */
    bool eos_sent;
    int keepalive_ms;
    int64_t last_mono;
};

static pthread_mutex_t readers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t readers_cond = PTHREAD_COND_INITIALIZER;
static int readers;

static void queue_event_locked(struct proc *p, json_t *event)
{
    json_t *msg = json_pack("{s:O}", "event", event);
    for (struct sub *s = p->subs; s; s = s->next) {
        envelope_append(&s->buf, 0, msg);
    }
    json_decref(msg);
    pthread_cond_broadcast(&p->cond);
}

static void start_event(struct sub *s)
{
    json_t *msg = json_pack("{s:{s:{s:i}}}", "event", "start", "pid", s->p->pid);
    envelope_append(&s->buf, 0, msg);
    json_decref(msg);
}

struct sub *proc_subscribe(struct proc *p)
{
    struct sub *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->p = p;
    s->keepalive_ms = 90000;
    s->last_mono = mono_ms();
    pthread_mutex_lock(&p->lock);
    start_event(s);
    if (p->ended) {
        s->ended = true; /* it ended meanwhile: start, then end-of-stream */
    }
    s->next = p->subs;
    p->subs = s;
    pthread_mutex_unlock(&p->lock);
    return s;
}

void sub_set_keepalive(struct sub *s, int seconds)
{
    if (seconds > 0)
        s->keepalive_ms = seconds * 1000;
}

void proc_unref(struct proc *p)
{
    pthread_mutex_lock(&p->lock);
    int left = --p->refs;
    pthread_mutex_unlock(&p->lock);
    if (left > 0)
        return;
    if (p->stdin_fd >= 0)
        close(p->stdin_fd);
    free(p->tag);
    json_decref(p->config);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
    free(p);
}

ssize_t sub_read(void *cls, char *buf, size_t max)
{
    struct sub *s = cls;
    struct proc *p = s->p;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        if (s->buf.len > s->off) {
            size_t n = s->buf.len - s->off;
            if (n > max)
                n = max;
            memcpy(buf, s->buf.data + s->off, n);
            s->off += n;
            if (s->off == s->buf.len)
                s->off = s->buf.len = 0;
            s->last_mono = mono_ms();
            pthread_cond_broadcast(&p->cond);
            pthread_mutex_unlock(&p->lock);
            return (ssize_t)n;
        }
        if (s->ended) {
            if (!s->eos_sent) {
                json_t *empty = json_object();
                envelope_append(&s->buf, ENVELOPE_END_STREAM, empty);
                json_decref(empty);
                s->eos_sent = true;
                continue;
            }
            pthread_mutex_unlock(&p->lock);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        if (g_stopping) {
            pthread_mutex_unlock(&p->lock);
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        int64_t now = mono_ms();
        if (now - s->last_mono >= s->keepalive_ms) {
            json_t *ka = json_pack("{s:{s:{}}}", "event", "keepalive");
            envelope_append(&s->buf, 0, ka);
            json_decref(ka);
            continue;
        }
        int64_t wait = s->last_mono + s->keepalive_ms - now;
        if (wait > 200)
            wait = 200;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)wait * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&p->cond, &p->lock, &ts);
    }
}

void sub_free(void *cls)
{
    struct sub *s = cls;
    struct proc *p = s->p;
    pthread_mutex_lock(&p->lock);
    for (struct sub **pp = &p->subs; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    bytes_free(&s->buf);
    free(s);
    proc_unref(p);
}

static void emit_output(struct proc *p, const char *stream, const unsigned char *data, size_t len)
{
    char *b64 = b64_encode(data, len);
    json_t *ev = json_pack("{s:{s:s}}", "data", stream, b64);
    free(b64);
    pthread_mutex_lock(&p->lock);
    /* Backpressure: wait (bounded) while a subscriber is far behind. */
    for (int tries = 0; tries < 50 && !g_stopping; tries++) {
        bool behind = false;
        for (struct sub *s = p->subs; s; s = s->next)
            if (s->buf.len - s->off > BACKLOG_LIMIT)
                behind = true;
        if (!behind)
            break;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 200000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&p->cond, &p->lock, &ts);
    }
    queue_event_locked(p, ev);
    pthread_mutex_unlock(&p->lock);
    json_decref(ev);
}

static void drain(struct proc *p, int *fd, const char *stream, unsigned char *buf)
{
    if (*fd < 0)
        return;
    fcntl(*fd, F_SETFL, O_NONBLOCK);
    ssize_t r;
    while ((r = read(*fd, buf, CHUNK)) > 0)
        emit_output(p, stream, buf, (size_t)r);
    close(*fd);
    *fd = -1;
}

static json_t *end_event(int st)
{
    char status[96];
    json_t *end = json_object();
    if (WIFEXITED(st)) {
        int code = WEXITSTATUS(st);
        snprintf(status, sizeof status, "exit status %d", code);
        if (code != 0) {
            json_object_set_new(end, "exitCode", json_integer(code));
            json_object_set_new(end, "error", json_string(status));
        }
        json_object_set_new(end, "exited", json_true());
    } else {
        int sig = WIFSIGNALED(st) ? WTERMSIG(st) : SIGKILL;
        const char *name = strsignal(sig);
        snprintf(status, sizeof status, "signal: %s", name ? name : "unknown");
        status[8] = (char)(status[8] >= 'A' && status[8] <= 'Z' ? status[8] + 32 : status[8]);
        json_object_set_new(end, "exitCode", json_integer(-1));
        json_object_set_new(end, "error", json_string(status));
    }
    json_object_set_new(end, "status", json_string(status));
    return json_pack("{s:o}", "end", end);
}

static void *reader_main(void *arg)
{
    struct proc *p = arg;
    unsigned char *buf = malloc(CHUNK);
    int st = SIGKILL; /* as if killed, when the middle process vanished */
    bool have_status = false;
    while (!have_status) {
        struct pollfd pf[3] = {{.fd = p->out_fd, .events = POLLIN},
                               {.fd = p->err_fd, .events = POLLIN},
                               {.fd = p->report_fd, .events = POLLIN}};
        if (poll(pf, 3, 1000) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            int *fd = i == 0 ? &p->out_fd : &p->err_fd;
            if (*fd >= 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR))) {
                ssize_t r = read(*fd, buf, CHUNK);
                if (r > 0) {
                    emit_output(p, i == 0 ? "stdout" : "stderr", buf, (size_t)r);
                } else if (r == 0 || errno != EINTR) {
                    close(*fd);
                    *fd = -1;
                }
            }
        }
        if (pf[2].revents & (POLLIN | POLLHUP | POLLERR)) {
            struct report_msg m;
            ssize_t r = read(p->report_fd, &m, sizeof m);
            if (r == (ssize_t)sizeof m && m.type == REPORT_STATUS) {
                st = m.value;
                have_status = true;
            } else if (r <= 0) {
                st = SIGKILL;
                have_status = true;
            }
        }
    }
    drain(p, &p->out_fd, "stdout", buf);
    drain(p, &p->err_fd, "stderr", buf);
    free(buf);
    close(p->report_fd);
    p->report_fd = -1;
    while (waitpid(p->inter_pid, NULL, 0) < 0 && errno == EINTR)
        ;
    json_t *ev = end_event(st);
    pthread_mutex_lock(&p->lock);
    queue_event_locked(p, ev);
    p->ended = true;
    for (struct sub *s = p->subs; s; s = s->next)
        s->ended = true;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    json_decref(ev);

    pthread_mutex_lock(&g_lock);
    for (struct proc **pp = &p->sb->procs; *pp; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            proc_unref(p); /* the list's reference */
            break;
        }
    }
    pthread_mutex_unlock(&g_lock);
    proc_unref(p); /* the thread's reference */

    pthread_mutex_lock(&readers_lock);
    readers--;
    pthread_cond_broadcast(&readers_cond);
    pthread_mutex_unlock(&readers_lock);
    return NULL;
}

void procs_wait_all(int timeout_ms)
{
    int64_t until = mono_ms() + timeout_ms;
    pthread_mutex_lock(&readers_lock);
    while (readers > 0 && mono_ms() < until) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&readers_cond, &readers_lock, &ts);
    }
    pthread_mutex_unlock(&readers_lock);
}

static void env_add(json_t *env, json_t *from)
{
    const char *k;
    json_t *v;
    json_object_foreach(from, k, v) {
        if (json_is_string(v) && *k && !strchr(k, '='))
            json_object_set(env, k, v);
    }
}

struct proc *proc_start_locked(struct sandbox *sb, json_t *request, const char *user, int64_t lifetime_ms,
                               struct sub **subp, const char **code, char *msg, size_t msglen)
{
    json_t *process = json_object_get(request, "process");
    const char *cmd = json_string_value(json_object_get(process, "cmd"));
    json_t *args = json_object_get(process, "args");
    json_t *envs = json_object_get(process, "envs");
    const char *cwd = json_string_value(json_object_get(process, "cwd"));
    json_t *stdin_flag = json_object_get(request, "stdin");
    const char *tag = json_string_value(json_object_get(request, "tag"));
    *code = "invalid_argument";
    if (!cmd || !*cmd) {
        snprintf(msg, msglen, "process.cmd is required");
        return NULL;
    }
    if (json_object_get(request, "pty")) {
        *code = "unimplemented";
        snprintf(msg, msglen, "PTY processes are not supported by e2b-local");
        return NULL;
    }
    if ((args && !json_is_array(args)) || (envs && !json_is_object(envs))) {
        snprintf(msg, msglen, "process.args must be an array and process.envs an object");
        return NULL;
    }
    bool root = strcmp(user, "root") == 0;
    const char *home = root ? "/root" : "/home/user";
    char cwdbuf[4096];
    if (!cwd || !*cwd)
        snprintf(cwdbuf, sizeof cwdbuf, "%s", home);
    else if (cwd[0] == '/')
        snprintf(cwdbuf, sizeof cwdbuf, "%s", cwd);
    else if (cwd[0] == '~')
        snprintf(cwdbuf, sizeof cwdbuf, "%s%s", home, cwd + 1);
    else
        snprintf(cwdbuf, sizeof cwdbuf, "%s/%s", home, cwd);

    json_t *env = json_object();
    const char *path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    json_object_set_new(env, "PATH", json_string(path));
    json_object_set_new(env, "HOME", json_string(home));
    json_object_set_new(env, "USER", json_string(user));
    json_object_set_new(env, "LOGNAME", json_string(user));
    json_object_set_new(env, "E2B_SANDBOX", json_string("true"));
    json_object_set_new(env, "E2B_SANDBOX_ID", json_string(sb->id));
    if (g_cfg.net_isolation) { /* the only way out: the egress proxy (egress.h) */
        char proxy[64];
        snprintf(proxy, sizeof proxy, "http://127.0.0.1:%d", EGRESS_PORT);
        static const char *const vars[] = {"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"};
        for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
            json_object_set_new(env, vars[i], json_string(proxy));
        json_object_set_new(env, "NO_PROXY", json_string("localhost,127.0.0.1,::1"));
        json_object_set_new(env, "no_proxy", json_string("localhost,127.0.0.1,::1"));
    }
    env_add(env, sb->env_vars);
    if (envs)
        env_add(env, envs);
    const char *envpath = json_string_value(json_object_get(env, "PATH"));

    size_t nargs = json_array_size(args);
    char **argv = calloc(nargs + 2, sizeof *argv);
    char **envp = calloc(json_object_size(env) + 1, sizeof *envp);
    argv[0] = strdup(cmd);
    for (size_t i = 0; i < nargs; i++) {
        const char *a = json_string_value(json_array_get(args, i));
        argv[i + 1] = strdup(a ? a : "");
    }
    size_t ne = 0;
    const char *k;
    json_t *v;
    json_object_foreach(env, k, v) {
        if (asprintf(&envp[ne], "%s=%s", k, json_string_value(v)) < 0)
            abort();
        ne++;
    }
    struct spawn_spec spec = {.argv = argv, .envp = envp, .cwd = cwdbuf, .path = envpath,
                              .uid = root ? 0 : 1000, .gid = root ? 0 : 1000,
                              .want_stdin = !json_is_false(stdin_flag)};
    struct spawn_result res;
    bool invalid = false;
    int rc = runtime_spawn_locked(sb, &spec, &res, &invalid, msg, msglen);
    for (size_t i = 0; argv[i]; i++)
        free(argv[i]);
    for (size_t i = 0; i < ne; i++)
        free(envp[i]);
    free(argv);
    free(envp);
    json_decref(env);
    if (rc != 0) {
        *code = invalid ? "invalid_argument" : "internal";
        return NULL;
    }

    struct proc *p = calloc(1, sizeof *p);
    if (!p)
        abort();
    p->sb = sb;
    p->pid = res.ns_pid;
    p->host_pid = res.host_pid;
    p->inter_pid = res.inter_pid;
    p->tag = tag && *tag ? strdup(tag) : NULL;
    p->config = json_pack("{s:s, s:o, s:o}", "cmd", cmd, "args", args ? json_incref(args) : json_array(),
                          "envs", envs ? json_incref(envs) : json_object());
    if (cwd && *cwd)
        json_object_set_new(p->config, "cwd", json_string(cwd));
    p->stdin_fd = res.stdin_fd;
    p->out_fd = res.out_fd;
    p->err_fd = res.err_fd;
    p->report_fd = res.report_fd;
    p->deadline_mono = lifetime_ms > 0 ? mono_ms() + lifetime_ms : 0;
    p->refs = 3; /* list, reader thread, the caller's subscription */
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    p->next = sb->procs;
    sb->procs = p;
    *subp = proc_subscribe(p);

    pthread_mutex_lock(&readers_lock);
    readers++;
    pthread_mutex_unlock(&readers_lock);
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&th, &attr, reader_main, p) != 0)
        abort();
    pthread_attr_destroy(&attr);
    char line[160];
    snprintf(line, sizeof line, "process %d started (%s)", p->pid, cmd);
    sandbox_log_locked(sb, "info", line);
    return p;
}

struct proc *proc_find_locked(struct sandbox *sb, int pid, const char *tag)
{
    for (struct proc *p = sb->procs; p; p = p->next) {
        if ((pid > 0 && p->pid == pid) || (pid <= 0 && tag && p->tag && strcmp(p->tag, tag) == 0)) {
            pthread_mutex_lock(&p->lock);
            p->refs++;
            pthread_mutex_unlock(&p->lock);
            return p;
        }
    }
    return NULL;
}

json_t *proc_list_json_locked(struct sandbox *sb)
{
    json_t *list = json_array();
    for (struct proc *p = sb->procs; p; p = p->next) {
        json_t *o = json_pack("{s:O, s:i}", "config", p->config, "pid", p->pid);
        if (p->tag)
            json_object_set_new(o, "tag", json_string(p->tag));
        json_array_append_new(list, o);
    }
    return json_pack("{s:o}", "processes", list);
}

int proc_signal(struct proc *p, int sig)
{
    return kill(p->host_pid, sig);
}

int proc_write_stdin(struct proc *p, const unsigned char *data, size_t len)
{
    /* A duplicate, so that a full pipe never blocks while holding p->lock. */
    pthread_mutex_lock(&p->lock);
    int fd = p->stdin_fd >= 0 ? fcntl(p->stdin_fd, F_DUPFD_CLOEXEC, 0) : -1;
    pthread_mutex_unlock(&p->lock);
    if (fd < 0)
        return -1;
    int rc = 0;
    size_t off = 0;
    while (rc == 0 && off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            rc = -1;
        else
            off += (size_t)w;
    }
    close(fd);
    return rc;
}

int proc_close_stdin(struct proc *p)
{
    pthread_mutex_lock(&p->lock);
    int rc = p->stdin_fd >= 0 ? close(p->stdin_fd) : 0;
    p->stdin_fd = -1;
    pthread_mutex_unlock(&p->lock);
    return rc;
}

void procs_enforce_deadlines_locked(struct sandbox *sb)
{
    int64_t now = mono_ms();
    for (struct proc *p = sb->procs; p; p = p->next) {
        if (p->deadline_mono && now >= p->deadline_mono) {
            p->deadline_mono = 0;
            kill(p->host_pid, SIGKILL);
        }
    }
}
