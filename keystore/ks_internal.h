/* Internal to keystore/: the backend interface and shared helpers. Not for callers. */
#ifndef E2B_KS_INTERNAL_H
#define E2B_KS_INTERNAL_H

#include "keystore/keystore.h"

#include <stdarg.h>

/* A backend's operations. Arguments are validated by keystore.c before they get here.
 * timeout_ms bounds a call that can block (only the Secret Service honours it; 0 = the
 * store's default). get returns a malloc'd password (keystore_password_free). */
typedef struct {
    ks_code (*put)(keystore *ks, const char *box, const char *sid, const char *password,
                   unsigned timeout_ms, ks_error *err);
    ks_code (*get)(keystore *ks, const char *box, const char *sid, char **password,
                   unsigned timeout_ms, ks_error *err);
    ks_code (*del)(keystore *ks, const char *box, const char *sid, unsigned timeout_ms,
                   ks_error *err);
    ks_code (*list)(keystore *ks, ks_entry **entries, size_t *count, unsigned timeout_ms,
                    ks_error *err);
    void (*destroy)(void *state); /* frees the backend state (last reference gone) */
} ks_ops;

/* Creates a store with one reference; takes ownership of state (destroyed on failure). */
keystore *ks_new(ks_backend backend, const ks_ops *ops, void *state, const char *location,
                 ks_error *err);
void *ks_state(keystore *ks);
void ks_ref(keystore *ks);
void ks_unref(keystore *ks);

/* Used by the job worker: runs an operation with a timeout. */
ks_code ks_do_put(keystore *ks, const char *box, const char *sid, const char *password,
                  unsigned timeout_ms, ks_error *err);
ks_code ks_do_get(keystore *ks, const char *box, const char *sid, char **password,
                  unsigned timeout_ms, ks_error *err);
ks_code ks_do_delete(keystore *ks, const char *box, const char *sid, unsigned timeout_ms,
                     ks_error *err);
ks_code ks_do_list(keystore *ks, ks_entry **entries, size_t *count, unsigned timeout_ms,
                   ks_error *err);

/* Sets err (may be NULL) to code and a printf-formatted message, replacing control
 * characters by '?'. Returns code. */
ks_code ks_fail(ks_error *err, ks_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ks_ok(ks_error *err);

/* malloc'd copy or NULL. */
char *ks_strdup(const char *s);
/* Sorts entries by box then sandbox id. */
void ks_entries_sort(ks_entry *entries, size_t count);
/* Appends a copy of (box, sid) to a growing array; false when out of memory. */
bool ks_entries_push(ks_entry **entries, size_t *count, size_t *cap, const char *box,
                     const char *sid);

/* Installs the GLib log writer once (see keystore_set_log). */
void ks_glib_log_install(void);

#endif
