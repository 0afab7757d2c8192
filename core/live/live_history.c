/* The agents' history (live.h "history"): one line a state change, appended by whichever
 * process runs the model (the dashboard, --watch, --wait, --keepalive), to
 * <state_dir>/history.log (0600, in the 0700 state folder). A line that would take the file
 * past history_max first moves it to history.log.1 (one old file is kept), so both stay
 * within about twice the cap. Several processes may write: each line is one O_APPEND write,
 * and the rotation is done under flock by the one that still finds the file it opened.
 *
 * Two processes that watch one box (a dashboard and a --watch) both see each change: it is
 * written once. The append takes flock on the file and reads its tail (HISTORY_TAIL bytes):
 * a line of the same box and text that another process wrote within HISTORY_SAME_S seconds,
 * after this process's own last line of that box, is the same change told already. This
 * process's own lines (the last HISTORY_MINE it wrote) never count, so a box that really
 * changes twice the same way ("started working", "idle: done", "started working") keeps
 * every line. Just after a rotation the tail is the new file's (a change may then be told
 * twice). */
#include "core/live/live_internal.h"

#include "core/util/fs.h"
#include "core/util/log.h"
#include "core/util/sanitize.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define HISTORY_FILE "history.log"
#define HISTORY_LINE_MAX 512
#define HISTORY_TAIL 16384  /* the bytes of the file's end read for a change told already */
#define HISTORY_SAME_S 30   /* ... by another process, this many seconds ago at most */
#define HISTORY_MINE 16     /* the lines this process wrote last, kept to tell them apart */

/* The lines this process wrote last (each "TIME\tBOX\tTEXT\n"), a ring. */
struct live_history {
    char *mine[HISTORY_MINE];
    unsigned next;
};

void live_history_free(e2b_live *m)
{
    if (!m->history)
        return;
    for (size_t i = 0; i < HISTORY_MINE; i++)
        free(m->history->mine[i]);
    free(m->history);
    m->history = NULL;
}

static bool is_mine(const struct live_history *h, const char *line, size_t n)
{
    for (size_t i = 0; h && i < HISTORY_MINE; i++)
        if (h->mine[i] && strlen(h->mine[i]) == n && !memcmp(h->mine[i], line, n))
            return true;
    return false;
}

static void remember_mine(e2b_live *m, const char *line, size_t n)
{
    if (!m->history && !(m->history = calloc(1, sizeof *m->history)))
        return;
    struct live_history *h = m->history;
    char *copy = strndup(line, n);
    if (!copy)
        return;
    free(h->mine[h->next]);
    h->mine[h->next] = copy;
    h->next = (h->next + 1) % HISTORY_MINE;
}

/* Whether the tail (whole lines) tells line ("TIME\tBOX\tTEXT\n") already: a line of
 * another process with the same box and text, at most HISTORY_SAME_S before line's time,
 * after this process's own last line of that box. Pure (tests/unit reach it through
 * e2b_live_history_told). */
static bool told_already(const struct live_history *h, const char *tail, size_t len,
                         const char *line, size_t n)
{
    const char *t1 = memchr(line, '\t', n);
    const char *t2 = t1 ? memchr(t1 + 1, '\t', n - (size_t)(t1 + 1 - line)) : NULL;
    if (!t2)
        return false;
    long long at = strtoll(line, NULL, 10);
    size_t key_len = n - (size_t)(t1 - line); /* "\tBOX\tTEXT\n" */
    bool told = false;
    const char *p = tail, *end = tail + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        size_t ln = (size_t)(nl + 1 - p);
        const char *u = memchr(p, '\t', ln);
        char *stop = NULL;
        long long when = strtoll(p, &stop, 10);
        if (u && stop == u && (size_t)(nl + 1 - u) == key_len && !memcmp(u, t1, key_len)) {
            if (is_mine(h, p, ln))
                told = false; /* this process told it: a later same line is a new change */
            else if (at - when <= HISTORY_SAME_S && when - at <= HISTORY_SAME_S)
                told = true;
        } else if (u && stop == u) {
            /* another line of the same box, this process's: what came before is older news */
            const char *v = memchr(u + 1, '\t', (size_t)(nl - u));
            if (v && v - u == t2 - t1 && !memcmp(u, t1, (size_t)(t2 - t1)) && is_mine(h, p, ln))
                told = false;
        }
        p = nl + 1;
    }
    return told;
}

bool e2b_live_history_told(const char *const *mine, size_t nmine, const char *tail,
                           const char *line)
{
    struct live_history h = {0};
    for (size_t i = 0; i < nmine && i < HISTORY_MINE; i++)
        h.mine[i] = (char *)mine[i];
    return told_already(&h, tail, strlen(tail), line, strlen(line));
}

/* The end of the file fd is open on (the last whole lines of at most HISTORY_TAIL bytes)
 * into buf; its length, 0 when none or unreadable. */
static size_t read_tail(const char *path, int wfd, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat a, b;
    size_t got = 0;
    if (fd >= 0 && fstat(fd, &a) == 0 && fstat(wfd, &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev && a.st_size > 0) {
        off_t from = a.st_size > (off_t)cap ? a.st_size - (off_t)cap : 0;
        ssize_t n = pread(fd, buf, cap, from);
        got = n > 0 ? (size_t)n : 0;
        if (from > 0 && got) { /* the first line is cut: from the next one */
            char *nl = memchr(buf, '\n', got);
            size_t skip = nl ? (size_t)(nl + 1 - buf) : got;
            memmove(buf, buf + skip, got - skip);
            got -= skip;
        }
    }
    if (fd >= 0)
        close(fd);
    return got;
}

/* One line into the file of dir, rotated first when it would pass max, unless another
 * process told it already (under flock, with the tail read). */
static int history_append(e2b_live *m, const char *dir, long max, const char *line, size_t n)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, HISTORY_FILE) >= (int)sizeof path ||
        e2b_mkdir_private(dir) < 0)
        return -1;
    int fd = e2b_log_file_open(path);
    if (fd >= 0 && e2b_log_file_rotate(fd, path, n, max)) {
        close(fd);
        fd = e2b_log_file_open(path);
    }
    if (fd < 0)
        return -1;
    /* the check and the write under one lock: two processes never both write a change */
    bool locked = flock(fd, LOCK_EX) == 0;
    char *tail = locked ? malloc(HISTORY_TAIL) : NULL;
    size_t len = tail ? read_tail(path, fd, tail, HISTORY_TAIL) : 0;
    int rc = 0;
    if (!tail || !told_already(m->history, tail, len, line, n)) {
        rc = e2b_write_all(fd, line, n);
        if (rc == 0)
            remember_mine(m, line, n);
    }
    free(tail);
    if (locked)
        flock(fd, LOCK_UN);
    close(fd);
    return rc;
}

void live_history_add(e2b_live *m, const char *box, const char *fmt, ...)
{
    if (!m->cfg.state_dir || !box)
        return;
    char text[HISTORY_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* model text: one line, nothing a terminal would act on; a tab would split the fields */
    char *safe = e2b_sanitize_display(text, strlen(text), 0);
    char *safe_box = e2b_sanitize_display(box, strlen(box), 0);
    char line[HISTORY_LINE_MAX + 200];
    int n = safe && safe_box
                ? snprintf(line, sizeof line, "%lld\t%.128s\t%s\n", (long long)time(NULL),
                           safe_box, safe)
                : -1;
    free(safe);
    free(safe_box);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line) {
        n = (int)sizeof line - 1;
        line[n - 1] = '\n';
    }
    if (history_append(m, m->cfg.state_dir, m->cfg.history_max, line, (size_t)n) < 0)
        e2b_logf("history: cannot append to %s/%s: %s", m->cfg.state_dir, HISTORY_FILE,
                 strerror(errno));
}

/* ---- reading ---- */

/* The entries of e (as written: at, box, text) kept in r; a full ring (max) drops its
 * oldest. */
static int ring_add(live_history_ring *r, time_t at, const char *box, const char *text)
{
    e2b_live_history *h = &r->h;
    e2b_live_history_entry *e;
    if (r->max && h->count == r->max) { /* full: the oldest goes */
        e = &h->items[r->head];
        r->head = (r->head + 1) % r->max;
        r->dropped++;
    } else {
        if (h->count == h->cap) {
            size_t cap = h->cap ? h->cap * 2 : 64;
            if (r->max && cap > r->max)
                cap = r->max;
            e2b_live_history_entry *g = realloc(h->items, cap * sizeof *g);
            if (!g)
                return -1;
            h->items = g;
            h->cap = cap;
        }
        e = &h->items[h->count++];
    }
    e->at = at;
    snprintf(e->box, sizeof e->box, "%s", box);
    /* the file may have been edited: sanitised again */
    char *safe = e2b_sanitize_display(text, strlen(text), 0);
    snprintf(e->text, sizeof e->text, "%s", safe ? safe : "?");
    free(safe);
    return 0;
}

void live_history_ring_order(const live_history_ring *r, e2b_live_history *out)
{
    memset(out, 0, sizeof *out);
    size_t n = r->h.count;
    if (!n || !(out->items = malloc(n * sizeof *out->items)))
        return;
    for (size_t i = 0; i < n; i++)
        out->items[i] = r->h.items[(r->head + i) % n];
    out->count = out->cap = n;
}

void live_history_ring_clear(live_history_ring *r)
{
    size_t max = r->max;
    e2b_live_history_clear(&r->h);
    memset(r, 0, sizeof *r);
    r->max = max;
}

e2b_error *live_history_read_lines(FILE *f, const char *box, live_history_ring *r, long *pos,
                                   const atomic_int *stop)
{
    char line[HISTORY_LINE_MAX + 256];
    while (!(stop && atomic_load(stop)) && fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n') {
            line[--len] = '\0';
        } else if (!feof(f)) { /* longer than any line we write: skip the rest of it */
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
            if (c == EOF)
                break; /* not ended yet: read again from its start */
            *pos = ftell(f);
            continue;
        } else {
            break; /* a line still being written: read again from its start */
        }
        *pos = ftell(f);
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL, *end;
        if (!t2)
            continue;
        *t1 = *t2 = '\0';
        long long at = strtoll(line, &end, 10);
        if (*end || at <= 0 || (box && strcmp(t1 + 1, box) != 0))
            continue;
        if (ring_add(r, (time_t)at, t1 + 1, t2 + 1) < 0)
            return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    return NULL;
}

e2b_error *live_history_read_file(const char *path, const char *box, live_history_ring *r,
                                  long *pos, const atomic_int *stop)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return errno == ENOENT ? NULL
                               : e2b_error_new(E2B_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    long start = pos ? *pos : 0, p = start;
    e2b_error *err = start > 0 && fseek(f, start, SEEK_SET) != 0
                         ? e2b_error_new(E2B_ERR_IO, "cannot read %s: %s", path, strerror(errno))
                         : live_history_read_lines(f, box, r, &p, stop);
    fclose(f);
    if (pos)
        *pos = p;
    return err;
}

int live_history_path(const e2b_config *cfg, bool old, char *path, size_t n)
{
    if (!cfg->state_dir)
        return -1;
    int w = snprintf(path, n, "%s/%s%s", cfg->state_dir, HISTORY_FILE, old ? ".1" : "");
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

e2b_error *e2b_live_history_read_last(const e2b_config *cfg, const char *box, size_t max,
                                      e2b_live_history *out, size_t *dropped)
{
    memset(out, 0, sizeof *out);
    if (dropped)
        *dropped = 0;
    if (!cfg->state_dir)
        return NULL;
    live_history_ring r = {.max = max};
    char path[4096];
    for (int old = 1; old >= 0; old--) { /* oldest first */
        e2b_error *err = live_history_path(cfg, old, path, sizeof path) < 0
                             ? e2b_error_new(E2B_ERR_INVALID, "the state folder's path is too long")
                             : live_history_read_file(path, box, &r, NULL, NULL);
        if (err) {
            live_history_ring_clear(&r);
            return err;
        }
    }
    live_history_ring_order(&r, out);
    if (r.h.count && !out->items) {
        live_history_ring_clear(&r);
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    if (dropped)
        *dropped = r.dropped;
    live_history_ring_clear(&r);
    return NULL;
}

e2b_error *e2b_live_history_read(const e2b_config *cfg, const char *box, e2b_live_history *out)
{
    return e2b_live_history_read_last(cfg, box, 0, out, NULL);
}

void e2b_live_history_clear(e2b_live_history *h)
{
    free(h->items);
    memset(h, 0, sizeof *h);
}
