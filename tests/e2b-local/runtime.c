/* Sandbox runtime with bubblewrap and setns(); see runtime.h. */
#include "runtime.h"
#include "egress.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/nsfs.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the spawner thread: parent of every bwrap ------------------------------------- */

struct holder_job {
    char **argv;
    int info_fd;   /* write end handed to bwrap as fd 3 */
    int ready_fd;  /* write end handed to the holder as fd 4: it writes once set up */
    pid_t pid;
    int err;
    bool done;
};

static pthread_t spawner;
static pthread_mutex_t sp_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sp_cond = PTHREAD_COND_INITIALIZER;
static struct holder_job *sp_job;
static bool sp_quit;

static void *spawner_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&sp_lock);
    for (;;) {
        while (!sp_job && !sp_quit)
            pthread_cond_wait(&sp_cond, &sp_lock);
        if (sp_quit)
            break;
        struct holder_job *job = sp_job;
        pid_t pid = fork();
        if (pid == 0) {
            sigset_t all;
            sigemptyset(&all);
            sigprocmask(SIG_SETMASK, &all, NULL);
            int devnull = open("/dev/null", O_RDWR);
            dup2(devnull, 0);
            dup2(devnull, 1);
            dup2(devnull, 2);
            int ready = dup(job->ready_fd); /* fd 3 or 4 may already be taken by it */
            dup2(job->info_fd, 3);
            dup2(ready, 4);
            syscall(SYS_close_range, 5, ~0U, 0);
            /* Not e2b-local's environment: the holder is a process of the sandbox. */
            static char *const holder_env[] = {"PATH=/usr/bin:/bin", NULL};
            execve(job->argv[0], job->argv, holder_env);
            _exit(127);
        }
        job->pid = pid;
        job->err = pid < 0 ? errno : 0;
        job->done = true;
        sp_job = NULL;
        pthread_cond_broadcast(&sp_cond);
    }
    pthread_mutex_unlock(&sp_lock);
    return NULL;
}

int runtime_init(void)
{
    return pthread_create(&spawner, NULL, spawner_main, NULL) == 0 ? 0 : -1;
}

void runtime_shutdown(void)
{
    pthread_mutex_lock(&sp_lock);
    sp_quit = true;
    pthread_cond_broadcast(&sp_cond);
    pthread_mutex_unlock(&sp_lock);
    pthread_join(spawner, NULL);
}

static pid_t spawn_via_thread(char **argv, int info_fd, int ready_fd, int *err)
{
    struct holder_job job = {.argv = argv, .info_fd = info_fd, .ready_fd = ready_fd};
    pthread_mutex_lock(&sp_lock);
    while (sp_job)
        pthread_cond_wait(&sp_cond, &sp_lock);
    sp_job = &job;
    pthread_cond_broadcast(&sp_cond);
    while (!job.done)
        pthread_cond_wait(&sp_cond, &sp_lock);
    pthread_mutex_unlock(&sp_lock);
    *err = job.err;
    return job.pid;
}

/* ---- one uid: chown succeeds ---------------------------------------------------------- */

/* Without root, bwrap's user namespaces map one host uid only: "root" (uid 0 of the outer
 * namespace) and "user" (uid 1000 of the inner one) are both the server's uid, so every file
 * already belongs to both, and a chown to user (as up's extraction does) fails with EINVAL
 * (uid 1000 is not mapped where root runs). A seccomp filter makes the chown calls of root's
 * processes succeed without doing anything: the owner is what that chown would have made. */
#if defined(__x86_64__)
#define RUNTIME_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define RUNTIME_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

static int one_uid_chown_filter(void)
{
#ifdef RUNTIME_AUDIT_ARCH
    static const unsigned nrs[] = {
#ifdef __NR_chown
        __NR_chown, __NR_lchown,
#endif
        __NR_fchown, __NR_fchownat};
    enum { NNR = sizeof nrs / sizeof *nrs };
    struct sock_filter code[4 + NNR + 2] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RUNTIME_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    };
    int n = 4;
    for (int i = 0; i < NNR; i++) /* a match jumps over the other tests and the allow */
        code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nrs[i], (unsigned char)(NNR - i), 0);
    code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0); /* returns 0 */
    struct sock_fprog prog = {.len = (unsigned short)(sizeof code / sizeof *code), .filter = code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#else
    return 0; /* another architecture: chown to user fails there as before */
#endif
}

/* ---- the holder ---------------------------------------------------------------------- */

static bool holder_alive(const struct sandbox *sb)
{
    return sb->holder_pid > 0 && kill(sb->holder_pid, 0) == 0;
}

int runtime_ensure_holder_locked(struct sandbox *sb, char *err, size_t errlen)
{
    if (holder_alive(sb))
        return 0;
    if (g_stopping) {
        snprintf(err, errlen, "e2b-local is shutting down");
        return -1;
    }
    if (sb->bwrap_pid > 0) { /* a holder that died: reap what is left */
        kill(sb->bwrap_pid, SIGKILL);
        waitpid(sb->bwrap_pid, NULL, 0);
        sb->bwrap_pid = sb->holder_pid = 0;
    }
    char root[2200];
    sandbox_root_path(sb->id, root, sizeof root);
    char *argv[96 + 4 * 4 * RUNTIME_BIND_DEPTH];
    int n = 0;
    argv[n++] = g_cfg.bwrap;
    argv[n++] = "--die-with-parent";
    argv[n++] = "--info-fd";
    argv[n++] = "3";
    argv[n++] = "--unshare-pid";
    argv[n++] = "--unshare-ipc";
    argv[n++] = "--unshare-uts";
    if (g_cfg.net_isolation)
        argv[n++] = "--unshare-net";
    if (geteuid() != 0) {
        /* Unprivileged: processes of "user" appear as uid 1000 in bwrap's inner namespace. */
        argv[n++] = "--unshare-user";
        argv[n++] = "--uid";
        argv[n++] = "1000";
        argv[n++] = "--gid";
        argv[n++] = "1000";
    }
    argv[n++] = "--hostname";
    argv[n++] = "e2b-sandbox";
    argv[n++] = "--bind";
    argv[n++] = root;
    argv[n++] = "/";
    argv[n++] = "--ro-bind";
    argv[n++] = "/usr";
    argv[n++] = "/usr";
    /* bwrap makes the missing parents of a mount point 0700 root: the box user could not
     * reach what is bound there. Each parent is made first, 0755 (main.c bounds the depth). */
    char parents[4][RUNTIME_BIND_DEPTH][sizeof g_cfg.ro_bind_to[0]];
    for (int b = 0; b < 4 && g_cfg.ro_bind[b][0]; b++) {
        const char *to = g_cfg.ro_bind_to[b];
        int depth = 0;
        for (const char *slash = strchr(to + 1, '/'); slash && depth < RUNTIME_BIND_DEPTH;
             slash = strchr(slash + 1, '/')) {
            snprintf(parents[b][depth], sizeof parents[b][depth], "%.*s", (int)(slash - to), to);
            argv[n++] = "--perms";
            argv[n++] = "0755";
            argv[n++] = "--dir";
            argv[n++] = parents[b][depth++];
        }
        argv[n++] = "--ro-bind";
        argv[n++] = g_cfg.ro_bind[b];
        argv[n++] = g_cfg.ro_bind_to[b];
    }
    static char *const etc_files[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                      "/etc/alternatives", "/etc/ssl", "/etc/ca-certificates",
                                      "/etc/localtime", "/etc/nsswitch.conf", "/etc/profile",
                                      "/etc/bash.bashrc", "/etc/gitconfig", "/etc/mime.types"};
    for (size_t i = 0; i < sizeof etc_files / sizeof *etc_files; i++) {
        argv[n++] = "--ro-bind-try";
        argv[n++] = etc_files[i];
        argv[n++] = etc_files[i];
    }
    argv[n++] = "--proc";
    argv[n++] = "/proc";
    argv[n++] = "--dev";
    argv[n++] = "/dev";
    argv[n++] = "--chdir";
    argv[n++] = "/";
    argv[n++] = "--";
    /* bwrap reports the pid before the mounts are in place: the holder says when it runs. */
    argv[n++] = "/bin/sh";
    argv[n++] = "-c";
    argv[n++] = "echo ready >&4 && exec /usr/bin/sleep infinity 4>&-";
    argv[n] = NULL;

    int info[2], ready[2];
    if (pipe2(info, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe2(ready, O_CLOEXEC) != 0) {
        close(info[0]);
        close(info[1]);
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    int e = 0;
    pid_t pid = spawn_via_thread(argv, info[1], ready[1], &e);
    close(info[1]);
    close(ready[1]);
    if (pid < 0) {
        close(info[0]);
        close(ready[0]);
        snprintf(err, errlen, "cannot start bwrap: %s", strerror(e));
        return -1;
    }
    char buf[512];
    size_t got = 0;
    struct pollfd pfd = {.fd = info[0], .events = POLLIN};
    while (got < sizeof buf - 1 && !memchr(buf, '}', got) && poll(&pfd, 1, 10000) > 0) {
        ssize_t r = read(info[0], buf + got, sizeof buf - 1 - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(info[0]);
    buf[got] = '\0';
    const char *cp = strstr(buf, "\"child-pid\"");
    int child = 0;
    if (cp)
        cp = strchr(cp, ':');
    if (cp)
        child = atoi(cp + 1);
    struct pollfd rfd = {.fd = ready[0], .events = POLLIN};
    char rb[8];
    bool is_ready = child > 0 && poll(&rfd, 1, 10000) > 0 && read(ready[0], rb, sizeof rb) > 0;
    close(ready[0]);
    if (!is_ready) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        snprintf(err, errlen, "bwrap did not start the sandbox (is bubblewrap usable here?)");
        return -1;
    }
    sb->bwrap_pid = pid;
    sb->holder_pid = child;
    sb->cpu_ticks_last = 0;
    sb->cpu_ms_last = mono_ms();
    if (g_cfg.net_isolation)
        egress_attach_locked(sb);
    return 0;
}

/* ---- spawning a process inside ------------------------------------------------------- */

static void send_report(int fd, int type, int value)
{
    struct report_msg m = {type, value};
    ssize_t w = write(fd, &m, sizeof m);
    (void)w;
}

int runtime_spawn_locked(struct sandbox *sb, const struct spawn_spec *spec, struct spawn_result *res,
                         bool *invalid, char *err, size_t errlen)
{
    *invalid = false;
    if (runtime_ensure_holder_locked(sb, err, errlen) != 0)
        return -1;
    /* Without root, bwrap made a user namespace: join it first to gain the rights to the
     * others. As root there is none to join (joining one's own is an error). */
    bool as_root = geteuid() == 0;
    static const char *const ns_names[] = {"user", "ipc", "uts", "net", "pid", "mnt"};
    enum { NNS = 6 };
    int nsfd[NNS], rootfd;
    char p[128];
    for (int i = 0; i < NNS; i++) {
        bool skip = i == 0 || (i == 3 && !g_cfg.net_isolation);
        snprintf(p, sizeof p, "/proc/%d/ns/%s", (int)sb->holder_pid, ns_names[i]);
        nsfd[i] = skip ? -1 : open(p, O_RDONLY | O_CLOEXEC);
    }
    /* Unprivileged, bwrap nests two user namespaces: the outer one owns the others (join it
     * first, as its uid 0 = "root"); the inner one maps uid 1000 ("user"), joined last. */
    int inner_user = -1;
    if (!as_root && nsfd[4] >= 0) {
        nsfd[0] = ioctl(nsfd[4], NS_GET_USERNS);
        snprintf(p, sizeof p, "/proc/%d/ns/user", (int)sb->holder_pid);
        if (spec->uid != 0)
            inner_user = open(p, O_RDONLY | O_CLOEXEC);
    }
    snprintf(p, sizeof p, "/proc/%d/root", (int)sb->holder_pid);
    rootfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    /* Candidate executables, computed before fork (no allocation in the child). */
    char cands[16][1024];
    int ncand = 0;
    const char *cmd = spec->argv[0];
    if (strchr(cmd, '/')) {
        snprintf(cands[ncand++], sizeof cands[0], "%s", cmd);
    } else {
        const char *s = spec->path;
        while (s && *s && ncand < 16) {
            const char *colon = strchr(s, ':');
            size_t len = colon ? (size_t)(colon - s) : strlen(s);
            snprintf(cands[ncand++], sizeof cands[0], "%.*s/%s", (int)len, s, cmd);
            s = colon ? colon + 1 : NULL;
        }
    }
    int in[2] = {-1, -1}, out[2], errp[2], rep[2], ex[2];
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    bool fds_ok = rootfd >= 0 && devnull >= 0 && (as_root || nsfd[0] >= 0) && nsfd[1] >= 0 && nsfd[2] >= 0 &&
                  nsfd[4] >= 0 && nsfd[5] >= 0 && (!g_cfg.net_isolation || nsfd[3] >= 0);
    if (!fds_ok || (spec->want_stdin && pipe2(in, O_CLOEXEC) != 0) || pipe2(out, O_CLOEXEC) != 0 ||
        pipe2(errp, O_CLOEXEC) != 0 || pipe2(rep, O_CLOEXEC) != 0 || pipe2(ex, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot prepare the process: %s", strerror(errno));
        for (int i = 0; i < NNS; i++)
            if (nsfd[i] >= 0)
                close(nsfd[i]);
        if (rootfd >= 0)
            close(rootfd);
        if (devnull >= 0)
            close(devnull);
        return -1; /* a leaked pipe here is not worth the bookkeeping: fds_ok fails first */
    }

    pid_t inter = fork();
    if (inter == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int i = 0; i < NNS; i++)
            if (nsfd[i] >= 0 && setns(nsfd[i], 0) != 0) {
                send_report(ex[1], 0, errno);
                _exit(126);
            }
        if (inner_user >= 0 && setns(inner_user, CLONE_NEWUSER) != 0) {
            send_report(ex[1], 1, errno);
            _exit(126);
        }
        if (fchdir(rootfd) != 0 || chroot(".") != 0) {
            send_report(ex[1], 0, errno);
            _exit(126);
        }
        pid_t g = fork();
        if (g == 0) {
            send_report(rep[1], REPORT_NSPID, (int)getpid());
            setsid();
            dup2(spec->want_stdin ? in[0] : devnull, 0);
            dup2(out[1], 1);
            dup2(errp[1], 2);
            syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
            /* Without root the process keeps the server's (mapped) identity. */
            if (as_root && (setgroups(0, NULL) != 0 || setgid(spec->gid) != 0 || setuid(spec->uid) != 0)) {
                send_report(ex[1], 1, errno);
                _exit(126);
            }
            if (!as_root && spec->uid == 0 && one_uid_chown_filter() != 0) {
                send_report(ex[1], 1, errno);
                _exit(126);
            }
            if (chdir(spec->cwd) != 0) {
                send_report(ex[1], 2, errno);
                _exit(126);
            }
            int last = ENOENT;
            for (int i = 0; i < ncand; i++) {
                execve(cands[i], spec->argv, spec->envp);
                if (errno != ENOENT || last == ENOENT)
                    last = errno;
            }
            send_report(ex[1], 3, last);
            _exit(127);
        }
        send_report(rep[1], REPORT_HOSTPID, (int)g);
        /* Keep only the report pipe: the pipes' other ends must see EOF when g exits. */
        int keep = rep[1];
        if (keep > 0)
            syscall(SYS_close_range, 0, (unsigned)keep - 1, 0);
        syscall(SYS_close_range, (unsigned)keep + 1, ~0U, 0);
        int st = 0;
        while (waitpid(g, &st, 0) < 0 && errno == EINTR)
            ;
        send_report(keep, REPORT_STATUS, st);
        _exit(0);
    }
    int fork_errno = errno;
    if (inner_user >= 0)
        close(inner_user);
    for (int i = 0; i < NNS; i++)
        if (nsfd[i] >= 0)
            close(nsfd[i]);
    close(rootfd);
    close(devnull);
    if (spec->want_stdin)
        close(in[0]);
    close(out[1]);
    close(errp[1]);
    close(rep[1]);
    close(ex[1]);
    if (inter < 0) {
        snprintf(err, errlen, "fork: %s", strerror(fork_errno));
        close(out[0]);
        close(errp[0]);
        close(rep[0]);
        close(ex[0]);
        if (spec->want_stdin)
            close(in[1]);
        return -1;
    }
    /* exec result: EOF means the program is running. */
    struct report_msg m;
    ssize_t r;
    while ((r = read(ex[0], &m, sizeof m)) < 0 && errno == EINTR)
        ;
    close(ex[0]);
    int host_pid = 0, ns_pid = 0;
    if (r == (ssize_t)sizeof m) {
        static const char *const what[] = {"cannot enter the sandbox", "cannot switch user",
                                           "cannot change to the working directory", "cannot run"};
        *invalid = m.type >= 2;
        snprintf(err, errlen, "%s %s: %s", what[m.type & 3], m.type == 2 ? spec->cwd : m.type == 3 ? cmd : "",
                 strerror(m.value));
    } else {
        while ((!host_pid || !ns_pid) && read(rep[0], &m, sizeof m) == (ssize_t)sizeof m) {
            if (m.type == REPORT_HOSTPID)
                host_pid = m.value;
            else if (m.type == REPORT_NSPID)
                ns_pid = m.value;
        }
        if (!host_pid || !ns_pid)
            snprintf(err, errlen, "the process did not start");
    }
    if (!host_pid || !ns_pid) {
        kill(inter, SIGKILL);
        waitpid(inter, NULL, 0);
        close(out[0]);
        close(errp[0]);
        close(rep[0]);
        if (spec->want_stdin)
            close(in[1]);
        return -1;
    }
    res->host_pid = host_pid;
    res->inter_pid = inter;
    res->ns_pid = ns_pid;
    res->stdin_fd = spec->want_stdin ? in[1] : -1;
    res->out_fd = out[0];
    res->err_fd = errp[0];
    res->report_fd = rep[0];
    return 0;
}

/* ---- freezing, killing, sockets, metrics ------------------------------------------- */

/* Host pids of every process in the sandbox's pid namespace (holder included). */
static int ns_members(const struct sandbox *sb, pid_t *out, int max)
{
    char p[300], want[64], got[64];
    snprintf(p, sizeof p, "/proc/%d/ns/pid", (int)sb->holder_pid);
    ssize_t wl = readlink(p, want, sizeof want - 1);
    if (wl <= 0)
        return 0;
    want[wl] = '\0';
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(p, sizeof p, "/proc/%s/ns/pid", de->d_name);
        ssize_t gl = readlink(p, got, sizeof got - 1);
        if (gl <= 0)
            continue;
        got[gl] = '\0';
        if (strcmp(got, want) == 0)
            out[n++] = (pid_t)atoi(de->d_name);
    }
    closedir(d);
    return n;
}

void runtime_freeze_locked(struct sandbox *sb, bool stop)
{
    if (!holder_alive(sb))
        return;
    pid_t pids[4096];
    int n = ns_members(sb, pids, 4096);
    for (int i = 0; i < n; i++)
        kill(pids[i], stop ? SIGSTOP : SIGCONT);
}

void runtime_kill_locked(struct sandbox *sb)
{
    egress_detach_locked(sb);
    if (sb->holder_pid > 0) {
        /* Killing a pid namespace's init kills every process in it. */
        kill(sb->holder_pid, SIGKILL);
    }
    if (sb->bwrap_pid > 0) {
        /* bwrap reaps its child and exits; kill it only if it lingers. */
        int64_t until = mono_ms() + 2000;
        while (waitpid(sb->bwrap_pid, NULL, WNOHANG) == 0) {
            if (mono_ms() > until) {
                kill(sb->bwrap_pid, SIGKILL);
                waitpid(sb->bwrap_pid, NULL, 0);
                break;
            }
            usleep(2000);
        }
    }
    sb->holder_pid = sb->bwrap_pid = 0;
}

void runtime_reap_idle_locked(struct sandbox *sb)
{
    if (sb->holder_pid <= 0 || sb->procs || sb->frozen) {
        sb->idle_since_mono = 0;
        return;
    }
    pid_t pids[4];
    int64_t now = mono_ms();
    /* bwrap's init and the sleeping holder: anything more is a detached process. */
    if (ns_members(sb, pids, 4) > 2) {
        sb->idle_since_mono = 0;
        return;
    }
    if (!sb->idle_since_mono) {
        sb->idle_since_mono = now;
    } else if (now - sb->idle_since_mono >= g_cfg.idle_holder_ms) {
        runtime_kill_locked(sb);
        sb->idle_since_mono = 0;
    }
}

/* Without root a thread cannot enter the sandbox's network namespace (that needs its user
 * namespace, which a multithreaded process cannot join): a child does it, creates the
 * socket and hands it back over a unix socket (SCM_RIGHTS). */
static int socket_via_child(const char *netns_path)
{
    int net = open(netns_path, O_RDONLY | O_CLOEXEC);
    if (net < 0)
        return -1;
    int owner = ioctl(net, NS_GET_USERNS);
    int pair[2];
    if (owner < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        close(net);
        if (owner >= 0)
            close(owner);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int s = -1;
        if (setns(owner, CLONE_NEWUSER) == 0 && setns(net, CLONE_NEWNET) == 0)
            s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        char byte = s >= 0 ? 1 : 0;
        struct iovec iov = {.iov_base = &byte, .iov_len = 1};
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } ctl;
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
        if (s >= 0) {
            msg.msg_control = ctl.buf;
            msg.msg_controllen = sizeof ctl.buf;
            struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &s, sizeof(int));
        }
        ssize_t w = sendmsg(pair[1], &msg, 0);
        _exit(w == 1 ? 0 : 1);
    }
    close(net);
    close(owner);
    close(pair[1]);
    int fd = -1;
    if (pid > 0) {
        char byte = 0;
        struct iovec iov = {.iov_base = &byte, .iov_len = 1};
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } ctl;
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                             .msg_controllen = sizeof ctl.buf};
        if (recvmsg(pair[0], &msg, MSG_CMSG_CLOEXEC) == 1 && byte == 1) {
            struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
            if (c && c->cmsg_type == SCM_RIGHTS)
                memcpy(&fd, CMSG_DATA(c), sizeof(int));
        }
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    close(pair[0]);
    return fd;
}

int runtime_socket_locked(struct sandbox *sb)
{
    if (!g_cfg.net_isolation)
        return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (!holder_alive(sb))
        return -1;
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/ns/net", (int)sb->holder_pid);
    if (geteuid() != 0)
        return socket_via_child(p);
    int target = open(p, O_RDONLY | O_CLOEXEC);
    int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    int s = -1;
    if (target >= 0 && self >= 0 && setns(target, CLONE_NEWNET) == 0) {
        s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (setns(self, CLONE_NEWNET) != 0)
            abort(); /* this thread would stay in the sandbox's network: never carry on */
    }
    if (target >= 0)
        close(target);
    if (self >= 0)
        close(self);
    return s;
}

static void proc_usage(pid_t pid, int64_t *ticks, int64_t *rss)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    char *text = read_file(p, NULL);
    if (!text)
        return;
    char *s = strrchr(text, ')'); /* the command name may hold spaces */
    if (s) {
        unsigned long utime = 0, stime = 0;
        long rsspages = 0;
        /* fields after ")": state(3) ... utime(14) stime(15) ... rss(24) */
        if (sscanf(s + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %*d %*d %*d %*d %*d %*d %*u %*u %ld",
                   &utime, &stime, &rsspages) == 3) {
            *ticks += (int64_t)(utime + stime);
            *rss += (int64_t)rsspages * sysconf(_SC_PAGESIZE);
        }
    }
    free(text);
}

json_t *runtime_metric_locked(struct sandbox *sb)
{
    int64_t ticks = 0, rss = 0;
    if (holder_alive(sb)) {
        pid_t pids[4096];
        int n = ns_members(sb, pids, 4096);
        for (int i = 0; i < n; i++)
            proc_usage(pids[i], &ticks, &rss);
    }
    int64_t mono = mono_ms();
    double pct = 0;
    if (sb->state == SB_RUNNING && mono > sb->cpu_ms_last && ticks >= sb->cpu_ticks_last) {
        double secs = (double)(ticks - sb->cpu_ticks_last) / (double)sysconf(_SC_CLK_TCK);
        pct = secs / ((double)(mono - sb->cpu_ms_last) / 1000.0) / sb->cpu_count * 100.0;
        if (pct > 100)
            pct = 100;
    }
    sb->cpu_ticks_last = ticks;
    sb->cpu_ms_last = mono;
    char root[2200], ts[40];
    sandbox_root_path(sb->id, root, sizeof root);
    int64_t now = now_ms();
    rfc3339(now, ts, sizeof ts);
    return json_pack("{s:I, s:s, s:i, s:f, s:I, s:I, s:I, s:I, s:I}", "timestampUnix", (json_int_t)(now / 1000),
                     "timestamp", ts, "cpuCount", sb->cpu_count, "cpuUsedPct", pct, "memUsed", (json_int_t)rss,
                     "memTotal", (json_int_t)sb->memory_mb * 1024 * 1024, "memCache", (json_int_t)0,
                     "diskUsed", (json_int_t)tree_bytes(root), "diskTotal",
                     (json_int_t)sb->disk_mb * 1024 * 1024);
}
