/* Pure helpers of the box layer: passwords, command templates, the merged listing. */
#include "core/box/box.h"

#include "core/util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

int e2b_box_hours(const e2b_sandbox *sb, const e2b_config *cfg)
{
    const char *v = sb && sb->kind == E2B_KIND_BOX ? e2b_metadata_get(&sb->metadata, E2B_META_HOURS) : NULL;
    char *end = NULL;
    long h = v ? strtol(v, &end, 10) : 0;
    if (v && end != v && !*end && h >= 1 && h <= 24)
        return (int)h;
    return cfg->hours > 0 ? cfg->hours : 1;
}

int e2b_box_password(char buf[33])
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char raw[64];
    size_t n = 0;
    while (n < 32) {
        ssize_t got = getrandom(raw, sizeof raw, 0);
        if (got <= 0)
            return -1;
        for (ssize_t i = 0; i < got && n < 32; i++)
            if (raw[i] < 248) /* 248 = 4 * 62: no modulo bias */
                buf[n++] = alphabet[raw[i] % 62];
    }
    buf[32] = '\0';
    explicit_bzero(raw, sizeof raw);
    return 0;
}

/* A growing string: core's one buffer (core/util/buf.h). */
typedef e2b_buf sbuf;

static void sb_add(sbuf *b, const char *p, size_t n)
{
    e2b_buf_add(b, p, n);
}

static void sb_subst(sbuf *b, const char *word, size_t n, const char *url, const char *dir,
                     int port)
{
    char portbuf[16];
    snprintf(portbuf, sizeof portbuf, "%d", port);
    for (size_t i = 0; i < n;) {
        if (word[i] == '{') {
            const char *val = NULL;
            size_t kl = 0;
            if (n - i >= 5 && memcmp(word + i, "{url}", 5) == 0)
                val = url, kl = 5;
            else if (n - i >= 5 && memcmp(word + i, "{dir}", 5) == 0)
                val = dir, kl = 5;
            else if (n - i >= 6 && memcmp(word + i, "{port}", 6) == 0)
                val = portbuf, kl = 6;
            if (kl) {
                sb_add(b, val ? val : "", strlen(val ? val : ""));
                i += kl;
                continue;
            }
        }
        sb_add(b, word + i, 1);
        i++;
    }
}

/* Splits tmpl into words, calling fn for each (with quotes removed). Returns the number of
 * words, or -1 for unbalanced quotes. */
static int split_words(const char *tmpl, void (*fn)(void *ctx, const char *w, size_t n), void *ctx)
{
    int count = 0;
    const char *p = tmpl;
    sbuf w = {0};
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n')
            p++;
        if (!*p)
            break;
        w.len = 0;
        sb_add(&w, "", 0);
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
            if (*p == '"' || *p == '\'') {
                char q = *p++;
                const char *e = strchr(p, q);
                if (!e) {
                    free(w.data);
                    return -1;
                }
                sb_add(&w, p, (size_t)(e - p));
                p = e + 1;
            } else {
                sb_add(&w, p++, 1);
            }
        }
        if (w.failed)
            break;
        fn(ctx, w.data ? w.data : "", w.len);
        count++;
    }
    int failed = w.failed;
    e2b_buf_clear(&w);
    return failed ? -1 : count;
}

typedef struct {
    char **argv;
    size_t n, cap;
    const char *url, *dir;
    int port, oom;
    sbuf line; /* for the shell form */
    int shell;
} words_ctx;

static void add_word(void *vctx, const char *w, size_t n)
{
    words_ctx *c = vctx;
    sbuf one = {0};
    sb_add(&one, "", 0);
    sb_subst(&one, w, n, c->url, c->dir, c->port);
    if (one.failed) {
        c->oom = 1;
        free(one.data);
        return;
    }
    if (c->shell) {
        /* single-quote every word: values are data, never shell code */
        if (c->line.len)
            sb_add(&c->line, " ", 1);
        sb_add(&c->line, "'", 1);
        for (const char *p = one.data; *p; p++) {
            if (*p == '\'')
                sb_add(&c->line, "'\\''", 4);
            else
                sb_add(&c->line, p, 1);
        }
        sb_add(&c->line, "'", 1);
        free(one.data);
        return;
    }
    if (e2b_array_grow((void **)&c->argv, &c->cap, c->n + 2, sizeof *c->argv) < 0) {
        c->oom = 1;
        free(one.data);
        return;
    }
    c->argv[c->n++] = one.data;
    c->argv[c->n] = NULL;
}

char **e2b_box_command_argv(const char *tmpl, const char *url, const char *dir, int port)
{
    words_ctx c = {.url = url, .dir = dir, .port = port};
    int n = tmpl ? split_words(tmpl, add_word, &c) : -1;
    if (n <= 0 || c.oom) {
        if (c.argv)
            c.argv[c.n] = NULL;
        e2b_box_argv_free(c.argv);
        return NULL;
    }
    return c.argv;
}

void e2b_box_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

char *e2b_box_command_shell(const char *tmpl, const char *url, const char *dir, int port)
{
    words_ctx c = {.url = url, .dir = dir, .port = port, .shell = 1};
    int n = tmpl ? split_words(tmpl, add_word, &c) : -1;
    if (n <= 0 || c.oom || c.line.failed) {
        free(c.line.data);
        return NULL;
    }
    return c.line.data;
}

/* ---- listing ---- */

static int kind_rank(e2b_sandbox_kind k)
{
    return k == E2B_KIND_BOX ? 0 : k == E2B_KIND_WORKSPACE ? 1 : 2;
}

static int cmp_entry(const void *a, const void *b)
{
    const e2b_box_entry *x = a, *y = b;
    int r = kind_rank(x->kind) - kind_rank(y->kind);
    if (r)
        return r;
    const char *nx = x->name ? x->name : x->sandbox ? x->sandbox->sandbox_id : "";
    const char *ny = y->name ? y->name : y->sandbox ? y->sandbox->sandbox_id : "";
    return strcmp(nx, ny);
}

int e2b_box_listing_build(const e2b_box_record_list *records, const e2b_sandbox_list *sandboxes,
                          e2b_box_listing *out)
{
    size_t nr = records ? records->count : 0, ns = sandboxes ? sandboxes->count : 0;
    out->count = 0;
    out->items = calloc(nr + ns + 1, sizeof *out->items);
    if (!out->items)
        return -1;
    for (size_t i = 0; i < ns; i++) {
        const e2b_sandbox *sb = &sandboxes->items[i];
        e2b_box_entry *e = &out->items[out->count++];
        e->sandbox = sb;
        e->kind = sb->kind;
        e->state = sb->state == E2B_STATE_PAUSED ? E2B_BOX_PAUSED : E2B_BOX_RUNNING;
        e->record = e2b_box_record_list_find_sandbox(records, sb->sandbox_id);
        if (e->record)
            e->kind = E2B_KIND_BOX;
        e->name = e2b_box_name_of(records, sb);
    }
    for (size_t i = 0; i < nr; i++) {
        const e2b_box_record *r = &records->items[i];
        int seen = 0;
        for (size_t j = 0; j < ns && !seen; j++)
            seen = strcmp(sandboxes->items[j].sandbox_id, r->sandbox_id) == 0;
        if (seen)
            continue;
        e2b_box_entry *e = &out->items[out->count++];
        e->record = r;
        e->name = r->name;
        e->kind = E2B_KIND_BOX;
        e->state = E2B_BOX_GONE;
    }
    qsort(out->items, out->count, sizeof *out->items, cmp_entry);
    return 0;
}

void e2b_box_listing_clear(e2b_box_listing *l)
{
    free(l->items);
    l->items = NULL;
    l->count = 0;
}
