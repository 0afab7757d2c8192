/* A box's egress: what it may reach, as E2B's create body and PUT /sandboxes/{id}/network
 * take it, built from the user's lists (config network.allow_out / network.deny_out /
 * allow_internet, or --allow-out / --deny-out / --no-internet) and the stored secrets.
 *
 * The rules: each stored secret of a known provider gets its rule (secrets_providers.h);
 * an allow list means "only these": denyOut 0.0.0.0/0 is added (E2B: allow wins);
 * no internet is allow_internet_access false (and denyOut 0.0.0.0/0 as well when a
 * provider's host is allowed); whenever all other traffic is blocked (denyOut holds
 * 0.0.0.0/0), the hosts of the secrets' providers are allowed too (E2B's rules grant no
 * access by themselves). E2B refuses a domain in allowOut without 0.0.0.0/0 in denyOut:
 * a deny list of some addresses alone gets no provider hosts (they are not denied).
 * Nothing here does I/O; nothing holds a secret's value (names only). */
#ifndef E2B_BOX_EGRESS_H
#define E2B_BOX_EGRESS_H

#include "core/e2b/objects.h"

#include <jansson.h>
#include <stdio.h>

typedef struct e2b_box_egress {
    const char *allow_out; /* a checked list (core/e2b/egress_list.h), NULL or "" = none */
    const char *deny_out;  /* the same, addresses and CIDRs */
    int allow_internet;    /* 1 or 0 */
} e2b_box_egress;

/* The "network" object (new reference; NULL when there is nothing to send) and in
 * *internet the allow_internet_access to send (-1 omit, 0). env (may be NULL) gets the
 * providers' placeholders (E2B_SECRET_PLACEHOLDER). */
json_t *e2b_box_egress_network(const e2b_box_egress *eg, const e2b_secret_list *secrets,
                               e2b_metadata *env, int *internet);

/* What a network object and internet flag let a box reach, for people and scripts (new
 * reference): {"internet":bool,"allow_out":[...],"deny_out":[...],
 * "secrets":[{"name":"openai","host":"api.openai.com"}]} (names from the rules'
 * ${e2b.secrets.NAME} placeholders; never a value). */
json_t *e2b_box_egress_summary(const json_t *network, int internet);

/* The summary (its JSON text, as in a record) in words: fn gets ("Internet", "on" or "off
 * (only what is allowed)"), ("Allow out", "a, b" or a "(none...)" sentence), ("Deny out",
 * ...), then ("Secret", "openai -> api.openai.com") per secret. Values are not sanitised
 * (a record may be edited: the caller sanitises). Nothing for NULL or a text that is not a
 * summary. */
typedef void (*e2b_box_egress_line_fn)(void *ud, const char *label, const char *value);
void e2b_box_egress_describe(const char *summary_json, e2b_box_egress_line_fn fn, void *ud);
/* The same lines as "INDENTLabel: value\n" on out, sanitised. */
void e2b_box_egress_print(const char *summary_json, const char *indent, FILE *out);

#endif
