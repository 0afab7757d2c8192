/* Egress lists as the user writes them (config network.allow_out / network.deny_out,
 * --allow-out / --deny-out): entries separated by commas or spaces, each a domain
 * ("api.example.com"), a "*.suffix" (its sub-domains at any depth, not the apex), an IPv4
 * address or an IPv4 CIDR ("10.0.0.0/8"). E2B takes domains only in allowOut: a deny list
 * holds addresses and CIDRs. Nothing here does I/O. */
#ifndef E2B_EGRESS_LIST_H
#define E2B_EGRESS_LIST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* At most this many entries in one list. */
#define E2B_EGRESS_LIST_MAX 64

/* Checks text (NULL or "" = an empty list). 0 when valid; -1 with a sentence for the user in
 * err naming the bad entry and what is accepted. deny: addresses and CIDRs only. */
int e2b_egress_list_check(const char *text, bool deny, char *err, size_t errlen);

/* The entries of a valid text as a new JSON array of strings (lower-cased domains);
 * entries already in the array are not repeated (e2b_egress_list_add). */
json_t *e2b_egress_list_json(const char *text);
/* Appends entry to arr unless it is there already (case-insensitive). */
void e2b_egress_list_add(json_t *arr, const char *entry);

#endif
