/* A box's life, the pure parts: the listening ports read from the box's /proc/net/tcp and
 * tcp6 (untrusted text, parsed with caps), and where a path of --get is in the box (only
 * inside the project or /tmp, never with ".."). */
#include "core/box/box_get.h"
#include "core/box/box_ports.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char TCP[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 00000000:1000 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1\n"
    "   1: 0100007F:2382 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2 1\n"
    "   2: 00000000:C33F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3 1\n"
    "   3: 0100007F:1000 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 4 1\n"
    "   4: 0100007F:1435 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5 1\n"
    "  sl  local_address                         remote_address                        st\n"
    "   0: 00000000000000000000000000000000:1435 00000000000000000000000000000000:0000 0A 0\n"
    "   1: 00000000000000000000000001000000:0BB8 00000000000000000000000000000000:0000 0A 0\n"
    "   2: 0000000000000000FFFF00000100007F:1F90 00000000000000000000000000000000:0000 0A 0\n"
    "junk: ZZZZ:1\n   9: 00000000:GGGG 00000000:0000 0A\n";

static void test_ports_parse(void)
{
    e2b_box_ports p;
    e2b_box_ports_parse(TCP, sizeof TCP - 1, &p);
    /* 4096, 9090 (loopback), 5173 (v4 loopback, v6 any: reachable), 3000 (::1), 8080
     * (v4-mapped loopback); 49983 (envd) and the established 4096->40000 are not listed */
    CHECK_INT_EQ(p.count, 5);
    CHECK_INT_EQ(p.items[0].port, 3000);
    CHECK_INT_EQ(p.items[0].loopback, 1);
    CHECK_INT_EQ(p.items[1].port, 4096);
    CHECK_INT_EQ(p.items[1].loopback, 0);
    CHECK_INT_EQ(p.items[2].port, 5173);
    CHECK_INT_EQ(p.items[2].loopback, 0);
    CHECK_INT_EQ(p.items[3].port, 8080);
    CHECK_INT_EQ(p.items[3].loopback, 1);
    CHECK_INT_EQ(p.items[4].port, 9090);
    CHECK_INT_EQ(p.items[4].loopback, 1);
    CHECK_INT_EQ(p.more, 0);
}

static void test_ports_capped(void)
{
    size_t cap = 200 * 100;
    char *t = malloc(cap), *w = t;
    for (int i = 0; i < 100; i++)
        w += sprintf(w, "   %d: 00000000:%04X 00000000:0000 0A 0\n", i, 1000 + i);
    e2b_box_ports p;
    e2b_box_ports_parse(t, (size_t)(w - t), &p);
    CHECK_INT_EQ(p.count, E2B_BOX_PORTS_MAX);
    CHECK_INT_EQ(p.more, 1);
    CHECK_INT_EQ(p.items[0].port, 1000);
    free(t);
    e2b_box_ports_parse("", 0, &p);
    CHECK_INT_EQ(p.count, 0);
}

static void where_ok(const char *path, const char *project, const char *parent,
                     const char *leaf)
{
    char *pa = NULL, *le = NULL;
    e2b_error *err = NULL;
    CHECK_INT_EQ(e2b_box_get_where(path, project, &pa, &le, &err), 0);
    CHECK_STR_EQ(pa ? pa : "(null)", parent);
    CHECK_STR_EQ(le ? le : "(null)", leaf);
    free(pa);
    free(le);
    e2b_error_free(err);
}

static void where_refused(const char *path, const char *project, const char *why)
{
    char *pa = NULL, *le = NULL;
    e2b_error *err = NULL;
    CHECK_INT_EQ(e2b_box_get_where(path, project, &pa, &le, &err), -1);
    CHECK(pa == NULL && le == NULL);
    CHECK(err && strstr(e2b_error_message(err), why) != NULL);
    e2b_error_free(err);
}

static void test_get_where(void)
{
    where_ok("dist", "/home/me/proj", "/home/me/proj", "dist");
    where_ok("./build//out/", "/home/me/proj", "/home/me/proj/build", "out");
    where_ok("/home/me/proj/dist/app.js", "/home/me/proj", "/home/me/proj/dist", "app.js");
    where_ok("/tmp/log.txt", "/home/me/proj", "/tmp", "log.txt");
    where_ok("/tmp/a/b", NULL, "/tmp/a", "b");
    where_refused("../secret", "/home/me/proj", "'..'");
    where_refused("dist/../../x", "/home/me/proj", "'..'");
    where_refused("/tmp/../etc/passwd", "/home/me/proj", "'..'");
    where_refused("/etc/passwd", "/home/me/proj", "only paths inside");
    where_refused("/home/me/projx/a", "/home/me/proj", "only paths inside");
    where_refused("/tmp", "/home/me/proj", "only paths inside");
    where_refused(".", "/home/me/proj", "whole project");
    where_refused("/home/me/proj", "/home/me/proj", "whole project");
    where_refused("dist", NULL, "not known here");
    where_refused("", "/home/me/proj", "empty");
}

int main(void)
{
    RUN(test_ports_parse);
    RUN(test_ports_capped);
    RUN(test_get_where);
    return harness_finish();
}
