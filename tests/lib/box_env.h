/* The set-up shared by the box operation tests (tests/integration/box_*.c): the config from
 * the environment (E2B_*, XDG_*), a loop, an API client on it and an in-memory keystore,
 * bundled as the e2b_box_env the box calls take. One per program; tests only. */
#ifndef E2B_TEST_BOX_ENV_H
#define E2B_TEST_BOX_ENV_H

#include <stddef.h>

#include "core/box/box.h"

typedef struct t_box_env {
    e2b_config cfg;
    e2b_loop *loop;
    e2b_client *client;
    struct keystore *ks;
    e2b_box_env env; /* points at the four above */
} t_box_env;

/* Fills *t; returns 0, or -1 after saying on stderr what failed (t is then cleaned up). */
int t_box_env_open(t_box_env *t);
/* Frees what t_box_env_open made, after the keystore's jobs (bounded wait) are done. */
void t_box_env_close(t_box_env *t);

/* How many sandboxes the API lists (999 when the list call fails). */
size_t t_box_sandbox_count(t_box_env *t);

#endif
