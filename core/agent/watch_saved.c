/* The server's saved "always" permissions through a watch (watch.h e2b_agent_watch_saved):
 * one call each, counted as the watch's outstanding callbacks, so a watch freed meanwhile
 * waits for it and the caller hears E2B_ERR_CANCELLED. */
#include "core/agent/watch_internal.h"

#include <stdlib.h>

struct saved_call {
    e2b_agent_watch *w;
    e2b_agent_saved_fn done;
    void *ud;
};

static void on_saved(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    struct saved_call *s = ud;
    if (watch_cb_enter(s->w)) {
        e2b_error *e = e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
        s->done(s->ud, NULL, 0, e);
        e2b_error_free(e);
    } else {
        s->done(s->ud, res && !err ? res->requests : NULL, res && !err ? res->nrequests : 0, err);
    }
    free(s);
}

int e2b_agent_watch_saved(e2b_agent_watch *w, const char *remove_id, e2b_agent_saved_fn done,
                          void *ud, e2b_error **err)
{
    struct saved_call *s = calloc(1, sizeof *s);
    if (!s) {
        if (err)
            *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return -1;
    }
    s->w = w;
    s->done = done;
    s->ud = ud;
    e2b_oc_call *call = remove_id ? e2b_oc_saved_remove(w->client, remove_id, on_saved, s, err)
                                  : e2b_oc_saved(w->client, on_saved, s, err);
    if (!call) {
        free(s);
        return -1;
    }
    w->outstanding++;
    return 0;
}
