/* Egress lists (see egress_list.h). */
#include "core/e2b/egress_list.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SEPARATORS ", \t\r\n"

static bool is_ipv4(const char *s, size_t n)
{
    char buf[16];
    struct in_addr a;
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return inet_pton(AF_INET, buf, &a) == 1;
}

/* A DNS name: labels of letters, digits and '-' (not at a label's ends), 1-63 bytes each,
 * at most 253 in all. */
static bool is_domain(const char *s, size_t n)
{
    if (n == 0 || n > 253)
        return false;
    size_t label = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (label == 0 || label > 63 || s[i - 1] == '-' || s[i - label] == '-')
                return false;
            label = 0;
            continue;
        }
        if (!isalnum((unsigned char)s[i]) && s[i] != '-')
            return false;
        label++;
    }
    return true;
}

/* NULL when the entry is valid, else what is wrong with it. */
static const char *entry_problem(const char *e, size_t n, bool deny)
{
    const char *slash = memchr(e, '/', n);
    if (slash) {
        size_t bits_len = n - (size_t)(slash - e) - 1;
        if (!is_ipv4(e, (size_t)(slash - e)) || bits_len == 0 || bits_len > 2)
            return "is not a CIDR (an IPv4 address, '/', 0 to 32, e.g. 10.0.0.0/8)";
        int bits = 0;
        for (size_t i = 0; i < bits_len; i++) {
            if (!isdigit((unsigned char)slash[1 + i]))
                return "is not a CIDR (an IPv4 address, '/', 0 to 32, e.g. 10.0.0.0/8)";
            bits = bits * 10 + (slash[1 + i] - '0');
        }
        return bits > 32 ? "is not a CIDR: the prefix length is 0 to 32" : NULL;
    }
    if (is_ipv4(e, n))
        return NULL;
    if (memchr(e, ':', n))
        return "is an IPv6 address or has a port: only IPv4 addresses, CIDRs and domains are accepted";
    bool digits_dots = true;
    for (size_t i = 0; i < n; i++)
        digits_dots = digits_dots && (isdigit((unsigned char)e[i]) || e[i] == '.');
    if (digits_dots)
        return "is not an IPv4 address (four numbers 0 to 255, e.g. 192.168.1.10)";
    bool wild = n > 2 && e[0] == '*' && e[1] == '.';
    if (!is_domain(wild ? e + 2 : e, wild ? n - 2 : n))
        return strchr(e, '*') && !wild
                   ? "is not a domain: a wildcard is one leading '*.' (e.g. *.example.com)"
                   : "is not a domain (letters, digits and '-' in dot-separated labels, e.g. api.example.com)";
    if (deny)
        return "is a domain: the deny list takes IPv4 addresses and CIDRs only (E2B does not deny "
               "by name; restrict with an allow list instead)";
    return NULL;
}

int e2b_egress_list_check(const char *text, bool deny, char *err, size_t errlen)
{
    size_t count = 0;
    for (const char *p = text ? text : ""; *p;) {
        p += strspn(p, SEPARATORS);
        size_t n = strcspn(p, SEPARATORS);
        if (n == 0)
            break;
        const char *why = entry_problem(p, n, deny);
        if (why) {
            snprintf(err, errlen, "'%.*s' %s", (int)(n > 80 ? 80 : n), p, why);
            return -1;
        }
        if (++count > E2B_EGRESS_LIST_MAX) {
            snprintf(err, errlen, "more than %d entries in one list", E2B_EGRESS_LIST_MAX);
            return -1;
        }
        p += n;
    }
    return 0;
}

void e2b_egress_list_add(json_t *arr, const char *entry)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        if (strcasecmp(json_string_value(v), entry) == 0)
            return;
    }
    json_array_append_new(arr, json_string(entry));
}

json_t *e2b_egress_list_json(const char *text)
{
    json_t *arr = json_array();
    for (const char *p = text ? text : ""; *p;) {
        p += strspn(p, SEPARATORS);
        size_t n = strcspn(p, SEPARATORS);
        if (n == 0)
            break;
        char *e = strndup(p, n);
        for (char *c = e; c && *c; c++)
            *c = (char)tolower((unsigned char)*c);
        if (e)
            e2b_egress_list_add(arr, e);
        free(e);
        p += n;
    }
    return arr;
}
