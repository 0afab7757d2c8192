/* A box's life, the pure parts: the listening ports read from the box's /proc/net/tcp and
 * tcp6 (untrusted text, parsed with caps), and where a path of --get is in the box (only
 * inside the project or /tmp, never with ".."). */
#include "core/box/box_get.h"
#include "core/box/box_ports.h"
#include "core/live/live_idle.h"
#include "core/util/archive_dl.h"
#include "tests/lib/harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char TCP[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 00000000:1000 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1\n"
    "   1: 0100007F:2382 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2 1\n"
    "   2: 00000000:C33F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3 1\n"
    "   3: 0100007F:1000 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 4 1\n"
    "   4: 0100007F:1435 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5 1\n"
    "   5: 0A00000F:D431 0A000001:0050 01 00000000:00000000 00:00000000 00000000  1000        0 6 1\n"
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
     * (v4-mapped loopback); 49983 (envd), the established 4096->40000 and 54321 (only a
     * connection, never listening) are not listed */
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

/* ---- the archive's two passes ---- */

typedef struct {
    char type;          /* 'f' file, 'd' folder, 'l' link, 'p' FIFO */
    const char *name;
    const char *data;   /* a file's content, a link's target */
} tar_entry;

static la_ssize_t to_fd(struct archive *a, void *ud, const void *buf, size_t n)
{
    (void)a;
    return write(*(int *)ud, buf, n);
}

/* A tar of the entries in an unlinked file: its fd. */
static int make_tar(const tar_entry *e, size_t n)
{
    char path[] = "/tmp/test-box-life-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    struct archive *a = archive_write_new();
    if (!a)
        return -1;
    archive_write_set_format_pax_restricted(a);
    archive_write_open(a, &fd, NULL, to_fd, NULL);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *en = archive_entry_new();
        archive_entry_copy_pathname(en, e[i].name);
        archive_entry_set_perm(en, e[i].type == 'd' ? 0755 : 06755);
        archive_entry_set_filetype(en, e[i].type == 'd'   ? AE_IFDIR
                                       : e[i].type == 'l' ? AE_IFLNK
                                       : e[i].type == 'p' ? AE_IFIFO
                                                          : AE_IFREG);
        if (e[i].type == 'l')
            archive_entry_copy_symlink(en, e[i].data);
        size_t len = e[i].type == 'f' ? strlen(e[i].data) : 0;
        archive_entry_set_size(en, (la_int64_t)len);
        archive_write_header(a, en);
        if (len)
            archive_write_data(a, e[i].data, len);
        archive_entry_free(en);
    }
    archive_write_close(a);
    archive_write_free(a);
    return fd;
}

static char *const DIST[] = {"dist"};

static e2b_error *unpack(const char *dest, const tar_entry *e, size_t n, int force,
                         uint64_t cap, uint64_t *files)
{
    int fd = make_tar(e, n);
    e2b_box_unpack u = {.fd = fd, .dest = dest, .leaves = DIST, .nleaves = 1, .force = force,
                        .cap = cap};
    e2b_error *err = e2b_box_get_unpack(&u, NULL);
    close(fd);
    if (files)
        *files = u.files;
    return err;
}

static int empty_dir(const char *d)
{
    DIR *dir = opendir(d);
    struct dirent *x;
    int n = 0;
    while (dir && (x = readdir(dir)))
        n += strcmp(x->d_name, ".") && strcmp(x->d_name, "..");
    if (dir)
        closedir(dir);
    return n == 0;
}

static char *read_text(const char *path)
{
    static char buf[256];
    int fd = open(path, O_RDONLY);
    ssize_t r = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[r > 0 ? r : 0] = '\0';
    return buf;
}

static void test_unpack_keeps_links_as_links(void)
{
    char tmpl[] = "/tmp/test-box-life-dXXXXXX", p[PATH_MAX], link[PATH_MAX];
    char *dest = mkdtemp(tmpl);
    const tar_entry good[] = {{'d', "./dist", ""},
                              {'f', "./dist/a.txt", "hi"},
                              {'l', "./dist/outside", "/etc/passwd"},
                              {'l', "./dist/up", "../../.."},
                              {'d', "./dist/sub", ""},
                              {'f', "./dist/sub/b.txt", "bee"}};
    uint64_t files = 0;
    e2b_error *err = unpack(dest, good, 6, 0, 1 << 20, &files);
    CHECK(err == NULL);
    e2b_error_free(err);
    CHECK_INT_EQ(files, 6);
    snprintf(p, sizeof p, "%s/dist/a.txt", dest);
    CHECK_STR_EQ(read_text(p), "hi");
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 06000) == 0); /* no set-id bits */
    snprintf(p, sizeof p, "%s/dist/sub/b.txt", dest);
    CHECK_STR_EQ(read_text(p), "bee");
    snprintf(p, sizeof p, "%s/dist/outside", dest);
    ssize_t n = readlink(p, link, sizeof link - 1);
    link[n > 0 ? n : 0] = '\0';
    CHECK_STR_EQ(link, "/etc/passwd"); /* a link, never its target's content */
    CHECK(lstat(p, &st) == 0 && S_ISLNK(st.st_mode));

    /* again: the files exist, so without force nothing is written */
    err = unpack(dest, good, 6, 0, 1 << 20, NULL);
    CHECK(err && err->kind == E2B_ERR_CONFLICT);
    CHECK(err && strstr(e2b_error_message(err), "--force") != NULL);
    e2b_error_free(err);
    err = unpack(dest, good, 6, 1, 1 << 20, &files);
    CHECK(err == NULL);
    e2b_error_free(err);

    /* a local link named like the folder: never written through; force replaces it */
    char otmpl[] = "/tmp/test-box-life-oXXXXXX";
    char *outside = mkdtemp(otmpl);
    char dtmpl[] = "/tmp/test-box-life-lXXXXXX";
    char *dest2 = mkdtemp(dtmpl);
    snprintf(p, sizeof p, "%s/dist", dest2);
    CHECK(symlink(outside, p) == 0);
    const tar_entry one[] = {{'f', "dist/x.txt", "x"}};
    err = unpack(dest2, one, 1, 0, 1 << 20, NULL);
    CHECK(err != NULL);
    CHECK(err && strstr(e2b_error_message(err), "symlink") != NULL);
    e2b_error_free(err);
    CHECK(empty_dir(outside));
    err = unpack(dest2, one, 1, 1, 1 << 20, NULL);
    CHECK(err == NULL);
    e2b_error_free(err);
    CHECK(empty_dir(outside));
    CHECK(lstat(p, &st) == 0 && S_ISDIR(st.st_mode));
    char cmd[PATH_MAX * 3 + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", dest, dest2, outside);
    CHECK(system(cmd) == 0);
}

static void refused(const tar_entry *e, size_t n, uint64_t cap, const char *why)
{
    char tmpl[] = "/tmp/test-box-life-hXXXXXX";
    char *dest = mkdtemp(tmpl);
    e2b_error *err = unpack(dest, e, n, 1, cap, NULL);
    CHECK(err != NULL);
    if (err && !strstr(e2b_error_message(err), why))
        fprintf(stderr, "  got: %s\n", e2b_error_message(err));
    CHECK(err && strstr(e2b_error_message(err), why) != NULL);
    e2b_error_free(err);
    CHECK(empty_dir(dest)); /* nothing was written */
    rmdir(dest);
}

static void test_unpack_refuses_hostile_archives(void)
{
    const tar_entry dotdot[] = {{'f', "dist/a", "a"}, {'f', "dist/../../evil", "x"}};
    refused(dotdot, 2, 1 << 20, "not a name under");
    const tar_entry abs[] = {{'f', "/etc/evil", "x"}};
    refused(abs, 1, 1 << 20, "not a name under");
    const tar_entry other[] = {{'f', "dist/a", "a"}, {'f', "elsewhere/b", "b"}};
    refused(other, 2, 1 << 20, "not a name under");
    const tar_entry through[] = {{'l', "dist/l", "/tmp"}, {'f', "dist/l/x", "x"}};
    refused(through, 2, 1 << 20, "under a symbolic link");
    const tar_entry fifo[] = {{'p', "dist/fifo", ""}};
    refused(fifo, 1, 1 << 20, "FIFO");
    const tar_entry big[] = {{'f', "dist/a", "0123456789"}, {'f', "dist/b", "0123456789"}};
    refused(big, 2, 15, "limit.get_bytes");
}

/* When an idle box pauses: the latest of the turn's end, the last activity and when the
 * spell was first seen, plus idle_minutes; never while working, waiting or retrying. */
static void test_idle_due(void)
{
    e2b_agent_status st = {.state = E2B_AGENT_IDLE, .idle_since_ms = 1000,
                           .last_activity_ms = 500};
    CHECK_INT_EQ(e2b_live_idle_due(&st, 0, 60000), 61000);
    CHECK_INT_EQ(e2b_live_idle_due(&st, 5000, 60000), 65000); /* seen later: counts from then */
    st.last_activity_ms = 9000;
    CHECK_INT_EQ(e2b_live_idle_due(&st, 5000, 60000), 69000); /* activity restarts it */
    CHECK_INT_EQ(e2b_live_idle_due(&st, 5000, 0), 0);         /* idle_minutes = 0: never */
    e2b_agent_request req = {0};
    st.requests = &req;
    st.nrequests = 1;
    CHECK_INT_EQ(e2b_live_idle_due(&st, 5000, 60000), 0); /* something pending */
    st.nrequests = 0;
    st.requests = NULL;
    e2b_agent_state busy[] = {E2B_AGENT_WORKING, E2B_AGENT_WAITING, E2B_AGENT_RETRYING,
                              E2B_AGENT_SERVER_DOWN, E2B_AGENT_PAUSED, E2B_AGENT_UNKNOWN};
    for (size_t i = 0; i < sizeof busy / sizeof busy[0]; i++) {
        st.state = busy[i];
        CHECK_INT_EQ(e2b_live_idle_due(&st, 5000, 60000), 0);
    }
    CHECK_INT_EQ(e2b_live_idle_due(NULL, 5000, 60000), 0);
    e2b_agent_status never = {.state = E2B_AGENT_IDLE};
    CHECK_INT_EQ(e2b_live_idle_due(&never, 0, 60000), 0); /* no time known */
}

int main(void)
{
    RUN(test_idle_due);
    RUN(test_unpack_keeps_links_as_links);
    RUN(test_unpack_refuses_hostile_archives);
    RUN(test_ports_parse);
    RUN(test_ports_capped);
    RUN(test_get_where);
    return harness_finish();
}
