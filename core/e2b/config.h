/* Configuration (man/e2b-tui.1, CONFIGURATION and ENVIRONMENT): defaults < config file <
 * environment < flags.
 *
 *   e2b_config cfg;
 *   e2b_config_init(&cfg);
 *   err = e2b_config_set(&cfg, "domain", "localhost:3000", E2B_SRC_FLAG);   // from argv
 *   err = e2b_config_load(&cfg, NULL);  // reads the file and the environment, keeps flags
 *   ... cfg.api_url, cfg.template_id, e2b_config_envd_url(&cfg, id, NULL) ...
 *   e2b_config_clear(&cfg);
 *
 * The config file ($XDG_CONFIG_HOME/e2b-tui/config, or --config) holds `key = value` lines;
 * blank lines and lines starting with '#' are ignored; a value may be wrapped in double
 * quotes. A bad line is an error naming the file and line. The API key is read only from
 * the environment (E2B_API_KEY), never from the file or the command line.
 *
 * Ownership: every string in e2b_config is owned by it (freed by e2b_config_clear). */
#ifndef E2B_CONFIG_H
#define E2B_CONFIG_H

/* serve_early's values. */
enum { E2B_SERVE_EARLY_AUTO = 0, E2B_SERVE_EARLY_YES, E2B_SERVE_EARLY_NO };

/* The notify key's bits. */
enum { E2B_NOTIFY_BELL = 1u << 0, E2B_NOTIFY_OSC9 = 1u << 1, E2B_NOTIFY_OSC777 = 1u << 2 };

#include "core/util/error.h"
#include "core/util/limits.h"
#include "core/e2b/opencode_kind.h"

#include <stddef.h>
#include <stdio.h>

/* The dashboard's refresh in seconds: the one default (--help and --info print it; the
 * README, the man page and the example config are checked against it by
 * tests/integration/defaults_doc_test.sh). */
#define E2B_DEFAULT_REFRESH_S 3
#define E2B_DEFAULT_PREVIEW_COLUMNS 140 /* preview_columns: the preview beside the list from here */
/* E2B's published usage prices (dollars per second while a sandbox runs): per vCPU, and per
 * GiB of memory (its billing documentation, 2026). */
#define E2B_DEFAULT_PRICE_VCPU_SECOND 0.000014
#define E2B_DEFAULT_PRICE_GIB_SECOND 0.0000045
#define E2B_STRINGIFY_(x) #x
#define E2B_STRINGIFY(x) E2B_STRINGIFY_(x)

/* Defaults of the reliability keys (their use: core/e2b/api.c, core/util/log.c,
 * core/box/orphans.c). */
#define E2B_DEFAULT_HTTP_TIMEOUT_S 60
#define E2B_DEFAULT_LOG_MAX (4L * 1024 * 1024)
#define E2B_DEFAULT_HISTORY_MAX (256L * 1024)
#define E2B_DEFAULT_ORPHAN_SWEEP_DELAY_S 30
#define E2B_DEFAULT_TEMPLATE_TTL_S (3L * 86400) /* template_ttl: 3 days */
#define E2B_DEFAULT_IDLE_MINUTES 15             /* idle_minutes */
#define E2B_DEFAULT_TEST_TIMEOUT_S 600 /* test_timeout: a member's test_command, 10 min */
#define E2B_DEFAULT_SETUP_TIMEOUT_S 1800 /* setup_timeout: a project's setup, 30 min */

/* Where a value came from (a later source overrides an earlier one of lower rank). */
typedef enum e2b_config_source {
    E2B_SRC_DEFAULT = 0,
    E2B_SRC_FILE,
    E2B_SRC_ENV,
    E2B_SRC_FLAG,
} e2b_config_source;

typedef struct e2b_config {
    /* Connection. */
    char *api_key;     /* E2B_API_KEY, NULL when unset: a secret, never print or log it */
    char *domain;      /* E2B_DOMAIN / domain, default "e2b.app" */
    char *api_url;     /* E2B_API_URL / api_url, default <scheme>://api.<domain>; no '/' at end */
    char *sandbox_url; /* E2B_SANDBOX_URL / sandbox_url, NULL = derived per sandbox */

    /* Boxes. */
    char *template_id;    /* template, default "opencode" */
    int hours;            /* hours, sandbox lifetime, default 1 */
    /* The next three are NULL unless set or forced by `opencode`: then they are chosen from
     * what is found (e2b_config_serve_command, _attach_command, _health_path). */
    char *serve_command;  /* serve_command; {port} is substituted */
    char *attach_command; /* attach_command; {url} and {dir} are substituted */
    char *health_path;    /* health_path */
    int opencode;         /* opencode: 0 auto (default: detected), 1 or 2 (forced preset) */
    int public_traffic;   /* public_traffic, default 0: new boxes' ports need the traffic token */
    int serve_early;      /* serve_early: E2B_SERVE_EARLY_* (e2b_config_serve_early) */
    int up_stash;         /* up_stash, default 0: up sends refs/stash and its objects too */
    /* test_command: the project's tests, run in each member of a group of attempts when its
     * turn has ended (--compare), NULL = none; test_timeout: its limit in seconds (600) */
    char *test_command;
    int test_timeout_s;
    /* setup_command: run once in a box of the base template to make the project's prepared
     * snapshot (core/box/prepare.h), NULL = the project's executable .e2b-tui/setup, if
     * any; setup_timeout: its limit in seconds (1800) */
    char *setup_command;
    int setup_timeout_s;
    /* Egress of new boxes (core/e2b/egress_list.h; core/box/box_egress.h applies them). */
    char *allow_out;      /* network.allow_out: only these (and the secrets' hosts); NULL none */
    char *deny_out;       /* network.deny_out: addresses and CIDRs refused; NULL none */
    int allow_internet;   /* allow_internet, default 1; 0: only allow_out and the secrets' hosts */

    /* Dashboard. */
    char *workspace_keys; /* workspace_keys, default "opencode-workspace,workspaceID" */
    char *keystore;       /* keystore backend name, default "auto" */
    int refresh_seconds;  /* refresh, default E2B_DEFAULT_REFRESH_S */
    /* preview_columns: the screen width from which the Boxes list has the selected box's
     * preview beside it by itself (P toggles it on any screen from 80); 0 = only on P. */
    int preview_columns;
    /* notify: how the dashboard tells that a box waits for the user, finished a turn or
     * failed: a list of bell, osc9, osc777 (E2B_NOTIFY_* bits), or none; default bell. */
    unsigned notify;

    /* Reliability (http_timeout, log_max, orphan_sweep_delay). */
    int http_timeout_s;      /* http_timeout / E2B_TUI_HTTP_TIMEOUT: per API request, default 60 */
    long log_max;            /* log_max: bytes before the log is rotated, default 4 MiB */
    long history_max;        /* history_max: bytes before the agents' history is rotated
                                (<state_dir>/history.log, then .1), default 256 KiB */
    int orphan_sweep_delay_s; /* orphan_sweep_delay: the second sweep after a create in doubt */
    long template_ttl_s;      /* template_ttl: managed templates unused this long are GC'd (3d) */
    long idle_ms;             /* idle_minutes (15; fractions too; 0 = never): a box whose agent
                               * is idle with nothing pending this long is paused by a running
                               * dashboard or --keepalive (core/live/live_idle.h) */

    /* What a running sandbox costs per second (core/e2b/cost.h): per vCPU and per GiB of
     * memory allocated, price_vcpu_second / price_gib_second, defaults E2B's published
     * prices (E2B_DEFAULT_PRICE_*). */
    double price_vcpu_second, price_gib_second;
    /* budget_usd: what a box may cost (agent + sandbox) before a running dashboard or
     * --keepalive stops it (core/live/live_budget.h); a box's own (--up --budget, its
     * record) wins; 0 = none, the default. */
    double budget_usd;

    /* Caps on untrusted input (limit.<name> in the file; core/util/limits.h). */
    e2b_limits limits;

    /* Paths. */
    char *config_path; /* the config file (may not exist) */
    char *state_dir;   /* $XDG_STATE_HOME/e2b-tui */
    char *records_dir; /* <state_dir>/boxes */
    char *log_path;    /* <state_dir>/e2b-tui.log */

    /* Private: the source of every settable key, to apply precedence. */
    unsigned char src[48];
    int config_path_explicit; /* set with --config: a missing file is then an error */
} e2b_config;

/* Defaults only (no file or environment read yet). */
void e2b_config_init(e2b_config *cfg);
void e2b_config_clear(e2b_config *cfg);

/* Sets one key (the names of the config file, plus "config" for the file path) from source;
 * ignored when the key already holds a value from a higher-ranked source. Returns NULL, or
 * an E2B_ERR_INVALID error (caller frees) for an unknown key or a bad value. */
e2b_error *e2b_config_set(e2b_config *cfg, const char *key, const char *value,
                          e2b_config_source source);

/* Parses config-file text (fuzz entry point: any bytes are fine). origin names the file in
 * errors. Returns NULL, or an E2B_ERR_INVALID error "<origin>:<line>: <what>". */
e2b_error *e2b_config_parse_text(e2b_config *cfg, const char *text, size_t len,
                                 const char *origin);

/* Works out the paths, reads the config file (when it exists), then the environment
 * (E2B_API_KEY, E2B_DOMAIN, E2B_API_URL, E2B_SANDBOX_URL), then derives api_url and the
 * preset commands. env_lookup = NULL uses getenv (tests pass their own). */
e2b_error *e2b_config_load(e2b_config *cfg, const char *(*env_lookup)(const char *name));

/* What a box runs and speaks, from what its up found (core/e2b/opencode_kind.h) and the
 * keys, which win when set: the API (the opencode key, else box's, else 2), the serve
 * command (serve_command, else box's preset), the health path (health_path, else the
 * API's), and the attach command (attach_command, else the preset of what this machine
 * has, local, else of box_api's). The strings are cfg's or static. */
int e2b_config_box_api(const e2b_config *cfg, const e2b_opencode_kind *box);
const char *e2b_config_serve_command(const e2b_config *cfg, const e2b_opencode_kind *box);
const char *e2b_config_health_path(const e2b_config *cfg, int api);
const char *e2b_config_attach_command(const e2b_config *cfg, const e2b_opencode_kind *local,
                                      int box_api);

/* Whether host[:port] is reached over plain http (localhost, *.localhost). */
int e2b_domain_is_local(const char *domain);
/* Whether the domain is one of E2B's own (e2b.app, e2b.dev, e2b.pro, e2b-staging.dev). */
int e2b_domain_is_e2b(const char *domain);

/* Whether an up may start the server while the project's files are still arriving
 * (serve_early): yes / no as set; auto (the default) for the serve command chosen from
 * what the box has (serve_command unset), else only for the OpenCode server itself,
 * `opencode serve` or `opencode2 serve` run by name or absolute path (after `env` and
 * NAME=value words), with no {dir} in the command. OpenCode reads a project only when a
 * request needs it (1.18.33: a server started in an empty directory took the project,
 * its git and its opencode.json from the first request after they appeared); any other
 * command may read the project as it starts, so it waits for the files. */
int e2b_config_serve_early(const e2b_config *cfg);

/* The envd base URL for a sandbox (reference §2.1): E2B_SANDBOX_URL, else
 * https://sandbox.<domain> for E2B's own domains, else <scheme>://49983-<id>.<domain>.
 * sandbox_domain (from create/connect) may be NULL = the configured domain. New string. */
char *e2b_config_envd_url(const e2b_config *cfg, const char *sandbox_id,
                          const char *sandbox_domain);
/* <scheme>://<port>-<id>.<domain>: a port of the sandbox (OpenCode's server). New string. */
char *e2b_config_port_url(const e2b_config *cfg, int port, const char *sandbox_id,
                          const char *sandbox_domain);

/* Writes what `e2b-tui --info` prints: API URL, domain, sandbox URL rule, paths, keystore,
 * and whether the API key is set (its last 4 characters at most). keystore_in_use: the
 * backend that would be used (keystore_describe); NULL prints the configured choice. */
void e2b_config_write_info(const e2b_config *cfg, const char *keystore_in_use, FILE *out);

/* "set, ends in abcd" / "set" / "not set": never more than the last 4 characters. */
void e2b_config_key_hint(const char *api_key, char *buf, size_t size);

#endif
