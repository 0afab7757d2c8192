/* The tunnel's head rewrite and gate, and the tunnel against a tiny upstream in this
 * process: the added header replaces the client's, Host is the upstream's, the body and the
 * whole answer pass untouched but a second request on the connection does not, requests
 * without the password, with a foreign Host, an absolute target or CONNECT are answered by
 * the tunnel with the upstream never dialled, an unreachable upstream is a 502, and close
 * ends a connection that is still open. */
#include "core/net/loop.h"
#include "core/net/peer_uid.h"
#include "core/net/tunnel.h"
#include "core/net/tunnel_gate.h"
#include "tests/lib/harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *const EXTRA[] = {"e2b-traffic-access-token: tok123", NULL};

static char *rewrite(const char *head, int *upgrade)
{
    size_t n = 0;
    return e2b_tunnel_rewrite_head(head, strlen(head), "4096-sb.example:3000", EXTRA, &n,
                                   upgrade);
}

static void test_rewrite_sets_host_token_and_close(void)
{
    int up = -1;
    char *h = rewrite("GET /event?directory=/x HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n"
                      "Authorization: Basic b3A=\r\nE2B-Traffic-Access-Token: forged\r\n"
                      "Connection: keep-alive\r\nKeep-Alive: 5\r\n\r\n",
                      &up);
    CHECK(h != NULL);
    CHECK_INT_EQ(up, 0);
    CHECK_STR_EQ(h, "GET /event?directory=/x HTTP/1.1\r\nHost: 4096-sb.example:3000\r\n"
                    "Authorization: Basic b3A=\r\ne2b-traffic-access-token: tok123\r\n"
                    "Connection: close\r\n\r\n");
    free(h);
}

static void test_rewrite_keeps_an_upgrade(void)
{
    int up = 0;
    char *h = rewrite("GET /pty HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                      "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: k\r\n\r\n",
                      &up);
    CHECK(h != NULL);
    CHECK_INT_EQ(up, 1);
    CHECK(strstr(h, "\r\nUpgrade: websocket\r\n") != NULL);
    CHECK(strstr(h, "\r\nConnection: Upgrade\r\n\r\n") != NULL);
    CHECK(strstr(h, "keep-alive") == NULL);
    free(h);
    /* Upgrade without Connection: Upgrade is no upgrade (and the header goes). */
    h = rewrite("GET / HTTP/1.1\r\nUpgrade: h2c\r\n\r\n", &up);
    CHECK(h != NULL);
    CHECK_INT_EQ(up, 0);
    CHECK(strstr(h, "Upgrade") == NULL);
    free(h);
}

static void test_rewrite_refuses_what_is_not_a_request(void)
{
    int up;
    CHECK(rewrite("hello\r\n\r\n", &up) == NULL);
    CHECK(rewrite("GET / HTTP/1.1\r\nHost: x\r\n", &up) == NULL);  /* no end */
    CHECK(rewrite("GET /\x01 HTTP/1.1\r\n\r\n", &up) == NULL);     /* control byte */
    CHECK(rewrite("GET / SPDY/3\r\n\r\n", &up) == NULL);
}

/* ---- a tiny upstream: reads one head (and a 5-byte body), answers with what it got ---- */

struct upstream {
    int fd, port;
    char got[4096];
    pthread_t thread;
};

#define PASSWORD "pw-0123456789"
/* base64("opencode:pw-0123456789") */
#define AUTH "Authorization: Basic b3BlbmNvZGU6cHctMDEyMzQ1Njc4OQ==\r\n"

static void *upstream_main(void *arg)
{
    struct upstream *u = arg;
    int c = accept(u->fd, NULL, NULL);
    if (c < 0)
        return NULL;
    size_t n = 0;
    while (n < sizeof u->got - 1 && !strstr(u->got, "\r\n\r\nhello")) {
        ssize_t r = read(c, u->got + n, sizeof u->got - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        u->got[n] = '\0';
    }
    const char *ans = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nworld";
    if (write(c, ans, strlen(ans)) < 0) {
    }
    close(c);
    return NULL;
}

static int listen_any(int *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 4) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0)
        return -1;
    *port = ntohs(sa.sin_port);
    return fd;
}

static int dial(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Everything the tunnel sends back until it closes (bounded wait). */
static void read_all(int fd, char *out, size_t max)
{
    size_t n = 0;
    out[0] = '\0';
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 30000) <= 0)
            break;
        ssize_t r = read(fd, out + n, max - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        out[n] = '\0';
    }
}

static void test_tunnel_forwards_and_adds_the_header(void)
{
    struct upstream u = {0};
    u.fd = listen_any(&u.port);
    CHECK(u.fd >= 0);
    CHECK(pthread_create(&u.thread, NULL, upstream_main, &u) == 0);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", u.port);
    e2b_error *err = NULL;
    e2b_tunnel_params p = {.upstream_url = url, .headers = EXTRA, .password = PASSWORD};
    e2b_tunnel *t = e2b_tunnel_open(&p, &err);
    CHECK(t != NULL);
    CHECK(strncmp(e2b_tunnel_url(t), "http://127.0.0.1:", 17) == 0);
    int c = dial(e2b_tunnel_port(t));
    CHECK(c >= 0);
    /* A second request follows on the same connection: it must not reach the upstream. */
    char req[512];
    snprintf(req, sizeof req,
             "POST /echo HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" AUTH
             "Content-Length: 5\r\n\r\nhelloGET /second HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
             e2b_tunnel_port(t), e2b_tunnel_port(t));
    CHECK(write(c, req, strlen(req)) == (ssize_t)strlen(req));
    char ans[4096];
    read_all(c, ans, sizeof ans);
    close(c);
    pthread_join(u.thread, NULL);
    close(u.fd);
    CHECK_INT_EQ(e2b_tunnel_connections(t), 1);
    e2b_tunnel_close(t);
    CHECK(strstr(ans, "\r\n\r\nworld") != NULL);
    char host[64];
    snprintf(host, sizeof host, "\r\nHost: 127.0.0.1:%d\r\n", u.port);
    CHECK(strstr(u.got, host) != NULL);
    CHECK(strstr(u.got, "\r\ne2b-traffic-access-token: tok123\r\n") != NULL);
    CHECK(strstr(u.got, "\r\n\r\nhello") != NULL);
    CHECK(strstr(u.got, "second") == NULL);
}

static void test_tunnel_answers_502_when_the_server_is_away(void)
{
    int port;
    int fd = listen_any(&port);
    CHECK(fd >= 0);
    close(fd); /* nobody listens there now */
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/ignored/path", port);
    e2b_error *err = NULL;
    e2b_tunnel_params p = {.upstream_url = url, .password = PASSWORD};
    e2b_tunnel *t = e2b_tunnel_open(&p, &err);
    CHECK(t != NULL);
    int c = dial(e2b_tunnel_port(t));
    CHECK(c >= 0);
    char req[256];
    snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: localhost:%d\r\n" AUTH "\r\n",
             e2b_tunnel_port(t));
    CHECK(write(c, req, strlen(req)) == (ssize_t)strlen(req));
    char ans[4096];
    read_all(c, ans, sizeof ans);
    close(c);
    e2b_tunnel_close(t);
    CHECK(strncmp(ans, "HTTP/1.1 502 ", 13) == 0);
}

static void test_close_ends_open_connections(void)
{
    e2b_error *err = NULL;
    e2b_tunnel_params p = {.upstream_url = "http://127.0.0.1:9", .password = PASSWORD};
    e2b_tunnel *t = e2b_tunnel_open(&p, &err);
    CHECK(t != NULL);
    int c = dial(e2b_tunnel_port(t));
    CHECK(c >= 0);
    CHECK(write(c, "GET / HT", 8) == 8); /* a head that never ends */
    int64_t t0 = e2b_now_ms();
    e2b_tunnel_close(t); /* must not wait for the head timeout */
    CHECK(e2b_now_ms() - t0 < 10000);
    char ans[64];
    read_all(c, ans, sizeof ans);
    close(c);
}

static void test_open_refuses_bad_input(void)
{
    e2b_error *err = NULL;
    e2b_tunnel_params p = {.upstream_url = "ftp://x", .password = PASSWORD};
    CHECK(e2b_tunnel_open(&p, &err) == NULL);
    e2b_error_free(err);
    err = NULL;
    e2b_tunnel_params nopw = {.upstream_url = "http://127.0.0.1:9"};
    CHECK(e2b_tunnel_open(&nopw, &err) == NULL); /* no password: no open door */
    CHECK(strstr(e2b_error_message(err), "password") != NULL);
    e2b_error_free(err);
    err = NULL;
    const char *bad[] = {"X-Inject: a\r\nHost: evil", NULL};
    e2b_tunnel_params q = {.upstream_url = "http://127.0.0.1:9", .headers = bad,
                           .password = PASSWORD};
    CHECK(e2b_tunnel_open(&q, &err) == NULL);
    e2b_error_free(err);
}

/* ---- the gate ---- */

static const uint8_t CRED[] = "opencode:" PASSWORD;

static e2b_tunnel_verdict gate(const char *head, e2b_tunnel_body *b)
{
    return e2b_tunnel_gate(head, strlen(head), 5555, CRED, sizeof CRED - 1, b);
}

static void test_gate_lets_the_owner_through(void)
{
    e2b_tunnel_body b;
    CHECK_INT_EQ(gate("GET /event HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH "\r\n", &b).status, 0);
    CHECK(e2b_tunnel_body_done(&b));
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\nhost:  LocalHost:5555 \r\n"
                      "authorization: basic b3BlbmNvZGU6cHctMDEyMzQ1Njc4OQ\r\n\r\n", &b).status, 0);
    /* The query form OpenCode's web client puts on a WebSocket URL (percent-encoded). */
    CHECK_INT_EQ(gate("GET /pty/1/connect?x=1&auth_token=b3BlbmNvZGU6cHctMDEyMzQ1Njc4OQ%3D%3D "
                      "HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n\r\n", &b).status, 0);
}

static void test_gate_refuses_without_the_password(void)
{
    e2b_tunnel_body b;
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n\r\n", &b).status, 401);
    /* base64("opencode:pw-0123456780"), ("opencode:pw-012345678"), ("other:pw-0123456789") */
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n"
                      "Authorization: Basic b3BlbmNvZGU6cHctMDEyMzQ1Njc4MA==\r\n\r\n", &b).status, 401);
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n"
                      "Authorization: Basic b3BlbmNvZGU6cHctMDEyMzQ1Njc4\r\n\r\n", &b).status, 401);
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n"
                      "Authorization: Basic b3RoZXI6cHctMDEyMzQ1Njc4OQ==\r\n\r\n", &b).status, 401);
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n"
                      "Authorization: Bearer " PASSWORD "\r\n\r\n", &b).status, 401);
    /* Two Authorization headers, even both right: which one the box reads is not ours to
     * say. */
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH AUTH "\r\n", &b).status, 400);
    /* A right query token does not excuse a wrong header. */
    CHECK_INT_EQ(gate("GET /?auth_token=b3BlbmNvZGU6cHctMDEyMzQ1Njc4OQ== HTTP/1.1\r\n"
                      "Host: 127.0.0.1:5555\r\nAuthorization: Basic eDp5\r\n\r\n", &b).status, 401);
}

static void test_gate_refuses_foreign_hosts_and_proxy_requests(void)
{
    e2b_tunnel_body b;
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\nHost: evil.example:5555\r\n" AUTH "\r\n", &b).status, 421);
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\nHost: 127.0.0.1:5556\r\n" AUTH "\r\n", &b).status, 421);
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" AUTH "\r\n", &b).status, 421);
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\n" AUTH "\r\n", &b).status, 421);
    CHECK_INT_EQ(gate("GET / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\nHost: evil.example\r\n" AUTH
                      "\r\n", &b).status, 421);
    CHECK_INT_EQ(gate("GET http://49983-x.e2b.app/ HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH
                      "\r\n", &b).status, 400);
    CHECK_INT_EQ(gate("OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH "\r\n", &b).status,
                 400);
    CHECK_INT_EQ(gate("CONNECT evil.example:443 HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH
                      "\r\n", &b).status, 405);
}

static void test_gate_frames_the_body(void)
{
    e2b_tunnel_body b;
    CHECK_INT_EQ(gate("POST / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH
                      "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", &b).status, 400);
    CHECK_INT_EQ(gate("POST / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH
                      "Content-Length: 5\r\nContent-Length: 5\r\n\r\n", &b).status, 400);
    CHECK_INT_EQ(gate("POST / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH
                      "Transfer-Encoding: gzip, chunked\r\n\r\n", &b).status, 501);
    CHECK_INT_EQ(gate("POST / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH
                      "Content-Length : 5\r\n\r\n", &b).status, 400);
    CHECK_INT_EQ(gate("POST / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH
                      "Content-Length: 5\r\n\r\n", &b).status, 0);
    CHECK_INT_EQ(e2b_tunnel_body_feed(&b, "helloGET /", 10), 5);
    CHECK(e2b_tunnel_body_done(&b));
    CHECK_INT_EQ(gate("POST / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH
                      "Transfer-Encoding: chunked\r\n\r\n", &b).status, 0);
    const char *chunks = "3;x=y\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nT: v\r\n\r\nGET /";
    size_t n = strlen(chunks);
    /* byte by byte: the framing survives any split */
    size_t used = 0;
    for (size_t i = 0; i < n && !e2b_tunnel_body_done(&b); i++)
        used += e2b_tunnel_body_feed(&b, chunks + i, 1);
    CHECK(e2b_tunnel_body_done(&b));
    CHECK_INT_EQ(used, n - 5);
    CHECK_INT_EQ(gate("POST / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n" AUTH
                      "Transfer-Encoding: chunked\r\n\r\n", &b).status, 0);
    e2b_tunnel_body_feed(&b, "zz\r\n", 4);
    CHECK(e2b_tunnel_body_bad(&b));
}

static void test_same_secret(void)
{
    const uint8_t a[] = "secret", b[] = "secreT";
    CHECK(e2b_tunnel_same_secret(a, 6, a, 6));
    CHECK(!e2b_tunnel_same_secret(b, 6, a, 6));
    CHECK(!e2b_tunnel_same_secret(a, 5, a, 6));
    CHECK(!e2b_tunnel_same_secret(a, 6, a, 5));
}

/* Refused requests are answered by the tunnel, and the upstream sees no connection. */
static void test_tunnel_refuses_without_contacting_the_box(void)
{
    int port;
    int up = listen_any(&port);
    CHECK(up >= 0);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    e2b_error *err = NULL;
    e2b_tunnel_params p = {.upstream_url = url, .headers = EXTRA, .password = PASSWORD};
    e2b_tunnel *t = e2b_tunnel_open(&p, &err);
    CHECK(t != NULL);
    int tp = e2b_tunnel_port(t);
    struct {
        const char *before, *after; /* the request, around the tunnel's port */
        const char *status;
    } cases[] = {
        {"GET / HTTP/1.1\r\nHost: 127.0.0.1:", "\r\n\r\n", "HTTP/1.1 401 "},
        {"GET / HTTP/1.1\r\nHost: evil.example:", "\r\n" AUTH "\r\n", "HTTP/1.1 421 "},
        {"GET http://127.0.0.1:", "/ HTTP/1.1\r\nHost: 127.0.0.1:1\r\n" AUTH "\r\n",
         "HTTP/1.1 400 "},
        {"CONNECT 127.0.0.1:", " HTTP/1.1\r\n" AUTH "\r\n", "HTTP/1.1 405 "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int c = dial(tp);
        CHECK(c >= 0);
        char req[256];
        snprintf(req, sizeof req, "%s%d%s", cases[i].before, tp, cases[i].after);
        CHECK(write(c, req, strlen(req)) == (ssize_t)strlen(req));
        char ans[1024];
        read_all(c, ans, sizeof ans);
        close(c);
        CHECK(strncmp(ans, cases[i].status, 13) == 0);
        CHECK(strstr(ans, "tok123") == NULL);
        if (i == 0)
            CHECK(strstr(ans, "\r\nWWW-Authenticate: Basic ") != NULL);
    }
    struct pollfd pf = {.fd = up, .events = POLLIN};
    CHECK_INT_EQ(poll(&pf, 1, 200), 0); /* nobody dialled the upstream */
    e2b_tunnel_close(t);
    close(up);
}

/* An owner-only tunnel (--forward to a dev server): no password asked, the Host still is;
 * it listens on the local port asked for, and a taken one is a conflict. */
static void test_owner_only_tunnel(void)
{
    e2b_tunnel_body b;
    char head[128];
    snprintf(head, sizeof head, "GET / HTTP/1.1\r\nHost: 127.0.0.1:5555\r\n\r\n");
    CHECK_INT_EQ(e2b_tunnel_gate(head, strlen(head), 5555, NULL, 0, &b).status, 0);
    snprintf(head, sizeof head, "GET / HTTP/1.1\r\nHost: evil.example:5555\r\n\r\n");
    CHECK_INT_EQ(e2b_tunnel_gate(head, strlen(head), 5555, NULL, 0, &b).status, 421);

    struct upstream u = {0};
    u.fd = listen_any(&u.port);
    CHECK(u.fd >= 0);
    CHECK(pthread_create(&u.thread, NULL, upstream_main, &u) == 0);
    int lport;
    int probe = listen_any(&lport);
    CHECK(probe >= 0);
    close(probe); /* a port that was free a moment ago */
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", u.port);
    e2b_error *err = NULL;
    e2b_tunnel_params p = {.upstream_url = url, .headers = EXTRA, .owner_only = 1,
                           .local_port = lport};
    e2b_tunnel *t = e2b_tunnel_open(&p, &err);
    CHECK(t != NULL);
    CHECK_INT_EQ(e2b_tunnel_port(t), lport);
    e2b_tunnel *t2 = e2b_tunnel_open(&p, &err);
    CHECK(t2 == NULL);
    CHECK(err && err->kind == E2B_ERR_CONFLICT);
    e2b_error_free(err);
    int c = dial(lport);
    CHECK(c >= 0);
    char req[256];
    snprintf(req, sizeof req, "POST /x HTTP/1.1\r\nHost: localhost:%d\r\nAuthorization: Basic "
             "ZGV2OmRldg==\r\nContent-Length: 5\r\n\r\nhello", lport);
    CHECK(write(c, req, strlen(req)) == (ssize_t)strlen(req));
    char ans[4096];
    read_all(c, ans, sizeof ans);
    close(c);
    pthread_join(u.thread, NULL);
    close(u.fd);
    e2b_tunnel_close(t);
    CHECK(strstr(ans, "\r\n\r\nworld") != NULL);
    CHECK(strstr(u.got, "\r\ne2b-traffic-access-token: tok123\r\n") != NULL);
    /* the dev server's own credential passes untouched */
    CHECK(strstr(u.got, "\r\nAuthorization: Basic ZGV2OmRldg==\r\n") != NULL);
}

/* The kernel tells the peer's uid: ours, for a connection we made. */
static void test_peer_uid_is_ours(void)
{
    int port;
    int l = listen_any(&port);
    CHECK(l >= 0);
    int c = dial(port);
    int a = accept(l, NULL, NULL);
    uid_t uid = (uid_t)-2;
    CHECK_INT_EQ(e2b_peer_uid(a, &uid), 0);
    CHECK_INT_EQ(uid, getuid());
    close(a);
    close(c);
    close(l);
}

int main(void)
{
    RUN(test_rewrite_sets_host_token_and_close);
    RUN(test_rewrite_keeps_an_upgrade);
    RUN(test_rewrite_refuses_what_is_not_a_request);
    RUN(test_tunnel_forwards_and_adds_the_header);
    RUN(test_tunnel_answers_502_when_the_server_is_away);
    RUN(test_close_ends_open_connections);
    RUN(test_open_refuses_bad_input);
    RUN(test_gate_lets_the_owner_through);
    RUN(test_gate_refuses_without_the_password);
    RUN(test_gate_refuses_foreign_hosts_and_proxy_requests);
    RUN(test_gate_frames_the_body);
    RUN(test_same_secret);
    RUN(test_tunnel_refuses_without_contacting_the_box);
    RUN(test_peer_uid_is_ours);
    RUN(test_owner_only_tunnel);
    return harness_finish();
}
