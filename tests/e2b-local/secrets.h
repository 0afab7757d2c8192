/* The /secrets API: values are stored in STATE/secrets.json (mode 0600) and never returned. */
#ifndef E2B_LOCAL_SECRETS_H
#define E2B_LOCAL_SECRETS_H

#include "http.h"

void secrets_load(void);
void secrets_free(void);
/* Handles /secrets and /secrets/{idOrName} (path as received). */
enum MHD_Result secrets_handle(struct req *r);
/* The value of the secret named (or with the id) name, for the egress proxy: a copy the
 * caller wipes and frees, or NULL when there is none. */
char *secrets_value(const char *name);

#endif
