/* The one error type of core/: every failing call hands back an e2b_error that says what was
 * being done, what E2B (or the network) answered, and one line a user can act on.
 *
 *   e2b_error *err = ...;                 // from api_*, envd_*, http_*, model mappers
 *   fprintf(stderr, "%s\n", e2b_error_message(err));
 *       -> "pausing box feat-x: E2B rejected the API key (E2B_API_KEY)"
 *   e2b_error_free(err);
 *
 * Ownership: an e2b_error and every string in it belong to whoever received it; free it
 * with e2b_error_free (NULL is fine). Strings that came from the network (E2B's message,
 * trace id) are stored as sent; e2b_error_message() is one line that has been through
 * e2b_sanitize_display() (no C0/C1 controls, ESC, bidi overrides or invalid UTF-8): safe to
 * print or draw as it is. */
#ifndef E2B_ERROR_H
#define E2B_ERROR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum e2b_error_kind {
    E2B_ERR_INTERNAL = 1, /* a bug or out of memory */
    E2B_ERR_INVALID,      /* bad input from the user or the config (no request was sent) */
    E2B_ERR_NETWORK,      /* could not connect (DNS, refused, TLS handshake) */
    E2B_ERR_CONNECTION_LOST, /* the connection broke after the reply began (truncated) */
    E2B_ERR_TIMEOUT,      /* connect or total timeout, low-speed limit */
    E2B_ERR_CANCELLED,    /* cancelled by the caller */
    E2B_ERR_AUTH,         /* 401, or no API key configured */
    E2B_ERR_FORBIDDEN,    /* 403 */
    E2B_ERR_NOT_FOUND,    /* 404 (meaning depends on the call) */
    E2B_ERR_CONFLICT,     /* 409 */
    E2B_ERR_RATE_LIMITED, /* 429, after the allowed retries */
    E2B_ERR_BUSY,         /* 503, after the allowed retries */
    E2B_ERR_SERVER,       /* other 5xx */
    E2B_ERR_HTTP,         /* any other unexpected HTTP status */
    E2B_ERR_PROTOCOL,     /* malformed reply: bad JSON, bad envelope, missing end-of-stream */
    E2B_ERR_REMOTE,       /* an error reported inside a stream (Connect end-of-stream error) */
    E2B_ERR_IO,           /* a local file or callback failed */
} e2b_error_kind;

/* What a local step (core/git: repository, archive, bundle, pull script) reports under its
 * kind, for callers that must tell the cases apart (a diverged branch, a missing base).
 * E2B_SUB_NONE for every other error. The kind follows from the subcode
 * (e2b_error_sub_kind), in one place. */
typedef enum e2b_error_sub {
    E2B_SUB_NONE = 0,
    E2B_SUB_FAILED,        /* anything else: the message says what */
    E2B_SUB_NOMEM,         /* out of memory */
    E2B_SUB_BAD_ARG,       /* bad argument from the caller (e.g. an invalid box name) */
    E2B_SUB_NOT_REPO,      /* not inside a git repository */
    E2B_SUB_FOREIGN_OWNER, /* repository owned by another user (libgit2 owner validation) */
    E2B_SUB_FILE_IO,       /* a local file could not be read/written */
    E2B_SUB_FILE_CHANGED,  /* a file changed while it was being archived */
    E2B_SUB_BAD_BUNDLE,    /* the bundle is malformed, truncated, unsupported or hostile */
    E2B_SUB_MISSING_BASE,  /* a bundle prerequisite is not present locally */
    E2B_SUB_NO_REF,        /* the wanted ref is not in the bundle */
    E2B_SUB_DIVERGED,      /* e2b/<name> has commits that the new commit does not contain */
    E2B_SUB_CHECKED_OUT,   /* e2b/<name> is the checked-out branch: moving it would touch HEAD */
    E2B_SUB_CANCELLED,     /* a progress callback asked to stop */
} e2b_error_sub;

typedef struct e2b_error {
    e2b_error_kind kind;
    char *action;      /* "pausing box feat-x"; may be NULL */
    long http_status;  /* 0 when no HTTP response was received */
    long e2b_code;     /* the numeric "code" of E2B's error body, 0 when absent */
    char *e2b_error_code; /* E2B "error_code" or the Connect code ("not_found"); may be NULL */
    char *e2b_message; /* E2B's "message"; may be NULL */
    char *trace_id;    /* X-E2B-Trace-ID; may be NULL */
    char *host;        /* the host that was being reached (network errors); may be NULL */
    char *detail;      /* what went wrong underneath (curl's text, parser's text); may be NULL */
    char *message;     /* the one-line human message; rebuilt by every setter, never NULL */
    e2b_error_sub sub; /* local steps only, else E2B_SUB_NONE */
} e2b_error;

/* A new error of the given kind with a detail text (printf format, may be NULL).
 * Never returns NULL: when memory runs out a static "out of memory" error is returned, which
 * e2b_error_free accepts too. */
e2b_error *e2b_error_new(e2b_error_kind kind, const char *detail_fmt, ...)
    __attribute__((format(printf, 2, 3)));
e2b_error *e2b_error_newv(e2b_error_kind kind, const char *detail_fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* A local step's error (core/git): the kind is e2b_error_sub_kind(sub) and the detail
 * (printf format) is the whole reason. Never NULL (see e2b_error_new). */
e2b_error *e2b_error_local(e2b_error_sub sub, const char *detail_fmt, ...)
    __attribute__((format(printf, 2, 3)));
e2b_error *e2b_error_localv(e2b_error_sub sub, const char *detail_fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* The kind a subcode belongs to: DIVERGED/CHECKED_OUT conflict, NOT_REPO/FOREIGN_OWNER/
 * BAD_ARG invalid, BAD_BUNDLE/NO_REF protocol, NOMEM internal, CANCELLED cancelled, the
 * rest I/O. */
e2b_error_kind e2b_error_sub_kind(e2b_error_sub sub);
/* err's subcode, E2B_SUB_NONE for NULL. */
e2b_error_sub e2b_error_sub_of(const e2b_error *err);

/* An error for an HTTP response whose status is not the expected one. body/len is the
 * response body (may be NULL/0): E2B's {"code","message","error_code"} and Connect's
 * {"code":"not_found","message"} shapes are both understood; anything else is ignored.
 * not_found_text, when given, replaces the generic 404 text for this call
 * (e.g. "no sandbox with id i123"). trace_id may be NULL. */
e2b_error *e2b_error_from_http(long status, const char *body, size_t len, const char *trace_id,
                               const char *not_found_text);

/* A network failure while reaching host (e.g. "api.e2b.app"); detail is the transport's
 * text. kind is E2B_ERR_NETWORK or E2B_ERR_TIMEOUT. */
e2b_error *e2b_error_network(e2b_error_kind kind, const char *host, const char *detail);

/* An error reported by the remote end inside a stream or RPC (Connect code such as
 * "not_found", and its message, which may be NULL). */
e2b_error *e2b_error_remote(const char *code, const char *message);

/* Sets what was being done (printf format), e.g. "pausing box %s". Returns err. */
e2b_error *e2b_error_set_action(e2b_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Sets/replaces the trace id and host. Returns err. */
e2b_error *e2b_error_set_trace_id(e2b_error *err, const char *trace_id);
e2b_error *e2b_error_set_host(e2b_error *err, const char *host);

/* The one-line human message ("<action>: <reason>"); owned by err. */
const char *e2b_error_message(const e2b_error *err);


/* The exit code of a one-shot mode for this error (man/e2b-tui.1, EXIT STATUS): 3 not found,
 * 4 authentication, 5 conflict, otherwise 1. */
int e2b_error_exit_code(const e2b_error *err);

/* A deep copy (never NULL, see e2b_error_new). */
e2b_error *e2b_error_copy(const e2b_error *err);

void e2b_error_free(e2b_error *err);

#endif
