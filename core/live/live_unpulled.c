#include "core/live/live_unpulled.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/live/live_internal.h"
#include "core/util/sanitize.h"

enum { SHUTDOWN_MS = 2000 };

struct live_unpulled {
    e2b_live *m;
    struct live_unpulled *next;
    e2b_box_op *op; /* the look; kept until closed (its result is read in on_done) */
    char name[128];
    bool done;
    e2b_unpulled_state state;
    char text[400];
};

static void set_text(struct live_unpulled *u, const char *text)
{
    char *safe = e2b_sanitize_display(text, strlen(text), 0); /* it quotes the box */
    snprintf(u->text, sizeof u->text, "%s", safe ? safe : "");
    free(safe);
}

static void on_done(void *ud, e2b_box_op *op, const e2b_error *err)
{
    struct live_unpulled *u = ud;
    char text[sizeof u->text];
    u->done = true;
    if (err) {
        u->state = E2B_UNPULLED_UNKNOWN;
        snprintf(text, sizeof text, "%s: unpulled work unknown (%s)", u->name,
                 e2b_error_message(err));
    } else {
        const e2b_unpulled *r = &e2b_box_op_result(op)->unpulled;
        u->state = r->state;
        e2b_box_unpulled_text(u->name, r, text, sizeof text);
    }
    set_text(u, text);
    if (!u->m->closing)
        live_notify(u->m, E2B_LIVE_UNPULLED);
}

struct live_unpulled *e2b_live_unpulled_open(e2b_live *m, const char *sandbox_id)
{
    struct live_unpulled *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->m = m;
    u->state = E2B_UNPULLED_UNKNOWN;
    u->next = m->unpulled;
    m->unpulled = u;
    const e2b_sandbox *sb = e2b_live_sandbox(m, sandbox_id);
    if (!sb || !sb->box_name || !*sb->box_name) {
        u->done = true;
        set_text(u, "not a box: unpulled work unknown");
        return u;
    }
    snprintf(u->name, sizeof u->name, "%s", sb->box_name);
    if (!m->client) {
        u->done = true;
        set_text(u, "no API key: unpulled work unknown");
        return u;
    }
    e2b_box_env env = {.loop = m->loop, .client = m->client, .cfg = &m->cfg,
                       .sandbox_id = sandbox_id};
    e2b_error *err = NULL;
    u->op = e2b_box_unpulled(&env, u->name, 0, NULL, on_done, u, &err);
    if (!u->op) {
        u->done = true;
        set_text(u, err ? e2b_error_message(err) : "out of memory");
        e2b_error_free(err);
        return u;
    }
    set_text(u, "checking for unpulled work...");
    return u;
}

static void unlink_look(e2b_live *m, struct live_unpulled *u)
{
    for (struct live_unpulled **pp = &m->unpulled; *pp; pp = &(*pp)->next) {
        if (*pp == u) {
            *pp = u->next;
            return;
        }
    }
}

void e2b_live_unpulled_close(struct live_unpulled *u)
{
    if (!u)
        return;
    unlink_look(u->m, u);
    e2b_box_op_free(u->op); /* one on its way is cancelled and frees itself; done is not called */
    free(u);
}

const char *e2b_live_unpulled_text(const struct live_unpulled *u, e2b_unpulled_state *state,
                               bool *done)
{
    if (state)
        *state = u->done ? u->state : E2B_UNPULLED_UNKNOWN;
    if (done)
        *done = u->done;
    return u->text;
}

void live_unpulled_shutdown(e2b_live *m)
{
    /* Looks nobody closed: cancelled, given a moment to end (a worker thread may be reading
     * the local project), then freed with their memory. */
    for (struct live_unpulled *u = m->unpulled; u; u = u->next)
        if (!u->done)
            e2b_box_op_cancel(u->op);
    int64_t end = e2b_now_ms() + SHUTDOWN_MS;
    bool waiting = true;
    while (waiting && e2b_now_ms() < end) {
        waiting = false;
        for (struct live_unpulled *u = m->unpulled; u; u = u->next)
            waiting = waiting || !u->done;
        if (waiting)
            e2b_loop_run_once(m->loop, 100);
    }
    while (m->unpulled)
        e2b_live_unpulled_close(m->unpulled);
}
