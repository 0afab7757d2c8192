/* The sandbox registry of e2b-local: every sandbox the server knows, its persisted record
 * (one JSON file per sandbox under STATE/sandboxes) and the server-wide configuration.
 *
 * Locking: g_lock guards the registry and every field of every sandbox (including its
 * process list). Functions named *_locked expect the caller to hold it. Sandboxes are never
 * freed while the server runs: a killed sandbox moves to a graveyard that sandbox_free_all()
 * empties at exit, so a pointer taken under the lock stays valid (check ->state). */
#ifndef E2B_LOCAL_SANDBOX_H
#define E2B_LOCAL_SANDBOX_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define ENVD_VERSION "0.5.7"
#define ENVD_PORT 49983

struct config {
    char listen_host[64];
    int port;                /* the real port once listening */
    char state_dir[2048];
    char api_key[256];       /* empty: any non-empty X-API-KEY is accepted */
    char domain[256];        /* sandbox domain returned by create/connect */
    bool net_isolation;      /* own network namespace per sandbox (always on) */
    int64_t idle_holder_ms;  /* a holder with no process left stops after this long */
    char bwrap[512];         /* path of bwrap */
    char ro_bind[4][1024];   /* --ro-bind (up to 4): host directories every sandbox sees read-only */
    char ro_bind_to[4][1024]; /* where in the sandbox (the same path unless HOST:BOX) */
};
extern struct config g_cfg;
extern pthread_mutex_t g_lock;
extern volatile int g_stopping;

enum sb_state { SB_RUNNING, SB_PAUSED, SB_DEAD };

struct proc;

struct sandbox {
    char id[24];
    char template_id[32];
    char envd_token[40];
    char traffic_token[40];
    json_t *metadata;        /* object of strings, never NULL */
    json_t *env_vars;        /* object of strings, never NULL */
    json_t *network;         /* object or NULL */
    int allow_internet;      /* -1 unset, 0 false, 1 true */
    bool auto_pause;
    bool auto_resume;
    bool public_traffic;
    enum sb_state state;
    bool frozen;             /* paused with live (SIGSTOPped) processes */
    int64_t started_ms;
    int64_t end_ms;
    int cpu_count;
    int memory_mb;
    int disk_mb;
    /* runtime (not persisted) */
    pid_t bwrap_pid;         /* our child: bwrap outside the namespaces */
    pid_t holder_pid;        /* host pid of the sandbox's pid-1 */
    struct proc *procs;
    json_t *logs;            /* array of {timestamp, level, message, fields} */
    int64_t cpu_ticks_last, cpu_ms_last;
    int64_t idle_since_mono;  /* when the holder was last seen with nothing to run; 0 busy */
    struct sandbox *next_dead;
};

/* Host paths of a sandbox's record and root directory (out >= 2200 bytes). */
void sandbox_record_path(const char *id, char *out, size_t len);
void sandbox_root_path(const char *id, char *out, size_t len);

/* Registry. */
struct sandbox *sandbox_find_locked(const char *id);
void sandbox_add_locked(struct sandbox *sb);
void sandbox_bury_locked(struct sandbox *sb);   /* removes from the registry, marks dead */
struct sandbox **sandbox_all_locked(size_t *n); /* borrowed array */
void sandbox_free_all(void);

/* A new sandbox with fresh id and tokens (not yet in the registry), root dir created. */
struct sandbox *sandbox_new(const char *template_id);
/* Writes the record atomically; 0 or -1. */
int sandbox_save_locked(struct sandbox *sb);
/* Loads every record at startup; running ones come back paused (cold). */
int sandbox_load_all(void);
/* Deletes the record and root directory from disk. */
void sandbox_delete_files(const char *id);

/* Appends a line to the sandbox's log (GET /v2/sandboxes/{id}/logs). */
void sandbox_log_locked(struct sandbox *sb, const char *level, const char *msg);

/* JSON views of a sandbox, as the API returns them (new references). */
json_t *sandbox_json_created(const struct sandbox *sb);   /* Sandbox (create/connect) */
json_t *sandbox_json_listed(const struct sandbox *sb);    /* ListedSandbox */
json_t *sandbox_json_detail(const struct sandbox *sb);    /* SandboxDetail */

#endif
