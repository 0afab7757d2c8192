/* A box's recent activity in one text block allocated once (core/agent/activity.h). */
#include "core/agent/activity.h"

#include "core/util/sanitize.h"

#include <stdlib.h>
#include <string.h>

static bool same(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

static bool continuation(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

/* The start of s's last max bytes (at a character's first byte). */
static size_t tail_from(const char *s, size_t len, size_t max)
{
    size_t k = len > max ? len - max : 0;
    while (k < len && k && continuation(s[k]))
        k++;
    return k;
}

/* Every entry's text points at its place in the block again (after bytes moved). */
static void repoint(e2b_agent_status *st)
{
    char *p = st->activity_text;
    for (size_t i = 0; i < st->nactivity; i++) {
        st->activity[i].text = p;
        p += st->activity[i].text_len + 1;
    }
}

static void drop_oldest(e2b_agent_status *st)
{
    if (!st->nactivity)
        return;
    size_t gone = st->activity[0].text_len + 1;
    memmove(st->activity_text, st->activity_text + gone, st->activity_used - gone);
    st->activity_used -= gone;
    st->activity[0].text = NULL; /* a view, not its own */
    e2b_agent_activity_clear(&st->activity[0]);
    memmove(&st->activity[0], &st->activity[1], (st->nactivity - 1) * sizeof *st->activity);
    st->nactivity--;
    repoint(st);
}

/* Room for more bytes in the block, dropping the oldest entries (never entry *keep, whose
 * index follows). Returns false when even that is not enough. */
static bool make_room(e2b_agent_status *st, size_t more, size_t *keep)
{
    while (st->activity_used + more > E2B_AGENT_ACTIVITY_TEXT_CAP) {
        if (!st->nactivity || (keep && *keep == 0))
            return false;
        drop_oldest(st);
        if (keep)
            (*keep)--;
    }
    return true;
}

static int storage(e2b_agent_status *st)
{
    if (st->activity)
        return 0;
    st->activity = calloc(E2B_AGENT_ACTIVITY_MAX, sizeof *st->activity);
    st->activity_text = malloc(E2B_AGENT_ACTIVITY_TEXT_CAP);
    if (!st->activity || !st->activity_text) {
        e2b_activity_free(st);
        return -1;
    }
    st->activity_used = 0;
    return 0;
}

e2b_agent_activity *e2b_activity_get(e2b_agent_status *st, e2b_agent_activity_kind kind,
                                     const char *sid, const char *key)
{
    for (size_t i = st->nactivity; i-- > 0;)
        if (st->activity[i].kind == kind && same(st->activity[i].key, key))
            return &st->activity[i];
    if (storage(st))
        return NULL;
    if (st->nactivity >= E2B_AGENT_ACTIVITY_MAX)
        drop_oldest(st);
    if (!make_room(st, 1, NULL))
        return NULL;
    e2b_agent_activity *a = &st->activity[st->nactivity];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->key = strdup(key ? key : "");
    a->session_id = strdup(sid ? sid : "");
    if (!a->key || !a->session_id) {
        e2b_agent_activity_clear(a);
        return NULL;
    }
    a->text = st->activity_text + st->activity_used;
    a->text[0] = '\0';
    st->activity_used++;
    st->nactivity++;
    return a;
}

void e2b_activity_text(e2b_agent_status *st, e2b_agent_activity *a, const char *text, bool whole)
{
    if (!text || !st->activity || a < st->activity || a >= st->activity + st->nactivity)
        return;
    size_t i = (size_t)(a - st->activity);
    /* only the chunk's last E2B_AGENT_TAIL_MAX bytes can stay: sanitise just those (the
     * sanitiser works per character, so old text + sanitised chunk = the whole sanitised) */
    size_t add = strlen(text), from = tail_from(text, add, E2B_AGENT_TAIL_MAX);
    char piece[E2B_AGENT_TAIL_MAX * 3 + 1];
    size_t m = e2b_sanitize_into(piece, text + from, add - from, E2B_SANITIZE_KEEP_NEWLINES);
    size_t pfrom = tail_from(piece, m, E2B_AGENT_TAIL_MAX);
    m -= pfrom;
    size_t cur = a->text_len;
    size_t drop = whole ? cur : cur + m > E2B_AGENT_TAIL_MAX ? tail_from(a->text, cur, E2B_AGENT_TAIL_MAX - m) : 0;
    size_t kept = cur - drop, len = kept + m;
    if (len > cur && !make_room(st, len - cur, &i))
        return;
    a = &st->activity[i];
    char *buf = st->activity_text;
    size_t off = (size_t)(a->text - buf), rest = off + cur + 1;
    memmove(buf + off, buf + off + drop, kept);
    memmove(buf + off + len + 1, buf + rest, st->activity_used - rest);
    memcpy(buf + off + kept, piece + pfrom, m);
    buf[off + len] = '\0';
    st->activity_used = st->activity_used - cur + len;
    a->text_len = len;
    repoint(st);
}

void e2b_activity_bound(e2b_agent_status *st)
{
    while (st->nactivity > 1 && st->activity_used - st->nactivity > E2B_AGENT_ACTIVITY_BYTES)
        drop_oldest(st);
}

int e2b_activity_copy(e2b_agent_status *dst, const e2b_agent_status *src)
{
    dst->activity = NULL;
    dst->activity_text = NULL;
    dst->nactivity = dst->activity_used = 0;
    if (!src->nactivity)
        return 0;
    if (storage(dst))
        return -1;
    memcpy(dst->activity_text, src->activity_text, src->activity_used);
    dst->activity_used = src->activity_used;
    int bad = 0;
    for (size_t i = 0; i < src->nactivity; i++, dst->nactivity++) {
        const e2b_agent_activity *a = &src->activity[i];
        e2b_agent_activity *b = &dst->activity[i];
        *b = (e2b_agent_activity){.kind = a->kind, .at_ms = a->at_ms, .text_len = a->text_len};
        b->session_id = a->session_id ? strdup(a->session_id) : NULL;
        b->key = a->key ? strdup(a->key) : NULL;
        b->tool = a->tool ? strdup(a->tool) : NULL;
        b->state = a->state ? strdup(a->state) : NULL;
        bad |= (a->session_id && !b->session_id) || (a->key && !b->key) ||
               (a->tool && !b->tool) || (a->state && !b->state);
    }
    repoint(dst);
    if (bad) {
        e2b_activity_free(dst);
        return -1;
    }
    return 0;
}

void e2b_activity_free(e2b_agent_status *st)
{
    for (size_t i = 0; st->activity && i < st->nactivity; i++) {
        st->activity[i].text = NULL;
        e2b_agent_activity_clear(&st->activity[i]);
    }
    free(st->activity);
    free(st->activity_text);
    st->activity = NULL;
    st->activity_text = NULL;
    st->nactivity = st->activity_used = 0;
}
