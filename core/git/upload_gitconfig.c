#include "core/git/upload_gitconfig.h"

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

char *upload_gitconfig_clean_url(const char *s)
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

typedef struct {
    char *buf;
    size_t len, cap;
    int oom;
} sbuf;

static void put(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *nb = malloc(cap);
        if (!nb) {
            b->oom = 1;
            return;
        }
        if (b->buf) {
            memcpy(nb, b->buf, b->len);
            explicit_bzero(b->buf, b->cap); /* the old copy may hold values */
            free(b->buf);
        }
        b->buf = nb;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->buf[b->len] = '\0';
}

static void puts_(sbuf *b, const char *s) { put(b, s, strlen(s)); }

/* s quoted for git config (values and subsection names). */
static void put_quoted(sbuf *b, const char *s, size_t n)
{
    put(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '\\': put(b, "\\\\", 2); break;
        case '"': put(b, "\\\"", 2); break;
        case '\n': put(b, "\\n", 2); break;
        case '\t': put(b, "\\t", 2); break;
        case '\b': put(b, "\\b", 2); break;
        default: put(b, s + i, 1); break;
        }
    }
    put(b, "\"", 1);
}

static int name_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '-')
            return 0;
    return n > 0;
}

int upload_gitconfig(const char *path, char **out, size_t *len, e2b_error **err)
{
    *out = NULL;
    *len = 0;
    local_error_clear(err);
    git_config *cfg = NULL;
    git_config_iterator *it = NULL;
    if (git_config_open_ondisk(&cfg, path) < 0 || git_config_iterator_new(&it, cfg) < 0) {
        const git_error *ge = git_error_last();
        local_error_set(err, E2B_SUB_FILE_IO, "cannot read the project's .git/config: %s",
                        ge && ge->message ? ge->message : "unknown error");
        git_config_iterator_free(it);
        git_config_free(cfg);
        return E2B_SUB_FILE_IO;
    }
    sbuf b = {0};
    puts_(&b, "# written by e2b-tui: the project's settings without credentials\n");
    char *cur = NULL; /* the section header written last */
    git_config_entry *e;
    int r;
    while ((r = git_config_next(&e, it)) == 0 && !b.oom) {
        cfg_name c;
        /* only the file itself: nothing an include pulled in */
        if (e->include_depth > 0 || split_name(e->name, &c) < 0 ||
            !name_ok(c.sec, c.seclen) || !name_ok(c.var, strlen(c.var)) ||
            (c.sub && memchr(c.sub, '\n', c.sublen)))
            continue;
        if (!keep(&c, e->value))
            continue;
        char *hdr = NULL;
        sbuf h = {0};
        put(&h, "[", 1);
        put(&h, c.sec, c.seclen);
        if (c.sub) {
            put(&h, " ", 1);
            put_quoted(&h, c.sub, c.sublen);
        }
        put(&h, "]\n", 2);
        hdr = h.buf;
        if (!hdr) {
            b.oom = 1;
            break;
        }
        if (!cur || strcmp(cur, hdr) != 0) {
            puts_(&b, hdr);
            free(cur);
            cur = hdr;
        } else {
            free(hdr);
        }
        put(&b, "\t", 1);
        puts_(&b, c.var);
        if (e->value) {
            /* every kept value loses the user info of URLs in it */
            char *v = upload_gitconfig_clean_url(e->value);
            if (!v) {
                b.oom = 1;
                break;
            }
            put(&b, " = ", 3);
            put_quoted(&b, v, strlen(v));
            explicit_bzero(v, strlen(v));
            free(v);
        }
        put(&b, "\n", 1);
    }
    free(cur);
    git_config_iterator_free(it);
    git_config_free(cfg);
    if (b.oom || (r < 0 && r != GIT_ITEROVER)) {
        if (b.buf)
            explicit_bzero(b.buf, b.cap);
        free(b.buf);
        if (b.oom)
            return local_error_set(err, E2B_SUB_NOMEM, "out of memory");
        return local_error_set(err, E2B_SUB_FILE_IO, "cannot read the project's .git/config");
    }
    git_error_clear();
    *out = b.buf;
    *len = b.len;
    return 0;
}
