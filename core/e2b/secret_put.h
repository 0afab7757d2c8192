/* Setting a secret whether or not it exists: create it, and when E2B answers 409 (the name
 * is taken) update it instead. The one path for the one-shot --secrets set and the
 * dashboard, so neither decides from a list that may be stale.
 *
 *   e2b_secret_put *p = e2b_secret_put_start(client, "anthropic", value, on_put, ud, &err);
 *   ... the loop runs; on_put(ud, secret, updated, err) runs exactly once ...
 *   e2b_secret_put_cancel(p);   // before on_put: on_put then runs with E2B_ERR_CANCELLED
 *
 * The value is copied for the second request and wiped when the operation ends; it is never
 * logged. The secret handed to on_put is the callee's (free it with e2b_secret_free). */
#ifndef E2B_SECRET_PUT_H
#define E2B_SECRET_PUT_H

#include "core/e2b/api.h"

typedef struct e2b_secret_put e2b_secret_put;

/* updated: 1 when the secret existed and was updated, 0 when it was created. */
typedef void (*e2b_secret_put_fn)(void *ud, e2b_secret *secret, int updated,
                                  const e2b_error *err);

/* NULL with *err when the first request cannot start (on_put is not called then). */
e2b_secret_put *e2b_secret_put_start(e2b_client *c, const char *name, const char *value,
                                     e2b_secret_put_fn fn, void *ud, e2b_error **err);
void e2b_secret_put_cancel(e2b_secret_put *p);

#endif
