/* Commands through a watch (reply, answer, prompt, interrupt: core/agent/watch.h). Each is one
 * client call (an interrupt one per busy session); when it ends, a snapshot follows so the
 * status does not wait for the events. */
#include "core/agent/watch_internal.h"

#include <stdlib.h>
#include <string.h>

struct watch_cmd;
struct cmd_slot {
    struct watch_cmd *cmd;
    int i;
};

struct watch_cmd {
    e2b_agent_watch *w;
    struct cmd_slot slots[8];
    e2b_agent_cmd_fn done;
    void *ud;
    e2b_oc_call *calls[8];
    int pending, nstarted;
    e2b_error *err;
    char *session_id;
    bool interrupt;          /* the turn ends interrupted, even before its first step */
    bool soft[8];            /* the call's failure does not fail the command (a reject that
                                the interrupt made needless) */
    struct watch_cmd *next;
};

static void unlink_cmd(e2b_agent_watch *w, struct watch_cmd *cmd)
{
    for (struct watch_cmd **p = &w->cmds; *p; p = &(*p)->next)
        if (*p == cmd) {
            *p = cmd->next;
            return;
        }
}

static void cmd_free(struct watch_cmd *cmd)
{
    e2b_error_free(cmd->err);
    free(cmd->session_id);
    free(cmd);
}

static void on_cmd(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    struct cmd_slot *slot = ud;
    struct watch_cmd *cmd = slot->cmd;
    e2b_agent_watch *w = cmd->w;
    cmd->calls[slot->i] = NULL;
    cmd->pending--;
    if (watch_cb_enter(w)) {
        /* the watch is gone: the command ends cancelled, without touching it */
        if (cmd->pending == 0) {
            e2b_error *e = e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
            if (cmd->done)
                cmd->done(cmd->ud, NULL, e);
            e2b_error_free(e);
            cmd_free(cmd);
        }
        return;
    }
    if (err && !cmd->err && !cmd->soft[slot->i])
        cmd->err = e2b_error_copy(err);
    if (!err && res && res->session_id && !cmd->session_id)
        cmd->session_id = strdup(res->session_id);
    if (cmd->pending > 0)
        return;
    unlink_cmd(w, cmd);
    if (cmd->interrupt && !cmd->err && w->in_turn)
        w->turn_interrupted = true; /* (a turn stopped before a step says nothing itself) */
    watch_snapshot_soon(w, 0);
    if (cmd->done)
        cmd->done(cmd->ud, cmd->err ? NULL : cmd->session_id, cmd->err);
    cmd_free(cmd);
}

static struct watch_cmd *cmd_new(e2b_agent_watch *w, e2b_agent_cmd_fn done, void *ud,
                                 e2b_error **err)
{
    struct watch_cmd *cmd = calloc(1, sizeof *cmd);
    if (!cmd) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    cmd->w = w;
    cmd->done = done;
    cmd->ud = ud;
    for (int i = 0; i < 8; i++)
        cmd->slots[i] = (struct cmd_slot){cmd, i};
    return cmd;
}

/* Files a started call (NULL: not started, *err set). Returns 0 or -1. */
static int cmd_add(struct watch_cmd *cmd, e2b_oc_call *call)
{
    if (!call)
        return -1;
    cmd->calls[cmd->nstarted++] = call;
    cmd->pending++;
    cmd->w->outstanding++;
    return 0;
}

#define NEXT(cmd) (&(cmd)->slots[(cmd)->nstarted])

static int cmd_go(struct watch_cmd *cmd, e2b_error **err)
{
    if (cmd->nstarted == 0) {
        cmd_free(cmd);
        return -1;
    }
    if (err && *err) { /* some calls started: they carry the command */
        e2b_error_free(*err);
        *err = NULL;
    }
    cmd->next = cmd->w->cmds;
    cmd->w->cmds = cmd;
    return 0;
}

static bool refuse(e2b_agent_watch *w, e2b_error **err)
{
    if (w->paused) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "the box is paused: resume it first");
        return true;
    }
    return false;
}

int e2b_agent_watch_reply(e2b_agent_watch *w, const char *request_id, e2b_agent_reply reply,
                          e2b_agent_cmd_fn done, void *ud, e2b_error **err)
{
    if (refuse(w, err))
        return -1;
    const e2b_agent_request *r = NULL;
    for (size_t i = 0; i < w->st.nrequests; i++) /* (the oldest: permissions only) */
        if (request_id ? !strcmp(w->st.requests[i].id, request_id) : !w->st.requests[i].question) {
            r = &w->st.requests[i];
            break;
        }
    if (!r) {
        if (err)
            *err = e2b_error_new(E2B_ERR_NOT_FOUND, request_id ? "no pending request %s"
                                                               : "nothing is waiting for a reply",
                                 request_id);
        return -1;
    }
    if (r->question) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "the agent asks a question (%s): answer it, "
                                                  "not reply to it", r->summary);
        return -1;
    }
    struct watch_cmd *cmd = cmd_new(w, done, ud, err);
    if (!cmd)
        return -1;
    cmd_add(cmd, e2b_oc_reply(w->client, r->session_id, r->id, reply, on_cmd, NEXT(cmd), err));
    return cmd_go(cmd, err);
}

int e2b_agent_watch_answer(e2b_agent_watch *w, const char *request_id, const char *text,
                           int option, e2b_agent_cmd_fn done, void *ud, e2b_error **err)
{
    if (refuse(w, err))
        return -1;
    const e2b_agent_request *r = NULL;
    for (size_t i = 0; i < w->st.nrequests; i++) /* (the oldest: questions only) */
        if (request_id ? !strcmp(w->st.requests[i].id, request_id) : w->st.requests[i].question) {
            r = &w->st.requests[i];
            break;
        }
    if (!r) {
        if (err)
            *err = e2b_error_new(E2B_ERR_NOT_FOUND, request_id ? "no pending question %s"
                                                               : "the agent asks no question",
                                 request_id);
        return -1;
    }
    if (!r->question) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "%s is a permission request (%s): reply to it "
                                                  "(once, always or reject)", r->id, r->summary);
        return -1;
    }
    const char *answer = text;
    if (option) {
        if (option < 1 || (size_t)option > r->noptions) {
            if (err)
                *err = r->noptions
                    ? e2b_error_new(E2B_ERR_INVALID, "the question has options 1 to %zu, not %d",
                                    r->noptions, option)
                    : e2b_error_new(E2B_ERR_INVALID, "the question has no options: answer "
                                                     "with text");
            return -1;
        }
        answer = r->option_labels[option - 1];
    } else if (!text || !*text) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INVALID, "the answer is empty");
        return -1;
    } else if (!r->custom) {
        bool listed = false;
        for (size_t i = 0; i < r->noptions && !listed; i++)
            listed = !strcmp(r->option_labels[i], text);
        if (!listed) {
            if (err)
                *err = e2b_error_new(E2B_ERR_INVALID, "the question takes only one of its %zu "
                                                      "options (no typed answer)", r->noptions);
            return -1;
        }
    }
    struct watch_cmd *cmd = cmd_new(w, done, ud, err);
    if (!cmd)
        return -1;
    cmd_add(cmd, e2b_oc_answer(w->client, r->session_id, r->id, answer, r->nquestions, on_cmd,
                               NEXT(cmd), err));
    return cmd_go(cmd, err);
}

int e2b_agent_watch_prompt(e2b_agent_watch *w, const char *session_id, bool new_session,
                           const char *text, const char *model, e2b_agent_cmd_fn done,
                           void *ud, e2b_error **err)
{
    if (refuse(w, err))
        return -1;
    const char *sid = new_session ? NULL : session_id ? session_id : w->st.session_id;
    struct watch_cmd *cmd = cmd_new(w, done, ud, err);
    if (!cmd)
        return -1;
    cmd_add(cmd, e2b_oc_prompt(w->client, sid, text, model, on_cmd, NEXT(cmd), err));
    return cmd_go(cmd, err);
}

static bool sid_in(const char *const *sids, int n, const char *sid)
{
    for (int i = 0; i < n; i++)
        if (sid && !strcmp(sids[i], sid))
            return true;
    return false;
}

/* An interrupt stops the busy sessions (the active one when none is known busy) and rejects
 * their pending permission requests: a server may keep listing a request of a session it
 * aborted (1.18.33's v1 does), which would leave the box "waiting" with no turn behind it. A
 * session with a pending request counts as busy. */
int e2b_agent_watch_interrupt(e2b_agent_watch *w, e2b_agent_cmd_fn done, void *ud,
                              e2b_error **err)
{
    if (refuse(w, err))
        return -1;
    struct watch_cmd *cmd = cmd_new(w, done, ud, err);
    if (!cmd)
        return -1;
    cmd->interrupt = true;
    const char *sids[8];
    int nsids = 0;
    for (size_t i = 0; i < w->nactive && nsids < 8; i++)
        if (!sid_in(sids, nsids, w->active[i].session_id))
            sids[nsids++] = w->active[i].session_id;
    for (size_t i = 0; i < w->st.nrequests && nsids < 8; i++)
        if (!w->st.requests[i].question && w->st.requests[i].session_id &&
            !sid_in(sids, nsids, w->st.requests[i].session_id))
            sids[nsids++] = w->st.requests[i].session_id;
    if (nsids == 0 && w->st.session_id)
        sids[nsids++] = w->st.session_id;
    if (nsids == 0) {
        if (err)
            *err = e2b_error_new(E2B_ERR_NOT_FOUND, "the agent has no session to interrupt");
        cmd_free(cmd);
        return -1;
    }
    /* the rejects first (each may fail harmlessly: the abort may have cleared it) */
    for (size_t i = 0; i < w->st.nrequests && cmd->nstarted < 8 - nsids; i++) {
        const e2b_agent_request *r = &w->st.requests[i];
        if (r->question || !sid_in(sids, nsids, r->session_id))
            continue;
        int k = cmd->nstarted;
        e2b_error *rerr = NULL;
        if (cmd_add(cmd, e2b_oc_reply(w->client, r->session_id, r->id, E2B_AGENT_REPLY_REJECT,
                                      on_cmd, NEXT(cmd), &rerr)) == 0)
            cmd->soft[k] = true;
        e2b_error_free(rerr);
    }
    int hard = 0;
    for (int i = 0; i < nsids && cmd->nstarted < 8; i++)
        if (cmd_add(cmd, e2b_oc_interrupt(w->client, sids[i], on_cmd, NEXT(cmd), err)) == 0)
            hard++;
        else
            break;
    if (hard == 0 && cmd->nstarted > 0) {
        /* the interrupt could not start: the command fails, after its rejects end */
        cmd->err = err && *err ? e2b_error_copy(*err)
                               : e2b_error_new(E2B_ERR_INTERNAL, "the interrupt could not start");
    }
    return cmd_go(cmd, err);
}

void watch_cmds_cancel(e2b_agent_watch *w)
{
    for (struct watch_cmd *c = w->cmds; c; c = c->next)
        for (int i = 0; i < 8; i++)
            e2b_oc_cancel(c->calls[i]);
    w->cmds = NULL; /* each frees itself when its calls end */
}
