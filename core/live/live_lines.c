#include "core/live/live_lines.h"

#include <stdlib.h>
#include <string.h>

#include "core/util/sanitize.h"

void e2b_live_lines_init(struct e2b_live_lines *l, int max)
{
    memset(l, 0, sizeof *l);
    l->max = max > 0 ? max : 1;
}

void e2b_live_lines_clear(struct e2b_live_lines *l)
{
    for (int i = 0; l->line && i < l->n; i++)
        free(l->line[(l->head + i) % l->max]);
    free(l->line);
    free(l->partial);
    free(l->partial_safe);
    int max = l->max;
    memset(l, 0, sizeof *l);
    l->max = max;
}

static int push(struct e2b_live_lines *l, const char *raw, size_t len)
{
    if (!l->line) {
        l->line = calloc((size_t)l->max, sizeof *l->line);
        if (!l->line)
            return -1;
    }
    /* A trailing \r (CRLF output) is not part of the line. */
    if (len && raw[len - 1] == '\r')
        len--;
    char *safe = e2b_sanitize_display(raw, len, 0);
    if (!safe)
        return -1;
    if (l->n == l->max) {
        free(l->line[l->head]);
        l->line[l->head] = safe;
        l->head = (l->head + 1) % l->max;
        l->dropped++;
    } else {
        l->line[(l->head + l->n) % l->max] = safe;
        l->n++;
    }
    return 0;
}

/* Where to cut a line of E2B_LIVE_LINE_MAX bytes: not inside a UTF-8 sequence. */
static size_t cut_point(const char *p, size_t len)
{
    size_t cut = len;
    for (int back = 0; back < 4 && cut > 1 && ((unsigned char)p[cut] & 0xC0) == 0x80; back++)
        cut--;
    return cut;
}

static void partial_changed(struct e2b_live_lines *l)
{
    free(l->partial_safe);
    l->partial_safe = NULL;
}

int e2b_live_lines_feed(struct e2b_live_lines *l, const char *data, size_t len)
{
    int rc = 0;
    partial_changed(l);
    while (len) {
        const char *nl = memchr(data, '\n', len);
        size_t take = nl ? (size_t)(nl - data) : len;
        /* Room for this piece in the unfinished line, cut at E2B_LIVE_LINE_MAX. */
        if (l->plen + take > E2B_LIVE_LINE_MAX) {
            size_t room = E2B_LIVE_LINE_MAX - l->plen;
            char *p = realloc(l->partial, E2B_LIVE_LINE_MAX + 1);
            if (!p)
                return -1;
            l->partial = p;
            memcpy(p + l->plen, data, room);
            p[E2B_LIVE_LINE_MAX] = (room < len) ? data[room] : 0;
            size_t cut = cut_point(p, E2B_LIVE_LINE_MAX);
            rc |= push(l, p, cut);
            /* What is after the cut starts the next piece. */
            size_t rest = E2B_LIVE_LINE_MAX - cut;
            memmove(p, p + cut, rest);
            l->plen = rest;
            data += room;
            len -= room;
            continue;
        }
        if (nl) {
            if (l->plen) {
                char *p = realloc(l->partial, l->plen + take + 1);
                if (!p)
                    return -1;
                l->partial = p;
                memcpy(p + l->plen, data, take);
                rc |= push(l, p, l->plen + take);
            } else {
                rc |= push(l, data, take);
            }
            l->plen = 0;
            data += take + 1;
            len -= take + 1;
        } else {
            char *p = realloc(l->partial, l->plen + take + 1);
            if (!p)
                return -1;
            l->partial = p;
            memcpy(p + l->plen, data, take);
            l->plen += take;
            data += take;
            len -= take;
        }
    }
    return rc;
}

int e2b_live_lines_add(struct e2b_live_lines *l, const char *text)
{
    int rc = 0;
    if (l->plen) {
        rc |= e2b_live_lines_feed(l, "\n", 1);
    }
    partial_changed(l);
    size_t len = strlen(text);
    while (len > E2B_LIVE_LINE_MAX) {
        size_t cut = cut_point(text, E2B_LIVE_LINE_MAX);
        rc |= push(l, text, cut);
        text += cut;
        len -= cut;
    }
    return rc | push(l, text, len);
}

int e2b_live_lines_count(const struct e2b_live_lines *l)
{
    return l->n + (l->plen ? 1 : 0);
}

const char *e2b_live_lines_get(struct e2b_live_lines *l, int i)
{
    if (i < 0)
        return NULL;
    if (i < l->n)
        return l->line[(l->head + i) % l->max];
    if (i == l->n && l->plen) {
        if (!l->partial_safe)
            l->partial_safe = e2b_sanitize_display(l->partial, l->plen, 0);
        return l->partial_safe;
    }
    return NULL;
}

size_t e2b_live_lines_resume_offset(const char *seen, size_t slen, const char *h, size_t hlen)
{
    size_t k = slen < 256 ? slen : 256;
    if (k == 0)
        return 0;
    const char *needle = seen + slen - k;
    for (size_t end = hlen; end >= k; end--)
        if (memcmp(h + end - k, needle, k) == 0)
            return end;
    return (size_t)-1;
}
