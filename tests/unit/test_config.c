#include "core/e2b/config.h"
#include "core/util/str.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fake environment for e2b_config_load. */
/* e2b_config_set's words for a value it refused, NULL when it took the value. */
static const char *set_why(e2b_config *c, const char *key, const char *value,
                           e2b_config_source src)
{
    static char words[512];
    e2b_error *e = e2b_config_set(c, key, value, src);
    snprintf(words, sizeof words, "%s", e ? e2b_error_message(e) : "");
    e2b_error_free(e);
    return e ? words : NULL;
}

static const char *fake_env[32][2];

static const char *lookup(const char *name)
{
    for (int i = 0; i < 32 && fake_env[i][0]; i++)
        if (strcmp(fake_env[i][0], name) == 0)
            return fake_env[i][1];
    return NULL;
}

static void env_reset(void)
{
    memset(fake_env, 0, sizeof fake_env);
}

static void env_put(const char *k, const char *v)
{
    int i = 0;
    while (fake_env[i][0])
        i++;
    fake_env[i][0] = k;
    fake_env[i][1] = v;
}

static char tmpdir[64];

static void make_tmp(void)
{
    strcpy(tmpdir, "/tmp/e2b-cfg-test.XXXXXX");
    if (!mkdtemp(tmpdir))
        abort();
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static int contains(const char *hay, const char *needle)
{
    return hay && needle && strstr(hay, needle) != NULL;
}

static void test_defaults(void)
{
    e2b_config c;
    e2b_error *err;
    env_reset();
    env_put("HOME", "/home/u");
    e2b_config_init(&c);
    err = e2b_config_load(&c, lookup);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_STR_EQ(c.domain, "e2b.app");
    CHECK_STR_EQ(c.api_url, "https://api.e2b.app");
    CHECK(c.api_key == NULL);
    CHECK(c.sandbox_url == NULL);
    CHECK_STR_EQ(c.config_path, "/home/u/.config/e2b-tui/config");
    CHECK_STR_EQ(c.state_dir, "/home/u/.local/state/e2b-tui");
    CHECK_STR_EQ(c.records_dir, "/home/u/.local/state/e2b-tui/boxes");
    CHECK_STR_EQ(c.log_path, "/home/u/.local/state/e2b-tui/e2b-tui.log");
    CHECK_STR_EQ(c.template_id, "opencode");
    CHECK_INT_EQ(c.hours, 1);
    /* opencode = auto: the three are chosen per box from what was found */
    CHECK_INT_EQ(c.opencode, 0);
    CHECK(c.serve_command == NULL && c.attach_command == NULL && c.health_path == NULL);
    CHECK_STR_EQ(c.workspace_keys, "opencode-workspace,workspaceID");
    CHECK_STR_EQ(c.keystore, "auto");
    CHECK_INT_EQ(c.refresh_seconds, 3);
    e2b_config_clear(&c);
}

static void test_file_env_flag_precedence(void)
{
    e2b_config c;
    e2b_error *err;
    char dir[128], path[160];
    make_tmp();
    snprintf(dir, sizeof dir, "%s/e2b-tui", tmpdir);
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/config", dir);
    write_file(path, "# my settings\n\n  domain = file.example\r\n"
                     "template = \"my-template\"\nhours=3\nopencode = 1\n"
                     "health_path = /custom\napi_url = https://api.file.example/\n"
                     "workspace_keys = a , b\nrefresh = 2\nkeystore = file\n");
    env_reset();
    env_put("XDG_CONFIG_HOME", tmpdir);
    env_put("XDG_STATE_HOME", "/state");
    env_put("HOME", "/home/u");
    env_put("E2B_DOMAIN", "env.example");
    env_put("E2B_API_KEY", "e2b_0123456789abcdef");
    env_put("E2B_SANDBOX_URL", "");
    e2b_config_init(&c);
    CHECK(set_why(&c, "template", "flag-template", E2B_SRC_FLAG) == NULL);
    err = e2b_config_load(&c, lookup);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK_STR_EQ(c.config_path, path);
    CHECK_STR_EQ(c.state_dir, "/state/e2b-tui");
    CHECK_STR_EQ(c.domain, "env.example");        /* env beats file */
    CHECK_STR_EQ(c.template_id, "flag-template"); /* flag beats file */
    CHECK_STR_EQ(c.api_url, "https://api.file.example"); /* file, slash trimmed */
    CHECK_STR_EQ(c.api_key, "e2b_0123456789abcdef");
    CHECK(c.sandbox_url == NULL); /* empty env = unset */
    CHECK_INT_EQ(c.hours, 3);
    CHECK_INT_EQ(c.opencode, 1);
    CHECK_STR_EQ(c.serve_command, "opencode serve --hostname 0.0.0.0 --port {port}");
    CHECK_STR_EQ(c.attach_command, "opencode attach {url} --dir {dir}");
    CHECK_STR_EQ(c.health_path, "/custom"); /* explicit beats the preset */
    CHECK_STR_EQ(c.workspace_keys, "a , b");
    CHECK_INT_EQ(c.refresh_seconds, 2);
    CHECK_STR_EQ(c.keystore, "file");
    e2b_config_clear(&c);
    unlink(path);
    rmdir(dir);
    rmdir(tmpdir);
}

static void test_bad_lines_name_file_and_line(void)
{
    static const char *const cases[][2] = {
        {"domain = a\njust words\n", ":2: expected 'key = value'"},
        {"\n\n# c\nnope = 1\n", ":4: unknown key 'nope'"},
        {"hours = 0\n", ":1: hours must be a whole number from 1 to 24"},
        {"hours = 2x\n", ":1: hours must be"},
        {"opencode = 3\n", ":1: opencode must be auto, 1"},
        {"api_url = ftp://x\n", ":1: api_url must be an http:// or https:// URL"},
        {"api_key = secret-value-here\n", ":1: the API key is read only from the environment"},
        {"domain = https://e2b.app\n", ":1: domain must be a host name"},
        {"Domain = x\n", ":1: expected 'key = value'"},
        {"= x\n", ":1: expected 'key = value'"},
        {"health_path = api/health\n", ":1: health_path must start with '/'"},
        {"config = /x\n", ":1: 'config' cannot be set"},
        {"refresh = 99999\n", ":1: refresh must be"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        e2b_config c;
        e2b_error *err;
        e2b_config_init(&c);
        err = e2b_config_parse_text(&c, cases[i][0], strlen(cases[i][0]), "cfgfile");
        CHECK_MSG(err != NULL, "case %zu accepted", i);
        CHECK_INT_EQ(err->kind, E2B_ERR_INVALID);
        CHECK_MSG(contains(e2b_error_message(err), cases[i][1]), "case %zu: %s", i,
                  e2b_error_message(err));
        CHECK(strncmp(e2b_error_message(err), "cfgfile:", 8) == 0);
        /* A secret in a bad line is never echoed back. */
        CHECK(!contains(e2b_error_message(err), "secret-value-here"));
        e2b_error_free(err);
        e2b_config_clear(&c);
    }
}

static void test_parse_tolerates_odd_bytes(void)
{
    /* Fuzz-style: NUL bytes, no final newline, CRLF, long lines: errors, never crashes. */
    e2b_config c;
    e2b_error *err;
    char big[5000];
    e2b_config_init(&c);
    err = e2b_config_parse_text(&c, "domain = x\0y\n", 13, "f");
    CHECK(err && contains(e2b_error_message(err), "f:1: the line contains a NUL byte"));
    e2b_error_free(err);
    err = e2b_config_parse_text(&c, "refresh = 7", 11, "f");
    CHECK(err == NULL);
    CHECK_INT_EQ(c.refresh_seconds, 7);
    memset(big, 'a', sizeof big);
    err = e2b_config_parse_text(&c, big, sizeof big, "f");
    CHECK(err != NULL);
    e2b_error_free(err);
    err = e2b_config_parse_text(&c, "", 0, "f");
    CHECK(err == NULL);
    e2b_config_clear(&c);
}

static void test_missing_explicit_config_is_error(void)
{
    e2b_config c;
    e2b_error *err;
    env_reset();
    env_put("HOME", "/home/u");
    e2b_config_init(&c);
    CHECK(set_why(&c, "config", "/nonexistent/e2b.conf", E2B_SRC_FLAG) == NULL);
    err = e2b_config_load(&c, lookup);
    CHECK(err != NULL);
    CHECK(contains(e2b_error_message(err), "cannot read the config file /nonexistent/e2b.conf"));
    e2b_error_free(err);
    e2b_config_clear(&c);
}

static void test_api_key_not_from_flags(void)
{
    e2b_config c;
    const char *why = NULL;
    e2b_config_init(&c);
    CHECK((why = set_why(&c, "api_key", "k", E2B_SRC_FLAG)) != NULL);
    CHECK(contains(why, "only from the environment"));
    e2b_error *e = e2b_config_set(&c, "hours", "25", E2B_SRC_FLAG);
    CHECK(e && e->kind == E2B_ERR_INVALID); /* a bad value is the user's to fix, not a bug */
    e2b_error_free(e);
    CHECK(c.api_key == NULL);
    e2b_config_clear(&c);
}

static void test_local_domain_uses_http(void)
{
    e2b_config c;
    e2b_error *err;
    char *u;
    CHECK(e2b_domain_is_local("localhost"));
    CHECK(e2b_domain_is_local("localhost:3000"));
    CHECK(e2b_domain_is_local("e2b.localhost:3000"));
    CHECK(!e2b_domain_is_local("notlocalhost:3000"));
    CHECK(!e2b_domain_is_local("localhost.example.com"));
    CHECK(!e2b_domain_is_local("e2b.app"));
    env_reset();
    env_put("HOME", "/home/u");
    env_put("E2B_DOMAIN", "localhost:4321");
    e2b_config_init(&c);
    err = e2b_config_load(&c, lookup);
    CHECK(err == NULL);
    CHECK_STR_EQ(c.api_url, "http://api.localhost:4321");
    u = e2b_config_envd_url(&c, "iabc", NULL);
    CHECK_STR_EQ(u, "http://49983-iabc.localhost:4321");
    free(u);
    u = e2b_config_port_url(&c, 4096, "iabc", NULL);
    CHECK_STR_EQ(u, "http://4096-iabc.localhost:4321");
    free(u);
    e2b_config_clear(&c);
}

static void test_envd_url_rules(void)
{
    e2b_config c;
    char *u;
    e2b_config_init(&c);
    u = e2b_config_envd_url(&c, "iabc", NULL);
    CHECK_STR_EQ(u, "https://sandbox.e2b.app");
    free(u);
    u = e2b_config_envd_url(&c, "iabc", "e2b.dev");
    CHECK_STR_EQ(u, "https://sandbox.e2b.dev");
    free(u);
    u = e2b_config_envd_url(&c, "iabc", "custom.cloud");
    CHECK_STR_EQ(u, "https://49983-iabc.custom.cloud");
    free(u);
    u = e2b_config_port_url(&c, 4096, "iabc", NULL);
    CHECK_STR_EQ(u, "https://4096-iabc.e2b.app");
    free(u);
    CHECK(set_why(&c, "sandbox_url", "http://127.0.0.1:9/", E2B_SRC_ENV) == NULL);
    u = e2b_config_envd_url(&c, "iabc", "custom.cloud");
    CHECK_STR_EQ(u, "http://127.0.0.1:9");
    free(u);
    u = e2b_url_host("https://api.e2b.app:8443/v2/sandboxes?x=1");
    CHECK_STR_EQ(u, "api.e2b.app:8443");
    free(u);
    e2b_config_clear(&c);
}

static void test_key_hint_never_shows_more_than_4(void)
{
    char buf[64];
    e2b_config_key_hint(NULL, buf, sizeof buf);
    CHECK_STR_EQ(buf, "not set");
    e2b_config_key_hint("e2b_abcdefgh1234", buf, sizeof buf);
    CHECK_STR_EQ(buf, "set, ends in 1234");
    e2b_config_key_hint("short", buf, sizeof buf);
    CHECK_STR_EQ(buf, "set");
}

static void test_info_output(void)
{
    e2b_config c;
    e2b_error *err;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    env_reset();
    env_put("HOME", "/home/u");
    env_put("E2B_API_KEY", "e2b_secretsecret9876");
    e2b_config_init(&c);
    err = e2b_config_load(&c, lookup);
    CHECK(err == NULL);
    e2b_config_write_info(&c, NULL, f);
    fclose(f);
    CHECK(contains(text, "API URL:        https://api.e2b.app\n"));
    CHECK(contains(text, "domain:         e2b.app (from default)"));
    CHECK(contains(text, "https://sandbox.e2b.app"));
    CHECK(contains(text, "API key:        set, ends in 9876"));
    CHECK(!contains(text, "secretsecret"));
    CHECK(contains(text, "/home/u/.config/e2b-tui/config (not present)"));
    CHECK(contains(text, "log file:       /home/u/.local/state/e2b-tui/e2b-tui.log"));
    CHECK(contains(text, "keystore:       auto"));
    free(text);
    e2b_config_clear(&c);
}

static void test_key_binding_lines_are_skipped(void)
{
    /* key.* lines belong to the dashboard's key map; other keys are still checked. */
    e2b_config c;
    e2b_error *err;
    e2b_config_init(&c);
    const char *text = "refresh = 9\nkey.move-up = up k\n  key.kill = K  \ntemplate = t2\n";
    err = e2b_config_parse_text(&c, text, strlen(text), "f");
    CHECK(err == NULL);
    CHECK_INT_EQ(c.refresh_seconds, 9);
    CHECK(c.template_id && strcmp(c.template_id, "t2") == 0);
    e2b_error_free(err);
    err = e2b_config_parse_text(&c, "keys.kill = K\n", 14, "f");
    CHECK(err && contains(e2b_error_message(err), "f:1:"));
    e2b_error_free(err);
    err = e2b_config_parse_text(&c, "bogus = 1\n", 10, "f");
    CHECK(err && contains(e2b_error_message(err), "unknown key 'bogus'"));
    e2b_error_free(err);
    e2b_config_clear(&c);
}

/* The reliability keys: their defaults, their ranges, sizes with suffixes, and
 * E2B_TUI_HTTP_TIMEOUT. */
static void test_reliability_keys(void)
{
    e2b_config c;
    const char *why = NULL;
    e2b_config_init(&c);
    CHECK_INT_EQ(c.http_timeout_s, 60);
    CHECK(c.log_max == 4L * 1024 * 1024);
    CHECK_INT_EQ(c.orphan_sweep_delay_s, 30);
    static const struct {
        const char *key, *value;
        int ok;
        long want;
    } cases[] = {
        {"http_timeout", "2", 1, 2},        {"http_timeout", "0", 0, 0},
        {"http_timeout", "3601", 0, 0},     {"http_timeout", "5s", 0, 0},
        {"log_max", "1K", 1, 1024},         {"log_max", "4m", 1, 4L << 20},
        {"log_max", "1G", 1, 1L << 30},     {"log_max", "2048", 1, 2048},
        {"log_max", "1023", 0, 0},          {"log_max", "2G", 0, 0},
        {"log_max", "-1K", 0, 0},           {"log_max", "1KB", 0, 0},
        {"log_max", "99999999999999999999K", 0, 0},
        {"orphan_sweep_delay", "8", 1, 8},  {"orphan_sweep_delay", "0", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        why = set_why(&c, cases[i].key, cases[i].value, E2B_SRC_FILE);
        CHECK_MSG((why == NULL) == cases[i].ok, "%s = %s", cases[i].key, cases[i].value);
        if (why)
            CHECK_MSG(strstr(why, cases[i].key), "%s: %s", cases[i].value, why);
        long got = strcmp(cases[i].key, "log_max") == 0 ? c.log_max
                 : strcmp(cases[i].key, "http_timeout") == 0 ? c.http_timeout_s
                                                              : c.orphan_sweep_delay_s;
        if (cases[i].ok)
            CHECK_MSG(got == cases[i].want, "%s = %s gave %ld", cases[i].key, cases[i].value, got);
    }
    e2b_config_clear(&c);
}

/* What --info prints for c (malloc'd). */
static char *info_of(const e2b_config *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return strdup("");
    e2b_config_write_info(c, NULL, f);
    fclose(f);
    return text;
}

static void test_up_stash(void)
{
    e2b_config c;
    e2b_config_init(&c);
    CHECK_INT_EQ(c.up_stash, 0); /* the stash stays home by default */
    CHECK(e2b_config_set(&c, "up_stash", "true", E2B_SRC_FILE) == NULL);
    CHECK_INT_EQ(c.up_stash, 1);
    e2b_error *e = e2b_config_set(&c, "up_stash", "maybe", E2B_SRC_FILE);
    CHECK(e && e->kind == E2B_ERR_INVALID && strstr(e2b_error_message(e), "up_stash"));
    e2b_error_free(e);
    CHECK_INT_EQ(c.up_stash, 1);
    e2b_config_clear(&c);
}

static void test_public_traffic(void)
{
    e2b_config c;
    const char *why = NULL;
    e2b_config_init(&c);
    CHECK_INT_EQ(c.public_traffic, 0); /* private by default */
    CHECK(set_why(&c, "public_traffic", "true", E2B_SRC_FILE) == NULL);
    CHECK_INT_EQ(c.public_traffic, 1);
    CHECK(set_why(&c, "public_traffic", "no", E2B_SRC_FILE) == NULL);
    CHECK_INT_EQ(c.public_traffic, 0);
    CHECK((why = set_why(&c, "public_traffic", "sometimes", E2B_SRC_FILE)) != NULL);
    CHECK(why && strstr(why, "public_traffic"));
    CHECK_INT_EQ(c.public_traffic, 0);
    char *text = info_of(&c);
    CHECK(strstr(text, "new boxes:      private") != NULL);
    free(text);
    e2b_config_clear(&c);
}

/* Which serve commands start while the files arrive (e2b_config_serve_early). */
static void test_serve_early(void)
{
    static const struct {
        const char *cmd;
        int early;
    } cases[] = {
        {"opencode serve --hostname 0.0.0.0 --port {port}", 1},
        {"opencode2 serve --hostname 0.0.0.0 --port {port}", 1},
        {"env OPENCODE_DISABLE_AUTOUPDATE=1 opencode serve --port {port}", 1},
        {"A=1 B=2 /usr/local/bin/opencode serve", 1},
        {"opencode serve", 1},
        {"opencode attach {url}", 0},          /* not the server */
        {"opencode served", 0},
        {"./opencode serve", 0},               /* relative: may be in the project */
        {"tools/opencode serve", 0},
        {"{dir}/tools/opencode serve", 0},     /* in the project */
        {"opencode serve --cwd {dir}", 0},
        {"env -i opencode serve", 0},          /* env's options: not guessed */
        {"sh -c 'opencode serve'", 0},         /* quoting: not guessed */
        {"opencode serve; rm x", 0},
        {"npm run serve", 0},
        {"env", 0},
        {"FOO=1", 0},
    };
    e2b_config c;
    const char *why = NULL;
    e2b_config_init(&c);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        free(c.serve_command);
        c.serve_command = strdup(cases[i].cmd);
        CHECK_MSG(e2b_config_serve_early(&c) == cases[i].early, "%s: want %d", cases[i].cmd,
                  cases[i].early);
    }
    CHECK(set_why(&c, "serve_early", "yes", E2B_SRC_FILE) == NULL);
    CHECK_INT_EQ(e2b_config_serve_early(&c), 1); /* "FOO=1", forced */
    CHECK(set_why(&c, "serve_command", "opencode serve", E2B_SRC_FILE) == NULL);
    CHECK(set_why(&c, "serve_early", "no", E2B_SRC_FILE) == NULL);
    CHECK_INT_EQ(e2b_config_serve_early(&c), 0);
    CHECK(set_why(&c, "serve_early", "auto", E2B_SRC_FILE) == NULL);
    CHECK_INT_EQ(e2b_config_serve_early(&c), 1);
    CHECK((why = set_why(&c, "serve_early", "sometimes", E2B_SRC_FILE)) != NULL);
    CHECK(why && strstr(why, "serve_early must be auto, yes or no"));
    char *text = info_of(&c);
    CHECK(strstr(text, "server start:   while the files arrive (serve_early = auto)") != NULL);
    free(text);
    e2b_config_clear(&c);
}

/* What auto chooses from what was found, and the keys that override it. */
static void test_opencode_choice(void)
{
    e2b_config c;
    e2b_opencode_kind v1, stable, beta, none = {0};
    const char *text = "opencode 1.18.33\n";
    CHECK_INT_EQ(e2b_opencode_kind_parse(text, strlen(text), 0, &v1), 1);
    text = "opencode 2.0.7\n";
    CHECK_INT_EQ(e2b_opencode_kind_parse(text, strlen(text), 0, &stable), 2);
    text = "opencode2 0.0.0-beta-202601\n";
    CHECK_INT_EQ(e2b_opencode_kind_parse(text, strlen(text), 0, &beta), 2);
    e2b_config_init(&c);
    CHECK_INT_EQ(e2b_config_box_api(&c, &v1), 1);
    CHECK_INT_EQ(e2b_config_box_api(&c, &none), 2); /* nothing found: the old default */
    CHECK_STR_EQ(e2b_config_serve_command(&c, &v1), "opencode serve --hostname 0.0.0.0 --port {port}");
    CHECK_STR_EQ(e2b_config_serve_command(&c, &stable), "opencode serve --hostname 0.0.0.0 --port {port}");
    CHECK_STR_EQ(e2b_config_serve_command(&c, &beta), "opencode2 serve --hostname 0.0.0.0 --port {port}");
    CHECK_STR_EQ(e2b_config_health_path(&c, 1), "/global/health");
    CHECK_STR_EQ(e2b_config_health_path(&c, 2), "/api/health");
    CHECK_STR_EQ(e2b_config_attach_command(&c, &v1, 1), "opencode attach {url} --dir {dir}");
    CHECK_STR_EQ(e2b_config_attach_command(&c, &stable, 2), "opencode --server {url} {dir}");
    CHECK_STR_EQ(e2b_config_attach_command(&c, &beta, 2), "opencode2 --server {url} {dir}");
    /* nothing here: the preset of the box's API (exit 127 then says what to install) */
    CHECK_STR_EQ(e2b_config_attach_command(&c, &none, 1), "opencode attach {url} --dir {dir}");
    CHECK_STR_EQ(e2b_config_attach_command(&c, NULL, 2), "opencode2 --server {url} {dir}");
    CHECK(e2b_config_serve_early(&c)); /* an OpenCode server's preset */
    /* the keys win */
    CHECK(set_why(&c, "opencode", "auto", E2B_SRC_FILE) == NULL);
    CHECK(set_why(&c, "serve_command", "my-server --port {port}", E2B_SRC_FILE) == NULL);
    CHECK(set_why(&c, "attach_command", "my-client {url}", E2B_SRC_FILE) == NULL);
    CHECK(set_why(&c, "health_path", "/h", E2B_SRC_FILE) == NULL);
    CHECK_STR_EQ(e2b_config_serve_command(&c, &v1), "my-server --port {port}");
    CHECK_STR_EQ(e2b_config_attach_command(&c, &stable, 2), "my-client {url}");
    CHECK_STR_EQ(e2b_config_health_path(&c, 1), "/h");
    CHECK(set_why(&c, "opencode", "1", E2B_SRC_FILE) == NULL);
    CHECK_INT_EQ(e2b_config_box_api(&c, &stable), 1); /* forced */
    CHECK(set_why(&c, "opencode", "3", E2B_SRC_FILE) != NULL);
    e2b_config_clear(&c);
}

int main(void)
{
    RUN(test_key_binding_lines_are_skipped);
    RUN(test_serve_early);
    RUN(test_defaults);
    RUN(test_file_env_flag_precedence);
    RUN(test_opencode_choice);
    RUN(test_bad_lines_name_file_and_line);
    RUN(test_parse_tolerates_odd_bytes);
    RUN(test_missing_explicit_config_is_error);
    RUN(test_api_key_not_from_flags);
    RUN(test_local_domain_uses_http);
    RUN(test_envd_url_rules);
    RUN(test_key_hint_never_shows_more_than_4);
    RUN(test_info_output);
    RUN(test_reliability_keys);
    RUN(test_public_traffic);
    RUN(test_up_stash);
    return harness_finish();
}
