/* Processes running in sandboxes, their output fan-out and the Connect event streams.
 *
 * Each process has a reader thread that turns its stdout/stderr into Connect-JSON
 * ProcessEvent envelopes and appends them to every subscriber (an open Start/Connect
 * stream). Output with no subscriber is dropped, like envd; a slow subscriber makes the
 * reader wait (backpressure) up to a bound. The process does not depend on any stream:
 * closing a stream only unsubscribes.
 *
 * Ownership: a struct proc is reference counted (the sandbox's list, the reader thread and
 * each stream hold one); proc_unref frees it. p->lock guards subscribers and the end state;
 * the sandbox's list (sb->procs) is guarded by g_lock. */
#ifndef E2B_LOCAL_PROCESS_H
#define E2B_LOCAL_PROCESS_H

#include "sandbox.h"
#include "runtime.h"

#include <sys/types.h>

struct sub;

struct proc {
    struct proc *next;
    struct sandbox *sb;      /* never freed while the server runs (see sandbox.h) */
    int pid;                 /* inside the sandbox */
    pid_t host_pid;
    pid_t inter_pid;
    char *tag;               /* NULL when none */
    json_t *config;          /* {cmd,args,envs,cwd} as List returns it */
    int stdin_fd;
    int out_fd, err_fd, report_fd;
    int64_t deadline_mono;   /* Connect-Timeout-Ms lifetime; 0 = none */
    bool ended;
    struct sub *subs;
    int refs;
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

/* Starts a process from a Process/Start request (already parsed). On success returns the
 * process with one extra reference owned by the returned subscription *sub (which already
 * holds the start event). On failure returns NULL with a Connect error code and message. */
struct proc *proc_start_locked(struct sandbox *sb, json_t *request, const char *user, int64_t lifetime_ms,
                               struct sub **sub, const char **code, char *msg, size_t msglen);
/* Finds a live process by pid (>0) or tag; adds a reference. */
struct proc *proc_find_locked(struct sandbox *sb, int pid, const char *tag);
/* New subscription (start event queued); takes over the caller's reference to p. */
struct sub *proc_subscribe(struct proc *p);
void proc_unref(struct proc *p);
/* {"processes":[...]} for Process/List. */
json_t *proc_list_json_locked(struct sandbox *sb);
/* Signals the process group leader directly (host pid). */
int proc_signal(struct proc *p, int sig);
/* Writes stdin; -1 when stdin is closed or was never open. */
int proc_write_stdin(struct proc *p, const unsigned char *data, size_t len);
int proc_close_stdin(struct proc *p);
/* Kills processes whose Connect-Timeout-Ms lifetime has passed (called by the ticker). */
void procs_enforce_deadlines_locked(struct sandbox *sb);
/* Waits until every reader thread has finished (after the sandboxes were killed). */
void procs_wait_all(int timeout_ms);

/* The stream callback for MHD: fills buf with envelopes; see http.h stream_fn. */
ssize_t sub_read(void *cls, char *buf, size_t max);
void sub_free(void *cls);
/* Sets the keepalive interval (seconds) for a subscription. */
void sub_set_keepalive(struct sub *s, int seconds);

#endif
