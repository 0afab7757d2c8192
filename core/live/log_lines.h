/* The lines a Log pane shows: bytes from a stream (or whole lines) become sanitised lines,
 * at most `max` of them are kept (the oldest go), a line longer than LOG_LINE_MAX bytes is
 * cut into pieces, and the unfinished last line is shown as it grows.
 *
 *   struct log_lines l;
 *   log_lines_init(&l, 5000);
 *   log_lines_feed(&l, data, len);       // stream bytes: split on \n, \r dropped
 *   log_lines_add(&l, "12:00:01 info x"); // a whole line
 *   for (int i = 0; i < log_lines_count(&l); i++) draw(log_lines_get(&l, i));
 *   log_lines_clear(&l);
 *
 * Pure: no curses, no I/O (tests/unit includes it). Strings returned are owned by l and
 * valid until the next call that changes l. */
#ifndef E2B_LIVE_LOG_LINES_H
#define E2B_LIVE_LOG_LINES_H

#include <stdbool.h>
#include <stddef.h>

enum { LOG_LINE_MAX = 4096 };

struct log_lines {
    char **line; /* ring of sanitised lines */
    int max, n, head;
    long long dropped; /* lines dropped from the top so far (scroll positions shift) */
    char *partial;     /* raw bytes after the last newline */
    size_t plen;
    char *partial_safe; /* sanitised copy of partial, made when drawn */
};

void log_lines_init(struct log_lines *l, int max);
void log_lines_clear(struct log_lines *l);
/* Appends stream bytes. Returns 0, or -1 when out of memory (what fitted is kept). */
int log_lines_feed(struct log_lines *l, const char *data, size_t len);
/* Appends one whole line (the unfinished line, if any, is ended first). */
int log_lines_add(struct log_lines *l, const char *text);
/* Lines shown, including the unfinished one. */
int log_lines_count(const struct log_lines *l);
/* Line i (0 = oldest kept); NULL when out of range or out of memory. */
const char *log_lines_get(struct log_lines *l, int i);

/* Where, in the history h, the bytes after the already-seen tail `seen` start: the end of
 * the last occurrence in h of seen's last (up to 256) bytes. Returns that offset, or
 * (size_t)-1 when seen's tail is not in h (more was missed than h holds). */
size_t log_resume_offset(const char *seen, size_t slen, const char *h, size_t hlen);

#endif
