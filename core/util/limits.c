#include "core/util/limits.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

e2b_limits e2b_limits_default(void)
{
    return (e2b_limits){
        .bundle_bytes = (uint64_t)2 << 30,
        .object_bytes = (uint64_t)256 << 20,
        .inflated_bytes = (uint64_t)8 << 30,
        .get_bytes = (uint64_t)1 << 30,
        .tree_depth = 4096,
        .delta_depth = 4095,
        .list_pages = 1000,
    };
}

static e2b_error *bad_value(const char *name, const char *rule)
{
    return e2b_error_new(E2B_ERR_INVALID, "limit.%s must be %s", name, rule);
}

/* A decimal number with an optional binary-unit suffix; 0 on success. */
static int parse_size(const char *v, int units, uint64_t *out)
{
    if (!isdigit((unsigned char)*v))
        return -1;
    errno = 0;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno)
        return -1;
    unsigned shift = 0;
    if (units && *end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        default: return -1;
        }
        end++;
    }
    if (*end || n > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)n << shift;
    return 0;
}

e2b_error *e2b_limits_set(e2b_limits *l, const char *name, const char *value)
{
    uint64_t n;
    uint64_t *size = !strcmp(name, "bundle_bytes")     ? &l->bundle_bytes
                     : !strcmp(name, "object_bytes")   ? &l->object_bytes
                     : !strcmp(name, "inflated_bytes") ? &l->inflated_bytes
                     : !strcmp(name, "get_bytes")      ? &l->get_bytes
                                                       : NULL;
    unsigned *count = !strcmp(name, "tree_depth")    ? &l->tree_depth
                      : !strcmp(name, "delta_depth") ? &l->delta_depth
                      : !strcmp(name, "list_pages")  ? &l->list_pages
                                                     : NULL;
    if (size) {
        if (parse_size(value, 1, &n) < 0 || n < 1024)
            return bad_value(name, "a size of at least 1K, such as 4G or 500M");
        *size = n;
        return NULL;
    }
    if (count) {
        if (parse_size(value, 0, &n) < 0 || n < 1 || n > 1000000)
            return bad_value(name, "a number from 1 to 1000000");
        *count = (unsigned)n;
        return NULL;
    }
    return e2b_error_new(E2B_ERR_INVALID,
                         "unknown key 'limit.%s' (limit.bundle_bytes, limit.object_bytes, "
                         "limit.inflated_bytes, limit.get_bytes, limit.tree_depth, limit.delta_depth, "
                         "limit.list_pages)",
                         name);
}
