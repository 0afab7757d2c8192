/* The keystore front: argument checks, error text, reference counting, dispatch to the
 * backend, and the helpers every backend shares. */
#include "keystore/ks_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KS_MAX_NAME 255
#define KS_MAX_PASSWORD 4096

struct keystore {
    atomic_int refs;
    ks_backend backend;
    const ks_ops *ops;
    void *state;
    char *location;
};

const char *ks_code_name(ks_code code)
{
    switch (code) {
    case KS_OK:
        return "ok";
    case KS_ERR_NOT_FOUND:
        return "not-found";
    case KS_ERR_LOCKED:
        return "locked";
    case KS_ERR_NO_SERVICE:
        return "no-service";
    case KS_ERR_TIMEOUT:
        return "timeout";
    case KS_ERR_CANCELLED:
        return "cancelled";
    case KS_ERR_PERMISSION:
        return "permission";
    case KS_ERR_IO:
        return "io";
    case KS_ERR_CORRUPT:
        return "corrupt";
    case KS_ERR_INVALID:
        return "invalid";
    case KS_ERR_NOMEM:
        return "nomem";
    }
    return "unknown";
}

ks_code ks_fail(ks_error *err, ks_code code, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    /* Messages can quote D-Bus or file text: keep them to one drawable line. */
    for (char *p = err->message; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return code;
}

void ks_ok(ks_error *err)
{
    if (err) {
        err->code = KS_OK;
        err->message[0] = '\0';
    }
}

char *ks_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

static int entry_cmp(const void *a, const void *b)
{
    const ks_entry *x = a, *y = b;
    int c = strcmp(x->box, y->box);
    return c ? c : strcmp(x->sandbox_id, y->sandbox_id);
}

void ks_entries_sort(ks_entry *entries, size_t count)
{
    if (count > 1)
        qsort(entries, count, sizeof *entries, entry_cmp);
}

bool ks_entries_push(ks_entry **entries, size_t *count, size_t *cap, const char *box,
                     const char *sid)
{
    if (*count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        ks_entry *n = realloc(*entries, ncap * sizeof *n);
        if (!n)
            return false;
        *entries = n;
        *cap = ncap;
    }
    char *b = ks_strdup(box), *s = ks_strdup(sid);
    if (!b || !s) {
        free(b);
        free(s);
        return false;
    }
    (*entries)[*count].box = b;
    (*entries)[*count].sandbox_id = s;
    (*count)++;
    return true;
}

void ks_entries_free(ks_entry *entries, size_t count)
{
    if (!entries)
        return;
    for (size_t i = 0; i < count; i++) {
        free(entries[i].box);
        free(entries[i].sandbox_id);
    }
    free(entries);
}

void keystore_password_free(char *password)
{
    if (!password)
        return;
    explicit_bzero(password, strlen(password));
    free(password);
}

keystore *ks_new(ks_backend backend, const ks_ops *ops, void *state, const char *location,
                 ks_error *err)
{
    keystore *ks = calloc(1, sizeof *ks);
    char *loc = ks_strdup(location);
    if (!ks || !loc) {
        free(ks);
        free(loc);
        ops->destroy(state);
        ks_fail(err, KS_ERR_NOMEM, "out of memory opening the keystore");
        return NULL;
    }
    atomic_init(&ks->refs, 1);
    ks->backend = backend;
    ks->ops = ops;
    ks->state = state;
    ks->location = loc;
    ks_ok(err);
    return ks;
}

void *ks_state(keystore *ks)
{
    return ks->state;
}

void ks_ref(keystore *ks)
{
    atomic_fetch_add(&ks->refs, 1);
}

void ks_unref(keystore *ks)
{
    if (!ks || atomic_fetch_sub(&ks->refs, 1) != 1)
        return;
    ks->ops->destroy(ks->state);
    free(ks->location);
    free(ks);
}

void keystore_close(keystore *ks)
{
    ks_unref(ks);
}

ks_backend keystore_backend(const keystore *ks)
{
    return ks->backend;
}

const char *keystore_backend_name(const keystore *ks)
{
    switch (ks->backend) {
    case KS_BACKEND_SECRET_SERVICE:
        return "secret-service";
    case KS_BACKEND_FILE:
        return "file";
    case KS_BACKEND_MEMORY:
        return "memory";
    }
    return "unknown";
}

const char *keystore_location(const keystore *ks)
{
    return ks->location;
}

/* A name or id goes into keyring attributes, file lines and messages: keep it printable. */
static bool check_name(const char *what, const char *s, ks_error *err)
{
    if (!s || !*s) {
        ks_fail(err, KS_ERR_INVALID, "the %s is empty", what);
        return false;
    }
    size_t n = strlen(s);
    if (n > KS_MAX_NAME) {
        ks_fail(err, KS_ERR_INVALID, "the %s is longer than %d bytes", what, KS_MAX_NAME);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) {
            ks_fail(err, KS_ERR_INVALID, "the %s contains a control character", what);
            return false;
        }
    }
    return true;
}

static bool check_password(const char *pw, ks_error *err)
{
    if (!pw || !*pw) {
        ks_fail(err, KS_ERR_INVALID, "the password is empty");
        return false;
    }
    if (strnlen(pw, KS_MAX_PASSWORD + 1) > KS_MAX_PASSWORD) {
        ks_fail(err, KS_ERR_INVALID, "the password is longer than %d bytes", KS_MAX_PASSWORD);
        return false;
    }
    return true;
}

static bool check_store(keystore *ks, ks_error *err)
{
    if (!ks) {
        ks_fail(err, KS_ERR_INVALID, "no keystore is open");
        return false;
    }
    return true;
}

ks_code ks_do_put(keystore *ks, const char *box, const char *sid, const char *password,
                  unsigned timeout_ms, ks_error *err)
{
    if (!check_store(ks, err) || !check_name("box name", box, err) ||
        !check_name("sandbox id", sid, err) || !check_password(password, err))
        return err ? err->code : KS_ERR_INVALID;
    ks_ok(err);
    return ks->ops->put(ks, box, sid, password, timeout_ms, err);
}

ks_code ks_do_get(keystore *ks, const char *box, const char *sid, char **password,
                  unsigned timeout_ms, ks_error *err)
{
    if (password)
        *password = NULL;
    if (!password)
        return ks_fail(err, KS_ERR_INVALID, "no place to return the password");
    if (!check_store(ks, err) || !check_name("box name", box, err) ||
        !check_name("sandbox id", sid, err))
        return err ? err->code : KS_ERR_INVALID;
    ks_ok(err);
    return ks->ops->get(ks, box, sid, password, timeout_ms, err);
}

ks_code ks_do_delete(keystore *ks, const char *box, const char *sid, unsigned timeout_ms,
                     ks_error *err)
{
    if (!check_store(ks, err) || !check_name("box name", box, err) ||
        (sid && !check_name("sandbox id", sid, err)))
        return err ? err->code : KS_ERR_INVALID;
    ks_ok(err);
    return ks->ops->del(ks, box, sid, timeout_ms, err);
}

ks_code ks_do_list(keystore *ks, ks_entry **entries, size_t *count, unsigned timeout_ms,
                   ks_error *err)
{
    if (!entries || !count)
        return ks_fail(err, KS_ERR_INVALID, "no place to return the entries");
    *entries = NULL;
    *count = 0;
    if (!check_store(ks, err))
        return KS_ERR_INVALID;
    ks_ok(err);
    ks_code rc = ks->ops->list(ks, entries, count, timeout_ms, err);
    if (rc == KS_OK)
        ks_entries_sort(*entries, *count);
    return rc;
}

ks_code keystore_put(keystore *ks, const char *box, const char *sandbox_id, const char *password,
                     ks_error *err)
{
    return ks_do_put(ks, box, sandbox_id, password, 0, err);
}

ks_code keystore_get(keystore *ks, const char *box, const char *sandbox_id, char **password,
                     ks_error *err)
{
    return ks_do_get(ks, box, sandbox_id, password, 0, err);
}

ks_code keystore_delete(keystore *ks, const char *box, const char *sandbox_id, ks_error *err)
{
    return ks_do_delete(ks, box, sandbox_id, 0, err);
}

ks_code keystore_list(keystore *ks, ks_entry **entries, size_t *count, ks_error *err)
{
    return ks_do_list(ks, entries, count, 0, err);
}
