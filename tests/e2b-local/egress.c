/* The egress proxy (see egress.h). */
#include "egress.h"
#include "egress_policy.h"
#include "runtime.h"
#include "secrets.h"
#include "util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HEAD_MAX 32768
#define HEAD_TIMEOUT_MS 30000

struct listener {
    char id[24];
    int fd;
    bool dead;
};

struct hostmap {
    char name[256];
    struct in_addr ip;
};

static pthread_mutex_t elock = PTHREAD_MUTEX_INITIALIZER;
static struct listener *ls;
static size_t nls, capls;
static int wake[2] = {-1, -1};
static pthread_t acceptor;
static bool started;
static struct hostmap *hosts;
static size_t nhosts;
/* The connections being served: their sockets (client, upstream), so that shutdown can
 * end them and wait for their threads. */
#define CONN_MAX 256
static struct conn *live_conns[CONN_MAX];
static int nconns;
static pthread_cond_t conns_gone = PTHREAD_COND_INITIALIZER;

/* ---- the host names e2b-local resolves ---------------------------------------------- */

static int hosts_parse(const char *spec)
{
    char *copy = strdup(spec), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(copy, ", \t\n", &save); tok && rc == 0; tok = strtok_r(NULL, ", \t\n", &save)) {
        char *eq = strchr(tok, '=');
        struct in_addr a;
        if (!eq || eq == tok || (size_t)(eq - tok) >= sizeof hosts[0].name || inet_pton(AF_INET, eq + 1, &a) != 1) {
            fprintf(stderr, "e2b-local: E2B_LOCAL_EGRESS_HOSTS: '%s' is not NAME=IPv4\n", tok);
            rc = -1;
            break;
        }
        struct hostmap *n = realloc(hosts, (nhosts + 1) * sizeof *hosts);
        if (!n) {
            rc = -1;
            break;
        }
        hosts = n;
        snprintf(hosts[nhosts].name, sizeof hosts[0].name, "%.*s", (int)(eq - tok), tok);
        for (char *c = hosts[nhosts].name; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        hosts[nhosts++].ip = a;
    }
    free(copy);
    return rc;
}

static bool resolve(const char *host, struct in_addr *ip)
{
    if (inet_pton(AF_INET, host, ip) == 1)
        return true;
    for (size_t i = 0; i < nhosts; i++)
        if (strcmp(hosts[i].name, host) == 0) {
            *ip = hosts[i].ip;
            return true;
        }
    return false;
}

/* ---- one connection ------------------------------------------------------------------ */

struct conn {
    int fd;
    int up; /* -1 until connected */
    char id[24];
};

/* Registers c (false when shutting down or full: the caller closes it). */
static bool conn_add(struct conn *c)
{
    pthread_mutex_lock(&elock);
    bool ok = !g_stopping && nconns < CONN_MAX;
    if (ok)
        live_conns[nconns++] = c;
    pthread_mutex_unlock(&elock);
    return ok;
}

static void conn_set_up(struct conn *c, int up)
{
    pthread_mutex_lock(&elock);
    c->up = up;
    pthread_mutex_unlock(&elock);
    if (g_stopping)
        shutdown(up, SHUT_RDWR);
}

static void conn_remove(struct conn *c)
{
    pthread_mutex_lock(&elock);
    for (int i = 0; i < nconns; i++)
        if (live_conns[i] == c) {
            live_conns[i] = live_conns[--nconns];
            break;
        }
    if (nconns == 0)
        pthread_cond_broadcast(&conns_gone);
    pthread_mutex_unlock(&elock);
}

static bool send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static void reply(int fd, int code, const char *reason, const char *verdict, const char *msg)
{
    char body[700], head[300];
    int bl = snprintf(body, sizeof body, "e2b-local egress proxy: %s\n", msg);
    if (bl < 0 || (size_t)bl >= sizeof body)
        bl = (int)strlen(body);
    int hl = snprintf(head, sizeof head,
                      "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
                      "X-E2B-Egress: %s\r\nConnection: close\r\n\r\n",
                      code, reason, bl, verdict);
    if (send_all(fd, head, (size_t)hl))
        send_all(fd, body, (size_t)bl);
}

/* Copies bytes both ways. http: the upstream's end ends it (the request said close). */
static void pump(int client, int up, bool http)
{
    char buf[16384];
    bool cdone = false, udone = false;
    while (!(cdone && udone)) {
        struct pollfd p[2] = {{.fd = cdone ? -1 : client, .events = POLLIN},
                              {.fd = udone ? -1 : up, .events = POLLIN}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        for (int i = 0; i < 2; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int from = i == 0 ? client : up, to = i == 0 ? up : client;
            ssize_t r = recv(from, buf, sizeof buf, 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                shutdown(to, SHUT_WR);
                if (i == 0)
                    cdone = true;
                else
                    udone = true;
                if (i == 1 && (http || r < 0))
                    return;
                if (i == 0 && r < 0)
                    return;
                continue;
            }
            if (!send_all(to, buf, (size_t)r))
                return;
        }
    }
}

/* Reads the request head (through the blank line); its length, or -1. *got: bytes read. */
static ssize_t read_head(int fd, char *buf, size_t cap, size_t *got)
{
    *got = 0;
    while (*got < cap) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, HEAD_TIMEOUT_MS) <= 0)
            return -1;
        ssize_t r = recv(fd, buf + *got, cap - *got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        *got += (size_t)r;
        buf[*got] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (end)
            return end + 4 - buf;
    }
    return -1;
}

static bool host_ok(const char *h)
{
    size_t n = strlen(h);
    if (n == 0 || n > 253)
        return false;
    for (const char *c = h; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_')
            return false;
    return true;
}

/* Splits "host[:port]" (lower-cased into host); false when it is not one. */
static bool split_authority(const char *a, size_t n, char *host, size_t hostlen, int *port, int defport)
{
    const char *colon = memchr(a, ':', n);
    size_t hl = colon ? (size_t)(colon - a) : n;
    if (hl == 0 || hl >= hostlen)
        return false;
    for (size_t i = 0; i < hl; i++)
        host[i] = (char)tolower((unsigned char)a[i]);
    host[hl] = '\0';
    *port = defport;
    if (colon) {
        char pb[8];
        size_t pl = n - hl - 1;
        if (pl == 0 || pl >= sizeof pb)
            return false;
        memcpy(pb, colon + 1, pl);
        pb[pl] = '\0';
        char *end = NULL;
        long p = strtol(pb, &end, 10);
        if (*end || p < 1 || p > 65535)
            return false;
        *port = (int)p;
    }
    return host_ok(host);
}

/* value with every ${e2b.secrets.NAME} replaced (new string the caller wipes), or NULL with
 * the missing name in missing. names gets ", secret NAME" for the log. */
static char *resolve_placeholders(const char *value, char *missing, size_t mlen, char *names, size_t nlen)
{
    static const char pre[] = "${e2b.secrets.";
    size_t cap = strlen(value) + 1, len = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    const char *p = value;
    while (*p) {
        const char *s = strstr(p, pre);
        const char *close = s ? strchr(s + sizeof pre - 1, '}') : NULL;
        size_t lit = close ? (size_t)(s - p) : strlen(p);
        const char *secret = NULL;
        char name[160] = "";
        if (close && (size_t)(close - s - (sizeof pre - 1)) < sizeof name) {
            snprintf(name, sizeof name, "%.*s", (int)(close - s - (sizeof pre - 1)), s + sizeof pre - 1);
            secret = secrets_value(name);
            if (!secret) {
                snprintf(missing, mlen, "%s", name);
                explicit_bzero(out, cap);
                free(out);
                return NULL;
            }
            size_t used = strlen(names);
            snprintf(names + used, nlen - used, "%ssecret %s", used ? ", " : "", name);
        } else if (close) {
            lit = (size_t)(close + 1 - p); /* a name too long to be a secret's: left as it is */
        }
        size_t add = lit + (secret ? strlen(secret) : 0);
        if (len + add + 1 > cap) {
            size_t ncap = (len + add + 1) * 2;
            char *n = malloc(ncap);
            if (!n) {
                explicit_bzero(out, cap);
                free(out);
                if (secret) {
                    explicit_bzero((char *)secret, strlen(secret));
                    free((char *)secret);
                }
                return NULL;
            }
            memcpy(n, out, len);
            explicit_bzero(out, cap);
            free(out);
            out = n;
            cap = ncap;
        }
        memcpy(out + len, p, lit);
        len += lit;
        p += lit;
        if (secret) {
            size_t sl = strlen(secret);
            memcpy(out + len, secret, sl);
            len += sl;
            explicit_bzero((char *)secret, sl);
            free((char *)secret);
            p = close + 1;
        }
    }
    out[len] = '\0';
    return out;
}

static bool header_named(const char *line, size_t n, const char *name)
{
    size_t l = strlen(name);
    return n > l && line[l] == ':' && strncasecmp(line, name, l) == 0;
}

/* The forwarded head of a plain HTTP request: origin-form target, hop-by-hop and proxy
 * headers dropped, the rule headers set (placeholders resolved), Connection: close.
 * NULL with a reason in why when a rule names a secret that does not exist. */
static char *rewrite_head(const char *head, size_t headlen, const char *method, const char *path,
                          const char *version, const char *authority, const json_t *rules,
                          char *why, size_t whylen, char *names, size_t nlen, size_t *outlen)
{
    size_t cap = headlen + 1024, len = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)rules, k, v) cap += strlen(k) + 4;
    char *resolved[64] = {0};
    size_t nres = 0;
    json_object_foreach((json_t *)rules, k, v) {
        char missing[160] = "";
        if (nres == 64)
            break;
        resolved[nres] = resolve_placeholders(json_string_value(v), missing, sizeof missing, names, nlen);
        if (!resolved[nres]) {
            snprintf(why, whylen, "the rule's header %.100s names secret %.100s, which does not exist", k,
                     missing[0] ? missing : "?");
            for (size_t i = 0; i < nres; i++) {
                explicit_bzero(resolved[i], strlen(resolved[i]));
                free(resolved[i]);
            }
            return NULL;
        }
        cap += strlen(resolved[nres++]);
    }
    cap += strlen(path) + strlen(authority);
    char *out = malloc(cap);
    if (out) {
        len = (size_t)snprintf(out, cap, "%s %s %s\r\n", method, path, version);
        bool has_host = false;
        const char *line = strstr(head, "\r\n") + 2, *end = head + headlen - 2;
        while (line < end) {
            const char *eol = strstr(line, "\r\n");
            size_t n = (size_t)(eol - line);
            bool drop = header_named(line, n, "Proxy-Connection") || header_named(line, n, "Proxy-Authorization") ||
                        header_named(line, n, "Connection") || header_named(line, n, "Keep-Alive");
            json_object_foreach((json_t *)rules, k, v) drop = drop || header_named(line, n, k);
            has_host = has_host || header_named(line, n, "Host");
            if (!drop) {
                memcpy(out + len, line, n + 2);
                len += n + 2;
            }
            line = eol + 2;
        }
        if (!has_host)
            len += (size_t)snprintf(out + len, cap - len, "Host: %s\r\n", authority);
        size_t i = 0;
        json_object_foreach((json_t *)rules, k, v) {
            if (i < nres)
                len += (size_t)snprintf(out + len, cap - len, "%s: %s\r\n", k, resolved[i++]);
        }
        len += (size_t)snprintf(out + len, cap - len, "Connection: close\r\n\r\n");
    }
    for (size_t i = 0; i < nres; i++) {
        explicit_bzero(resolved[i], strlen(resolved[i]));
        free(resolved[i]);
    }
    *outlen = len;
    return out;
}

static void serve(struct conn *c)
{
    char *buf = malloc(HEAD_MAX + 1);
    size_t got = 0;
    ssize_t headlen = buf ? read_head(c->fd, buf, HEAD_MAX, &got) : -1;
    if (headlen < 0) {
        if (buf && got)
            reply(c->fd, 400, "Bad Request", "error", "the request head is incomplete or too long");
        free(buf);
        return;
    }
    char method[16], target[4096], version[16];
    const char *eol = strstr(buf, "\r\n");
    if (sscanf(buf, "%15s %4095s %15s", method, target, version) != 3 || (size_t)(eol - buf) > 4200 ||
        strncmp(version, "HTTP/1.", 7) != 0) {
        reply(c->fd, 400, "Bad Request", "error", "not an HTTP/1 request line");
        free(buf);
        return;
    }
    bool tunnel = strcmp(method, "CONNECT") == 0;
    char host[256];
    int port = 0;
    const char *path = "/";
    char authority[300];
    bool ok;
    if (tunnel) {
        ok = split_authority(target, strlen(target), host, sizeof host, &port, -1) && port > 0;
        snprintf(authority, sizeof authority, "%.299s", target);
    } else if (strncasecmp(target, "http://", 7) == 0) {
        const char *a = target + 7;
        size_t an = strcspn(a, "/?#");
        path = a[an] == '/' ? a + an : "/";
        ok = !memchr(a, '@', an) && split_authority(a, an, host, sizeof host, &port, 80);
        snprintf(authority, sizeof authority, "%.*s", (int)(an < 299 ? an : 299), a);
    } else {
        reply(c->fd, 400, "Bad Request", "error",
              strncasecmp(target, "https://", 8) == 0 ? "https targets go through CONNECT"
                                                      : "only absolute http:// targets and CONNECT are proxied");
        log_line("egress %s refused %s (not a proxy request)", c->id, method);
        free(buf);
        return;
    }
    if (!ok) {
        reply(c->fd, 400, "Bad Request", "error", "the target is not host:port");
        free(buf);
        return;
    }
    json_t *net = NULL;
    int internet = -1;
    bool running = false;
    pthread_mutex_lock(&g_lock);
    struct sandbox *sb = sandbox_find_locked(c->id);
    if (sb && sb->state == SB_RUNNING) {
        running = true;
        net = sb->network ? json_deep_copy(sb->network) : NULL;
        internet = sb->allow_internet;
    }
    pthread_mutex_unlock(&g_lock);
    struct in_addr ip;
    bool resolved = resolve(host, &ip);
    char why[300], msg[700];
    bool allowed = running && egress_allowed(net, internet, host, resolved ? &ip : NULL, why, sizeof why);
    if (!running)
        snprintf(why, sizeof why, "the sandbox is not running");
    if (!allowed) {
        snprintf(msg, sizeof msg, "%s:%d is not allowed (%s)", host, port, why);
        reply(c->fd, 403, "Forbidden", "denied", msg);
        log_line("egress %s denied %s %s:%d (%s)", c->id, method, host, port, why);
        json_decref(net);
        free(buf);
        return;
    }
    int up = -1;
    const char *fail = NULL;
    if (!resolved)
        fail = "e2b-local resolves only the names of E2B_LOCAL_EGRESS_HOSTS";
    else if ((ntohl(ip.s_addr) >> 24) != 127)
        fail = "e2b-local connects only to loopback addresses";
    else {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr = ip};
        up = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (up >= 0)
            conn_set_up(c, up);
        if (up < 0 || connect(up, (struct sockaddr *)&sa, sizeof sa) != 0)
            fail = "the connection was refused";
    }
    if (fail) {
        snprintf(msg, sizeof msg, "%s:%d is allowed (%s) but cannot be reached: %s", host, port, why, fail);
        reply(c->fd, 502, "Bad Gateway", "unreachable", msg);
        log_line("egress %s allowed %s %s:%d (%s), unreachable: %s", c->id, method, host, port, why, fail);
        json_decref(net);
        free(buf);
        return;
    }
    size_t rest = got - (size_t)headlen;
    if (tunnel) {
        static const char ok200[] = "HTTP/1.1 200 Connection established\r\n\r\n";
        log_line("egress %s allowed CONNECT %s:%d (%s), tunnel: rules not applied", c->id, host, port, why);
        if (send_all(c->fd, ok200, sizeof ok200 - 1) && (!rest || send_all(up, buf + headlen, rest)))
            pump(c->fd, up, false);
    } else {
        char key[256] = "", names[512] = "";
        json_t *rules = egress_rule_headers(net, host, key, sizeof key);
        size_t outlen = 0;
        char *out = rewrite_head(buf, (size_t)headlen, method, path, version, authority, rules, msg,
                                 sizeof msg, names, sizeof names, &outlen);
        if (!out) {
            reply(c->fd, 502, "Bad Gateway", "error", msg);
            log_line("egress %s allowed %s %s:%d (%s), refused: %s", c->id, method, host, port, why, msg);
        } else {
            char hnames[400] = "";
            const char *k;
            json_t *v;
            json_object_foreach(rules, k, v) {
                size_t u = strlen(hnames);
                snprintf(hnames + u, sizeof hnames - u, "%s%s", u ? " " : "", k);
            }
            if (key[0])
                log_line("egress %s allowed %s %s:%d (%s), rule %s sets %s%s%s%s", c->id, method, host, port, why,
                         key, hnames, names[0] ? " (" : "", names, names[0] ? ")" : "");
            else
                log_line("egress %s allowed %s %s:%d (%s)", c->id, method, host, port, why);
            bool sent = send_all(up, out, outlen);
            explicit_bzero(out, outlen);
            free(out);
            if (sent && (!rest || send_all(up, buf + headlen, rest)))
                pump(c->fd, up, true);
        }
        json_decref(rules);
    }
    json_decref(net);
    free(buf);
}

static void *conn_main(void *arg)
{
    struct conn *c = arg;
    serve(c);
    conn_remove(c);
    if (c->up >= 0)
        close(c->up);
    close(c->fd);
    free(c);
    return NULL;
}

/* ---- the listeners ------------------------------------------------------------------- */

static void *acceptor_main(void *arg)
{
    (void)arg;
    struct pollfd *p = NULL;
    struct listener *snap = NULL;
    size_t pcap = 0;
    while (!g_stopping) {
        pthread_mutex_lock(&elock);
        size_t w = 0;
        for (size_t i = 0; i < nls; i++) {
            if (ls[i].dead)
                close(ls[i].fd);
            else
                ls[w++] = ls[i];
        }
        nls = w;
        if (nls + 1 > pcap) {
            pcap = (nls + 1) * 2;
            p = realloc(p, pcap * sizeof *p);
            snap = realloc(snap, pcap * sizeof *snap);
        }
        p[0] = (struct pollfd){.fd = wake[0], .events = POLLIN};
        for (size_t i = 0; i < nls; i++) {
            p[i + 1] = (struct pollfd){.fd = ls[i].fd, .events = POLLIN};
            snap[i] = ls[i];
        }
        size_t n = nls;
        pthread_mutex_unlock(&elock);
        if (poll(p, n + 1, 1000) <= 0)
            continue;
        if (p[0].revents & POLLIN) {
            char drain[64];
            while (read(wake[0], drain, sizeof drain) > 0)
                ;
        }
        for (size_t i = 0; i < n; i++) {
            if (!(p[i + 1].revents & POLLIN))
                continue;
            int fd = accept4(snap[i].fd, NULL, NULL, SOCK_CLOEXEC);
            if (fd < 0)
                continue;
            struct conn *c = malloc(sizeof *c);
            pthread_t t;
            pthread_attr_t at;
            pthread_attr_init(&at);
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            if (c) {
                c->fd = fd;
                c->up = -1;
                snprintf(c->id, sizeof c->id, "%s", snap[i].id);
            }
            if (!c || !conn_add(c)) {
                close(fd);
                free(c);
            } else if (pthread_create(&t, &at, conn_main, c) != 0) {
                conn_remove(c);
                close(fd);
                free(c);
            }
            pthread_attr_destroy(&at);
        }
    }
    free(p);
    free(snap);
    return NULL;
}

static void poke(void)
{
    if (wake[1] >= 0) {
        ssize_t w = write(wake[1], "x", 1);
        (void)w;
    }
}

int egress_init(void)
{
    const char *spec = getenv("E2B_LOCAL_EGRESS_HOSTS");
    if (spec && *spec && hosts_parse(spec) != 0)
        return -1;
    if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0 || pthread_create(&acceptor, NULL, acceptor_main, NULL) != 0) {
        fprintf(stderr, "e2b-local: cannot start the egress proxy\n");
        return -1;
    }
    started = true;
    return 0;
}

void egress_shutdown(void)
{
    if (started) {
        poke();
        pthread_join(acceptor, NULL);
        started = false;
    }
    /* End the connections still served and wait (bounded) for their threads. */
    pthread_mutex_lock(&elock);
    for (int i = 0; i < nconns; i++) {
        shutdown(live_conns[i]->fd, SHUT_RDWR);
        if (live_conns[i]->up >= 0)
            shutdown(live_conns[i]->up, SHUT_RDWR);
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    while (nconns > 0 && pthread_cond_timedwait(&conns_gone, &elock, &until) == 0)
        ;
    pthread_mutex_unlock(&elock);
    pthread_mutex_lock(&elock);
    for (size_t i = 0; i < nls; i++)
        close(ls[i].fd);
    free(ls);
    ls = NULL;
    nls = capls = 0;
    pthread_mutex_unlock(&elock);
    for (int i = 0; i < 2; i++)
        if (wake[i] >= 0)
            close(wake[i]), wake[i] = -1;
    free(hosts);
    hosts = NULL;
    nhosts = 0;
}

static void mark_dead(const char *id)
{
    for (size_t i = 0; i < nls; i++)
        if (strcmp(ls[i].id, id) == 0)
            ls[i].dead = true;
}

void egress_attach_locked(struct sandbox *sb)
{
    int fd = runtime_socket_locked(sb);
    int one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(EGRESS_PORT),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 64) != 0 ||
        fcntl(fd, F_SETFL, O_NONBLOCK) != 0) {
        log_line("egress %s: no proxy listener in the sandbox: %s", sb->id, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    pthread_mutex_lock(&elock);
    mark_dead(sb->id);
    if (nls == capls) {
        size_t ncap = capls ? capls * 2 : 16;
        struct listener *n = realloc(ls, ncap * sizeof *ls);
        if (!n) {
            pthread_mutex_unlock(&elock);
            close(fd);
            return;
        }
        ls = n;
        capls = ncap;
    }
    ls[nls] = (struct listener){.fd = fd};
    snprintf(ls[nls].id, sizeof ls[nls].id, "%s", sb->id);
    nls++;
    pthread_mutex_unlock(&elock);
    poke();
}

void egress_detach_locked(struct sandbox *sb)
{
    pthread_mutex_lock(&elock);
    mark_dead(sb->id);
    pthread_mutex_unlock(&elock);
    poke();
}
