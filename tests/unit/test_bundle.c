/* bundle: the pure header parser, and imports of bundles made by the real git. */
#include "core/git/bundle.h"
#include "core/git/gitwork.h"
#include "tests/lib/gitfix.h"
#include "tests/lib/harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#define OID_A "0123456789abcdef0123456789abcdef01234567"
#define OID_B "89abcdef0123456789abcdef0123456789abcdef"

static int parse_str(const char *s, e2b_bundle_header *h, e2b_error **err)
{
    return e2b_bundle_header_parse((const uint8_t *)s, strlen(s), h, err);
}

static void test_header_valid_v2_and_v3(void)
{
    e2b_bundle_header h;
    e2b_error *err = NULL;
    const char *v2 = "# v2 git bundle\n" OID_A " refs/heads/main\n" OID_B " HEAD\n\nPACKxyz";
    CHECK_INT_EQ(parse_str(v2, &h, &err), 1);
    CHECK_INT_EQ(h.version, 2);
    CHECK_INT_EQ(h.nrefs, 2);
    CHECK_INT_EQ(h.nprereqs, 0);
    CHECK_STR_EQ(h.refs[0].name, "refs/heads/main");
    CHECK_STR_EQ(h.refs[0].oid, OID_A);
    CHECK_STR_EQ(h.refs[1].name, "HEAD");
    CHECK_INT_EQ(h.header_len, strlen(v2) - strlen("PACKxyz"));
    e2b_bundle_header_free(&h);

    const char *v3 = "# v3 git bundle\n@object-format=sha1\n-" OID_B " subject: with spaces\n"
                     "-" OID_A "\n" OID_A " refs/e2b-tui/scratch\n\n";
    CHECK_INT_EQ(parse_str(v3, &h, &err), 1);
    CHECK_INT_EQ(h.version, 3);
    CHECK_INT_EQ(h.nprereqs, 2);
    CHECK_STR_EQ(h.prereqs[0], OID_B);
    CHECK_STR_EQ(h.prereqs[1], OID_A);
    CHECK_INT_EQ(h.nrefs, 1);
    CHECK_STR_EQ(h.refs[0].name, "refs/e2b-tui/scratch");
    CHECK_INT_EQ(h.header_len, strlen(v3));
    e2b_bundle_header_free(&h);
    e2b_error_free(err);
}

static void test_header_every_prefix_needs_more(void)
{
    const char *v3 = "# v3 git bundle\n@object-format=sha1\n-" OID_B " c\n" OID_A " HEAD\n\n";
    size_t n = strlen(v3);
    for (size_t i = 0; i < n; i++) {
        e2b_bundle_header h;
        e2b_error *err = NULL;
        int r = e2b_bundle_header_parse((const uint8_t *)v3, i, &h, &err);
        CHECK_MSG(r == 0, "prefix of %zu bytes gave %d (%s)", i, r, e2b_error_message(err));
        e2b_error_free(err);
    }
}

static void expect_bad(const char *s, size_t len, const char *why, int *ok)
{
    e2b_bundle_header h;
    e2b_error *err = NULL;
    int r = e2b_bundle_header_parse((const uint8_t *)s, len, &h, &err);
    if (r != -1 || e2b_error_sub_of(err) != E2B_SUB_BAD_BUNDLE || !strstr(e2b_error_message(err), why) || h.nrefs || h.refs) {
        fprintf(stderr, "case [%.60s]: r=%d code=%d msg=%s (want ...%s...)\n", s, r, e2b_error_sub_of(err),
                e2b_error_message(err), why);
        *ok = 0;
    }
    e2b_error_free(err);
}

#define BAD(s, why) expect_bad((s), sizeof(s) - 1, (why), &ok)

static void test_header_rejects_malformed(void)
{
    int ok = 1;
    BAD("# v4 git bundle\n" OID_A " HEAD\n\n", "not a git bundle");
    BAD("PK\x03\x04", "not a git bundle");
    BAD("# v2 git bundle\n" OID_A " HEAD\n" "\x00" "\n\n", "NUL");
    BAD("# v2 git bundle\n" OID_A " HEAD\r\n\n", "CR");
    BAD("# v2 git bundle\n0123456789ABCDEF0123456789abcdef01234567 HEAD\n\n", "malformed reference");
    BAD("# v2 git bundle\n0123456789abcdef0123456789abcdef0123456 HEAD\n\n", "malformed reference");
    BAD("# v2 git bundle\n" OID_A "0 HEAD\n\n", "malformed reference");
    BAD("# v2 git bundle\n" OID_A " \n\n", "malformed reference");
    BAD("# v2 git bundle\n" OID_A " refs/heads/a b\n\n", "malformed reference");
    BAD("# v2 git bundle\n" OID_A " refs/heads/\x1b[2J\n\n", "malformed reference");
    BAD("# v2 git bundle\n" OID_A "\n\n", "malformed reference");
    BAD("# v2 git bundle\n-" OID_A "x\n" OID_A " HEAD\n\n", "malformed prerequisite");
    BAD("# v2 git bundle\n-0123\n" OID_A " HEAD\n\n", "malformed prerequisite");
    BAD("# v2 git bundle\n@object-format=sha1\n" OID_A " HEAD\n\n", "capability in a v2");
    BAD("# v3 git bundle\n@object-format=sha256\n" OID_A " HEAD\n\n", "SHA-256");
    BAD("# v3 git bundle\n@filter=blob:none\n" OID_A " HEAD\n\n", "filtered");
    BAD("# v3 git bundle\n@frobnicate\n" OID_A " HEAD\n\n", "unknown capability");
    BAD("# v2 git bundle\n-" OID_A "\n\n", "no references");
    BAD("# v2 git bundle\n\n", "no references");
    CHECK(ok);

    /* A line longer than the cap is refused before its newline arrives. */
    size_t n = 16 + 41 + E2B_BUNDLE_LINE_MAX + 10;
    char *big = malloc(n);
    memcpy(big, "# v2 git bundle\n" OID_A " ", 16 + 41);
    memset(big + 57, 'r', n - 57);
    expect_bad(big, n, "too long", &ok);
    free(big);
    CHECK(ok);

    /* A header that never ends is refused at the cap, not buffered forever. */
    const char line[] = OID_A " refs/heads/some-branch-name\n";
    size_t ll = sizeof line - 1, total = 16 + ll * (E2B_BUNDLE_HEADER_MAX / ll + 2);
    char *huge = malloc(total);
    memcpy(huge, "# v2 git bundle\n", 16);
    for (size_t p = 16; p + ll <= total; p += ll)
        memcpy(huge + p, line, ll);
    expect_bad(huge, total, "larger than", &ok);
    e2b_bundle_header h;
    e2b_error *err = NULL;
    /* ...while the same bytes below the cap are only an incomplete header */
    int r = e2b_bundle_header_parse((const uint8_t *)huge, 16 + ll * 1000, &h, &err);
    free(huge);
    CHECK(ok);
    CHECK_INT_EQ(r, 0);
    e2b_error_free(err);
}

/* Random mutations of a valid header (a fixed seed, so failures reproduce): the parser
 * must never crash or read out of bounds (ASan/valgrind watch), and whatever it accepts
 * must be self-consistent. A cheap stand-in until a libFuzzer harness exists. */
static void test_header_survives_mutations(void)
{
    const char seed[] = "# v3 git bundle\n@object-format=sha1\n-" OID_B " c\n" OID_A
                        " refs/heads/main\n" OID_B " HEAD\n\nPACK";
    size_t n = sizeof seed - 1;
    unsigned char buf[sizeof seed + 8];
    unsigned state = 12345;
    int accepted = 0, rejected = 0;
    for (int iter = 0; iter < 20000; iter++) {
        memcpy(buf, seed, n);
        size_t len = n;
        int muts = 1 + (int)((state = state * 1103515245u + 12345u) >> 16) % 4;
        for (int m = 0; m < muts && len > 0; m++) {
            state = state * 1103515245u + 12345u;
            size_t at = (state >> 8) % len;
            switch ((state >> 4) % 4) {
            case 0: buf[at] = (unsigned char)(state >> 20); break;   /* random byte */
            case 1: buf[at] = '\n'; break;                          /* split a line */
            case 2: len = at; break;                                /* truncate */
            default: buf[at] ^= 0x20; break;                         /* flip case */
            }
        }
        e2b_bundle_header h;
        e2b_error *err = NULL;
        /* copy into an exact-size heap block so any over-read is caught */
        unsigned char *exact = malloc(len ? len : 1);
        memcpy(exact, buf, len);
        int r = e2b_bundle_header_parse(exact, len, &h, &err);
        free(exact);
        CHECK(r == -1 || r == 0 || r == 1);
        if (r == 1) {
            accepted++;
            CHECK(h.header_len <= len && h.nrefs > 0);
            for (size_t i = 0; i < h.nrefs; i++)
                CHECK(strlen(h.refs[i].oid) == 40 && h.refs[i].name[0]);
            e2b_bundle_header_free(&h);
        } else if (r == -1) {
            rejected++;
            CHECK(e2b_error_sub_of(err) == E2B_SUB_BAD_BUNDLE && e2b_error_message(err)[0]);
        }
        e2b_error_free(err);
    }
    CHECK(accepted > 0 && rejected > 0);
}

/* ---- imports of real bundles ---- */

static char *path_in(const char *rel)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", gitfix_tmpdir(), rel) < 0)
        return NULL;
    return p;
}

typedef struct {
    int calls;
    int cancel_after;
} prog_ud;

static int on_progress(const e2b_bundle_progress *p, void *ud)
{
    prog_ud *u = ud;
    (void)p;
    u->calls++;
    return u->cancel_after && u->calls >= u->cancel_after;
}

/* A copy of an error's subcode, kind and message, kept in a result by value. */
typedef struct {
    int code;
    e2b_error_kind kind; /* 0 for no error */
    char msg[512];
} err_snap;

static void snap(err_snap *s, const e2b_error *e)
{
    s->code = e2b_error_sub_of(e);
    s->kind = e ? e->kind : 0;
    snprintf(s->msg, sizeof s->msg, "%s", e ? e2b_error_message(e) : "");
}

typedef struct {
    int rc;             /* the first error's subcode (-1 for one without), or 0 */
    err_snap err;
    char oid[41];
    e2b_gitwork_branch_outcome outcome;
    e2b_bundle_progress prog;
    int progress_calls;
} import_result;

/* The caps import_file applies (NULL: the defaults). */
static const e2b_limits *import_limits;

/* Imports file (cut to `limit` bytes when non-zero) into repo in chunks of varying size. */
static import_result import_file(const char *repo, const char *file, size_t limit,
                                 const char *want, const char *branch, int cancel_after)
{
    import_result res = {0};
    char *rp = path_in(repo), *fp = path_in(file);
    size_t len = 0;
    unsigned char *data = gitfix_read_file(fp, &len);
    free(fp);
    e2b_gitwork *g = NULL;
    e2b_bundle_import *bi = NULL;
    prog_ud u = {0, cancel_after};
    e2b_error *e = NULL;
    if (!data || (e = e2b_gitwork_open(&g, rp, 0)) ||
        (e = e2b_bundle_import_new(&bi, g, on_progress, &u))) {
        snap(&res.err, e);
        e2b_error_free(e);
        res.rc = E2B_SUB_FAILED;
        goto out;
    }
    if (import_limits)
        e2b_bundle_import_set_limits(bi, import_limits);
    if (limit && limit < len)
        len = limit;
    size_t pos = 0, step = 1;
    const e2b_error *w = NULL;
    while (pos < len && !w) {
        size_t k = step < len - pos ? step : len - pos;
        w = e2b_bundle_import_write(bi, data + pos, k);
        pos += k;
        step = step * 3 + 7; /* 1, 10, 37, ...: splits the header and the pack anywhere */
        if (step > 100000)
            step = 13;
    }
    if (!w)
        w = branch ? e2b_bundle_import_finish_branch(bi, want, branch, 0, &res.outcome, res.oid)
                   : e2b_bundle_import_finish(bi, want, res.oid);
    /* what a call returns is the importer's one error, and it stays */
    if (w != e2b_bundle_import_error(bi) || (w && e2b_bundle_import_write(bi, "x", 1) != w))
        harness_fail(__FILE__, __LINE__, "a call's error is not the importer's sticky one");
    res.rc = !w ? 0 : e2b_error_sub_of(w) != E2B_SUB_NONE ? (int)e2b_error_sub_of(w) : -1;
    snap(&res.err, w);
    res.prog = *e2b_bundle_import_progress(bi);
out:
    res.progress_calls = u.calls;
    e2b_bundle_import_free(bi);
    e2b_gitwork_close(g);
    free(data);
    free(rp);
    return res;
}

/* Everything an import could leave behind: object files (and directories, such as a
 * quarantine) and refs. */
static char *repo_state(const char *repo)
{
    return gitfix_out("cd %s/.git && find objects refs | LC_ALL=C sort; "
                      "cat packed-refs 2>/dev/null; true",
                      repo);
}

static int make_source(void)
{
    /* history with a large file edited in place, so later packs hold deltas against it */
    return gitfix_sh(
        "git init -q -b main src && cd src && seq 1 20000 > big.txt && echo a > a.txt && "
        "git add -A && git commit -qm one && seq 1 20001 > big.txt && git commit -qam two && "
        "git tag base && seq 1 20002 > big.txt && echo b > b.txt && git add -A && "
        "git commit -qm three && printf 'caf\\303\\251\\n' > \"$(printf 'caf\\303\\251')\" && "
        "git add -A && git commit -qm four && cd .. && "
        "git clone -q --no-local src base-clone && git -C base-clone reset -q --hard base && "
        "git -C base-clone tag -d base >/dev/null && git -C base-clone remote remove origin && "
        "git -C base-clone reflog expire --expire=now --all && git -C base-clone gc -q --prune=now");
}

static void test_import_full_bundle(void)
{
    CHECK(make_source() == 0);
    CHECK(gitfix_sh("git -C src bundle create -q ../full.bundle main && git init -q -b main empty") == 0);
    import_result r = import_file("empty", "full.bundle", 0, "refs/heads/main", "e2b/box", 0);
    CHECK_MSG(r.rc == 0, "%s", r.err.msg);
    CHECK_INT_EQ(r.outcome, E2B_GITWORK_BRANCH_CREATED);
    char *want = gitfix_out("git -C src rev-parse main");
    char *got = gitfix_out("git -C empty rev-parse refs/heads/e2b/box");
    CHECK_STR_EQ(r.oid, want);
    CHECK_STR_EQ(got, want);
    free(want);
    free(got);
    CHECK(r.prog.objects_total > 0 && r.prog.objects_received == r.prog.objects_total);
    CHECK(r.progress_calls > 0);
    char *fsck = gitfix_out("out=$(git -C empty fsck --full 2>&1); rc=$?; "
                            "printf '%%s\\n' \"$out\" | grep -v '^notice: HEAD points to an unborn'; "
                            "echo fsck-rc=$rc");
    CHECK_STR_EQ(fsck, "fsck-rc=0");
    free(fsck);
    /* the content came across: the files at the tip are readable */
    char *tree = gitfix_out("git -c core.quotepath=off -C empty ls-tree -r --name-only e2b/box | tr '\\n' ' '");
    CHECK_STR_EQ(tree, "a.txt b.txt big.txt caf\xc3\xa9 ");
    free(tree);
    /* HEAD still unborn on main, the index untouched (none) */
    CHECK(gitfix_sh("test \"$(cat empty/.git/HEAD)\" = 'ref: refs/heads/main' && "
                    "test ! -e empty/.git/index") == 0);
}

static void test_import_incremental_thin_v2_and_v3(void)
{
    CHECK(gitfix_sh("git -C src bundle create -q ../inc.bundle base..main && "
                    "git -C src bundle create -q --version=3 ../inc3.bundle base..main && "
                    "head -c 16 inc3.bundle | grep -q 'v3 git bundle' && "
                    "cp -a base-clone thin2 && cp -a base-clone thin3") == 0);
    char *want = gitfix_out("git -C src rev-parse main");
    import_result r = import_file("thin2", "inc.bundle", 0, NULL, "e2b/box", 0);
    CHECK_MSG(r.rc == 0, "%s", r.err.msg);
    CHECK_STR_EQ(r.oid, want);
    CHECK_INT_EQ(r.outcome, E2B_GITWORK_BRANCH_CREATED);
    /* the pack was thin: its delta base came from the local repository */
    CHECK_MSG(r.prog.local_objects > 0, "local objects %u", r.prog.local_objects);
    CHECK(gitfix_sh("git -C thin2 fsck --full >/dev/null 2>&1") == 0);
    CHECK(gitfix_sh("test \"$(git -C thin2 show e2b/box:big.txt | wc -l)\" = 20002") == 0);

    import_result r3 = import_file("thin3", "inc3.bundle", 0, "refs/heads/main", "e2b/box", 0);
    CHECK_MSG(r3.rc == 0, "%s", r3.err.msg);
    CHECK_STR_EQ(r3.oid, want);
    CHECK(gitfix_sh("git -C thin3 fsck --full >/dev/null 2>&1") == 0);
    free(want);
}

static void test_import_head_only_fast_forward(void)
{
    /* base-clone's main is at base; a HEAD-only bundle moves e2b/box forward from base */
    CHECK(gitfix_sh("cp -a base-clone ff && git -C ff branch -q e2b/box main && "
                    "git -C src bundle create -q ../head.bundle base..HEAD") == 0);
    char *names = gitfix_out("git bundle list-heads head.bundle | cut -d' ' -f2");
    CHECK_STR_EQ(names, "HEAD");
    free(names);
    import_result r = import_file("ff", "head.bundle", 0, NULL, "e2b/box", 0);
    CHECK_MSG(r.rc == 0, "%s", r.err.msg);
    CHECK_INT_EQ(r.outcome, E2B_GITWORK_BRANCH_FAST_FORWARDED);
    /* the same bundle again: nothing new */
    import_result again = import_file("ff", "head.bundle", 0, "HEAD", "e2b/box", 0);
    CHECK_MSG(again.rc == 0, "%s", again.err.msg);
    CHECK_INT_EQ(again.outcome, E2B_GITWORK_BRANCH_UP_TO_DATE);
    /* and a diverged branch is refused, unchanged */
    CHECK(gitfix_sh("cd ff && git checkout -q -b side main && echo d > d && git add d && "
                    "git commit -qm d && git branch -q -f e2b/other side && git checkout -q main") == 0);
    import_result dv = import_file("ff", "head.bundle", 0, NULL, "e2b/other", 0);
    CHECK_INT_EQ(dv.rc, E2B_SUB_DIVERGED);
    CHECK_INT_EQ(dv.err.kind, E2B_ERR_CONFLICT); /* exit status 5 */
    CHECK(strstr(dv.err.msg, "has diverged") && strstr(dv.err.msg, "--force"));
    CHECK(gitfix_sh("test \"$(git -C ff rev-parse e2b/other)\" = \"$(git -C ff rev-parse side)\"") == 0);
}

static void test_missing_prerequisite_writes_nothing(void)
{
    CHECK(gitfix_sh("git init -q -b main stranger && cd stranger && echo s > s && git add s && "
                    "git commit -qm s") == 0);
    char *before = repo_state("stranger");
    import_result r = import_file("stranger", "inc.bundle", 0, NULL, "e2b/box", 0);
    char *after = repo_state("stranger");
    CHECK_INT_EQ(r.rc, E2B_SUB_MISSING_BASE);
    CHECK_INT_EQ(r.err.kind, E2B_ERR_IO);
    CHECK(strstr(r.err.msg, "is not in this repository") != NULL);
    CHECK(strstr(r.err.msg, "full history") == NULL); /* no advice of an option that is not */
    CHECK_STR_EQ(after, before);
    free(before);
    free(after);
}

static void test_corrupt_header_writes_nothing(void)
{
    /* upper-case one hex digit of the ref line */
    CHECK(gitfix_sh("cp full.bundle bad-hdr.bundle && "
                    "printf 'G' | dd of=bad-hdr.bundle bs=1 seek=20 conv=notrunc 2>/dev/null && "
                    "git init -q -b main e1") == 0);
    char *before = repo_state("e1");
    import_result r = import_file("e1", "bad-hdr.bundle", 0, NULL, "e2b/box", 0);
    char *after = repo_state("e1");
    CHECK_INT_EQ(r.rc, E2B_SUB_BAD_BUNDLE);
    CHECK_INT_EQ(r.err.kind, E2B_ERR_PROTOCOL);
    CHECK(strstr(r.err.msg, "malformed reference") != NULL);
    CHECK_STR_EQ(after, before);
    free(before);
    free(after);
    /* a header that never reaches its pack */
    import_result r2 = import_file("e1", "full.bundle", 30, NULL, "e2b/box", 0);
    CHECK_INT_EQ(r2.rc, E2B_SUB_BAD_BUNDLE);
    CHECK(strstr(r2.err.msg, "incomplete header") != NULL);
}

static void test_truncated_or_corrupt_pack_leaves_no_stray_objects(void)
{
    CHECK(gitfix_sh("git init -q -b main e2 && cp full.bundle flipped.bundle && "
                    "size=$(stat -c %%s flipped.bundle) && "
                    "printf '\\377' | dd of=flipped.bundle bs=1 seek=$((size / 2)) conv=notrunc "
                    "2>/dev/null") == 0);
    char *before = repo_state("e2");
    char *sz = gitfix_out("stat -c %%s full.bundle");
    size_t size = strtoul(sz, NULL, 10);
    free(sz);
    import_result cut = import_file("e2", "full.bundle", size * 6 / 10, NULL, "e2b/box", 0);
    char *after1 = repo_state("e2");
    import_result flip = import_file("e2", "flipped.bundle", 0, NULL, "e2b/box", 0);
    char *after2 = repo_state("e2");
    import_result nopack = import_file("e2", "full.bundle", 0, "refs/heads/nope", "e2b/box", 0);
    char *after3 = repo_state("e2");
    CHECK_INT_EQ(cut.rc, E2B_SUB_BAD_BUNDLE);
    CHECK_MSG(strstr(cut.err.msg, "truncated or corrupt") != NULL, "%s", cut.err.msg);
    CHECK_INT_EQ(flip.rc, E2B_SUB_BAD_BUNDLE);
    CHECK_INT_EQ(nopack.rc, E2B_SUB_NO_REF);
    CHECK_STR_EQ(after1, before);
    CHECK_STR_EQ(after2, before);
    CHECK_STR_EQ(after3, before);
    CHECK(gitfix_sh("git -C e2 fsck --full >/dev/null 2>&1 && "
                    "test -z \"$(ls e2/.git/objects/pack)\"") == 0);
    free(before);
    free(after1);
    free(after2);
    free(after3);
}

static void test_pack_missing_objects_refused(void)
{
    /* A hand-made bundle whose pack holds the tip commit but not its tree or parents:
     * connectivity verification must refuse it and leave nothing behind. */
    CHECK(gitfix_sh("c=$(git -C src rev-parse main) && "
                    "{ printf '# v2 git bundle\\n%%s refs/heads/main\\n\\n' $c; "
                    "  echo $c | git -C src pack-objects -q --stdout; } > holes.bundle && "
                    "git init -q -b main e3") == 0);
    char *before = repo_state("e3");
    import_result r = import_file("e3", "holes.bundle", 0, NULL, "e2b/box", 0);
    char *after = repo_state("e3");
    CHECK_INT_EQ(r.rc, E2B_SUB_BAD_BUNDLE);
    CHECK_MSG(strstr(r.err.msg, "missing") != NULL, "%s", r.err.msg);
    CHECK_STR_EQ(after, before);
    free(before);
    free(after);
}

static void test_cancel_from_progress(void)
{
    CHECK(gitfix_sh("git init -q -b main e4") == 0);
    char *before = repo_state("e4");
    import_result r = import_file("e4", "full.bundle", 0, NULL, "e2b/box", 1);
    char *after = repo_state("e4");
    CHECK_INT_EQ(r.rc, E2B_SUB_CANCELLED);
    CHECK_STR_EQ(after, before);
    free(before);
    free(after);
}

/* A hostile box's trees nested 100,000 deep: refused with a clear message, without a crash
 * (the check once recursed per level), and nothing of the pack stays. At git's own cap of
 * 4096 levels a tree is still fine; one more is not. */
static void test_deep_trees_refused(void)
{
    CHECK(gitfix_sh("gen=\"$E2B_TUI_ROOT/tests/fixtures/deep_bundle.py\" && "
                    "python3 \"$gen\" 100000 deep.bundle refs/heads/main >/dev/null && "
                    "python3 \"$gen\" 4097 over.bundle refs/heads/main >/dev/null && "
                    "python3 \"$gen\" 4096 cap.bundle refs/heads/main > cap.oid && "
                    "git init -q -b main deep") == 0);
    char *before = repo_state("deep");
    import_result r = import_file("deep", "deep.bundle", 0, NULL, "e2b/box", 0);
    char *after = repo_state("deep");
    CHECK_INT_EQ(r.rc, E2B_SUB_BAD_BUNDLE);
    CHECK_MSG(strstr(r.err.msg, "nested more than 4096 levels deep") != NULL, "%s", r.err.msg);
    CHECK(strchr(r.err.msg, '\n') == NULL);
    CHECK_STR_EQ(after, before);
    import_result over = import_file("deep", "over.bundle", 0, NULL, "e2b/box", 0);
    char *after2 = repo_state("deep");
    CHECK_INT_EQ(over.rc, E2B_SUB_BAD_BUNDLE);
    CHECK_STR_EQ(after2, before);
    import_result cap = import_file("deep", "cap.bundle", 0, NULL, "e2b/box", 0);
    CHECK_MSG(cap.rc == 0, "%s", cap.err.msg);
    char *want = gitfix_out("cat cap.oid");
    char *got = gitfix_out("git -C deep rev-parse refs/heads/e2b/box");
    CHECK_STR_EQ(got, want);
    CHECK(gitfix_sh("test -z \"$(find deep/.git/objects -name 'e2b-tui-incoming-*')\"") == 0);
    free(before);
    free(after);
    free(after2);
    free(want);
    free(got);
}

/* The input policy's caps (core/util/limits.h) as a user set them: a bundle over
 * limit.bundle_bytes and one with trees deeper than limit.tree_depth are refused, with the
 * key to raise in the message, and leave nothing. */
static void test_limits_from_the_policy(void)
{
    CHECK(gitfix_sh("python3 \"$E2B_TUI_ROOT/tests/fixtures/deep_bundle.py\" 4 four.bundle "
                    "refs/heads/main >/dev/null && git init -q -b main e8") == 0);
    char *before = repo_state("e8");
    e2b_limits l = e2b_limits_default();
    l.bundle_bytes = 1024;
    import_limits = &l;
    import_result big = import_file("e8", "full.bundle", 0, NULL, "e2b/box", 0);
    l = e2b_limits_default();
    l.tree_depth = 3;
    import_result deep = import_file("e8", "four.bundle", 0, NULL, "e2b/box", 0);
    l.tree_depth = 4;
    import_result fits = import_file("e8", "four.bundle", 0, NULL, "e2b/box4", 0);
    import_limits = NULL;
    char *after = repo_state("e8");
    CHECK_INT_EQ(big.rc, E2B_SUB_BAD_BUNDLE);
    CHECK_MSG(strstr(big.err.msg, "larger than 0 MiB (limit.bundle_bytes") != NULL, "%s", big.err.msg);
    CHECK_INT_EQ(deep.rc, E2B_SUB_BAD_BUNDLE);
    CHECK_MSG(strstr(deep.err.msg, "more than 3 levels deep (limit.tree_depth") != NULL, "%s",
              deep.err.msg);
    CHECK_MSG(fits.rc == 0, "%s", fits.err.msg);
    CHECK(gitfix_sh("test \"$(git -C e8 for-each-ref --format='%%(refname)')\" = refs/heads/e2b/box4") == 0);
    /* before the good import, nothing of the two refused ones was there */
    CHECK(strstr(after, "e2b-tui-incoming") == NULL);
    free(before);
    free(after);
}

/* Peak resident memory of this process so far, in MiB (ru_maxrss is in KiB on Linux). */
static long peak_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

/* The bombs of issue 29, made by tests/fixtures/pack_bomb.py: a 1 KB bundle whose one delta
 * expands to 1 GiB (the import once built it: 1 GB of memory, then the branch), 40 deltas of
 * 250 MiB each (under limit.object_bytes, 10 GiB together), a chain of 5,000 deltas, a blob
 * whose data inflates to more than its entry declares, and an honest 1 GiB blob. Each is
 * refused with what was refused and the key that raises it, before its objects are built:
 * this process's peak memory grows by less than 100 MiB over all of them, and nothing of
 * them stays in the repository. */
static void test_bombs_refused_before_inflating(void)
{
    CHECK(gitfix_sh("P=\"$E2B_TUI_ROOT/tests/fixtures/pack_bomb.py\" && "
                    "python3 \"$P\" huge-delta huge-delta.bundle 1G >/dev/null && "
                    "python3 \"$P\" many-deltas many-deltas.bundle 40 250M >/dev/null && "
                    "python3 \"$P\" chain chain.bundle 5000 1K >/dev/null && "
                    "python3 \"$P\" lying-blob lying-blob.bundle 1K 64M >/dev/null && "
                    "python3 \"$P\" huge-blob huge-blob.bundle 1G >/dev/null && "
                    "git init -q -b main bombs") == 0);
    static const struct {
        const char *file, *says;
    } bombs[] = {
        {"huge-delta.bundle", "holds a delta whose result is 1024 MiB, more than 256 MiB "
                              "(limit.object_bytes in the config); nothing was imported"},
        {"many-deltas.bundle", "inflate to more than 8192 MiB (limit.inflated_bytes in the config)"},
        {"chain.bundle", "a delta chain more than 4095 deep (limit.delta_depth in the config)"},
        {"lying-blob.bundle", "an object inflates to more than its declared size"},
        {"huge-blob.bundle", "holds an object of 1024 MiB, more than 256 MiB (limit.object_bytes"},
    };
    char *before = repo_state("bombs");
    long peak0 = peak_mib();
    for (size_t i = 0; i < sizeof bombs / sizeof *bombs; i++) {
        import_result r = import_file("bombs", bombs[i].file, 0, NULL, "e2b/box", 0);
        CHECK_MSG(r.rc == E2B_SUB_BAD_BUNDLE, "%s: %d %s", bombs[i].file, r.rc, r.err.msg);
        CHECK_MSG(strstr(r.err.msg, bombs[i].says) != NULL, "%s: %s", bombs[i].file, r.err.msg);
        char *after = repo_state("bombs");
        CHECK_STR_EQ(after, before);
        free(after);
    }
    long grew = peak_mib() - peak0;
    CHECK_MSG(grew < 100, "peak memory grew by %ld MiB", grew);
    free(before);
}

/* The three limits are the user's (limit.object_bytes, limit.inflated_bytes,
 * limit.delta_depth): a well-formed chain of 20 deltas of 10 KiB imports at the defaults, and
 * is refused with each limit set just under what it needs, and imports again at exactly it. */
static void test_bomb_limits_are_the_users(void)
{
    CHECK(gitfix_sh("python3 \"$E2B_TUI_ROOT/tests/fixtures/pack_bomb.py\" chain chain20.bundle "
                    "20 10K --hash >/dev/null && git init -q -b main lim") == 0);
    char *before = repo_state("lim");
    e2b_limits l = e2b_limits_default();
    import_limits = &l;
    l.delta_depth = 19;
    import_result deep = import_file("lim", "chain20.bundle", 0, NULL, "e2b/box", 0);
    l = e2b_limits_default();
    l.object_bytes = 10 * 1024 - 1;
    import_result big = import_file("lim", "chain20.bundle", 0, NULL, "e2b/box", 0);
    l = e2b_limits_default();
    /* the base (10 KiB) and 20 deltas: each delta's instructions and its 10 KiB result */
    l.inflated_bytes = 21 * 10 * 1024;
    import_result total = import_file("lim", "chain20.bundle", 0, NULL, "e2b/box", 0);
    char *after = repo_state("lim");
    l = e2b_limits_default();
    l.delta_depth = 20;
    l.object_bytes = 10 * 1024;
    import_result fits = import_file("lim", "chain20.bundle", 0, NULL, "e2b/box", 0);
    import_limits = NULL;
    CHECK_INT_EQ(deep.rc, E2B_SUB_BAD_BUNDLE);
    CHECK_MSG(strstr(deep.err.msg, "more than 19 deep (limit.delta_depth") != NULL, "%s", deep.err.msg);
    CHECK_INT_EQ(big.rc, E2B_SUB_BAD_BUNDLE);
    CHECK_MSG(strstr(big.err.msg, "(limit.object_bytes in the config)") != NULL, "%s", big.err.msg);
    CHECK_INT_EQ(total.rc, E2B_SUB_BAD_BUNDLE);
    CHECK_MSG(strstr(total.err.msg, "(limit.inflated_bytes in the config)") != NULL, "%s",
              total.err.msg);
    CHECK_STR_EQ(after, before);
    CHECK_MSG(fits.rc == 0, "%s", fits.err.msg);
    CHECK(gitfix_sh("git -C lim fsck --full >/dev/null 2>&1 && "
                    "git -C lim cat-file -e e2b/box:c000019") == 0);
    free(before);
    free(after);
}

/* A cancel reaches inside one large object: a 64 MiB blob (under the limits) is inflated by
 * the scanner in 1 MiB steps, each of which asks the progress callback, so a cancel at the
 * third call ends the import while that first object is still being read (the indexer has
 * not received one object), not after it. */
static void test_cancel_inside_an_object(void)
{
    CHECK(gitfix_sh("python3 \"$E2B_TUI_ROOT/tests/fixtures/pack_bomb.py\" huge-blob blob64.bundle "
                    "64M >/dev/null && git init -q -b main e9") == 0);
    char *before = repo_state("e9");
    import_result r = import_file("e9", "blob64.bundle", 0, NULL, "e2b/box", 3);
    char *after = repo_state("e9");
    CHECK_INT_EQ(r.rc, E2B_SUB_CANCELLED);
    CHECK_INT_EQ(r.progress_calls, 3);
    CHECK_INT_EQ(r.prog.objects_received, 0);
    CHECK_STR_EQ(after, before);
    free(before);
    free(after);
}

/* A refused branch update (diverged) after a good pack: the pack does not stay either, but
 * a pack that was there before (the same bundle pulled earlier) is never removed. */
static void test_refused_update_leaves_no_pack(void)
{
    CHECK(gitfix_sh("git init -q -b main e7 && git -C src bundle create -q ../tip.bundle main && "
                    "git -C e7 commit -q --allow-empty -m other && "
                    "git -C e7 branch e2b/box") == 0);
    char *before = repo_state("e7");
    import_result r = import_file("e7", "tip.bundle", 0, NULL, "e2b/box", 0);
    char *after = repo_state("e7");
    CHECK_INT_EQ(r.rc, E2B_SUB_DIVERGED);
    CHECK_STR_EQ(after, before);
    import_result ok = import_file("e7", "tip.bundle", 0, NULL, "e2b/new", 0);
    CHECK_MSG(ok.rc == 0, "%s", ok.err.msg);
    char *packs = gitfix_out("ls e7/.git/objects/pack");
    import_result again = import_file("e7", "tip.bundle", 0, NULL, "e2b/box", 0);
    char *packs2 = gitfix_out("ls e7/.git/objects/pack");
    CHECK_INT_EQ(again.rc, E2B_SUB_DIVERGED);
    CHECK_STR_EQ(packs2, packs);
    CHECK(gitfix_sh("git -C e7 fsck --full >/dev/null 2>&1") == 0);
    free(before);
    free(after);
    free(packs);
    free(packs2);
}

/* Found by fuzz_bundle_import: an empty write before any byte, and finishing with nothing,
 * passed a NULL buffer to memcpy/memcmp (undefined behaviour). Now a no-op and a clear
 * "truncated" error. */
static void test_empty_input(void)
{
    e2b_error *err = NULL;
    e2b_bundle_header h;
    CHECK_INT_EQ(e2b_bundle_header_parse(NULL, 0, &h, &err), 0);
    CHECK(err == NULL);
    CHECK(gitfix_sh("git init -q -b main e5") == 0);
    char *before = repo_state("e5");
    char path[4096];
    snprintf(path, sizeof path, "%s/e5", gitfix_tmpdir());
    e2b_gitwork *g = NULL;
    CHECK(e2b_gitwork_open(&g, path, 0) == NULL);
    e2b_bundle_import *bi = NULL;
    CHECK(e2b_bundle_import_new(&bi, g, NULL, NULL) == NULL);
    CHECK(e2b_bundle_import_write(bi, NULL, 0) == NULL);
    CHECK(e2b_bundle_import_write(bi, "", 0) == NULL);
    char oid[41];
    const e2b_error *fe = e2b_bundle_import_finish(bi, NULL, oid);
    CHECK_INT_EQ(e2b_error_sub_of(fe), E2B_SUB_BAD_BUNDLE);
    CHECK(fe && strstr(e2b_error_message(fe), "truncated") != NULL);
    e2b_bundle_import_free(bi);
    e2b_gitwork_close(g);
    char *after = repo_state("e5");
    CHECK_STR_EQ(after, before);
    free(before);
    free(after);
    e2b_error_free(err);
}

/* A pull killed mid-pack leaves objects/pack/pack_git2_*: the next import removes it, but
 * spares a file written to just now and sweeps nothing while another importer holds the
 * lock. */
static void test_stale_temp_packs_swept(void)
{
    CHECK(gitfix_sh("git init -q -b main e6 && cd e6/.git/objects/pack && "
                    "echo x > pack_git2_old && touch -d '-1 minute' pack_git2_old && "
                    "echo y > pack_git2_fresh && echo z > pack_git2_old2 && "
                    "touch -d '-1 minute' pack_git2_old2") == 0);
    char *lock = path_in("e6/.git/e2b-tui-import.lock");
    int fd = open(lock, O_RDWR | O_CREAT, 0600);
    CHECK(fd >= 0 && flock(fd, LOCK_EX) == 0);
    import_result r = import_file("e6", "full.bundle", 0, NULL, "e2b/box", 0);
    CHECK_INT_EQ(r.rc, 0);
    CHECK(gitfix_sh("test -e e6/.git/objects/pack/pack_git2_old") == 0); /* locked: kept */
    close(fd);
    CHECK(gitfix_sh("cd e6/.git/objects/pack && touch -d '-1 minute' pack_git2_old") == 0);
    r = import_file("e6", "full.bundle", 0, NULL, "e2b/box", 0);
    CHECK_INT_EQ(r.rc, 0);
    CHECK(gitfix_sh("test ! -e e6/.git/objects/pack/pack_git2_old && "
                    "test ! -e e6/.git/objects/pack/pack_git2_old2 && "
                    "test -e e6/.git/objects/pack/pack_git2_fresh") == 0);
    CHECK(gitfix_sh("test \"$(stat -c %%a e6/.git/e2b-tui-import.lock)\" = 600") == 0);
    CHECK(gitfix_sh("git -C e6 fsck --full >/dev/null 2>&1") == 0);
    free(lock);
}

int main(void)
{
    gitfix_tmpdir();
    RUN(test_header_valid_v2_and_v3);
    RUN(test_header_every_prefix_needs_more);
    RUN(test_header_rejects_malformed);
    RUN(test_header_survives_mutations);
    RUN(test_import_full_bundle);
    RUN(test_import_incremental_thin_v2_and_v3);
    RUN(test_import_head_only_fast_forward);
    RUN(test_missing_prerequisite_writes_nothing);
    RUN(test_corrupt_header_writes_nothing);
    RUN(test_truncated_or_corrupt_pack_leaves_no_stray_objects);
    RUN(test_pack_missing_objects_refused);
    RUN(test_cancel_from_progress);
    RUN(test_empty_input);
    RUN(test_stale_temp_packs_swept);
    RUN(test_deep_trees_refused);
    RUN(test_refused_update_leaves_no_pack);
    RUN(test_limits_from_the_policy);
    RUN(test_bombs_refused_before_inflating);
    RUN(test_bomb_limits_are_the_users);
    RUN(test_cancel_inside_an_object);
    gitfix_cleanup();
    return harness_finish();
}
