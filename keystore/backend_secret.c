/* The Secret Service backend (libsecret, default collection).
 *
 * Every call runs libsecret's async API in a private GMainContext on the calling thread and
 * iterates it until the call ends or the deadline passes; at the deadline the GCancellable
 * is cancelled (GDBus then abandons the pending method call), so a stuck keyring or an
 * unanswered unlock prompt gives KS_ERR_TIMEOUT instead of blocking for ever. The job API
 * (job.c) runs these calls on worker threads for the UI. */
#include "keystore/ks_internal.h"

#include <libsecret/secret.h>
#include <stdlib.h>
#include <string.h>

#define SS_DEFAULT_TIMEOUT_MS 25000u
/* After cancelling, how long to wait for the call to return before abandoning it. */
#define SS_GRACE_MS 2000u

static const SecretSchema BOX_SCHEMA = {
    "dev.e2b-tui.BoxPassword",
    SECRET_SCHEMA_NONE, /* the schema name is stored as xdg:schema and matched */
    {
        {"box", SECRET_SCHEMA_ATTRIBUTE_STRING},
        {"sandbox-id", SECRET_SCHEMA_ATTRIBUTE_STRING},
        {NULL, 0},
    },
    0,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
    NULL,
};

typedef struct {
    unsigned timeout_ms;
} ss_state;

/* One bounded run: a private main context, a cancellable, a deadline. */
typedef struct {
    GMainContext *ctx;
    GCancellable *cancel;
    unsigned timeout_ms;
    bool timed_out; /* the deadline passed and the call was cancelled */
    bool abandon;   /* the grace period passed too: stop waiting */
    GSource *timer;
} ss_run;

/* Heap-allocated because an abandoned call may still complete (and write here) later. */
typedef struct {
    bool done;
    GAsyncResult *res;
} ss_call;

static gboolean on_grace(gpointer data)
{
    ((ss_run *)data)->abandon = true;
    return G_SOURCE_REMOVE;
}

static gboolean on_deadline(gpointer data)
{
    ss_run *r = data;
    r->timed_out = true;
    g_cancellable_cancel(r->cancel);
    GSource *g = g_timeout_source_new(SS_GRACE_MS);
    g_source_set_callback(g, on_grace, r, NULL);
    g_source_attach(g, r->ctx);
    g_source_unref(g);
    return G_SOURCE_REMOVE;
}

static void run_begin(ss_run *r, unsigned timeout_ms)
{
    r->ctx = g_main_context_new();
    r->cancel = g_cancellable_new();
    r->timeout_ms = timeout_ms;
    r->timed_out = r->abandon = false;
    g_main_context_push_thread_default(r->ctx);
    r->timer = g_timeout_source_new(timeout_ms);
    g_source_set_callback(r->timer, on_deadline, r, NULL);
    g_source_attach(r->timer, r->ctx);
}

static void run_end(ss_run *r)
{
    g_source_destroy(r->timer);
    g_source_unref(r->timer);
    g_main_context_pop_thread_default(r->ctx);
    g_object_unref(r->cancel);
    g_main_context_unref(r->ctx);
}

static void on_done(GObject *src, GAsyncResult *res, gpointer data)
{
    ss_call *c = data;
    c->res = g_object_ref(res);
    c->done = true;
}

static ss_call *call_new(void)
{
    return g_new0(ss_call, 1);
}

/* Iterates until the call is done. Returns false when it was abandoned (the call then
 * keeps `c`, which is leaked on purpose: it may still be written). */
static bool call_wait(ss_run *r, ss_call *c)
{
    while (!c->done && !r->abandon)
        g_main_context_iteration(r->ctx, TRUE);
    return c->done;
}

static void call_free(ss_call *c)
{
    if (c->res)
        g_object_unref(c->res);
    g_free(c);
}

static unsigned effective_timeout(keystore *ks, unsigned timeout_ms)
{
    ss_state *s = ks_state(ks);
    if (timeout_ms && timeout_ms < s->timeout_ms)
        return timeout_ms;
    return s->timeout_ms;
}

static ks_code timeout_error(ss_run *r, const char *what, ks_error *err)
{
    if (!r->timed_out) /* D-Bus gave up first (its own call timeout) */
        return ks_fail(err, KS_ERR_TIMEOUT,
                       "the keyring did not answer in time while %s; if an unlock prompt is "
                       "open, answer it and retry, or choose --keystore=file",
                       what);
    return ks_fail(err, KS_ERR_TIMEOUT,
                   "the keyring did not answer within %.1f s while %s; if an unlock prompt is "
                   "open, answer it and retry, or choose --keystore=file",
                   r->timeout_ms / 1000.0, what);
}

/* Maps a GError from libsecret/GDBus to a code and a sentence the user can act on. */
static ks_code map_error(ss_run *r, const GError *e, const char *what, ks_error *err)
{
    if (r->timed_out || g_error_matches(e, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) ||
        g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_TIMEOUT) ||
        g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_TIMED_OUT) ||
        g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_NO_REPLY))
        return timeout_error(r, what, err);
    if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return ks_fail(err, KS_ERR_CANCELLED, "the keyring unlock was cancelled while %s", what);
    if (g_error_matches(e, SECRET_ERROR, SECRET_ERROR_IS_LOCKED))
        return ks_fail(err, KS_ERR_LOCKED,
                       "the keyring is locked (%s) while %s; unlock your login keyring (e.g. "
                       "with Seahorse, or log in to the desktop) and retry",
                       e->message, what);
    if (g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
        g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER))
        return ks_fail(err, KS_ERR_NO_SERVICE,
                       "no Secret Service answers on the session bus (%s); install and start "
                       "gnome-keyring (or another Secret Service), or use --keystore=file",
                       e->message);
    if ((e->domain == G_DBUS_ERROR &&
         (e->code == G_DBUS_ERROR_UNKNOWN_METHOD || e->code == G_DBUS_ERROR_UNKNOWN_OBJECT)) ||
        g_error_matches(e, SECRET_ERROR, SECRET_ERROR_NO_SUCH_OBJECT))
        return ks_fail(err, KS_ERR_NO_SERVICE,
                       "the keyring has no default collection (%s); create a \"login\" "
                       "keyring (e.g. with Seahorse) or use --keystore=file",
                       e->message);
    if (g_error_matches(e, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))
        return ks_fail(err, KS_ERR_PERMISSION, "the keyring refused access while %s: %s", what,
                       e->message);
    return ks_fail(err, KS_ERR_IO, "the keyring failed while %s: %s", what, e->message);
}

/* Connects to the Secret Service (cached by libsecret after the first success). Any failure
 * here means there is no usable service: no session bus, or nothing owns the name. */
static SecretService *get_service(ss_run *r, ks_error *err)
{
    ss_call *c = call_new();
    secret_service_get(SECRET_SERVICE_NONE, r->cancel, on_done, c);
    if (!call_wait(r, c)) {
        timeout_error(r, "connecting to the Secret Service", err);
        return NULL;
    }
    GError *e = NULL;
    SecretService *svc = secret_service_get_finish(c->res, &e);
    call_free(c);
    if (!svc) {
        if (r->timed_out)
            timeout_error(r, "connecting to the Secret Service", err);
        else if (e->domain == G_DBUS_ERROR || e->domain == SECRET_ERROR)
            map_error(r, e, "connecting to the Secret Service", err);
        else
            ks_fail(err, KS_ERR_NO_SERVICE,
                    "cannot reach the D-Bus session bus (%s), so there is no keyring; start "
                    "e2b-tui inside a desktop session, or use --keystore=file",
                    e->message);
        g_error_free(e);
    }
    return svc;
}

/* Checks the default collection: KS_OK when it exists and is unlocked, KS_ERR_LOCKED,
 * KS_ERR_NO_SERVICE when there is none, or a mapped error. *label (if not NULL) receives the
 * collection's label (g_free). */
static ks_code check_default_collection(ss_run *r, SecretService *svc, char **label, ks_error *err)
{
    ss_call *c = call_new();
    secret_collection_for_alias(svc, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, r->cancel,
                                on_done, c);
    if (!call_wait(r, c))
        return timeout_error(r, "reading the default keyring", err);
    GError *e = NULL;
    SecretCollection *coll = secret_collection_for_alias_finish(c->res, &e);
    call_free(c);
    if (e) {
        ks_code rc = map_error(r, e, "reading the default keyring", err);
        g_error_free(e);
        return rc;
    }
    if (!coll)
        return ks_fail(err, KS_ERR_NO_SERVICE,
                       "the Secret Service has no default keyring (no \"login\" collection); "
                       "create one (e.g. with Seahorse) or use --keystore=file");
    ks_code rc = KS_OK;
    if (label)
        *label = secret_collection_get_label(coll);
    if (secret_collection_get_locked(coll))
        rc = ks_fail(err, KS_ERR_LOCKED,
                     "the default keyring is locked; unlock it (e.g. with Seahorse, or by "
                     "logging in to the desktop) and retry");
    g_object_unref(coll);
    return rc;
}

/* After an operation found nothing: "not found" only if the default keyring is there and
 * unlocked; otherwise the real reason (locked, missing). */
static ks_code not_found_or_why(ss_run *r, const char *box, const char *sid, ks_error *err)
{
    ks_error why = {KS_OK, ""};
    SecretService *svc = get_service(r, &why);
    if (svc) {
        check_default_collection(r, svc, NULL, &why);
        g_object_unref(svc);
    }
    if (why.code != KS_OK) {
        if (err)
            *err = why;
        return why.code;
    }
    if (sid)
        return ks_fail(err, KS_ERR_NOT_FOUND,
                       "no password is stored in the keyring for box %s (sandbox %s)", box, sid);
    return ks_fail(err, KS_ERR_NOT_FOUND, "no password is stored in the keyring for box %s", box);
}

static GHashTable *attributes(const char *box, const char *sid)
{
    GHashTable *a = g_hash_table_new(g_str_hash, g_str_equal);
    g_hash_table_insert(a, (gpointer) "box", (gpointer)box);
    if (sid)
        g_hash_table_insert(a, (gpointer) "sandbox-id", (gpointer)sid);
    return a;
}

/* Runs get_service first so that "no bus"/"no provider" is always reported as such. */
static ks_code begin(keystore *ks, ss_run *r, unsigned timeout_ms, ks_error *err)
{
    run_begin(r, effective_timeout(ks, timeout_ms));
    SecretService *svc = get_service(r, err);
    if (!svc)
        return err ? err->code : KS_ERR_NO_SERVICE;
    g_object_unref(svc);
    return KS_OK;
}

static ks_code ss_put(keystore *ks, const char *box, const char *sid, const char *password,
                      unsigned timeout_ms, ks_error *err)
{
    ss_run r;
    ks_code rc = begin(ks, &r, timeout_ms, err);
    if (rc == KS_OK) {
        char *label = g_strdup_printf("e2b-tui: server password of box %s (sandbox %s)", box, sid);
        GHashTable *a = attributes(box, sid);
        ss_call *c = call_new();
        secret_password_storev(&BOX_SCHEMA, a, SECRET_COLLECTION_DEFAULT, label, password, r.cancel,
                               on_done, c);
        g_hash_table_unref(a);
        g_free(label);
        if (!call_wait(&r, c)) {
            rc = timeout_error(&r, "storing a password", err);
        } else {
            GError *e = NULL;
            if (!secret_password_store_finish(c->res, &e)) {
                rc = map_error(&r, e, "storing a password", err);
                g_error_free(e);
            }
            call_free(c);
        }
    }
    run_end(&r);
    return rc;
}

static ks_code ss_get(keystore *ks, const char *box, const char *sid, char **password,
                      unsigned timeout_ms, ks_error *err)
{
    ss_run r;
    ks_code rc = begin(ks, &r, timeout_ms, err);
    if (rc == KS_OK) {
        GHashTable *a = attributes(box, sid);
        ss_call *c = call_new();
        secret_password_lookupv(&BOX_SCHEMA, a, r.cancel, on_done, c);
        g_hash_table_unref(a);
        if (!call_wait(&r, c)) {
            rc = timeout_error(&r, "reading a password", err);
        } else {
            GError *e = NULL;
            gchar *pw = secret_password_lookup_nonpageable_finish(c->res, &e);
            call_free(c);
            if (e) {
                rc = map_error(&r, e, "reading a password", err);
                g_error_free(e);
            } else if (!pw) {
                rc = not_found_or_why(&r, box, sid, err);
            } else {
                *password = ks_strdup(pw);
                secret_password_free(pw); /* wipes the non-pageable copy */
                if (!*password)
                    rc = ks_fail(err, KS_ERR_NOMEM, "out of memory reading a password");
            }
        }
    }
    run_end(&r);
    return rc;
}

static ks_code ss_del(keystore *ks, const char *box, const char *sid, unsigned timeout_ms,
                      ks_error *err)
{
    ss_run r;
    ks_code rc = begin(ks, &r, timeout_ms, err);
    if (rc == KS_OK) {
        GHashTable *a = attributes(box, sid);
        ss_call *c = call_new();
        secret_password_clearv(&BOX_SCHEMA, a, r.cancel, on_done, c);
        g_hash_table_unref(a);
        if (!call_wait(&r, c)) {
            rc = timeout_error(&r, "deleting a password", err);
        } else {
            GError *e = NULL;
            gboolean removed = secret_password_clear_finish(c->res, &e);
            call_free(c);
            if (e) {
                rc = map_error(&r, e, "deleting a password", err);
                g_error_free(e);
            } else if (!removed) {
                rc = not_found_or_why(&r, box, sid, err);
            }
        }
    }
    run_end(&r);
    return rc;
}

static ks_code ss_list(keystore *ks, ks_entry **entries, size_t *count, unsigned timeout_ms,
                       ks_error *err)
{
    ss_run r;
    ks_code rc = begin(ks, &r, timeout_ms, err);
    if (rc == KS_OK) {
        GHashTable *a = g_hash_table_new(g_str_hash, g_str_equal);
        ss_call *c = call_new();
        secret_password_searchv(&BOX_SCHEMA, a, SECRET_SEARCH_ALL, r.cancel, on_done, c);
        g_hash_table_unref(a);
        if (!call_wait(&r, c)) {
            rc = timeout_error(&r, "listing passwords", err);
        } else {
            GError *e = NULL;
            GList *items = secret_password_search_finish(c->res, &e);
            call_free(c);
            size_t cap = 0;
            if (e) {
                rc = map_error(&r, e, "listing passwords", err);
                g_error_free(e);
            }
            for (GList *l = items; l && rc == KS_OK; l = l->next) {
                GHashTable *attrs = secret_retrievable_get_attributes(l->data);
                const char *b = attrs ? g_hash_table_lookup(attrs, "box") : NULL;
                const char *s = attrs ? g_hash_table_lookup(attrs, "sandbox-id") : NULL;
                if (b && s && !ks_entries_push(entries, count, &cap, b, s))
                    rc = ks_fail(err, KS_ERR_NOMEM, "out of memory listing passwords");
                if (attrs)
                    g_hash_table_unref(attrs);
            }
            g_list_free_full(items, g_object_unref);
            if (rc == KS_OK && *count == 0) {
                /* Nothing listed: an empty keyring, or one we cannot see into. */
                ks_error why = {KS_OK, ""};
                if (not_found_or_why(&r, "*", NULL, &why) != KS_ERR_NOT_FOUND) {
                    rc = why.code;
                    if (err)
                        *err = why;
                }
            }
            if (rc != KS_OK) {
                ks_entries_free(*entries, *count);
                *entries = NULL;
                *count = 0;
            }
        }
    }
    run_end(&r);
    return rc;
}

static void ss_destroy(void *state)
{
    g_free(state);
}

static const ks_ops ss_ops = {ss_put, ss_get, ss_del, ss_list, ss_destroy};

keystore *keystore_open_secret_service(unsigned timeout_ms, ks_error *err)
{
    ks_glib_log_install();
    ss_state *s = g_new0(ss_state, 1);
    s->timeout_ms = timeout_ms ? timeout_ms : SS_DEFAULT_TIMEOUT_MS;
    ss_run r;
    run_begin(&r, s->timeout_ms);
    char *label = NULL;
    ks_error probe = {KS_OK, ""};
    SecretService *svc = get_service(&r, &probe);
    if (svc) {
        /* A locked default keyring is fine here: calls will report it (or prompt). */
        if (check_default_collection(&r, svc, &label, &probe) == KS_ERR_LOCKED)
            ks_ok(&probe);
        g_object_unref(svc);
    }
    run_end(&r);
    if (probe.code != KS_OK) {
        g_free(label);
        g_free(s);
        if (err)
            *err = probe;
        return NULL;
    }
    char *where = g_strdup_printf("Secret Service, default keyring \"%s\"", label ? label : "");
    g_free(label);
    keystore *ks = ks_new(KS_BACKEND_SECRET_SERVICE, &ss_ops, s, where, err);
    g_free(where);
    return ks;
}
