/* Egress policy as E2B applies it (pure functions, no I/O): which hosts a sandbox may reach
 * (allowInternetAccess, network.allowOut, network.denyOut; allow wins) and which header
 * transforms of network.rules apply to a host (exact key beats the longest "*.suffix"). */
#ifndef E2B_LOCAL_EGRESS_POLICY_H
#define E2B_LOCAL_EGRESS_POLICY_H

#include <jansson.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether `entry` (a domain, "*.suffix", IPv4 or IPv4 CIDR) matches the target: `host` is
 * the lower-cased name or IPv4 text asked for, `ip` its address (NULL when unresolved). */
bool egress_entry_matches(const char *entry, const char *host, const struct in_addr *ip);

/* Whether a network object (of a create or a PUT /sandboxes/{id}/network) is one E2B
 * takes: allowOut and denyOut arrays of strings, denyOut IPv4 addresses and CIDRs only
 * (E2B denies by address, never by name), and an allowOut that names a domain only with
 * "0.0.0.0/0" (ALL_TRAFFIC) in denyOut (else allowing a name means nothing: everything is
 * allowed already). false with the reason for the 400 in why. NULL is valid. */
bool egress_network_valid(const json_t *network, char *why, size_t whylen);

/* The decision for one target. network is the sandbox's stored config (may be NULL),
 * allow_internet -1 unset, 0 false (≡ denyOut 0.0.0.0/0), 1 true. why gets the reason
 * ("allowOut api.example.com", "denyOut 0.0.0.0/0", "internet access off", "no rule denies
 * it"). */
bool egress_allowed(const json_t *network, int allow_internet, const char *host,
                    const struct in_addr *ip, char *why, size_t whylen);

/* The merged transform headers of the rule set for host (new object; empty when none) and
 * in key (when not NULL, keylen bytes) the rule key that applied. */
json_t *egress_rule_headers(const json_t *network, const char *host, char *key, size_t keylen);

#endif
