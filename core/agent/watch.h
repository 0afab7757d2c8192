/* Watches one box's agent and keeps its e2b_agent_status current (core/agent/agent.h).
 *
 *   e2b_agent_watch *w = e2b_agent_watch_new(loop, &oc, on_change, ctx, &err);
 *   ... on_change(ctx) after every change; e2b_agent_watch_status(w) is the state ...
 *   e2b_agent_watch_set_paused(w, true);    // the sandbox paused: stream closed, "paused"
 *   e2b_agent_watch_free(w);                // closes everything; no callback after this
 *
 * How: health first; when it answers, the event stream is opened and, once it is up, a
 * REST snapshot (active sessions, pending permissions and questions, sessions, todos) is
 * taken, so nothing that happened while disconnected is lost. Events update the status at
 * once where their meaning is known, and trigger a debounced snapshot where the state may
 * have changed (the snapshot is the truth; unknown events are harmless). No polling while
 * the stream is up, but one: a box "working" or "retrying" whose stream says nothing for
 * 5 s gets a snapshot, the next after twice the silence (up to 60 s), since a turn can end
 * with no event (v2: interrupted before its first step). When the stream or the server goes, it reconnects with backoff
 * (0.5 s doubling to 30 s, reset by a stream that stayed up); a server that does not answer
 * is "server down". Nothing here blocks.
 *
 * Commands go through the watch's client and call back once with the result. */
#ifndef E2B_AGENT_WATCH_H
#define E2B_AGENT_WATCH_H

#include "core/agent/agent.h"
#include "core/agent/opencode.h"

typedef struct e2b_agent_watch e2b_agent_watch;

typedef void (*e2b_agent_watch_fn)(void *ud);

/* Starts watching (copies oc). NULL with *err for a bad config or out of memory. */
e2b_agent_watch *e2b_agent_watch_new(e2b_loop *loop, const e2b_oc_config *oc,
                                     e2b_agent_watch_fn on_change, void *ud, e2b_error **err);
/* Stops everything at once: calls in flight are cancelled; a command still in flight calls
 * its done later (from the loop) with E2B_ERR_CANCELLED, without the watch. */
void e2b_agent_watch_free(e2b_agent_watch *w);

/* The current status (owned by the watch; valid until its next change). */
const e2b_agent_status *e2b_agent_watch_status(const e2b_agent_watch *w);
/* Whether a snapshot has been taken since the stream (re)opened: the status is complete. */
bool e2b_agent_watch_synced(const e2b_agent_watch *w);
/* The sandbox paused (true: stream closed, state "paused") or runs again (reconnects). */
void e2b_agent_watch_set_paused(e2b_agent_watch *w, bool paused);
/* The watch's client, for calls of its own (borrowed: valid while the watch is). */
e2b_oc_client *e2b_agent_watch_client(const e2b_agent_watch *w);

/* Adds e2b-tui's own line to session_id's activity (E2B_AGENT_ACT_NOTE: "allowed by rule
 * ..."; text is copied, sanitised and bounded). No callback: the caller tells its own. */
void e2b_agent_watch_note(e2b_agent_watch *w, const char *session_id, const char *text);

/* The saved "always" permissions (v2; opencode.h e2b_oc_saved): done gets them (borrowed
 * for the call: id, action, detail) or why not; with remove_id, that one is removed first
 * (DELETE) and done gets none. Returns 0, or -1 with *err (v1: no such route). */
typedef void (*e2b_agent_saved_fn)(void *ud, const e2b_agent_request *saved, size_t n,
                                   const e2b_error *err);
int e2b_agent_watch_saved(e2b_agent_watch *w, const char *remove_id, e2b_agent_saved_fn done,
                          void *ud, e2b_error **err);

/* The command ends: err NULL on success; session_id is the prompt's session (else NULL). */
typedef void (*e2b_agent_cmd_fn)(void *ud, const char *session_id, const e2b_error *err);

/* Replies to permission request_id (NULL = the oldest pending permission request). */
int e2b_agent_watch_reply(e2b_agent_watch *w, const char *request_id, e2b_agent_reply reply,
                          e2b_agent_cmd_fn done, void *ud, e2b_error **err);
/* Answers question request_id (NULL = the oldest pending question) with option (1-based: its
 * label is the answer) or, when option is 0, with text (refused when the question allows
 * only its options and text is none of their labels). Replies to a permission are refused. */
int e2b_agent_watch_answer(e2b_agent_watch *w, const char *request_id, const char *text,
                           int option, e2b_agent_cmd_fn done, void *ud, e2b_error **err);
/* Sends text to session_id, or the active session when session_id is NULL, or a new
 * session when new_session (or when there is none); model "provider/model" or NULL (the
 * configured one; opencode.h e2b_oc_prompt). */
int e2b_agent_watch_prompt(e2b_agent_watch *w, const char *session_id, bool new_session,
                           const char *text, const char *model, e2b_agent_cmd_fn done,
                           void *ud, e2b_error **err);
/* Interrupts the busy sessions (the active one when none is known busy). */
int e2b_agent_watch_interrupt(e2b_agent_watch *w, e2b_agent_cmd_fn done, void *ud,
                              e2b_error **err);

#endif
