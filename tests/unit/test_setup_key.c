/* The key of a project's prepared snapshot (core/git/setup_key.h) against real repositories
 * built with the git command line: the lock files of sub-folders that git tracks are in it,
 * untracked ones, too deep ones and links are not. */
#include "core/git/setup_key.h"
#include "tests/lib/gitfix.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *project(void)
{
    char *p = NULL;
    if (asprintf(&p, "%s/mono", gitfix_tmpdir()) < 0)
        return NULL;
    return p;
}

/* The key of the project (its setup is "make setup"), or "" when it cannot be found. */
static void key_of(const char *dir, char out[65], int *locks)
{
    e2b_setup s;
    e2b_error *err = e2b_setup_find(dir, "make setup", "base", &s);
    out[0] = 0;
    if (!err) {
        snprintf(out, 65, "%s", s.key);
        if (locks)
            *locks = s.locks;
    }
    e2b_error_free(err);
    e2b_setup_clear(&s);
}

static void test_sub_folder_locks(void)
{
    CHECK(gitfix_sh("git init -q mono && cd mono && mkdir -p packages/a packages/b/deep && "
                    "echo '{\"a\": 1}' >packages/a/package-lock.json && "
                    "echo 'b 1' >packages/b/yarn.lock && echo 'x==1' >packages/b/requirements-dev.txt && "
                    "echo top >package-lock.json && echo src >packages/a/index.js && "
                    "git add -A && git commit -qm one") == 0);
    char *dir = project();
    CHECK(dir != NULL);
    char k1[65], k2[65];
    int locks = 0;
    key_of(dir, k1, &locks);
    CHECK(strlen(k1) == 64);
    CHECK_INT_EQ(locks, 4); /* the top one and three in sub-folders */

    /* a change of a tracked sub-folder's lock file (not yet committed: up sends it) */
    CHECK(gitfix_sh("echo '{\"a\": 2}' >mono/packages/a/package-lock.json") == 0);
    key_of(dir, k2, NULL);
    CHECK_MSG(strcmp(k1, k2) != 0, "a sub-folder's lock file changed, the key did not");
    CHECK(gitfix_sh("cd mono && git checkout -q packages/a/package-lock.json") == 0);
    key_of(dir, k2, NULL);
    CHECK_STR_EQ(k2, k1);

    /* requirements*.txt of a sub-folder counts too */
    CHECK(gitfix_sh("echo 'x==2' >mono/packages/b/requirements-dev.txt") == 0);
    key_of(dir, k2, NULL);
    CHECK(strcmp(k1, k2) != 0);
    CHECK(gitfix_sh("cd mono && git checkout -q packages/b/requirements-dev.txt") == 0);

    /* an untracked lock file is not in the key, nor a change of a file that is not a lock */
    CHECK(gitfix_sh("mkdir -p mono/scratch && echo junk >mono/scratch/Cargo.lock && "
                    "echo changed >mono/packages/a/index.js") == 0);
    key_of(dir, k2, &locks);
    CHECK_STR_EQ(k2, k1);
    CHECK_INT_EQ(locks, 4);

    /* a folder made a link to elsewhere is not followed */
    CHECK(gitfix_sh("mkdir -p elsewhere && echo 'b 1' >elsewhere/yarn.lock && cd mono && "
                    "mv packages/b packages/b.real && ln -s ../../elsewhere packages/b") == 0);
    key_of(dir, k2, &locks);
    CHECK_INT_EQ(locks, 2);
    CHECK(strcmp(k1, k2) != 0);
    CHECK(gitfix_sh("cd mono && rm packages/b && mv packages/b.real packages/b") == 0);
    key_of(dir, k2, NULL);
    CHECK_STR_EQ(k2, k1);
    free(dir);
}

static void test_depth_is_bounded(void)
{
    CHECK(gitfix_sh("git init -q deep && cd deep && mkdir -p 1/2/3/4/5/6 1/2/3/4/5/6/7 && "
                    "echo a >1/2/3/4/5/6/go.sum && echo b >1/2/3/4/5/6/7/go.sum && "
                    "git add -A && git commit -qm one") == 0);
    char *dir = NULL;
    CHECK(asprintf(&dir, "%s/deep", gitfix_tmpdir()) > 0);
    char k1[65], k2[65];
    int locks = 0;
    key_of(dir, k1, &locks);
    CHECK_INT_EQ(locks, 1); /* six folders deep is taken, seven is not */
    CHECK(gitfix_sh("echo c >deep/1/2/3/4/5/6/7/go.sum") == 0);
    key_of(dir, k2, NULL);
    CHECK_STR_EQ(k2, k1);
    CHECK(gitfix_sh("echo c >deep/1/2/3/4/5/6/go.sum") == 0);
    key_of(dir, k2, NULL);
    CHECK(strcmp(k1, k2) != 0);
    free(dir);
}

/* A project without a sub-folder lock file keeps the key it had before they counted. */
static void test_no_sub_locks_no_change(void)
{
    CHECK(gitfix_sh("git init -q flat && cd flat && echo top >Cargo.lock && git add -A && "
                    "git commit -qm one") == 0);
    char *dir = NULL;
    CHECK(asprintf(&dir, "%s/flat", gitfix_tmpdir()) > 0);
    char k1[65], k2[65];
    key_of(dir, k1, NULL);
    CHECK(gitfix_sh("rm -rf flat/.git") == 0); /* the same files, no index: no sub-folder part */
    key_of(dir, k2, NULL);
    CHECK_STR_EQ(k2, k1);
    free(dir);
}

int main(void)
{
    gitfix_tmpdir();
    RUN(test_sub_folder_locks);
    RUN(test_depth_is_bounded);
    RUN(test_no_sub_locks_no_change);
    gitfix_cleanup();
    return harness_finish();
}
