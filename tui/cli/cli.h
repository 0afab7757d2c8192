/* The one-shot command-line modes (DESIGN.md §1 use 3, §6): --list, --up, --attach, --stop,
 * --kill, --pull, --secrets. No curses; errors on stderr; progress on stderr only when it
 * is a terminal; results on stdout. Exit codes: 0 ok, 1 failed, 2 usage, 3 no such box or
 * sandbox, 4 authentication, 5 conflict.
 *
 * `--list --json` prints one stable JSON object (version 1; fields are only ever added):
 *   {"version":1,
 *    "boxes":[{"name","sandbox_id","state":"running|paused|gone","template","started_at",
 *              "end_at","branch","dir","local":true|false}],
 *    "workspaces":[{"sandbox_id","state","template","started_at","end_at","metadata":{}}],
 *    "sandboxes":[ same fields as workspaces ]}
 * Times are RFC 3339 UTC strings or null; "dir" is null for a box made on another machine
 * ("local": false), and "template"/"started_at"/"end_at" are null for a gone box. */
#ifndef E2B_TUI_CLI_H
#define E2B_TUI_CLI_H

typedef enum {
    CLI_NONE = 0, /* the dashboard */
    CLI_INFO,
    CLI_LIST,
    CLI_UP,
    CLI_ATTACH,
    CLI_TUNNEL,
    CLI_STOP,
    CLI_KILL,
    CLI_PULL,
    CLI_SECRETS,
} cli_mode;

typedef struct cli_args {
    cli_mode mode;
    const char *name;        /* box name (up, attach, stop, kill, pull) or secret name */
    const char *secrets_cmd; /* "list", "set", "remove" */
    int json;
    const char *template_id;
    int hours;
    int attach_after_up;
    const char *dir;
    int keep_failed;
    int public_traffic; /* --up --public */
    int force;
    const char *keystore_flag; /* --keystore value, or NULL */
} cli_args;

/* Runs a one-shot mode with cfg loaded; returns the exit code. */
struct e2b_config;
int cli_run(const cli_args *a, struct e2b_config *cfg);

#endif
