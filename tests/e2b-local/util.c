/* Helpers for e2b-local; see util.h. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rfc3339(int64_t ms, char *out, size_t outlen)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char base[24];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, outlen, "%s.%03dZ", base, (int)(ms % 1000));
}

int64_t parse_rfc3339(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!p)
        return -1;
    int64_t ms = 0;
    if (*p == '.') {
        int digits = 0;
        p++;
        while (*p >= '0' && *p <= '9') {
            if (digits < 3)
                ms = ms * 10 + (*p - '0');
            digits++;
            p++;
        }
        for (; digits < 3; digits++)
            ms *= 10;
    }
    int64_t offset = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int hh, mm;
        if (sscanf(p + 1, "%2d:%2d", &hh, &mm) != 2)
            return -1;
        offset = (hh * 60 + mm) * 60 * 1000 * (*p == '+' ? 1 : -1);
        p += 6;
    } else {
        return -1;
    }
    if (*p)
        return -1;
    return (int64_t)timegm(&tm) * 1000 + ms - offset;
}

void random_alnum(char *out, size_t n)
{
    static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char raw[128];
    size_t done = 0;
    while (done < n) {
        size_t want = n - done < sizeof raw ? n - done : sizeof raw;
        ssize_t got = getrandom(raw, want, 0);
        if (got <= 0)
            continue;
        for (ssize_t i = 0; i < got; i++)
            out[done++] = set[raw[i] % 36];
    }
    out[n] = '\0';
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *b64_encode(const unsigned char *data, size_t len)
{
    char *out = malloc((len + 2) / 3 * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)data[i + 1] << 8;
        if (i + 2 < len)
            v |= data[i + 2];
        out[o++] = B64[(v >> 18) & 63];
        out[o++] = B64[(v >> 12) & 63];
        out[o++] = i + 1 < len ? B64[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? B64[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

unsigned char *b64_decode(const char *s, size_t *outlen)
{
    size_t len = strlen(s);
    unsigned char *out = malloc(len / 4 * 3 + 4);
    if (!out)
        return NULL;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '=')
            break;
        int v = b64_value(s[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    *outlen = o;
    return out;
}

char *b64url_encode(const char *s)
{
    char *b = b64_encode((const unsigned char *)s, strlen(s));
    if (!b)
        return NULL;
    for (char *p = b; *p; p++) {
        if (*p == '+')
            *p = '-';
        else if (*p == '/')
            *p = '_';
        else if (*p == '=') {
            *p = '\0';
            break;
        }
    }
    return b;
}

char *b64url_decode(const char *s)
{
    size_t n;
    unsigned char *raw = b64_decode(s, &n);
    if (!raw)
        return NULL;
    char *out = malloc(n + 1);
    if (out) {
        memcpy(out, raw, n);
        out[n] = '\0';
        if (strlen(out) != n) { /* embedded NUL: not one of our tokens */
            free(out);
            out = NULL;
        }
    }
    free(raw);
    return out;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *query_unescape(const char *s, size_t len)
{
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '+') {
            out[o++] = ' ';
        } else if (s[i] == '%') {
            int hi = i + 1 < len ? hexval(s[i + 1]) : -1;
            int lo = i + 2 < len ? hexval(s[i + 2]) : -1;
            if (hi < 0 || lo < 0) {
                free(out);
                return NULL;
            }
            out[o++] = (char)(hi * 16 + lo);
            i += 2;
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    return out;
}

int write_file_atomic(const char *path, const char *data, size_t len, mode_t mode)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d.%lx", path, (int)getpid(), (unsigned long)pthread_self());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            unlink(tmp);
            return -1;
        }
        off += (size_t)w;
    }
    if (fchmod(fd, mode) != 0 || close(fd) != 0) {
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rbe");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0)
            break;
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    return buf;
}

int mkdir_p(const char *path, mode_t mode)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, mode) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    if (mkdir(buf, mode) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP || flag == FTW_D)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

int remove_tree(const char *path)
{
    return nftw(path, remove_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static __thread int64_t tree_total;
static int add_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)path;
    (void)ftw;
    if (flag == FTW_F)
        tree_total += (int64_t)st->st_blocks * 512;
    return 0;
}

int64_t tree_bytes(const char *path)
{
    tree_total = 0;
    nftw(path, add_one, 32, FTW_PHYS | FTW_MOUNT);
    return tree_total;
}

static FILE *log_file;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void log_open(const char *path)
{
    log_file = fopen(path, "ae");
}

void log_close(void)
{
    if (log_file)
        fclose(log_file);
    log_file = NULL;
}

void log_line(const char *fmt, ...)
{
    if (!log_file)
        return;
    char ts[40];
    rfc3339(now_ms(), ts, sizeof ts);
    pthread_mutex_lock(&log_lock);
    fprintf(log_file, "%s ", ts);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(log_file, fmt, ap);
    va_end(ap);
    fputc('\n', log_file);
    fflush(log_file);
    pthread_mutex_unlock(&log_lock);
}
