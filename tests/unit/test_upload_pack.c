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
static int dump(e2b_tarball *t, const char *name)
{
    char path[700], buf[65536];
    snprintf(path, sizeof path, "%s/%s.tar", gitfix_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    ssize_t n;
    while (f && (n = e2b_tarball_read(t, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, f);
    if (f)
        fclose(f);
    return f && !e2b_tarball_error(t) ? 0 : -1;
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
    e2b_tarball *refs = NULL, *pack = NULL;
    e2b_error *err = NULL;
    char root[700];
    snprintf(root, sizeof root, "%s/r", gitfix_tmpdir());
    CHECK(e2b_tarball_new(&refs, root, NULL, 0, 1, &err) == 0);
    CHECK(e2b_tarball_new(&pack, root, NULL, 0, E2B_TARBALL_PLAIN, &err) == 0);
    e2b_upload_pack_info info;
    atomic_int cancel = 0;
    CHECK_INT_EQ(e2b_upload_pack_add(repo, NULL, NULL, 0, &cancel, refs, pack, &info, &err), 0);
    CHECK_MSG(dir_empty(tmp_for_pack), "temporary files left in %s", tmp_for_pack);
    /* two commits, their trees and the index's (a, b), three blobs, the tag: not the
     * unstaged blob */
    CHECK_INT_EQ((int)info.objects, 9);
    CHECK_INT_EQ((int)info.refs, 4); /* main, v1, o/main, o/HEAD */
    CHECK(dump(refs, "refs") == 0 && dump(pack, "pack") == 0);
    e2b_tarball_free(refs);
    e2b_tarball_free(pack);
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

/* A history in packs and loose files: p1 (git gc) holds an amended commit's secret blob,
 * unreachable now, and the rest; p2 holds only what v1 reaches; one commit and a stray blob
 * are loose. p2 goes as it is (same name, same bytes), p1 does not go (its reachable
 * objects are built into a new pack), the loose commit goes as its file, the stray blob
 * not at all, and the box's git finds the history whole. */
static void test_packs_as_they_are(void)
{
    CHECK(gitfix_sh("git init -q -b main p && cd p && echo keep >k && echo GONEMARK >s && "
                    "git add k s && git commit -qm one && git rm -q --cached s && rm s && "
                    "git commit -q --amend -m one-clean && git tag -a v1 -m t && git gc -q && "
                    "ls .git/objects/pack/*.pack >../p1name && echo more >>k && git commit -qam two && "
                    "git rev-list --objects v1^{commit} | git pack-objects -q .git/objects/pack/pack >../p2name && "
                    "echo STRAYMARK | git hash-object -w --stdin >/dev/null") == 0);
    /* sanity: GONEMARK's blob is unreachable but for the reflog, and in p1 */
    char *unreach = gitfix_out("cd p && git fsck --unreachable --no-reflogs 2>/dev/null | "
                               "grep -c $(echo GONEMARK | git hash-object --stdin) && "
                               "git verify-pack -v $(sed 's/pack$/idx/' ../p1name) | grep -c $(echo GONEMARK | git hash-object --stdin)");
    CHECK_STR_EQ(unreach, "1\n1");
    free(unreach);
    git_repository *repo = NULL;
    char root[700];
    snprintf(root, sizeof root, "%s/p", gitfix_tmpdir());
    CHECK(git_repository_open(&repo, root) == 0);
    if (!repo)
        return;
    e2b_tarball *refs = NULL, *pack = NULL;
    e2b_error *err = NULL;
    CHECK(e2b_tarball_new(&refs, root, NULL, 0, 1, &err) == 0);
    CHECK(e2b_tarball_new(&pack, root, NULL, 0, E2B_TARBALL_PLAIN, &err) == 0);
    e2b_upload_pack_info info;
    atomic_int cancel = 0;
    CHECK_INT_EQ(e2b_upload_pack_add(repo, NULL, NULL, 0, &cancel, refs, pack, &info, &err), 0);
    CHECK_INT_EQ((int)info.packs_as_is, 1);
    CHECK_INT_EQ((int)info.loose, 3); /* commit two, its tree, k's new blob */
    CHECK_INT_EQ((int)info.built, 1); /* the tag: only p1 has it */
    CHECK_INT_EQ((int)info.objects, 7);
    CHECK(dump(refs, "prefs") == 0 && dump(pack, "ppack") == 0);
    e2b_tarball_free(refs);
    e2b_tarball_free(pack);
    CHECK(gitfix_sh("mkdir -p pbox/.git && cp p/.git/HEAD p/.git/index pbox/.git/ && "
                    "printf '[core]\\n\\trepositoryformatversion = 0\\n' >pbox/.git/config && "
                    "tar -xzf prefs.tar -C pbox && tar -xf ppack.tar -C pbox && cp p/k pbox/") == 0);
    char *same = gitfix_out("f=pack-$(cat p2name).pack; cmp p/.git/objects/pack/$f pbox/.git/objects/pack/$f && "
                            "cmp p/.git/objects/pack/${f%%.pack}.idx pbox/.git/objects/pack/${f%%.pack}.idx && echo same");
    char *p1_gone = gitfix_out("test ! -e pbox/.git/objects/pack/$(basename $(cat p1name)) && echo gone");
    char *loose = gitfix_out("h=$(git -C p rev-parse HEAD); test -f pbox/.git/objects/${h%%${h#??}}/${h#??} && echo loose");
    char *stray = gitfix_out("h=$(echo STRAYMARK | git hash-object --stdin); "
                             "test -e pbox/.git/objects/${h%%${h#??}}/${h#??} || echo absent");
    char *marks = gitfix_out("git -C pbox cat-file --batch-all-objects --batch | grep -c -e GONEMARK -e STRAYMARK || true");
    char *log_box = gitfix_out("git -C pbox log --all --format=%%H");
    char *log_home = gitfix_out("git -C p log --all --format=%%H");
    char *fsck = gitfix_out("git -C pbox fsck --no-dangling 2>&1 && echo fine");
    CHECK_STR_EQ(same, "same");
    CHECK_STR_EQ(p1_gone, "gone");
    CHECK_STR_EQ(loose, "loose");
    CHECK_STR_EQ(stray, "absent");
    CHECK_STR_EQ(marks, "0");
    CHECK_STR_EQ(log_box, log_home);
    CHECK_STR_EQ(fsck, "fine");
    free(same); free(p1_gone); free(loose); free(stray); free(marks);
    free(log_box); free(log_home); free(fsck);
    e2b_error_free(err);
    git_repository_free(repo);
}

static void test_cancel(void)
{
    git_repository *repo = NULL;
    char path[700];
    snprintf(path, sizeof path, "%s/r", gitfix_tmpdir());
    CHECK(git_repository_open(&repo, path) == 0);
    e2b_tarball *t = NULL;
    e2b_error *err = NULL;
    CHECK(e2b_tarball_new(&t, path, NULL, 0, E2B_TARBALL_PLAIN, &err) == 0);
    e2b_upload_pack_info info;
    atomic_int cancel = 1;
    CHECK_INT_EQ(e2b_upload_pack_add(repo, NULL, NULL, 0, &cancel, t, t, &info, &err), E2B_SUB_CANCELLED);
    CHECK_INT_EQ((int)info.objects, 0);
    CHECK(dir_empty(tmp_for_pack));
    e2b_error_free(err);
    e2b_tarball_free(t);
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
    RUN(test_packs_as_they_are);
    gitfix_cleanup();
    git_libgit2_shutdown();
    return harness_finish();
}
