/* core/git/upload_split.h: random-looking files (and, as files, a shallow clone's git
 * objects) go to the plain list, text, small files and the rest of .git to the gzip'd one;
 * reflogs, ORIG_HEAD and hook samples to neither; paths are copied and sorted as given. */
#include "core/git/upload_split.h"
#include "tests/lib/gitfix.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static void put(const char *rel, size_t size, int random_bytes)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    unsigned x = 12345;
    for (size_t i = 0; i < size; i++) {
        x = x * 1103515245u + 12345u;
        fputc(random_bytes ? (int)(x >> 16) & 0xff : "static int x;\n"[i % 14], f);
    }
    fclose(f);
}

static int has(const e2b_upload_list *l, const char *p)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->paths[i], p) == 0)
            return 1;
    return 0;
}

static void test_split(void)
{
    snprintf(root, sizeof root, "/tmp/e2b-upload-split-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    char d[128];
    const char *dirs[] = {".git", ".git/objects", ".git/objects/ab", ".git/refs", ".git/logs",
                          ".git/hooks", "src"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(d, sizeof d, "%s/%s", root, dirs[i]);
        CHECK(mkdir(d, 0755) == 0);
    }
    put(".git/HEAD", 20, 0);
    put(".git/config", 20, 0);      /* sent rewritten, by the caller */
    put(".git/credentials", 20, 0); /* never sent */
    put(".git/FETCH_HEAD", 20, 0);
    put(".git/objects/ab/cdef", 100, 1);
    put(".git/packed-refs", 20, 0);
    put(".git/ORIG_HEAD", 20, 0);
    put(".git/logs/HEAD", 20, 0);
    put(".git/hooks/pre-commit", 20, 0);
    put(".git/hooks/pre-commit.sample", 20, 0);
    put("src/big.c", 100000, 0);      /* text: gzip shrinks it */
    put("src/big.bin", 100000, 1);    /* random: plain */
    put("src/small.bin", 1000, 1);    /* too small to bother */
    const char *paths[] = {"src/big.bin", "src/big.c", "src/small.bin", ".git"};
    e2b_upload_list gz, plain;
    e2b_error *err = NULL;
    /* the history goes as a pack (the caller's): none of objects/, refs/, packed-refs */
    CHECK_INT_EQ(gitfix_sub(&err, e2b_upload_split(root, paths, 4, 0, &gz, &plain)), 0);
    CHECK(has(&plain, "src/big.bin"));
    CHECK_INT_EQ((int)plain.count, 1);
    CHECK(has(&gz, "src/big.c"));
    CHECK(has(&gz, "src/small.bin"));
    CHECK(has(&gz, ".git/HEAD"));
    CHECK(has(&gz, ".git/hooks/pre-commit"));
    CHECK(!has(&gz, ".git/hooks") && !has(&gz, ".git/hooks/pre-commit.sample"));
    CHECK(!has(&gz, ".git"));
    CHECK(!has(&gz, ".git/config") && !has(&gz, ".git/credentials") && !has(&gz, ".git/FETCH_HEAD"));
    CHECK(!has(&gz, ".git/refs") && !has(&gz, ".git/packed-refs") && !has(&plain, ".git/objects"));
    CHECK(!has(&gz, ".git/logs") && !has(&gz, ".git/ORIG_HEAD"));
    CHECK_INT_EQ((int)gz.count, 4);
    e2b_upload_list_free(&gz);
    e2b_upload_list_free(&plain);
    CHECK_INT_EQ((int)gz.count, 0);
    /* a shallow clone's history as files: objects/ plain, the refs gzip'd, never logs/ */
    CHECK_INT_EQ(gitfix_sub(&err, e2b_upload_split(root, paths, 4, E2B_UPLOAD_SPLIT_HISTORY_FILES, &gz, &plain)), 0);
    CHECK(has(&plain, ".git/objects"));
    CHECK_INT_EQ((int)plain.count, 2);
    CHECK(has(&gz, ".git/refs") && has(&gz, ".git/packed-refs"));
    CHECK(!has(&gz, ".git/logs") && !has(&gz, ".git/ORIG_HEAD"));
    CHECK_INT_EQ((int)gz.count, 6);
    e2b_upload_list_free(&gz);
    e2b_upload_list_free(&plain);

    const char *missing[] = {".git"};
    snprintf(d, sizeof d, "rm -rf '%s'", root);
    CHECK(system(d) == 0);
    CHECK_INT_EQ(gitfix_sub(&err, e2b_upload_split(root, missing, 1, 0, &gz, &plain)), E2B_SUB_FILE_IO);
    CHECK(strstr(e2b_error_message(err), ".git") != NULL);
    e2b_upload_list_free(&gz);
    e2b_upload_list_free(&plain);
    e2b_error_free(err);
}

int main(void)
{
    RUN(test_split);
    return harness_finish();
}
