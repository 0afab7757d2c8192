/* The lines a Log pane shows: bytes from a stream (or whole lines) become sanitised lines,
 * at most `max` of them are kept (the oldest go), a line longer than E2B_LIVE_LINE_MAX bytes is
 * cut into pieces, and the unfinished last line is shown as it grows.
 *
 *   struct e2b_live_lines l;
 *   e2b_live_lines_init(&l, 5000);
 *   e2b_live_lines_feed(&l, data, len);       // stream bytes: split on \n, \r dropped
 *   e2b_live_lines_add(&l, "12:00:01 info x"); // a whole line
 *   for (int i = 0; i < e2b_live_lines_count(&l); i++) draw(e2b_live_lines_get(&l, i));
 *   e2b_live_lines_clear(&l);
 *
 * Pure: no curses, no I/O (tests/unit includes it). Strings returned are owned by l and
 * valid until the next call that changes l. */
#ifndef E2B_LIVE_LINES_H
#define E2B_LIVE_LINES_H

#include <stdbool.h>
#include <stddef.h>

enum { E2B_LIVE_LINE_MAX = 4096 };

struct e2b_live_lines {
    char **line; /* ring of sanitised lines */
    int max, n, head;
    long long dropped; /* lines dropped from the top so far (scroll positions shift) */
    char *partial;     /* raw bytes after the last newline */
    size_t plen;
    char *partial_safe; /* sanitised copy of partial, made when drawn */
};

void e2b_live_lines_init(struct e2b_live_lines *l, int max);
void e2b_live_lines_clear(struct e2b_live_lines *l);
/* Appends stream bytes. Returns 0, or -1 when out of memory (what fitted is kept). */
int e2b_live_lines_feed(struct e2b_live_lines *l, const char *data, size_t len);
/* Appends one whole line (the unfinished line, if any, is ended first). */
int e2b_live_lines_add(struct e2b_live_lines *l, const char *text);
/* Lines shown, including the unfinished one. */
int e2b_live_lines_count(const struct e2b_live_lines *l);
/* Line i (0 = oldest kept); NULL when out of range or out of memory. */
const char *e2b_live_lines_get(struct e2b_live_lines *l, int i);

/* Where, in the history h, the bytes after the already-seen tail `seen` start: the end of
 * the last occurrence in h of seen's last (up to 256) bytes. Returns that offset, or
 * (size_t)-1 when seen's tail is not in h (more was missed than h holds). */
size_t e2b_live_lines_resume_offset(const char *seen, size_t slen, const char *h, size_t hlen);

#endif
