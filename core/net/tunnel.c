/* The loopback tunnel (tunnel.h): an accepting thread, one thread per connection that reads
 * the request head, rewrites it, connects upstream through libcurl (CONNECT_ONLY, so TLS is
 * libcurl's) and then relays bytes both ways until either side closes or the tunnel stops.
 * Every wait also watches the stop pipe, so close never waits for a slow peer. */
#include "core/net/tunnel.h"

#include <curl/curl.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/net/peer_uid.h"
#include "core/net/tunnel_gate.h"
#include "core/util/log.h"
#include "core/util/str.h"

enum {
    HEAD_MAX = 64 * 1024,
    HEAD_WAIT_MS = 5000,  /* for the whole head: a legitimate client sends it at once */
    MAX_CONNS = 64,
    PENDING_PER_USER = 16, /* connections of one uid still without a complete head */
    RELAY_BUF = 64 * 1024,
};

/* The bucket of the peers whose uid the kernel does not tell. */
#define UNKNOWN_UID ((uid_t)-1)

struct conn {
    e2b_tunnel *t;
    int fd;
    uid_t uid;       /* the peer's (UNKNOWN_UID when not known) */
    bool pending;    /* no complete head yet (under t->lock) */
    pthread_t thread;
    atomic_int finished;
    struct conn *next;
};

struct e2b_tunnel {
    int listen_fd;
    int stop_pipe[2];
    int port;
    char url[64];
    char *upstream;   /* scheme://authority */
    char *host;       /* authority, for Host */
    char **headers;   /* NULL-ended copies (secret) */
    uint8_t *cred;    /* "opencode:PASSWORD" (secret); NULL when owner_only */
    size_t cred_len;
    bool owner_only;  /* only connections of owner (the peer's uid) are served */
    uid_t owner;
    long connect_timeout_ms;
    pthread_t acceptor;
    pthread_mutex_t lock;
    struct conn *conns;
    int open_conns;
    atomic_ulong accepted;
};

/* ---- the head rewrite ---- */

static bool named(const char *line, size_t len, const char *name)
{
    size_t n = strlen(name);
    return len > n && line[n] == ':' && strncasecmp(line, name, n) == 0;
}

/* Whether a header line has the name of one of the "Name: value" lines of extra. */
static bool named_like_extra(const char *line, size_t len, const char *const *extra)
{
    for (size_t i = 0; extra && extra[i]; i++) {
        const char *colon = strchr(extra[i], ':');
        size_t n = colon ? (size_t)(colon - extra[i]) : 0;
        if (n && len > n && line[n] == ':' && strncasecmp(line, extra[i], n) == 0)
            return true;
    }
    return false;
}

static bool has_token(const char *v, size_t len, const char *tok)
{
    size_t n = strlen(tok);
    for (size_t i = 0; i + n <= len; i++)
        if (strncasecmp(v + i, tok, n) == 0)
            return true;
    return false;
}

char *e2b_tunnel_rewrite_head(const char *head, size_t len, const char *host,
                              const char *const *extra, size_t *out_len, int *upgrade)
{
    const char *eol = memmem(head, len, "\r\n", 2);
    *upgrade = 0;
    if (!eol || len < 4 || memcmp(head + len - 4, "\r\n\r\n", 4) != 0)
        return NULL;
    /* "METHOD SP target SP HTTP/1.x": a token, then printable text. */
    size_t first = (size_t)(eol - head);
    const char *sp = memchr(head, ' ', first);
    if (!sp || sp == head || first < 14 || memcmp(eol - 8, "HTTP/1.", 7) != 0)
        return NULL;
    for (size_t i = 0; i < first; i++)
        if ((unsigned char)head[i] < ' ' || (unsigned char)head[i] == 0x7f)
            return NULL;
    bool wants_upgrade = false, conn_upgrade = false;
    for (const char *p = eol + 2; p < head + len - 2;) {
        const char *e = memmem(p, (size_t)(head + len - p), "\r\n", 2);
        size_t n = (size_t)(e - p);
        if (named(p, n, "Upgrade"))
            wants_upgrade = true;
        if (named(p, n, "Connection") && has_token(p, n, "upgrade"))
            conn_upgrade = true;
        p = e + 2;
    }
    *upgrade = wants_upgrade && conn_upgrade;
    char *out = NULL;
    size_t cap = 0;
    FILE *f = open_memstream(&out, &cap);
    if (!f)
        return NULL;
    fwrite(head, 1, first + 2, f);
    fprintf(f, "Host: %s\r\n", host);
    for (const char *p = eol + 2; p < head + len - 2;) {
        const char *e = memmem(p, (size_t)(head + len - p), "\r\n", 2);
        size_t n = (size_t)(e - p);
        bool drop = named(p, n, "Host") || named(p, n, "Connection") ||
                    named(p, n, "Keep-Alive") || named(p, n, "Proxy-Connection") ||
                    (!*upgrade && named(p, n, "Upgrade")) || named_like_extra(p, n, extra);
        if (!drop)
            fwrite(p, 1, n + 2, f);
        p = e + 2;
    }
    for (size_t i = 0; extra && extra[i]; i++)
        fprintf(f, "%s\r\n", extra[i]);
    fputs(*upgrade ? "Connection: Upgrade\r\n\r\n" : "Connection: close\r\n\r\n", f);
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    *out_len = cap;
    return out;
}

/* ---- waiting and writing, always with the stop pipe ---- */

/* Waits for fd to be ready for events; 1 ready, 0 timeout, -1 stop or error. */
static int wait_fd(e2b_tunnel *t, int fd, short events, int timeout_ms)
{
    struct pollfd p[2] = {{.fd = fd, .events = events}, {.fd = t->stop_pipe[0], .events = POLLIN}};
    for (;;) {
        int r = poll(p, 2, timeout_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || (p[1].revents & POLLIN))
            return -1;
        if (r == 0)
            return 0;
        return 1;
    }
}

static bool client_write(e2b_tunnel *t, int fd, const char *b, size_t n)
{
    while (n) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_fd(t, fd, POLLOUT, -1) < 0)
                return false;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        b += w;
        n -= (size_t)w;
    }
    return true;
}

static bool upstream_write(e2b_tunnel *t, CURL *c, curl_socket_t s, const char *b, size_t n)
{
    while (n) {
        size_t w = 0;
        CURLcode rc = curl_easy_send(c, b, n, &w);
        if (rc == CURLE_AGAIN) {
            if (wait_fd(t, (int)s, POLLOUT, -1) < 0)
                return false;
            continue;
        }
        if (rc != CURLE_OK)
            return false;
        b += w;
        n -= w;
    }
    return true;
}

static const char *reason_phrase(int status)
{
    switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 421: return "Misdirected Request";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    default: return "Service Unavailable";
    }
}

static void reply_error(e2b_tunnel *t, int fd, int status, const char *text)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                     "%sConnection: close\r\n\r\n%s",
                     status, reason_phrase(status), strlen(text),
                     status == 401 ? "WWW-Authenticate: Basic realm=\"e2b-tui tunnel\"\r\n" : "",
                     text);
    if (n > 0 && (size_t)n < sizeof buf)
        client_write(t, fd, buf, (size_t)n);
}

/* ---- one connection ---- */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads the request head (and whatever followed it) into buf within HEAD_WAIT_MS in all;
 * returns the head's length, 0 when the client went away or the tunnel stops, -1 when it
 * is too big, -2 when it did not come in time. */
static long read_head(e2b_tunnel *t, int fd, char *buf, size_t *have)
{
    int64_t deadline = now_ms() + HEAD_WAIT_MS;
    for (;;) {
        char *end = *have >= 4 ? memmem(buf, *have, "\r\n\r\n", 4) : NULL;
        if (end)
            return (long)(end - buf) + 4;
        if (*have >= HEAD_MAX)
            return -1;
        int64_t left = deadline - now_ms();
        int w = left > 0 ? wait_fd(t, fd, POLLIN, (int)left) : 0;
        if (w <= 0)
            return w == 0 ? -2 : 0;
        ssize_t r = recv(fd, buf + *have, HEAD_MAX - *have, 0);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0)
            return 0;
        *have += (size_t)r;
    }
}

/* The path of the request line without its query, for the log (a query may name files or
 * carry the credential). */
static void log_target(const char *head, char *out, size_t outsz)
{
    const char *sp = strchr(head, ' ');
    size_t m = sp ? (size_t)(sp - head) : 0;
    const char *p = sp ? sp + 1 : "";
    size_t n = strcspn(p, " ?\r\n");
    snprintf(out, outsz, "%.*s %.*s", (int)(m > 16 ? 16 : m), head, (int)(n > 120 ? 120 : n), p);
    for (char *c = out; *c; c++)
        if ((unsigned char)*c < ' ' || (unsigned char)*c > '~')
            *c = '?';
}

/* What the relay knows of the one request it carries. */
struct exchange {
    e2b_tunnel_body body; /* where the request's body ends */
    bool upgrade;         /* the client asked for an upgrade */
    bool raw;             /* the box switched protocols (101): bytes pass as they are */
    char status[12];      /* the first bytes of the answer, while an upgrade is undecided */
    size_t status_len;
};

/* Sends upstream the part of n client bytes that belongs to the request: its body, or
 * everything once the box switched protocols. Bytes past the body (a second request on
 * the same connection) are dropped: the box was asked to close after this one, and no
 * request reaches it without passing the gate. False ends the connection. */
static bool forward_up(e2b_tunnel *t, CURL *c, curl_socket_t s, struct exchange *x,
                       const char *b, size_t n, uint64_t *up)
{
    size_t k = x->raw ? n : e2b_tunnel_body_feed(&x->body, b, n);
    if (!x->raw && e2b_tunnel_body_bad(&x->body))
        return false;
    *up += k;
    return upstream_write(t, c, s, b, k);
}

/* Watches the start of the answer to an upgrade: 101 lets the bytes pass both ways. */
static void watch_status(struct exchange *x, const char *b, size_t n)
{
    if (!x->upgrade || x->raw || x->status_len == sizeof x->status)
        return;
    size_t k = sizeof x->status - x->status_len;
    memcpy(x->status + x->status_len, b, n < k ? n : k);
    x->status_len += n < k ? n : k;
    if (x->status_len == sizeof x->status)
        x->raw = memcmp(x->status, "HTTP/1.1 101", 12) == 0 ||
                 memcmp(x->status, "HTTP/1.0 101", 12) == 0;
}

/* Relays both ways until one side closes or the tunnel stops. */
static void relay(e2b_tunnel *t, int fd, CURL *c, curl_socket_t s, struct exchange *x,
                  uint64_t *up, uint64_t *down)
{
    char *buf = malloc(RELAY_BUF);
    if (!buf)
        return;
    for (;;) {
        struct pollfd p[3] = {{.fd = fd, .events = POLLIN},
                              {.fd = (int)s, .events = POLLIN},
                              {.fd = t->stop_pipe[0], .events = POLLIN}};
        int r = poll(p, 3, -1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || (p[2].revents & POLLIN))
            break;
        if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            /* Drain what libcurl has (TLS may hold more than the socket shows). */
            bool closed = false;
            for (;;) {
                size_t got = 0;
                CURLcode rc = curl_easy_recv(c, buf, RELAY_BUF, &got);
                if (rc == CURLE_AGAIN)
                    break;
                if (rc != CURLE_OK || got == 0) {
                    closed = true;
                    break;
                }
                *down += got;
                watch_status(x, buf, got);
                if (!client_write(t, fd, buf, got)) {
                    closed = true;
                    break;
                }
            }
            if (closed)
                break;
        }
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(fd, buf, RELAY_BUF, 0);
            if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
                continue;
            if (n <= 0)
                break; /* the client closed (or closed early): end the upstream too */
            if (!forward_up(t, c, s, x, buf, (size_t)n, up))
                break;
        }
    }
    free(buf);
}

/* The head is in (or the connection is over): it no longer counts against its user. */
static void head_done(struct conn *k)
{
    pthread_mutex_lock(&k->t->lock);
    k->pending = false;
    pthread_mutex_unlock(&k->t->lock);
}

static void serve(struct conn *k)
{
    e2b_tunnel *t = k->t;
    if (t->owner_only && k->uid != t->owner) {
        /* Refused before a byte is read: another user (or one the kernel does not name). */
        head_done(k);
        e2b_logf("tunnel: a connection of another user (uid %ld) refused", k->uid == UNKNOWN_UID ? -1L : (long)k->uid);
        reply_error(t, k->fd, 403, "e2b-tui tunnel: only the user who opened this tunnel may use it\n");
        return;
    }
    char *buf = malloc(HEAD_MAX);
    size_t have = 0;
    if (!buf)
        return;
    long head_len = read_head(t, k->fd, buf, &have);
    head_done(k);
    if (head_len <= 0) {
        if (head_len == -1)
            reply_error(t, k->fd, 431, "e2b-tui tunnel: the request head is too big\n");
        else if (head_len == -2)
            reply_error(t, k->fd, 408, "e2b-tui tunnel: the request head did not come\n");
        free(buf);
        return;
    }
    struct exchange x = {0};
    e2b_tunnel_verdict v =
        e2b_tunnel_gate(buf, (size_t)head_len, t->port, t->cred, t->cred_len, &x.body);
    char what[160];
    log_target(buf, what, sizeof what);
    if (v.status) {
        char text[160];
        snprintf(text, sizeof text, "e2b-tui tunnel: %s\n", v.reason);
        e2b_logf("tunnel: %s refused (%d): %s", what, v.status, v.reason);
        reply_error(t, k->fd, v.status, text);
        explicit_bzero(buf, have); /* it may hold a wrong guess of the password */
        free(buf);
        return;
    }
    int upgrade = 0;
    size_t out_len = 0;
    char *head = e2b_tunnel_rewrite_head(buf, (size_t)head_len, t->host,
                                         (const char *const *)t->headers, &out_len, &upgrade);
    x.upgrade = upgrade;
    if (!head) {
        reply_error(t, k->fd, 400, "e2b-tui tunnel: not an HTTP/1 request\n");
        explicit_bzero(buf, have);
        free(buf);
        return;
    }
    CURL *c = curl_easy_init();
    curl_socket_t s = CURL_SOCKET_BAD;
    CURLcode rc = CURLE_FAILED_INIT;
    char errbuf[CURL_ERROR_SIZE] = "";
    if (c) {
        curl_easy_setopt(c, CURLOPT_URL, t->upstream);
        curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, t->connect_timeout_ms);
        curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
        rc = curl_easy_perform(c);
        if (rc == CURLE_OK)
            rc = curl_easy_getinfo(c, CURLINFO_ACTIVESOCKET, &s);
    }
    uint64_t up = (uint64_t)head_len, down = 0;
    if (rc != CURLE_OK || s == CURL_SOCKET_BAD) {
        e2b_logf("tunnel: %s: cannot reach the server: %s", what,
                 errbuf[0] ? errbuf : curl_easy_strerror(rc));
        reply_error(t, k->fd, 502, "e2b-tui tunnel: the box's server cannot be reached\n");
    } else if (upstream_write(t, c, s, head, out_len) &&
               forward_up(t, c, s, &x, buf + head_len, have - (size_t)head_len, &up)) {
        relay(t, k->fd, c, s, &x, &up, &down);
        e2b_logf("tunnel: %s%s: %llu bytes up, %llu down", what, upgrade ? " (upgrade)" : "",
                 (unsigned long long)up, (unsigned long long)down);
    }
    /* The heads hold the added headers (the token) and the client's credential. */
    explicit_bzero(head, out_len);
    free(head);
    explicit_bzero(buf, have);
    free(buf);
    if (c)
        curl_easy_cleanup(c);
}

static void *conn_main(void *arg)
{
    struct conn *k = arg;
    serve(k);
    close(k->fd);
    k->fd = -1;
    pthread_mutex_lock(&k->t->lock);
    k->pending = false;
    k->t->open_conns--;
    pthread_mutex_unlock(&k->t->lock);
    atomic_store(&k->finished, 1);
    return NULL;
}

/* Joins and frees the connections that ended (all of them when all is set). */
static void reap(e2b_tunnel *t, bool all)
{
    pthread_mutex_lock(&t->lock);
    struct conn **pp = &t->conns;
    while (*pp) {
        struct conn *k = *pp;
        if (all || atomic_load(&k->finished)) {
            *pp = k->next;
            pthread_mutex_unlock(&t->lock);
            pthread_join(k->thread, NULL);
            free(k);
            pthread_mutex_lock(&t->lock);
        } else {
            pp = &k->next;
        }
    }
    pthread_mutex_unlock(&t->lock);
}

/* How many connections of uid are still without a complete head (under t->lock). */
static int pending_of(const e2b_tunnel *t, uid_t uid)
{
    int n = 0;
    for (const struct conn *k = t->conns; k; k = k->next)
        n += k->pending && k->uid == uid;
    return n;
}

/* Starts the connection's thread unless its user has PENDING_PER_USER connections without
 * a head or the tunnel has MAX_CONNS: a user who is not the owner (and has no password)
 * can hold at most a few slots, each for HEAD_WAIT_MS, never all of them. */
static void admit(e2b_tunnel *t, int fd)
{
    uid_t uid = UNKNOWN_UID;
    if (e2b_peer_uid(fd, &uid) != 0)
        uid = UNKNOWN_UID;
    struct conn *k = calloc(1, sizeof *k);
    pthread_mutex_lock(&t->lock);
    bool full = !k || t->open_conns >= MAX_CONNS || pending_of(t, uid) >= PENDING_PER_USER;
    if (!full) {
        k->t = t;
        k->fd = fd;
        k->uid = uid;
        k->pending = true;
        full = pthread_create(&k->thread, NULL, conn_main, k) != 0;
        if (!full) {
            t->open_conns++;
            k->next = t->conns;
            t->conns = k;
        }
    }
    pthread_mutex_unlock(&t->lock);
    if (full) {
        reply_error(t, fd, 503, "e2b-tui tunnel: too many connections at once\n");
        close(fd);
        free(k);
    }
}

static void *accept_main(void *arg)
{
    e2b_tunnel *t = arg;
    for (;;) {
        if (wait_fd(t, t->listen_fd, POLLIN, -1) < 0)
            break;
        int fd = accept4(t->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            /* Out of descriptors or memory: the next try after a pause, not a spin. */
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                wait_fd(t, t->stop_pipe[0], POLLIN, 200);
            continue;
        }
        reap(t, false);
        atomic_fetch_add(&t->accepted, 1);
        admit(t, fd);
    }
    return NULL;
}

/* ---- open and close ---- */

static void free_headers(char **h)
{
    for (size_t i = 0; h && h[i]; i++) {
        explicit_bzero(h[i], strlen(h[i]));
        free(h[i]);
    }
    free(h);
}

static void tunnel_free(e2b_tunnel *t)
{
    if (t->listen_fd >= 0)
        close(t->listen_fd);
    if (t->stop_pipe[0] >= 0)
        close(t->stop_pipe[0]);
    if (t->stop_pipe[1] >= 0)
        close(t->stop_pipe[1]);
    free_headers(t->headers);
    if (t->cred) {
        explicit_bzero(t->cred, t->cred_len);
        free(t->cred);
    }
    free(t->upstream);
    free(t->host);
    pthread_mutex_destroy(&t->lock);
    free(t);
    curl_global_cleanup();
}

/* scheme://authority of url, and the authority alone. */
static int split_url(const char *url, char **base, char **host)
{
    const char *p = strstr(url, "://");
    if (!p || (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0))
        return -1;
    p += 3;
    size_t n = strcspn(p, "/?#");
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] <= ' ' || p[i] == '@')
            return -1;
    *base = e2b_strfmt("%.*s", (int)(p - url + (ptrdiff_t)n), url);
    *host = e2b_strfmt("%.*s", (int)n, p);
    return *base && *host ? 0 : -1;
}

e2b_tunnel *e2b_tunnel_open(const e2b_tunnel_params *p, e2b_error **err)
{
    e2b_tunnel *t = calloc(1, sizeof *t);
    if (!t) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    t->listen_fd = t->stop_pipe[0] = t->stop_pipe[1] = -1;
    pthread_mutex_init(&t->lock, NULL);
    /* Counted by libcurl: a no-op when the loop did it already; undone in tunnel_free. */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    t->connect_timeout_ms = p->connect_timeout_ms > 0 ? p->connect_timeout_ms : 10000;
    if (!p->upstream_url || split_url(p->upstream_url, &t->upstream, &t->host) != 0) {
        *err = e2b_error_new(E2B_ERR_INVALID, "the tunnel's server URL is not an http(s) URL");
        tunnel_free(t);
        return NULL;
    }
    t->owner_only = p->owner_only != 0;
    t->owner = geteuid();
    if (t->owner_only) {
        t->cred = NULL;
    } else if (!p->password || !*p->password ||
               asprintf((char **)&t->cred, "opencode:%s", p->password) < 0) {
        t->cred = NULL;
        *err = e2b_error_new(E2B_ERR_INVALID, "the tunnel needs the box's password");
        tunnel_free(t);
        return NULL;
    }
    t->cred_len = t->cred ? strlen((char *)t->cred) : 0;
    if (p->local_port < 0 || p->local_port > 65535) {
        *err = e2b_error_new(E2B_ERR_INVALID, "a local port is a number from 1 to 65535");
        tunnel_free(t);
        return NULL;
    }
    size_t n = 0;
    while (p->headers && p->headers[n])
        n++;
    t->headers = calloc(n + 1, sizeof *t->headers);
    for (size_t i = 0; t->headers && i < n; i++) {
        if (strpbrk(p->headers[i], "\r\n") || !strchr(p->headers[i], ':') ||
            !(t->headers[i] = strdup(p->headers[i]))) {
            *err = e2b_error_new(E2B_ERR_INVALID, "a tunnel header is not a \"Name: value\" line");
            tunnel_free(t);
            return NULL;
        }
    }
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p->local_port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    if (!t->headers || pipe2(t->stop_pipe, O_CLOEXEC) != 0 ||
        (t->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
        (p->local_port && setsockopt(t->listen_fd, SOL_SOCKET, SO_REUSEADDR, &(int){1},
                                     sizeof(int)) != 0) ||
        bind(t->listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(t->listen_fd, 64) != 0 ||
        getsockname(t->listen_fd, (struct sockaddr *)&sa, &sl) != 0) {
        int en = errno;
        if (p->local_port && en == EADDRINUSE)
            *err = e2b_error_new(E2B_ERR_CONFLICT, "local port %d is taken: give another with "
                                 "--local PORT, or none to get a free one", p->local_port);
        else
            *err = e2b_error_new(E2B_ERR_INTERNAL, "cannot listen on 127.0.0.1 for the tunnel: %s",
                                 strerror(en));
        tunnel_free(t);
        return NULL;
    }
    t->port = ntohs(sa.sin_port);
    snprintf(t->url, sizeof t->url, "http://127.0.0.1:%d", t->port);
    /* The tunnel's threads take no signals: the program's handlers run on its own thread,
     * as they did before the tunnel (the acceptor's connections inherit the mask). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int started = pthread_create(&t->acceptor, NULL, accept_main, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started != 0) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "cannot start the tunnel's thread");
        tunnel_free(t);
        return NULL;
    }
    e2b_logf("tunnel: listening on %s for %s", t->url, t->host);
    return t;
}

const char *e2b_tunnel_url(const e2b_tunnel *t)
{
    return t->url;
}

int e2b_tunnel_port(const e2b_tunnel *t)
{
    return t->port;
}

unsigned long e2b_tunnel_connections(const e2b_tunnel *t)
{
    return atomic_load(&((e2b_tunnel *)t)->accepted);
}

void e2b_tunnel_close(e2b_tunnel *t)
{
    if (!t)
        return;
    /* One byte that nobody reads: every wait of every thread sees it from now on. */
    ssize_t w;
    do {
        w = write(t->stop_pipe[1], "x", 1);
    } while (w < 0 && errno == EINTR);
    pthread_join(t->acceptor, NULL);
    reap(t, true);
    e2b_logf("tunnel: %s closed after %lu connections", t->url, e2b_tunnel_connections(t));
    tunnel_free(t);
}
