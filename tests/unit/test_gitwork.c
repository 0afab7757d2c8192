/* gitwork against real repositories built with the git command line. */
#include "core/git/gitwork.h"
#include "tests/lib/gitfix.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *path_in(const char *rel)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", gitfix_tmpdir(), rel) < 0)
        return NULL;
    return p;
}

static void test_not_a_repository(void)
{
    CHECK(gitfix_sh("mkdir -p plain/sub") == 0);
    char *dir = path_in("plain/sub");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    int rc = gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0));
    free(dir);
    CHECK_INT_EQ(rc, E2B_SUB_NOT_REPO);
    CHECK(g == NULL);
    CHECK(strstr(e2b_error_message(err), "not a git repository") != NULL);
    e2b_error_free(err);
}

/* core/git's errors are core's one type: the kind follows from the subcode in one place
 * (e2b_error_sub_kind), a copy keeps the subcode, and the message is the local text alone. */
static void test_errors_are_e2b_errors(void)
{
    CHECK(gitfix_sh("mkdir -p plain2") == 0);
    char *dir = path_in("plain2");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    int rc = gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0));
    free(dir);
    CHECK_INT_EQ(rc, E2B_SUB_NOT_REPO);
    CHECK(err != NULL);
    CHECK_INT_EQ(err->kind, E2B_ERR_INVALID);
    CHECK_INT_EQ(e2b_error_exit_code(err), 1);
    e2b_error *copy = e2b_error_copy(err);
    CHECK_INT_EQ(e2b_error_sub_of(copy), E2B_SUB_NOT_REPO);
    CHECK(strncmp(e2b_error_message(err), "not a git repository", 20) == 0);
    e2b_error_free(copy);
    e2b_error_free(err);
    CHECK_INT_EQ(e2b_error_sub_kind(E2B_SUB_DIVERGED), E2B_ERR_CONFLICT);
    CHECK_INT_EQ(e2b_error_sub_kind(E2B_SUB_CHECKED_OUT), E2B_ERR_CONFLICT);
    CHECK_INT_EQ(e2b_error_sub_kind(E2B_SUB_NOMEM), E2B_ERR_INTERNAL);
    CHECK_INT_EQ(e2b_error_sub_kind(E2B_SUB_BAD_BUNDLE), E2B_ERR_PROTOCOL);
    CHECK_INT_EQ(e2b_error_sub_kind(E2B_SUB_CANCELLED), E2B_ERR_CANCELLED);
    CHECK_INT_EQ(e2b_error_sub_kind(E2B_SUB_FILE_IO), E2B_ERR_IO);
    e2b_error *d = e2b_error_local(E2B_SUB_DIVERGED, "branch x has diverged");
    CHECK_INT_EQ(e2b_error_exit_code(d), 5);
    CHECK_STR_EQ(e2b_error_message(d), "branch x has diverged");
    e2b_error_free(d);
}

static void test_bare_repository_refused(void)
{
    CHECK(gitfix_sh("git init -q --bare bare.git") == 0);
    char *dir = path_in("bare.git");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    int rc = gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0));
    free(dir);
    CHECK_INT_EQ(rc, E2B_SUB_FAILED);
    CHECK(strstr(e2b_error_message(err), "bare") != NULL);
    e2b_error_free(err);
}

static void test_discovers_upwards_and_workdir(void)
{
    CHECK(gitfix_sh("git init -q -b main up && mkdir -p up/a/b") == 0);
    char *dir = path_in("up/a/b");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0)), 0);
    free(dir);
    char *want = gitfix_out("cd up && pwd -P");
    CHECK(want != NULL);
    int same = strcmp(e2b_gitwork_workdir(g), want) == 0;
    if (!same)
        fprintf(stderr, "workdir %s, want %s\n", e2b_gitwork_workdir(g), want);
    free(want);
    e2b_gitwork_close(g);
    CHECK(same);
    e2b_error_free(err);
}

static void test_head_branch_detached_unborn(void)
{
    CHECK(gitfix_sh("git init -q -b feat/x hk && cd hk && echo a > a && git add a && "
                    "git commit -qm one") == 0);
    char *dir = path_in("hk");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    e2b_gitwork_head h;
    char name[64];
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0)), 0);
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_head_info(g, &h)), 0);
    CHECK_INT_EQ(h.kind, E2B_GITWORK_HEAD_BRANCH);
    CHECK_STR_EQ(h.branch, "feat/x");
    char *oid = gitfix_out("git -C hk rev-parse HEAD");
    CHECK_STR_EQ(h.oid, oid);
    e2b_gitwork_default_box_name(&h, name, sizeof name);
    CHECK_STR_EQ(name, "feat-x");

    CHECK(gitfix_sh("git -C hk checkout -q --detach") == 0);
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_head_info(g, &h)), 0);
    CHECK_INT_EQ(h.kind, E2B_GITWORK_HEAD_DETACHED);
    CHECK_STR_EQ(h.branch, "");
    CHECK_STR_EQ(h.oid, oid);
    e2b_gitwork_default_box_name(&h, name, sizeof name);
    char want[32];
    snprintf(want, sizeof want, "detached-%.7s", oid);
    free(oid);
    CHECK_STR_EQ(name, want);
    e2b_gitwork_close(g);
    g = NULL;

    CHECK(gitfix_sh("git init -q -b trunk unborn") == 0);
    free(dir);
    dir = path_in("unborn");
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0)), 0);
    free(dir);
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_head_info(g, &h)), 0);
    e2b_gitwork_close(g);
    CHECK_INT_EQ(h.kind, E2B_GITWORK_HEAD_UNBORN);
    CHECK_STR_EQ(h.branch, "trunk");
    CHECK_STR_EQ(h.oid, "");
    e2b_error_free(err);
}

static void check_name(const char *in, const char *want, int *ok)
{
    char out[E2B_GITWORK_BOX_NAME_MAX + 1];
    e2b_gitwork_sanitize_box_name(in, out, sizeof out);
    if (strcmp(out, want) != 0) {
        fprintf(stderr, "sanitize(%s) = %s, want %s\n", in, out, want);
        *ok = 0;
    }
    if (!e2b_gitwork_box_name_valid(out)) {
        fprintf(stderr, "sanitised %s not valid\n", out);
        *ok = 0;
    }
}

static void test_box_name_rule(void)
{
    int ok = 1;
    check_name("main", "main", &ok);
    check_name("feat/x", "feat-x", &ok);
    check_name("feat//x y", "feat-x-y", &ok);
    check_name("../etc/passwd", "etc-passwd", &ok);
    check_name("a..b", "a.b", &ok);
    check_name("x.lock", "x-lock", &ok);
    check_name("-lead-", "lead", &ok);
    check_name("caf\xc3\xa9/\x1b[2J", "cafe-2J", &ok);
    check_name("feat/\xc3\xbcn\xc3\xaf", "feat-uni", &ok); /* transliterated, not dropped */
    check_name("Stra\xc3\x9f" "e", "Strasse", &ok);
    check_name("a\xc3\x97" "b", "a-b", &ok); /* the multiplication sign is no letter */
    check_name("///", "box", &ok);
    check_name("", "box", &ok);
    check_name("a@{b}", "a-b", &ok);
    check_name("Release_1.2", "Release_1.2", &ok);
    /* Long names are cut to the cap and re-trimmed. */
    char longin[200];
    memset(longin, 'a', sizeof longin - 1);
    longin[sizeof longin - 1] = '\0';
    longin[E2B_GITWORK_BOX_NAME_MAX - 1] = '/';
    char longwant[E2B_GITWORK_BOX_NAME_MAX];
    memset(longwant, 'a', E2B_GITWORK_BOX_NAME_MAX - 1);
    longwant[E2B_GITWORK_BOX_NAME_MAX - 1] = '\0';
    check_name(longin, longwant, &ok);
    CHECK(ok);
    CHECK(!e2b_gitwork_box_name_valid("feat/x"));
    CHECK(!e2b_gitwork_box_name_valid(""));
    CHECK(!e2b_gitwork_box_name_valid(".hidden"));
    CHECK(!e2b_gitwork_box_name_valid("a b"));
    CHECK(e2b_gitwork_box_name_valid("feat-x"));
}

/* A project with every kind of file `up` must (or must not) carry. */
static int make_fixture(const char *name)
{
    return gitfix_sh(
        "git init -q -b main %1$s && cd %1$s && "
        "printf 'build/\\n*.log\\n' > .gitignore && "
        "echo keep > kept.txt && echo mod > modified.txt && echo gone > deleted.txt && "
        "echo staged-gone > staged-deleted.txt && printf '#!/bin/sh\\necho hi\\n' > run.sh && "
        "chmod 755 run.sh && ln -s kept.txt link && printf 'caf\\303\\251' > 'caf\xc3\xa9 n.txt' && "
        "mkdir -p build && echo forced > build/forced.o && git add -A && git add -f build/forced.o && "
        "git commit -qm base && "
        "echo changed >> modified.txt && rm deleted.txt && git rm -q staged-deleted.txt && "
        "echo new > staged-new.txt && git add staged-new.txt && "
        "mkdir -p dir/sub && echo u > dir/sub/untracked.txt && echo x > build/ignored.o && "
        "echo log > debug.log && mkdir -p logs && echo l > logs/a.log",
        name);
}

static char *join_list(const e2b_gitwork_filelist *l)
{
    size_t n = 1;
    for (size_t i = 0; i < l->count; i++)
        n += strlen(l->paths[i]) + 1;
    char *s = malloc(n), *p = s;
    if (!s)
        return NULL;
    *p = '\0';
    for (size_t i = 0; i < l->count; i++)
        p += sprintf(p, "%s\n", l->paths[i]);
    return s;
}

static void test_file_list_matches_git(void)
{
    CHECK(make_fixture("fl") == 0);
    char *dir = path_in("fl");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    e2b_gitwork_filelist l;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0)), 0);
    free(dir);
    int rc = gitfix_sub(&err, e2b_gitwork_list_files(g, &l));
    e2b_gitwork_close(g);
    CHECK_INT_EQ(rc, 0);
    char *got = join_list(&l);
    /* git's own answer, minus files gone from the work tree, plus .git last. */
    char *want = gitfix_out(
        "cd fl && git -c core.quotepath=off ls-files --cached --others --exclude-standard | "
        "LC_ALL=C sort -u | while IFS= read -r f; do "
        "if [ -e \"$f\" ] || [ -L \"$f\" ]; then echo \"$f\"; fi; done; echo .git");
    int same = got && want && strcmp(got, strcat(want, "\n")) == 0;
    if (!same)
        fprintf(stderr, "got:\n%s\nwant:\n%s\n", got ? got : "(null)", want ? want : "(null)");
    CHECK(same);
    free(want);
    CHECK(strstr(got, "build/forced.o\n") != NULL);       /* tracked though ignored */
    CHECK(strstr(got, "build/ignored.o") == NULL);        /* ignored */
    CHECK(strstr(got, "debug.log") == NULL);              /* ignored glob */
    CHECK(strstr(got, "deleted.txt") == NULL);            /* deleted in work tree */
    CHECK(strstr(got, "dir/sub/untracked.txt\n") != NULL); /* untracked, nested */
    CHECK(strstr(got, "staged-new.txt\n") != NULL);
    CHECK(strstr(got, "link\n") != NULL);
    CHECK(strstr(got, "caf\xc3\xa9 n.txt\n") != NULL);
    CHECK_STR_EQ(l.paths[l.count - 1], ".git");
    CHECK_INT_EQ(l.nsubmodules, 0);
    free(got);
    e2b_gitwork_filelist_free(&l);
    e2b_error_free(err);
}

static void test_submodule_reported_not_listed(void)
{
    CHECK(gitfix_sh("git init -q -b main subsrc && cd subsrc && echo s > s && git add s && "
                    "git commit -qm s && cd .. && git init -q -b main withsub && cd withsub && "
                    "echo top > top && git add top && git commit -qm top && "
                    "git -c protocol.file.allow=always submodule -q add ../subsrc vendor/sub "
                    ">/dev/null 2>&1 && git commit -qm sub") == 0);
    char *dir = path_in("withsub");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    e2b_gitwork_filelist l;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0)), 0);
    free(dir);
    int rc = gitfix_sub(&err, e2b_gitwork_list_files(g, &l));
    e2b_gitwork_close(g);
    CHECK_INT_EQ(rc, 0);
    char *got = join_list(&l);
    CHECK_STR_EQ(got, ".gitmodules\ntop\n.git\n");
    free(got);
    CHECK_INT_EQ(l.nsubmodules, 1);
    CHECK_STR_EQ(l.submodules[0], "vendor/sub");
    e2b_gitwork_filelist_free(&l);
    e2b_error_free(err);
}

static void test_linked_worktree_refused(void)
{
    CHECK(gitfix_sh("git init -q -b main lw && cd lw && echo a > a && git add a && "
                    "git commit -qm a && git worktree add -q ../lw-wt -b other") == 0);
    char *dir = path_in("lw-wt");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    e2b_gitwork_filelist l;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0)), 0);
    free(dir);
    int rc = gitfix_sub(&err, e2b_gitwork_list_files(g, &l));
    e2b_gitwork_close(g);
    CHECK_INT_EQ(rc, E2B_SUB_FAILED);
    CHECK(strstr(e2b_error_message(err), "linked worktree") != NULL);
    CHECK_INT_EQ(l.count, 0);
    e2b_error_free(err);
}

static void test_user_from_config(void)
{
    CHECK(gitfix_sh("git init -q usr && git -C usr config user.name 'Zoë Local' && "
                    "git config --global user.email global@example.invalid") == 0);
    char *dir = path_in("usr");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    char *name, *email;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0)), 0);
    free(dir);
    int rc = gitfix_sub(&err, e2b_gitwork_user(g, &name, &email));
    gitfix_sh("git config --global --unset user.email");
    char *n2 = NULL, *e2 = NULL;
    int rc2 = gitfix_sub(&err, e2b_gitwork_user(g, &n2, &e2));
    e2b_gitwork_close(g);
    CHECK_INT_EQ(rc, 0);
    CHECK_STR_EQ(name, "Zoë Local");
    CHECK_STR_EQ(email, "global@example.invalid");
    free(name);
    free(email);
    CHECK_INT_EQ(rc2, 0);
    CHECK_STR_EQ(n2, "Zoë Local");
    CHECK(e2 == NULL);
    free(n2);
    e2b_error_free(err);
}

/* A fingerprint of everything pull must not change: HEAD, the index bytes, the work tree
 * (contents and modes) and git status. */
static char *fingerprint(const char *repo)
{
    return gitfix_out("cd %s && { cat .git/HEAD; sha256sum .git/index; "
                      "find . -path ./.git -prune -o -print0 | LC_ALL=C sort -z | "
                      "xargs -0 stat -c '%%n %%a %%s %%Y' ; "
                      "find . -path ./.git -prune -o -type f -print0 | LC_ALL=C sort -z | "
                      "xargs -0 sha256sum; git status --porcelain=v1 -uall; } 2>&1",
                      repo);
}

static void test_update_branch_outcomes(void)
{
    CHECK(make_fixture("ub") == 0);
    CHECK(gitfix_sh("cd ub && git branch -q side && c1=$(git rev-parse HEAD) && "
                    "git checkout -q side && echo 2 > two && git add two && git commit -qm two && "
                    "echo 3 > three && git add three && git commit -qm three && "
                    "git checkout -q -b other HEAD~2 && echo d > d && git add d && "
                    "git commit -qm diverge && git checkout -q main") == 0);
    /* re-dirty the work tree after the checkouts (they carried the changes along) */
    char *c1 = gitfix_out("git -C ub rev-parse main");
    char *c2 = gitfix_out("git -C ub rev-parse side~1");
    char *c3 = gitfix_out("git -C ub rev-parse side");
    char *cd = gitfix_out("git -C ub rev-parse other");
    CHECK(c1 && c2 && c3 && cd);
    char *before = fingerprint("ub");
    char *dir = path_in("ub");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    e2b_gitwork_branch_outcome oc;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0)), 0);
    free(dir);
    int r1 = gitfix_sub(&err, e2b_gitwork_update_branch(g, "e2b/box", c2, 0, &oc));
    e2b_gitwork_branch_outcome o1 = oc;
    char *at1 = gitfix_out("git -C ub rev-parse refs/heads/e2b/box");
    int r2 = gitfix_sub(&err, e2b_gitwork_update_branch(g, "e2b/box", c2, 0, &oc));
    e2b_gitwork_branch_outcome o2 = oc;
    int r3 = gitfix_sub(&err, e2b_gitwork_update_branch(g, "e2b/box", c3, 0, &oc));
    e2b_gitwork_branch_outcome o3 = oc;
    char *at3 = gitfix_out("git -C ub rev-parse refs/heads/e2b/box");
    int r4 = gitfix_sub(&err, e2b_gitwork_update_branch(g, "e2b/box", c1, 0, &oc)); /* ancestor: contained */
    e2b_gitwork_branch_outcome o4 = oc;
    int r5 = gitfix_sub(&err, e2b_gitwork_update_branch(g, "e2b/box", cd, 0, &oc));
    e2b_error *e5 = err;
    err = NULL;
    char *at5 = gitfix_out("git -C ub rev-parse refs/heads/e2b/box");
    int r6 = gitfix_sub(&err, e2b_gitwork_update_branch(g, "e2b/box", cd, 1, &oc));
    e2b_gitwork_branch_outcome o6 = oc;
    char *at6 = gitfix_out("git -C ub rev-parse refs/heads/e2b/box");
    int r7 = gitfix_sub(&err, e2b_gitwork_update_branch(g, "e2b/bad..name", c1, 0, &oc));
    int r8 = gitfix_sub(&err, e2b_gitwork_update_branch(g, "e2b/box", "0123", 0, &oc));
    int r9 = gitfix_sub(&err, e2b_gitwork_update_branch(
                                  g, "e2b/box2", "1111111111111111111111111111111111111111", 0, &oc));
    /* the checked-out branch is never moved */
    int r10 = gitfix_sub(&err, e2b_gitwork_update_branch(g, "main", c3, 0, &oc));
    e2b_error *e10 = err;
    err = NULL;
    char tip[41], none[41] = "x";
    int t1 = gitfix_sub(&err, e2b_gitwork_branch_tip(g, "e2b/box", tip));
    int t2 = gitfix_sub(&err, e2b_gitwork_branch_tip(g, "e2b/absent", none));
    int t3 = gitfix_sub(&err, e2b_gitwork_branch_tip(g, "bad..name", none));
    e2b_gitwork_close(g);
    char *after = fingerprint("ub");
    char *main_after = gitfix_out("git -C ub rev-parse main");

    CHECK_INT_EQ(r1, 0);
    CHECK_INT_EQ(o1, E2B_GITWORK_BRANCH_CREATED);
    CHECK_STR_EQ(at1, c2);
    CHECK_INT_EQ(r2, 0);
    CHECK_INT_EQ(o2, E2B_GITWORK_BRANCH_UP_TO_DATE);
    CHECK_INT_EQ(r3, 0);
    CHECK_INT_EQ(o3, E2B_GITWORK_BRANCH_FAST_FORWARDED);
    CHECK_STR_EQ(at3, c3);
    CHECK_INT_EQ(r4, 0);
    CHECK_INT_EQ(o4, E2B_GITWORK_BRANCH_UP_TO_DATE);
    CHECK_INT_EQ(r5, E2B_SUB_DIVERGED);
    CHECK(strstr(e2b_error_message(e5), "diverged") != NULL && strstr(e2b_error_message(e5), "--force") != NULL);
    CHECK_INT_EQ(e5->kind, E2B_ERR_CONFLICT); /* --pull exits 5 */
    CHECK_INT_EQ(e2b_error_exit_code(e5), 5);
    CHECK_STR_EQ(at5, c3);
    CHECK_INT_EQ(r6, 0);
    CHECK_INT_EQ(o6, E2B_GITWORK_BRANCH_FORCED);
    CHECK_STR_EQ(at6, cd);
    CHECK_INT_EQ(r7, E2B_SUB_BAD_ARG);
    CHECK_INT_EQ(r8, E2B_SUB_BAD_ARG);
    CHECK_INT_EQ(r9, E2B_SUB_FAILED);
    CHECK_INT_EQ(r10, E2B_SUB_CHECKED_OUT);
    CHECK(strstr(e2b_error_message(e10), "checked out") != NULL);
    CHECK_INT_EQ(e2b_error_exit_code(e10), 5);
    CHECK_STR_EQ(main_after, c1);
    CHECK_INT_EQ(t1, 0);
    CHECK_STR_EQ(tip, cd);
    CHECK_INT_EQ(t2, 0);
    CHECK_STR_EQ(none, "");
    CHECK_INT_EQ(t3, E2B_SUB_BAD_ARG);
    CHECK(before && after);
    CHECK_STR_EQ(after, before);
    free(c1); free(c2); free(c3); free(cd);
    free(at1); free(at3); free(at5); free(at6);
    free(before); free(after); free(main_after);
    e2b_error_free(err);
    e2b_error_free(e5);
    e2b_error_free(e10);
}

static void test_foreign_owner(void)
{
    CHECK(gitfix_sh("git init -q -b main owned && chown -R 54321:54321 owned") == 0);
    char *dir = path_in("owned");
    e2b_gitwork *g = NULL;
    e2b_error *err = NULL;
    int rc = gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0));
    e2b_gitwork_close(g);
    g = NULL;
    e2b_error *e1 = err;
    err = NULL;
    /* git's safe.directory is honoured without the flag */
    gitfix_sh("git config --global --add safe.directory \"$(pwd)/owned\"");
    int rc3 = gitfix_sub(&err, e2b_gitwork_open(&g, dir, 0));
    e2b_gitwork_close(g);
    g = NULL;
    gitfix_sh("git config --global --unset-all safe.directory");
    int rc2 = gitfix_sub(&err, e2b_gitwork_open(&g, dir, E2B_GITWORK_ALLOW_FOREIGN_OWNER));
    e2b_gitwork_close(g);
    free(dir);
    CHECK_INT_EQ(rc, E2B_SUB_FOREIGN_OWNER);
    CHECK(strstr(e2b_error_message(e1), "safe.directory") != NULL);
    CHECK_INT_EQ(rc3, 0);
    CHECK_INT_EQ(rc2, 0);
    e2b_error_free(err);
    e2b_error_free(e1);
}

int main(void)
{
    gitfix_tmpdir();
    RUN(test_not_a_repository);
    RUN(test_errors_are_e2b_errors);
    RUN(test_bare_repository_refused);
    RUN(test_discovers_upwards_and_workdir);
    RUN(test_head_branch_detached_unborn);
    RUN(test_box_name_rule);
    RUN(test_file_list_matches_git);
    RUN(test_submodule_reported_not_listed);
    RUN(test_linked_worktree_refused);
    RUN(test_user_from_config);
    RUN(test_update_branch_outcomes);
    /* Only root can hand a repository to another uid. */
    if (geteuid() == 0)
        RUN(test_foreign_owner);
    gitfix_cleanup();
    return harness_finish();
}
