/* Fuzz target: the bundle import (bundle_import_* in core/git/bundle.h), header and pack, into a
 * real scratch repository, the way `pull` uses it (want_ref E2B_PULL_SCRIPT_REF, branch e2b/fuzz).
 *
 * The repository is made once per process: one commit "one" (file a = "one\n", author and
 * committer "f <f@f>" at 1700000000 +0000, the same commit tests/fuzz/make_seeds.py makes
 * with git, so thin seed bundles find their prerequisite) on main, which HEAD points to, and
 * refs/tags/t. Before each input, a data-derived choice either leaves refs/heads/e2b/fuzz
 * absent or points it at that commit (to reach fast-forward, up-to-date and diverged); the
 * input is fed in two writes split at a data-derived offset; force is data-derived too.
 *
 * Invariants:
 *  - never a crash, leak or sanitizer report;
 *  - every ref other than refs/heads/e2b/fuzz, and HEAD, is unchanged, whatever the bundle
 *    names (refs/heads/main, HEAD, refs/tags/..., "../" paths are never written);
 *  - a rejected input (bad header or pack, missing prerequisite, no such ref, incomplete
 *    history, trees nested deeper than the cap, a diverged or checked-out branch) leaves
 *    e2b/fuzz where it was and no new file or directory in objects/ (no pack, index,
 *    temporary file or quarantine);
 *  - trees are checked against a depth cap of 64 (limit.tree_depth), low enough for
 *    inputs of the fuzzer's size to cross it; packs against limit.object_bytes 64K,
 *    limit.inflated_bytes 1M and limit.delta_depth 16 for the same reason (seeds bomb_*,
 *    made by tests/fixtures/pack_bomb.py; a refusal is a rejection like any other);
 *  - an accepted input points e2b/fuzz at the reported commit, which is in the repository
 *    with its whole tree, and moves it only as the outcome says (created, fast-forwarded,
 *    up to date, forced);
 *  - the error code is one of those bundle.h documents, with a message.
 * Between inputs the packs an input added are deleted and e2b/fuzz is reset, so the
 * repository stays small and every input starts from the same state. */
#include "core/git/bundle.h"
#include "core/git/pull_script.h"
#include "tests/fuzz/fuzz_common.h"

#include <dirent.h>
#include <git2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BRANCH "e2b/fuzz"
#define BRANCH_REF "refs/heads/" BRANCH

static char repo_dir[256];
static char base_oid[41];

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            char sub[1024];
            snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
            remove_tree(sub);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void cleanup(void)
{
    if (repo_dir[0])
        remove_tree(repo_dir);
}

#define GIT_OK(expr) FUZZ_CHECK((expr) >= 0)

static void make_repo(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(repo_dir, sizeof repo_dir, "%s/fuzz-bundle-import-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    FUZZ_CHECK(mkdtemp(repo_dir) != NULL);
    atexit(cleanup);
    git_libgit2_init();
    git_repository *repo;
    git_oid blob, tree_id, commit_id;
    git_treebuilder *tb;
    git_tree *tree;
    git_signature *sig;
    git_object *target;
    git_reference *ref;
    git_repository_init_options o;
    GIT_OK(git_repository_init_options_init(&o, GIT_REPOSITORY_INIT_OPTIONS_VERSION));
    o.initial_head = "main";
    o.flags = GIT_REPOSITORY_INIT_MKPATH;
    GIT_OK(git_repository_init_ext(&repo, repo_dir, &o));
    GIT_OK(git_blob_create_from_buffer(&blob, repo, "one\n", 4));
    GIT_OK(git_treebuilder_new(&tb, repo, NULL));
    GIT_OK(git_treebuilder_insert(NULL, tb, "a", &blob, GIT_FILEMODE_BLOB));
    GIT_OK(git_treebuilder_write(&tree_id, tb));
    git_treebuilder_free(tb);
    GIT_OK(git_tree_lookup(&tree, repo, &tree_id));
    GIT_OK(git_signature_new(&sig, "f", "f@f", 1700000000, 0));
    GIT_OK(git_commit_create(&commit_id, repo, "refs/heads/main", sig, sig, NULL, "one\n", tree,
                             0, NULL));
    GIT_OK(git_object_lookup(&target, repo, &commit_id, GIT_OBJECT_COMMIT));
    GIT_OK(git_tag_create_lightweight(&commit_id, repo, "t", target, 0));
    GIT_OK(git_reference_lookup(&ref, repo, "refs/heads/main"));
    git_reference_free(ref);
    git_object_free(target);
    git_signature_free(sig);
    git_tree_free(tree);
    git_oid_tostr(base_oid, sizeof base_oid, &commit_id);
    git_repository_free(repo);
    /* A pack header may declare 4 billion objects; libgit2 then reserves a pointer per
     * object up front. Untouched, that costs nothing in the product, but under ASan each such
     * input takes a minute and gigabytes, which would stall the fuzzer, so it is capped here
     * (the cap only turns such inputs into an earlier "too many objects" rejection). */
    GIT_OK(git_libgit2_opts(GIT_OPT_SET_PACK_MAX_OBJECTS, (size_t)1 << 16));
    /* The init reference is kept: without it every e2b_gitwork_close would shut libgit2 down
     * and the next open set it up again, which costs more than an import. */
    if (getenv("FUZZ_BUNDLE_IMPORT_VERBOSE"))
        fprintf(stderr, "scratch repository %s, base commit %s\n", repo_dir, base_oid);
}

/* Appends "name target\n" for HEAD and every ref except e2b/fuzz, in iteration order. */
static int add_ref(git_reference *r, void *payload)
{
    fuzz_log *l = payload;
    const char *name = git_reference_name(r);
    char line[1200];
    if (strcmp(name, BRANCH_REF) != 0) {
        char oid[41] = "";
        if (git_reference_type(r) == GIT_REFERENCE_DIRECT)
            git_oid_tostr(oid, sizeof oid, git_reference_target(r));
        int n = snprintf(line, sizeof line, "%s %s%s\n", name, oid,
                         git_reference_type(r) == GIT_REFERENCE_SYMBOLIC
                             ? git_reference_symbolic_target(r)
                             : "");
        fuzz_log_put(l, line, (size_t)n);
    }
    git_reference_free(r);
    return 0;
}

static void snapshot_refs(git_repository *repo, fuzz_log *out)
{
    git_reference *head;
    GIT_OK(git_reference_lookup(&head, repo, "HEAD"));
    add_ref(head, out);
    GIT_OK(git_reference_foreach(repo, add_ref, out));
}

/* Every file name under objects/ except info/, one per line, sorted by the walk order of a
 * sorted scandir. */
static void list_objects(const char *dir, fuzz_log *out)
{
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort);
    FUZZ_CHECK(n >= 0);
    for (int i = 0; i < n; i++) {
        const char *name = ents[i]->d_name;
        if (strcmp(name, ".") && strcmp(name, "..") && strcmp(name, "info")) {
            char sub[1024];
            struct stat st;
            snprintf(sub, sizeof sub, "%s/%s", dir, name);
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
                fuzz_log_put(out, sub, strlen(sub)); /* a left-over quarantine shows */
                fuzz_log_put(out, "/\n", 2);
                list_objects(sub, out);
            } else {
                fuzz_log_put(out, sub, strlen(sub));
                fuzz_log_put(out, "\n", 1);
            }
        }
        free(ents[i]);
    }
    free(ents);
}

/* Deletes the files under objects/pack/ that are not in the listing before. */
static void drop_new_packs(const fuzz_log *before)
{
    char packdir[512];
    snprintf(packdir, sizeof packdir, "%s/.git/objects/pack", repo_dir);
    DIR *d = opendir(packdir);
    FUZZ_CHECK(d != NULL);
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[1024];
        int n = snprintf(path, sizeof path, "%s/%s\n", packdir, de->d_name);
        int known = 0;
        for (size_t i = 0; !known && i + (size_t)n <= before->n; i++)
            known = (i == 0 || before->p[i - 1] == '\n') && memcmp(before->p + i, path, (size_t)n) == 0;
        path[n - 1] = '\0';
        if (!known)
            unlink(path);
    }
    closedir(d);
}

static int branch_tip(git_repository *repo, char out[41])
{
    git_oid id;
    out[0] = '\0';
    if (git_reference_name_to_id(&id, repo, BRANCH_REF) < 0) {
        git_error_clear();
        return 0;
    }
    git_oid_tostr(out, 41, &id);
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!repo_dir[0])
        make_repo();
    size_t cut = fuzz_split_offset(data, size);
    int preset = (cut >> 1) & 1, force = cut & 1;

    e2b_gitwork *g = NULL;
    FUZZ_CHECK(e2b_gitwork_open(&g, repo_dir, 0) == NULL);
    git_repository *repo = e2b_gitwork_repo(g);
    if (preset) {
        git_oid id;
        git_reference *r;
        GIT_OK(git_oid_fromstr(&id, base_oid));
        GIT_OK(git_reference_create(&r, repo, BRANCH_REF, &id, 1, NULL));
        git_reference_free(r);
    }
    fuzz_log refs_before = {0}, objs_before = {0}, refs_after = {0}, objs_after = {0};
    char objdir[512], tip_before[41], tip_after[41], oid[41] = "";
    snprintf(objdir, sizeof objdir, "%s/.git/objects", repo_dir);
    snapshot_refs(repo, &refs_before);
    list_objects(objdir, &objs_before);
    branch_tip(repo, tip_before);

    e2b_bundle_import *bi = NULL;
    FUZZ_CHECK(e2b_bundle_import_new(&bi, g, NULL, NULL) == NULL);
    /* A tree depth cap that inputs of the fuzzer's size can reach and cross (the seeds
     * deep_trees_at_cap and deep_trees_over_cap sit on either side of it). */
    e2b_limits lim = e2b_limits_default();
    lim.tree_depth = 64;
    lim.object_bytes = 64 << 10;
    lim.inflated_bytes = 1 << 20;
    lim.delta_depth = 16;
    e2b_bundle_import_set_limits(bi, &lim);
    const e2b_error *w1 = e2b_bundle_import_write(bi, data, cut);
    const e2b_error *w2 = e2b_bundle_import_write(bi, data + cut, size - cut);
    FUZZ_CHECK(!w1 || w2 == w1); /* errors are sticky */
    e2b_gitwork_branch_outcome outcome = E2B_GITWORK_BRANCH_CREATED;
    const e2b_error *e = e2b_bundle_import_finish_branch(bi, E2B_PULL_SCRIPT_REF, BRANCH, force,
                                                         &outcome, oid);
    e2b_error_sub rc = e2b_error_sub_of(e);
    FUZZ_CHECK(!e || rc == E2B_SUB_BAD_BUNDLE || rc == E2B_SUB_MISSING_BASE || rc == E2B_SUB_NO_REF ||
               rc == E2B_SUB_DIVERGED || rc == E2B_SUB_CHECKED_OUT || rc == E2B_SUB_FAILED || rc == E2B_SUB_FILE_IO);
    FUZZ_CHECK(e == e2b_bundle_import_error(bi));
    FUZZ_CHECK(!e || e2b_error_message(e)[0] != '\0');
    if (getenv("FUZZ_BUNDLE_IMPORT_VERBOSE"))
        fprintf(stderr, "preset %d force %d: %s\n", preset, force,
                !e ? e2b_gitwork_branch_outcome_name(outcome) : e2b_error_message(e));
    int failed = e != NULL; /* e is the importer's: gone with it */
    e2b_bundle_import_free(bi);

    /* Look again through a fresh handle: what a later `git` would see. */
    e2b_gitwork_close(g);
    FUZZ_CHECK(e2b_gitwork_open(&g, repo_dir, 0) == NULL);
    repo = e2b_gitwork_repo(g);
    snapshot_refs(repo, &refs_after);
    FUZZ_CHECK(fuzz_log_equal(&refs_before, &refs_after));
    int has_tip = branch_tip(repo, tip_after);
    if (failed) {
        FUZZ_CHECK(strcmp(tip_before, tip_after) == 0);
        /* whatever failed (a bad bundle, a diverged branch), nothing of it stays */
        list_objects(objdir, &objs_after);
        FUZZ_CHECK(fuzz_log_equal(&objs_before, &objs_after));
    } else {
        FUZZ_CHECK(has_tip);
        git_oid id;
        git_commit *c = NULL;
        git_tree *t = NULL;
        GIT_OK(git_oid_fromstr(&id, oid));
        FUZZ_CHECK(git_commit_lookup(&c, repo, &id) == 0);
        FUZZ_CHECK(git_commit_tree(&t, c) == 0);
        git_tree_free(t);
        git_commit_free(c);
        switch (outcome) {
        case E2B_GITWORK_BRANCH_CREATED:
            FUZZ_CHECK(!tip_before[0] && strcmp(tip_after, oid) == 0);
            break;
        case E2B_GITWORK_BRANCH_FAST_FORWARDED:
            FUZZ_CHECK(tip_before[0] && strcmp(tip_after, oid) == 0);
            break;
        case E2B_GITWORK_BRANCH_FORCED:
            FUZZ_CHECK(force && tip_before[0] && strcmp(tip_after, oid) == 0);
            break;
        case E2B_GITWORK_BRANCH_UP_TO_DATE:
            FUZZ_CHECK(strcmp(tip_after, tip_before) == 0);
            break;
        }
    }

    /* Reset for the next input. */
    git_reference *r = NULL;
    if (git_reference_lookup(&r, repo, BRANCH_REF) == 0) {
        GIT_OK(git_reference_delete(r));
        git_reference_free(r);
    }
    git_error_clear();
    e2b_gitwork_close(g);
    drop_new_packs(&objs_before);
    fuzz_log_free(&refs_before);
    fuzz_log_free(&refs_after);
    fuzz_log_free(&objs_before);
    fuzz_log_free(&objs_after);
    return 0;
}
