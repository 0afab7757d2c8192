/* The tunnel's head rewrite, and the tunnel against a tiny upstream in this process: the
 * added header replaces the client's, Host is the upstream's, bytes after the head and the
 * whole answer pass untouched, an unreachable upstream is a 502, a head that never ends
 * is refused, and close ends a connection that is still open. */
#include "core/net/loop.h"
#include "core/net/tunnel.h"
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
    e2b_tunnel_params p = {.upstream_url = url, .headers = EXTRA};
    e2b_tunnel *t = e2b_tunnel_open(&p, &err);
    CHECK(t != NULL);
    CHECK(strncmp(e2b_tunnel_url(t), "http://127.0.0.1:", 17) == 0);
    int c = dial(e2b_tunnel_port(t));
    CHECK(c >= 0);
    const char *req = "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello";
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
    e2b_tunnel_params p = {.upstream_url = url};
    e2b_tunnel *t = e2b_tunnel_open(&p, &err);
    CHECK(t != NULL);
    int c = dial(e2b_tunnel_port(t));
    CHECK(c >= 0);
    const char *req = "GET / HTTP/1.1\r\n\r\n";
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
    e2b_tunnel_params p = {.upstream_url = "http://127.0.0.1:9"};
    e2b_tunnel *t = e2b_tunnel_open(&p, &err);
    CHECK(t != NULL);
    int c = dial(e2b_tunnel_port(t));
    CHECK(c >= 0);
    CHECK(write(c, "GET / HT", 8) == 8); /* a head that never ends */
    int64_t t0 = e2b_now_ms();
    e2b_tunnel_close(t); /* must not wait for the 60 s head timeout */
    CHECK(e2b_now_ms() - t0 < 10000);
    char ans[64];
    read_all(c, ans, sizeof ans);
    close(c);
}

static void test_open_refuses_bad_input(void)
{
    e2b_error *err = NULL;
    e2b_tunnel_params p = {.upstream_url = "ftp://x"};
    CHECK(e2b_tunnel_open(&p, &err) == NULL);
    e2b_error_free(err);
    err = NULL;
    const char *bad[] = {"X-Inject: a\r\nHost: evil", NULL};
    e2b_tunnel_params q = {.upstream_url = "http://127.0.0.1:9", .headers = bad};
    CHECK(e2b_tunnel_open(&q, &err) == NULL);
    e2b_error_free(err);
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
    return harness_finish();
}
