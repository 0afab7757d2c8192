/* changes_script: the script runs under bash against a real repository standing in for the
 * box; its output is parsed (files, counts, untracked, binary, a hostile name, the caps),
 * the box's index and HEAD are left as they were, and broken output is refused. */
#include "core/git/changes_script.h"
#include "core/git/gitwork.h"
#include "tests/lib/gitfix.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* E2B_TUI_PREV for the next runs (the last pulled commit), "" = none. */
static const char *prev_env = "";

/* Runs the script with E2B_TUI_DIR=<scratch>/box and the given variables; returns stdout
 * (malloc'd, NULs kept: *len) and sets *status. */
static char *run(const char *mode, const char *base, const char *file, const char *cap,
                 size_t *len, int *status)
{
    char *dir = NULL;
    if (asprintf(&dir, "%s/box", gitfix_tmpdir()) < 0)
        return NULL;
    const char *names[] = {"E2B_TUI_DIR",  "E2B_TUI_MODE", "E2B_TUI_BASE",
                           "E2B_TUI_FILE", "E2B_TUI_CAP",  "E2B_TUI_PREV"};
    const char *values[] = {dir,  mode, base ? base : "", file ? file : "", cap ? cap : "",
                            prev_env};
    char *out = gitfix_bash_script(e2b_changes_script_text(), "e2b-tui-changes", names, values, 6,
                                   len, status);
    free(dir);
    return out;
}

static const e2b_changes_file *file_named(const e2b_changes_list *l, const char *raw)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->files[i].raw, raw) == 0)
            return &l->files[i];
    return NULL;
}

static char *base_oid;

static void setup_box(void)
{
    gitfix_sh("rm -rf box && git init -q -b main box && cd box && "
              "printf 'keep\\n' > kept.txt && printf 'one\\ntwo\\nthree\\n' > edit.txt && "
              "printf 'gone\\nbye\\n' > gone.txt && printf '*.log\\n' > .gitignore && "
              "git add -A && git commit -q -m base");
    free(base_oid);
    base_oid = gitfix_out("git -C box rev-parse HEAD");
}

static void test_list(void)
{
    setup_box();
    CHECK(base_oid != NULL);
    /* The agent: edits, deletes, commits one change, leaves new files untracked (one with a
     * tab and an escape in its name, one binary, one ignored). */
    CHECK(gitfix_sh("cd box && printf 'one\\n2\\nthree\\nfour\\n' > edit.txt && rm gone.txt && "
                    "printf 'a\\nb\\n' > committed.txt && git add committed.txt && "
                    "git commit -q -m agent && mkdir -p src && printf 'x\\ny\\nz\\n' > src/new.c && "
                    "printf 'evil\\n' > \"$(printf 'ev\\til\\033[2J.txt')\" && "
                    "printf '\\000\\001\\002' > blob.bin && printf 'noise\\n' > debug.log && "
                    "printf 'KEEP\\n' > kept.txt") == 0);
    char *before = gitfix_out("cd box && git rev-parse HEAD && sha256sum .git/index && GIT_OPTIONAL_LOCKS=0 git status --porcelain");
    size_t len = 0;
    int st = 0;
    char *out = run("list", base_oid, NULL, NULL, &len, &st);
    CHECK(out != NULL);
    CHECK_INT_EQ(st, 0);
    e2b_changes_list l;
    e2b_error *e = e2b_changes_parse_list(out, len, 100, &l);
    CHECK_MSG(e == NULL, "%s", e ? e2b_error_message(e) : "");
    CHECK_STR_EQ(l.against, "base");
    CHECK_STR_EQ(l.commit, base_oid);
    CHECK(!l.cut);
    const e2b_changes_file *f = file_named(&l, "edit.txt");
    CHECK(f && f->status == 'M' && f->added == 2 && f->removed == 1 && !f->untracked);
    f = file_named(&l, "gone.txt");
    CHECK(f && f->status == 'D' && f->removed == 2 && f->added == 0);
    f = file_named(&l, "committed.txt");
    CHECK(f && f->status == 'A' && f->added == 2 && !f->untracked);
    f = file_named(&l, "src/new.c");
    CHECK(f && f->untracked && f->status == 'A' && f->added == 3);
    f = file_named(&l, "blob.bin");
    CHECK(f && f->binary && f->untracked);
    f = file_named(&l, "ev\til\033[2J.txt");
    CHECK(f && f->untracked);
    CHECK_STR_EQ(f->path, "ev il?[2J.txt");
    CHECK(file_named(&l, "debug.log") == NULL);
    /* Same size, same second as the index was written (racy git): still seen. */
    f = file_named(&l, "kept.txt");
    CHECK(f && f->status == 'M' && f->added == 1 && f->removed == 1);
    CHECK(file_named(&l, ".gitignore") == NULL);
    CHECK_INT_EQ(l.count, 7);
    CHECK_INT_EQ(l.added, 2 + 2 + 3 + 1 + 1);
    CHECK_INT_EQ(l.removed, 1 + 2 + 1);
    e2b_changes_list_clear(&l);
    free(out);
    char *after = gitfix_out("cd box && git rev-parse HEAD && sha256sum .git/index && GIT_OPTIONAL_LOCKS=0 git status --porcelain");
    CHECK(before && after);
    CHECK_STR_EQ(after, before);
    free(before);
    free(after);
}

static void test_diff(void)
{
    size_t len = 0, off = 0;
    int st = 0;
    char *out = run("diff", base_oid, "edit.txt", NULL, &len, &st);
    CHECK(out && st == 0);
    e2b_error *e = e2b_changes_parse_diff_header(out, len, &off);
    CHECK(e == NULL);
    CHECK(strstr(out + off, "--- a/edit.txt") != NULL);
    CHECK(strstr(out + off, "\n-two\n") != NULL);
    CHECK(strstr(out + off, "\n+four\n") != NULL);
    free(out);
    /* An untracked file's diff is the whole file as added. */
    out = run("diff", base_oid, "src/new.c", NULL, &len, &st);
    CHECK(out && e2b_changes_parse_diff_header(out, len, &off) == NULL);
    CHECK(strstr(out + off, "new file mode") != NULL);
    CHECK(strstr(out + off, "+x\n+y\n+z") != NULL);
    free(out);
    /* A pathspec-looking name is a literal path. */
    out = run("diff", base_oid, "*.txt", NULL, &len, &st);
    CHECK(out && e2b_changes_parse_diff_header(out, len, &off) == NULL);
    CHECK_INT_EQ(len - off, 0);
    free(out);
}

static void test_cap_and_fallbacks(void)
{
    /* A cap cuts the listing in the box: the parser says it was cut. */
    CHECK(gitfix_sh("cd box && for i in $(seq 1 200); do echo $i > f$i.txt; done") == 0);
    size_t len = 0;
    int st = 0;
    char *out = run("list", base_oid, NULL, "2000", &len, &st);
    CHECK(out && len <= 2000);
    e2b_changes_list l;
    CHECK(e2b_changes_parse_list(out, len, 1000, &l) == NULL);
    CHECK(l.cut);
    CHECK(l.count > 0 && l.count < 200);
    e2b_changes_list_clear(&l);
    free(out);
    /* The file cap of the parser. */
    out = run("list", base_oid, NULL, NULL, &len, &st);
    CHECK(out && e2b_changes_parse_list(out, len, 10, &l) == NULL);
    CHECK(l.cut);
    CHECK_INT_EQ(l.count, 10);
    e2b_changes_list_clear(&l);
    free(out);
    /* A base the box does not have: HEAD instead. */
    out = run("list", "0123456789012345678901234567890123456789", NULL, NULL, &len, &st);
    CHECK(out && e2b_changes_parse_list(out, len, 1000, &l) == NULL);
    CHECK_STR_EQ(l.against, "head");
    CHECK(file_named(&l, "committed.txt") == NULL); /* committed since the base: in HEAD */
    e2b_changes_list_clear(&l);
    free(out);
    /* An unborn repository: against the empty tree. */
    CHECK(gitfix_sh("rm -rf box && git init -q box && echo hi > box/a.txt") == 0);
    out = run("list", "", NULL, NULL, &len, &st);
    CHECK(out && e2b_changes_parse_list(out, len, 1000, &l) == NULL);
    CHECK_STR_EQ(l.against, "empty");
    CHECK_STR_EQ(l.commit, "");
    CHECK(l.count == 1 && l.files[0].untracked && l.files[0].added == 1);
    e2b_changes_list_clear(&l);
    free(out);
    /* Not a repository: the box's words. */
    CHECK(gitfix_sh("rm -rf box && mkdir box") == 0);
    out = run("list", "", NULL, NULL, &len, &st);
    CHECK(out && st == 1);
    e2b_error *e = e2b_changes_parse_list(out, len, 1000, &l);
    CHECK(e && strstr(e2b_error_message(e), "not a git repository"));
    e2b_error_free(e);
    free(out);
}

static void test_parse_hostile(void)
{
    e2b_changes_list l;
    e2b_error *e = e2b_changes_parse_list("", 0, 10, &l);
    CHECK(e != NULL);
    e2b_error_free(e);
    e = e2b_changes_parse_list("hello\0", 6, 10, &l);
    CHECK(e != NULL);
    e2b_error_free(e);
    static const char bad_commit[] = "E2B-TUI-CHANGES\tbase\tnothex\0E2B-TUI-END";
    e = e2b_changes_parse_list(bad_commit, sizeof bad_commit, 10, &l);
    CHECK(e != NULL);
    e2b_error_free(e);
    /* Unknown records, huge counts and bad numbers are skipped; the end record counts. */
    static const char odd[] = "E2B-TUI-CHANGES\tempty\t\0X\tjunk\0N\t99999999999999\t1\ta\0"
                              "N\t1\t-2\tb\0S\tM\t\0S\tZ\tc\0N\t3\t4\tc\0E2B-TUI-END\0";
    e = e2b_changes_parse_list(odd, sizeof odd - 1, 10, &l);
    CHECK(e == NULL);
    CHECK(!l.cut);
    CHECK_INT_EQ(l.count, 1);
    CHECK(l.files[0].status == '?' && l.files[0].added == 3 && l.files[0].removed == 4);
    e2b_changes_list_clear(&l);
    /* The box's error record, with an escape in it. */
    static const char err[] = "E2B-TUI-ERROR\tno \033]0;x\007 git\0";
    e = e2b_changes_parse_list(err, sizeof err - 1, 10, &l);
    CHECK(e && strstr(e2b_error_message(e), "no ?]0;x? git"));
    e2b_error_free(e);
}

static const e2b_changes_summary_file *summary_file(const e2b_changes_summary *s, const char *raw)
{
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->files[i].raw, raw) == 0)
            return &s->files[i];
    return NULL;
}

/* Mode summary (the kill's look): commits and changed files with their blob ids, against
 * the base or the last pull; the blob ids match the same files in a work tree here. */
static void test_summary(void)
{
    setup_box();
    prev_env = "";
    CHECK(gitfix_sh("cd box && printf 'one\\n2\\n' > edit.txt && rm gone.txt && "
                    "printf 'c\\n' > committed.txt && git add committed.txt && "
                    "git commit -q -m agent && printf 'new\\n' > new.txt && "
                    "ln -s kept.txt link && printf 'noise\\n' > debug.log") == 0);
    size_t len = 0;
    int st = 0;
    e2b_changes_summary s;
    char *out = run("summary", base_oid, NULL, NULL, &len, &st);
    CHECK(out && st == 0 && e2b_changes_parse_summary(out, len, 100, &s) == NULL);
    free(out);
    CHECK_STR_EQ(s.against, "base");
    CHECK_INT_EQ(s.commits, 1);
    CHECK_INT_EQ(s.count, 5); /* edit, gone, committed, new (untracked), link; not the log */
    CHECK(!s.cut);
    const e2b_changes_summary_file *f = summary_file(&s, "gone.txt");
    CHECK(f && f->status == 'D' && f->blob[0] == '\0');
    char *want = gitfix_out("git -C box hash-object --no-filters edit.txt");
    f = summary_file(&s, "edit.txt");
    CHECK(f && want && strncmp(f->blob, want, 40) == 0);
    free(want);
    f = summary_file(&s, "new.txt");
    CHECK(f && f->status == 'A' && f->blob[0]);
    /* The same files here: a copy of the box's work tree matches every one of them; an
     * edit here does not, nor a path that leaves the tree. */
    CHECK(gitfix_sh("rm -rf here && cp -a box here") == 0);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/here", gitfix_tmpdir());
    e2b_gitwork *g = NULL;
    e2b_error *e = e2b_gitwork_open(&g, dir, 0);
    CHECK(e == NULL);
    for (size_t i = 0; g && i < s.count; i++)
        CHECK(e2b_gitwork_file_matches(g, s.files[i].raw, s.files[i].blob, 1u << 20));
    CHECK(gitfix_sh("printf 'changed here\\n' > here/new.txt && printf 'back\\n' > here/gone.txt") == 0);
    CHECK(!e2b_gitwork_file_matches(g, "new.txt", summary_file(&s, "new.txt")->blob, 1u << 20));
    CHECK(!e2b_gitwork_file_matches(g, "gone.txt", NULL, 1u << 20));
    CHECK(!e2b_gitwork_file_matches(g, "../box/new.txt", summary_file(&s, "new.txt")->blob, 1u << 20));
    CHECK(!e2b_gitwork_file_matches(g, "/etc/passwd", summary_file(&s, "new.txt")->blob, 1u << 20));
    CHECK(!e2b_gitwork_file_matches(g, "edit.txt", summary_file(&s, "edit.txt")->blob, 2)); /* too big */
    e2b_gitwork_close(g);
    e2b_error_free(e);
    e2b_changes_summary_clear(&s);

    /* A pull: its snapshot commit (the work tree, parent HEAD) is the last pulled commit. */
    char *pulled = gitfix_out("cd box && export GIT_INDEX_FILE=.git/pull-index && "
                              "cp .git/index .git/pull-index && git add -A && "
                              "git commit-tree -p HEAD -m pull \"$(git write-tree)\" && "
                              "rm -f .git/pull-index");
    CHECK(pulled && strlen(pulled) >= 40);
    if (pulled)
        pulled[40] = '\0';
    prev_env = pulled ? pulled : "";
    out = run("summary", base_oid, NULL, NULL, &len, &st);
    CHECK(out && e2b_changes_parse_summary(out, len, 100, &s) == NULL);
    free(out);
    CHECK_STR_EQ(s.against, "pulled");
    CHECK_STR_EQ(s.commit, prev_env);
    CHECK_INT_EQ(s.commits, 0);
    CHECK_INT_EQ(s.count, 0);
    e2b_changes_summary_clear(&s);
    /* A commit after the pull is new work again. */
    CHECK(gitfix_sh("cd box && printf 'later\\n' > later.txt && git add later.txt && "
                    "git commit -q -m later") == 0);
    out = run("summary", base_oid, NULL, NULL, &len, &st);
    CHECK(out && e2b_changes_parse_summary(out, len, 100, &s) == NULL);
    free(out);
    CHECK_INT_EQ(s.commits, 1);
    CHECK(s.count == 1 && summary_file(&s, "later.txt"));
    e2b_changes_summary_clear(&s);
    /* A "pull" that does not descend from the base (another box's, same name): the base. */
    char *other = gitfix_out("cd box && git commit-tree -m other \"$(git hash-object -t tree /dev/null)\"");
    if (other && strlen(other) >= 40)
        other[40] = '\0';
    prev_env = other ? other : "";
    out = run("summary", base_oid, NULL, NULL, &len, &st);
    CHECK(out && e2b_changes_parse_summary(out, len, 100, &s) == NULL);
    free(out);
    CHECK_STR_EQ(s.against, "base");
    CHECK_INT_EQ(s.commits, 2);
    e2b_changes_summary_clear(&s);
    /* More files than the box may list: cut. */
    prev_env = "";
    out = run("summary", base_oid, NULL, NULL, &len, &st);
    CHECK(out && e2b_changes_parse_summary(out, len, 2, &s) == NULL);
    free(out);
    CHECK(s.cut && s.count == 2);
    e2b_changes_summary_clear(&s);
    free(pulled);
    free(other);
}

static void test_parse_summary_hostile(void)
{
    e2b_changes_summary s;
    /* Huge counts are capped, bad blob ids and short records skipped, paths kept raw. */
    static const char odd[] = "E2B-TUI-CHANGES\tpulled\t0123456789abcdef0123456789abcdef01234567\0"
                              "K\t99999999999\0H\tM\tnothex\ta\0H\tM\t-\0H\tZ\t-\tev\033il\0"
                              "H\tA\t0123456789abcdef0123456789abcdef01234567\tok\0E2B-TUI-END\0";
    CHECK(e2b_changes_parse_summary(odd, sizeof odd - 1, 10, &s) == NULL);
    CHECK_INT_EQ(s.commits, E2B_CHANGES_COUNT_MAX);
    CHECK_INT_EQ(s.count, 2);
    CHECK(s.files[0].status == '?' && strcmp(s.files[0].raw, "ev\033il") == 0 && !s.files[0].blob[0]);
    CHECK(s.files[1].status == 'A' && s.files[1].blob[0] == '0');
    CHECK(!s.cut);
    e2b_changes_summary_clear(&s);
    /* No end record: cut; "-" commits: not known; no header: refused. */
    static const char cut[] = "E2B-TUI-CHANGES\thead\t0123456789abcdef0123456789abcdef01234567\0K\t-\0";
    CHECK(e2b_changes_parse_summary(cut, sizeof cut - 1, 10, &s) == NULL);
    CHECK(s.cut && s.commits == -1);
    e2b_changes_summary_clear(&s);
    e2b_error *e = e2b_changes_parse_summary("K\t1\0", 4, 10, &s);
    CHECK(e != NULL);
    e2b_error_free(e);
}

int main(void)
{
    gitfix_tmpdir();
    RUN(test_list);
    RUN(test_diff);
    RUN(test_cap_and_fallbacks);
    RUN(test_parse_hostile);
    RUN(test_summary);
    RUN(test_parse_summary_hostile);
    free(base_oid);
    gitfix_cleanup();
    return harness_finish();
}
