/* The port proxy: <port>-<id>.<domain> (or E2b-Sandbox-Port) reaches that port inside the
 * sandbox's network namespace. The request body is buffered, the response streams back as
 * it arrives (so server-sent events work), decoded from chunked encoding when needed. A
 * WebSocket (any Upgrade) request is passed on with its Upgrade and Connection headers;
 * when the server answers 101 the two connections are joined byte for byte until either
 * side closes. */
#include "http.h"
#include "lifecycle.h"
#include "runtime.h"
#include "sandbox.h"
#include "util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

enum body_mode { BODY_LENGTH, BODY_CHUNKED, BODY_CLOSE };
enum chunk_state { CH_SIZE, CH_DATA, CH_CRLF, CH_DONE };

struct upstream {
    int fd;
    char in[65536];
    size_t in_len;
    enum body_mode mode;
    uint64_t remaining;       /* BODY_LENGTH: bytes left; BODY_CHUNKED: of this chunk */
    enum chunk_state chunk;
};

/* Reads more from upstream into in[]; 1 data, 0 EOF, -1 error/stop. */
static int fill(struct upstream *u, int timeout_ms)
{
    if (u->in_len == sizeof u->in)
        return -1;
    int waited = 0;
    for (;;) {
        if (g_stopping)
            return -1;
        struct pollfd pfd = {.fd = u->fd, .events = POLLIN};
        int pr = poll(&pfd, 1, 250);
        if (pr < 0 && errno != EINTR)
            return -1;
        if (pr > 0) {
            ssize_t n = read(u->fd, u->in + u->in_len, sizeof u->in - u->in_len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return n == 0 ? 0 : -1;
            u->in_len += (size_t)n;
            return 1;
        }
        waited += 250;
        if (timeout_ms > 0 && waited >= timeout_ms)
            return -1;
    }
}

static void consume(struct upstream *u, size_t n)
{
    memmove(u->in, u->in + n, u->in_len - n);
    u->in_len -= n;
}

static ssize_t take(struct upstream *u, char *buf, size_t max, uint64_t limit)
{
    size_t n = u->in_len < max ? u->in_len : max;
    if (n > limit)
        n = (size_t)limit;
    memcpy(buf, u->in, n);
    consume(u, n);
    return (ssize_t)n;
}

static ssize_t upstream_read(void *cls, char *buf, size_t max)
{
    struct upstream *u = cls;
    for (;;) {
        if (u->mode == BODY_LENGTH && u->remaining == 0)
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (u->mode == BODY_CHUNKED && u->chunk == CH_DONE)
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (u->mode != BODY_CHUNKED && u->in_len > 0) {
            ssize_t n = take(u, buf, max, u->mode == BODY_LENGTH ? u->remaining : UINT64_MAX);
            if (u->mode == BODY_LENGTH)
                u->remaining -= (uint64_t)n;
            return n;
        }
        if (u->mode == BODY_CHUNKED) {
            if (u->chunk == CH_SIZE) {
                char *eol = memmem(u->in, u->in_len, "\r\n", 2);
                if (eol) {
                    u->remaining = strtoull(u->in, NULL, 16);
                    consume(u, (size_t)(eol - u->in) + 2);
                    u->chunk = u->remaining ? CH_DATA : CH_DONE;
                    continue;
                }
            } else if (u->chunk == CH_DATA && u->in_len > 0) {
                ssize_t n = take(u, buf, max, u->remaining);
                u->remaining -= (uint64_t)n;
                if (u->remaining == 0)
                    u->chunk = CH_CRLF;
                return n;
            } else if (u->chunk == CH_CRLF && u->in_len >= 2) {
                consume(u, 2);
                u->chunk = CH_SIZE;
                continue;
            }
        }
        int f = fill(u, 0);
        if (f == 0)
            return u->mode == BODY_CLOSE ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
        if (f < 0)
            return MHD_CONTENT_READER_END_WITH_ERROR;
    }
}

static void upstream_free(void *cls)
{
    struct upstream *u = cls;
    close(u->fd);
    free(u);
}

static bool hop_by_hop(const char *name)
{
    static const char *const hop[] = {"Connection", "Keep-Alive", "Transfer-Encoding", "TE", "Trailer",
                                      "Upgrade", "Proxy-Authorization", "Proxy-Connection", "Content-Length"};
    for (size_t i = 0; i < sizeof hop / sizeof *hop; i++)
        if (strcasecmp(name, hop[i]) == 0)
            return true;
    return false;
}

struct head_buf {
    char *text;
    size_t len, cap;
};

static void head_add(struct head_buf *h, const char *s)
{
    size_t n = strlen(s);
    if (h->len + n + 1 > h->cap) {
        h->cap = (h->len + n + 1) * 2;
        h->text = realloc(h->text, h->cap);
        if (!h->text)
            abort();
    }
    memcpy(h->text + h->len, s, n + 1);
    h->len += n;
}

static enum MHD_Result copy_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    /* The body is already read: an Expect header would only make the server answer 100. */
    if (hop_by_hop(key) || strcasecmp(key, "e2b-traffic-access-token") == 0 || strcasecmp(key, "Expect") == 0)
        return MHD_YES;
    struct head_buf *h = cls;
    head_add(h, key);
    head_add(h, ": ");
    head_add(h, value ? value : "");
    head_add(h, "\r\n");
    return MHD_YES;
}

static enum MHD_Result copy_upgrade_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                           const char *value)
{
    if (strcasecmp(key, "Upgrade") == 0 || strcasecmp(key, "Connection") == 0) {
        struct head_buf *h = cls;
        head_add(h, key);
        head_add(h, ": ");
        head_add(h, value ? value : "");
        head_add(h, "\r\n");
        return MHD_YES;
    }
    return copy_header(cls, kind, key, value);
}

static bool send_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        len -= (size_t)n;
    }
    return true;
}

static bool connect_timeout(int fd, int port, int timeout_ms)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
        return true;
    (void)timeout_ms;
    return false;
}

/* ---- upgrades ---- */

struct joined {
    int upstream;
    char *early;      /* what the server sent after its 101 head */
    size_t early_len;
};

static void join_free(struct joined *j)
{
    close(j->upstream);
    free(j->early);
    free(j);
}

/* Copies bytes both ways until one side closes or e2b-local stops. */
static void join_fds(int a, int b)
{
    char buf[16384];
    for (;;) {
        if (g_stopping)
            return;
        struct pollfd p[2] = {{.fd = a, .events = POLLIN}, {.fd = b, .events = POLLIN}};
        int pr = poll(p, 2, 250);
        if (pr < 0 && errno != EINTR)
            return;
        for (int i = 0; pr > 0 && i < 2; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t n = recv(p[i].fd, buf, sizeof buf, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0 || !send_all(p[i ? 0 : 1].fd, buf, (size_t)n))
                return;
        }
    }
}

static void upgraded(void *cls, struct MHD_Connection *conn, void *req_cls, const char *extra_in,
                     size_t extra_in_size, MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
    (void)conn;
    (void)req_cls;
    struct joined *j = cls;
    /* MHD's socket may be non-blocking; the relay waits with poll anyway. */
    if (send_all(sock, j->early ? j->early : "", j->early_len) &&
        send_all(j->upstream, extra_in ? extra_in : "", extra_in_size))
        join_fds(sock, j->upstream);
    join_free(j);
    MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}

static bool wants_upgrade(struct req *r)
{
    const char *up = req_header(r, "Upgrade");
    const char *c = req_header(r, "Connection");
    return up && c && strcasestr(c, "upgrade");
}

/* Sends the upgrade request on fd and answers: 101 joins the connections; any other answer
 * is relayed as it is (the server refused the upgrade). */
static enum MHD_Result proxy_upgrade(struct req *r, int fd)
{
    struct head_buf h = {0};
    head_add(&h, r->method);
    head_add(&h, " ");
    head_add(&h, r->uri);
    head_add(&h, " HTTP/1.1\r\n");
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, copy_upgrade_header, &h);
    head_add(&h, "\r\n");
    bool sent = send_all(fd, h.text, h.len);
    free(h.text);
    struct upstream *u = calloc(1, sizeof *u);
    u->fd = fd;
    char *end = NULL;
    while (sent && !(end = memmem(u->in, u->in_len, "\r\n\r\n", 4)))
        if (fill(u, 30000) <= 0)
            break;
    int status = 0;
    if (!end || sscanf(u->in, "HTTP/%*d.%*d %d", &status) != 1) {
        upstream_free(u);
        return reply_proxy_502(r, "The sandbox's server closed the connection without a response", r->port);
    }
    size_t head_len = (size_t)(end - u->in) + 4;
    *end = '\0';
    struct MHD_Response *resp = NULL;
    struct joined *j = NULL;
    if (status == 101) {
        j = calloc(1, sizeof *j);
        j->upstream = fd;
        j->early_len = u->in_len - head_len;
        j->early = malloc(j->early_len ? j->early_len : 1);
        memcpy(j->early, u->in + head_len, j->early_len);
        resp = MHD_create_response_for_upgrade(upgraded, j);
    } else {
        resp = MHD_create_response_from_buffer(u->in_len - head_len, u->in + head_len, MHD_RESPMEM_MUST_COPY);
    }
    char *save = NULL;
    strtok_r(u->in, "\r\n", &save);
    for (char *line = strtok_r(NULL, "\r\n", &save); resp && line; line = strtok_r(NULL, "\r\n", &save)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        char *value = colon + 1;
        while (*value == ' ' || *value == '\t')
            value++;
        /* MHD writes Connection itself; a refused upgrade's body is already whole. */
        if (strcasecmp(line, "Connection") == 0 || strcasecmp(line, "Content-Length") == 0 ||
            strcasecmp(line, "Transfer-Encoding") == 0)
            continue;
        MHD_add_response_header(resp, line, value);
    }
    if (status == 101) {
        u->fd = -1; /* now the joined pair's */
        free(u);
    } else {
        upstream_free(u);
    }
    if (!resp) {
        if (j)
            join_free(j);
        return MHD_NO;
    }
    r->status = status;
    r->replied = true;
    enum MHD_Result rc = MHD_queue_response(r->conn, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return rc;
}

enum MHD_Result proxy_handle(struct req *r)
{
    pthread_mutex_lock(&g_lock);
    struct sandbox *sb = sandbox_find_locked(r->sandbox_id);
    if (sb && sb->state == SB_PAUSED && sb->auto_resume)
        lifecycle_resume_locked(sb);
    if (!sb || sb->state != SB_RUNNING) {
        pthread_mutex_unlock(&g_lock);
        return reply_proxy_502(r, "The sandbox was not found", 0);
    }
    if (!sb->public_traffic) {
        const char *tok = req_header(r, "e2b-traffic-access-token");
        if (!tok || strcmp(tok, sb->traffic_token) != 0) {
            pthread_mutex_unlock(&g_lock);
            return reply_json(r, 403, json_pack("{s:s, s:s, s:i}", "sandboxId", r->sandbox_id, "message",
                                                "Sandbox is secured with traffic access token. Token header "
                                                "'e2b-traffic-access-token' is missing or wrong",
                                                "code", 403));
        }
    }
    int fd = runtime_socket_locked(sb);
    pthread_mutex_unlock(&g_lock);
    if (fd < 0 || !connect_timeout(fd, r->port, 5000)) {
        if (fd >= 0)
            close(fd);
        return reply_proxy_502(r, "The sandbox is running but port is not open", r->port);
    }
    if (wants_upgrade(r))
        return proxy_upgrade(r, fd);
    struct head_buf h = {0};
    head_add(&h, r->method);
    head_add(&h, " ");
    head_add(&h, r->uri);
    head_add(&h, " HTTP/1.1\r\n");
    MHD_get_connection_values(r->conn, MHD_HEADER_KIND, copy_header, &h);
    char cl[64];
    snprintf(cl, sizeof cl, "Content-Length: %zu\r\nConnection: close\r\n\r\n", r->body.len);
    head_add(&h, cl);
    bool sent = send_all(fd, h.text, h.len) && send_all(fd, r->body.data ? r->body.data : "", r->body.len);
    free(h.text);
    struct upstream *u = calloc(1, sizeof *u);
    u->fd = fd;
    char *end = NULL;
    for (;;) {
        while (sent && !(end = memmem(u->in, u->in_len, "\r\n\r\n", 4))) {
            if (fill(u, 300000) <= 0)
                break;
        }
        /* Skip interim 1xx responses (100 Continue, 103 Early Hints). */
        if (end && u->in_len > 12 && memcmp(u->in, "HTTP/1.", 7) == 0 && u->in[9] == '1' &&
            memcmp(u->in + 9, "101", 3) != 0) {
            consume(u, (size_t)(end - u->in) + 4);
            end = NULL;
            continue;
        }
        break;
    }
    if (!end) {
        upstream_free(u);
        return reply_proxy_502(r, "The sandbox's server closed the connection without a response", r->port);
    }
    *end = '\0';
    size_t head_len = (size_t)(end - u->in) + 4;
    char *line_save = NULL;
    char *status_line = strtok_r(u->in, "\r\n", &line_save);
    int status = 0;
    if (!status_line || sscanf(status_line, "HTTP/%*d.%*d %d", &status) != 1 || status < 100) {
        upstream_free(u);
        return reply_proxy_502(r, "The sandbox's server sent a malformed response", r->port);
    }
    u->mode = BODY_CLOSE;
    uint64_t size = MHD_SIZE_UNKNOWN;
    char *ctype = NULL;
    for (char *line = strtok_r(NULL, "\r\n", &line_save); line; line = strtok_r(NULL, "\r\n", &line_save)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        char *value = colon + 1;
        while (*value == ' ' || *value == '\t')
            value++;
        if (strcasecmp(line, "Content-Length") == 0) {
            u->mode = BODY_LENGTH;
            u->remaining = size = strtoull(value, NULL, 10);
        } else if (strcasecmp(line, "Transfer-Encoding") == 0 && strcasestr(value, "chunked")) {
            u->mode = BODY_CHUNKED;
        } else if (strcasecmp(line, "Content-Type") == 0) {
            ctype = value;
        } else if (!hop_by_hop(line)) {
            req_add_header(r, line, value);
        }
    }
    if (u->mode == BODY_CHUNKED)
        size = MHD_SIZE_UNKNOWN;
    char *ctype_copy = ctype ? strdup(ctype) : NULL;
    consume(u, head_len);
    if (status == 204 || status == 304 || strcmp(r->method, "HEAD") == 0) {
        u->mode = BODY_LENGTH;
        u->remaining = 0;
        size = 0;
    }
    enum MHD_Result rc = reply_stream(r, status, ctype_copy, size, upstream_read, u, upstream_free);
    free(ctype_copy);
    return rc;
}
