/* What e2b-tui knows about the coding agent in one box: its derived state, sessions, todo
 * list, pending requests and recent activity. Plain data, the same for both OpenCode APIs
 * (core/agent/opencode.h fills it; core/agent/watch.h keeps it current; core/live publishes
 * it per box, tui/ draws it).
 *
 * Every string here came from the box, which is untrusted: each is sanitised
 * (core/util/sanitize.h, no newlines unless said) and bounded (E2B_AGENT_* below) before it
 * is stored, so a UI may draw it as it is. Ownership: each struct owns its strings and
 * arrays; the *_clear functions free them. */
#ifndef E2B_AGENT_H
#define E2B_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Caps on what one box can make us keep (memory per watched box stays well under 256 KiB). */
#define E2B_AGENT_TEXT_MAX 256        /* a title, a tool name, an id, a todo's text */
#define E2B_AGENT_DETAIL_MAX 2048     /* what a request asks (a command), an error message */
#define E2B_AGENT_TAIL_MAX 4096       /* the assistant text kept per activity entry (its tail) */
#define E2B_AGENT_TODOS_MAX 64        /* todo items kept (the counts are of all of them) */
#define E2B_AGENT_REQUESTS_MAX 16     /* pending requests kept */
#define E2B_AGENT_OPTIONS_MAX 16      /* a question's options kept */
#define E2B_AGENT_SESSIONS_MAX 32     /* sessions kept (most recently updated first) */
#define E2B_AGENT_ACTIVITY_MAX 48     /* recent activity entries kept per box */
#define E2B_AGENT_ACTIVITY_BYTES 65536 /* and their text, at most (oldest dropped first) */
/* The one block the activity's text lives in (allocated once per box): the bound above, one
 * entry's growth within an event and a NUL per entry. */
#define E2B_AGENT_ACTIVITY_TEXT_CAP (E2B_AGENT_ACTIVITY_BYTES + E2B_AGENT_TAIL_MAX + E2B_AGENT_ACTIVITY_MAX + 1)

/* The derived state of a box's agent, in the order a person cares about. */
typedef enum e2b_agent_state {
    E2B_AGENT_UNKNOWN = 0, /* not reached yet (no answer from its server so far) */
    E2B_AGENT_WORKING,     /* a session is running a turn */
    E2B_AGENT_WAITING,     /* a permission request or question waits for the user */
    E2B_AGENT_RETRYING,    /* the provider failed; the server retries (message, next try) */
    E2B_AGENT_IDLE,        /* no turn running (how the last one ended: e2b_agent_end) */
    E2B_AGENT_SERVER_DOWN, /* the sandbox runs but its OpenCode server does not answer */
    E2B_AGENT_PAUSED,      /* the sandbox is paused (nothing is watched) */
} e2b_agent_state;

/* How the last turn ended (meaningful when idle). */
typedef enum e2b_agent_end {
    E2B_AGENT_END_NONE = 0,    /* no turn seen since e2b-tui started watching */
    E2B_AGENT_END_DONE,        /* finished */
    E2B_AGENT_END_INTERRUPTED, /* interrupted (by the user, or a rejected permission) */
    E2B_AGENT_END_FAILED,      /* failed: e2b_agent_status.error says why */
} e2b_agent_end;

typedef enum e2b_agent_reply {
    E2B_AGENT_REPLY_ONCE,   /* allow this once */
    E2B_AGENT_REPLY_ALWAYS, /* allow now and from now on (the server saves the pattern) */
    E2B_AGENT_REPLY_REJECT, /* refuse (the turn ends, interrupted) */
} e2b_agent_reply;

/* "working", "waiting for you", "retrying", "idle", "server down", "paused", "unknown". */
const char *e2b_agent_state_name(e2b_agent_state s);
/* Whether s is a state of a running turn (working, waiting for you, retrying): the states an
 * interrupt acts on. */
bool e2b_agent_state_in_turn(e2b_agent_state s);
/* "done", "interrupted", "failed", "" (none). */
const char *e2b_agent_end_name(e2b_agent_end e);
/* "once", "always", "reject". */
const char *e2b_agent_reply_name(e2b_agent_reply r);
/* Parses "once" / "always" / "reject". Returns 0, or -1 for anything else. */
int e2b_agent_reply_parse(const char *s, e2b_agent_reply *out);

/* A pending permission request or question. */
typedef struct e2b_agent_request {
    char *id;         /* "per_…" (permission) or "que_…" (question) */
    char *session_id;
    bool question;    /* a question (e2b_agent_watch_answer), not a permission */
    char *action;     /* permission: the tool ("bash", "edit"); question: its header */
    char *detail;     /* what exactly: the command, the file, the question's text */
    char *summary;    /* one line: "bash: rm -rf build" */
    bool exact;       /* permission: detail is the server's one command or path unchanged
                       * (not cut, sanitised or joined), so an approval rule may match it
                       * (core/agent/rules.h) */
    char **always;    /* the patterns an "always" reply saves (may be 0) */
    size_t nalways;
    int64_t asked_ms; /* wall clock ms when first seen, 0 unknown */
    /* question: its first question's options (label, and what it means), in the server's
     * order; custom: a typed answer is allowed (OpenCode's default); multiple: several
     * options may be picked; nquestions: how many questions the request asks (the answer
     * goes to the first, the others are answered empty) */
    char **option_labels, **option_descs;
    size_t noptions;
    bool custom, multiple;
    unsigned nquestions;
} e2b_agent_request;

/* Tokens and cost as the server reports them. have_tokens / have_cost: the server said
 * (a figure it did not say is unknown, never 0). */
typedef struct e2b_agent_usage {
    bool have_tokens, have_cost;
    int64_t input, output, reasoning, cache_read, cache_write;
    double cost_usd;
} e2b_agent_usage;

/* a += b (what each side knows). */
void e2b_agent_usage_add(e2b_agent_usage *a, const e2b_agent_usage *b);

/* The part of a box's usage spent on one local day: day_ms is that day's local midnight
 * (wall-clock ms; 0: no figure yet). partial: some of the day's is not in it (a session
 * begun the day before: the server does not tell how its cost splits across the days). */
typedef struct e2b_agent_day {
    int64_t day_ms;
    bool partial;
    e2b_agent_usage usage;
} e2b_agent_day;

/* The local midnight (wall-clock ms) that starts the day of wall_ms. */
int64_t e2b_agent_day_start(int64_t wall_ms);

typedef struct e2b_agent_todo {
    char *content;
    char *status;   /* "pending", "in_progress", "completed", "cancelled" (as the server says) */
    char *priority; /* "high", "medium", "low" or "" */
} e2b_agent_todo;

typedef struct e2b_agent_session {
    char *id;
    char *title;         /* "" when untitled */
    bool busy;           /* running a turn now */
    int64_t updated_ms;  /* wall clock ms of the last change the server reported, 0 unknown */
} e2b_agent_session;

typedef enum e2b_agent_activity_kind {
    E2B_AGENT_ACT_TEXT,  /* assistant text (text holds its tail) */
    E2B_AGENT_ACT_TOOL,  /* a tool call: tool, state, text = its input in one line */
    E2B_AGENT_ACT_ERROR, /* a step failed: text = the error */
    E2B_AGENT_ACT_PROMPT, /* the user's prompt, where its turn begins: text = the prompt */
    E2B_AGENT_ACT_NOTE,  /* e2b-tui's own word: "allowed by rule bash:python3 -m unittest*" */
} e2b_agent_activity_kind;

/* One entry of a session's recent activity, oldest first in e2b_agent_status.activity. */
typedef struct e2b_agent_activity {
    e2b_agent_activity_kind kind;
    char *session_id;
    char *key;     /* the text's or tool call's id (updates go to the same entry) */
    char *tool;    /* TOOL: "bash" */
    char *state;   /* TOOL: "pending", "running", "completed", "error" */
    char *text;    /* sanitised with its newlines kept; at most E2B_AGENT_TAIL_MAX bytes; a view
                      into e2b_agent_status.activity_text (borrowed, never NULL) */
    size_t text_len;
    int64_t at_ms; /* wall clock ms of the last update */
} e2b_agent_activity;

/* Everything about one box's agent. */
typedef struct e2b_agent_status {
    e2b_agent_state state;
    int api;                 /* the OpenCode API watched: 2 (/api/...) or 1 (root routes) */

    /* idle: how and when the last turn ended */
    e2b_agent_end last_end;
    int64_t idle_since_ms;   /* wall clock ms, 0 unknown */
    char *error;             /* failed (or server down): why, in the server's words */

    /* retrying */
    char *retry_message;     /* the provider's message */
    int retry_attempt;
    int64_t retry_next_ms;   /* wall clock ms of the next try, 0 unknown */

    /* the active session (the busy one, else the most recently updated) */
    char *session_id;        /* NULL when there is none */
    char *session_title;     /* "" when untitled */
    e2b_agent_session *sessions; /* most recently updated first */
    size_t nsessions;

    /* the active session's todo list */
    e2b_agent_todo *todos;
    size_t ntodos;           /* kept (at most E2B_AGENT_TODOS_MAX) */
    unsigned todo_done, todo_total; /* of the whole list (completed / all) */

    /* the last step's usage, when the server said it: from its step.ended event, or (v2, a
     * process that saw none) from the newest messages of the active session that have
     * figures; have_step_cost: cost is the server's (1.18.33's v2 prices nothing: 0 for
     * tokens used is unknown) */
    bool have_usage, have_step_cost;
    int64_t tokens_input, tokens_output, tokens_reasoning;
    double cost;
    /* the box's usage over all its sessions: v1, the server's own totals from its session
     * list (each snapshot) plus the steps that ended since (events); v2 (whose session list
     * says 0 in 1.18.33), the steps seen ending while watched (unknown before any) */
    e2b_agent_usage total;
    /* the turn running or last run: the sum of its steps (events; unknown when none seen) */
    e2b_agent_usage turn;
    /* the turn before it, kept when a turn begins (a turn waiting at its first step has no
     * figures of its own yet: the Agent pane shows the last one's meanwhile) */
    e2b_agent_usage last_turn;
    /* today's part of total (the fleet's total for today): v1, the sessions begun today
     * (partial when one begun before was busy today) plus the steps ended since; v2, the
     * steps seen ending today */
    e2b_agent_day today;

    int64_t last_activity_ms; /* wall clock ms of the last event or change (else the active
                                 session's last update as the server tells it), 0 none */
    int64_t state_since_ms;   /* wall clock ms the state began: when this watch saw it change
                                 (idle: the turn's end when known), 0 unknown */
    int64_t turn_started_ms;  /* wall clock ms the turn running now (or the last one) was seen
                                 to start, 0 none seen */
    int64_t last_event_ms;    /* the server's own time of the last event that said one */
    int64_t reply_created_ms; /* the server's time the active session's newest message was
                                 created, when a read of it (watch_end.c) found it an
                                 assistant's answer whose end is known; 0 none read */

    e2b_agent_request *requests; /* pending, oldest first */
    size_t nrequests;

    e2b_agent_activity *activity; /* recent, oldest first (all sessions; filter by id):
                                     E2B_AGENT_ACTIVITY_MAX slots allocated once */
    size_t nactivity;
    char *activity_text;     /* the block every entry's text is in (E2B_AGENT_ACTIVITY_TEXT_CAP
                                bytes, allocated once: core/agent/activity.h) */
    size_t activity_used;    /* its bytes in use (the texts in entry order, each NUL-ended) */

    /* the connection */
    bool stream_up;          /* the event stream is open */
    unsigned reconnects;     /* streams opened after the first */
} e2b_agent_status;

void e2b_agent_request_clear(e2b_agent_request *r);
void e2b_agent_todo_clear(e2b_agent_todo *t);
void e2b_agent_session_clear(e2b_agent_session *s);
/* Frees an entry's own strings (not its text: a view into its status's block). */
void e2b_agent_activity_clear(e2b_agent_activity *a);
void e2b_agent_status_clear(e2b_agent_status *st);
/* A deep copy of src into dst (dst is overwritten). Returns 0, or -1 out of memory (dst is
 * then empty). */
int e2b_agent_status_copy(e2b_agent_status *dst, const e2b_agent_status *src);

/* The state in one line for a row or a script: "waiting for you: bash: rm -rf build",
 * "retrying (attempt 2): rate limited", "idle: failed: model error", "working". Returns the
 * length written (truncated to fit; always NUL-terminated when sz > 0). */
size_t e2b_agent_status_line(const e2b_agent_status *st, char *buf, size_t sz);

/* How long ago wall-clock ms was: "12s", "3m", "2h", "4d"; "" when ms is 0 (unknown) or in
 * the future. */
void e2b_agent_ago(int64_t ms, int64_t now_ms, char *buf, size_t n);

/* A string from the box made safe to keep: at most max bytes (cut at a UTF-8 boundary) and
 * sanitised (keep_newlines for assistant text). s NULL = "". New string; NULL out of memory.
 * tail: keep the last max bytes instead of the first. */
char *e2b_agent_text(const char *s, size_t len, size_t max, bool keep_newlines, bool tail);

#endif
