#include "tui/notify.h"

#include "core/e2b/cost.h"
#include "core/live/live_budget.h"
#include "core/util/sanitize.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void notify_init(struct notify *n, unsigned modes, int fd, bool tmux)
{
    memset(n, 0, sizeof *n);
    n->modes = modes;
    n->fd = fd;
    n->tmux = tmux;
}

void notify_clear(struct notify *n)
{
    free(n->boxes);
    n->boxes = NULL;
    n->n = 0;
}

/* A state that a change from may be told: the agent was seen running or at rest. */
static bool known(e2b_agent_state s)
{
    return s == E2B_AGENT_WORKING || s == E2B_AGENT_WAITING || s == E2B_AGENT_RETRYING ||
           s == E2B_AGENT_IDLE;
}

static const char *first_request(const e2b_agent_status *st)
{
    return st->nrequests && st->requests[0].id ? st->requests[0].id : "";
}

enum notify_event notify_event_for(const struct notify_box *prev, const e2b_agent_status *st)
{
    if (!prev || !st || !known(prev->state))
        return NOTIFY_NONE;
    if (st->state == E2B_AGENT_WAITING) {
        /* A new request while one was already told waits its turn for the next change. */
        if (prev->state != E2B_AGENT_WAITING ||
            (prev->request[0] && strncmp(prev->request, first_request(st), sizeof prev->request - 1)))
            return NOTIFY_WAITING;
        return NOTIFY_NONE;
    }
    if (st->state == E2B_AGENT_IDLE && st->idle_since_ms && st->idle_since_ms != prev->turn_end &&
        (prev->state != E2B_AGENT_IDLE || prev->turn_end)) {
        if (st->last_end == E2B_AGENT_END_DONE)
            return NOTIFY_DONE;
        if (st->last_end == E2B_AGENT_END_FAILED)
            return NOTIFY_FAILED;
    }
    return NOTIFY_NONE;
}

/* Appends s to buf (at *pos), cut to fit. */
static void notify_put(char *buf, size_t bufsz, size_t *pos, const char *s)
{
    size_t n = strlen(s);
    if (*pos + n + 1 > bufsz)
        n = bufsz > *pos + 1 ? bufsz - *pos - 1 : 0;
    memcpy(buf + *pos, s, n);
    *pos += n;
    buf[*pos] = '\0';
}

/* One OSC sequence, wrapped for tmux (its ESCs doubled inside "\ePtmux;...\e\\"). */
static void put_osc(char *buf, size_t bufsz, size_t *pos, bool tmux, const char *osc_body)
{
    if (tmux) {
        notify_put(buf, bufsz, pos, "\033Ptmux;\033\033]");
        notify_put(buf, bufsz, pos, osc_body);
        notify_put(buf, bufsz, pos, "\a\033\\");
    } else {
        notify_put(buf, bufsz, pos, "\033]");
        notify_put(buf, bufsz, pos, osc_body);
        notify_put(buf, bufsz, pos, "\a");
    }
}

/* Ends text before a last UTF-8 character that the cut left incomplete. */
static void drop_split_char(char *text)
{
    size_t len = strlen(text), i = len;
    while (i > 0 && ((unsigned char)text[i - 1] & 0xC0) == 0x80)
        i--;
    if (i == 0)
        return;
    unsigned char lead = (unsigned char)text[i - 1];
    size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (len - (i - 1) < want)
        text[i - 1] = '\0';
}

size_t notify_format(unsigned modes, bool tmux, const char *body, char *buf, size_t bufsz)
{
    size_t pos = 0;
    if (!bufsz)
        return 0;
    buf[0] = '\0';
    /* The body carries a box's name (metadata) and text from its agent: it passes the one
     * sanitiser here (C0, C1 such as U+009C that would end an OSC, DEL, ESC, bidi
     * overrides, bad UTF-8), is cut at a character's start, and ';' (the OSC's field
     * separator) becomes ','. */
    char *safe = e2b_sanitize_display(body ? body : "", body ? strlen(body) : 0, 0);
    char text[240];
    snprintf(text, sizeof text, "%s", safe ? safe : "");
    free(safe);
    drop_split_char(text);
    for (char *p = text; *p; p++)
        if (*p == ';')
            *p = ',';
    char osc[300];
    if (modes & E2B_NOTIFY_OSC9) {
        snprintf(osc, sizeof osc, "9;%s", text);
        put_osc(buf, bufsz, &pos, tmux, osc);
    }
    if (modes & E2B_NOTIFY_OSC777) {
        snprintf(osc, sizeof osc, "777;notify;e2b-tui;%s", text);
        put_osc(buf, bufsz, &pos, tmux, osc);
    }
    if (modes & E2B_NOTIFY_BELL)
        notify_put(buf, bufsz, &pos, "\a");
    return pos;
}

static struct notify_box *find(struct notify *n, const char *id)
{
    for (size_t i = 0; i < n->n; i++)
        if (strcmp(n->boxes[i].id, id) == 0)
            return &n->boxes[i];
    return NULL;
}

static void write_all(int fd, const char *s, size_t len)
{
    while (len) {
        ssize_t w = write(fd, s, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* the terminal is gone: nothing to tell it */
        s += w;
        len -= (size_t)w;
    }
}

static void tell(struct notify *n, enum notify_event ev, const e2b_sandbox *sb,
                 const e2b_agent_status *st)
{
    char body[300], bytes[1200];
    const char *name = e2b_live_sandbox_name(sb);
    switch (ev) {
    case NOTIFY_WAITING:
        snprintf(body, sizeof body, "%s is waiting for you: %s", name,
                 st->nrequests && st->requests[0].summary ? st->requests[0].summary : "a request");
        break;
    case NOTIFY_DONE: snprintf(body, sizeof body, "%s finished its turn", name); break;
    default:
        snprintf(body, sizeof body, "%s failed: %s", name, st->error ? st->error : "the turn failed");
        break;
    }
    size_t len = notify_format(n->modes, n->tmux, body, bytes, sizeof bytes);
    if (len) {
        write_all(n->fd, bytes, len);
        n->sent++;
    }
}

static void tell_budget(struct notify *n, const e2b_sandbox *sb, double usd)
{
    char body[300], bytes[1200], f[24];
    e2b_cost_format(usd, f, sizeof f);
    snprintf(body, sizeof body, "%s stopped at its %s budget", e2b_live_sandbox_name(sb), f);
    size_t len = notify_format(n->modes, n->tmux, body, bytes, sizeof bytes);
    if (len) {
        write_all(n->fd, bytes, len);
        n->sent++;
    }
}

int notify_check(struct notify *n, const e2b_live *m)
{
    const e2b_sandbox_list *list = e2b_live_sandboxes(m);
    int told = 0;
    for (size_t i = 0; i < n->n; i++)
        n->boxes[i].alive = false;
    for (size_t i = 0; list && i < list->count; i++) {
        const e2b_sandbox *sb = &list->items[i];
        const e2b_agent_status *st = e2b_live_agent(m, sb->sandbox_id);
        if (!st)
            continue;
        struct notify_box *b = find(n, sb->sandbox_id);
        enum notify_event ev = notify_event_for(b, st);
        e2b_live_budget bu;
        bool at_budget = e2b_live_budget_of(m, sb->sandbox_id, &bu) && bu.stopped;
        if (b && at_budget && !b->at_budget && n->modes) { /* stopped just now */
            tell_budget(n, sb, bu.usd);
            told++;
        }
        if (ev != NOTIFY_NONE && n->modes) {
            tell(n, ev, sb, st);
            told++;
        }
        if (!b) {
            struct notify_box *nb = realloc(n->boxes, (n->n + 1) * sizeof *nb);
            if (!nb)
                continue;
            n->boxes = nb;
            b = &n->boxes[n->n++];
            memset(b, 0, sizeof *b);
            snprintf(b->id, sizeof b->id, "%s", sb->sandbox_id);
        }
        b->alive = true;
        b->state = st->state;
        b->at_budget = at_budget;
        snprintf(b->request, sizeof b->request, "%s", first_request(st));
        b->turn_end = st->state == E2B_AGENT_IDLE ? st->idle_since_ms : 0;
    }
    /* Boxes no longer listed are forgotten. */
    size_t k = 0;
    for (size_t i = 0; i < n->n; i++)
        if (n->boxes[i].alive)
            n->boxes[k++] = n->boxes[i];
    n->n = k;
    return told;
}
