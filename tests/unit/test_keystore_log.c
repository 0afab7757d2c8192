/* keystore_set_log(): GLib and libsecret messages must reach the caller's log sink and never
 * the terminal (stderr), or they would corrupt the curses screen. This test includes GLib
 * only to produce such messages the way libsecret does. */
#include "keystore/keystore.h"
#include "tests/lib/harness.h"

#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char seen[4096];
static int calls;

static void sink(void *ctx, const char *level, const char *domain, const char *message)
{
    calls++;
    size_t n = strlen(seen);
    snprintf(seen + n, sizeof seen - n, "[%s|%s|%s]", level, domain, message);
}

/* Runs fn with stderr redirected to a temp file; returns what was written there. */
static char *capture_stderr(void (*fn)(void))
{
    char path[] = "/tmp/ks-log-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    unlink(path);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *out = calloc(1, 4096);
    if (out) {
        lseek(fd, 0, SEEK_SET);
        ssize_t r = read(fd, out, 4095);
        out[r > 0 ? r : 0] = '\0';
    }
    close(fd);
    return out;
}

static void emit_glib_messages(void)
{
    g_log("libsecret", G_LOG_LEVEL_WARNING, "couldn't communicate with %s", "the service");
    g_log("GLib-GIO", G_LOG_LEVEL_CRITICAL, "critical thing");
    g_log("GLib", G_LOG_LEVEL_MESSAGE, "a message");
    g_log("GLib", G_LOG_LEVEL_DEBUG, "debug noise");
    g_printerr("printed to stderr by %s\n", "g_printerr");
}

static void test_glib_messages_go_to_the_sink_not_stderr(void)
{
    unsetenv("G_MESSAGES_DEBUG");
    keystore_set_log(sink, NULL);
    char *err = capture_stderr(emit_glib_messages);
    CHECK(err);
    int quiet = err[0] == '\0';
    free(err);
    CHECK_MSG(quiet, "GLib wrote to stderr");
    CHECK(strstr(seen, "[warning|libsecret|couldn't communicate with the service]"));
    CHECK(strstr(seen, "[critical|GLib-GIO|critical thing]"));
    CHECK(strstr(seen, "[message|GLib|a message]"));
    CHECK(strstr(seen, "printed to stderr by g_printerr"));
    CHECK(strstr(seen, "debug noise") == NULL); /* debug is dropped, as GLib does */
    CHECK_INT_EQ(calls, 4);
}

static void test_sink_can_change_and_be_removed(void)
{
    seen[0] = '\0';
    calls = 0;
    keystore_set_log(NULL, NULL);
    char *err = capture_stderr(emit_glib_messages);
    CHECK(err);
    int quiet = err[0] == '\0';
    free(err);
    CHECK_MSG(quiet, "GLib wrote to stderr with no sink");
    CHECK_INT_EQ(calls, 0);
    keystore_set_log(sink, NULL);
    g_log("libsecret", G_LOG_LEVEL_WARNING, "again");
    CHECK_INT_EQ(calls, 1);
    CHECK(strstr(seen, "again"));
}

int main(void)
{
    RUN(test_glib_messages_go_to_the_sink_not_stderr);
    RUN(test_sink_can_change_and_be_removed);
    return harness_finish();
}
