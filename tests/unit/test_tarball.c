/* tarball: the stream is extracted with the real tar and compared with the source. */
#include "core/git/gitwork.h"
#include "core/git/tarball.h"
#include "tests/lib/gitfix.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static char *path_in(const char *rel)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", gitfix_tmpdir(), rel) < 0)
        return NULL;
    return p;
}

/* Reads the whole stream with reads of `step` bytes into path (NULL: discard).
 * Returns the last e2b_tarball_read result (0 = clean end, -1 = error). */
static ssize_t drain(e2b_tarball *t, const char *path, size_t step, size_t *total)
{
    FILE *f = path ? fopen(path, "wb") : NULL;
    char *buf = malloc(step);
    ssize_t r = -1;
    *total = 0;
    while (buf && (r = e2b_tarball_read(t, buf, step)) > 0) {
        *total += (size_t)r;
        if (f && fwrite(buf, 1, (size_t)r, f) != (size_t)r) {
            r = -1;
            break;
        }
    }
    free(buf);
    if (f)
        fclose(f);
    return r;
}

static int write_list(const char *file, const e2b_gitwork_filelist *l)
{
    FILE *f = fopen(file, "wb");
    if (!f)
        return -1;
    for (size_t i = 0; i < l->count; i++)
        fwrite(l->paths[i], 1, strlen(l->paths[i]) + 1, f);
    return fclose(f);
}

static void test_round_trip_with_real_tar(void)
{
    CHECK(gitfix_sh(
              "git init -q -b main src && cd src && printf 'build/\\n*.log\\n' > .gitignore && "
              "echo keep > kept.txt && printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod 755 run.sh && "
              "chmod 600 kept.txt && ln -s kept.txt link && ln -s ../outside dangling && "
              "printf 'caf\\303\\251' > 'caf\xc3\xa9 \xe6\x97\xa5.txt' && printf x > 'raw\xff.bin' && "
              "head -c 300000 /dev/urandom > binary.dat && "
              "d=a/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc && "
              "mkdir -p \"$d\" && echo deep > \"$d/long-name-past-the-ustar-limit.txt\" && "
              "git add -A && git commit -qm base && git pack-refs --all && "
              "echo more >> kept.txt && mkdir -p new/dir && echo n > new/dir/n.txt && "
              "mkdir -p build && echo o > build/x.o && echo l > debug.log") == 0);
    char *dir = path_in("src");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    e2b_gitwork_filelist l;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0)), 0);
    int rc = gitfix_sub(&err, e2b_gitwork_list_files(g, &l));
    e2b_gitwork_close(g);
    CHECK_INT_EQ(rc, 0);
    char *listfile = path_in("list0");
    CHECK(write_list(listfile, &l) == 0);
    free(listfile);

    e2b_tarball *t = NULL;
    rc = gitfix_sub(&err, e2b_tarball_new(&t, dir, (const char *const *)l.paths, l.count, 0));
    free(dir);
    e2b_gitwork_filelist_free(&l);
    CHECK_INT_EQ(rc, 0);
    e2b_tarball_progress p0;
    e2b_tarball_get_progress(t, &p0);
    char *out = path_in("src.tgz");
    size_t total;
    /* An odd read size exercises partial copies out of the internal buffer. */
    ssize_t r = drain(t, out, 777, &total);
    ssize_t again = e2b_tarball_read(t, (char[8]){0}, 8);
    e2b_tarball_progress p;
    e2b_tarball_get_progress(t, &p);
    e2b_tarball_free(t);
    free(out);
    CHECK_INT_EQ(r, 0);
    CHECK_INT_EQ(again, 0);
    CHECK_INT_EQ(p.out_bytes, total);
    CHECK(p0.bytes_total > 300000);
    CHECK_INT_EQ(p.bytes_done, p0.bytes_total);
    CHECK_INT_EQ(p.files_done, p.files_total);
    CHECK_INT_EQ(p.skipped, 0);
    /* What the sources hold: the sum of the sizes of every regular file. */
    char *sum = gitfix_out("cd src && { tr '\\0' '\\n' < ../list0 | grep -av '^.git$'; "
                           "find .git -type f; } | while IFS= read -r f; do "
                           "[ -L \"$f\" ] || stat -c %%s \"$f\"; done | awk '{s+=$1} END {print s}'");
    char want_total[32];
    snprintf(want_total, sizeof want_total, "%llu", (unsigned long long)p.bytes_total);
    CHECK_STR_EQ(want_total, sum);
    free(sum);

    CHECK(gitfix_sh("mkdir dest && LC_ALL=C tar -xzf src.tgz -C dest --no-same-owner") == 0);
    /* Every listed path: same bytes, same kind, modes normalised to 0755/0644. */
    CHECK(gitfix_sh(
              "cd dest && bad=0; while IFS= read -r -d '' f; do "
              "  [ \"$f\" = .git ] && continue; "
              "  if [ -L \"../src/$f\" ]; then "
              "    [ -L \"$f\" ] && [ \"$(readlink \"$f\")\" = \"$(readlink \"../src/$f\")\" ] || "
              "      { echo \"symlink differs: $f\"; bad=1; }; "
              "  else cmp -s \"$f\" \"../src/$f\" || { echo \"content differs: $f\"; bad=1; }; "
              "    if [ -x \"../src/$f\" ]; then m=755; else m=644; fi; "
              "    [ \"$(stat -c %%a \"$f\")\" = $m ] || { echo \"mode differs: $f\"; bad=1; }; fi; "
              "done < ../list0; exit $bad") == 0);
    /* Exactly the listed files (plus .git): nothing ignored, nothing extra. */
    CHECK(gitfix_sh("cd dest && find . -path ./.git -prune -o \\( -type f -o -type l \\) -print | "
                    "sed 's|^./||' | LC_ALL=C sort > ../got && tr '\\0' '\\n' < ../list0 | "
                    "grep -av '^.git$' | LC_ALL=C sort > ../want && cmp -s ../got ../want") == 0);
    CHECK(gitfix_sh("test ! -e dest/build/x.o && test ! -e dest/debug.log") == 0);
    /* .git came across whole (empty dirs such as refs/tags too) and is a working repo. */
    CHECK(gitfix_sh("diff -r --no-dereference src/.git dest/.git >/dev/null") == 0);
    CHECK(gitfix_sh("test -d dest/.git/refs/tags && test -d dest/.git/refs/heads") == 0);
    char *st_src = gitfix_out("git -C src status --porcelain -uall");
    char *st_dst = gitfix_out("git -C dest status --porcelain -uall");
    CHECK(st_src && st_dst);
    CHECK_STR_EQ(st_dst, st_src);
    free(st_src);
    free(st_dst);
    /* the stored modes themselves (not only what tar made of them under a umask) */
    char *modes = gitfix_out("tar -tvzf src.tgz run.sh kept.txt | cut -c1-10 | tr '\\n' ' '");
    CHECK_STR_EQ(modes, "-rw-r--r-- -rwxr-xr-x ");
    free(modes);
    e2b_error_free(err);
}

static void test_refuses_unsafe_and_missing_paths(void)
{
    CHECK(gitfix_sh("mkdir -p up && echo a > up/a && mkfifo up/fifo") == 0);
    char *dir = path_in("up");
    e2b_tarball *t = NULL;
    e2b_error *err = NULL;
    const char *abs[] = {"a", "/etc/passwd"};
    const char *dots[] = {"x/../../a"};
    const char *missing[] = {"nope"};
    const char *fifo[] = {"a", "fifo"};
    int r1 = gitfix_sub(&err, e2b_tarball_new(&t, dir, abs, 2, 0));
    CHECK(t == NULL);
    int r2 = gitfix_sub(&err, e2b_tarball_new(&t, dir, dots, 1, 0));
    int r3 = gitfix_sub(&err, e2b_tarball_new(&t, dir, missing, 1, 0));
    e2b_error *e3 = err;
    err = NULL;
    int r4 = gitfix_sub(&err, e2b_tarball_new(&t, dir, fifo, 2, 0));
    free(dir);
    CHECK_INT_EQ(r1, E2B_SUB_BAD_ARG);
    CHECK_INT_EQ(r2, E2B_SUB_BAD_ARG);
    CHECK_INT_EQ(r3, E2B_SUB_FILE_IO);
    CHECK(strstr(e2b_error_message(e3), "nope") != NULL);
    CHECK_INT_EQ(r4, 0);
    e2b_tarball_progress p;
    e2b_tarball_get_progress(t, &p);
    size_t total;
    ssize_t r = drain(t, NULL, 4096, &total);
    e2b_tarball_free(t);
    CHECK_INT_EQ(r, 0);
    CHECK_INT_EQ(p.skipped, 1);
    CHECK_INT_EQ(p.files_total, 1);
    e2b_error_free(err);
    e2b_error_free(e3);
}

/* Reads until some but not all of the big file has been consumed. */
static int read_partway(e2b_tarball *t, uint64_t size)
{
    char buf[16384];
    e2b_tarball_progress p;
    do {
        if (e2b_tarball_read(t, buf, sizeof buf) <= 0)
            return -1;
        e2b_tarball_get_progress(t, &p);
    } while (p.bytes_done == 0);
    return p.bytes_done < size ? 0 : -1;
}

static void test_file_changing_size_fails_cleanly(void)
{
    const uint64_t size = 4u << 20;
    CHECK(gitfix_sh("mkdir -p ch && head -c 4194304 /dev/urandom > ch/big && "
                    "cp ch/big ch/big2") == 0);
    char *dir = path_in("ch");
    const char *one[] = {"big"};
    const char *two[] = {"big2"};
    e2b_tarball *t = NULL;
    e2b_error *err = NULL;
    size_t total;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_tarball_new(&t, dir, one, 1, 1)), 0);
    int part = read_partway(t, size);
    gitfix_sh("truncate -s 100 ch/big");
    ssize_t r = drain(t, NULL, 4096, &total);
    e2b_error *e = e2b_error_copy(e2b_tarball_error(t));
    ssize_t again = e2b_tarball_read(t, (char[8]){0}, 8);
    e2b_tarball_free(t);
    CHECK_INT_EQ(part, 0);
    CHECK_INT_EQ(r, -1);
    CHECK_INT_EQ(again, -1);
    CHECK_INT_EQ(e2b_error_sub_of(e), E2B_SUB_FILE_CHANGED);
    CHECK(strstr(e2b_error_message(e), "big shrank") != NULL);

    t = NULL;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_tarball_new(&t, dir, two, 1, 1)), 0);
    part = read_partway(t, size);
    gitfix_sh("head -c 100000 /dev/urandom >> ch/big2");
    r = drain(t, NULL, 4096, &total);
    e2b_error_free(e);
    e = e2b_error_copy(e2b_tarball_error(t));
    e2b_tarball_free(t);
    free(dir);
    CHECK_INT_EQ(part, 0);
    CHECK_INT_EQ(r, -1);
    CHECK_INT_EQ(e2b_error_sub_of(e), E2B_SUB_FILE_CHANGED);
    CHECK(strstr(e2b_error_message(e), "big2 grew") != NULL);
    e2b_error_free(err);
    e2b_error_free(e);
}

static void test_edit_before_read_uses_new_content(void)
{
    CHECK(gitfix_sh("mkdir -p ed && echo short > ed/f") == 0);
    char *dir = path_in("ed");
    const char *one[] = {"f"};
    e2b_tarball *t = NULL;
    e2b_error *err = NULL;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_tarball_new(&t, dir, one, 1, 0)), 0);
    free(dir);
    CHECK(gitfix_sh("echo 'a longer line than before' > ed/f") == 0);
    char *out = path_in("ed.tgz");
    size_t total;
    ssize_t r = drain(t, out, 100, &total);
    e2b_tarball_progress p;
    e2b_tarball_get_progress(t, &p);
    e2b_tarball_free(t);
    free(out);
    CHECK_INT_EQ(r, 0);
    CHECK_INT_EQ(p.bytes_total, 26);
    CHECK_INT_EQ(p.bytes_done, 26);
    char *got = gitfix_out("tar -xzOf ed.tgz f");
    CHECK_STR_EQ(got, "a longer line than before");
    free(got);
    e2b_error_free(err);
}

static void test_file_replaced_by_symlink_fails(void)
{
    CHECK(gitfix_sh("mkdir -p sy && echo data > sy/f && echo t > sy/target") == 0);
    char *dir = path_in("sy");
    const char *paths[] = {"f"};
    e2b_tarball *t = NULL;
    e2b_error *err = NULL;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_tarball_new(&t, dir, paths, 1, 0)), 0);
    free(dir);
    CHECK(gitfix_sh("rm sy/f && ln -s target sy/f") == 0);
    size_t total;
    ssize_t r = drain(t, NULL, 4096, &total);
    e2b_error *e = e2b_error_copy(e2b_tarball_error(t));
    e2b_tarball_free(t);
    CHECK_INT_EQ(r, -1);
    CHECK_INT_EQ(e2b_error_sub_of(e), E2B_SUB_FILE_CHANGED);
    CHECK(strstr(e2b_error_message(e), "f changed while being archived (now a symlink)") != NULL);
    e2b_error_free(err);
    e2b_error_free(e);
}

static void test_vanished_file_and_empty_dirs(void)
{
    CHECK(gitfix_sh("mkdir -p va && echo keep > va/keep && echo gone > va/gone && "
                    "mkdir -p va/sub/mod && echo inside > va/sub/mod/file") == 0);
    char *dir = path_in("va");
    const char *paths[] = {"gone", "keep"};
    e2b_tarball *t = NULL;
    e2b_error *err = NULL;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_tarball_new(&t, dir, paths, 2, 0)), 0);
    free(dir);
    /* a submodule path: an empty directory entry, its contents not walked */
    int a1 = gitfix_sub(&err, e2b_tarball_add_empty_dir(t, "sub/mod"));
    int a2 = gitfix_sub(&err, e2b_tarball_add_empty_dir(t, "../escape"));
    CHECK(gitfix_sh("rm va/gone") == 0);
    char *out = path_in("va.tgz");
    size_t total;
    ssize_t r = drain(t, out, 1000, &total);
    int a3 = gitfix_sub(&err, e2b_tarball_add_empty_dir(t, "late"));
    e2b_tarball_progress p;
    e2b_tarball_get_progress(t, &p);
    e2b_tarball_free(t);
    free(out);
    CHECK_INT_EQ(a1, 0);
    CHECK_INT_EQ(a2, E2B_SUB_BAD_ARG);
    CHECK_INT_EQ(a3, E2B_SUB_BAD_ARG);
    CHECK_INT_EQ(r, 0);
    CHECK_INT_EQ(p.vanished, 1);
    CHECK_INT_EQ(p.files_done, p.files_total);
    CHECK_INT_EQ(p.bytes_done, p.bytes_total);
    CHECK_INT_EQ(p.bytes_total, 5);
    char *names = gitfix_out("tar -tzf va.tgz | tr '\n' ' '");
    CHECK_STR_EQ(names, "keep sub/mod/ ");
    free(names);
    e2b_error_free(err);
}

static long max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void test_bounded_memory_for_large_project(void)
{
    /* 96 MiB of incompressible data in 200 files: an archive in memory would show. Under
     * valgrind (whose own memory hides RSS anyway) the same 200 files hold 12 MiB: the
     * same walk and refills, the bound on RSS is the ASan pass's. */
    const int small = harness_valgrind();
    const uint64_t size = small ? 12582912 : 100663296;
    CHECK(gitfix_sh("mkdir -p large && cd large && head -c %llu /dev/urandom | "
                    "split -b %llu -a 3 - part.",
                    (unsigned long long)size, (unsigned long long)(size / 200 + 1)) == 0);
    char *names = gitfix_out("cd large && ls");
    CHECK(names != NULL);
    const char *paths[256];
    size_t n = 0;
    for (char *s = strtok(names, "\n"); s && n < 256; s = strtok(NULL, "\n"))
        paths[n++] = s;
    CHECK(n == 200);
    char *dir = path_in("large");
    e2b_tarball *t = NULL;
    e2b_error *err = NULL;
    long before = max_rss_kib();
    int rc = gitfix_sub(&err, e2b_tarball_new(&t, dir, paths, n, 1));
    free(dir);
    CHECK_INT_EQ(rc, 0);
    size_t total;
    ssize_t r = drain(t, NULL, 65536, &total);
    e2b_tarball_progress p;
    e2b_tarball_get_progress(t, &p);
    e2b_tarball_free(t);
    long grew = max_rss_kib() - before;
    free(names);
    CHECK_INT_EQ(r, 0);
    CHECK_INT_EQ(p.bytes_done, size);
    CHECK(total > size - size / 200); /* random data does not shrink */
    CHECK_MSG(p.peak_buffer <= 1024 * 1024, "peak buffer %zu bytes", p.peak_buffer);
    if (!small)
        CHECK_MSG(grew < 32 * 1024, "max RSS grew by %ld KiB for a 96 MiB archive", grew);
    e2b_error_free(err);
}

int main(void)
{
    gitfix_tmpdir();
    RUN(test_round_trip_with_real_tar);
    RUN(test_refuses_unsafe_and_missing_paths);
    RUN(test_file_changing_size_fails_cleanly);
    RUN(test_edit_before_read_uses_new_content);
    RUN(test_file_replaced_by_symlink_fails);
    RUN(test_vanished_file_and_empty_dirs);
    RUN(test_bounded_memory_for_large_project);
    gitfix_cleanup();
    return harness_finish();
}
