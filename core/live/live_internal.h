/* Private to the files of core/live: the model's struct and the helpers its files share. */
#ifndef E2B_LIVE_INTERNAL_H
#define E2B_LIVE_INTERNAL_H

#include "core/live/live.h"

#include <stdatomic.h>
#include <stdio.h>
#include <sys/types.h>

struct keystore;
struct ks_job;
struct live_op;
struct live_agents;

struct live_sub {
    unsigned mask;
    e2b_live_fn cb;
    void *ud;
};

/* What a file or folder looked like when it was last read (live_stamp.c): the records
 * folder, the evidence folder, each member's evidence file. */
struct live_stamp {
    bool loaded, exists, recent;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
};

/* Takes path's stamp into *was; true when it differs from the one there (or was never
 * taken, or was taken too soon after a write to tell a second one): read it again. One
 * stat, no read. */
bool live_stamp_take(const char *path, struct live_stamp *was);

struct e2b_live {
    e2b_config cfg;
    const char *keystore_flag; /* --keystore (argv, borrowed), NULL when not given */
    bool have_api_key;
    e2b_loop *loop;
    e2b_client *client;
    bool closing;

    struct live_sub *subs;
    size_t nsubs;

    char notice[2048]; /* whole: the Messages pane shows it all (ui_flash keeps 2048) */
    enum e2b_live_level notice_level;

    /* the refresh (live_refresh.c) */
    uint64_t timer;
    e2b_api_call *list_call, *metrics_call, *secrets_call;
    bool listed_once, list_failed;
    time_t listed_at; /* the last list that arrived (or was unchanged) */
    bool list_stale;  /* the refreshes since then failed: the list is not current */
    bool secrets_listed_once; /* the first secrets list was asked for */
    bool secrets_arrived;
    bool secrets_shown;
    bool all_shown;          /* a view of every sandbox is open: list them all */
    bool listing_boxes;      /* the list on its way asks for the boxes only */
    bool list_complete;      /* the rows come from a list of every sandbox */
    bool refresh_after_list; /* the view changed while a list was on its way */
    unsigned long seen_429;  /* the loop's 429 count at the last schedule */
    bool slowed;             /* the refresh is slowed by a recent 429 */
    e2b_sandbox_list sandboxes;
    e2b_metric_list metrics; /* sorted by sandbox id (live_index.c) */
    e2b_secret_list secrets;
    /* this machine's records, read again when their folder changes (live_records.c) */
    e2b_box_record_list records;
    struct live_stamp records_seen;
    struct live_stamp evidence_seen; /* the records' .evidence folder (live_groups.c) */
    e2b_live_ids_fn ids_fn;
    void *ids_ud;

    /* box operations (live_ops.c) */
    struct live_op **ops;
    size_t nops;
    unsigned next_op_id;
    struct keystore *ks;
    struct ks_job *ks_job; /* opening the store, or NULL */
    e2b_loop_slot store_slot; /* the store job's wake-up (a post that cannot fail) */
    struct e2b_orphans *orphans; /* sweeps for sandboxes failed ups left (core/box/orphans.h) */
    e2b_live_attach_fn attach_fn;
    void *attach_ud;

    struct live_probe *probes; /* project probes on their threads (live_project.c) */
    struct live_unpulled *unpulled; /* the kill questions' looks (live_unpulled.c) */
    struct live_templates *tpl; /* live_templates.c, made on first use */
    struct live_ports *ports;   /* live_ports.c, made on first use */
    struct live_saved *saved;   /* live_rules.c: the saved permissions of each box asked */
    struct live_history_follow *history_follow; /* live_history_follow.c: the History view's */
    struct live_idle *idle;     /* live_idle.c: idle boxes paused (dashboard, --keepalive) */
    struct live_budget *budget; /* live_budget.c: boxes stopped at their budget (the same) */
    /* the boxes' agents (live_agents.c) */
    struct live_agents *agents;
    struct live_history *history; /* live_history.c: the lines this process wrote last */
    bool agents_resync; /* sync even when the next list is unchanged (an op ended) */

    /* headless (live_headless.c): no timer, no agents; the next command's waiter */
    bool is_headless;
    e2b_live_headless headless;
    char *store_warning; /* the store's fallback warning, until a mode tells it */
    e2b_live_end *then;  /* filled by the next command started */
    e2b_live_end *list_end, *secrets_end; /* the list's and the secrets' waiters */
    char *records_skipped; /* the unreadable records of the last read */
    struct live_gone *gone; /* the boxes whose sandbox the lists miss (live_gone.c) */
    size_t ngone;
    struct live_evidence *evidence; /* the group members' evidence (live_groups.c) */
    size_t nevidence;
    /* groups of attempts being made (live_try.c): their steps advance from try_slot */
    struct live_try **tries;
    size_t ntries;
    e2b_loop_slot try_slot;
    uint64_t try_timer; /* the tick while a member's agent is awaited, or 0 */
};

/* Calls the subscribers of what. */
void live_notify(e2b_live *m, unsigned what);
/* Sets the notice (sanitised) and tells the subscribers. */
void live_notice(e2b_live *m, enum e2b_live_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* live_history.c: one line of box's history (sanitised, bounded; never a secret). */
void live_history_add(e2b_live *m, const char *box, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void live_history_free(e2b_live *m);
/* The reader, shared with the History view's follower (live_history_follow.c): a ring of
 * the last max entries (0: no cap), oldest at h.items[head] once full; dropped counts the
 * entries it let go. Pure file reading, any thread. */
typedef struct live_history_ring {
    e2b_live_history h;
    size_t max, head, dropped;
} live_history_ring;
/* Reads the lines of f from its position into r (those of box; NULL every box) up to the
 * end or a line not ended yet (being written), *pos then after the last whole line; stops
 * early when *stop (may be NULL) is set. */
e2b_error *live_history_read_lines(FILE *f, const char *box, live_history_ring *r, long *pos,
                                   const atomic_int *stop);
/* The same for the file at path from *pos (NULL: from its start); no file is no lines. */
e2b_error *live_history_read_file(const char *path, const char *box, live_history_ring *r,
                                  long *pos, const atomic_int *stop);
/* The history file's path (old: history.log.1) into path; -1 when there is none. */
int live_history_path(const e2b_config *cfg, bool old, char *path, size_t n);
/* r's entries in order (oldest first) into out (a copy; empty when out of memory). */
void live_history_ring_order(const live_history_ring *r, e2b_live_history *out);
/* Frees r's entries (its max stays). */
void live_history_ring_clear(live_history_ring *r);
/* live_history_follow.c: the follower's thread stopped (before the loop goes, as its posts
 * go to it), then its memory freed (after the loop went). */
void live_history_follow_stop(e2b_live *m);
void live_history_follow_free(e2b_live *m);

/* live_index.c: pure helpers on the lists (no loop, no I/O; tests/unit uses them). */
void live_metrics_sort(e2b_metric_list *m);
const e2b_sandbox *live_sandbox_find(const e2b_sandbox_list *l, const char *id);
/* What changed state or went away from old to nw, in words ("x: running -> paused", "and
 * N more changes") into buf; returns the number of changes. */
int live_changes_text(const e2b_sandbox_list *old, const e2b_sandbox_list *nw, char *buf,
                      size_t bufsz);

/* live_records.c: looks at the records folder (one stat) and reads it again when it
 * changed; true when the records did. identify applies them to the sandbox list; sync does
 * both and, when they changed, syncs the agents and tells the subscribers. */
bool live_records_look(e2b_live *m);
void live_records_identify(e2b_live *m);
bool live_records_sync(e2b_live *m);
void live_records_free(e2b_live *m);

/* live_headless.c: the waiter the next command takes (NULL when none), and its end. */
e2b_live_end *live_then_take(e2b_live *m);
void live_end(e2b_live_end *e, const e2b_error *err, long status);
void live_end_fail(e2b_live_end *e, e2b_error_kind kind, const char *why);

/* live_project.c: join the probes' threads (before the loop goes), then free them. */
void live_probes_join(e2b_live *m);
void live_probes_free(e2b_live *m);

/* live_unpulled.c: the looks still open end (before the loop goes). */
void live_unpulled_shutdown(e2b_live *m);

/* live_gone.c: after a list that answered, the boxes whose sandbox is gone are told once */
void live_gone_look(e2b_live *m);
void live_gone_free(e2b_live *m);

/* live_ops.c */
bool live_op_busy(const e2b_live *m, const char *sandbox_id, const char *name,
                  char *why, size_t whysz);
void live_ops_shutdown(e2b_live *m);
void live_ops_free(e2b_live *m);
/* live_templates.c */
void live_templates_free(e2b_live *m);
/* live_agents.c: the sandbox sandbox_id's agent watch asked for (headless), or NULL; and a
 * resume of it succeeded (sb: the connect's answer, borrowed): its agent is unpaused and
 * watched again. */
const e2b_sandbox *live_agent_sandbox(const e2b_live *m, const char *sandbox_id);
/* Whether a message for sandbox_id's agent waits for it to answer after its resume. */
bool live_agent_pending(const e2b_live *m, const char *sandbox_id);
void live_agents_resumed(e2b_live *m, const char *sandbox_id, const e2b_sandbox *sb);
/* live_idle.c: the pauser starts with the dashboard's model (or --keepalive); freed
 * before the loop goes. */
void live_idle_start(e2b_live *m);
void live_idle_free(e2b_live *m);
/* live_budget.c: the budget watch starts with the dashboard's model (or --keepalive); freed
 * before the loop goes. */
void live_budget_start(e2b_live *m);
void live_budget_free(e2b_live *m);
/* live_agents.c: the record the agent of sandbox_id was made from (its name, port, API,
 * directory and budget; the model's, changed only by live_budget.c), or NULL. */
e2b_box_record *live_agent_record(e2b_live *m, const char *sandbox_id);
/* live_owed.c: a turn owed to a watched agent (core/agent/turn_owed.h), kept by its entry:
 * ms the mark judged (the record copy's; 0 none), busy: the watch saw a turn since it, and
 * the last verdict (SEEN or LOST stay, with gone_ms, after the mark went). */
struct live_owed {
    int64_t ms;
    bool busy;
    e2b_turn_owed_verdict verdict;
    int64_t gone_ms;
};
/* live_agents.c: the owed-turn state of sandbox_id's agent, or NULL when not watched. */
struct live_owed *live_agent_owed(e2b_live *m, const char *sandbox_id);
/* A prompt sent at sent_ms (wall clock) to sandbox_id's agent was accepted (session_id: where
 * it went, NULL not known): its record is marked, a turn is owed. */
void live_owed_mark(e2b_live *m, const char *sandbox_id, int64_t sent_ms, const char *session_id);
/* An interrupt of sandbox_id's agent was accepted: the turn owed (if any) ends with it (its
 * mark is cleared, the verdict SEEN). */
void live_owed_end(e2b_live *m, const char *sandbox_id);
/* The agent's status changed: the mark is judged, and cleared when its turn was seen or lost. */
void live_owed_judge(e2b_live *m, const char *sandbox_id);
/* The record r of sandbox_id's agent was read again: a mark another process made or cleared
 * is taken. */
void live_owed_take(e2b_live *m, const char *sandbox_id, const e2b_box_record *r);
/* live_ports.c: the forwards close and the reads stop (before the loop goes); free after. */
void live_ports_shutdown(e2b_live *m);
void live_ports_free(e2b_live *m);
/* live_groups.c: a test run of box name ended (its result r): the model keeps its evidence. */
void live_groups_evidence_set(e2b_live *m, const char *name, const e2b_box_result *r);
/* live_groups.c: the members' saved evidence read in, any process's: each member's file
 * whose stamp changed (all of them when records_changed, else only when the evidence
 * folder's stamp changed: one stat while nothing was written); true when a member's
 * evidence did. tick: a member whose turn ended with no evidence of that turn gets its
 * tests run (the dashboard and --keepalive; a one-shot mode asks itself). */
bool live_groups_load(e2b_live *m, bool records_changed);
void live_groups_tick(e2b_live *m);
void live_groups_free(e2b_live *m);

/* live_try.c: something the model tells changed (live_notify): the tries look again, from
 * the loop; count and info: their rows after the operations' (e2b_live_op_get); cancel:
 * -1 when id is no try's; agent_gone: sandbox_id's agent (its client) goes, before it does;
 * shutdown before the agents' (the calls on their clients are cancelled), free after the
 * loop. */
void live_tries_changed(e2b_live *m);
size_t live_tries_count(const e2b_live *m);
void live_try_info(const e2b_live *m, size_t i, e2b_live_op_info *out);
int live_try_cancel(e2b_live *m, unsigned id);
void live_try_agent_gone(e2b_live *m, const char *sandbox_id);
void live_tries_shutdown(e2b_live *m);
void live_tries_free(e2b_live *m);

/* live_agents.c: sync with the sandbox list (after each changed list); shutdown before the
 * loop is freed (the watches go), free after it. */
void live_agents_sync(e2b_live *m);
void live_agents_shutdown(e2b_live *m);
/* The watch of sandbox_id's agent and its box's name, or NULL (live_rules.c's calls). */
struct e2b_agent_watch *live_agent_watch(e2b_live *m, const char *sandbox_id);
const char *live_agent_name(const e2b_live *m, const char *sandbox_id);
/* live_rules.c */
void live_saved_free(e2b_live *m);
void live_agents_free(e2b_live *m);

#endif
