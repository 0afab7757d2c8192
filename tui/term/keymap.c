#include "tui/term/keymap.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tui/term/keys.h"

static int add(struct keymap *km, int key, enum action_id a)
{
    if (km->n >= KEYMAP_MAX)
        return -1;
    km->b[km->n].key = key;
    km->b[km->n].action = a;
    km->n++;
    return 0;
}

/* Parses a space-separated key list into keys[]; returns the count or -1 with the bad
 * name copied into bad. */
static int parse_keys(const char *list, int *keys, int max, char *bad, size_t badsz)
{
    int n = 0;
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != ' ' && *e != '\t')
            e++;
        char name[64];
        size_t len = (size_t)(e - p);
        if (len >= sizeof name) {
            snprintf(bad, badsz, "%.20s...", p);
            return -1;
        }
        memcpy(name, p, len);
        name[len] = '\0';
        int key;
        if (key_parse(name, &key) != 0 || n >= max) {
            snprintf(bad, badsz, "%s", name);
            return -1;
        }
        keys[n++] = key;
        p = e;
    }
    return n;
}

void keymap_defaults(struct keymap *km)
{
    km->n = 0;
    for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
        int keys[8];
        char bad[80];
        int n = parse_keys(action_info((enum action_id)a)->default_keys, keys, 8, bad, sizeof bad);
        /* The table is ours; a bad default is caught by the unit test. */
        for (int i = 0; i < n; i++)
            add(km, keys[i], (enum action_id)a);
    }
}

enum action_id keymap_lookup(const struct keymap *km, int key, unsigned view_bit)
{
    for (int i = 0; i < km->n; i++) {
        if (km->b[i].key == key && (action_info(km->b[i].action)->views & view_bit))
            return km->b[i].action;
    }
    return ACT_NONE;
}

static void remove_action(struct keymap *km, enum action_id a)
{
    int j = 0;
    for (int i = 0; i < km->n; i++) {
        if (km->b[i].action != a)
            km->b[j++] = km->b[i];
    }
    km->n = j;
}

int keymap_find_conflict(const struct keymap *km, char *msg, size_t msgsz)
{
    for (int i = 0; i < km->n; i++) {
        for (int j = i + 1; j < km->n; j++) {
            const struct key_binding *x = &km->b[i], *y = &km->b[j];
            if (x->key != y->key)
                continue;
            if (x->action != y->action &&
                !(action_info(x->action)->views & action_info(y->action)->views))
                continue;
            char k[32];
            snprintf(msg, msgsz, "key '%s' is bound to both %s and %s",
                     key_format(x->key, k, sizeof k), action_info(x->action)->name,
                     action_info(y->action)->name);
            return 1;
        }
    }
    return 0;
}

static void errorf(char *err, size_t errsz, int *nerr, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void errorf(char *err, size_t errsz, int *nerr, int line, const char *fmt, ...)
{
    (*nerr)++;
    if (!err || errsz == 0)
        return;
    size_t used = strlen(err);
    if (used + 1 >= errsz)
        return;
    int w = snprintf(err + used, errsz - used, "line %d: ", line);
    if (w < 0 || (size_t)w >= errsz - used)
        return;
    used += (size_t)w;
    va_list ap;
    va_start(ap, fmt);
    w = vsnprintf(err + used, errsz - used, fmt, ap);
    va_end(ap);
    used = strlen(err);
    if (used + 1 < errsz) {
        err[used] = '\n';
        err[used + 1] = '\0';
    }
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Applies one "key.<action> = <keys>" assignment. */
static void apply_line(struct keymap *km, char *line, int lineno, char *err, size_t errsz,
                       int *nerr)
{
    char *eq = strchr(line, '=');
    if (!eq) {
        errorf(err, errsz, nerr, lineno, "expected key.<action> = <keys>");
        return;
    }
    *eq = '\0';
    char *lhs = trim(line), *rhs = trim(eq + 1);
    const char *name = lhs + 4;
    enum action_id a = action_by_name(name);
    if (a == ACT_NONE) {
        errorf(err, errsz, nerr, lineno, "unknown action '%.40s'", name);
        return;
    }
    int keys[8], n = 0;
    if (strcmp(rhs, "none") != 0) {
        char bad[80];
        n = parse_keys(rhs, keys, 8, bad, sizeof bad);
        if (n < 0) {
            errorf(err, errsz, nerr, lineno, "unknown key '%s' for %s", bad, name);
            return;
        }
        if (n == 0) {
            errorf(err, errsz, nerr, lineno, "no key given for %s (use 'none' to unbind)", name);
            return;
        }
    }
    struct keymap saved = *km;
    remove_action(km, a);
    for (int i = 0; i < n; i++) {
        if (add(km, keys[i], a) != 0) {
            *km = saved;
            errorf(err, errsz, nerr, lineno, "too many key bindings");
            return;
        }
    }
    char why[160];
    if (keymap_find_conflict(km, why, sizeof why)) {
        *km = saved;
        errorf(err, errsz, nerr, lineno, "%s; line ignored", why);
    }
}

int keymap_apply_config(struct keymap *km, const char *text, char *err, size_t errsz)
{
    int nerr = 0, lineno = 0;
    if (err && errsz)
        err[0] = '\0';
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        lineno++;
        char buf[512];
        if (len >= sizeof buf) {
            errorf(err, errsz, &nerr, lineno, "line too long");
        } else {
            memcpy(buf, p, len);
            buf[len] = '\0';
            char *line = trim(buf);
            if (strncmp(line, "key.", 4) == 0)
                apply_line(km, line, lineno, err, errsz, &nerr);
        }
        p = e ? e + 1 : p + len;
    }
    return nerr;
}

/* Writes the keys bound to action a into buf, joined by sep; a key that does not fit is
 * left out whole. Returns the length written. */
static size_t join_keys(const struct keymap *km, enum action_id a, const char *sep, char *buf,
                      size_t bufsz)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < km->n; i++) {
        if (km->b[i].action != a)
            continue;
        char k[32];
        int w = snprintf(buf + used, bufsz - used, "%s%s", used ? sep : "",
                         key_format(km->b[i].key, k, sizeof k));
        if (w < 0 || (size_t)w >= bufsz - used) {
            buf[used] = '\0';
            break;
        }
        used += (size_t)w;
    }
    return used;
}

const char *keymap_keys_for(const struct keymap *km, enum action_id a, char *buf, size_t bufsz)
{
    if (bufsz == 0)
        return buf;
    join_keys(km, a, ", ", buf, bufsz);
    return buf;
}

const char *keymap_keys_shown(const struct keymap *km, enum action_id a, char *buf,
                              size_t bufsz)
{
    return keymap_keys_for(km, a, buf, bufsz);
}

/* The keys of an action as the config file spells them: space-separated. */
static void conf_keys(const struct keymap *km, enum action_id a, char *buf, size_t bufsz)
{
    if (join_keys(km, a, " ", buf, bufsz) == 0)
        snprintf(buf, bufsz, "none");
}

void keymap_write_conf(const struct keymap *km, FILE *f)
{
    fputs("# e2b-tui default key bindings (generated by: e2b-tui --print-keys=conf).\n"
          "# Copy a line into ~/.config/e2b-tui/config and change it to rebind an action:\n"
          "#   key.<action> = <key> [<key>...]     or     key.<action> = none\n"
          "# Keys: a character (K, /, ?), ctrl-x, enter, esc, tab, btab, backspace, space,\n"
          "# up, down, left, right, pgup, pgdn, home, end, delete, insert, f1..f12.\n"
          "# Sorting: < and > move the sort column (sort-prev, sort-next), = reverses it.\n",
          f);
    for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
        const struct action_info *ai = action_info((enum action_id)a);
        char keys[128];
        conf_keys(km, (enum action_id)a, keys, sizeof keys);
        fprintf(f, "\n# %s%s\nkey.%s = %s\n", ai->help,
                (ai->flags & ACTION_MUTATES) ? " [hidden by --readonly]" : "", ai->name, keys);
    }
}

/* Writes s for a man page: backslashes and leading dots/quotes escaped, '-' as "\-". */
static void man_text(FILE *f, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", f);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

void keymap_write_man(const struct keymap *km, FILE *f)
{
    for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
        const struct action_info *ai = action_info((enum action_id)a);
        char keys[128];
        keymap_keys_shown(km, (enum action_id)a, keys, sizeof keys);
        if (!keys[0])
            continue;
        fputs(".TP\n.B ", f);
        man_text(f, keys);
        fputc('\n', f);
        man_text(f, ai->help);
        if (ai->flags & ACTION_MUTATES)
            fputs(" (hidden by \\-\\-readonly)", f);
        fputc('\n', f);
    }
}

void keymap_write_text(const struct keymap *km, FILE *f, int readonly)
{
    for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
        const struct action_info *ai = action_info((enum action_id)a);
        if (readonly && (ai->flags & ACTION_MUTATES))
            continue;
        char keys[128];
        keymap_keys_shown(km, (enum action_id)a, keys, sizeof keys);
        if (!keys[0])
            continue;
        fprintf(f, "%-22s %-16s %s\n", keys, ai->name, ai->help);
    }
}
