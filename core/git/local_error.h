/* How the local git and archive modules (gitwork, tarball, bundle, pull_script,
 * e2b_upload_split) report errors: as core's one error type, e2b_error, with a subcode
 * (e2b_error_sub) that says which local case it is.
 *
 * Every such function takes `e2b_error **err` (may be NULL), returns 0 on success or the
 * subcode on failure, and on failure leaves a new error in *err that the caller owns
 * (e2b_error_free). *err must be NULL or an earlier error, which is freed first. */
#ifndef E2B_LOCAL_ERROR_H
#define E2B_LOCAL_ERROR_H

#include "core/util/error.h"

/* Replaces *err with e2b_error_local(sub, fmt, ...). err may be NULL. Returns sub, so
 * callers can write `return e2b_local_error_set(err, E2B_SUB_FILE_IO, ...)`. */
int e2b_local_error_set(e2b_error **err, e2b_error_sub sub, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The code to return for an error kept earlier: its subcode; E2B_SUB_NOMEM for the
 * static out-of-memory error (no subcode), E2B_SUB_FAILED for NULL. */
int e2b_local_error_code(const e2b_error *e);
/* Frees *err and sets it to NULL. err may be NULL. */
void e2b_local_error_clear(e2b_error **err);

#endif
