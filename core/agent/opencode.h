/* A client of one box's OpenCode server, asynchronous on core's loop, behind one interface
 * with two implementations: the v2 API under /api/... (OpenCode 2, config `opencode = 2`, the
 * default) and the v1 root routes (`opencode = 1`, OpenCode 1.x). What each call maps to is
 * in /doc of the server and in the project's reference page on the OpenCode server.
 *
 *   e2b_oc_config oc = {.api = 2, .base_url = port_url, .password = pw};
 *   e2b_oc_client *c = e2b_oc_new(loop, &oc, &err);      // copies oc (secrets wiped on free)
 *   e2b_oc_active(c, on_active, ctx, &err);              // returns at once
 *   e2b_oc_stream *s = e2b_oc_events(c, on_event, on_end, ctx, &err);
 *   ...
 *   e2b_oc_stream_close(s);                              // on_end runs once, CANCELLED
 *   e2b_oc_free(c);                                      // after every call called back
 *
 * Transport: every request goes to the box's port URL with `Authorization: Basic
 * b64(user:password)`, plus `e2b-traffic-access-token` when the sandbox has one and
 * `x-opencode-directory` when a directory is given. The password and token are never
 * logged (log lines name the route only).
 *
 * Callbacks run exactly once per started call, on the loop thread, never from inside the
 * start function. The result handed to a callback is the callback's for the call: it may
 * take any pointer out of it (set it to NULL); the client frees the rest when the callback
 * returns. err is borrowed. A start function returns NULL and sets *err (no callback) only
 * when the call could not be started at all.
 *
 * Everything the server sends is parsed with bounds (core/util/limits.h, core/agent/agent.h)
 * and every string is sanitised before it is handed out. Unknown fields and unknown event
 * types are harmless: events are triggers, the REST snapshot is the truth
 * (core/agent/watch.h). */
#ifndef E2B_OPENCODE_H
#define E2B_OPENCODE_H

#include "core/agent/agent.h"
#include "core/net/loop.h"
#include "core/util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct e2b_oc_client e2b_oc_client;
typedef struct e2b_oc_call e2b_oc_call;
typedef struct e2b_oc_stream e2b_oc_stream;

typedef struct e2b_oc_config {
    int api;                   /* 2 = /api/... (default when 0), 1 = root routes */
    const char *base_url;      /* the box's port URL, e.g. http://4096-<id>.localhost:3000 */
    const char *username;      /* NULL = "opencode" */
    const char *password;      /* the box's server password (a secret), NULL = no auth */
    const char *traffic_token; /* the sandbox's traffic access token (a secret), or NULL */
    const char *directory;     /* the project directory on the box, or NULL */
    long timeout_ms;           /* per REST call; 0 = 30 s (the stream has none) */
} e2b_oc_config;

/* A client (copies cfg). NULL with *err for a bad config or out of memory. */
e2b_oc_client *e2b_oc_new(e2b_loop *loop, const e2b_oc_config *cfg, e2b_error **err);
/* Frees the client. Cancel its calls and streams first: their callbacks may still run
 * later (with E2B_ERR_CANCELLED), and no longer touch the client. */
void e2b_oc_free(e2b_oc_client *c);
int e2b_oc_api(const e2b_oc_client *c);

/* Cancels a call that has not called back: its callback then runs with E2B_ERR_CANCELLED. */
void e2b_oc_cancel(e2b_oc_call *call);

/* ---- results ---- */

/* A session's run state as the server reports it. */
typedef enum e2b_oc_run {
    E2B_OC_IDLE = 0,
    E2B_OC_BUSY,  /* v2 "running", v1 "busy" */
    E2B_OC_RETRY, /* v1 "retry": attempt, message, next */
} e2b_oc_run;

typedef struct e2b_oc_active {
    char *session_id;
    e2b_oc_run run;
    int attempt;       /* RETRY */
    char *message;     /* RETRY: the provider's message, or NULL */
    int64_t next_ms;   /* RETRY: wall clock ms of the next try, 0 unknown */
} e2b_oc_active;

/* One result type for every call; a call fills only its own fields (the rest are 0). */
typedef struct e2b_oc_result {
    long status;                   /* the HTTP status */
    bool healthy;                  /* health */
    char *version;                 /* health (v1 says it), or NULL */
    e2b_agent_session *sessions;   /* sessions: newest first */
    size_t nsessions;
    e2b_agent_usage usage;         /* sessions: the sum of every listed session's figures */
    e2b_agent_day today;           /* sessions: today's part of it (e2b_agent_day) */
    e2b_oc_active *active;         /* active: only sessions that are not idle */
    size_t nactive;
    e2b_agent_request *requests;   /* permissions / questions: pending, oldest first */
    size_t nrequests;
    e2b_agent_todo *todos;         /* todos */
    size_t ntodos;
    char *session_id;              /* prompt: the session it went to (new or given) */
    char *message_id;              /* prompt: the admitted message (v2); last_turn: the
                                      newest message; or NULL */
    e2b_agent_end end;             /* last_turn: how it ended (NONE: not known, or no turn) */
    char *error;                   /* last_turn: FAILED: why, in the server's words */
    int64_t ended_ms;              /* last_turn: the server's time of its end, 0 unknown */
    int64_t created_ms;            /* last_turn: the server's time the newest message was
                                      created (an assistant's), 0 unknown */
    bool unfinished;               /* last_turn: the newest is the assistant's, its end not
                                      written yet (a server may store it after the events) */
    bool unanswered;               /* last_turn: the newest is the user's (no answer began) */
    e2b_agent_usage step;          /* recent: the newest step's figures the server stored */
    int64_t user_ms;               /* recent: the newest user message's time (its turn began) */
    int64_t activity_ms;           /* recent: the latest time the messages tell */
    int64_t tool_wait_ms;          /* recent: the earliest start of a tool call still running in
                                      the newest message (what a request waits on); times are
                                      wall-clock ms, 0 unknown, and only plausible ones */
} e2b_oc_result;

typedef void (*e2b_oc_done_fn)(void *ud, e2b_oc_result *res, const e2b_error *err);

/* Frees every field of res (and zeroes it). */
void e2b_oc_result_clear(e2b_oc_result *res);

/* ---- calls (each returns a handle for e2b_oc_cancel, or NULL with *err) ---- */

/* The server's health route (v2 /api/health, v1 /global/health): healthy when 2xx and
 * {"healthy":true}. A 401 is an E2B_ERR_AUTH error (the password is wrong). */
e2b_oc_call *e2b_oc_health(e2b_oc_client *c, e2b_oc_done_fn done, void *ud, e2b_error **err);
/* The sessions (at most E2B_AGENT_SESSIONS_MAX, most recently updated first); busy is
 * left false (see e2b_oc_active). */
e2b_oc_call *e2b_oc_sessions(e2b_oc_client *c, e2b_oc_done_fn done, void *ud, e2b_error **err);
/* The sessions that are not idle (v2 /api/session/active, v1 /session/status). */
e2b_oc_call *e2b_oc_active_sessions(e2b_oc_client *c, e2b_oc_done_fn done, void *ud,
                                    e2b_error **err);
/* Pending permission requests (v2 /api/permission/request, v1 /permission). */
e2b_oc_call *e2b_oc_permissions(e2b_oc_client *c, e2b_oc_done_fn done, void *ud,
                                e2b_error **err);
/* Pending questions (v2 /api/question/request, v1 /question); question = true. */
e2b_oc_call *e2b_oc_questions(e2b_oc_client *c, e2b_oc_done_fn done, void *ud, e2b_error **err);
/* Replies to permission request_id of session_id (v1 needs no session: may be NULL). */
/* v2: the permissions the server saved from "always" replies (GET /api/permission/saved):
 * res->requests, each with id, action and detail (the resource; exact when kept whole),
 * at most E2B_AGENT_REQUESTS_MAX * 4. v1 has no such route: refused (E2B_ERR_INVALID). */
e2b_oc_call *e2b_oc_saved(e2b_oc_client *c, e2b_oc_done_fn done, void *ud, e2b_error **err);
/* v2: removes saved permission id (DELETE /api/permission/saved/{id}). */
e2b_oc_call *e2b_oc_saved_remove(e2b_oc_client *c, const char *id, e2b_oc_done_fn done,
                                 void *ud, e2b_error **err);
e2b_oc_call *e2b_oc_reply(e2b_oc_client *c, const char *session_id, const char *request_id,
                          e2b_agent_reply reply, e2b_oc_done_fn done, void *ud, e2b_error **err);
/* Answers question request_id of session_id (v1 needs no session: may be NULL) with answer
 * (an option's label or a typed text) for its first question; the request's other questions
 * (nquestions in all) are answered empty. v2 POST /api/session/{sid}/question/{rid}/reply,
 * v1 POST /question/{rid}/reply, both {"answers":[["answer"],[]…]}. */
e2b_oc_call *e2b_oc_answer(e2b_oc_client *c, const char *session_id, const char *request_id,
                           const char *answer, unsigned nquestions, e2b_oc_done_fn done,
                           void *ud, e2b_error **err);
/* Sends text as the next prompt of session_id, or of a new session when session_id is NULL
 * (made first; its id comes back in res->session_id either way). Returns when the server
 * admitted it, not when the turn ends. model: "provider/model", NULL = the configured one
 * (v1 sends it with the message, v2 with the new session: a given v2 session keeps its own). */
e2b_oc_call *e2b_oc_prompt(e2b_oc_client *c, const char *session_id, const char *text,
                           const char *model, e2b_oc_done_fn done, void *ud, e2b_error **err);
/* Interrupts session_id's turn (v2 interrupt, v1 abort). */
e2b_oc_call *e2b_oc_interrupt(e2b_oc_client *c, const char *session_id, e2b_oc_done_fn done,
                              void *ud, e2b_error **err);
/* session_id's todo list (v1 /session/{id}/todo; 1.18.33's v2 has no such route: an empty
 * list comes back, and the todo.updated events are the source). */
e2b_oc_call *e2b_oc_todos(e2b_oc_client *c, const char *session_id, e2b_oc_done_fn done,
                          void *ud, e2b_error **err);

/* How session_id's last turn ended, from its newest message (one page of one message: v2
 * /api/session/{id}/message?limit=1&order=desc, v1 /session/{id}/message?limit=1; a body over
 * E2B_AGENT_MESSAGE_BYTES is an error): res->end DONE, INTERRUPTED (also a rejected
 * permission) or FAILED with res->error; NONE when the newest message is the user's (the
 * answer is still to come) or says nothing yet. res->ended_ms, res->message_id. */
e2b_oc_call *e2b_oc_last_turn(e2b_oc_client *c, const char *session_id, e2b_oc_done_fn done,
                              void *ud, e2b_error **err);
/* What session_id's newest messages tell a process that did not watch them (one page of
 * E2B_OC_RECENT_MESSAGES: v2 /api/session/{id}/message?limit=N&order=desc, v1
 * /session/{id}/message?limit=N; a body over E2B_AGENT_MESSAGE_BYTES is an error): res->step
 * the tokens and cost of the newest assistant message that has them (the last step that
 * ended: one still running has none yet; nothing known when none has), res->user_ms,
 * res->activity_ms, res->tool_wait_ms. */
#define E2B_OC_RECENT_MESSAGES 4
e2b_oc_call *e2b_oc_recent(e2b_oc_client *c, const char *session_id, e2b_oc_done_fn done,
                               void *ud, e2b_error **err);

/* v2 (1.18.33): whether the configured model (GET /config "model", "provider/id") is in the
 * model catalog yet (GET /api/model): a prompt sent before it is lost without an error. res->
 * healthy is true when it is listed, or when no model is configured; v1 always true. */
e2b_oc_call *e2b_oc_model_ready(e2b_oc_client *c, e2b_oc_done_fn done, void *ud,
                                e2b_error **err);

/* ---- the event stream ---- */

typedef enum e2b_oc_event_kind {
    E2B_OC_EV_OTHER = 0,      /* known to be harmless, or unknown */
    E2B_OC_EV_CONNECTED,      /* server.connected (the first frame) */
    E2B_OC_EV_BUSY,           /* a turn started or goes on (session_id) */
    E2B_OC_EV_IDLE,           /* the session went idle (v1 session.idle / status idle) */
    E2B_OC_EV_RETRY,          /* retrying: attempt, text = message, next_ms */
    E2B_OC_EV_SESSION,        /* a session was made or changed: text = its title (or NULL) */
    E2B_OC_EV_SESSION_GONE,   /* a session was deleted */
    E2B_OC_EV_TEXT,           /* assistant text: key = its id, text = the delta (or the
                                 whole text when whole is set) */
    E2B_OC_EV_TOOL,           /* a tool call: key = call id, tool, state, text = input */
    E2B_OC_EV_STEP_ENDED,     /* a step ended: finish, usage (have_usage) */
    E2B_OC_EV_FAILED,         /* the turn failed: text = the error */
    E2B_OC_EV_ASKED,          /* a permission or question: request */
    E2B_OC_EV_REPLIED,        /* answered: request_id (text = the reply) */
    E2B_OC_EV_TODOS,          /* the todo list of session_id: todos */
    E2B_OC_EV_USER_MESSAGE,   /* v1: message_id is the user's (its text parts are not the
                                 assistant's) */
    E2B_OC_EV_PROMPT,         /* v2 session.next.prompted: the user's prompt began a turn
                                 (as BUSY); message_id, text = the prompt */
} e2b_oc_event_kind;

/* One event, normalised from either API. Everything is borrowed for the callback and
 * already sanitised and bounded. */
typedef struct e2b_oc_event {
    e2b_oc_event_kind kind;
    const char *type;        /* the server's own type name (bounded, sanitised) */
    const char *session_id;  /* or NULL */
    const char *key;         /* TEXT / TOOL: the part's or call's id */
    const char *message_id;  /* TEXT, USER_MESSAGE, STEP_ENDED, PROMPT: its message, or NULL */
    const char *text;
    bool whole;              /* TEXT: text is the whole text so far, not a delta */
    const char *tool, *state;
    const char *finish;      /* STEP_ENDED: "stop", "tool-calls", … or NULL */
    const char *request_id;  /* REPLIED */
    const e2b_agent_request *request; /* ASKED */
    const e2b_agent_todo *todos;      /* TODOS */
    size_t ntodos;
    int attempt;             /* RETRY */
    int64_t next_ms;         /* RETRY */
    bool have_usage;         /* STEP_ENDED */
    int64_t tokens_input, tokens_output, tokens_reasoning;
    double cost;
    e2b_agent_usage usage;   /* STEP_ENDED: the same, with the cache and what is known */
    int64_t at_ms;           /* the event's own time (wall clock ms), 0 none */
} e2b_oc_event;

/* Parses one event's JSON (a data: payload) of the given API into *out, whose pointers then
 * point into scratch (cleared by e2b_oc_event_scratch_clear). Pure (a fuzz entry point).
 * Returns 0, or -1 for JSON that is not an event (the event is then to be ignored). */
typedef struct e2b_oc_event_scratch {
    void *json;                  /* private */
    char *strs[24];
    size_t nstrs;
    e2b_agent_request request;
    e2b_agent_todo *todos;
    size_t ntodos;
} e2b_oc_event_scratch;
int e2b_oc_event_parse(int api, const char *json, size_t len, e2b_oc_event *out,
                       e2b_oc_event_scratch *scratch);
void e2b_oc_event_scratch_clear(e2b_oc_event_scratch *scratch);

typedef void (*e2b_oc_event_fn)(void *ud, const e2b_oc_event *ev);
/* The stream ended: err NULL for a clean end of stream, else why (CANCELLED after close). */
typedef void (*e2b_oc_end_fn)(void *ud, const e2b_error *err);

/* Opens the event stream (v2 /api/event, v1 /event): on_event for each event as it comes,
 * then on_end exactly once. No timeout, but a stream silent for longer than 90 s (the
 * servers send heartbeats) ends with E2B_ERR_TIMEOUT. */
e2b_oc_stream *e2b_oc_events(e2b_oc_client *c, e2b_oc_event_fn on_event, e2b_oc_end_fn on_end,
                             void *ud, e2b_error **err);
/* Closes it: on_end runs once (from the loop) with E2B_ERR_CANCELLED; no event after this. */
void e2b_oc_stream_close(e2b_oc_stream *s);

#endif
