#include "core/e2b/config.h"
#include "core/e2b/cost.h"
#include "core/e2b/egress_list.h"

#include "core/e2b/objects.h"
#include "core/util/str.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum key_id {
    K_DOMAIN,
    K_API_URL,
    K_SANDBOX_URL,
    K_TEMPLATE,
    K_HOURS,
    K_SERVE,
    K_ATTACH,
    K_HEALTH,
    K_OPENCODE,
    K_WORKSPACE_KEYS,
    K_KEYSTORE,
    K_REFRESH,
    K_CONFIG,
    K_API_KEY,
    /* reliability */
    K_HTTP_TIMEOUT,
    K_LOG_MAX,
    K_HISTORY_MAX,
    K_ORPHAN_SWEEP_DELAY,
    K_TEMPLATE_TTL,
    K_IDLE_MINUTES,
    K_NOTIFY,
    /* boxes' network */
    K_PUBLIC_TRAFFIC,
    K_SERVE_EARLY,
    /* what up sends */
    K_UP_STASH,
    /* groups of attempts (--try) */
    K_TEST_COMMAND,
    K_TEST_TIMEOUT,
    /* a project set up once (core/box/prepare.h) */
    K_SETUP_COMMAND,
    K_SETUP_TIMEOUT,
    /* boxes' egress (core/e2b/egress_list.h) */
    K_ALLOW_OUT,
    K_DENY_OUT,
    K_ALLOW_INTERNET,
    /* what a sandbox costs (core/e2b/cost.h) */
    K_PRICE_VCPU,
    K_PRICE_GIB,
    /* the dashboard's preview beside the Boxes list */
    K_PREVIEW_COLUMNS,
    K_BUDGET,
    K_COUNT
};

_Static_assert(K_COUNT <= sizeof ((e2b_config *)0)->src, "e2b_config.src holds every key");

static const char *const key_names[K_COUNT] = {
    "domain",   "api_url",        "sandbox_url", "template", "hours",  "serve_command",
    "attach_command", "health_path", "opencode", "workspace_keys", "keystore", "refresh",
    "config",   "api_key",
    /* reliability */
    "http_timeout", "log_max", "history_max", "orphan_sweep_delay", "template_ttl", "idle_minutes",
    "notify",
    "public_traffic", "serve_early",
    "up_stash",
    "test_command", "test_timeout",
    "setup_command", "setup_timeout",
    "network.allow_out", "network.deny_out", "allow_internet",
    "price_vcpu_second", "price_gib_second",
    "preview_columns",
    "budget_usd",
};

void e2b_config_init(e2b_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->domain = strdup("e2b.app");
    cfg->template_id = strdup("opencode");
    cfg->hours = 1;
    cfg->allow_internet = 1;
    cfg->opencode = 0; /* auto: what the box and this machine have (opencode_kind.h) */
    cfg->workspace_keys = strdup(E2B_DEFAULT_WORKSPACE_KEYS);
    cfg->keystore = strdup("auto");
    cfg->refresh_seconds = E2B_DEFAULT_REFRESH_S;
    cfg->preview_columns = E2B_DEFAULT_PREVIEW_COLUMNS;
    cfg->http_timeout_s = E2B_DEFAULT_HTTP_TIMEOUT_S;
    cfg->log_max = E2B_DEFAULT_LOG_MAX;
    cfg->history_max = E2B_DEFAULT_HISTORY_MAX;
    cfg->orphan_sweep_delay_s = E2B_DEFAULT_ORPHAN_SWEEP_DELAY_S;
    cfg->template_ttl_s = E2B_DEFAULT_TEMPLATE_TTL_S;
    cfg->idle_ms = E2B_DEFAULT_IDLE_MINUTES * 60000L;
    cfg->test_timeout_s = E2B_DEFAULT_TEST_TIMEOUT_S;
    cfg->setup_timeout_s = E2B_DEFAULT_SETUP_TIMEOUT_S;
    cfg->notify = E2B_NOTIFY_BELL;
    cfg->limits = e2b_limits_default();
    cfg->price_vcpu_second = E2B_DEFAULT_PRICE_VCPU_SECOND;
    cfg->price_gib_second = E2B_DEFAULT_PRICE_GIB_SECOND;
}

void e2b_config_clear(e2b_config *cfg)
{
    if (!cfg)
        return;
    free(cfg->api_key);
    free(cfg->domain);
    free(cfg->api_url);
    free(cfg->sandbox_url);
    free(cfg->template_id);
    free(cfg->serve_command);
    free(cfg->attach_command);
    free(cfg->health_path);
    free(cfg->test_command);
    free(cfg->setup_command);
    free(cfg->allow_out);
    free(cfg->deny_out);
    free(cfg->workspace_keys);
    free(cfg->keystore);
    free(cfg->config_path);
    free(cfg->state_dir);
    free(cfg->records_dir);
    free(cfg->log_path);
    memset(cfg, 0, sizeof *cfg);
}

/* A price as the config writes it: 0.000014, 1 (no exponent, no trailing zeros). */
static const char *price_text(double d, char *buf, size_t n)
{
    snprintf(buf, n, "%.9f", d);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *end = buf + strlen(buf);
        while (end > dot + 1 && end[-1] == '0')
            *--end = '\0';
        if (end == dot + 1)
            *dot = '\0';
    }
    return buf;
}

static int parse_int(const char *v, long lo, long hi, int *out)
{
    char *end;
    long n;
    errno = 0;
    if (!*v)
        return -1;
    n = strtol(v, &end, 10);
    if (errno || *end || n < lo || n > hi)
        return -1;
    *out = (int)n;
    return 0;
}

static int valid_domain(const char *v)
{
    if (!*v || *v == '.' || *v == '-')
        return 0;
    for (const char *p = v; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != ':')
            return 0;
    return 1;
}

static int valid_url(const char *v)
{
    const char *rest;
    if (strncmp(v, "http://", 7) == 0)
        rest = v + 7;
    else if (strncmp(v, "https://", 8) == 0)
        rest = v + 8;
    else
        return 0;
    if (!*rest || *rest == '/')
        return 0;
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return 0;
    return 1;
}

static int no_space_token(const char *v)
{
    if (!*v)
        return 0;
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return 0;
    return 1;
}

static int printable(const char *v)
{
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p < ' ' || *p == 0x7f)
            return 0;
    return 1;
}

static int replace(char **slot, const char *v)
{
    char *c = strdup(v);
    if (!c)
        return -1;
    free(*slot);
    *slot = c;
    return 0;
}

/* ---- reliability keys: http_timeout, log_max, orphan_sweep_delay ---- */

/* A byte count: digits with an optional K, M or G (powers of 1024). */
static int parse_size(const char *v, long lo, long hi, long *out)
{
    char *end;
    long long n;
    errno = 0;
    if (!isdigit((unsigned char)*v))
        return -1;
    n = strtoll(v, &end, 10);
    if (errno)
        return -1;
    long long mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1024 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        mul = 1024 * 1024 * 1024, end++;
    if (*end || n > hi / mul || n * mul < lo)
        return -1;
    *out = (long)(n * mul);
    return 0;
}

/* Returns 1 when id is one of these keys (then *err says what is wrong, or NULL). */
static int set_reliability(e2b_config *cfg, int id, const char *value,
                           e2b_error **err)
{
    int n;
    long l;
    switch (id) {
    case K_HTTP_TIMEOUT:
        if (parse_int(value, 1, 3600, &n) < 0)
            *err = e2b_error_new(E2B_ERR_INVALID, "http_timeout must be a number of seconds from 1 to 3600");
        else
            cfg->http_timeout_s = n;
        return 1;
    case K_LOG_MAX:
        if (parse_size(value, 1024, 1024L * 1024 * 1024, &l) < 0)
            *err = e2b_error_new(E2B_ERR_INVALID, "log_max must be a size from 1K to 1G (e.g. 4M)");
        else
            cfg->log_max = l;
        return 1;
    case K_HISTORY_MAX:
        if (parse_size(value, 1024, 64L * 1024 * 1024, &l) < 0)
            *err = e2b_error_new(E2B_ERR_INVALID, "history_max must be a size from 1K to 64M (e.g. 256K)");
        else
            cfg->history_max = l;
        return 1;
    case K_ORPHAN_SWEEP_DELAY:
        if (parse_int(value, 1, 3600, &n) < 0)
            *err = e2b_error_new(E2B_ERR_INVALID, "orphan_sweep_delay must be a number of seconds from 1 to 3600");
        else
            cfg->orphan_sweep_delay_s = n;
        return 1;
    case K_TEST_TIMEOUT:
        if (parse_int(value, 1, 86400, &n) < 0)
            *err = e2b_error_new(E2B_ERR_INVALID, "test_timeout must be a number of seconds from 1 to 86400");
        else
            cfg->test_timeout_s = n;
        return 1;
    case K_SETUP_TIMEOUT:
        if (parse_int(value, 1, 86400, &n) < 0)
            *err = e2b_error_new(E2B_ERR_INVALID, "setup_timeout must be a number of seconds from 1 to 86400");
        else
            cfg->setup_timeout_s = n;
        return 1;
    case K_TEMPLATE_TTL: { /* "72h", "3d" or hours */
        char *end;
        long v = strtol(value, &end, 10);
        long unit = *end == 'd' ? 86400 : 3600;
        if (*end == 'd' || *end == 'h')
            end++;
        if (end == value || *end || v < 1 || v * unit > 3650L * 86400)
            *err = e2b_error_new(E2B_ERR_INVALID, "template_ttl must be a duration such as 3d or 72h (hours without a unit)");
        else
            cfg->template_ttl_s = v * unit;
        return 1;
    }
    case K_IDLE_MINUTES: { /* minutes, fractions too (tests use a few seconds); 0 = off */
        char *end;
        errno = 0;
        double v = strtod(value, &end);
        if (end == value || *end || errno || !(v >= 0) || v > 1440 || (v > 0 && v * 60000 < 100))
            *err = e2b_error_new(E2B_ERR_INVALID, "idle_minutes must be a number of minutes "
                                 "from 0 (never pause) to 1440, such as 15 or 0.5");
        else
            cfg->idle_ms = (long)(v * 60000 + 0.5);
        return 1;
    }
    }
    return 0;
}

/* "bell", "bell, osc9", "osc9 | osc777", "none": words split by spaces, commas or '|'. */
static int parse_notify(const char *value, unsigned *out)
{
    unsigned bits = 0;
    bool none = false, any = false;
    const char *p = value;
    while (*p) {
        while (*p == ' ' || *p == ',' || *p == '|' || *p == '\t')
            p++;
        size_t n = strcspn(p, " ,|\t");
        if (!n)
            break;
        any = true;
        if (n == 4 && !strncmp(p, "bell", 4))
            bits |= E2B_NOTIFY_BELL;
        else if (n == 4 && !strncmp(p, "osc9", 4))
            bits |= E2B_NOTIFY_OSC9;
        else if (n == 6 && !strncmp(p, "osc777", 6))
            bits |= E2B_NOTIFY_OSC777;
        else if (n == 4 && !strncmp(p, "none", 4))
            none = true;
        else
            return -1;
        p += n;
    }
    if (!any || (none && bits))
        return -1;
    *out = bits;
    return 0;
}
/* A boolean key: true/1/yes or false/0/no. */
static e2b_error *set_bool(int *slot, const char *key, const char *value)
{
    if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0 || strcmp(value, "yes") == 0)
        *slot = 1;
    else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0 || strcmp(value, "no") == 0)
        *slot = 0;
    else
        return e2b_error_new(E2B_ERR_INVALID, "%s must be true or false", key);
    return NULL;
}


e2b_error *e2b_config_set(e2b_config *cfg, const char *key, const char *value,
                          e2b_config_source source)
{
    int id = -1, n;
    char **slot = NULL;
    e2b_error *err = NULL;
    if (strncmp(key, "limit.", 6) == 0) /* the input policy (core/util/limits.h) */
        return e2b_limits_set(&cfg->limits, key + 6, value);
    for (int i = 0; i < K_COUNT; i++)
        if (strcmp(key, key_names[i]) == 0)
            id = i;
    if (id < 0)
        return e2b_error_new(E2B_ERR_INVALID, "unknown key '%s'", key);
    if (id == K_API_KEY && source != E2B_SRC_ENV)
        return e2b_error_new(E2B_ERR_INVALID, "the API key is read only from the environment (E2B_API_KEY), not from %s",
                   source == E2B_SRC_FILE ? "the config file" : "the command line");
    if (cfg->src[id] > source)
        return NULL;
    if (set_reliability(cfg, id, value, &err)) {
        if (err)
            return err;
        cfg->src[id] = (unsigned char)source;
        return NULL;
    }
    switch (id) {
    case K_DOMAIN:
        if (!valid_domain(value))
            return e2b_error_new(E2B_ERR_INVALID, "domain must be a host name such as e2b.app or localhost:3000");
        slot = &cfg->domain;
        break;
    case K_API_URL:
    case K_SANDBOX_URL:
        if (!valid_url(value))
            return e2b_error_new(E2B_ERR_INVALID, "%s must be an http:// or https:// URL", key);
        slot = id == K_API_URL ? &cfg->api_url : &cfg->sandbox_url;
        break;
    case K_TEMPLATE:
        if (!no_space_token(value))
            return e2b_error_new(E2B_ERR_INVALID, "template must be a template name or id without spaces");
        slot = &cfg->template_id;
        break;
    case K_PRICE_VCPU:
    case K_PRICE_GIB: {
        char *end;
        errno = 0;
        double d = *value ? strtod(value, &end) : -1;
        if (!*value || errno || *end || !(d >= 0 && d <= 1))
            return e2b_error_new(E2B_ERR_INVALID, "%s must be dollars per second, a number "
                                                  "from 0 to 1 (e.g. 0.000014)", key);
        *(id == K_PRICE_VCPU ? &cfg->price_vcpu_second : &cfg->price_gib_second) = d;
        break;
    }
    case K_BUDGET: { /* 0 = none (the default) */
        double d = 0;
        if (strcmp(value, "0") && e2b_budget_parse(value, &d) < 0)
            return e2b_error_new(E2B_ERR_INVALID, "budget_usd must be dollars, a number "
                                                  "from 0.01 to %g (0: no budget)",
                                 E2B_BUDGET_MAX_USD);
        cfg->budget_usd = d;
        break;
    }
    case K_HOURS:
        if (parse_int(value, 1, 24, &n) < 0)
            return e2b_error_new(E2B_ERR_INVALID, "hours must be a whole number from 1 to 24");
        cfg->hours = n;
        break;
    case K_SERVE:
    case K_ATTACH:
        if (!*value || !printable(value))
            return e2b_error_new(E2B_ERR_INVALID, "%s must be a non-empty command line", key);
        slot = id == K_SERVE ? &cfg->serve_command : &cfg->attach_command;
        break;
    case K_TEST_COMMAND:
        if (!*value || !printable(value) || strlen(value) > 4096)
            return e2b_error_new(E2B_ERR_INVALID, "test_command must be a command line (e.g. make test)");
        slot = &cfg->test_command;
        break;
    case K_SETUP_COMMAND:
        if (!*value || !printable(value) || strlen(value) > 4096)
            return e2b_error_new(E2B_ERR_INVALID, "setup_command must be a command line (e.g. npm ci)");
        slot = &cfg->setup_command;
        break;
    case K_HEALTH:
        if (*value != '/' || !no_space_token(value))
            return e2b_error_new(E2B_ERR_INVALID, "health_path must start with '/' (e.g. /api/health)");
        slot = &cfg->health_path;
        break;
    case K_PUBLIC_TRAFFIC:
    case K_UP_STASH: {
        e2b_error *bad = id == K_UP_STASH ? set_bool(&cfg->up_stash, "up_stash", value)
                                          : set_bool(&cfg->public_traffic, "public_traffic", value);
        if (bad)
            return bad;
        break;
    }
    case K_ALLOW_OUT:
    case K_DENY_OUT: {
        char why[300];
        if (e2b_egress_list_check(value, id == K_DENY_OUT, why, sizeof why) != 0)
            return e2b_error_new(E2B_ERR_INVALID, "%s: %s", key, why);
        slot = id == K_ALLOW_OUT ? &cfg->allow_out : &cfg->deny_out;
        break;
    }
    case K_ALLOW_INTERNET: {
        e2b_error *bad = set_bool(&cfg->allow_internet, "allow_internet", value);
        if (bad)
            return bad;
        break;
    }
    case K_SERVE_EARLY:
        if (strcmp(value, "auto") == 0) {
            cfg->serve_early = E2B_SERVE_EARLY_AUTO;
        } else if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0) {
            cfg->serve_early = E2B_SERVE_EARLY_YES;
        } else if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0) {
            cfg->serve_early = E2B_SERVE_EARLY_NO;
        } else {
            return e2b_error_new(E2B_ERR_INVALID, "serve_early must be auto, yes or no");
        }
        break;
    case K_OPENCODE:
        if (strcmp(value, "auto") == 0)
            n = 0;
        else if (parse_int(value, 1, 2, &n) < 0)
            return e2b_error_new(E2B_ERR_INVALID,
                                 "opencode must be auto, 1 (OpenCode 1.x) or 2 (OpenCode 2)");
        cfg->opencode = n;
        break;
    case K_WORKSPACE_KEYS:
        if (!printable(value))
            return e2b_error_new(E2B_ERR_INVALID, "workspace_keys must be a comma-separated list of metadata keys");
        slot = &cfg->workspace_keys;
        break;
    case K_KEYSTORE:
        if (!no_space_token(value))
            return e2b_error_new(E2B_ERR_INVALID, "keystore must be a backend name (auto, secret-service, file, memory)");
        slot = &cfg->keystore;
        break;
    case K_NOTIFY:
        if (parse_notify(value, &cfg->notify) < 0)
            return e2b_error_new(E2B_ERR_INVALID, "notify must be none or a list of bell, osc9, osc777 (e.g. bell, osc9)");
        break;
    case K_PREVIEW_COLUMNS:
        if (parse_int(value, 0, 10000, &n) < 0)
            return e2b_error_new(E2B_ERR_INVALID, "preview_columns must be a number of columns "
                                                  "(0: the preview only on P)");
        cfg->preview_columns = n;
        break;
    case K_REFRESH:
        if (parse_int(value, 1, 3600, &n) < 0)
            return e2b_error_new(E2B_ERR_INVALID, "refresh must be a number of seconds from 1 to 3600");
        cfg->refresh_seconds = n;
        break;
    case K_CONFIG:
        if (!*value)
            return e2b_error_new(E2B_ERR_INVALID, "config must be a file path");
        slot = &cfg->config_path;
        cfg->config_path_explicit = 1;
        break;
    case K_API_KEY:
        if (!printable(value))
            return e2b_error_new(E2B_ERR_INVALID, "E2B_API_KEY contains control characters");
        slot = &cfg->api_key;
        break;
    }
    if (slot && replace(slot, value) < 0)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    /* URLs are joined with paths later: no trailing slash. */
    if (slot && (id == K_API_URL || id == K_SANDBOX_URL)) {
        size_t l = strlen(*slot);
        while (l > 0 && (*slot)[l - 1] == '/')
            (*slot)[--l] = '\0';
    }
    cfg->src[id] = (unsigned char)source;
    return NULL;
}

static char *trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

e2b_error *e2b_config_parse_text(e2b_config *cfg, const char *text, size_t len,
                                 const char *origin)
{
    size_t start = 0;
    int lineno = 0;
    while (start < len) {
        size_t end = start;
        char *line, *eq, *key, *value;
        e2b_error *bad = NULL;
        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        if (memchr(text + start, '\0', end - start))
            return e2b_error_new(E2B_ERR_INVALID, "%s:%d: the line contains a NUL byte", origin,
                                 lineno);
        line = strndup(text + start, end - start);
        if (!line)
            return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        start = end + 1;
        key = trim(line);
        if (!*key || *key == '#') {
            free(line);
            continue;
        }
        eq = strchr(key, '=');
        if (!eq) {
            free(line);
            return e2b_error_new(E2B_ERR_INVALID, "%s:%d: expected 'key = value'", origin, lineno);
        }
        *eq = '\0';
        value = trim(eq + 1);
        key = trim(key);
        /* key.<action> lines are the dashboard's key bindings: its key map reads and checks
         * them (tui/term/keymap.h), so they are not configuration values here. */
        if (strncmp(key, "key.", 4) == 0) {
            free(line);
            continue;
        }
        for (char *p = key; *p; p++) {
            if (!islower((unsigned char)*p) && *p != '_' &&
                !(*p == '.' && p == key + 5 && strncmp(key, "limit.", 6) == 0) &&
                !(*p == '.' && p == key + 7 && strncmp(key, "network.", 8) == 0)) {
                free(line);
                return e2b_error_new(E2B_ERR_INVALID, "%s:%d: expected 'key = value'", origin,
                                     lineno);
            }
        }
        if (!*key) {
            free(line);
            return e2b_error_new(E2B_ERR_INVALID, "%s:%d: expected 'key = value'", origin, lineno);
        }
        {
            size_t vl = strlen(value);
            if (vl >= 2 && value[0] == '"' && value[vl - 1] == '"') {
                value[vl - 1] = '\0';
                value++;
            }
        }
        if (strcmp(key, "config") == 0) {
            free(line);
            return e2b_error_new(E2B_ERR_INVALID, "%s:%d: 'config' cannot be set in the config file",
                                 origin, lineno);
        }
        if ((bad = e2b_config_set(cfg, key, value, E2B_SRC_FILE))) {
            free(line);
            return e2b_error_set_action(bad, "%s:%d", origin, lineno);
        }
        free(line);
    }
    return NULL;
}

static const char *default_env(const char *name)
{
    return getenv(name);
}

/* An environment value that is set and not empty. */
static const char *env_value(const char *(*lookup)(const char *), const char *name)
{
    const char *v = lookup(name);
    return v && *v ? v : NULL;
}

/* $XDG_<x> when absolute, else $HOME/<fallback>; NULL when neither is usable. */
static char *xdg_dir(const char *(*lookup)(const char *), const char *xdg, const char *fallback)
{
    const char *v = env_value(lookup, xdg), *home;
    if (v && v[0] == '/')
        return e2b_strfmt("%s/e2b-tui", v);
    home = env_value(lookup, "HOME");
    if (!home)
        return NULL;
    return e2b_strfmt("%s/%s/e2b-tui", home, fallback);
}

static e2b_error *read_file(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    *text = NULL;
    *len = 0;
    if (!f)
        return e2b_error_new(E2B_ERR_IO, "cannot read the config file %s: %s", path,
                             strerror(errno));
    for (;;) {
        if (n + 4096 > cap) {
            char *p;
            if (cap > 1 << 20) {
                free(buf);
                fclose(f);
                return e2b_error_new(E2B_ERR_INVALID, "the config file %s is larger than 1 MiB",
                                     path);
            }
            p = realloc(buf, cap = cap ? cap * 2 : 8192);
            if (!p) {
                free(buf);
                fclose(f);
                return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
            }
            buf = p;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return e2b_error_new(E2B_ERR_IO, "cannot read the config file %s", path);
    }
    fclose(f);
    *text = buf;
    *len = n;
    return NULL;
}

static e2b_error *env_set(e2b_config *cfg, const char *(*lookup)(const char *), const char *env,
                          const char *key)
{
    const char *v = env_value(lookup, env);
    e2b_error *e = v ? e2b_config_set(cfg, key, v, E2B_SRC_ENV) : NULL;
    return e ? e2b_error_set_action(e, "%s", env) : NULL;
}

e2b_error *e2b_config_load(e2b_config *cfg, const char *(*env_lookup)(const char *name))
{
    const char *(*lookup)(const char *) = env_lookup ? env_lookup : default_env;
    e2b_error *err;
    char *cfg_dir;

    /* Paths. */
    if (!cfg->config_path) {
        cfg_dir = xdg_dir(lookup, "XDG_CONFIG_HOME", ".config");
        if (!cfg_dir)
            return e2b_error_new(E2B_ERR_INVALID, "neither XDG_CONFIG_HOME nor HOME is set");
        cfg->config_path = e2b_strfmt("%s/config", cfg_dir);
        free(cfg_dir);
    }
    free(cfg->state_dir);
    cfg->state_dir = xdg_dir(lookup, "XDG_STATE_HOME", ".local/state");
    if (!cfg->state_dir)
        return e2b_error_new(E2B_ERR_INVALID, "neither XDG_STATE_HOME nor HOME is set");
    free(cfg->records_dir);
    free(cfg->log_path);
    cfg->records_dir = e2b_strfmt("%s/boxes", cfg->state_dir);
    cfg->log_path = e2b_strfmt("%s/e2b-tui.log", cfg->state_dir);
    if (!cfg->config_path || !cfg->records_dir || !cfg->log_path)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");

    /* The file: missing is fine unless it was named explicitly. */
    {
        char *text;
        size_t len;
        FILE *probe = fopen(cfg->config_path, "rb");
        if (probe || cfg->config_path_explicit) {
            if (probe)
                fclose(probe);
            err = read_file(cfg->config_path, &text, &len);
            if (err)
                return err;
            err = e2b_config_parse_text(cfg, text, len, cfg->config_path);
            free(text);
            if (err)
                return err;
        }
    }

    /* The environment. */
    if ((err = env_set(cfg, lookup, "E2B_DOMAIN", "domain")) ||
        (err = env_set(cfg, lookup, "E2B_API_URL", "api_url")) ||
        (err = env_set(cfg, lookup, "E2B_SANDBOX_URL", "sandbox_url")) ||
        (err = env_set(cfg, lookup, "E2B_API_KEY", "api_key")) ||
        (err = env_set(cfg, lookup, "E2B_TUI_HTTP_TIMEOUT", "http_timeout")))
        return err;

    /* Derived values. */
    if (!cfg->api_url) {
        cfg->api_url = e2b_strfmt("%s://api.%s", e2b_domain_is_local(cfg->domain) ? "http" : "https",
                           cfg->domain);
    }
    /* A forced preset fills the three keys it names; auto leaves them unset, to be chosen
     * per box from what was found (e2b_config_serve_command and the others). */
    if (cfg->opencode) {
        e2b_opencode_kind k;
        e2b_opencode_kind_from_preset(cfg->opencode, &k);
        if (!cfg->serve_command && !(cfg->serve_command = strdup(e2b_opencode_kind_serve(&k))))
            return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        if (!cfg->attach_command && !(cfg->attach_command = strdup(e2b_opencode_kind_attach(&k))))
            return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        if (!cfg->health_path && !(cfg->health_path = strdup(e2b_opencode_kind_health(k.api))))
            return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    if (!cfg->api_url)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    return NULL;
}

int e2b_config_box_api(const e2b_config *cfg, const e2b_opencode_kind *box)
{
    return cfg->opencode ? cfg->opencode : box && box->api ? box->api : 2;
}

const char *e2b_config_serve_command(const e2b_config *cfg, const e2b_opencode_kind *box)
{
    return cfg->serve_command ? cfg->serve_command : e2b_opencode_kind_serve(box);
}

const char *e2b_config_health_path(const e2b_config *cfg, int api)
{
    return cfg->health_path ? cfg->health_path : e2b_opencode_kind_health(api);
}

const char *e2b_config_attach_command(const e2b_config *cfg, const e2b_opencode_kind *local,
                                      int box_api)
{
    if (cfg->attach_command)
        return cfg->attach_command;
    if (local && local->api)
        return e2b_opencode_kind_attach(local);
    e2b_opencode_kind k; /* nothing found here: the preset of the box's API */
    e2b_opencode_kind_from_preset(box_api, &k);
    return e2b_opencode_kind_attach(&k);
}

/* Length of the host part of host[:port]. */
static size_t host_len(const char *domain)
{
    const char *c = strchr(domain, ':');
    return c ? (size_t)(c - domain) : strlen(domain);
}

int e2b_domain_is_local(const char *domain)
{
    size_t n;
    if (!domain)
        return 0;
    n = host_len(domain);
    if (n == 9 && strncasecmp(domain, "localhost", 9) == 0)
        return 1;
    return n > 10 && strncasecmp(domain + n - 10, ".localhost", 10) == 0;
}

int e2b_domain_is_e2b(const char *domain)
{
    static const char *const own[] = {"e2b.app", "e2b.dev", "e2b.pro", "e2b-staging.dev"};
    for (size_t i = 0; domain && i < sizeof own / sizeof own[0]; i++)
        if (strcasecmp(domain, own[i]) == 0)
            return 1;
    return 0;
}

static const char *pick_domain(const e2b_config *cfg, const char *sandbox_domain)
{
    return sandbox_domain && *sandbox_domain ? sandbox_domain : cfg->domain;
}

int e2b_config_serve_early(const e2b_config *cfg)
{
    if (cfg->serve_early != E2B_SERVE_EARLY_AUTO)
        return cfg->serve_early == E2B_SERVE_EARLY_YES;
    const char *s = cfg->serve_command;
    if (!s)
        return 1; /* chosen from what the box has: an OpenCode server's own preset */
    if (strstr(s, "{dir}") || strpbrk(s, "'\"\\$`;&|<>()"))
        return 0; /* quoting or shell syntax: not worth guessing */
    char word[256];
    int after_env = 0;
    for (;;) {
        s += strspn(s, " \t");
        size_t n = strcspn(s, " \t");
        if (n == 0 || n >= sizeof word)
            return 0;
        memcpy(word, s, n);
        word[n] = '\0';
        s += n;
        if (!after_env && strcmp(word, "env") == 0) {
            after_env = 1;
            continue;
        }
        if (strchr(word, '=') && word[0] != '-')
            continue; /* NAME=value */
        if (word[0] == '-')
            return 0; /* env's options: not worth guessing */
        break;
    }
    const char *slash = strrchr(word, '/');
    if (slash && word[0] != '/')
        return 0; /* a relative path: the program may be in the project */
    const char *prog = slash ? slash + 1 : word;
    if (strcmp(prog, "opencode") != 0 && strcmp(prog, "opencode2") != 0)
        return 0;
    s += strspn(s, " \t");
    return strncmp(s, "serve", 5) == 0 && (s[5] == '\0' || s[5] == ' ' || s[5] == '\t');
}

char *e2b_config_envd_url(const e2b_config *cfg, const char *sandbox_id,
                          const char *sandbox_domain)
{
    const char *d = pick_domain(cfg, sandbox_domain);
    if (cfg->sandbox_url)
        return strdup(cfg->sandbox_url);
    if (e2b_domain_is_e2b(d))
        return e2b_strfmt("https://sandbox.%s", d);
    return e2b_strfmt("%s://49983-%s.%s", e2b_domain_is_local(d) ? "http" : "https", sandbox_id, d);
}

char *e2b_config_port_url(const e2b_config *cfg, int port, const char *sandbox_id,
                          const char *sandbox_domain)
{
    const char *d = pick_domain(cfg, sandbox_domain);
    return e2b_strfmt("%s://%d-%s.%s", e2b_domain_is_local(d) ? "http" : "https", port, sandbox_id, d);
}

void e2b_config_key_hint(const char *api_key, char *buf, size_t size)
{
    size_t n = api_key ? strlen(api_key) : 0;
    if (!n)
        snprintf(buf, size, "not set");
    else if (n >= 12) /* short keys would give too much away */
        snprintf(buf, size, "set, ends in %s", api_key + n - 4);
    else
        snprintf(buf, size, "set");
}

/* n as a config value would say it: with the largest binary suffix that divides it. */
static const char *size_suffixed(uint64_t n, char out[24])
{
    static const char units[] = "GMK";
    for (int i = 0; i < 3; i++) {
        unsigned shift = (unsigned)(30 - 10 * i);
        if (n && n % ((uint64_t)1 << shift) == 0) {
            snprintf(out, 24, "%llu%c", (unsigned long long)(n >> shift), units[i]);
            return out;
        }
    }
    snprintf(out, 24, "%llu", (unsigned long long)n);
    return out;
}

void e2b_config_write_info(const e2b_config *cfg, const char *keystore_in_use, FILE *out)
{
    char hint[64];
    char *example = e2b_config_envd_url(cfg, "<id>", NULL);
    const char *src_names[] = {"default", "config file", "environment", "command line"};
    e2b_config_key_hint(cfg->api_key, hint, sizeof hint);
    fprintf(out, "e2b-tui %s\n", E2B_TUI_VERSION);
    fprintf(out, "API URL:        %s\n", cfg->api_url ? cfg->api_url : "(unresolved)");
    fprintf(out, "domain:         %s (from %s)\n", cfg->domain, src_names[cfg->src[K_DOMAIN]]);
    if (cfg->sandbox_url)
        fprintf(out, "sandbox URL:    %s (E2B_SANDBOX_URL, every sandbox)\n", cfg->sandbox_url);
    else if (e2b_domain_is_e2b(cfg->domain))
        fprintf(out, "sandbox URL:    %s (sandbox chosen by E2b-Sandbox-Id header)\n",
                example ? example : "?");
    else
        fprintf(out, "sandbox URL:    %s\n", example ? example : "?");
    fprintf(out, "API key:        %s (E2B_API_KEY)\n", hint);
    fprintf(out, "config file:    %s%s\n", cfg->config_path ? cfg->config_path : "?",
            cfg->config_path && access(cfg->config_path, R_OK) == 0 ? "" : " (not present)");
    fprintf(out, "state dir:      %s\n", cfg->state_dir ? cfg->state_dir : "?");
    fprintf(out, "records dir:    %s\n", cfg->records_dir ? cfg->records_dir : "?");
    fprintf(out, "log file:       %s\n", cfg->log_path ? cfg->log_path : "?");
    if (keystore_in_use)
        fprintf(out, "keystore:       %s\n", keystore_in_use);
    else
        fprintf(out, "keystore:       %s\n", cfg->keystore);
    fprintf(out, "template:       %s\n", cfg->template_id);
    fprintf(out, "lifetime:       %d h\n", cfg->hours);
    e2b_opencode_kind here;
    char found[80];
    e2b_opencode_kind_local(cfg->opencode, &here, NULL);
    e2b_opencode_kind_describe(&here, found, sizeof found);
    fprintf(out, "opencode:       %s (%s)\n",
            cfg->opencode == 1 ? "1" : cfg->opencode == 2 ? "2" : "auto",
            cfg->opencode ? "forced by the opencode key"
                          : "serve command and API from what each box has, at --up");
    fprintf(out, "OpenCode here:  %s (opencode2 and opencode on PATH, --version)\n", found);
    fprintf(out, "serve:          %s\n",
            cfg->serve_command ? cfg->serve_command : "(per box: opencode2 serve or opencode serve)");
    fprintf(out, "attach:         %s%s\n", e2b_config_attach_command(cfg, &here, 2),
            cfg->attach_command ? "" : here.api ? " (from what is here)"
                                                : " (nothing found here: the v2 default)");
    fprintf(out, "health:         %s\n",
            cfg->health_path ? cfg->health_path : "(per box: /api/health, or /global/health for 1.x)");
    fprintf(out, "server start:   %s (serve_early = %s)\n",
            e2b_config_serve_early(cfg) ? "while the files arrive" : "once the files are in place",
            cfg->serve_early == E2B_SERVE_EARLY_YES  ? "yes"
            : cfg->serve_early == E2B_SERVE_EARLY_NO ? "no"
                                                     : "auto");
    if (cfg->idle_ms)
        fprintf(out, "idle pause:     after %g minutes idle with nothing pending (idle_minutes)\n",
                cfg->idle_ms / 60000.0);
    else
        fprintf(out, "idle pause:     never (idle_minutes = 0)\n");
    fprintf(out, "new boxes:      %s (public_traffic = %s; --up --public for one box)\n",
            cfg->public_traffic ? "public traffic: the password guards the server"
                                : "private: ports need the sandbox's traffic token",
            cfg->public_traffic ? "true" : "false");
    fprintf(out, "test command:   %s (test_timeout %d s)\n",
            cfg->test_command ? cfg->test_command : "(none: --compare shows no test result)",
            cfg->test_timeout_s);
    fprintf(out, "set up once:    %s (setup_timeout %d s)\n",
            cfg->setup_command ? cfg->setup_command
                               : "(none: a project's executable .e2b-tui/setup, if any)",
            cfg->setup_timeout_s);
    fprintf(out, "egress:         internet %s (allow_internet = %s), allow_out: %s, deny_out: %s\n",
            cfg->allow_internet ? "on" : "off", cfg->allow_internet ? "true" : "false",
            cfg->allow_out && *cfg->allow_out ? cfg->allow_out : "(none)",
            cfg->deny_out && *cfg->deny_out ? cfg->deny_out : "(none)");
    fprintf(out, "workspace keys: %s\n", cfg->workspace_keys);
    fprintf(out, "refresh:        %d s\n", cfg->refresh_seconds);
    if (cfg->preview_columns)
        fprintf(out, "preview:        beside the Boxes list from %d columns (P toggles it)\n",
                cfg->preview_columns);
    else
        fprintf(out, "preview:        on P only (preview_columns = 0)\n");
    char pv[32], pg[32];
    fprintf(out, "prices:         price_vcpu_second %s, price_gib_second %s (dollars; a running "
                 "sandbox's cost)\n", price_text(cfg->price_vcpu_second, pv, sizeof pv),
            price_text(cfg->price_gib_second, pg, sizeof pg));
    if (cfg->budget_usd > 0) {
        char b[24];
        e2b_cost_format(cfg->budget_usd, b, sizeof b);
        fprintf(out, "budget:         %s a box (budget_usd; --up --budget sets a box's own), "
                     "watched while a dashboard or --keepalive runs\n", b);
    } else {
        fprintf(out, "budget:         none (budget_usd = 0; --up --budget sets a box's own)\n");
    }
    fprintf(out, "notify:         %s%s%s%s\n", cfg->notify ? "" : "none",
            cfg->notify & E2B_NOTIFY_BELL ? "bell " : "", cfg->notify & E2B_NOTIFY_OSC9 ? "osc9 " : "",
            cfg->notify & E2B_NOTIFY_OSC777 ? "osc777" : "");
    fprintf(out, "HTTP timeout:   %d s per API request\n", cfg->http_timeout_s);
    fprintf(out, "log cap:        %ld bytes (then %s.1)\n", cfg->log_max,
            cfg->log_path ? cfg->log_path : "?");
    fprintf(out, "history cap:    %ld bytes (then history.log.1)\n", cfg->history_max);
    const e2b_limits *l = &cfg->limits;
    char b[4][24];
    fprintf(out, "limits:         bundle_bytes %s, object_bytes %s, inflated_bytes %s, "
                 "get_bytes %s, tree_depth %u, delta_depth %u, list_pages %u\n",
            size_suffixed(l->bundle_bytes, b[0]), size_suffixed(l->object_bytes, b[1]),
            size_suffixed(l->inflated_bytes, b[2]), size_suffixed(l->get_bytes, b[3]),
            l->tree_depth, l->delta_depth, l->list_pages);
    free(example);
}
