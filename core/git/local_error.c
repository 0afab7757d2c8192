#include "core/git/local_error.h"

#include <stdarg.h>

int e2b_local_error_set(e2b_error **err, e2b_error_sub sub, const char *fmt, ...)
{
    if (!err)
        return (int)sub;
    va_list ap;
    va_start(ap, fmt);
    e2b_error *e = e2b_error_localv(sub, fmt, ap);
    va_end(ap);
    e2b_error_free(*err);
    *err = e;
    return (int)sub;
}

int e2b_local_error_code(const e2b_error *e)
{
    if (!e)
        return E2B_SUB_FAILED;
    return e->sub != E2B_SUB_NONE ? (int)e->sub : E2B_SUB_NOMEM;
}

void e2b_local_error_clear(e2b_error **err)
{
    if (!err)
        return;
    e2b_error_free(*err);
    *err = NULL;
}
