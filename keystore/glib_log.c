/* GLib/libsecret messages go to the caller's log, never to the terminal (they would corrupt
 * the curses screen). GLib allows one writer per process, so it is installed once and
 * forwards to whatever sink keystore_set_log() last chose. */
#include "keystore/ks_internal.h"

#include <glib.h>
#include <pthread.h>

static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
static ks_log_fn sink_fn;
static void *sink_ctx;

static const char *level_name(GLogLevelFlags level)
{
    if (level & G_LOG_LEVEL_ERROR)
        return "error";
    if (level & G_LOG_LEVEL_CRITICAL)
        return "critical";
    if (level & G_LOG_LEVEL_WARNING)
        return "warning";
    if (level & G_LOG_LEVEL_MESSAGE)
        return "message";
    if (level & G_LOG_LEVEL_INFO)
        return "info";
    return "debug";
}

static void emit(const char *level, const char *domain, const char *message)
{
    pthread_mutex_lock(&sink_lock);
    if (sink_fn)
        sink_fn(sink_ctx, level, domain ? domain : "", message ? message : "");
    pthread_mutex_unlock(&sink_lock);
}

static GLogWriterOutput writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields,
                               gpointer data)
{
    /* Debug output is dropped unless G_MESSAGES_DEBUG asks for it, as GLib does. */
    if ((level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO)) && !g_getenv("G_MESSAGES_DEBUG"))
        return G_LOG_WRITER_HANDLED;
    const char *domain = NULL, *message = NULL;
    for (gsize i = 0; i < n_fields; i++) {
        if (g_strcmp0(fields[i].key, "GLIB_DOMAIN") == 0 && fields[i].length < 0)
            domain = fields[i].value;
        else if (g_strcmp0(fields[i].key, "MESSAGE") == 0 && fields[i].length < 0)
            message = fields[i].value;
    }
    emit(level_name(level), domain, message);
    return G_LOG_WRITER_HANDLED;
}

static void print_handler(const gchar *text)
{
    emit("message", "print", text);
}

static void install_once(void)
{
    g_log_set_writer_func(writer, NULL, NULL);
    g_set_print_handler(print_handler);
    g_set_printerr_handler(print_handler);
}

void ks_glib_log_install(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_once);
}

void keystore_set_log(ks_log_fn log, void *ctx)
{
    ks_glib_log_install();
    pthread_mutex_lock(&sink_lock);
    sink_fn = log;
    sink_ctx = ctx;
    pthread_mutex_unlock(&sink_lock);
}
