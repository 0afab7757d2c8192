#include "core/git/changes_script.h"

#include "core/util/sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The script. Values are read from the environment only: nothing is pasted into this text.
 * GIT_OPTIONAL_LOCKS=0 keeps git from refreshing the real index while the agent works. */
static const char SCRIPT[] =
    "# e2b-tui changes: runs inside the box. Inputs come only from the environment.\n"
    "set -u\n"
    "export LC_ALL=C GIT_LITERAL_PATHSPECS=1 GIT_OPTIONAL_LOCKS=0\n"
    "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_NAMESPACE\n"
    "fail() { printf 'E2B-TUI-ERROR\\t%s\\0' \"$*\" | tr '\\n' ' '; exit 1; }\n"
    "command -v git >/dev/null 2>&1 || fail \"git is not installed in the box\"\n"
    "[ -n \"${E2B_TUI_DIR:-}\" ] || fail \"E2B_TUI_DIR is not set\"\n"
    "cd -- \"$E2B_TUI_DIR\" 2>/dev/null || fail \"project directory not found: $E2B_TUI_DIR\"\n"
    "top=$(git rev-parse --show-toplevel 2>/dev/null) || fail \"not a git repository: $E2B_TUI_DIR\"\n"
    "cd -- \"$top\" || fail \"cannot enter $top\"\n"
    "gitdir=$(git rev-parse --absolute-git-dir) || fail \"cannot find the git directory\"\n"
    "cap=${E2B_TUI_CAP:-1048576}\n"
    "case $cap in '' | *[!0-9]*) cap=1048576 ;; esac\n"
    "base=${E2B_TUI_BASE:-}\n"
    "against=base\n"
    "if [ -z \"$base\" ] || ! git cat-file -e \"$base^{commit}\" 2>/dev/null; then\n"
    "    if base=$(git rev-parse -q --verify 'HEAD^{commit}' 2>/dev/null); then\n"
    "        against=head\n"
    "    else\n"
    "        base=$(git hash-object -t tree /dev/null) || fail \"cannot make the empty tree\"\n"
    "        against=empty\n"
    "    fi\n"
    "fi\n"
    "# PREV: the last pulled commit (the local e2b/<box> tip). When the box has it and it\n"
    "# descends from BASE, the work is compared with it instead: what a pull brought home.\n"
    "prev=${E2B_TUI_PREV:-}\n"
    "if [ -n \"$prev\" ] && git cat-file -e \"$prev^{commit}\" 2>/dev/null &&\n"
    "    { [ \"$against\" != base ] || git merge-base --is-ancestor \"$base\" \"$prev\" 2>/dev/null; }; then\n"
    "    base=$(git rev-parse -q --verify \"$prev^{commit}\") && against=pulled\n"
    "fi\n"
    "commit=$base\n"
    "[ \"$against\" = empty ] && commit=\n"
    "\n"
    "# Untracked files join a private copy of the index as intent-to-add, so that one diff\n"
    "# against the base shows them as new files; the real index is never written.\n"
    "tmp=$(mktemp -d \"${TMPDIR:-/tmp}/e2b-tui-changes.XXXXXX\") || fail \"cannot create a temporary directory\"\n"
    "trap 'rm -rf -- \"$tmp\"' EXIT\n"
    "git ls-files -z --others --exclude-standard >\"$tmp/untracked\" 2>/dev/null || : >\"$tmp/untracked\"\n"
    "export GIT_INDEX_FILE=\"$tmp/index\"\n"
    "# -p: the copy keeps the index's time, so that git still re-reads files changed in the\n"
    "# same second as the index was written (same size, same time: racy git).\n"
    "if [ -f \"$gitdir/index\" ]; then\n"
    "    cp -p -- \"$gitdir/index\" \"$GIT_INDEX_FILE\" || fail \"cannot copy the index\"\n"
    "fi\n"
    "if [ -s \"$tmp/untracked\" ]; then\n"
    "    git add -N --pathspec-from-file=\"$tmp/untracked\" --pathspec-file-nul >/dev/null 2>&1 || :\n"
    "fi\n"
    "d=(git diff --no-renames --no-ext-diff --no-textconv --no-color)\n"
    "if [ \"${E2B_TUI_MODE:-list}\" = diff ]; then\n"
    "    printf 'E2B-TUI-CHANGES\\t%s\\t%s\\0' \"$against\" \"$commit\"\n"
    "    \"${d[@]}\" \"$base\" -- \"${E2B_TUI_FILE:-}\" 2>&1 | head -c \"$cap\"\n"
    "    exit 0\n"
    "fi\n"
    "if [ \"${E2B_TUI_MODE:-list}\" = summary ]; then\n"
    "    # The commits on HEAD that the compared commit lacks (\"-\": not known), then each\n"
    "    # changed file with the blob of its content in the work tree (\"-\": none).\n"
    "    max=${E2B_TUI_MAXFILES:-1000}\n"
    "    case $max in '' | *[!0-9]*) max=1000 ;; esac\n"
    "    commits=-\n"
    "    if [ \"$against\" != head ]; then\n"
    "        if git rev-parse -q --verify 'HEAD^{commit}' >/dev/null 2>&1; then\n"
    "            commits=$(git rev-list --count HEAD \"^$base\" 2>/dev/null) || commits=-\n"
    "        else\n"
    "            commits=0\n"
    "        fi\n"
    "    fi\n"
    "    {\n"
    "        printf 'E2B-TUI-CHANGES\\t%s\\t%s\\0' \"$against\" \"$commit\"\n"
    "        printf 'K\\t%s\\0' \"$commits\"\n"
    "        n=0\n"
    "        \"${d[@]}\" --name-status -z \"$base\" -- 2>/dev/null |\n"
    "            while IFS= read -r -d '' st && IFS= read -r -d '' p; do\n"
    "                n=$((n + 1))\n"
    "                [ \"$n\" -gt \"$max\" ] && break\n"
    "                h=-\n"
    "                if [ -L \"$p\" ]; then\n"
    "                    h=$(printf '%s' \"$(readlink -- \"$p\")\" | git hash-object --stdin 2>/dev/null) || h=-\n"
    "                elif [ -f \"$p\" ]; then\n"
    "                    h=$(git hash-object --no-filters -- \"$p\" 2>/dev/null) || h=-\n"
    "                fi\n"
    "                printf 'H\\t%s\\t%s\\t%s\\0' \"$st\" \"${h:--}\" \"$p\"\n"
    "            done\n"
    "        printf 'E2B-TUI-END\\0'\n"
    "    } | head -c \"$cap\"\n"
    "    exit 0\n"
    "fi\n"
    "{\n"
    "    printf 'E2B-TUI-CHANGES\\t%s\\t%s\\0' \"$against\" \"$commit\"\n"
    "    \"${d[@]}\" --name-status -z \"$base\" -- 2>/dev/null |\n"
    "        while IFS= read -r -d '' st && IFS= read -r -d '' p; do printf 'S\\t%s\\t%s\\0' \"$st\" \"$p\"; done\n"
    "    \"${d[@]}\" --numstat -z \"$base\" -- 2>/dev/null |\n"
    "        while IFS= read -r -d '' rec; do printf 'N\\t%s\\0' \"$rec\"; done\n"
    "    while IFS= read -r -d '' p; do printf 'U\\t%s\\0' \"$p\"; done <\"$tmp/untracked\"\n"
    "    printf 'E2B-TUI-END\\0'\n"
    "} | head -c \"$cap\"\n";

const char *e2b_changes_script_text(void) { return SCRIPT; }

void e2b_changes_list_clear(e2b_changes_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++) {
        free(l->files[i].path);
        free(l->files[i].raw);
    }
    free(l->files);
    memset(l, 0, sizeof *l);
}

static bool is_hex40(const char *s, size_t n)
{
    if (n != 40)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

/* The box's "E2B-TUI-ERROR\t..." record as an error, or NULL when tok is not one. */
static e2b_error *box_error(const char *tok, size_t n)
{
    static const char E[] = "E2B-TUI-ERROR\t";
    if (n < sizeof E - 1 || memcmp(tok, E, sizeof E - 1) != 0)
        return NULL;
    char *msg = e2b_sanitize_display(tok + sizeof E - 1, n - (sizeof E - 1), 0);
    e2b_error *e = e2b_error_new(E2B_ERR_PROTOCOL, "in the box: %s", msg ? msg : "error");
    free(msg);
    return e;
}

/* "E2B-TUI-CHANGES\t<against>\t<commit>" into l (l may be NULL). */
static e2b_error *parse_header(const char *tok, size_t n, e2b_changes_list *l)
{
    static const char H[] = "E2B-TUI-CHANGES\t";
    e2b_error *e = box_error(tok, n);
    if (e)
        return e;
    if (n < sizeof H - 1 || memcmp(tok, H, sizeof H - 1) != 0)
        return e2b_error_new(E2B_ERR_PROTOCOL, "the changes script printed no header");
    const char *p = tok + sizeof H - 1, *end = tok + n;
    const char *tab = memchr(p, '\t', (size_t)(end - p));
    if (!tab)
        return e2b_error_new(E2B_ERR_PROTOCOL, "the changes script printed a bad header");
    size_t an = (size_t)(tab - p), cn = (size_t)(end - tab - 1);
    bool ok = (an == 4 && memcmp(p, "base", 4) == 0 && is_hex40(tab + 1, cn)) ||
              (an == 4 && memcmp(p, "head", 4) == 0 && is_hex40(tab + 1, cn)) ||
              (an == 6 && memcmp(p, "pulled", 6) == 0 && is_hex40(tab + 1, cn)) ||
              (an == 5 && memcmp(p, "empty", 5) == 0 && cn == 0);
    if (!ok)
        return e2b_error_new(E2B_ERR_PROTOCOL, "the changes script printed a bad header");
    if (l) {
        memcpy(l->against, p, an);
        l->against[an] = '\0';
        memcpy(l->commit, tab + 1, cn);
        l->commit[cn] = '\0';
    }
    return NULL;
}

/* A line count from numstat: digits (at most 12), or "-" for binary. */
static bool parse_count(const char *s, size_t n, long *out, bool *binary)
{
    if (n == 1 && s[0] == '-') {
        *binary = true;
        *out = 0;
        return true;
    }
    if (n == 0 || n > 12)
        return false;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* The file of that raw path: hint first (git prints every section in the same order). */
static e2b_changes_file *find_file(e2b_changes_list *l, const char *path, size_t n, size_t *hint)
{
    for (size_t k = 0; k < 2; k++) {
        size_t i = *hint + k;
        if (i < l->count && strlen(l->files[i].raw) == n && memcmp(l->files[i].raw, path, n) == 0) {
            *hint = i + 1;
            return &l->files[i];
        }
    }
    for (size_t i = 0; i < l->count; i++) {
        if (strlen(l->files[i].raw) == n && memcmp(l->files[i].raw, path, n) == 0) {
            *hint = i + 1;
            return &l->files[i];
        }
    }
    return NULL;
}

/* Adds a file (status '?'); NULL when the cap is reached (l->cut) or out of memory. */
static e2b_changes_file *add_file(e2b_changes_list *l, const char *path, size_t n, size_t max, bool *nomem)
{
    if (l->count >= max) {
        l->cut = true;
        return NULL;
    }
    if (n == 0)
        return NULL;
    e2b_changes_file *f = realloc(l->files, (l->count + 1) * sizeof *f);
    if (!f) {
        *nomem = true;
        return NULL;
    }
    l->files = f;
    f = &l->files[l->count];
    memset(f, 0, sizeof *f);
    f->raw = strndup(path, n);
    f->path = e2b_sanitize_display(path, n, 0);
    f->status = '?';
    if (!f->raw || !f->path) {
        free(f->raw);
        free(f->path);
        *nomem = true;
        return NULL;
    }
    l->count++;
    return f;
}

/* The NUL-terminated record at *p (before end): *tok and its length *n, *p moved past it.
 * False when no whole record is left (one cut by the output's cap). */
static bool next_record(const char **p, const char *end, const char **tok, size_t *n)
{
    const char *z = memchr(*p, '\0', (size_t)(end - *p));
    if (!z)
        return false;
    *tok = *p;
    *n = (size_t)(z - *p);
    *p = z + 1;
    return true;
}

/* How a parse of the script's records ends badly, shared by the list and the summary:
 * out of memory, or no header at all (not the script's output). NULL when neither. */
static e2b_error *parse_end_error(bool nomem, bool header)
{
    if (nomem)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    if (!header)
        return e2b_error_new(E2B_ERR_PROTOCOL, "the changes script printed no header");
    return NULL;
}

e2b_error *e2b_changes_parse_list(const char *out, size_t len, size_t max_files, e2b_changes_list *l)
{
    memset(l, 0, sizeof *l);
    const char *p = out, *end = out + len;
    bool header = false, ended = false, nomem = false;
    size_t hint_n = 0, hint_u = 0;
    while (p < end && !ended && !nomem) {
        const char *tok;
        size_t n;
        if (!next_record(&p, end, &tok, &n))
            break; /* a record cut by the cap */
        if (!header) {
            e2b_error *e = parse_header(tok, n, l);
            if (e) {
                e2b_changes_list_clear(l);
                return e;
            }
            header = true;
            continue;
        }
        if (n == 11 && memcmp(tok, "E2B-TUI-END", 11) == 0) {
            ended = true;
            continue;
        }
        e2b_error *e = box_error(tok, n);
        if (e) {
            e2b_changes_list_clear(l);
            return e;
        }
        if (n < 3 || tok[1] != '\t')
            continue; /* unknown records are skipped */
        const char *r = tok + 2, *rend = tok + n;
        if (tok[0] == 'S') {
            const char *tab = memchr(r, '\t', (size_t)(rend - r));
            if (!tab || tab == r)
                continue;
            e2b_changes_file *f = add_file(l, tab + 1, (size_t)(rend - tab - 1), max_files, &nomem);
            if (f)
                f->status = strchr("AMDT", r[0]) ? r[0] : '?';
        } else if (tok[0] == 'N') {
            const char *t1 = memchr(r, '\t', (size_t)(rend - r));
            const char *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(rend - t1 - 1)) : NULL;
            long a = 0, d = 0;
            bool bin = false;
            if (!t2 || !parse_count(r, (size_t)(t1 - r), &a, &bin) ||
                !parse_count(t1 + 1, (size_t)(t2 - t1 - 1), &d, &bin))
                continue;
            e2b_changes_file *f = find_file(l, t2 + 1, (size_t)(rend - t2 - 1), &hint_n);
            if (!f)
                f = add_file(l, t2 + 1, (size_t)(rend - t2 - 1), max_files, &nomem);
            if (f) {
                f->added = a;
                f->removed = d;
                f->binary = bin;
            }
        } else if (tok[0] == 'U') {
            e2b_changes_file *f = find_file(l, r, (size_t)(rend - r), &hint_u);
            if (!f)
                f = add_file(l, r, (size_t)(rend - r), max_files, &nomem);
            if (f) {
                f->untracked = true;
                f->status = 'A';
            }
        }
    }
    e2b_error *e = parse_end_error(nomem, header);
    if (e) {
        e2b_changes_list_clear(l);
        return e;
    }
    if (!ended)
        l->cut = true;
    for (size_t i = 0; i < l->count; i++) {
        l->added += l->files[i].added;
        l->removed += l->files[i].removed;
    }
    return NULL;
}

void e2b_changes_summary_clear(e2b_changes_summary *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++)
        free(s->files[i].raw);
    free(s->files);
    memset(s, 0, sizeof *s);
}

/* "H\t<status>\t<blob|->\t<path>" into s; false only when out of memory. */
static bool summary_file(e2b_changes_summary *s, const char *r, const char *rend, size_t max)
{
    const char *t1 = memchr(r, '\t', (size_t)(rend - r));
    const char *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(rend - t1 - 1)) : NULL;
    if (!t2 || t1 == r || t2 + 1 >= rend)
        return true; /* malformed: skipped */
    size_t bn = (size_t)(t2 - t1 - 1);
    if (!(bn == 1 && t1[1] == '-') && !is_hex40(t1 + 1, bn))
        return true;
    if (s->count >= max) {
        s->cut = true;
        return true;
    }
    e2b_changes_summary_file *f = realloc(s->files, (s->count + 1) * sizeof *f);
    if (!f)
        return false;
    s->files = f;
    f = &s->files[s->count];
    memset(f, 0, sizeof *f);
    f->status = strchr("AMDT", r[0]) ? r[0] : '?';
    if (bn == 40)
        memcpy(f->blob, t1 + 1, 40);
    f->raw = strndup(t2 + 1, (size_t)(rend - t2 - 1));
    if (!f->raw)
        return false;
    s->count++;
    return true;
}

e2b_error *e2b_changes_parse_summary(const char *out, size_t len, size_t max_files,
                                 e2b_changes_summary *s)
{
    memset(s, 0, sizeof *s);
    s->commits = -1;
    const char *p = out, *end = out + len;
    bool header = false, ended = false, nomem = false;
    e2b_changes_list hl;
    while (p < end && !ended && !nomem) {
        const char *tok;
        size_t n;
        if (!next_record(&p, end, &tok, &n))
            break; /* a record cut by the cap */
        e2b_error *e = header ? box_error(tok, n) : parse_header(tok, n, &hl);
        if (e) {
            e2b_changes_summary_clear(s);
            return e;
        }
        if (!header) {
            memcpy(s->against, hl.against, sizeof s->against);
            memcpy(s->commit, hl.commit, sizeof s->commit);
            header = true;
        } else if (n == 11 && memcmp(tok, "E2B-TUI-END", 11) == 0) {
            ended = true;
        } else if (n >= 3 && tok[1] == '\t' && tok[0] == 'K') {
            long v = 0;
            bool dash = false;
            if (parse_count(tok + 2, n - 2, &v, &dash))
                s->commits = dash ? -1 : v > E2B_CHANGES_COUNT_MAX ? E2B_CHANGES_COUNT_MAX : v;
        } else if (n >= 3 && tok[1] == '\t' && tok[0] == 'H') {
            nomem = !summary_file(s, tok + 2, tok + n, max_files);
        }
    }
    e2b_error *e = parse_end_error(nomem, header);
    if (e) {
        e2b_changes_summary_clear(s);
        return e;
    }
    if (!ended)
        s->cut = true;
    return NULL;
}

e2b_error *e2b_changes_parse_diff_header(const char *out, size_t len, size_t *off)
{
    *off = 0;
    const char *z = memchr(out, '\0', len);
    if (!z) {
        e2b_error *e = box_error(out, len);
        return e ? e : e2b_error_new(E2B_ERR_PROTOCOL, "the changes script printed no header");
    }
    e2b_error *e = parse_header(out, (size_t)(z - out), NULL);
    if (e)
        return e;
    *off = (size_t)(z - out) + 1;
    return NULL;
}
