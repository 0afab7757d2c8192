/* git_tool: drives the local git/archive modules from shell tests, the way the box step
 * machines will (upload stream out, bundle stream in), without any network.
 *
 *   git_tool info DIR                      branch, box name, head, workdir
 *   git_tool list DIR                      the upload list, one path a line
 *   git_tool upload DIR [LEVEL]            the upload tar.gz on stdout
 *   git_tool pull-run LOCAL BOXDIR BASE PREV NAME
 *                                          runs the pull script with bash in BOXDIR as the
 *                                          local repo's user; prints the parsed result line
 *   git_tool import REPO BRANCH [--force]  bundle on stdin -> refs/heads/BRANCH
 *
 * Exit status: 0 ok, 1 failure, 2 usage, 5 diverged (as the one-shot CLI will). */
#include "core/git/bundle.h"
#include "core/git/gitwork.h"
#include "core/git/pull_script.h"
#include "core/git/tarball.h"
#include "core/git/upload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Prints and frees e (a NULL e is a failure without a message). */
static int die_owned(e2b_error *e)
{
    fprintf(stderr, "git_tool: %s\n", e ? e2b_error_message(e) : "failed");
    int rc = e2b_error_sub_of(e) == E2B_SUB_DIVERGED ? 5 : 1;
    e2b_error_free(e);
    return rc;
}

static int die_kept(const e2b_error *e)
{
    return die_owned(e ? e2b_error_copy(e) : NULL);
}

static int cmd_info(const char *dir)
{
    e2b_gitwork *g;
    e2b_gitwork_head h;
    e2b_error *e = e2b_gitwork_open(&g, dir, 0);
    if (e)
        return die_owned(e);
    e = e2b_gitwork_head_info(g, &h);
    if (!e) {
        char name[E2B_GITWORK_BOX_NAME_MAX + 1];
        e2b_gitwork_default_box_name(&h, name, sizeof name);
        static const char *kinds[] = {"branch", "detached", "unborn"};
        printf("kind %s\nbranch %s\nbox %s\nhead %s\nworkdir %s\n", kinds[h.kind], h.branch,
               name, h.oid, e2b_gitwork_workdir(g));
    }
    e2b_gitwork_close(g);
    return !e ? 0 : die_owned(e);
}

static int cmd_list(const char *dir)
{
    e2b_gitwork *g;
    e2b_gitwork_filelist l;
    e2b_error *e = e2b_gitwork_open(&g, dir, 0);
    if (e)
        return die_owned(e);
    e = e2b_gitwork_list_files(g, &l);
    e2b_gitwork_close(g);
    if (e)
        return die_owned(e);
    for (size_t i = 0; i < l.count; i++)
        printf("%s\n", l.paths[i]);
    e2b_gitwork_filelist_free(&l);
    return 0;
}

static int cmd_upload(const char *dir, int level)
{
    e2b_gitwork *g;
    e2b_error *e = e2b_gitwork_open(&g, dir, 0);
    if (e)
        return die_owned(e);
    e2b_gitwork_filelist l;
    e = e2b_gitwork_list_files(g, &l);
    if (!e)
        for (size_t i = 0; i < l.nsubmodules; i++)
            fprintf(stderr, "git_tool: submodule %s is not uploaded\n", l.submodules[i]);
    e2b_gitwork_filelist_free(&l);
    e2b_error_free(e); /* the upload says it again */
    e2b_upload_set up = {0};
    e = e2b_upload_prepare(g, level, E2B_UPLOAD_ONE_ARCHIVE, NULL, &up);
    e2b_gitwork_close(g);
    if (e)
        return die_owned(e);
    e2b_tarball *t = up.gz;
    char buf[65536];
    ssize_t n;
    while ((n = e2b_tarball_read(t, buf, sizeof buf)) > 0)
        if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
            break;
    e2b_tarball_progress p;
    e2b_tarball_get_progress(t, &p);
    fprintf(stderr, "git_tool: files %llu/%llu bytes %llu/%llu out %llu peak %zu\n",
            (unsigned long long)p.files_done, (unsigned long long)p.files_total,
            (unsigned long long)p.bytes_done, (unsigned long long)p.bytes_total,
            (unsigned long long)p.out_bytes, p.peak_buffer);
    int status = 0;
    if (n < 0)
        status = die_kept(e2b_tarball_error(t));
    e2b_tarball_free(t);
    return fflush(stdout) == 0 ? status : 1;
}

static int cmd_pull_run(const char *local, const char *boxdir, const char *base,
                        const char *prev, const char *name)
{
    e2b_gitwork *g;
    char *uname = NULL, *uemail = NULL;
    e2b_error *e = e2b_gitwork_open(&g, local, 0);
    if (e)
        return die_owned(e);
    e = e2b_gitwork_user(g, &uname, &uemail);
    e2b_gitwork_close(g);
    if (e)
        return die_owned(e);
    e2b_pull_script_params p = {.dir = boxdir, .base = base, .prev = prev, .box_name = name,
                            .user_name = uname, .user_email = uemail};
    e2b_pull_script_var *vars;
    size_t nv;
    e = e2b_pull_script_env(&p, &vars, &nv);
    free(uname);
    free(uemail);
    if (e)
        return die_owned(e);
    int fds[2];
    if (pipe(fds) != 0)
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        /* The box runs the script with only these variables (and a PATH). */
        clearenv();
        setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 1);
        for (size_t i = 0; i < nv; i++)
            setenv(vars[i].name, vars[i].value, 1);
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl("/bin/bash", "bash", "-c", e2b_pull_script_text(), "e2b-tui-pull", (char *)NULL);
        _exit(127);
    }
    e2b_pull_script_env_free(vars, nv);
    close(fds[1]);
    char out[65536];
    size_t len = 0;
    ssize_t r;
    while (len < sizeof out - 1 && (r = read(fds[0], out + len, sizeof out - 1 - len)) > 0)
        len += (size_t)r;
    close(fds[0]);
    waitpid(pid, NULL, 0);
    e2b_pull_script_result res;
    if ((e = e2b_pull_script_parse_output(out, len, &res)))
        return die_owned(e);
    if (res.kind == E2B_PULL_SCRIPT_NOWORK)
        printf("nowork %s\n", res.commit);
    else
        printf("bundle %s %s %llu %s\n", res.commit, res.full ? "full" : "thin",
               (unsigned long long)res.size, res.path);
    free(res.path);
    return 0;
}

static int cmd_import(const char *repo, const char *branch, int force)
{
    e2b_gitwork *g;
    e2b_bundle_import *bi;
    e2b_error *e = e2b_gitwork_open(&g, repo, 0);
    if (e)
        return die_owned(e);
    if ((e = e2b_bundle_import_new(&bi, g, NULL, NULL))) {
        e2b_gitwork_close(g);
        return die_owned(e);
    }
    /* fed in download-sized pieces as they arrive */
    char buf[16384];
    size_t n;
    const e2b_error *failed = NULL;
    while (!failed && (n = fread(buf, 1, sizeof buf, stdin)) > 0)
        failed = e2b_bundle_import_write(bi, buf, n);
    char oid[41];
    e2b_gitwork_branch_outcome oc = E2B_GITWORK_BRANCH_CREATED;
    if (!failed)
        failed = e2b_bundle_import_finish_branch(bi, E2B_PULL_SCRIPT_REF, branch, force, &oc, oid);
    int status = 0;
    if (failed)
        status = die_kept(failed);
    else
        printf("%s %s %s\n", e2b_gitwork_branch_outcome_name(oc), branch, oid);
    e2b_bundle_import_free(bi);
    e2b_gitwork_close(g);
    return status;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "info"))
        return cmd_info(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "list"))
        return cmd_list(argv[2]);
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "upload"))
        return cmd_upload(argv[2], argc == 4 ? atoi(argv[3]) : 0);
    if (argc == 7 && !strcmp(argv[1], "pull-run"))
        return cmd_pull_run(argv[2], argv[3], argv[4], argv[5], argv[6]);
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "import"))
        return cmd_import(argv[2], argv[3], argc == 5 && !strcmp(argv[4], "--force"));
    fprintf(stderr, "usage: git_tool info|list|upload|pull-run|import ...\n");
    return 2;
}
