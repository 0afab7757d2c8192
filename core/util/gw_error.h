/* Error reporting for the local git and archive modules (gitwork, tarball, bundle,
 * pull_script). A caller-owned struct: no allocation, so it can be filled on any path,
 * including out-of-memory. The lead may later fold these codes into core's error type. */
#ifndef E2B_GW_ERROR_H
#define E2B_GW_ERROR_H

typedef enum {
    GW_OK = 0,
    GW_EFAIL,         /* anything else: message says what */
    GW_ENOMEM,        /* out of memory */
    GW_EINVAL,        /* bad argument from the caller (e.g. an invalid box name) */
    GW_ENOTREPO,      /* not inside a git repository */
    GW_EOWNER,        /* repository owned by another user (libgit2 owner validation) */
    GW_EIO,           /* a local file could not be read/written */
    GW_ECHANGED,      /* a file changed while it was being archived */
    GW_EBUNDLE,       /* the bundle is malformed, truncated or unsupported */
    GW_EMISSINGBASE,  /* a bundle prerequisite is not present locally */
    GW_ENOREF,        /* the wanted ref is not in the bundle */
    GW_EDIVERGED,     /* e2b/<name> has commits that the new commit does not contain */
    GW_ECHECKEDOUT,   /* e2b/<name> is the checked-out branch: moving it would touch HEAD */
    GW_ECANCELLED,    /* a progress callback asked to stop */
} gw_code;

typedef struct {
    gw_code code;
    char msg[512]; /* NUL-terminated, one line, meant for the user */
} gw_error;

/* Sets code and a printf-style message (truncated to fit). err may be NULL. Returns code so
 * callers can write `return gw_error_set(err, GW_EIO, ...)`. */
int gw_error_set(gw_error *err, gw_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Resets err to GW_OK with an empty message. err may be NULL. */
void gw_error_clear(gw_error *err);
/* A short fixed name for a code ("diverged", "not a git repository", ...). */
const char *gw_code_name(gw_code code);

#endif
