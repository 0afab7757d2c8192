/* tests/lib/box_env.h */
#include "tests/lib/box_env.h"

#include <stdio.h>
#include <string.h>

#include "keystore/keystore.h"
#include "tests/lib/sync_calls.h"

int t_box_env_open(t_box_env *t)
{
    memset(t, 0, sizeof *t);
    e2b_config_init(&t->cfg);
    e2b_error *err = e2b_config_load(&t->cfg, NULL);
    if (err) {
        fprintf(stderr, "config: %s\n", e2b_error_message(err));
        e2b_error_free(err);
        e2b_config_clear(&t->cfg);
        return -1;
    }
    t->loop = e2b_loop_new();
    if (t->loop)
        t->client = e2b_client_new(t->loop, &t->cfg, &err);
    if (!t->client) {
        fprintf(stderr, "client: %s\n", err ? e2b_error_message(err) : "out of memory");
        e2b_error_free(err);
        t_box_env_close(t);
        return -1;
    }
    ks_error kerr;
    t->ks = keystore_open_memory(&kerr);
    if (!t->ks) {
        fprintf(stderr, "keystore: cannot open the in-memory keystore\n");
        t_box_env_close(t);
        return -1;
    }
    t->env = (e2b_box_env){.loop = t->loop, .client = t->client, .cfg = &t->cfg, .ks = t->ks};
    return 0;
}

void t_box_env_close(t_box_env *t)
{
    if (t->client)
        e2b_client_free(t->client);
    if (t->ks)
        keystore_close(t->ks);
    if (t->loop)
        e2b_loop_free(t->loop);
    keystore_jobs_drain(2000);
    e2b_config_clear(&t->cfg);
    memset(t, 0, sizeof *t);
}

size_t t_box_sandbox_count(t_box_env *t)
{
    e2b_sandbox_list list = {0};
    e2b_error *err = t_api_list(t->client, &(e2b_list_query){0}, &list);
    size_t n = err ? 999 : list.count;
    e2b_error_free(err);
    e2b_sandbox_list_clear(&list);
    return n;
}
