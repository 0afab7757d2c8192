#include "core/e2b/secret_put.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/str.h"

struct e2b_secret_put {
    e2b_client *client;
    char *name;
    char *value; /* wiped on free */
    e2b_secret_put_fn fn;
    void *ud;
    e2b_api_call *call;
    int updating;
};

static void put_free(e2b_secret_put *p)
{
    free(p->name);
    e2b_wipe_free(p->value);
    free(p);
}

static void on_reply(void *ud, e2b_secret *s, const e2b_error *err)
{
    e2b_secret_put *p = ud;
    p->call = NULL;
    if (err && err->kind == E2B_ERR_CONFLICT && !p->updating) {
        /* The name exists: the same value goes to the update (metadata kept). */
        e2b_secret_free(s);
        e2b_error *e = NULL;
        p->updating = 1;
        p->call = e2b_api_secret_update(p->client, p->name, p->value, NULL, on_reply, p, &e);
        if (p->call) {
            return;
        }
        p->fn(p->ud, NULL, 1, e);
        e2b_error_free(e);
        put_free(p);
        return;
    }
    p->fn(p->ud, s, p->updating, err);
    put_free(p);
}

e2b_secret_put *e2b_secret_put_start(e2b_client *c, const char *name, const char *value,
                                     e2b_secret_put_fn fn, void *ud, e2b_error **err)
{
    e2b_secret_put *p = calloc(1, sizeof *p);
    if (p) {
        p->name = strdup(name);
        p->value = strdup(value);
    }
    if (!p || !p->name || !p->value) {
        if (p)
            put_free(p);
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    p->client = c;
    p->fn = fn;
    p->ud = ud;
    p->call = e2b_api_secret_create(c, name, value, NULL, on_reply, p, err);
    if (!p->call) {
        put_free(p);
        return NULL;
    }
    return p;
}

void e2b_secret_put_cancel(e2b_secret_put *p)
{
    if (p && p->call)
        e2b_api_cancel(p->call); /* its callback runs with CANCELLED and frees p */
}
