#include "core/util/error.h"

#include "core/util/sanitize.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Handed out when even the error cannot be allocated; never freed. */
static e2b_error oom_error = {
    .kind = E2B_ERR_INTERNAL,
    .detail = (char *)"out of memory",
    .message = (char *)"internal error: out of memory",
};

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static char *vformat(const char *fmt, va_list ap)
{
    char *out = NULL;
    if (!fmt)
        return NULL;
    if (vasprintf(&out, fmt, ap) < 0)
        return NULL;
    return out;
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* The reason part of the message, from the kind and the fields. */
static char *build_reason(const e2b_error *e)
{
    char *r = NULL;
    const char *msg = e->e2b_message && *e->e2b_message ? e->e2b_message : NULL;
    const char *det = e->detail && *e->detail ? e->detail : NULL;
    const char *why = msg ? msg : det;
    const char *host = e->host && *e->host ? e->host : "E2B";
    int n = -1;

    if (e->sub != E2B_SUB_NONE && det) /* a local step says the whole reason itself */
        n = asprintf(&r, "%s", det);
    else switch (e->kind) {
    case E2B_ERR_AUTH:
        if (!det && (e->http_status == 401 || e->http_status == 0))
            n = asprintf(&r, "E2B rejected the API key (E2B_API_KEY)");
        else if (det)
            n = asprintf(&r, "%s", det);
        else
            n = asprintf(&r, "E2B rejected the credentials (%ld)%s%s", e->http_status,
                         why ? ": " : "", or_empty(why));
        break;
    case E2B_ERR_FORBIDDEN:
        n = asprintf(&r, "E2B refused access (403)%s%s", why ? ": " : "", or_empty(why));
        break;
    case E2B_ERR_NETWORK:
        n = asprintf(&r, "cannot reach %s%s%s", host, det ? ": " : "", or_empty(det));
        break;
    case E2B_ERR_CONNECTION_LOST:
        n = asprintf(&r, "the connection to %s broke off%s%s", host, det ? ": " : "",
                     or_empty(det));
        break;
    case E2B_ERR_TIMEOUT:
        n = asprintf(&r, "%s did not answer in time%s%s", host, det ? ": " : "", or_empty(det));
        break;
    case E2B_ERR_CANCELLED:
        n = asprintf(&r, "cancelled");
        break;
    case E2B_ERR_NOT_FOUND:
        if (det)
            n = asprintf(&r, "%s", det);
        else
            n = asprintf(&r, "not found%s%s", msg ? ": " : "", or_empty(msg));
        break;
    case E2B_ERR_CONFLICT:
        if (det && e->http_status == 0) /* found here (a diverged branch, a box name twice) */
            n = asprintf(&r, "%s", det);
        else
            n = asprintf(&r, "E2B reported a conflict (409)%s%s", why ? ": " : "", or_empty(why));
        break;
    case E2B_ERR_RATE_LIMITED:
        n = asprintf(&r, "E2B is rate limiting requests (429), try again in a moment%s%s",
                     why ? ": " : "", or_empty(why));
        break;
    case E2B_ERR_BUSY:
        n = asprintf(&r, "E2B is temporarily busy (503), try again later%s%s", why ? ": " : "",
                     or_empty(why));
        break;
    case E2B_ERR_SERVER:
        n = asprintf(&r, "E2B server error %ld%s%s", e->http_status, why ? ": " : "",
                     or_empty(why));
        break;
    case E2B_ERR_HTTP:
        n = asprintf(&r, "E2B answered %ld%s%s", e->http_status, why ? ": " : "", or_empty(why));
        break;
    case E2B_ERR_PROTOCOL:
        n = asprintf(&r, "unexpected reply from E2B: %s", det ? det : "malformed response");
        break;
    case E2B_ERR_REMOTE:
        n = asprintf(&r, "%s%s%s", e->e2b_error_code ? e->e2b_error_code : "error",
                     why ? ": " : "", or_empty(why));
        break;
    case E2B_ERR_IO:
        n = asprintf(&r, "%s", det ? det : "input/output error");
        break;
    case E2B_ERR_INVALID:
        n = asprintf(&r, "%s", det ? det : "invalid input");
        break;
    case E2B_ERR_INTERNAL:
    default:
        n = asprintf(&r, "internal error: %s", det ? det : "unknown");
        break;
    }
    if (n < 0)
        return NULL;
    /* A trace id helps E2B support with server-side failures. */
    if (e->trace_id && *e->trace_id &&
        (e->kind == E2B_ERR_SERVER || e->kind == E2B_ERR_HTTP || e->kind == E2B_ERR_BUSY)) {
        char *t = NULL;
        if (asprintf(&t, "%s (trace %s)", r, e->trace_id) >= 0) {
            free(r);
            r = t;
        }
    }
    return r;
}

static void rebuild(e2b_error *e)
{
    char *reason, *m = NULL;
    if (e == &oom_error)
        return;
    reason = build_reason(e);
    if (!reason)
        return;
    if (e->action && *e->action) {
        if (asprintf(&m, "%s: %s", e->action, reason) < 0)
            m = NULL;
        free(reason);
    } else {
        m = reason;
    }
    if (!m)
        return;
    /* The one sanitiser: C0 and C1 controls, ESC, bidi overrides and invalid UTF-8 from the
     * network never reach a terminal; newlines become spaces (one line). */
    char *clean = e2b_sanitize_display(m, strlen(m), 0);
    free(m);
    if (!clean)
        return;
    free(e->message);
    e->message = clean;
}

/* The one constructor behind e2b_error_newv and e2b_error_localv. */
static e2b_error *make(e2b_error_kind kind, e2b_error_sub sub, const char *detail_fmt, va_list ap)
{
    e2b_error *e = calloc(1, sizeof *e);
    if (!e)
        return &oom_error;
    e->kind = kind;
    e->sub = sub;
    e->detail = vformat(detail_fmt, ap);
    rebuild(e);
    if (!e->message) {
        e2b_error_free(e);
        return &oom_error;
    }
    return e;
}

e2b_error *e2b_error_newv(e2b_error_kind kind, const char *detail_fmt, va_list ap)
{
    return make(kind, E2B_SUB_NONE, detail_fmt, ap);
}

e2b_error *e2b_error_new(e2b_error_kind kind, const char *detail_fmt, ...)
{
    va_list ap;
    e2b_error *e;
    va_start(ap, detail_fmt);
    e = e2b_error_newv(kind, detail_fmt, ap);
    va_end(ap);
    return e;
}

e2b_error_kind e2b_error_sub_kind(e2b_error_sub sub)
{
    switch (sub) {
    case E2B_SUB_DIVERGED:
    case E2B_SUB_CHECKED_OUT: return E2B_ERR_CONFLICT;
    case E2B_SUB_BAD_ARG:
    case E2B_SUB_NOT_REPO:
    case E2B_SUB_FOREIGN_OWNER: return E2B_ERR_INVALID;
    case E2B_SUB_BAD_BUNDLE:
    case E2B_SUB_NO_REF: return E2B_ERR_PROTOCOL;
    case E2B_SUB_NOMEM: return E2B_ERR_INTERNAL;
    case E2B_SUB_CANCELLED: return E2B_ERR_CANCELLED;
    case E2B_SUB_NONE:
    case E2B_SUB_FAILED:
    case E2B_SUB_FILE_IO:
    case E2B_SUB_FILE_CHANGED:
    case E2B_SUB_MISSING_BASE: break;
    }
    return E2B_ERR_IO;
}

e2b_error *e2b_error_localv(e2b_error_sub sub, const char *detail_fmt, va_list ap)
{
    return make(e2b_error_sub_kind(sub), sub, detail_fmt, ap);
}

e2b_error *e2b_error_local(e2b_error_sub sub, const char *detail_fmt, ...)
{
    va_list ap;
    e2b_error *e;
    va_start(ap, detail_fmt);
    e = e2b_error_localv(sub, detail_fmt, ap);
    va_end(ap);
    return e;
}

e2b_error_sub e2b_error_sub_of(const e2b_error *err)
{
    return err ? err->sub : E2B_SUB_NONE;
}

static e2b_error_kind kind_for_status(long status)
{
    switch (status) {
    case 400:
        return E2B_ERR_HTTP;
    case 401:
        return E2B_ERR_AUTH;
    case 403:
        return E2B_ERR_FORBIDDEN;
    case 404:
        return E2B_ERR_NOT_FOUND;
    case 409:
        return E2B_ERR_CONFLICT;
    case 429:
        return E2B_ERR_RATE_LIMITED;
    case 503:
        return E2B_ERR_BUSY;
    default:
        return status >= 500 && status <= 599 ? E2B_ERR_SERVER : E2B_ERR_HTTP;
    }
}

e2b_error *e2b_error_from_http(long status, const char *body, size_t len, const char *trace_id,
                               const char *not_found_text)
{
    e2b_error *e = calloc(1, sizeof *e);
    if (!e)
        return &oom_error;
    e->kind = kind_for_status(status);
    e->http_status = status;
    e->trace_id = dup_or_null(trace_id && *trace_id ? trace_id : NULL);
    if (status == 404 && not_found_text)
        e->detail = strdup(not_found_text);
    if (body && len > 0) {
        json_t *root = json_loadb(body, len, 0, NULL);
        if (json_is_object(root)) {
            json_t *code = json_object_get(root, "code");
            json_t *msg = json_object_get(root, "message");
            json_t *ecode = json_object_get(root, "error_code");
            if (json_is_integer(code))
                e->e2b_code = (long)json_integer_value(code);
            else if (json_is_string(code)) /* Connect error shape */
                e->e2b_error_code = strdup(json_string_value(code));
            if (json_is_string(ecode) && !e->e2b_error_code)
                e->e2b_error_code = strdup(json_string_value(ecode));
            if (json_is_string(msg))
                e->e2b_message = strdup(json_string_value(msg));
        }
        json_decref(root);
    }
    rebuild(e);
    if (!e->message) {
        e2b_error_free(e);
        return &oom_error;
    }
    return e;
}

e2b_error *e2b_error_network(e2b_error_kind kind, const char *host, const char *detail)
{
    e2b_error *e = e2b_error_new(kind, "%s", detail ? detail : "");
    if (e == &oom_error)
        return e;
    if (detail == NULL || !*detail) {
        free(e->detail);
        e->detail = NULL;
    }
    return e2b_error_set_host(e, host);
}

e2b_error *e2b_error_remote(const char *code, const char *message)
{
    e2b_error *e = calloc(1, sizeof *e);
    if (!e)
        return &oom_error;
    e->kind = E2B_ERR_REMOTE;
    e->e2b_error_code = dup_or_null(code);
    e->e2b_message = dup_or_null(message);
    rebuild(e);
    if (!e->message) {
        e2b_error_free(e);
        return &oom_error;
    }
    return e;
}

e2b_error *e2b_error_set_action(e2b_error *err, const char *fmt, ...)
{
    va_list ap;
    char *a;
    if (!err || err == &oom_error)
        return err;
    va_start(ap, fmt);
    a = vformat(fmt, ap);
    va_end(ap);
    free(err->action);
    err->action = a;
    rebuild(err);
    return err;
}

e2b_error *e2b_error_set_trace_id(e2b_error *err, const char *trace_id)
{
    if (!err || err == &oom_error)
        return err;
    free(err->trace_id);
    err->trace_id = dup_or_null(trace_id && *trace_id ? trace_id : NULL);
    rebuild(err);
    return err;
}

e2b_error *e2b_error_set_host(e2b_error *err, const char *host)
{
    if (!err || err == &oom_error)
        return err;
    free(err->host);
    err->host = dup_or_null(host);
    rebuild(err);
    return err;
}

const char *e2b_error_message(const e2b_error *err)
{
    if (!err)
        return "no error";
    return err->message ? err->message : "internal error";
}

int e2b_error_exit_code(const e2b_error *err)
{
    if (!err)
        return 0;
    switch (err->kind) {
    case E2B_ERR_NOT_FOUND: return 3;
    case E2B_ERR_AUTH: return 4;
    case E2B_ERR_CONFLICT: return 5;
    default: return 1;
    }
}

e2b_error *e2b_error_copy(const e2b_error *err)
{
    e2b_error *c;
    if (!err || err == &oom_error)
        return &oom_error;
    c = calloc(1, sizeof *c);
    if (!c)
        return &oom_error;
    c->kind = err->kind;
    c->sub = err->sub;
    c->http_status = err->http_status;
    c->e2b_code = err->e2b_code;
    c->action = dup_or_null(err->action);
    c->e2b_error_code = dup_or_null(err->e2b_error_code);
    c->e2b_message = dup_or_null(err->e2b_message);
    c->trace_id = dup_or_null(err->trace_id);
    c->host = dup_or_null(err->host);
    c->detail = dup_or_null(err->detail);
    c->message = dup_or_null(err->message);
    if (!c->message) {
        e2b_error_free(c);
        return &oom_error;
    }
    return c;
}

void e2b_error_free(e2b_error *err)
{
    if (!err || err == &oom_error)
        return;
    free(err->action);
    free(err->e2b_error_code);
    free(err->e2b_message);
    free(err->trace_id);
    free(err->host);
    free(err->detail);
    free(err->message);
    free(err);
}
