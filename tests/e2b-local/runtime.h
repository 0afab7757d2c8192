/* The sandbox runtime: bubblewrap namespaces, process spawning inside them, freezing,
 * killing, and measurements from /proc. Callers hold g_lock for every *_locked call.
 *
 * A sandbox with no process costs no process: its "holder" (bwrap + a sleeping pid 1 in
 * fresh mount/pid/ipc/uts and, as root, network namespaces) starts with its first process.
 * Every process is forked by e2b-local, joins the holder's namespaces with setns(), chroots
 * into the holder's root and forks once more (so it lands in the pid namespace); the middle
 * process waits for it and reports its wait status through a pipe. */
#ifndef E2B_LOCAL_RUNTIME_H
#define E2B_LOCAL_RUNTIME_H

#include "sandbox.h"

/* At most this many parent directories above a --ro-bind mount point (main.c checks). */
#define RUNTIME_BIND_DEPTH 8

struct spawn_spec {
    char *const *argv;   /* argv[0] is the command (absolute, or looked up in PATH) */
    char *const *envp;
    const char *cwd;     /* absolute path inside the sandbox */
    const char *path;    /* PATH used to find argv[0] */
    uid_t uid;
    gid_t gid;
    bool want_stdin;
};

struct spawn_result {
    pid_t host_pid;      /* the process itself, as the host sees it */
    pid_t inter_pid;     /* our child waiting for it */
    int ns_pid;          /* its pid inside the sandbox */
    int stdin_fd;        /* -1 without stdin */
    int out_fd, err_fd;  /* read ends */
    int report_fd;       /* delivers {REPORT_STATUS, wait status} when it ends */
};

enum { REPORT_HOSTPID = 1, REPORT_NSPID = 2, REPORT_STATUS = 3 };
struct report_msg {
    int type;
    int value;
};

/* Starts the spawner thread (the parent of every bwrap, so --die-with-parent holds). */
int runtime_init(void);
void runtime_shutdown(void);

int runtime_ensure_holder_locked(struct sandbox *sb, char *err, size_t errlen);
/* Spawns a process in the sandbox (starting the holder when needed). 0, or -1 with a
 * message in err; *invalid is set when the request itself was at fault (bad cwd/cmd). */
int runtime_spawn_locked(struct sandbox *sb, const struct spawn_spec *spec, struct spawn_result *res,
                         bool *invalid, char *err, size_t errlen);
/* SIGSTOP (stop=true) or SIGCONT every process of the sandbox. */
void runtime_freeze_locked(struct sandbox *sb, bool stop);
/* Kills every process of the sandbox and its holder. */
void runtime_kill_locked(struct sandbox *sb);
/* Stops the holder of a running sandbox in which nothing has run for g_cfg.idle_holder_ms
 * (its pid namespace holds only the holder), so idle sandboxes cost no process. */
void runtime_reap_idle_locked(struct sandbox *sb);
/* A TCP socket created in the sandbox's network namespace (or the host's when sandboxes
 * share it); -1 when the sandbox has no namespace yet. */
int runtime_socket_locked(struct sandbox *sb);
/* One SandboxMetric object from the sandbox's live processes (new reference). */
json_t *runtime_metric_locked(struct sandbox *sb);

#endif
