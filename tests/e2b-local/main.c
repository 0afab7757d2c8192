/* e2b-local: an E2B-compatible server on loopback for tests and `make demo`.
 *
 *   e2b-local --listen 127.0.0.1:PORT --state DIR [--api-key KEY] [--domain HOST[:PORT]]
 *             [--ro-bind HOST[:BOX]]...
 *
 * Prints "e2b-local listening on http://127.0.0.1:PORT" once ready (PORT 0 picks a free
 * port), logs requests to DIR/e2b-local.log and stops cleanly on SIGTERM or SIGINT: every
 * sandbox process is killed, records and files stay for the next start. */
#include "cow.h"
#include "http.h"
#include "lifecycle.h"
#include "process.h"
#include "runtime.h"
#include "sandbox.h"
#include "secrets.h"
#include "egress.h"
#include "templates.h"
#include "trash.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs("usage: e2b-local --listen 127.0.0.1:PORT --state DIR [--api-key KEY] [--domain HOST[:PORT]]\n"
          "  --listen ADDR:PORT  address to serve on (PORT 0 picks a free port)\n"
          "  --state DIR         sandboxes, secrets and the request log live here\n"
          "  --api-key KEY       the only X-API-KEY accepted (default: any non-empty key)\n"
          "  --domain D          sandbox domain handed to clients (default: localhost:PORT)\n"
          "  --ro-bind HOST[:BOX] every sandbox also sees directory HOST read-only at BOX\n"
          "                      (default the same path; up to 4 times)\n"
          "                      (make demo: an OpenCode installed outside /usr)\n"
          "Environment: E2B_LOCAL_FAULTS='[{\"kind\":\"503\",\"count\":1}]' queues faults at start;\n"
          "  E2B_LOCAL_IDLE_HOLDER_MS (default 30000): an idle sandbox's namespaces stop after this.\n",
          f);
}

static const char *find_bwrap(void)
{
    static char path[512];
    const char *env = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", env ? env : "/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, sizeof path, "%s/bwrap", d);
        if (access(path, X_OK) == 0)
            return path;
    }
    return NULL;
}

static void *ticker_main(void *arg)
{
    (void)arg;
    while (!g_stopping) {
        lifecycle_tick();
        usleep(200000);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *listen = NULL, *state = NULL, *key = NULL, *domain = NULL, *ro_bind = NULL;
    int nbinds = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = strcmp(a, "--listen") == 0    ? &listen
                            : strcmp(a, "--state") == 0   ? &state
                            : strcmp(a, "--api-key") == 0 ? &key
                            : strcmp(a, "--domain") == 0  ? &domain
                            : strcmp(a, "--ro-bind") == 0 ? &ro_bind
                                                          : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (!slot || i + 1 >= argc) {
            fprintf(stderr, "e2b-local: %s %s\n", slot ? "missing value for" : "unknown option", a);
            usage(stderr);
            return 2;
        }
        *slot = argv[++i];
        if (slot == &ro_bind) {
            if (*ro_bind != '/' || strlen(ro_bind) >= sizeof g_cfg.ro_bind[0] || nbinds == 4) {
                fprintf(stderr, "e2b-local: --ro-bind wants an absolute directory (at most 4)\n");
                return 2;
            }
            const char *to = strchr(ro_bind, ':');
            if (to && to[1] != '/') {
                fprintf(stderr, "e2b-local: --ro-bind HOST:BOX wants an absolute BOX path\n");
                return 2;
            }
            snprintf(g_cfg.ro_bind[nbinds], sizeof g_cfg.ro_bind[0], "%.*s",
                     (int)(to ? (size_t)(to - ro_bind) : strlen(ro_bind)), ro_bind);
            snprintf(g_cfg.ro_bind_to[nbinds], sizeof g_cfg.ro_bind_to[0], "%s",
                     to ? to + 1 : g_cfg.ro_bind[nbinds]);
            int depth = 0;
            for (const char *c = g_cfg.ro_bind_to[nbinds] + 1; *c; c++)
                depth += *c == '/';
            if (depth > RUNTIME_BIND_DEPTH) {
                fprintf(stderr, "e2b-local: --ro-bind BOX path is deeper than %d directories\n",
                        RUNTIME_BIND_DEPTH);
                return 2;
            }
            nbinds++;
        }
    }
    if (!listen || !state) {
        fprintf(stderr, "e2b-local: --listen and --state are required\n");
        usage(stderr);
        return 2;
    }
    const char *colon = strrchr(listen, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || !end || *end || port < 0 || port > 65535 || (size_t)(colon - listen) >= sizeof g_cfg.listen_host) {
        fprintf(stderr, "e2b-local: --listen wants ADDRESS:PORT, e.g. 127.0.0.1:0\n");
        return 2;
    }
    snprintf(g_cfg.listen_host, sizeof g_cfg.listen_host, "%.*s", (int)(colon - listen), listen);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, g_cfg.listen_host, &sa.sin_addr) != 1) {
        fprintf(stderr, "e2b-local: %s is not an IPv4 address\n", g_cfg.listen_host);
        return 2;
    }
    if (key && strlen(key) >= sizeof g_cfg.api_key) {
        fprintf(stderr, "e2b-local: --api-key is too long\n");
        return 2;
    }
    snprintf(g_cfg.api_key, sizeof g_cfg.api_key, "%s", key ? key : "");
    char sub[2200];
    if (mkdir_p(state, 0700) != 0 || !realpath(state, g_cfg.state_dir)) {
        fprintf(stderr, "e2b-local: cannot use state directory %s: %s\n", state, strerror(errno));
        return 1;
    }
    snprintf(sub, sizeof sub, "%s/sandboxes", g_cfg.state_dir);
    mkdir_p(sub, 0700);
    snprintf(sub, sizeof sub, "%s/roots", g_cfg.state_dir);
    mkdir_p(sub, 0755);
    const char *bwrap = find_bwrap();
    if (!bwrap) {
        fprintf(stderr, "e2b-local: bwrap (bubblewrap) is not installed; sandboxes need it\n");
        return 1;
    }
    snprintf(g_cfg.bwrap, sizeof g_cfg.bwrap, "%s", bwrap);
    g_cfg.net_isolation = true; /* without root too: bwrap's user namespace allows it */
    const char *idle = getenv("E2B_LOCAL_IDLE_HOLDER_MS");
    g_cfg.idle_holder_ms = idle && atoll(idle) > 0 ? atoll(idle) : 30000;

    snprintf(sub, sizeof sub, "%s/e2b-local.log", g_cfg.state_dir);
    log_open(sub);
    secrets_load();
    snprintf(sub, sizeof sub, "%s/templates", g_cfg.state_dir);
    mkdir_p(sub, 0700);
    templates_load();
    if (trash_start() != 0)
        log_line("warning: no trash remover: deleted sandboxes' files go at once");
    int loaded = sandbox_load_all();
    cow_load_all();
    const char *faults_env = getenv("E2B_LOCAL_FAULTS");
    if (faults_env && *faults_env) {
        json_error_t jerr;
        json_t *spec = json_loads(faults_env, 0, &jerr);
        char err[200] = "";
        size_t i;
        json_t *f;
        if (json_is_object(spec) && faults_add(spec, err, sizeof err) != 0)
            fprintf(stderr, "e2b-local: E2B_LOCAL_FAULTS: %s\n", err);
        json_array_foreach(spec, i, f) {
            if (faults_add(f, err, sizeof err) != 0)
                fprintf(stderr, "e2b-local: E2B_LOCAL_FAULTS: %s\n", err);
        }
        if (!spec)
            fprintf(stderr, "e2b-local: E2B_LOCAL_FAULTS is not JSON: %s\n", jerr.text);
        json_decref(spec);
    }

    /* Signals are taken by sigwait in this thread only. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (runtime_init() != 0) {
        fprintf(stderr, "e2b-local: cannot start threads\n");
        return 1;
    }
    if (egress_init() != 0) {
        runtime_shutdown();
        return 1;
    }
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG |
            MHD_ALLOW_UPGRADE, 0,
        NULL, NULL, http_access, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_URI_LOG_CALLBACK,
        http_uri_log, NULL, MHD_OPTION_NOTIFY_COMPLETED, http_completed, NULL, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)0, MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "e2b-local: cannot listen on %s (in use?)\n", listen);
        egress_shutdown();
        runtime_shutdown();
        return 1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    g_cfg.port = info ? info->port : (int)port;
    if (domain)
        snprintf(g_cfg.domain, sizeof g_cfg.domain, "%s", domain);
    else
        snprintf(g_cfg.domain, sizeof g_cfg.domain, "localhost:%d", g_cfg.port);
    pthread_t ticker;
    pthread_create(&ticker, NULL, ticker_main, NULL);
    log_line("e2b-local listening on http://%s:%d (state %s, %d sandboxes loaded, network namespaces %s)",
             g_cfg.listen_host, g_cfg.port, g_cfg.state_dir, loaded < 0 ? 0 : loaded,
             g_cfg.net_isolation ? "on" : "off");
    printf("e2b-local listening on http://%s:%d\n", g_cfg.listen_host, g_cfg.port);
    fflush(stdout);

    int sig = 0;
    sigwait(&sigs, &sig);
    log_line("signal %d: stopping", sig);
    g_stopping = 1;
    trash_stop();
    MHD_stop_daemon(d);
    pthread_join(ticker, NULL);
    lifecycle_stop_all();
    procs_wait_all(10000);
    egress_shutdown();
    runtime_shutdown();
    cow_unmount_all();
    sandbox_free_all();
    secrets_free();
    log_line("stopped");
    log_close();
    return 0;
}
