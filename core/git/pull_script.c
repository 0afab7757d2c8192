#include "core/git/pull_script.h"

#include "core/util/sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The script. Values are read from the environment only: nothing is pasted into this text.
 * Kept in one piece so it can be read (and run by hand) as a whole. */
static const char SCRIPT[] =
    "# e2b-tui pull: runs inside the box. Inputs come only from the environment.\n"
    "set -u\n"
    "export LC_ALL=C\n"
    "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_NAMESPACE\n"
    "fail() {\n"
    "    printf 'E2B-TUI-ERROR %s\\n' \"$*\" | head -n 1\n"
    "    printf 'e2b-tui pull: %s\\n' \"$*\" >&2\n"
    "    exit 1\n"
    "}\n"
    "lastline() { printf '%s' \"$1\" | tr -d '\\r' | grep -v '^$' | tail -n 1; }\n"
    "command -v git >/dev/null 2>&1 || fail \"git is not installed in the box\"\n"
    "[ -n \"${E2B_TUI_DIR:-}\" ] || fail \"E2B_TUI_DIR is not set\"\n"
    "cd -- \"$E2B_TUI_DIR\" 2>/dev/null || fail \"project directory not found: $E2B_TUI_DIR\"\n"
    "top=$(git rev-parse --show-toplevel 2>/dev/null) || fail \"not a git repository: $E2B_TUI_DIR\"\n"
    "cd -- \"$top\" || fail \"cannot enter $top\"\n"
    "gitdir=$(git rev-parse --absolute-git-dir) || fail \"cannot find the git directory\"\n"
    "scratch=refs/e2b-tui/scratch\n"
    "msg=\"e2b-tui: work in progress from box ${E2B_TUI_BOX:-box}\"\n"
    "\n"
    "# Stage everything in a private copy of the index: the real one is never written.\n"
    "tmp=$(mktemp -d \"${TMPDIR:-/tmp}/e2b-tui-pull.XXXXXX\") || fail \"cannot create a temporary directory\"\n"
    "trap 'rm -rf -- \"$tmp\"' EXIT\n"
    "export GIT_INDEX_FILE=\"$tmp/index\"\n"
    "if [ -f \"$gitdir/index\" ]; then\n"
    "    # -p keeps the index's mtime: git re-reads files changed in the second it was written\n"
    "    cp -p -- \"$gitdir/index\" \"$GIT_INDEX_FILE\" || fail \"cannot copy the index\"\n"
    "fi\n"
    "# Submodules are not uploaded: a gitlink whose directory is missing here keeps its commit\n"
    "# instead of being recorded as a deletion.\n"
    "gitlinks=()\n"
    "while IFS= read -r -d '' entry; do\n"
    "    case \"$entry\" in 160000\\ *) gitlinks+=(\"$entry\") ;; esac\n"
    "done < <(git ls-files -s -z 2>/dev/null)\n"
    "# The index came with the upload and its stat data (inode, ctime, nanoseconds) do not\n"
    "# match the extracted files: compare whole-second mtime and size only (what the\n"
    "# extraction restored), or git re-hashes the whole tree. Blobs of 64 KiB and more go\n"
    "# to a pack at once and are never delta-searched (below too): random-looking assets\n"
    "# cost most of the pull's time in delta search and recompression otherwise.\n"
    "fast=(-c core.checkStat=minimal -c core.trustctime=false -c core.bigFileThreshold=64k)\n"
    "out=$(git \"${fast[@]}\" add -A -- . 2>&1) || fail \"cannot stage the work: $(lastline \"$out\")\"\n"
    "for entry in ${gitlinks[@]+\"${gitlinks[@]}\"}; do\n"
    "    read -r _ sha stage <<<\"${entry%%$'\\t'*}\"\n"
    "    path=${entry#*$'\\t'}\n"
    "    if [ \"$stage\" = 0 ] && [ ! -e \"$path\" ]; then\n"
    "        git update-index --add --cacheinfo \"160000,$sha,$path\" ||\n"
    "            fail \"cannot keep submodule $path\"\n"
    "    fi\n"
    "done\n"
    "tree=$(git write-tree 2>&1) || fail \"cannot write the tree: $(lastline \"$tree\")\"\n"
    "# The new commit's parents. PREV (the local e2b/<box> branch tip, when known and still in\n"
    "# this repository) is built upon, so that successive pulls fast-forward locally.\n"
    "prev=${E2B_TUI_PREV:-}\n"
    "if [ -n \"$prev\" ] && ! git cat-file -e \"$prev^{commit}\" 2>/dev/null; then\n"
    "    prev=\n"
    "fi\n"
    "commit_tree() {\n"
    "    commit=$(git commit-tree --no-gpg-sign \"$@\" -m \"$msg\" \"$tree\" 2>&1) ||\n"
    "        fail \"cannot commit the work: $(lastline \"$commit\")\"\n"
    "}\n"
    "if head=$(git rev-parse -q --verify 'HEAD^{commit}' 2>/dev/null); then\n"
    "    if [ -n \"$prev\" ] && git merge-base --is-ancestor \"$prev\" \"$head\"; then\n"
    "        prev= # the agent's history already holds it\n"
    "    fi\n"
    "    if [ -n \"$prev\" ] && git merge-base --is-ancestor \"$head\" \"$prev\"; then\n"
    "        # the last pull's snapshot sits on the current HEAD: continue from it\n"
    "        if [ \"$(git rev-parse \"$prev^{tree}\")\" = \"$tree\" ]; then\n"
    "            commit=$prev\n"
    "        else\n"
    "            commit_tree -p \"$prev\"\n"
    "        fi\n"
    "    elif [ -n \"$prev\" ]; then\n"
    "        # the agent committed since the last pull: join both lines\n"
    "        commit_tree -p \"$head\" -p \"$prev\"\n"
    "    elif [ \"$(git rev-parse 'HEAD^{tree}')\" = \"$tree\" ]; then\n"
    "        commit=$head\n"
    "    else\n"
    "        commit_tree -p \"$head\"\n"
    "    fi\n"
    "elif [ -n \"$prev\" ]; then\n"
    "    if [ \"$(git rev-parse \"$prev^{tree}\")\" = \"$tree\" ]; then\n"
    "        commit=$prev\n"
    "    else\n"
    "        commit_tree -p \"$prev\"\n"
    "    fi\n"
    "else\n"
    "    commit_tree\n"
    "fi\n"
    "unset GIT_INDEX_FILE\n"
    "\n"
    "# Nothing new for the local side: the commit is the base or the local branch itself.\n"
    "if [ \"$commit\" = \"${E2B_TUI_BASE:-}\" ] || [ \"$commit\" = \"${E2B_TUI_PREV:-}\" ]; then\n"
    "    printf 'E2B-TUI-NOWORK %s\\n' \"$commit\"\n"
    "    exit 0\n"
    "fi\n"
    "# Thin bundle from the base when the box still descends from it, else the full history;\n"
    "# both leave out what the local branch already has.\n"
    "mode=full\n"
    "base=${E2B_TUI_BASE:-}\n"
    "range=(\"$scratch\")\n"
    "if [ -n \"$base\" ] && git cat-file -e \"$base^{commit}\" 2>/dev/null &&\n"
    "    git merge-base --is-ancestor \"$base\" \"$commit\" 2>/dev/null; then\n"
    "    mode=thin\n"
    "    range+=(\"^$base\")\n"
    "fi\n"
    "if [ -n \"$prev\" ]; then\n"
    "    range+=(\"^$prev\")\n"
    "fi\n"
    "\n"
    "bundle=${E2B_TUI_BUNDLE:-}\n"
    "if [ -z \"$bundle\" ]; then\n"
    "    bundle=$(mktemp \"${TMPDIR:-/tmp}/e2b-tui-bundle.XXXXXX\") || fail \"cannot create the bundle file\"\n"
    "fi\n"
    "git update-ref \"$scratch\" \"$commit\" || fail \"cannot set $scratch\"\n"
    "out=$(git -c core.bigFileThreshold=64k bundle create \"$bundle\" \"${range[@]}\" 2>&1)\n"
    "rc=$?\n"
    "git update-ref -d \"$scratch\" \"$commit\" >/dev/null 2>&1\n"
    "[ \"$rc\" -eq 0 ] || fail \"git bundle failed: $(lastline \"$out\")\"\n"
    "size=$(wc -c < \"$bundle\" | tr -d ' ') || fail \"cannot read the bundle\"\n"
    "printf 'E2B-TUI-BUNDLE %s %s %s %s\\n' \"$commit\" \"$mode\" \"$size\" \"$bundle\"\n";

const char *e2b_pull_script_text(void) { return SCRIPT; }

static int is_hex40(const char *s)
{
    if (strlen(s) != 40)
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return 0;
    return 1;
}

void e2b_pull_script_env_free(e2b_pull_script_var *vars, size_t n)
{
    if (!vars)
        return;
    for (size_t i = 0; i < n; i++) {
        free(vars[i].name);
        free(vars[i].value);
    }
    free(vars);
}

e2b_error *e2b_pull_script_env(const e2b_pull_script_params *p, e2b_pull_script_var **vars,
                               size_t *n)
{
    *vars = NULL;
    *n = 0;
    if (!p->dir || p->dir[0] != '/')
        return e2b_error_local(E2B_SUB_BAD_ARG, "the box directory must be an absolute path");
    if (!p->box_name || !p->box_name[0])
        return e2b_error_local(E2B_SUB_BAD_ARG, "a box name is required");
    if (p->base && p->base[0] && !is_hex40(p->base))
        return e2b_error_local(E2B_SUB_BAD_ARG, "base '%s' is not a 40-digit commit id", p->base);
    if (p->prev && p->prev[0] && !is_hex40(p->prev))
        return e2b_error_local(E2B_SUB_BAD_ARG, "'%s' is not a 40-digit commit id", p->prev);
    const char *name = p->user_name && p->user_name[0] ? p->user_name : "e2b-tui";
    const char *email = p->user_email && p->user_email[0] ? p->user_email : "e2b-tui@localhost";
    /* git refuses identities with newlines or angle brackets in odd places; a newline
     * would also break the one-line protocol, so refuse it here with a clear message. */
    if (strpbrk(name, "\n<>") || strpbrk(email, "\n<>"))
        return e2b_error_local(E2B_SUB_BAD_ARG, "git user.name/user.email must not contain "
                                                "newlines or angle brackets");
    const char *pairs[][2] = {
        {"E2B_TUI_DIR", p->dir},
        {"E2B_TUI_BASE", p->base ? p->base : ""},
        {"E2B_TUI_PREV", p->prev ? p->prev : ""},
        {"E2B_TUI_BOX", p->box_name},
        {"E2B_TUI_BUNDLE", p->bundle_path ? p->bundle_path : ""},
        {"GIT_AUTHOR_NAME", name},
        {"GIT_AUTHOR_EMAIL", email},
        {"GIT_COMMITTER_NAME", name},
        {"GIT_COMMITTER_EMAIL", email},
    };
    size_t count = sizeof pairs / sizeof *pairs;
    e2b_pull_script_var *v = calloc(count, sizeof *v);
    if (!v)
        return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) {
        v[i].name = strdup(pairs[i][0]);
        v[i].value = strdup(pairs[i][1]);
        if (!v[i].name || !v[i].value) {
            e2b_pull_script_env_free(v, count);
            return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
        }
    }
    *vars = v;
    *n = count;
    return NULL;
}

static int parse_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 19)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

/* One line (without newline) -> 1 parsed, 0 not a result line, -1 on an error line or
 * failure (*err set). */
static int parse_line(const char *l, size_t n, e2b_pull_script_result *r, e2b_error **err)
{
    static const char B[] = "E2B-TUI-BUNDLE ", W[] = "E2B-TUI-NOWORK ", E[] = "E2B-TUI-ERROR ";
    if (n >= sizeof E - 1 && memcmp(l, E, sizeof E - 1) == 0) {
        char *msg = e2b_sanitize_display(l + sizeof E - 1, n - (sizeof E - 1), 0);
        *err = e2b_error_local(E2B_SUB_FAILED, "in the box: %s", msg ? msg : "error");
        free(msg);
        return -1;
    }
    char hex[41];
    if (n == sizeof W - 1 + 40 && memcmp(l, W, sizeof W - 1) == 0) {
        memcpy(hex, l + sizeof W - 1, 40);
        hex[40] = '\0';
        if (!is_hex40(hex))
            return 0;
        memset(r, 0, sizeof *r);
        r->kind = E2B_PULL_SCRIPT_NOWORK;
        memcpy(r->commit, hex, 41);
        return 1;
    }
    if (n > sizeof B - 1 + 41 && memcmp(l, B, sizeof B - 1) == 0) {
        const char *p = l + sizeof B - 1, *end = l + n;
        memcpy(hex, p, 40);
        hex[40] = '\0';
        if (!is_hex40(hex) || p[40] != ' ')
            return 0;
        p += 41;
        int full;
        if (end - p > 5 && memcmp(p, "full ", 5) == 0)
            full = 1;
        else if (end - p > 5 && memcmp(p, "thin ", 5) == 0)
            full = 0;
        else
            return 0;
        p += 5;
        const char *sp = memchr(p, ' ', (size_t)(end - p));
        uint64_t size;
        if (!sp || parse_u64(p, (size_t)(sp - p), &size) < 0 || sp + 1 >= end || sp[1] != '/')
            return 0;
        char *path = strndup(sp + 1, (size_t)(end - sp - 1));
        if (!path) {
            *err = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
            return -1;
        }
        memset(r, 0, sizeof *r);
        r->kind = E2B_PULL_SCRIPT_BUNDLE;
        memcpy(r->commit, hex, 41);
        r->full = full;
        r->size = size;
        r->path = path;
        return 1;
    }
    return 0;
}

e2b_error *e2b_pull_script_parse_output(const char *out, size_t len, e2b_pull_script_result *r)
{
    memset(r, 0, sizeof *r);
    const char *p = out, *end = out + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        e2b_error *err = NULL;
        int k = parse_line(p, n, r, &err);
        if (k < 0)
            return err;
        if (k > 0)
            return NULL;
        p += n + 1;
    }
    return e2b_error_local(E2B_SUB_FAILED, "the pull script in the box printed no result line");
}
