/* The agents' history reader (core/live/live.h e2b_live_history_read_last), as the History
 * view's follower uses it: the cap keeps the newest entries of both files (history.log.1
 * first), counts the ones it let go, filters one box, and leaves a line still being written
 * (no newline yet) for the next read; hostile text in the file is sanitised. */
#include "core/live/live.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[512];

static void write_lines(const char *name, int from, int to, const char *box, const char *tail)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", root, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    for (int i = from; i <= to; i++)
        fprintf(f, "%d\t%s\tline %d\n", 1764700000 + i, box, i);
    if (tail)
        fputs(tail, f);
    fclose(f);
}

static e2b_config cfg_of(void)
{
    e2b_config c;
    memset(&c, 0, sizeof c);
    c.state_dir = root;
    return c;
}

static void test_cap_keeps_the_newest(void)
{
    write_lines("history.log.1", 1, 1500, "alpha", NULL);
    write_lines("history.log", 1501, 2600, "alpha", NULL);
    e2b_config c = cfg_of();
    e2b_live_history h;
    size_t dropped = 99;
    e2b_error *err = e2b_live_history_read_last(&c, NULL, E2B_LIVE_HISTORY_CAP, &h, &dropped);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_INT_EQ(h.count, E2B_LIVE_HISTORY_CAP);
    CHECK_INT_EQ(dropped, 600);
    CHECK_STR_EQ(h.items[0].text, "line 601"); /* the oldest kept, first */
    CHECK_STR_EQ(h.items[h.count - 1].text, "line 2600");
    for (size_t i = 1; i < h.count; i++)
        if (h.items[i].at != h.items[i - 1].at + 1) {
            CHECK_MSG(0, "entry %zu is out of order", i);
            break;
        }
    e2b_live_history_clear(&h);

    /* no cap: all of them */
    err = e2b_live_history_read(&c, NULL, &h);
    CHECK(err == NULL);
    CHECK_INT_EQ(h.count, 2600);
    e2b_live_history_clear(&h);

    /* under the cap: nothing dropped, in order */
    err = e2b_live_history_read_last(&c, NULL, 3000, &h, &dropped);
    CHECK(err == NULL);
    CHECK_INT_EQ(h.count, 2600);
    CHECK_INT_EQ(dropped, 0);
    CHECK_STR_EQ(h.items[0].text, "line 1");
    e2b_live_history_clear(&h);
}

static void test_one_box_and_a_line_being_written(void)
{
    write_lines("history.log.1", 1, 3, "alpha", "garbage without tabs\n");
    write_lines("history.log", 4, 6, "beta", "1764800000\tbeta\tnot ended yet");
    e2b_config c = cfg_of();
    e2b_live_history h;
    size_t dropped = 1;
    e2b_error *err = e2b_live_history_read_last(&c, "beta", 2, &h, &dropped);
    CHECK(err == NULL);
    CHECK_INT_EQ(h.count, 2);
    CHECK_INT_EQ(dropped, 1); /* beta's line 4; alpha's are not counted */
    CHECK_STR_EQ(h.items[0].text, "line 5");
    CHECK_STR_EQ(h.items[1].text, "line 6"); /* the unended line is not read */
    CHECK_STR_EQ(h.items[1].box, "beta");
    e2b_live_history_clear(&h);
}

static void test_hostile_text_sanitised(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/history.log", root);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("1764700001\tevil\tred \x1b[31mtext\x07 here\n", f);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/history.log.1", root);
    unlink(path);
    e2b_config c = cfg_of();
    e2b_live_history h;
    CHECK(e2b_live_history_read_last(&c, NULL, 10, &h, NULL) == NULL);
    CHECK_INT_EQ(h.count, 1);
    if (h.count)
        CHECK_MSG(!strchr(h.items[0].text, '\x1b') && !strchr(h.items[0].text, '\x07'),
                  "control characters kept: %s", h.items[0].text);
    e2b_live_history_clear(&h);
}

static void test_no_history_is_empty(void)
{
    e2b_config c = cfg_of();
    char sub[600];
    snprintf(sub, sizeof sub, "%s/none", root);
    c.state_dir = sub;
    e2b_live_history h;
    size_t dropped = 5;
    CHECK(e2b_live_history_read_last(&c, NULL, 10, &h, &dropped) == NULL);
    CHECK_INT_EQ(h.count, 0);
    CHECK_INT_EQ(dropped, 0);
    e2b_live_history_clear(&h);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/e2b-history-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        return 1;
    RUN(test_cap_keeps_the_newest);
    RUN(test_one_box_and_a_line_being_written);
    RUN(test_hostile_text_sanitised);
    RUN(test_no_history_is_empty);
    char path[600];
    snprintf(path, sizeof path, "%s/history.log", root);
    unlink(path);
    snprintf(path, sizeof path, "%s/history.log.1", root);
    unlink(path);
    rmdir(root);
    return harness_finish();
}
