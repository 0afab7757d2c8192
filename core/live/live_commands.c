/* Commands on a sandbox by id (pause, resume, kill, extend through core's API) and on the
 * secrets (set through core/e2b/secret_put.h, remove). Each tells its result as a notice
 * and (unless headless) refreshes the lists; its waiter (e2b_live_then) hears its end. A
 * box's kill goes through its operation (live_ops.c). */
#include "core/live/live_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/e2b/secret_put.h"

enum cmd_kind { CMD_STOP, CMD_RESUME, CMD_KILL, CMD_EXTEND, CMD_SECRET_SET, CMD_SECRET_REMOVE };

struct live_cmd {
    e2b_live *m;
    enum cmd_kind kind;
    char name[128]; /* the sandbox's (or secret's) name, for the notice */
    char id[128];   /* the sandbox's id ("" for a secret) */
    long hours;
    long version; /* secret set: the version the put made */
    e2b_live_end *end; /* its waiter (e2b_live_then), or NULL */
};

static const char *doing(enum cmd_kind k)
{
    switch (k) {
    case CMD_STOP: return "pausing";
    case CMD_RESUME: return "resuming";
    case CMD_KILL: return "killing";
    default: return "extending";
    }
}

static const char *cmd_name(enum cmd_kind k)
{
    switch (k) {
    case CMD_STOP: return "stop";
    case CMD_RESUME: return "resume";
    case CMD_KILL: return "kill";
    case CMD_EXTEND: return "extend";
    case CMD_SECRET_SET: return "secret-set";
    default: return "secret-remove";
    }
}

static void finish(struct live_cmd *c, const e2b_error *err, long status, int updated)
{
    e2b_live *m = c->m;
    if (!m->closing) {
        if (err && c->kind == CMD_STOP && err->kind == E2B_ERR_CONFLICT) {
            /* As in the CLI (e2b_box_stop): pausing a paused box is not an error. */
            live_notice(m, E2B_LIVE_INFO, "%s was already paused", c->name);
        } else if (err) {
            live_notice(m, E2B_LIVE_ERROR, "%s", e2b_error_message(err));
        } else {
            switch (c->kind) {
            case CMD_STOP: live_notice(m, E2B_LIVE_INFO, "%s paused", c->name); break;
            case CMD_RESUME:
                live_notice(m, E2B_LIVE_INFO, "%s %s", c->name,
                            status == 201 ? "resumed" : "was already running (timeout extended)");
                break;
            case CMD_KILL: live_notice(m, E2B_LIVE_INFO, "%s killed", c->name); break;
            case CMD_EXTEND:
                live_notice(m, E2B_LIVE_INFO, "%s now ends in %ld hour%s", c->name, c->hours,
                            c->hours == 1 ? "" : "s");
                break;
            case CMD_SECRET_SET: /* the CLI's words (tui/cli/cli.c) */
                live_notice(m, E2B_LIVE_INFO, "%s secret %s (version %ld)",
                            updated ? "updated" : "stored", c->name, c->version);
                break;
            default: live_notice(m, E2B_LIVE_INFO, "secret %s removed", c->name); break;
            }
        }
        if (c->end) {
            c->end->updated = updated;
            c->end->version = c->version;
        }
        live_end(c->end, err, status);
        if ((!err || err->kind != E2B_ERR_CANCELLED) && !m->is_headless)
            e2b_live_refresh_now(m);
    }
    free(c);
}

static void on_status(void *ud, long status, const e2b_error *err)
{
    finish(ud, err, status, 0);
}

static void on_sandbox(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    struct live_cmd *c = ud;
    /* resumed: its agent is watched again at once (headless, no list will say it runs) */
    if (!err && sb && c->kind == CMD_RESUME && !c->m->closing)
        live_agents_resumed(c->m, c->id, sb);
    e2b_sandbox_free(sb);
    finish(ud, err, status, 0);
}

static void on_put(void *ud, e2b_secret *s, int updated, const e2b_error *err)
{
    struct live_cmd *c = ud;
    c->version = s ? (long)s->current_version : 0;
    e2b_secret_free(s);
    finish(ud, err, 0, updated);
}

static struct live_cmd *new_cmd(e2b_live *m, enum cmd_kind k, const char *name)
{
    e2b_live_end *end = live_then_take(m);
    if (!m->client) {
        live_end_fail(end, E2B_ERR_AUTH, "no API key (set E2B_API_KEY)");
        live_notice(m, E2B_LIVE_ERROR, "%s: no API key (set E2B_API_KEY); nothing was changed",
                    cmd_name(k));
        return NULL;
    }
    struct live_cmd *c = calloc(1, sizeof *c);
    if (!c) {
        live_notice(m, E2B_LIVE_ERROR, "%s: out of memory", cmd_name(k));
        live_end_fail(end, E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    c->end = end;
    c->m = m;
    c->kind = k;
    snprintf(c->name, sizeof c->name, "%s", name);
    return c;
}

/* The request started (call != NULL) or did not (err says why). */
static int started(struct live_cmd *c, bool ok, e2b_error *err, const char *what)
{
    if (!ok) {
        live_notice(c->m, E2B_LIVE_ERROR, "%s", err ? e2b_error_message(err) : "out of memory");
        if (err)
            live_end(c->end, err, 0);
        else
            live_end_fail(c->end, E2B_ERR_INTERNAL, "out of memory");
        e2b_error_free(err);
        free(c);
        return -1;
    }
    live_notice(c->m, E2B_LIVE_INFO, "%s...", what);
    return 0;
}

static int sandbox_cmd(e2b_live *m, enum cmd_kind k, const char *id, long hours)
{
    char why[300];
    if (live_op_busy(m, id, NULL, why, sizeof why)) {
        live_notice(m, E2B_LIVE_ERROR, "%s: %s", cmd_name(k), why);
        live_end_fail(live_then_take(m), E2B_ERR_CONFLICT, why);
        return -1;
    }
    const e2b_sandbox *sb = e2b_live_sandbox(m, id);
    if (!sb) /* headless: the sandbox its agent's watch asked for */
        sb = live_agent_sandbox(m, id);
    struct live_cmd *c = new_cmd(m, k, sb ? e2b_live_sandbox_name(sb) : id);
    if (!c)
        return -1;
    snprintf(c->id, sizeof c->id, "%s", id);
    c->hours = hours;
    e2b_error *err = NULL;
    e2b_api_call *call = NULL;
    switch (k) {
    case CMD_STOP: call = e2b_api_pause(m->client, id, on_status, c, &err); break;
    case CMD_KILL: call = e2b_api_kill(m->client, id, on_status, c, &err); break;
    case CMD_RESUME:
        /* A box gets its own lifetime again (its up's hours), others the configured one. */
        call = e2b_api_connect(m->client, id, (hours ? hours : e2b_box_hours(sb, &m->cfg)) * 3600L,
                               on_sandbox, c, &err);
        break;
    default: call = e2b_api_set_timeout(m->client, id, hours * 3600, on_status, c, &err); break;
    }
    char what[200];
    snprintf(what, sizeof what, "%s %s", doing(k), c->name);
    return started(c, call != NULL, err, what);
}

int e2b_live_stop(e2b_live *m, const char *sandbox_id)
{
    return sandbox_cmd(m, CMD_STOP, sandbox_id, 0);
}

int e2b_live_resume(e2b_live *m, const char *sandbox_id, int hours)
{
    return sandbox_cmd(m, CMD_RESUME, sandbox_id, hours);
}

int e2b_live_extend(e2b_live *m, const char *sandbox_id, int hours)
{
    return sandbox_cmd(m, CMD_EXTEND, sandbox_id, hours);
}

int e2b_live_kill(e2b_live *m, const char *sandbox_id)
{
    /* A box is killed by the boxes' step machine: its record and password go too. */
    const e2b_sandbox *sb = e2b_live_sandbox(m, sandbox_id);
    if (sb && sb->kind == E2B_KIND_BOX && sb->box_name && *sb->box_name)
        return e2b_live_box_op(m, E2B_LIVE_OP_KILL, sandbox_id) ? 0 : -1;
    return sandbox_cmd(m, CMD_KILL, sandbox_id, 0);
}

int e2b_live_secret_set(e2b_live *m, const char *name, const char *value)
{
    struct live_cmd *c = new_cmd(m, CMD_SECRET_SET, name);
    if (!c)
        return -1;
    e2b_error *err = NULL;
    e2b_secret_put *p = e2b_secret_put_start(m->client, name, value, on_put, c, &err);
    char what[200];
    snprintf(what, sizeof what, "storing secret %s", c->name);
    return started(c, p != NULL, err, what);
}

int e2b_live_secret_remove(e2b_live *m, const char *name)
{
    struct live_cmd *c = new_cmd(m, CMD_SECRET_REMOVE, name);
    if (!c)
        return -1;
    e2b_error *err = NULL;
    e2b_api_call *call = e2b_api_secret_delete(m->client, name, on_status, c, &err);
    char what[200];
    snprintf(what, sizeof what, "removing secret %s", c->name);
    return started(c, call != NULL, err, what);
}
