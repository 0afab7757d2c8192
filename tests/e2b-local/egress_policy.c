/* Egress policy (see egress_policy.h). */
#include "egress_policy.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Parses "a.b.c.d" or "a.b.c.d/n" into a network and mask; false when it is neither. */
static bool parse_cidr(const char *s, uint32_t *net, uint32_t *mask)
{
    char buf[64];
    const char *slash = strchr(s, '/');
    size_t n = slash ? (size_t)(slash - s) : strlen(s);
    if (n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    struct in_addr a;
    if (inet_pton(AF_INET, buf, &a) != 1)
        return false;
    long bits = 32;
    if (slash) {
        char *end = NULL;
        bits = strtol(slash + 1, &end, 10);
        if (!slash[1] || !end || *end || bits < 0 || bits > 32)
            return false;
    }
    *mask = bits == 0 ? 0 : htonl(0xffffffffu << (32 - bits));
    *net = a.s_addr & *mask;
    return true;
}

bool egress_entry_matches(const char *entry, const char *host, const struct in_addr *ip)
{
    if (!entry || !*entry || !host)
        return false;
    uint32_t net, mask;
    if (parse_cidr(entry, &net, &mask))
        return ip && (ip->s_addr & mask) == net;
    size_t hl = strlen(host), el = strlen(entry);
    if (el > 0 && entry[el - 1] == '.')
        el--;
    if (hl > 0 && host[hl - 1] == '.')
        hl--;
    if (el > 2 && entry[0] == '*' && entry[1] == '.') /* sub-domains at any depth, not the apex */
        return hl > el - 1 && strncasecmp(host + hl - (el - 1), entry + 1, el - 1) == 0;
    return hl == el && strncasecmp(host, entry, el) == 0;
}

/* The first entry of list (an array of strings) that matches, or NULL. */
static const char *first_match(const json_t *list, const char *host, const struct in_addr *ip)
{
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v) {
        const char *e = json_string_value(v);
        if (e && egress_entry_matches(e, host, ip))
            return e;
    }
    return NULL;
}

/* Whether list is absent, null or an array of strings; false with why naming key. */
static bool strings_array(const json_t *list, const char *key, char *why, size_t whylen)
{
    if (!list || json_is_null(list))
        return true;
    size_t i;
    const json_t *v;
    if (json_is_array(list)) {
        json_array_foreach(list, i, v) {
            if (!json_is_string(v))
                break;
        }
        if (i == json_array_size(list))
            return true;
    }
    snprintf(why, whylen, "network.%s must be an array of strings", key);
    return false;
}

bool egress_network_valid(const json_t *network, char *why, size_t whylen)
{
    if (!network || json_is_null(network))
        return true;
    const json_t *allow = json_object_get(network, "allowOut");
    const json_t *deny = json_object_get(network, "denyOut");
    if (!strings_array(allow, "allowOut", why, whylen) ||
        !strings_array(deny, "denyOut", why, whylen))
        return false;
    size_t i;
    const json_t *v;
    bool block_all = false;
    uint32_t net, mask;
    json_array_foreach(deny, i, v) {
        const char *e = json_string_value(v);
        if (!parse_cidr(e, &net, &mask)) {
            snprintf(why, whylen,
                     "invalid denied CIDR %.200s: denyOut takes IPv4 addresses and CIDRs only", e);
            return false;
        }
        block_all = block_all || strcmp(e, "0.0.0.0/0") == 0;
    }
    json_array_foreach(allow, i, v) {
        const char *e = json_string_value(v);
        if (!block_all && !parse_cidr(e, &net, &mask)) {
            snprintf(why, whylen,
                     "allowOut names the domain %.200s: a domain in allowOut needs 0.0.0.0/0 "
                     "(ALL_TRAFFIC) in denyOut, so that all other traffic is blocked", e);
            return false;
        }
    }
    return true;
}

bool egress_allowed(const json_t *network, int allow_internet, const char *host,
                    const struct in_addr *ip, char *why, size_t whylen)
{
    const json_t *allow = json_object_get(network, "allowOut");
    const json_t *deny = json_object_get(network, "denyOut");
    const char *hit = first_match(allow, host, ip);
    if (hit) {
        snprintf(why, whylen, "allowOut %.200s", hit);
        return true;
    }
    if (allow_internet == 0) { /* the same as denyOut 0.0.0.0/0, and the reason to give */
        snprintf(why, whylen, "internet access off");
        return false;
    }
    if ((hit = first_match(deny, host, ip))) {
        snprintf(why, whylen, "denyOut %.200s", hit);
        return false;
    }
    snprintf(why, whylen, "no rule denies it");
    return true;
}

json_t *egress_rule_headers(const json_t *network, const char *host, char *key, size_t keylen)
{
    const json_t *rules = json_object_get(network, "rules");
    const json_t *set = NULL;
    const char *best = NULL;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)rules, k, v) {
        if (strcasecmp(k, host) == 0) { /* exact beats any wildcard */
            set = v, best = k;
            break;
        }
        if (k[0] == '*' && k[1] == '.' && k[2] && egress_entry_matches(k, host, NULL) &&
            (!best || strlen(k) > strlen(best)))
            set = v, best = k;
    }
    json_t *out = json_object();
    size_t i;
    json_t *rule;
    json_array_foreach(set, i, rule) {
        json_t *h = json_object_get(json_object_get(rule, "transform"), "headers");
        const char *name;
        json_t *val;
        json_object_foreach(h, name, val) {
            if (json_is_string(val))
                json_object_set(out, name, val);
        }
    }
    if (key)
        snprintf(key, keylen, "%s", best ? best : "");
    return out;
}
