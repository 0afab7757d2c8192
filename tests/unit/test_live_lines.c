/* The Log pane's line buffer (core/live/live_lines.c): stream bytes split into sanitised lines
 * across chunk boundaries, the unfinished line, the retention cap, long lines cut on UTF-8
 * boundaries, and the two overlap helpers that merge a history with a live stream. The file
 * is curses-free and compiled in directly (tests/unit links only libraries). */
#include "tests/lib/harness.h"

#include "core/live/live_lines.c"
#include "core/util/overlap.h"

#include <stdio.h>
#include <stdlib.h>

static void test_lines_split_across_chunks(void)
{
    struct e2b_live_lines l;
    e2b_live_lines_init(&l, 10);
    e2b_live_lines_feed(&l, "one\ntw", 6);
    CHECK_INT_EQ(e2b_live_lines_count(&l), 2);
    CHECK_STR_EQ(e2b_live_lines_get(&l, 0), "one");
    CHECK_STR_EQ(e2b_live_lines_get(&l, 1), "tw"); /* the unfinished line is shown */
    e2b_live_lines_feed(&l, "o\r\nthree\n", 9);
    CHECK_INT_EQ(e2b_live_lines_count(&l), 3);
    CHECK_STR_EQ(e2b_live_lines_get(&l, 1), "two"); /* CRLF: the \r is dropped */
    CHECK_STR_EQ(e2b_live_lines_get(&l, 2), "three");
    CHECK(e2b_live_lines_get(&l, 3) == NULL);
    CHECK(e2b_live_lines_get(&l, -1) == NULL);
    e2b_live_lines_feed(&l, "\n", 1);
    CHECK_STR_EQ(e2b_live_lines_get(&l, 3), ""); /* an empty line is a line */
    e2b_live_lines_clear(&l);
    CHECK_INT_EQ(e2b_live_lines_count(&l), 0);
}

static void test_add_ends_the_unfinished_line(void)
{
    struct e2b_live_lines l;
    e2b_live_lines_init(&l, 10);
    e2b_live_lines_feed(&l, "partial", 7);
    e2b_live_lines_add(&l, "whole");
    CHECK_INT_EQ(e2b_live_lines_count(&l), 2);
    CHECK_STR_EQ(e2b_live_lines_get(&l, 0), "partial");
    CHECK_STR_EQ(e2b_live_lines_get(&l, 1), "whole");
    e2b_live_lines_clear(&l);
}

static void test_cap_drops_the_oldest(void)
{
    struct e2b_live_lines l;
    e2b_live_lines_init(&l, 3);
    for (int i = 0; i < 7; i++) {
        char b[16];
        int n = snprintf(b, sizeof b, "l%d\n", i);
        e2b_live_lines_feed(&l, b, (size_t)n);
    }
    CHECK_INT_EQ(e2b_live_lines_count(&l), 3);
    CHECK_INT_EQ(l.dropped, 4);
    CHECK_STR_EQ(e2b_live_lines_get(&l, 0), "l4");
    CHECK_STR_EQ(e2b_live_lines_get(&l, 2), "l6");
    e2b_live_lines_clear(&l);
}

static void test_escapes_are_sanitised(void)
{
    struct e2b_live_lines l;
    e2b_live_lines_init(&l, 4);
    const char evil[] = "a\033[2Jb\033]0;T\007c\n";
    e2b_live_lines_feed(&l, evil, sizeof evil - 1);
    const char *s = e2b_live_lines_get(&l, 0);
    CHECK(s != NULL);
    CHECK(strchr(s, '\033') == NULL);
    CHECK(strchr(s, '\007') == NULL);
    CHECK(strstr(s, "[2J") != NULL);
    e2b_live_lines_feed(&l, "x\033", 2); /* the unfinished line too */
    CHECK(strchr(e2b_live_lines_get(&l, 1), '\033') == NULL);
    e2b_live_lines_clear(&l);
}

static void test_long_lines_are_cut_on_utf8_boundaries(void)
{
    struct e2b_live_lines l;
    e2b_live_lines_init(&l, 100);
    /* 4095 'x' then a 3-byte character: the cut must not split it. */
    size_t n = E2B_LIVE_LINE_MAX - 1 + 3 + 1;
    char *buf = malloc(n);
    CHECK(buf != NULL);
    memset(buf, 'x', E2B_LIVE_LINE_MAX - 1);
    memcpy(buf + E2B_LIVE_LINE_MAX - 1, "\xe6\x97\xa5\n", 4); /* 日 */
    /* Fed in small pieces, as a stream arrives. */
    for (size_t i = 0; i < n; i += 100)
        e2b_live_lines_feed(&l, buf + i, n - i < 100 ? n - i : 100);
    free(buf);
    CHECK_INT_EQ(e2b_live_lines_count(&l), 2);
    CHECK_INT_EQ(strlen(e2b_live_lines_get(&l, 0)), E2B_LIVE_LINE_MAX - 1);
    CHECK_STR_EQ(e2b_live_lines_get(&l, 1), "\xe6\x97\xa5");
    /* A whole 10000-byte line through add: three pieces, nothing lost. */
    char *big = malloc(10001);
    CHECK(big != NULL);
    memset(big, 'y', 10000);
    big[10000] = '\0';
    e2b_live_lines_add(&l, big);
    free(big);
    CHECK_INT_EQ(e2b_live_lines_count(&l), 5);
    size_t total = 0;
    for (int i = 2; i < 5; i++)
        total += strlen(e2b_live_lines_get(&l, i));
    CHECK_INT_EQ(total, 10000);
    e2b_live_lines_clear(&l);
}

static void test_overlap_of_history_and_live(void)
{
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("abc\ndef\n", 8, "def\nghi\n", 8), 4);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("abc\n", 4, "xyz\n", 4), 0);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("abc", 3, "", 0), 0);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("", 0, "abc", 3), 0);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("aaa", 3, "aaaa", 4), 3); /* the longest */
}

static void test_resume_offset_after_a_gap(void)
{
    const char *h = "one\ntwo\nthree\nfour\n";
    /* Seen up to "two\n": the gap starts at "three". */
    CHECK_INT_EQ(e2b_live_lines_resume_offset("one\ntwo\n", 8, h, strlen(h)), 8);
    /* Seen everything: nothing to add. */
    CHECK_INT_EQ(e2b_live_lines_resume_offset(h, strlen(h), h, strlen(h)), strlen(h));
    /* Seen up to the middle of a line. */
    CHECK_INT_EQ(e2b_live_lines_resume_offset("thr", 3, h, strlen(h)), 11);
    /* Not in the history: more was missed than it holds. */
    CHECK(e2b_live_lines_resume_offset("zzz\n", 4, h, strlen(h)) == (size_t)-1);
    /* The last occurrence counts. */
    CHECK_INT_EQ(e2b_live_lines_resume_offset("x\n", 2, "x\ny\nx\nz\n", 8), 6);
    CHECK_INT_EQ(e2b_live_lines_resume_offset("", 0, h, strlen(h)), 0);
}

int main(void)
{
    RUN(test_lines_split_across_chunks);
    RUN(test_add_ends_the_unfinished_line);
    RUN(test_cap_drops_the_oldest);
    RUN(test_escapes_are_sanitised);
    RUN(test_long_lines_are_cut_on_utf8_boundaries);
    RUN(test_overlap_of_history_and_live);
    RUN(test_resume_offset_after_a_gap);
    return harness_finish();
}
