#include "core/git/upload_gitconfig.h"

#include "core/util/buf.h"

#include <git2.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- URLs ---- */

static int scheme_char(char c)
{
    return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

char *e2b_upload_gitconfig_clean_url(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    const char *p = s;
    while (*p) {
        const char *sep = strstr(p, "://");
        if (!sep) {
            size_t k = strlen(p);
            memcpy(o, p, k);
            o += k;
            break;
        }
        /* the scheme must be at least one character right before "://" */
        if (sep == s || !scheme_char(sep[-1])) {
            memcpy(o, p, (size_t)(sep + 3 - p));
            o += sep + 3 - p;
            p = sep + 3;
            continue;
        }
        memcpy(o, p, (size_t)(sep + 3 - p));
        o += sep + 3 - p;
        const char *auth = sep + 3, *end = auth;
        while (*end && !strchr("/?#\\ \t\"'", *end))
            end++;
        const char *at = NULL;
        for (const char *q = auth; q < end; q++)
            if (*q == '@')
                at = q;
        p = at ? at + 1 : auth; /* user info dropped */
        memcpy(o, p, (size_t)(end - p));
        o += end - p;
        p = end;
    }
    *o = '\0';
    /* A value that is itself an http(s) URL loses its query and fragment. */
    if (strncasecmp(out, "http://", 7) == 0 || strncasecmp(out, "https://", 8) == 0) {
        char *q = strpbrk(out, "?#");
        if (q)
            *q = '\0';
    }
    return out;
}

/* ---- the allowlist ---- */

/* Names kept from core (normalised, lower case). */
static const char *const core_keep[] = {
    "repositoryformatversion", "filemode", "bare", "logallrefupdates", "ignorecase",
    "precomposeunicode", "protecthfs", "protectntfs", "symlinks", "autocrlf", "eol", "safecrlf",
    "checkroundtripencoding", "whitespace", "quotepath", "sparsecheckout", "sparsecheckoutcone",
    "splitindex", "untrackedcache", "checkstat", "trustctime", "abbrev", "commentchar",
    "commentstring", "warnambiguousrefs", "compression", "loosecompression",
    "bigfilethreshold", "preloadindex", "multipackindex", "commitgraph", "longpaths",
    "notesref", "hookspath", NULL};
static const char *const remote_keep[] = {
    "url", "pushurl", "fetch", "push", "mirror", "tagopt", "prune", "prunetags", "promisor",
    "partialclonefilter", "skipdefaultupdate", "skipfetchall", NULL};
static const char *const branch_keep[] = {"remote", "pushremote", "merge", "rebase",
                                          "description", NULL};
static const char *const submodule_keep[] = {"url", "branch", "active", "shallow", "ignore",
                                             "fetchrecursesubmodules", NULL};
static const char *const submodule_top_keep[] = {"recurse", "fetchjobs", NULL};
static const char *const user_keep[] = {"name", "email", "useconfigonly", NULL};
/* Sections of plain preferences: kept without subsections, minus risky names. */
static const char *const pref_sections[] = {
    "pull", "merge", "rebase", "push", "fetch", "diff", "status", "log", "init", "advice",
    "color", "column", "commit", "tag", "gc", "pack", "index", "feature", "protocol", "blame",
    "grep", "am", "apply", "rerere", "checkout", NULL};
/* Parts of a name that make a preference a program, a file, a signature or a credential. */
static const char *const pref_risky[] = {"sign", "program", "command", "cmd", "external",
                                         "template", "helper", "proxy", "pass", "token",
                                         "cookie", "key", "cert", "ssl", "file", "path",
                                         "auth", "secret", NULL};

static int in_list(const char *const *list, const char *s, size_t n)
{
    for (; *list; list++)
        if (strlen(*list) == n && memcmp(*list, s, n) == 0)
            return 1;
    return 0;
}

static int risky(const char *var)
{
    for (const char *const *r = pref_risky; *r; r++)
        if (strstr(var, *r))
            return 1;
    return 0;
}

/* A name split as section[.subsection].var (subsection may hold dots). */
typedef struct {
    const char *sec, *sub, *var;
    size_t seclen, sublen;
} cfg_name;

static int split_name(const char *name, cfg_name *c)
{
    const char *first = strchr(name, '.'), *last = strrchr(name, '.');
    if (!first || first == name || !last[1])
        return -1;
    c->sec = name;
    c->seclen = (size_t)(first - name);
    c->var = last + 1;
    c->sub = first == last ? NULL : first + 1;
    c->sublen = first == last ? 0 : (size_t)(last - first - 1);
    return 0;
}

#define SEC_IS(c, s) ((c)->seclen == sizeof(s) - 1 && memcmp((c)->sec, s, sizeof(s) - 1) == 0)

/* 1 when the entry is kept, 0 when it is left out. */
static int keep(const cfg_name *c, const char *value)
{
    size_t vl = strlen(c->var);
    if (SEC_IS(c, "core")) {
        if (c->sub || !in_list(core_keep, c->var, vl))
            return 0;
        /* hooksPath: only inside the project (relative, no way up) */
        if (strcmp(c->var, "hookspath") == 0)
            return value && value[0] != '/' && value[0] != '~' && !strstr(value, "..");
        return 1;
    }
    if (SEC_IS(c, "extensions"))
        return !c->sub;
    if (SEC_IS(c, "remote"))
        return c->sub && in_list(remote_keep, c->var, vl);
    if (SEC_IS(c, "branch"))
        return c->sub && in_list(branch_keep, c->var, vl);
    if (SEC_IS(c, "submodule")) {
        if (!c->sub)
            return in_list(submodule_top_keep, c->var, vl);
        return in_list(submodule_keep, c->var, vl);
    }
    if (SEC_IS(c, "user"))
        return !c->sub && in_list(user_keep, c->var, vl);
    for (const char *const *s = pref_sections; *s; s++)
        if (c->seclen == strlen(*s) && memcmp(c->sec, *s, c->seclen) == 0)
            return !c->sub && !risky(c->var);
    return 0;
}

/* ---- writing git config text ---- */

/* s quoted for git config: a value (with \n, \t, \b escapes) or, header set, a
 * subsection name (where git knows only \\ and \": any other escaped byte is itself). */
static void put_quoted(e2b_buf *b, const char *s, size_t n, int header)
{
    e2b_buf_add(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        const char *esc = NULL;
        switch (s[i]) {
        case '\\': esc = "\\\\"; break;
        case '"': esc = "\\\""; break;
        case '\n': esc = header ? NULL : "\\n"; break;
        case '\t': esc = header ? NULL : "\\t"; break;
        case '\b': esc = header ? NULL : "\\b"; break;
        default: break;
        }
        if (esc)
            e2b_buf_adds(b, esc);
        else
            e2b_buf_add(b, s + i, 1);
    }
    e2b_buf_add(b, "\"", 1);
}

static int name_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '-')
            return 0;
    return n > 0;
}

e2b_error *e2b_upload_gitconfig(const char *path, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    git_config *cfg = NULL;
    git_config_iterator *it = NULL;
    if (git_config_open_ondisk(&cfg, path) < 0 || git_config_iterator_new(&it, cfg) < 0) {
        const git_error *ge = git_error_last();
        e2b_error *err = e2b_error_local(E2B_SUB_FILE_IO, "cannot read the project's .git/config: %s",
                                         ge && ge->message ? ge->message : "unknown error");
        git_config_iterator_free(it);
        git_config_free(cfg);
        return err;
    }
    e2b_buf b = {.secret = 1};
    e2b_buf_adds(&b, "# written by e2b-tui: the project's settings without credentials\n");
    char *cur = NULL; /* the section header written last */
    git_config_entry *e;
    int r;
    while ((r = git_config_next(&e, it)) == 0 && !b.failed) {
        cfg_name c;
        /* only the file itself: nothing an include pulled in */
        if (e->include_depth > 0 || split_name(e->name, &c) < 0 ||
            !name_ok(c.sec, c.seclen) || !name_ok(c.var, strlen(c.var)) ||
            (c.sub && memchr(c.sub, '\n', c.sublen)))
            continue;
        if (!keep(&c, e->value))
            continue;
        /* A subsection name is cleaned like a value ([remote "https://u:TOKEN@h/x"] becomes
         * [remote "https://h/x"]): branch.<n>.remote values naming it are cleaned the same
         * way, so the rewrite still refers to the same section. */
        char *sub = NULL;
        if (c.sub) {
            char *raw = strndup(c.sub, c.sublen);
            sub = raw ? e2b_upload_gitconfig_clean_url(raw) : NULL;
            if (raw) {
                explicit_bzero(raw, c.sublen);
                free(raw);
            }
            if (!sub) {
                b.failed = 1;
                break;
            }
        }
        e2b_buf h = {.secret = 1};
        e2b_buf_add(&h, "[", 1);
        e2b_buf_add(&h, c.sec, c.seclen);
        if (sub) {
            e2b_buf_add(&h, " ", 1);
            put_quoted(&h, sub, strlen(sub), 1);
            explicit_bzero(sub, strlen(sub));
            free(sub);
        }
        e2b_buf_add(&h, "]\n", 2);
        char *hdr = e2b_buf_take(&h);
        if (!hdr) {
            b.failed = 1;
            break;
        }
        if (!cur || strcmp(cur, hdr) != 0) {
            e2b_buf_adds(&b, hdr);
            free(cur);
            cur = hdr;
        } else {
            free(hdr);
        }
        e2b_buf_add(&b, "\t", 1);
        e2b_buf_adds(&b, c.var);
        if (e->value) {
            /* every kept value loses the user info of URLs in it */
            char *v = e2b_upload_gitconfig_clean_url(e->value);
            if (!v) {
                b.failed = 1;
                break;
            }
            e2b_buf_add(&b, " = ", 3);
            put_quoted(&b, v, strlen(v), 0);
            explicit_bzero(v, strlen(v));
            free(v);
        }
        e2b_buf_add(&b, "\n", 1);
    }
    if (cur)
        explicit_bzero(cur, strlen(cur));
    free(cur);
    git_config_iterator_free(it);
    git_config_free(cfg);
    if (b.failed || (r < 0 && r != GIT_ITEROVER)) {
        int oom = b.failed;
        e2b_buf_clear(&b);
        if (oom)
            return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
        return e2b_error_local(E2B_SUB_FILE_IO, "cannot read the project's .git/config");
    }
    git_error_clear();
    *len = b.len;
    *out = e2b_buf_take(&b);
    return *out ? NULL : e2b_error_local(E2B_SUB_NOMEM, "out of memory");
}
