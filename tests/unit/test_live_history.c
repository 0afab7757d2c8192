/* The agents' history told once when several processes watch one box (core/live/
 * live_history.c, e2b_live_history_told): a change another process wrote a moment ago is not
 * written again, this process's own lines never hide a new change (a box that really goes
 * working, idle, working keeps three lines), another box's line or an old one hides nothing,
 * and a line of this process's after the other's makes the other's older news. */
#include "tests/lib/harness.h"

#include "core/live/live.h"

#include <stdio.h>
#include <string.h>

static const char *none[1];

static void test_another_process_told_it(void)
{
    const char *tail = "1000\tfeat\tstarted working\n";
    CHECK(e2b_live_history_told(none, 0, tail, "1001\tfeat\tstarted working\n"));
    /* the other process may be behind or ahead: a few seconds either way */
    CHECK(e2b_live_history_told(none, 0, tail, "999\tfeat\tstarted working\n"));
    CHECK(e2b_live_history_told(none, 0, "5\tother\tidle: done\n1000\tfeat\tstarted working\n",
                                "1030\tfeat\tstarted working\n"));
}

static void test_not_the_same_change(void)
{
    const char *tail = "1000\tfeat\tstarted working\n";
    CHECK(!e2b_live_history_told(none, 0, tail, "1001\tfeat\tidle: done\n"));     /* other text */
    CHECK(!e2b_live_history_told(none, 0, tail, "1001\tbeta\tstarted working\n")); /* other box */
    CHECK(!e2b_live_history_told(none, 0, tail, "1031\tfeat\tstarted working\n")); /* too old */
    CHECK(!e2b_live_history_told(none, 0, tail, "1001\tfeat\tstarted work\n"));    /* a prefix */
    CHECK(!e2b_live_history_told(none, 0, "1000\tfeat\tstarted working now\n",
                                 "1001\tfeat\tstarted working\n"));
    CHECK(!e2b_live_history_told(none, 0, "", "1001\tfeat\tstarted working\n"));
    CHECK(!e2b_live_history_told(none, 0, "garbage\n\t\t\n", "1001\tfeat\tstarted working\n"));
}

static void test_own_lines_never_hide_a_change(void)
{
    /* this process wrote working, idle, and the box works again: a new line */
    const char *mine[] = {"1000\tfeat\tstarted working\n", "1001\tfeat\tidle: done\n"};
    const char *tail = "1000\tfeat\tstarted working\n1001\tfeat\tidle: done\n";
    CHECK(!e2b_live_history_told(mine, 2, tail, "1002\tfeat\tstarted working\n"));
    /* a second request in the same words (each request is told once): its own line too */
    const char *mine2[] = {"1000\tfeat\tstarted waiting: bash: ls\n"};
    CHECK(!e2b_live_history_told(mine2, 1, mine2[0], "1003\tfeat\tstarted waiting: bash: ls\n"));
}

static void test_own_later_line_makes_the_other_old_news(void)
{
    /* another process told "started working" and quit; this one told the idle it alone saw:
     * the box working again is news */
    const char *mine[] = {"1010\tfeat\tidle: done\n"};
    const char *tail = "1000\tfeat\tstarted working\n1010\tfeat\tidle: done\n";
    CHECK(!e2b_live_history_told(mine, 1, tail, "1012\tfeat\tstarted working\n"));
    /* while a line of the other process after this one's own still tells it */
    const char *tail2 = "1000\tfeat\tidle: done\n1011\tfeat\tstarted working\n";
    const char *mine2[] = {"1000\tfeat\tidle: done\n"};
    CHECK(e2b_live_history_told(mine2, 1, tail2, "1012\tfeat\tstarted working\n"));
}

static void test_lagging_watcher_tells_nothing_twice(void)
{
    /* A wrote three changes; B, a little behind, sees each of them after A wrote it */
    const char *tail = "1000\tfeat\tstarted working\n1001\tfeat\tidle: done\n"
                       "1003\tfeat\tstarted working\n";
    CHECK(e2b_live_history_told(none, 0, tail, "1001\tfeat\tstarted working\n"));
    CHECK(e2b_live_history_told(none, 0, tail, "1002\tfeat\tidle: done\n"));
    CHECK(e2b_live_history_told(none, 0, tail, "1004\tfeat\tstarted working\n"));
}

int main(void)
{
    RUN(test_another_process_told_it);
    RUN(test_not_the_same_change);
    RUN(test_own_lines_never_hide_a_change);
    RUN(test_own_later_line_makes_the_other_old_news);
    RUN(test_lagging_watcher_tells_nothing_twice);
    return harness_finish();
}
