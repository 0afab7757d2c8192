#include "core/git/gitwork.h"
#include "core/util/strvec.h"

#include <git2.h>

#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct e2b_gitwork {
    git_repository *repo;
    char *workdir; /* absolute, no trailing slash */
};

e2b_error *e2b_gitwork_git_error(e2b_error_sub code, const char *what)
{
    const git_error *e = git_error_last();
    return e2b_error_local(code, "%s: %s", what, e && e->message ? e->message : "unknown error");
}

/* libgit2 frees a thread's error state when the thread ends, but only while libgit2 is
 * initialised: a final git_libgit2_shutdown on one thread (a worker closing its handle)
 * orphans the state of every other thread still running. So the first open takes one
 * reference that is released only at exit, on the main thread, after the workers ended. */
static pthread_once_t hold_once = PTHREAD_ONCE_INIT;
static void release_hold(void) { git_libgit2_shutdown(); }
static void take_hold(void)
{
    if (git_libgit2_init() > 0)
        atexit(release_hold);
}

e2b_error *e2b_gitwork_open(e2b_gitwork **out, const char *dir, unsigned flags)
{
    *out = NULL;
    pthread_once(&hold_once, take_hold);
    if (git_libgit2_init() < 0)
        return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot initialise libgit2");
    if (flags & E2B_GITWORK_ALLOW_FOREIGN_OWNER)
        git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);

    git_repository *repo = NULL;
    int rc = git_repository_open_ext(&repo, dir, 0, NULL);
    if (rc == GIT_ENOTFOUND || rc == GIT_EOWNER) {
        /* libgit2 1.5.1 reports a refused owner as ENOTFOUND ("config value
         * 'safe.directory' was not found"); discovery does not check the owner, so a
         * repository it finds was refused for its owner. */
        git_buf found = {0};
        int disc = git_repository_discover(&found, dir, 0, NULL);
        e2b_error *e =
            disc == 0 ? e2b_error_local(E2B_SUB_FOREIGN_OWNER,
                                        "repository %s is owned by another user; if you trust it, "
                                        "run 'git config --global --add safe.directory <its work "
                                        "tree>'",
                                        found.ptr)
                      : e2b_error_local(E2B_SUB_NOT_REPO,
                                        "not a git repository (or any parent directory): %s", dir);
        git_buf_dispose(&found);
        git_error_clear();
        git_libgit2_shutdown();
        return e;
    }
    if (rc < 0) {
        e2b_error *e = e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot open repository");
        git_libgit2_shutdown();
        return e;
    }
    const char *wd = git_repository_workdir(repo);
    if (!wd) {
        git_repository_free(repo);
        git_libgit2_shutdown();
        return e2b_error_local(E2B_SUB_FAILED, "%s is a bare repository: a box needs a work tree",
                               dir);
    }
    e2b_gitwork *g = calloc(1, sizeof *g);
    char *w = strdup(wd);
    if (!g || !w) {
        free(g);
        free(w);
        git_repository_free(repo);
        git_libgit2_shutdown();
        return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    }
    size_t n = strlen(w);
    while (n > 1 && w[n - 1] == '/')
        w[--n] = '\0';
    g->repo = repo;
    g->workdir = w;
    *out = g;
    return NULL;
}

void e2b_gitwork_close(e2b_gitwork *g)
{
    if (!g)
        return;
    git_repository_free(g->repo);
    free(g->workdir);
    free(g);
    git_libgit2_shutdown();
}

struct git_repository *e2b_gitwork_repo(e2b_gitwork *g) { return g->repo; }

const char *e2b_gitwork_workdir(const e2b_gitwork *g) { return g->workdir; }

static e2b_error *copy_branch(e2b_gitwork_head *out, const char *refname)
{
    const char *p = strncmp(refname, "refs/heads/", 11) == 0 ? refname + 11 : refname;
    if (strlen(p) >= sizeof out->branch)
        return e2b_error_local(E2B_SUB_FAILED, "branch name is too long (%zu bytes)", strlen(p));
    strcpy(out->branch, p);
    return NULL;
}

e2b_error *e2b_gitwork_head_info(e2b_gitwork *g, e2b_gitwork_head *out)
{
    memset(out, 0, sizeof *out);
    git_reference *head = NULL;
    int rc = git_repository_head(&head, g->repo);
    if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND) {
        /* HEAD is symbolic and its branch has no commit: read the name it points to. */
        git_reference *sym = NULL;
        if (git_reference_lookup(&sym, g->repo, "HEAD") < 0)
            return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot read HEAD");
        const char *target = git_reference_symbolic_target(sym);
        e2b_error *e = target ? copy_branch(out, target)
                              : e2b_error_local(E2B_SUB_FAILED, "HEAD is neither a branch nor a commit");
        git_reference_free(sym);
        out->kind = E2B_GITWORK_HEAD_UNBORN;
        return e;
    }
    if (rc < 0)
        return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot read HEAD");
    const git_oid *oid = git_reference_target(head);
    if (oid)
        git_oid_tostr(out->oid, sizeof out->oid, oid);
    e2b_error *e = NULL;
    if (git_repository_head_detached(g->repo) == 1) {
        out->kind = E2B_GITWORK_HEAD_DETACHED;
    } else {
        out->kind = E2B_GITWORK_HEAD_BRANCH;
        e = copy_branch(out, git_reference_name(head));
    }
    git_reference_free(head);
    return e;
}

static int name_byte_ok(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
}

static void trim_edges(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '-' || s[n - 1] == '.'))
        s[--n] = '\0';
    size_t i = 0;
    while (s[i] == '-' || s[i] == '.')
        i++;
    memmove(s, s + i, n - i + 1);
}

/* Latin-1 letters (U+00C0..U+00FF) as ASCII, so that "feat/ünï" is "feat-uni", not a
 * name with its letters silently dropped; NULL for the two signs (× and ÷). */
static const char *const LATIN1_ASCII[64] = {
    "A", "A", "A", "A", "A", "A", "AE", "C", "E", "E", "E", "E", "I", "I", "I", "I",
    "D", "N", "O", "O", "O", "O", "O", NULL, "O", "U", "U", "U", "U", "Y", "TH", "ss",
    "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
    "d", "n", "o", "o", "o", "o", "o", NULL, "o", "u", "u", "u", "u", "y", "th", "y",
};

/* The ASCII of the UTF-8 character at p (2 bytes of U+00C0..U+00FF), or NULL. */
static const char *latin1_ascii(const unsigned char *p)
{
    if ((p[0] == 0xC3) && (p[1] & 0xC0) == 0x80)
        return LATIN1_ASCII[(p[1] & 0x3F)];
    return NULL;
}

void e2b_gitwork_sanitize_box_name(const char *in, char *out, size_t outsz)
{
    char buf[E2B_GITWORK_BOX_NAME_MAX * 4 + 8];
    size_t n = 0;
    /* Build at most a little more than the cap; the tail is cut anyway. */
    for (const unsigned char *p = (const unsigned char *)in; *p && n < sizeof buf - 4; p++) {
        const char *t = latin1_ascii(p);
        if (t) {
            for (; *t && n < sizeof buf - 1; t++)
                buf[n++] = *t;
            p++; /* the character's second byte */
            continue;
        }
        char c = name_byte_ok(*p) ? (char)*p : '-';
        if (n > 0 && (c == '-' || c == '.') && buf[n - 1] == c)
            continue;
        buf[n++] = c;
    }
    buf[n] = '\0';
    trim_edges(buf);
    n = strlen(buf);
    if (n >= 5 && strcmp(buf + n - 5, ".lock") == 0)
        buf[n - 5] = '-';
    if (strlen(buf) > E2B_GITWORK_BOX_NAME_MAX)
        buf[E2B_GITWORK_BOX_NAME_MAX] = '\0';
    trim_edges(buf);
    if (!buf[0])
        strcpy(buf, "box");
    snprintf(out, outsz, "%s", buf);
}

int e2b_gitwork_box_name_valid(const char *name)
{
    if (!name || !name[0] || strlen(name) > E2B_GITWORK_BOX_NAME_MAX)
        return 0;
    char s[E2B_GITWORK_BOX_NAME_MAX + 1];
    e2b_gitwork_sanitize_box_name(name, s, sizeof s);
    return strcmp(s, name) == 0;
}

void e2b_gitwork_default_box_name(const e2b_gitwork_head *h, char *out, size_t outsz)
{
    if (h->kind == E2B_GITWORK_HEAD_DETACHED) {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "detached-%.7s", h->oid);
        e2b_gitwork_sanitize_box_name(tmp, out, outsz);
    } else {
        e2b_gitwork_sanitize_box_name(h->branch, out, outsz);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

e2b_error *e2b_gitwork_list_files(e2b_gitwork *g, e2b_gitwork_filelist *out)
{
    memset(out, 0, sizeof *out);
    e2b_strvec files = {0}, subs = {0};
    git_status_list *sl = NULL;
    char *full = NULL;
    e2b_error *err = NULL;

    /* A linked worktree or --separate-git-dir has a ".git" file; its objects live
     * elsewhere, so an upload of the work tree would not carry a usable repository. */
    size_t wl = strlen(g->workdir);
    full = malloc(wl + 4097 + 2);
    if (!full)
        return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    struct stat st;
    snprintf(full, wl + 4097 + 2, "%s/.git", g->workdir);
    if (lstat(full, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(full);
        return e2b_error_local(E2B_SUB_FAILED,
                               "%s has no .git directory (a linked worktree or separate git "
                               "dir): only ordinary repositories can be uploaded",
                               g->workdir);
    }

    /* NB: STATUS_OPTIONS_INIT has flags 0; OPT_DEFAULTS would include ignored files. */
    git_status_options o;
    git_status_options_init(&o, GIT_STATUS_OPTIONS_VERSION);
    o.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    o.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
              GIT_STATUS_OPT_INCLUDE_UNMODIFIED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    if (git_status_list_new(&sl, g->repo, &o) < 0) {
        err = e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot list the repository's files");
        goto out;
    }
    size_t n = git_status_list_entrycount(sl);
    for (size_t i = 0; i < n; i++) {
        const git_status_entry *e = git_status_byindex(sl, i);
        if (e->status & (GIT_STATUS_WT_DELETED | GIT_STATUS_IGNORED))
            continue;
        const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
        if (!d || !d->new_file.path)
            continue;
        const char *path = d->new_file.path;
        if (strlen(path) > 4096)
            continue;
        /* Staged deletions and the like: upload only what exists in the work tree. */
        snprintf(full, wl + 4097 + 2, "%s/%s", g->workdir, path);
        if (lstat(full, &st) != 0)
            continue;
        if (e2b_strvec_push(&files, path) < 0) {
            err = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
            goto out;
        }
    }
    if (files.n > 1)
        qsort(files.v, files.n, sizeof *files.v, cmp_str);
    if (e2b_strvec_push(&files, ".git") < 0) {
        err = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
        goto out;
    }

    /* Submodules are the index's gitlink entries (git_submodule_foreach would also work
     * but leaks pcre2 match data in libgit2 1.5.1). */
    git_index *idx = NULL;
    if (git_repository_index(&idx, g->repo) < 0) {
        err = e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot read the index");
        goto out;
    }
    size_t ni = git_index_entrycount(idx);
    for (size_t i = 0; i < ni; i++) {
        const git_index_entry *ie = git_index_get_byindex(idx, i);
        if (ie && ie->mode == GIT_FILEMODE_COMMIT && git_index_entry_stage(ie) == 0 &&
            e2b_strvec_push(&subs, ie->path) < 0) {
            err = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
            break;
        }
    }
    git_index_free(idx);

out:
    free(full);
    git_status_list_free(sl);
    out->paths = files.v;
    out->count = files.n;
    out->submodules = subs.v;
    out->nsubmodules = subs.n;
    if (err)
        e2b_gitwork_filelist_free(out);
    return err;
}

void e2b_gitwork_filelist_free(e2b_gitwork_filelist *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++)
        free(l->paths[i]);
    for (size_t i = 0; i < l->nsubmodules; i++)
        free(l->submodules[i]);
    free(l->paths);
    free(l->submodules);
    memset(l, 0, sizeof *l);
}

static e2b_error *config_string(git_config *cfg, const char *key, char **out)
{
    git_buf b = {0};
    int rc = git_config_get_string_buf(&b, cfg, key);
    if (rc == GIT_ENOTFOUND) {
        git_error_clear();
        return NULL;
    }
    if (rc < 0)
        return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot read git config");
    *out = strdup(b.ptr);
    git_buf_dispose(&b);
    return *out ? NULL : e2b_error_local(E2B_SUB_NOMEM, "out of memory");
}

e2b_error *e2b_gitwork_user(e2b_gitwork *g, char **name, char **email)
{
    *name = *email = NULL;
    git_config *cfg = NULL;
    if (git_repository_config_snapshot(&cfg, g->repo) < 0)
        return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot read git config");
    e2b_error *e = config_string(cfg, "user.name", name);
    if (!e)
        e = config_string(cfg, "user.email", email);
    git_config_free(cfg);
    if (e) {
        free(*name);
        free(*email);
        *name = *email = NULL;
    }
    return e;
}

const char *e2b_gitwork_branch_outcome_name(e2b_gitwork_branch_outcome o)
{
    switch (o) {
    case E2B_GITWORK_BRANCH_CREATED: return "created";
    case E2B_GITWORK_BRANCH_FAST_FORWARDED: return "fast-forwarded";
    case E2B_GITWORK_BRANCH_UP_TO_DATE: return "no new work";
    case E2B_GITWORK_BRANCH_FORCED: return "forced";
    }
    return "?";
}

e2b_error *e2b_gitwork_branch_tip(e2b_gitwork *g, const char *branch, char oid_out[41])
{
    oid_out[0] = '\0';
    char refname[512];
    int valid = 0;
    if (!branch[0] ||
        snprintf(refname, sizeof refname, "refs/heads/%s", branch) >= (int)sizeof refname ||
        git_reference_name_is_valid(&valid, refname) < 0 || !valid)
        return e2b_error_local(E2B_SUB_BAD_ARG, "invalid branch name '%s'", branch);
    git_oid oid;
    int rc = git_reference_name_to_id(&oid, g->repo, refname);
    if (rc == GIT_ENOTFOUND) {
        git_error_clear();
        return NULL;
    }
    if (rc < 0)
        return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot read the branch");
    git_oid_tostr(oid_out, GIT_OID_HEXSZ + 1, &oid);
    return NULL;
}

e2b_error *e2b_gitwork_update_branch(e2b_gitwork *g, const char *branch, const char *oid_hex,
                                     int force, e2b_gitwork_branch_outcome *outcome)
{
    char refname[512];
    int valid = 0;
    if (snprintf(refname, sizeof refname, "refs/heads/%s", branch) >= (int)sizeof refname ||
        git_reference_name_is_valid(&valid, refname) < 0 || !valid || !branch[0])
        return e2b_error_local(E2B_SUB_BAD_ARG, "invalid branch name '%s'", branch);

    git_oid oid;
    if (strlen(oid_hex) != GIT_OID_HEXSZ || git_oid_fromstr(&oid, oid_hex) < 0)
        return e2b_error_local(E2B_SUB_BAD_ARG, "invalid commit id '%s'", oid_hex);
    git_commit *commit = NULL;
    if (git_commit_lookup(&commit, g->repo, &oid) < 0)
        return e2b_gitwork_git_error(E2B_SUB_FAILED, "commit not found in the repository");
    git_commit_free(commit);

    git_reference *ref = NULL, *newref = NULL;
    int rc = git_reference_lookup(&ref, g->repo, refname);
    char msg[600];
    if (rc == GIT_ENOTFOUND) {
        snprintf(msg, sizeof msg, "e2b-tui: create %s", branch);
        if (git_reference_create(&newref, g->repo, refname, &oid, 0, msg) < 0)
            return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot create the branch");
        git_reference_free(newref);
        *outcome = E2B_GITWORK_BRANCH_CREATED;
        return NULL;
    }
    if (rc < 0)
        return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot read the branch");

    git_reference *resolved = NULL;
    if (git_reference_resolve(&resolved, ref) < 0) {
        git_reference_free(ref);
        return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot resolve the branch");
    }
    git_reference_free(ref);
    if (git_reference_type(resolved) != GIT_REFERENCE_DIRECT ||
        strcmp(git_reference_name(resolved), refname) != 0) {
        git_reference_free(resolved);
        return e2b_error_local(E2B_SUB_FAILED, "%s is a symbolic reference; not changing it", refname);
    }
    git_oid old = *git_reference_target(resolved);
    git_reference_free(resolved);

    if (git_oid_equal(&old, &oid)) {
        *outcome = E2B_GITWORK_BRANCH_UP_TO_DATE;
        return NULL;
    }
    int desc = git_graph_descendant_of(g->repo, &oid, &old);
    if (desc < 0)
        return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot compare commits");
    e2b_gitwork_branch_outcome oc = E2B_GITWORK_BRANCH_FAST_FORWARDED;
    if (!desc) {
        int contained = git_graph_descendant_of(g->repo, &old, &oid);
        if (contained < 0)
            return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot compare commits");
        if (contained) {
            *outcome = E2B_GITWORK_BRANCH_UP_TO_DATE;
            return NULL;
        }
        if (!force) {
            char o[GIT_OID_HEXSZ + 1];
            git_oid_tostr(o, sizeof o, &old);
            return e2b_error_local(E2B_SUB_DIVERGED,
                                   "branch %s (at %.12s) has diverged: it has commits the box's work (%.12s) "
                                   "does not contain; nothing was changed (use --force to "
                                   "overwrite it)",
                                   branch, o, oid_hex);
        }
        oc = E2B_GITWORK_BRANCH_FORCED;
    }
    /* Moving the checked-out branch would change HEAD's commit under the work tree. */
    git_reference *cur = NULL;
    if (git_reference_lookup(&cur, g->repo, refname) == 0) {
        int co = git_branch_is_checked_out(cur);
        git_reference_free(cur);
        if (co == 1)
            return e2b_error_local(E2B_SUB_CHECKED_OUT,
                                   "branch %s is checked out here; switch to another branch "
                                   "before pulling",
                                   branch);
    }
    snprintf(msg, sizeof msg, "e2b-tui: %s %s", oc == E2B_GITWORK_BRANCH_FORCED ? "force-update" : "fast-forward", branch);
    if (git_reference_create_matching(&newref, g->repo, refname, &oid, 1, &old, msg) < 0)
        return e2b_gitwork_git_error(E2B_SUB_FAILED, "cannot update the branch");
    git_reference_free(newref);
    *outcome = oc;
    return NULL;
}
