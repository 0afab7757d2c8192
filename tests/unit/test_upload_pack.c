/* core/git/upload_pack.h: the pack and refs an up sends, read back by git itself; a cancel
 * stops it with nothing left behind; the temporary files are gone once it returns; a pack
 * with unreachable objects goes rewritten (core/git/pack_rewrite.h), or, when it cannot be,
 * through the packbuilder. */
#include "core/git/upload_pack.h"
#include "core/util/log.h"
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
    CHECK(gitfix_sub(&err, e2b_tarball_new(&refs, root, NULL, 0, 1)) == 0);
    CHECK(gitfix_sub(&err, e2b_tarball_new(&pack, root, NULL, 0, E2B_TARBALL_PLAIN)) == 0);
    e2b_upload_pack_info info;
    atomic_int cancel = 0;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_upload_pack_add(repo, NULL, NULL, 0, &cancel, refs, pack, &info)), 0);
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
 * are loose. p2 goes as it is (same name, same bytes), p1 does not go (rewritten, it holds
 * only what p2 lacks: the tag), the loose commit goes as its file, the stray blob
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
    CHECK(gitfix_sub(&err, e2b_tarball_new(&refs, root, NULL, 0, 1)) == 0);
    CHECK(gitfix_sub(&err, e2b_tarball_new(&pack, root, NULL, 0, E2B_TARBALL_PLAIN)) == 0);
    e2b_upload_pack_info info;
    atomic_int cancel = 0;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_upload_pack_add(repo, NULL, NULL, 0, &cancel, refs, pack, &info)), 0);
    CHECK_INT_EQ((int)info.packs_as_is, 1);
    CHECK_INT_EQ((int)info.loose, 3); /* commit two, its tree, k's new blob */
    CHECK_INT_EQ((int)info.packs_rewritten, 1);
    CHECK_INT_EQ((int)info.rewritten, 1); /* the tag: only p1 has it */
    CHECK_INT_EQ((int)info.built, 0);
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

/* A file of 3,000 lines committed seven times with one line changed each time, the last
 * change (AMENDMARK, a secret) taken back by an amend: git's deltas run from the largest
 * version back, so the version the amend left behind (unreachable now) is the base of a
 * reachable one.
 * how packs the history: "gc" (OFS_DELTA) or "ref" (pack-objects without offsets:
 * REF_DELTA, the reflog's objects included as gc would). */
static void make_amended(const char *name, const char *how)
{
    CHECK(gitfix_sh("git init -q -b main %s && cd %s && python3 -c \"\n"
                    "import random\nrandom.seed(1)\n"
                    "open('f','w').write(''.join('line %%d %%s\\\\n' %% (i, 'x' * random.randint(10, 80)) for i in range(3000)))\" && "
                    "git add f && git commit -qm c0 && for i in 1 2 3 4 5; do sed -i \"${i}00s/\\$/ edit$i/\" f; "
                    "git commit -qam c$i; done && sed -i '50s/$/ AMENDMARK/' f && git commit -qam c6 && "
                    "sed -i 's/ AMENDMARK/ six/' f && git commit -qa --amend -m c6b && git tag -a v1 -m t HEAD~2 && "
                    "if [ %s = gc ]; then git gc -q; else "
                    "git rev-list --objects --all --reflog | git pack-objects -q .git/objects/pack/pack >/dev/null && "
                    "git prune-packed; fi",
                    name, name, how) == 0);
}

/* Ups repository name into <name>box (refs, pack, HEAD, index, work tree files). */
static int up_to_box(const char *name, e2b_upload_pack_info *info, e2b_error **err)
{
    git_repository *repo = NULL;
    char root[700];
    snprintf(root, sizeof root, "%s/%s", gitfix_tmpdir(), name);
    if (git_repository_open(&repo, root) != 0)
        return -1;
    e2b_tarball *refs = NULL, *pack = NULL;
    atomic_int cancel = 0;
    int rc = gitfix_sub(err, e2b_tarball_new(&refs, root, NULL, 0, 1));
    if (rc == 0)
        rc = gitfix_sub(err, e2b_tarball_new(&pack, root, NULL, 0, E2B_TARBALL_PLAIN));
    if (rc == 0)
        rc = gitfix_sub(err, e2b_upload_pack_add(repo, NULL, NULL, 0, &cancel, refs, pack, info));
    if (rc == 0) {
        char rn[800], pn[800];
        snprintf(rn, sizeof rn, "%s-refs", name);
        snprintf(pn, sizeof pn, "%s-pack", name);
        if (dump(refs, rn) != 0 || dump(pack, pn) != 0 || gitfix_sh("rm -rf %sbox && mkdir -p %sbox/.git && cp %s/.git/HEAD %s/.git/index %sbox/.git/ && "
                        "printf '[core]\\n\\trepositoryformatversion = 0\\n' >%sbox/.git/config && "
                        "tar -xzf %s-refs.tar -C %sbox && tar -xf %s-pack.tar -C %sbox && cp %s/f %sbox/",
                        name, name, name, name, name, name, name, name, name, name, name, name) != 0)
            rc = -1;
    }
    e2b_tarball_free(refs);
    e2b_tarball_free(pack);
    git_repository_free(repo);
    return rc;
}

/* The objects only the reflog reaches, one a line (git fsck --unreachable --no-reflogs). */
static char *dropped_of(const char *name)
{
    return gitfix_out("git -C %s fsck --unreachable --no-reflogs 2>/dev/null | awk '{print $3}' | sort | tr '\\n' ' '", name);
}

/* The box has the history whole and none of the dropped objects. */
static void check_box(const char *name, const char *dropped)
{
    char *fsck = gitfix_out("git -C %sbox fsck --full --no-dangling 2>&1 && echo fine", name);
    char *log_box = gitfix_out("git -C %sbox log --all --format='%%H %%P %%T'", name);
    char *log_home = gitfix_out("git -C %s log --all --format='%%H %%P %%T'", name);
    char *status = gitfix_out("git -C %sbox status --porcelain", name);
    char *found = gitfix_out("for h in %s; do git -C %sbox cat-file -e $h 2>/dev/null && echo $h; done; true",
                             dropped, name);
    char *mark = gitfix_out("git -C %sbox cat-file --batch-all-objects --batch | grep -c AMENDMARK || true", name);
    CHECK_STR_EQ(fsck, "fine");
    CHECK_STR_EQ(log_box, log_home);
    CHECK_STR_EQ(status, "");
    CHECK_STR_EQ(found, "");
    CHECK_STR_EQ(mark, "0");
    free(fsck); free(log_box); free(log_home); free(status); free(found); free(mark);
}

/* amend + gc: the pack holds the amended-away commit, tree and blob, and that blob is the
 * base of a reachable delta (OFS_DELTA). It goes rewritten: its other entries copied (the
 * deltas among them stay deltas), the delta whose base is gone written whole, nothing
 * through the packbuilder. And the same with REF_DELTAs. */
static void test_impure_pack_rewritten(void)
{
    static const char *const hows[] = {"gc", "ref"};
    for (int k = 0; k < 2; k++) {
        char name[16];
        snprintf(name, sizeof name, "am%s", hows[k]);
        make_amended(name, hows[k]);
        char *dropped = dropped_of(name);
        char *n_dropped = gitfix_out("echo '%s' | wc -w", dropped ? dropped : "");
        CHECK_STR_EQ(n_dropped, "3"); /* the amended commit, its tree, its blob */
        /* sanity: one pack, and a reachable delta in it whose base is a dropped object */
        char *base_dropped = gitfix_out(
            "cd %s && ls .git/objects/pack/*.pack | wc -l && git verify-pack -v .git/objects/pack/*.idx | "
            "awk 'NF == 7 {print $7}' | sort -u | grep -c -x -F \"$(git fsck --unreachable --no-reflogs 2>/dev/null | awk '{print $3}')\"",
            name);
        CHECK_STR_EQ(base_dropped, "1\n1");
        e2b_upload_pack_info info;
        e2b_error *err = NULL;
        CHECK_INT_EQ(up_to_box(name, &info, &err), 0);
        CHECK_MSG(!err, "%s", e2b_error_message(err));
        CHECK_INT_EQ((int)info.packs_as_is, 0);
        CHECK_INT_EQ((int)info.packs_rewritten, 1);
        CHECK_INT_EQ((int)info.built, 0);
        CHECK_INT_EQ((int)info.loose, 0);
        /* 7 commits, 7 trees, 7 blobs, the tag */
        CHECK_INT_EQ((int)info.rewritten, 22);
        CHECK_INT_EQ((int)info.objects, 22);
        check_box(name, dropped ? dropped : "");
        /* the deltas stayed deltas: the six kept blobs but the largest and the one whose base
         * was dropped */
        char *deltas = gitfix_out("git verify-pack -v %sbox/.git/objects/pack/*.idx | awk '$2 == \"blob\" && NF == 7' | wc -l", name);
        CHECK_STR_EQ(deltas, "5");
        CHECK_MSG(dir_empty(tmp_for_pack), "temporary files left in %s", tmp_for_pack);
        free(dropped); free(n_dropped); free(base_dropped); free(deltas);
        e2b_error_free(err);
    }
}

/* A pack that cannot be rewritten is not sent half-made. Its index's checksum of an entry
 * wrong (the pack itself sound): the rewrite refuses, says why in the log, and the objects
 * go through the packbuilder (libgit2 reads them fine): the box's history is whole. An
 * entry's data corrupt: the rewrite refuses, and so does the packbuilder, with an error
 * that says so: the up fails rather than send a broken history. */
static void test_corrupt_pack_falls_back(void)
{
    char logpath[700];
    snprintf(logpath, sizeof logpath, "%s/up.log", gitfix_tmpdir());
    CHECK(e2b_log_open(logpath) == NULL);
    make_amended("crc", "gc");
    char *dropped = dropped_of("crc");
    /* flip one byte of HEAD's entry's CRC in the index (after the header, fanout, ids) */
    CHECK(gitfix_sh("cd crc/.git/objects/pack && i=$(ls *.idx) && n=$(od -An -tu1 -j1028 -N4 $i | "
                    "awk '{print $1*16777216+$2*65536+$3*256+$4}') && "
                    "o=$(git show-index <$i | awk -v h=$(git rev-parse HEAD) '$2 == h {print NR - 1}') && "
                    "chmod u+w $i && "
                    "printf '\\377' | dd of=$i bs=1 seek=$((1032 + 20 * n + 4 * o)) conv=notrunc status=none") == 0);
    e2b_upload_pack_info info;
    e2b_error *err = NULL;
    CHECK_INT_EQ(up_to_box("crc", &info, &err), 0);
    CHECK_INT_EQ((int)info.packs_rewritten, 0);
    CHECK_INT_EQ((int)info.built, 22);
    check_box("crc", dropped ? dropped : "");
    char *logged = gitfix_out("grep -c \"cannot be rewritten: an entry's bytes do not match their "
                              "checksum in the index; its objects are packed here instead\" up.log");
    CHECK_STR_EQ(logged, "1");
    free(logged);
    free(dropped);
    e2b_error_free(err);
    err = NULL;

    make_amended("bad", "gc");
    /* the first blob's data (the whole 3,000-line file): one byte in its middle flipped */
    CHECK(gitfix_sh("cd bad/.git/objects/pack && p=$(ls *.pack) && "
                    "o=$(git verify-pack -v ${p%%.pack}.idx | awk '$2 == \"blob\" && NF == 5 {print $5; exit}') && "
                    "chmod u+w $p && printf '\\125' | dd of=$p bs=1 seek=$((o + 4000)) conv=notrunc status=none") == 0);
    CHECK_INT_EQ(up_to_box("bad", &info, &err), E2B_SUB_FAILED);
    CHECK_MSG(err && strstr(e2b_error_message(err), "history"), "message: %s", e2b_error_message(err));
    CHECK_INT_EQ((int)info.objects, 0);
    CHECK_MSG(dir_empty(tmp_for_pack), "temporary files left in %s", tmp_for_pack);
    logged = gitfix_out("grep -c 'pack-.*cannot be rewritten: ' up.log");
    CHECK_STR_EQ(logged, "2");
    free(logged);
    e2b_error_free(err);
    e2b_log_close();
}

static void test_cancel(void)
{
    git_repository *repo = NULL;
    char path[700];
    snprintf(path, sizeof path, "%s/r", gitfix_tmpdir());
    CHECK(git_repository_open(&repo, path) == 0);
    e2b_tarball *t = NULL;
    e2b_error *err = NULL;
    CHECK(gitfix_sub(&err, e2b_tarball_new(&t, path, NULL, 0, E2B_TARBALL_PLAIN)) == 0);
    e2b_upload_pack_info info;
    atomic_int cancel = 1;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_upload_pack_add(repo, NULL, NULL, 0, &cancel, t, t, &info)), E2B_SUB_CANCELLED);
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
    RUN(test_impure_pack_rewritten);
    RUN(test_corrupt_pack_falls_back);
    gitfix_cleanup();
    git_libgit2_shutdown();
    return harness_finish();
}
