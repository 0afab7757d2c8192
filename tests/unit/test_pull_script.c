/* pull_script: the generated script runs under bash against real repositories (a clone
 * stands in for the box), and its bundle is imported with the bundle importer. */
#include "core/git/bundle.h"
#include "core/git/gitwork.h"
#include "core/git/pull_script.h"
#include "tests/lib/gitfix.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *path_in(const char *rel)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", gitfix_tmpdir(), rel) < 0)
        return NULL;
    return p;
}

/* Runs the script with exactly the given variables (plus PATH and HOME); returns stdout
 * (malloc'd) and sets *status to the exit status. */
static char *run_script(const e2b_pull_script_var *vars, size_t n, int *status)
{
    const char **names = calloc(n ? n : 1, sizeof *names);
    const char **values = calloc(n ? n : 1, sizeof *values);
    char *out = NULL;
    if (names && values) {
        for (size_t i = 0; i < n; i++) {
            names[i] = vars[i].name;
            values[i] = vars[i].value;
        }
        out = gitfix_bash_script(e2b_pull_script_text(), "e2b-tui-pull", names, values, n, NULL,
                                 status);
    }
    free(names);
    free(values);
    return out;
}

/* A copy of an error's subcode and message, kept in a result by value. */
typedef struct {
    int code;
    char msg[512];
} err_snap;

static void snap(err_snap *s, const e2b_error *e)
{
    s->code = e2b_error_sub_of(e);
    snprintf(s->msg, sizeof s->msg, "%s", e ? e2b_error_message(e) : "");
}

typedef struct {
    int status;
    int rc;
    err_snap err;
    e2b_pull_script_result res;
    char *stdout_text;
} pull_run;

static pull_run pull_prev(const char *boxrel, const char *base, const char *prev,
                          const char *name)
{
    pull_run pr = {0};
    char *dir = path_in(boxrel);
    e2b_pull_script_params p = {.dir = dir, .base = base, .prev = prev, .box_name = name,
                            .user_name = "Local Üser", .user_email = "local@example.invalid"};
    e2b_pull_script_var *vars;
    size_t n;
    e2b_error *e = NULL;
    pr.rc = gitfix_sub(&e, e2b_pull_script_env(&p, &vars, &n));
    snap(&pr.err, e);
    e2b_error_free(e);
    free(dir);
    if (pr.rc != 0)
        return pr;
    pr.stdout_text = run_script(vars, n, &pr.status);
    e2b_pull_script_env_free(vars, n);
    pr.rc = gitfix_sub(&e, e2b_pull_script_parse_output(pr.stdout_text, strlen(pr.stdout_text), &pr.res));
    snap(&pr.err, e);
    e2b_error_free(e);
    return pr;
}

static pull_run pull_in(const char *boxrel, const char *base, const char *name)
{
    return pull_prev(boxrel, base, NULL, name);
}

static void pull_run_free(pull_run *pr)
{
    free(pr->stdout_text);
    free(pr->res.path);
}

/* Imports a bundle file into repo and moves e2b/<branch>. */
static int import_bundle(const char *repo, const char *file, const char *branch,
                         e2b_gitwork_branch_outcome *oc, char oid[41], e2b_error **err)
{
    char *rp = path_in(repo);
    size_t len = 0;
    unsigned char *data = gitfix_read_file(file, &len);
    e2b_gitwork *g = NULL;
    e2b_bundle_import *bi = NULL;
    int rc = data ? gitfix_sub(err, e2b_gitwork_open(&g, rp, 0)) : E2B_SUB_FILE_IO;
    if (rc == 0)
        rc = gitfix_sub(err, e2b_bundle_import_new(&bi, g, NULL, NULL));
    const e2b_error *w = NULL;
    for (size_t pos = 0; rc == 0 && !w && pos < len; pos += 4096)
        w = e2b_bundle_import_write(bi, data + pos, len - pos < 4096 ? len - pos : 4096);
    if (rc == 0 && !w)
        w = e2b_bundle_import_finish_branch(bi, E2B_PULL_SCRIPT_REF, branch, 0, oc, oid);
    if (w)
        rc = gitfix_sub(err, e2b_error_copy(w));
    e2b_bundle_import_free(bi);
    e2b_gitwork_close(g);
    free(data);
    free(rp);
    return rc;
}

/* Everything pull must leave alone in the box: HEAD, index bytes, work tree (contents,
 * modes, names), every ref and reflog, the config. */
static char *box_state(const char *box)
{
    return gitfix_out("cd %s && { cat .git/HEAD; sha256sum .git/index 2>/dev/null; "
                      "find . -path ./.git -prune -o -printf '%%p %%m %%s %%l\\n' | LC_ALL=C sort; "
                      "find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | "
                      "xargs -0 -r sha256sum; git for-each-ref; cat .git/packed-refs 2>/dev/null; "
                      "find .git/refs .git/logs -type f 2>/dev/null | LC_ALL=C sort | xargs -r sha256sum; "
                      "sha256sum .git/config; git status --porcelain=v1 -uall; } 2>&1",
                      box);
}

static char *base_oid;

static void test_setup_local_and_box(void)
{
    CHECK(gitfix_sh(
              "git init -q -b main local && cd local && printf 'ignored.txt\\nbuild/\\n' > .gitignore && "
              "echo keep > keep.txt && echo edit > edit.txt && echo gone > gone.txt && "
              "echo staged > staged.txt && git add -A && git commit -qm base && cd .. && "
              "git clone -q local box && cd box && "
              /* the agent commits something ... */
              "echo agent > agent.txt && git add agent.txt && git commit -qm 'agent commit' && "
              /* ... and leaves uncommitted work of every kind */
              "echo edited >> edit.txt && rm gone.txt && echo staged-more >> staged.txt && "
              "git add staged.txt && echo new > new.txt && mkdir -p sub/dir && echo deep > sub/dir/deep.txt && "
              "head -c 5000 /dev/urandom > blob.bin && printf '#!/bin/sh\\necho run\\n' > run.sh && "
              "chmod 755 run.sh && ln -s keep.txt link && echo u > \"$(printf 'na\\303\\257ve \\346\\227\\245.txt')\" && "
              "echo secret > ignored.txt && mkdir -p build && echo o > build/out.o") == 0);
    base_oid = gitfix_out("git -C local rev-parse HEAD");
    CHECK(base_oid != NULL);
}

static void test_thin_pull_round_trip(void)
{
    char *before = box_state("box");
    char *local_before = gitfix_out("cd local && cat .git/HEAD && sha256sum .git/index && "
                                    "git status --porcelain -uall");
    pull_run pr = pull_in("box", base_oid, "feat-x");
    char *after = box_state("box");
    CHECK_MSG(pr.rc == 0, "%s / out: %s", pr.err.msg, pr.stdout_text);
    CHECK_INT_EQ(pr.status, 0);
    CHECK_INT_EQ(pr.res.kind, E2B_PULL_SCRIPT_BUNDLE);
    CHECK_INT_EQ(pr.res.full, 0);
    CHECK(before && after);
    CHECK_STR_EQ(after, before);
    char *sz = gitfix_out("wc -c < '%s'", pr.res.path);
    CHECK(sz && strtoull(sz, NULL, 10) == pr.res.size);
    free(sz);
    /* the scratch ref is gone again */
    CHECK(gitfix_sh("! git -C box rev-parse -q --verify refs/e2b-tui/scratch >/dev/null") == 0);

    e2b_gitwork_branch_outcome oc;
    char oid[41];
    e2b_error *err = NULL;
    int rc = import_bundle("local", pr.res.path, "e2b/feat-x", &oc, oid, &err);
    CHECK_MSG(rc == 0, "%s", e2b_error_message(err));
    CHECK_INT_EQ(oc, E2B_GITWORK_BRANCH_CREATED);
    CHECK_STR_EQ(oid, pr.res.commit);
    unlink(pr.res.path);
    pull_run_free(&pr);

    /* the branch holds exactly the box's tracked + untracked-not-ignored files */
    char *tree = gitfix_out("git -c core.quotepath=off -C local ls-tree -r --name-only e2b/feat-x | tr '\\n' '|'");
    CHECK_STR_EQ(tree, ".gitignore|agent.txt|blob.bin|edit.txt|keep.txt|link|na\xc3\xafve \xe6\x97\xa5.txt|"
                       "new.txt|run.sh|staged.txt|sub/dir/deep.txt|");
    free(tree);
    CHECK(gitfix_sh("cd local && for f in blob.bin edit.txt staged.txt sub/dir/deep.txt run.sh; do "
                    "git show \"e2b/feat-x:$f\" | cmp -s - \"../box/$f\" || exit 1; done") == 0);
    char *modes = gitfix_out("git -C local ls-tree e2b/feat-x run.sh link keep.txt | cut -c1-6 | tr '\\n' ' '");
    CHECK_STR_EQ(modes, "100644 120000 100755 ");
    free(modes);
    CHECK(gitfix_sh("test \"$(git -C local cat-file -p e2b/feat-x:link)\" = keep.txt") == 0);
    /* history: scratch commit -> agent commit -> base, authored by the local user */
    char *log = gitfix_out("git -C local log --format='%%an <%%ae>|%%cn|%%s' e2b/feat-x");
    CHECK_STR_EQ(log, "Local Üser <local@example.invalid>|Local Üser|e2b-tui: work in progress from box feat-x\n"
                      "Fixture Author <fixture@example.invalid>|Fixture Author|agent commit\n"
                      "Fixture Author <fixture@example.invalid>|Fixture Author|base");
    free(log);
    CHECK(gitfix_sh("git -C local fsck --full >/dev/null 2>&1") == 0);
    /* and the local side: HEAD, index, work tree unchanged */
    char *local_after = gitfix_out("cd local && cat .git/HEAD && sha256sum .git/index && "
                                   "git status --porcelain -uall");
    CHECK_STR_EQ(local_after, local_before);
    free(local_before);
    free(local_after);
    free(before);
    free(after);
    e2b_error_free(err);
}

/* Pull the box with prev = the local branch tip; import into local as e2b/feat-x. */
static int pull_and_import(e2b_gitwork_branch_outcome *oc, e2b_pull_script_kind *kind, e2b_error **err)
{
    char *prev = gitfix_out("git -C local rev-parse refs/heads/e2b/feat-x");
    pull_run pr = pull_prev("box", base_oid, prev, "feat-x");
    free(prev);
    int rc = pr.rc;
    *kind = pr.res.kind;
    if (rc != 0)
        gitfix_sub(err, e2b_error_local(pr.err.code, "%s", pr.err.msg));
    if (rc == 0 && pr.res.kind == E2B_PULL_SCRIPT_BUNDLE) {
        char oid[41];
        rc = import_bundle("local", pr.res.path, "e2b/feat-x", oc, oid, err);
        if (rc == 0 && strcmp(oid, pr.res.commit) != 0)
            rc = E2B_SUB_FAILED;
        unlink(pr.res.path);
    }
    pull_run_free(&pr);
    return rc;
}

static void test_successive_pulls_fast_forward(void)
{
    e2b_gitwork_branch_outcome oc;
    e2b_pull_script_kind kind;
    e2b_error *err = NULL;
    /* more uncommitted work on the same HEAD: builds on the last snapshot */
    CHECK(gitfix_sh("cd box && echo more >> new.txt && rm keep.txt") == 0);
    int rc = pull_and_import(&oc, &kind, &err);
    CHECK_MSG(rc == 0, "%s", e2b_error_message(err));
    CHECK_INT_EQ(oc, E2B_GITWORK_BRANCH_FAST_FORWARDED);
    CHECK(gitfix_sh("git -C local show e2b/feat-x:new.txt | grep -q more && "
                    "! git -C local cat-file -e e2b/feat-x:keep.txt 2>/dev/null && "
                    "git -C local rev-parse -q --verify e2b/feat-x~1^{commit} >/dev/null") == 0);
    /* nothing changed since: no bundle at all */
    rc = pull_and_import(&oc, &kind, &err);
    CHECK_MSG(rc == 0, "%s", e2b_error_message(err));
    CHECK_INT_EQ(kind, E2B_PULL_SCRIPT_NOWORK);
    /* the agent commits everything: the snapshot joins HEAD and the last snapshot */
    CHECK(gitfix_sh("cd box && git add -A && git commit -qm 'agent two' && echo three > three.txt") == 0);
    rc = pull_and_import(&oc, &kind, &err);
    CHECK_MSG(rc == 0, "%s", e2b_error_message(err));
    CHECK_INT_EQ(kind, E2B_PULL_SCRIPT_BUNDLE);
    CHECK_INT_EQ(oc, E2B_GITWORK_BRANCH_FAST_FORWARDED);
    CHECK(gitfix_sh("test \"$(git -C local show e2b/feat-x:three.txt)\" = three && "
                    "test \"$(git -C local rev-parse e2b/feat-x^1)\" = \"$(git -C box rev-parse HEAD)\"") == 0);
    /* the user committed on e2b/feat-x locally: the box cannot know it, so it diverges */
    CHECK(gitfix_sh("cd local && git worktree add -q ../local-wt e2b/feat-x && cd ../local-wt && "
                    "echo mine > mine.txt && git add mine.txt && git commit -qm mine && "
                    "cd ../local && git worktree remove ../local-wt && cd ../box && echo four > four.txt") == 0);
    char *tip = gitfix_out("git -C local rev-parse e2b/feat-x");
    rc = pull_and_import(&oc, &kind, &err);
    CHECK_INT_EQ(rc, E2B_SUB_DIVERGED);
    char *tip_after = gitfix_out("git -C local rev-parse e2b/feat-x");
    CHECK_STR_EQ(tip_after, tip);
    free(tip);
    free(tip_after);
    e2b_error_free(err);
}

static void test_no_work_and_full_bundles(void)
{
    /* a box exactly at its base */
    CHECK(gitfix_sh("git clone -q local clean") == 0);
    pull_run pr = pull_in("clean", base_oid, "clean");
    CHECK_MSG(pr.rc == 0, "%s", pr.err.msg);
    CHECK_INT_EQ(pr.res.kind, E2B_PULL_SCRIPT_NOWORK);
    CHECK_STR_EQ(pr.res.commit, base_oid);
    CHECK(pr.res.path == NULL);
    pull_run_free(&pr);

    /* unknown base, and a base the box does not have: full bundles, importable anywhere */
    CHECK(gitfix_sh("echo w > clean/w.txt && git init -q -b main fresh") == 0);
    pull_run full = pull_in("clean", NULL, "clean");
    pull_run alien = pull_in("clean", "1111111111111111111111111111111111111111", "clean");
    CHECK_MSG(full.rc == 0, "%s", full.err.msg);
    CHECK_MSG(alien.rc == 0, "%s", alien.err.msg);
    CHECK_INT_EQ(full.res.full, 1);
    CHECK_INT_EQ(alien.res.full, 1);
    e2b_gitwork_branch_outcome oc;
    char oid[41];
    e2b_error *err = NULL;
    int rc = import_bundle("fresh", full.res.path, "e2b/clean", &oc, oid, &err);
    CHECK_MSG(rc == 0, "%s", e2b_error_message(err));
    CHECK(gitfix_sh("test \"$(git -C fresh show e2b/clean:w.txt)\" = w && "
                    "test \"$(git -C fresh rev-list --count e2b/clean)\" = 2") == 0);
    unlink(full.res.path);
    unlink(alien.res.path);
    pull_run_free(&full);
    pull_run_free(&alien);

    /* an unborn box: a root commit */
    CHECK(gitfix_sh("git init -q -b main unborn && echo first > unborn/first.txt && git init -q -b main fresh2") == 0);
    char *before = box_state("unborn");
    pull_run ub = pull_in("unborn", NULL, "unborn");
    char *after = box_state("unborn");
    CHECK_MSG(ub.rc == 0, "%s", ub.err.msg);
    CHECK_STR_EQ(after, before);
    rc = import_bundle("fresh2", ub.res.path, "e2b/unborn", &oc, oid, &err);
    CHECK_MSG(rc == 0, "%s", e2b_error_message(err));
    CHECK(gitfix_sh("test \"$(git -C fresh2 rev-list --count e2b/unborn)\" = 1 && "
                    "test \"$(git -C fresh2 show e2b/unborn:first.txt)\" = first") == 0);
    unlink(ub.res.path);
    pull_run_free(&ub);
    free(before);
    free(after);
    e2b_error_free(err);
}

static void test_values_are_data_not_code(void)
{
    CHECK(gitfix_sh("git clone -q local inj && echo x > inj/x") == 0);
    const char *evil = "$(touch pwned1)`touch pwned2`'\"; touch pwned3; \\";
    pull_run pr = pull_in("inj", base_oid, evil);
    CHECK_MSG(pr.rc == 0, "%s", pr.err.msg);
    CHECK(gitfix_sh("! ls pwned* inj/pwned* >/dev/null 2>&1") == 0);
    char *msg = gitfix_out("git -C inj log -1 --format=%%s %s", pr.res.commit);
    char want[200];
    snprintf(want, sizeof want, "e2b-tui: work in progress from box %s", evil);
    CHECK_STR_EQ(msg, want);
    free(msg);
    unlink(pr.res.path);
    pull_run_free(&pr);
    /* a directory name with spaces and quotes is fine too */
    CHECK(gitfix_sh("git clone -q local \"od'd dir\" && echo y > \"od'd dir/y\"") == 0);
    pull_run odd = pull_in("od'd dir", base_oid, "odd");
    CHECK_MSG(odd.rc == 0, "%s", odd.err.msg);
    unlink(odd.res.path);
    pull_run_free(&odd);
}

static void test_submodules_survive_a_pull(void)
{
    CHECK(gitfix_sh("git init -q -b main subsrc && echo s > subsrc/s && git -C subsrc add s && "
                    "git -C subsrc commit -qm s && git init -q -b main withsub && cd withsub && "
                    "echo top > top && git add top && "
                    "git -c protocol.file.allow=always submodule -q add ../subsrc vendor/sub >/dev/null 2>&1 && "
                    "git commit -qm sub && cd .. && git clone -q withsub subbox") == 0);
    char *base = gitfix_out("git -C withsub rev-parse HEAD");
    char *link = gitfix_out("git -C withsub rev-parse HEAD:vendor/sub");
    /* the box got no submodule content: first an empty directory, then none at all */
    CHECK(gitfix_sh("test -d subbox/vendor/sub && echo change >> subbox/top") == 0);
    pull_run a = pull_in("subbox", base, "sub");
    CHECK_MSG(a.rc == 0, "%s", a.err.msg);
    char *ka = gitfix_out("git -C subbox rev-parse %s:vendor/sub", a.res.commit);
    CHECK_STR_EQ(ka, link);
    CHECK(gitfix_sh("rmdir subbox/vendor/sub && git -C subbox status --porcelain | grep -q '^ D vendor/sub'") == 0);
    pull_run b = pull_in("subbox", base, "sub");
    CHECK_MSG(b.rc == 0, "%s", b.err.msg);
    char *kb = gitfix_out("git -C subbox rev-parse %s:vendor/sub", b.res.commit);
    CHECK_STR_EQ(kb, link);
    char *top = gitfix_out("git -C subbox show %s:top", b.res.commit);
    CHECK_STR_EQ(top, "top\nchange");
    /* a submodule the agent really removed stays removed */
    CHECK(gitfix_sh("cd subbox && git rm -q --cached vendor/sub") == 0);
    pull_run c = pull_in("subbox", base, "sub");
    CHECK_MSG(c.rc == 0, "%s", c.err.msg);
    CHECK(gitfix_sh("! git -C subbox rev-parse -q --verify %s:vendor/sub >/dev/null", c.res.commit) == 0);
    unlink(a.res.path);
    unlink(b.res.path);
    unlink(c.res.path);
    pull_run_free(&a);
    pull_run_free(&b);
    pull_run_free(&c);
    free(base);
    free(link);
    free(ka);
    free(kb);
    free(top);
}

static void test_errors_are_reported(void)
{
    CHECK(gitfix_sh("mkdir -p notrepo") == 0);
    pull_run pr = pull_in("notrepo", NULL, "x");
    CHECK_INT_EQ(pr.status, 1);
    CHECK_INT_EQ(pr.rc, E2B_SUB_FAILED);
    CHECK(strstr(pr.err.msg, "in the box: not a git repository") != NULL);
    pull_run_free(&pr);
    pull_run missing = pull_in("does-not-exist", NULL, "x");
    CHECK_INT_EQ(missing.status, 1);
    CHECK(strstr(missing.err.msg, "project directory not found") != NULL);
    pull_run_free(&missing);

    e2b_pull_script_params p = {.dir = "relative", .box_name = "x"};
    e2b_pull_script_var *v;
    size_t n;
    e2b_error *err = NULL;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_pull_script_env(&p, &v, &n)), E2B_SUB_BAD_ARG);
    p.dir = "/abs";
    p.base = "HEAD~1";
    CHECK_INT_EQ(gitfix_sub(&err, e2b_pull_script_env(&p, &v, &n)), E2B_SUB_BAD_ARG);
    p.base = NULL;
    p.user_name = "two\nlines";
    CHECK_INT_EQ(gitfix_sub(&err, e2b_pull_script_env(&p, &v, &n)), E2B_SUB_BAD_ARG);
    e2b_error_free(err);
}

static void test_parse_output(void)
{
    e2b_pull_script_result r;
    e2b_error *err = NULL;
    const char *ok = "noise\nE2B-TUI-BUNDLE " "0123456789abcdef0123456789abcdef01234567"
                     " thin 1234 /tmp/a b.bundle\n";
    CHECK_INT_EQ(gitfix_sub(&err, e2b_pull_script_parse_output(ok, strlen(ok), &r)), 0);
    CHECK_INT_EQ(r.kind, E2B_PULL_SCRIPT_BUNDLE);
    CHECK_INT_EQ(r.full, 0);
    CHECK_INT_EQ(r.size, 1234);
    CHECK_STR_EQ(r.path, "/tmp/a b.bundle");
    CHECK_STR_EQ(r.commit, "0123456789abcdef0123456789abcdef01234567");
    free(r.path);
    const char *bad[] = {
        "E2B-TUI-BUNDLE 0123456789ABCDEF0123456789abcdef01234567 thin 1 /x\n",
        "E2B-TUI-BUNDLE 0123456789abcdef0123456789abcdef01234567 fat 1 /x\n",
        "E2B-TUI-BUNDLE 0123456789abcdef0123456789abcdef01234567 full -1 /x\n",
        "E2B-TUI-BUNDLE 0123456789abcdef0123456789abcdef01234567 full 1 relative\n",
        "E2B-TUI-NOWORK 0123\n",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = gitfix_sub(&err, e2b_pull_script_parse_output(bad[i], strlen(bad[i]), &r));
        CHECK_MSG(rc == E2B_SUB_FAILED && strstr(e2b_error_message(err), "no result line"), "case %zu: %d %s", i, rc, e2b_error_message(err));
    }
    const char *e = "E2B-TUI-ERROR bad \x1b[31mthing\n";
    CHECK_INT_EQ(gitfix_sub(&err, e2b_pull_script_parse_output(e, strlen(e), &r)), E2B_SUB_FAILED);
    CHECK_STR_EQ(e2b_error_message(err), "in the box: bad ?[31mthing");
    e2b_error_free(err);
}

int main(void)
{
    gitfix_tmpdir();
    RUN(test_setup_local_and_box);
    RUN(test_thin_pull_round_trip);
    RUN(test_successive_pulls_fast_forward);
    RUN(test_no_work_and_full_bundles);
    RUN(test_values_are_data_not_code);
    RUN(test_submodules_survive_a_pull);
    RUN(test_errors_are_reported);
    RUN(test_parse_output);
    free(base_oid);
    gitfix_cleanup();
    return harness_finish();
}
