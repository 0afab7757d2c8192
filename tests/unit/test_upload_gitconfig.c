/* core/git/upload_gitconfig.h and e2b_upload_git_entry: what of a project's git configuration
 * and .git a box receives. The rewritten config is read back by git itself. */
#include "core/git/upload_gitconfig.h"
#include "core/git/upload_split.h"
#include "tests/lib/gitfix.h"
#include "tests/lib/harness.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_clean(const char *in, const char *want, int *ok)
{
    char *got = e2b_upload_gitconfig_clean_url(in);
    if (!got || strcmp(got, want) != 0) {
        fprintf(stderr, "clean(%s) = %s, want %s\n", in, got ? got : "(null)", want);
        *ok = 0;
    }
    free(got);
}

static void test_clean_url(void)
{
    int ok = 1;
    check_clean("https://x-access-token:ghp_abc@github.com/o/r.git", "https://github.com/o/r.git", &ok);
    check_clean("https://ghp_abc@github.com/o/r.git", "https://github.com/o/r.git", &ok);
    check_clean("HTTPS://u:p@Host:8443/r", "HTTPS://Host:8443/r", &ok);
    check_clean("https://h/r.git?token=abc#frag", "https://h/r.git", &ok);
    check_clean("ssh://git:pw@h:22/r", "ssh://h:22/r", &ok);
    check_clean("git@github.com:o/r.git", "git@github.com:o/r.git", &ok);
    check_clean("/srv/git/r.git", "/srv/git/r.git", &ok);
    check_clean("file:///srv/r", "file:///srv/r", &ok);
    check_clean("see https://a:b@h/x and ftp://c@d/y", "see https://h/x and ftp://d/y", &ok);
    check_clean("https://a@b@h/x", "https://h/x", &ok); /* the last @ ends the user info */
    check_clean("://x@y", "://x@y", &ok);                 /* no scheme: not a URL */
    check_clean("", "", &ok);
    CHECK(ok);
}

static void test_git_entries(void)
{
    CHECK_INT_EQ(e2b_upload_git_entry("config"), E2B_UPLOAD_GIT_REWRITE);
    CHECK_INT_EQ(e2b_upload_git_entry("config.worktree"), E2B_UPLOAD_GIT_REWRITE);
    const char *sent[] = {"HEAD", "index", "shallow", "hooks", "info", "MERGE_HEAD",
                          "rebase-merge", "BISECT_LOG"};
    for (size_t i = 0; i < sizeof sent / sizeof *sent; i++)
        CHECK_MSG(e2b_upload_git_entry(sent[i]) == E2B_UPLOAD_GIT_SEND, "%s not sent", sent[i]);
    const char *history[] = {"objects", "refs", "packed-refs"};
    for (size_t i = 0; i < sizeof history / sizeof *history; i++)
        CHECK_MSG(e2b_upload_git_entry(history[i]) == E2B_UPLOAD_GIT_HISTORY, "%s not history", history[i]);
    const char *kept[] = {"credentials", "FETCH_HEAD", "modules", "worktrees", "lfs",
                          "e2b-tui-import.lock", "git-credentials", "cookies.txt", "configx",
                          "HEAD.lock", "logs", "ORIG_HEAD", "reftable", ""};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        CHECK_MSG(e2b_upload_git_entry(kept[i]) == E2B_UPLOAD_GIT_KEEP, "%s sent", kept[i]);
}

static char *rewrite(const char *repo)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/.git/config", gitfix_tmpdir(), repo);
    char *out = NULL;
    size_t len = 0;
    e2b_error *err = NULL;
    int rc = gitfix_sub(&err, e2b_upload_gitconfig(path, &out, &len));
    if (rc != 0)
        fprintf(stderr, "e2b_upload_gitconfig: %s\n", e2b_error_message(err));
    e2b_error_free(err);
    if (out && strlen(out) != len) {
        free(out);
        return NULL;
    }
    return out;
}

static void test_rewrite_read_back_by_git(void)
{
    CHECK(gitfix_sh(
              "git init -q -b main r && cd r && "
              "git remote add origin https://tok:SECRET1@example.invalid/o/r.git && "
              "git config branch.main.remote origin && git config branch.main.merge refs/heads/main && "
              "git config branch.main.description 'say \"hi\" \\\\ to https://u:SECRET2@h/x' && "
              "git config remote.origin.receivepack 'SECRET3-cmd' && "
              "git config http.extraheader 'AUTHORIZATION: basic SECRET4' && "
              "git config credential.helper SECRET5 && git config core.editor SECRET6 && "
              "git config core.hooksPath /abs/SECRET7 && git config core.ignorecase true && "
              "git config merge.tool vimdiff && git config merge.ours.driver SECRET8 && "
              "git config diff.external SECRET9 && git config commit.gpgSign true && "
              "git config pull.githubToken SECRET18 && git config push.passphrase SECRET19 && "
              "git config user.name 'Zoë' && git config user.signingkey SECRET10 && "
              "git config alias.x '!SECRET11' && git config lfs.url https://SECRET12@h && "
              "git config 'remote.we\"ird\\\\.name.url' https://SECRET13@h/w && "
              "printf '[user]\\n\\temail = SECRET14\\n' > ../inc && git config include.path ../inc && "
              "git config 'remote.https://ci:SECRET15@h/s.git.url' https://h/s.git && "
              "git config branch.side.remote 'https://ci:SECRET15@h/s.git' && "
              "git config 'submodule.https://SECRET16@h/m?sig=SECRET17.url' ../m && "
              "printf '[core]\\n\\tbare\\n' >> .git/config") == 0);
    char *text = rewrite("r");
    CHECK(text != NULL);
    char *hit = strstr(text, "SECRET");
    CHECK_MSG(hit == NULL, "a secret is in the rewrite: %.40s", hit);
    /* git itself parses the rewrite and sees what the agent needs */
    char out[512];
    snprintf(out, sizeof out, "%s/rewritten", gitfix_tmpdir());
    FILE *w = fopen(out, "w");
    CHECK(w != NULL);
    fputs(text, w);
    fclose(w);
    free(text);
    char *url = gitfix_out("git config -f rewritten remote.origin.url");
    char *merge = gitfix_out("git config -f rewritten branch.main.merge");
    char *desc = gitfix_out("git config -f rewritten branch.main.description");
    char *weird = gitfix_out("git config -f rewritten 'remote.we\"ird\\\\.name.url'");
    char *name = gitfix_out("git config -f rewritten user.name");
    /* section names lose their user info like values do, and still match each other */
    char *named = gitfix_out("git config -f rewritten remote.https://h/s.git.url");
    char *side = gitfix_out("git config -f rewritten branch.side.remote");
    char *sub = gitfix_out("git config -f rewritten submodule.https://h/m.url");
    char *tool = gitfix_out("git config -f rewritten merge.tool");
    char *ic = gitfix_out("git config -f rewritten core.ignorecase");
    char *bare = gitfix_out("git config -f rewritten --type=bool core.bare");
    char *sections = gitfix_out("git config -f rewritten --name-only --list | cut -d. -f1 | "
                                "sort -u | tr '\\n' ' '");
    CHECK_STR_EQ(url, "https://example.invalid/o/r.git");
    CHECK_STR_EQ(merge, "refs/heads/main");
    CHECK_STR_EQ(desc, "say \"hi\" \\\\ to https://h/x");
    CHECK_STR_EQ(weird, "https://h/w");
    CHECK_STR_EQ(name, "Zoë");
    CHECK_STR_EQ(named, "https://h/s.git");
    CHECK_STR_EQ(side, "https://h/s.git");
    CHECK_STR_EQ(sub, "../m");
    CHECK_STR_EQ(tool, "vimdiff");
    CHECK_STR_EQ(ic, "true");
    CHECK_STR_EQ(bare, "true");
    CHECK_STR_EQ(sections, "branch core merge remote submodule user ");
    free(url); free(merge); free(desc); free(weird); free(name); free(tool); free(ic);
    free(bare); free(sections); free(named); free(side); free(sub);
}

static void test_unreadable_config(void)
{
    CHECK(gitfix_sh("mkdir -p bad/.git && printf '[core\\n' > bad/.git/config") == 0);
    char path[512];
    snprintf(path, sizeof path, "%s/bad/.git/config", gitfix_tmpdir());
    char *out = NULL;
    size_t len = 0;
    e2b_error *err = NULL;
    CHECK_INT_EQ(gitfix_sub(&err, e2b_upload_gitconfig(path, &out, &len)), E2B_SUB_FILE_IO);
    CHECK(out == NULL);
    CHECK(strstr(e2b_error_message(err), ".git/config") != NULL);
    e2b_error_free(err);
}

int main(void)
{
    git_libgit2_init();
    gitfix_tmpdir();
    RUN(test_clean_url);
    RUN(test_git_entries);
    RUN(test_rewrite_read_back_by_git);
    RUN(test_unreadable_config);
    gitfix_cleanup();
    git_libgit2_shutdown();
    return harness_finish();
}
