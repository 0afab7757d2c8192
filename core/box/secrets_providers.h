/* Model providers whose API keys are kept as E2B secrets (README.md, "Using it"), and the
 * network rules that let a box use them without ever seeing the value.
 *
 * A secret named like a known provider (anthropic, openai, openrouter) gets that
 * provider's host, header and environment variable; any other name is allowed as a secret
 * but has no rule (the user adds rules elsewhere). Nothing here does I/O. */
#ifndef E2B_SECRETS_PROVIDERS_H
#define E2B_SECRETS_PROVIDERS_H

#include "core/e2b/objects.h"

#include <stdbool.h>

#include <jansson.h>
#include <stdio.h>
#include <time.h>

typedef struct e2b_provider {
    const char *name;    /* "anthropic": also the secret's name */
    const char *host;    /* "api.anthropic.com" */
    const char *header;  /* "x-api-key" */
    const char *prefix;  /* what goes before the key in the header ("Bearer "), or "" */
    const char *env_var; /* "ANTHROPIC_API_KEY": where `--secrets set` reads the value and
                            where a box gets the placeholder */
} e2b_provider;

/* The provider of that secret name (case-insensitive), or NULL. Static storage. */
const e2b_provider *e2b_provider_find(const char *name);

/* Whether name is acceptable as a secret name: non-empty, at most 128 bytes, no '{', '}',
 * whitespace or control characters, not starting with "sec_". */
int e2b_secret_name_valid(const char *name);
/* That rule in words, for the message that refuses a name (the CLI's and the dashboard's). */
#define E2B_SECRET_NAME_RULE "no spaces, braces or control characters; 'sec_' is reserved"

/* The host a secret of that name is sent to (its provider's), or "(no rule)". Static. */
const char *e2b_secret_host(const char *name);
/* A secret's time for people: "2026-12-01 14:05" (local time), "-" when unknown. */
void e2b_secret_time_text(time_t t, char *buf, size_t bufsz);
/* The `--secrets list --json` document (version 1; fields are only ever added):
 *   {"version":1,"secrets":[{"name","hosts":["api.anthropic.com"],"version":N,
 *    "created_at","updated_at"}]}   (times RFC 3339 UTC or null; never a value) */
/* In the one style (core/util/json_style.h: compact, or pretty). */
void e2b_secrets_print_json(const e2b_secret_list *l, bool pretty, FILE *out);

/* The placeholder the box gets in the provider's environment variable: it is not a key,
 * only a marker that the egress rule will replace the real one. */
#define E2B_SECRET_PLACEHOLDER "e2b-secret-placeholder"

/* Builds the create-time "network" object for the stored secrets (names only): one rule per
 * secret that is a known provider, {"rules":{host:[{"transform":{"headers":{header:
 * "<prefix>${e2b.secrets.<name>}"}}}]}}, and sets the provider's env var to the placeholder
 * in env. Returns a new reference, or NULL when no secret matched a provider. */
json_t *e2b_provider_network(const e2b_secret_list *secrets, e2b_metadata *env);

#endif
