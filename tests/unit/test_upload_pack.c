/* core/git/upload_pack.h: the pack and refs an up sends, read back by git itself; a cancel
 * stops it with nothing left behind; the temporary files are gone once it returns. */
#include "core/git/upload_pack.h"
#include "tests/lib/gitfix.h"
#include "tests/lib/harness.h"

#include <dirent.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmp_for_pack[600];

static int dir_empty(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *de;
    int n = 0;
    while (d && (de = readdir(d)))
        n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
    if (d)
        closedir(d);
    return d && n == 0;
}

/* Writes t to <scratch>/name.tar; returns 0 when the whole archive was read. */
static int dump(tarball *t, const char *name)
{
    char path[700], buf[65536];
    snprintf(path, sizeof path, "%s/%s.tar", gitfix_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    ssize_t n;
    while (f && (n = tarball_read(t, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, f);
    if (f)
        fclose(f);
    return f && !tarball_error(t) ? 0 : -1;
}

static void make_repo(git_repository **repo)
{
    CHECK(gitfix_sh("git init -q -b main r && cd r && echo one >a && git add a && "
                    "git commit -qm one && git tag -a v1 -m t && echo two >>a && "
                    "git commit -qam two && echo LOST >lost && git add lost && git rm -q --cached lost && "
                    "git update-ref refs/remotes/o/main HEAD~1 && "
                    "git symbolic-ref refs/remotes/o/HEAD refs/remotes/o/main && "
                    "echo staged >b && git add b") == 0);
    char path[700];
    snprintf(path, sizeof path, "%s/r", gitfix_tmpdir());
    CHECK(git_repository_open(repo, path) == 0);
}

static void test_pack_read_back_by_git(void)
{
    git_repository *repo = NULL;
    make_repo(&repo);
    if (!repo)
        return;
    tarball *refs = NULL, *pack = NULL;
    e2b_error *err = NULL;
    char root[700];
    snprintf(root, sizeof root, "%s/r", gitfix_tmpdir());
    CHECK(tarball_new(&refs, root, NULL, 0, 1, &err) == 0);
    CHECK(tarball_new(&pack, root, NULL, 0, TARBALL_PLAIN, &err) == 0);
    upload_pack_info info;
    atomic_int cancel = 0;
    CHECK_INT_EQ(upload_pack_add(repo, NULL, NULL, 0, &cancel, refs, pack, &info, &err), 0);
    CHECK_MSG(dir_empty(tmp_for_pack), "temporary files left in %s", tmp_for_pack);
    /* two commits, their trees and the index's (a, b), three blobs, the tag: not the
     * unstaged blob */
    CHECK_INT_EQ((int)info.objects, 9);
    CHECK_INT_EQ((int)info.refs, 4); /* main, v1, o/main, o/HEAD */
    CHECK(dump(refs, "refs") == 0 && dump(pack, "pack") == 0);
    tarball_free(refs);
    tarball_free(pack);
    CHECK(gitfix_sh("mkdir -p box/.git && cp r/.git/HEAD r/.git/index box/.git/ && "
                    "printf '[core]\\n\\trepositoryformatversion = 0\\n' >box/.git/config && "
                    "tar -xzf refs.tar -C box && tar -xf pack.tar -C box && cp r/a r/b box/") == 0);
    char *log_box = gitfix_out("git -C box log --all --format=%%H");
    char *log_home = gitfix_out("git -C r log --all --format=%%H");
    char *peeled = gitfix_out("git -C box rev-parse v1^{commit}");
    char *want_peeled = gitfix_out("git -C r rev-parse v1^{commit}");
    char *sym = gitfix_out("git -C box symbolic-ref refs/remotes/o/HEAD");
    char *lost = gitfix_out("git -C box cat-file --batch-all-objects --batch | grep -c LOST || true");
    char *status = gitfix_out("git -C box status --porcelain");
    char *fsck = gitfix_out("git -C box fsck --no-dangling 2>&1 && echo fine");
    CHECK_STR_EQ(log_box, log_home);
    CHECK_STR_EQ(peeled, want_peeled);
    CHECK_STR_EQ(sym, "refs/remotes/o/main");
    CHECK_STR_EQ(lost, "0");
    CHECK_STR_EQ(status, "A  b");
    CHECK_STR_EQ(fsck, "fine");
    free(log_box); free(log_home); free(peeled); free(want_peeled); free(sym); free(lost);
    free(status); free(fsck);
    e2b_error_free(err);
    git_repository_free(repo);
}

static void test_cancel(void)
{
    git_repository *repo = NULL;
    char path[700];
    snprintf(path, sizeof path, "%s/r", gitfix_tmpdir());
    CHECK(git_repository_open(&repo, path) == 0);
    tarball *t = NULL;
    e2b_error *err = NULL;
    CHECK(tarball_new(&t, path, NULL, 0, TARBALL_PLAIN, &err) == 0);
    upload_pack_info info;
    atomic_int cancel = 1;
    CHECK_INT_EQ(upload_pack_add(repo, NULL, NULL, 0, &cancel, t, t, &info, &err), E2B_SUB_CANCELLED);
    CHECK_INT_EQ((int)info.objects, 0);
    CHECK(dir_empty(tmp_for_pack));
    e2b_error_free(err);
    tarball_free(t);
    git_repository_free(repo);
}

int main(void)
{
    git_libgit2_init();
    /* the pack's temporary directory goes under a TMPDIR of the test's own, to be watched */
    snprintf(tmp_for_pack, sizeof tmp_for_pack, "%s/tmp", gitfix_tmpdir());
    gitfix_sh("mkdir -p tmp");
    setenv("TMPDIR", tmp_for_pack, 1);
    RUN(test_pack_read_back_by_git);
    RUN(test_cancel);
    gitfix_cleanup();
    git_libgit2_shutdown();
    return harness_finish();
}
