/* The tunnel's gate (tunnel_gate.h): the request line, Host, the credential and the body's
 * framing of one request head, and the body's end in the bytes that follow. */
#include "core/net/tunnel_gate.h"
#include "core/util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util/base64.h"

enum {
    BODY_LENGTH,   /* left bytes of a Content-Length body */
    BODY_SIZE,     /* a chunk size's hex digits */
    BODY_EXT,      /* a chunk extension, up to CR */
    BODY_SIZE_LF,  /* the LF after a chunk size line */
    BODY_DATA,     /* left bytes of chunk data */
    BODY_DATA_CR,  /* the CRLF after chunk data */
    BODY_DATA_LF,
    BODY_TRAILER,  /* at the start of a trailer line (CRLF here ends the body) */
    BODY_TLINE,    /* inside a trailer line */
    BODY_TLINE_LF,
    BODY_END_LF,   /* the last LF */
    BODY_DONE,
    BODY_BAD,
    LINE_MAX_BYTES = 4096, /* a chunk extension or trailer line */
};

bool e2b_tunnel_same_secret(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len)
{
    volatile unsigned char d = a_len != b_len;
    for (size_t i = 0; i < b_len; i++)
        d |= (unsigned char)(b[i] ^ (i < a_len ? a[i] : 0));
    return d == 0;
}

static e2b_tunnel_verdict refuse(int status, const char *reason)
{
    return (e2b_tunnel_verdict){status, reason};
}

/* A header line's value without the optional whitespace around it. */
static void header_value(const char *line, size_t len, size_t colon, const char **v, size_t *vn)
{
    const char *p = line + colon + 1, *e = line + len;
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *v = p;
    *vn = (size_t)(e - p);
}

static bool value_is(const char *v, size_t vn, const char *want)
{
    return vn == strlen(want) && strncasecmp(v, want, vn) == 0;
}

/* Whether the base64 text (n chars) decodes to the credential. */
static bool b64_matches(const char *text, size_t n, const uint8_t *cred, size_t cred_len)
{
    uint8_t *got = NULL;
    size_t got_len = 0;
    if (n == 0 || n > 4096 || e2b_base64_decode(text, n, &got, &got_len) != 0)
        return false;
    bool ok = e2b_tunnel_same_secret(got, got_len, cred, cred_len);
    explicit_bzero(got, got_len);
    free(got);
    return ok;
}

/* The first auth_token=... of the target's query, percent-decoded, against the credential. */
static bool query_token_matches(const char *target, size_t n, const uint8_t *cred,
                                size_t cred_len)
{
    const char *q = memchr(target, '?', n), *end = target + n;
    for (const char *p = q ? q + 1 : end; p < end;) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *e = amp ? amp : end;
        if ((size_t)(e - p) > 11 && memcmp(p, "auth_token=", 11) == 0) {
            char text[4096];
            size_t k = 0;
            for (const char *s = p + 11; s < e && k < sizeof text; s++) {
                int h1, h2;
                if (*s == '%' && e - s >= 3 && (h1 = e2b_hex_digit(s[1])) >= 0 &&
                    (h2 = e2b_hex_digit(s[2])) >= 0) {
                    text[k++] = (char)(h1 * 16 + h2);
                    s += 2;
                } else {
                    text[k++] = *s;
                }
            }
            bool ok = k < sizeof text && b64_matches(text, k, cred, cred_len);
            explicit_bzero(text, k);
            return ok;
        }
        p = e + 1;
    }
    return false;
}

static bool host_is_the_tunnel(const char *v, size_t vn, int port)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "127.0.0.1:%d", port);
    snprintf(b, sizeof b, "localhost:%d", port);
    return value_is(v, vn, a) || value_is(v, vn, b);
}

static bool parse_length(const char *v, size_t vn, uint64_t *out)
{
    uint64_t n = 0;
    if (vn == 0 || vn > 18)
        return false;
    for (size_t i = 0; i < vn; i++) {
        if (v[i] < '0' || v[i] > '9')
            return false;
        n = n * 10 + (uint64_t)(v[i] - '0');
    }
    *out = n;
    return true;
}

e2b_tunnel_verdict e2b_tunnel_gate(const char *head, size_t len, int port, const uint8_t *cred,
                                   size_t cred_len, e2b_tunnel_body *body)
{
    *body = (e2b_tunnel_body){.state = BODY_DONE};
    const char *eol = memmem(head, len, "\r\n", 2);
    if (!eol || len < 4 || memcmp(head + len - 4, "\r\n\r\n", 4) != 0)
        return refuse(400, "not an HTTP/1 request");
    size_t first = (size_t)(eol - head);
    const char *sp1 = memchr(head, ' ', first);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
    if (!sp1 || !sp2 || sp1 == head || sp2 == sp1 + 1 || eol - sp2 != 9 ||
        (memcmp(sp2 + 1, "HTTP/1.1", 8) != 0 && memcmp(sp2 + 1, "HTTP/1.0", 8) != 0))
        return refuse(400, "not an HTTP/1 request");
    if (sp1 - head == 7 && memcmp(head, "CONNECT", 7) == 0)
        return refuse(405, "the tunnel is no proxy: CONNECT is refused");
    const char *target = sp1 + 1;
    size_t target_len = (size_t)(sp2 - target);
    if (target[0] != '/')
        return refuse(400, "only a path may follow the method (no absolute URL)");

    int hosts = 0, auths = 0, lengths = 0, chunked = 0;
    bool host_ok = false, auth_ok = false;
    uint64_t length = 0;
    for (const char *p = eol + 2; p < head + len - 2;) {
        const char *e = memmem(p, (size_t)(head + len - p), "\r\n", 2);
        size_t n = (size_t)(e - p);
        const char *colon = memchr(p, ':', n);
        /* No folded lines, no space before the colon: each header means one thing. */
        if (!colon || colon == p || p[0] == ' ' || p[0] == '\t' || colon[-1] == ' ' ||
            colon[-1] == '\t')
            return refuse(400, "a malformed header line");
        size_t name = (size_t)(colon - p);
        const char *v;
        size_t vn;
        header_value(p, n, name, &v, &vn);
        if (name == 4 && strncasecmp(p, "Host", 4) == 0) {
            hosts++;
            host_ok = host_is_the_tunnel(v, vn, port);
        } else if (cred && name == 13 && strncasecmp(p, "Authorization", 13) == 0) {
            auths++;
            auth_ok = vn > 6 && strncasecmp(v, "Basic ", 6) == 0 &&
                      b64_matches(v + 6, vn - 6, cred, cred_len);
        } else if (name == 14 && strncasecmp(p, "Content-Length", 14) == 0) {
            lengths++;
            if (!parse_length(v, vn, &length))
                return refuse(400, "a malformed Content-Length");
        } else if (name == 17 && strncasecmp(p, "Transfer-Encoding", 17) == 0) {
            if (!value_is(v, vn, "chunked"))
                return refuse(501, "a transfer coding other than chunked");
            chunked++;
        }
        p = e + 2;
    }
    if (hosts != 1 || !host_ok)
        return refuse(421, "the tunnel answers only to Host 127.0.0.1:PORT or localhost:PORT");
    if (auths > 1)
        return refuse(400, "more than one Authorization header");
    if (cred && !auth_ok &&
        !(auths == 0 && query_token_matches(target, target_len, cred, cred_len)))
        return refuse(401, "the box's password is needed (user opencode)");
    if (lengths > 1 || chunked > 1 || (lengths && chunked))
        return refuse(400, "the request's body length is ambiguous");
    if (chunked)
        *body = (e2b_tunnel_body){.state = BODY_SIZE};
    else if (length)
        *body = (e2b_tunnel_body){.state = BODY_LENGTH, .left = length};
    return refuse(0, NULL);
}

bool e2b_tunnel_body_done(const e2b_tunnel_body *b)
{
    return b->state == BODY_DONE;
}

bool e2b_tunnel_body_bad(const e2b_tunnel_body *b)
{
    return b->state == BODY_BAD;
}

/* One byte of the chunked framing (not of chunk data). */
static void chunk_byte(e2b_tunnel_body *b, char c)
{
    switch (b->state) {
    case BODY_SIZE: {
        int h = e2b_hex_digit(c);
        if (h >= 0 && b->digits < 15) {
            b->left = b->left * 16 + (uint64_t)h;
            b->digits++;
        } else if (b->digits && (c == ';' || c == ' ' || c == '\t')) {
            b->state = BODY_EXT;
            b->line = 0;
        } else if (b->digits && c == '\r') {
            b->state = BODY_SIZE_LF;
        } else {
            b->state = BODY_BAD;
        }
        break;
    }
    case BODY_EXT:
        if (c == '\r')
            b->state = BODY_SIZE_LF;
        else if (c == '\n' || ++b->line > LINE_MAX_BYTES)
            b->state = BODY_BAD;
        break;
    case BODY_SIZE_LF:
        b->state = c != '\n' ? BODY_BAD : b->left ? BODY_DATA : BODY_TRAILER;
        break;
    case BODY_DATA_CR:
        b->state = c == '\r' ? BODY_DATA_LF : BODY_BAD;
        break;
    case BODY_DATA_LF:
        b->state = c == '\n' ? BODY_SIZE : BODY_BAD;
        b->digits = 0;
        b->left = 0;
        break;
    case BODY_TRAILER:
        b->state = c == '\r' ? BODY_END_LF : BODY_TLINE;
        b->line = 0;
        break;
    case BODY_TLINE:
        if (c == '\r')
            b->state = BODY_TLINE_LF;
        else if (c == '\n' || ++b->line > LINE_MAX_BYTES)
            b->state = BODY_BAD;
        break;
    case BODY_TLINE_LF:
        b->state = c == '\n' ? BODY_TRAILER : BODY_BAD;
        break;
    case BODY_END_LF:
        b->state = c == '\n' ? BODY_DONE : BODY_BAD;
        break;
    default:
        break;
    }
}

size_t e2b_tunnel_body_feed(e2b_tunnel_body *b, const char *p, size_t n)
{
    size_t used = 0;
    while (used < n && b->state != BODY_DONE && b->state != BODY_BAD) {
        if (b->state == BODY_LENGTH || b->state == BODY_DATA) {
            size_t k = n - used;
            if (k > b->left)
                k = (size_t)b->left;
            used += k;
            b->left -= k;
            if (b->left == 0)
                b->state = b->state == BODY_LENGTH ? BODY_DONE : BODY_DATA_CR;
            continue;
        }
        chunk_byte(b, p[used++]);
    }
    return used;
}
