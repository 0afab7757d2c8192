#include "core/util/gw_error.h"

#include <stdarg.h>
#include <stdio.h>

int gw_error_set(gw_error *err, gw_code code, const char *fmt, ...)
{
    if (!err)
        return (int)code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    /* Messages are one line: a git error text may carry a newline. */
    for (char *p = err->msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return (int)code;
}

void gw_error_clear(gw_error *err)
{
    if (!err)
        return;
    err->code = GW_OK;
    err->msg[0] = '\0';
}

const char *gw_code_name(gw_code code)
{
    switch (code) {
    case GW_OK: return "ok";
    case GW_EFAIL: return "failed";
    case GW_ENOMEM: return "out of memory";
    case GW_EINVAL: return "invalid argument";
    case GW_ENOTREPO: return "not a git repository";
    case GW_EOWNER: return "repository owned by another user";
    case GW_EIO: return "i/o error";
    case GW_ECHANGED: return "file changed while reading";
    case GW_EBUNDLE: return "bad bundle";
    case GW_EMISSINGBASE: return "base commit not present locally";
    case GW_ENOREF: return "ref not in bundle";
    case GW_EDIVERGED: return "diverged";
    case GW_ECHECKEDOUT: return "branch is checked out";
    case GW_ECANCELLED: return "cancelled";
    }
    return "unknown";
}
