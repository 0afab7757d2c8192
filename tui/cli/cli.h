/* The one-shot command-line modes (README "Using it", man page): --list, --up, --attach,
 * --stop, --kill, --resume, --extend, --pull, --secrets (`--secrets list --json`: the
 * document in core/box/secrets_providers.h), each a client of the headless model
 * (core/live/live.h). No curses; errors on stderr; progress on stderr only when it
 * is a terminal; results on stdout. Exit codes: 0 ok, 1 failed, 2 usage, 3 no such box or
 * sandbox, 4 authentication, 5 conflict, 6 the agent waits for you (--wait), 7 timed out
 * (--wait), 8 the box has unpulled work (--kill without --force: nothing was killed), 9
 * nothing waits for a reply (--reply), 10 the turn ended interrupted (--wait).
 *
 * Every --json document is one compact line with its "version" (core/util/json_style.h);
 * --pretty indents it by two.
 *
 * `--status --json` prints {"version":1,"boxes":[{"name","group","sandbox_id","sandbox":"running|
 * paused|gone|unknown","state":"working|waiting for you|retrying|idle|server down|paused|
 * unknown|gone","opencode":{"api":1|2,"bin","version"},"detail","api","last_end","error","idle_since","last_activity","state_since","turn_started","waiting_since","retry"?,
 * "session":{"id","title"}|null,"todos":{"done","total","items":[{"content","status",
 * "priority"}]},"requests":[{"id","session_id","kind","action","detail","summary","seen_at",
 * ("seen_at": when this process first saw it) and for a question "options":[{"n","label","description"}],"custom","multiple"}],
 * "usage":{"input","output","reasoning","cost"}|null,"stream":{"up","reconnects"},
 * "tokens":{"input","output","reasoning","cache_read","cache_write"}|null,
 * "cost":{"agent_usd","sandbox_usd"} (each null when not known)}]}
 * (fields are only ever added; "opencode" is what the box's up found, its version "" when
 * not known). `--watch --json` prints one such box object a line, with "version":1, "at" and
 * "request" (the oldest pending: {"id","kind","action","summary","since"} or null), each time
 * a box's state, oldest request or last turn's end changes (core/agent/agent_json.h).
 *
 * `--list --json` prints one stable JSON object (version 1; fields are only ever added):
 *   {"version":1,
 *    "boxes":[{"name","sandbox_id","state":"running|paused|gone","template","started_at",
 *              "end_at","branch","dir","local":true|false,"group"}],
 *    "workspaces":[{"sandbox_id","state","template","started_at","end_at","metadata":{}}],
 *    "sandboxes":[ same fields as workspaces ]}
 * Times are RFC 3339 UTC strings or null; "dir" is null for a box made on another machine
 * ("local": false), and "template"/"started_at"/"end_at" are null for a gone box; "group"
 * is the group of attempts a box is a member of (--up NAME --try N), else null.
 *
 * `--compare NAME --json` prints {"version":1,"group","members":[{"name","sandbox_id",
 * "state","last_end"|null,"model"|null,"turn_seconds"|null,"diff":{"files","added",
 * "deleted"}|null,"test":{"result":"pass|fail|error|not run|pending","exit_code",
 * "duration_ms","tail","why"?},"tokens":{"input","output"}|null,"cost":USD|null,
 * "last_message"|null}]} (core/box/box_compare.h; null: not known, never 0). */
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
    CLI_RESUME,
    CLI_EXTEND,
    CLI_SNAPSHOT,     /* cli_snap.c */
    CLI_SNAPSHOTS,
    CLI_FORK,
    CLI_TEMPLATES,
    CLI_GC_TEMPLATES,
    CLI_STATUS,    /* the agent modes (cli_agent.c) */
    CLI_PROMPT,
    CLI_WAIT,
    CLI_REPLY,
    CLI_INTERRUPT,
    CLI_COMPARE,   /* a group of attempts, member by member (cli_try.c) */
    CLI_PICK,      /* a group's member pulled as e2b/GROUP (cli_try.c) */
    CLI_NETWORK,   /* cli_network.c */
    CLI_WATCH,     /* cli_fleet.c */
    CLI_PORTS,     /* a box's life (cli_life.c) */
    CLI_FORWARD,
    CLI_GET,
    CLI_KEEPALIVE,
    CLI_ANSWER,    /* cli_answer.c (its run: cli_agent.c) */
    CLI_APPROVE,   /* approval rules and the history (cli_rules.c) */
    CLI_REVOKE,
    CLI_HISTORY,
    CLI_REMAKE,    /* a box whose sandbox is gone, made again (cli_box.c) */
} cli_mode;

#define CLI_NAMES_MAX 32 /* box names one --wait or --watch takes */

typedef struct cli_args {
    cli_mode mode;
    const char *name;        /* box name (up, attach, pull), box name or sandbox id (stop, kill,
                              * resume, extend), or secret name */
    const char *secrets_cmd; /* "list", "set", "remove" */
    int json;
    int pretty;              /* --json --pretty: indented (else one compact line) */
    const char *template_id;
    int hours;               /* up: the new box's lifetime; extend: the new end from now */
    double budget_usd;       /* --budget: up, the box's budget (recorded); prompt, a raise
                              * past it (0 = not given) */
    int attach_after_up;
    const char *dir;
    int keep_failed;
    int public_traffic; /* --up --public */
    const char *allow_out;     /* --up, --network: --allow-out LIST (checked), or NULL */
    const char *deny_out;      /* --deny-out LIST (checked), or NULL */
    int no_internet;           /* --no-internet */
    int force;
    int yes;                   /* --fork, --up: above the thresholds that ask (main.c) */
    const char *keystore_flag; /* --keystore value, or NULL */
    /* snapshots, forks, templates (cli_snap.c) */
    const char *snap_as;       /* --snapshot NAME --as SNAPNAME */
    const char *snap_delete;   /* --snapshots --delete SNAPNAME */
    const char *from_snapshot; /* --up --from SNAPNAME */
    int up_prepare;            /* --up: E2B_BOX_PREPARE_* (--no-prepared NONE; --prepare ONLY) */
    int count;                 /* --fork NAME --count N */
    int dry_run;               /* --gc-templates --dry-run */
    /* agent modes */
    const char *prompt_text;   /* --prompt TEXT ("-" = stdin), or NULL */
    const char *prompt_file;   /* --prompt-file FILE, or NULL */
    int new_session;           /* --new-session */
    int timeout_s;             /* --wait --timeout SECONDS (0 = none) */
    int reply;                 /* --reply: an e2b_agent_reply */
    const char *request_id;    /* --reply/--answer ... REQUEST_ID, or NULL (the oldest) */
    const char *answer_text;   /* --answer NAME [REQUEST_ID] TEXT */
    int answer_option;         /* --answer ... --option N (1-based), or 0 */
    /* groups of attempts (cli_try.c) */
    int try_count;             /* --up NAME --try N: N members NAME-1 ... NAME-N */
    const char *models;        /* --try ... --models m1,m2,...: round robin, or NULL */
    int kill_rest;             /* --pick NAME-K --kill-rest: kill the other members */
    /* several boxes (cli_fleet.c) */
    const char *names[CLI_NAMES_MAX]; /* --wait / --watch NAME...: every name given */
    int nnames;
    int wait_all;              /* --wait --all: every box of this machine */
    int wait_any;              /* --wait --any [NAME...]: the first that needs you or ends */
    const char *until;         /* --watch --until STATE */
    /* a box's life (cli_life.c) */
    int port;                  /* --forward NAME PORT */
    int local_port;            /* --forward ... --local PORT (0: a free one) */
    const char *get_paths[32]; /* --get NAME PATH... */
    int get_npaths;
    /* approval rules (cli_rules.c) */
    const char *approve[32];   /* --up ... --approve RULE (each checked) */
    int napprove;
    int yes_all;               /* --yes-all */
    const char *rule;          /* --approve NAME RULE, --revoke NAME RULE */
    const char *saved_id;      /* --revoke NAME --saved ID */
    const char *session_id;    /* --attach NAME --session ID (NULL: the active session) */
} cli_args;

/* Sets the mode a flag names; -1 (told on stderr) when another mode was already given. */
int cli_set_mode(cli_args *a, cli_mode m, const char *flag);

/* The options and operands of cli_fleet.c (--watch, --until, --all, --any; --wait's and
 * --watch's names): as cli_snap_option. cli_fleet_operands takes the operands of those two
 * modes (1 taken, 0 not its mode, -1 usage error, reported). */
int cli_fleet_option(cli_args *a, int argc, char **argv, int *i);
int cli_fleet_operands(cli_args *a, const char **operands, int n);
int cli_fleet_check(const cli_args *a);

/* The options and operands of cli_life.c's modes (--ports, --forward, --get, --keepalive),
 * as cli_snap_option: 1 it was one, 0 not, -1 usage error (reported). cli_life_place takes
 * the operands of those modes (returns 1 when it did, 0 for another mode, -1 usage error);
 * cli_life_check refuses their options with other modes. */
int cli_life_option(cli_args *a, int argc, char **argv, int *i);
int cli_life_place(cli_args *a, const char **operands, int n);
int cli_life_check(const cli_args *a);


/* The options of cli_rules.c (--approve, --revoke, --yes-all, --saved, --history), as
 * cli_snap_option; cli_rules_place takes their modes' operands (NAME, RULE), as
 * cli_life_place; cli_rules_check refuses them with other modes. */
int cli_rules_option(cli_args *a, int argc, char **argv, int *i);
int cli_rules_place(cli_args *a, const char **operands, int n);
int cli_rules_check(const cli_args *a);

/* Parses argv[*i] when it is an option of cli_answer.c (--answer, --option): 1 it was, 0 not,
 * -1 usage error (reported). cli_answer_check: after all options (-1, reported). */
int cli_answer_option(cli_args *a, int argc, char **argv, int *i);
int cli_answer_check(cli_args *a);

/* Parses argv[*i] when it is an option of cli_snap.c: 1 it was, 0 not, -1 usage error
 * (reported). cli_snap_check: those options only with their modes (-1, reported). */
int cli_snap_option(cli_args *a, int argc, char **argv, int *i);
int cli_snap_check(const cli_args *a);
/* The same for the options of cli_try.c (--try, --models). */
int cli_try_option(cli_args *a, int argc, char **argv, int *i);
int cli_try_check(const cli_args *a);

/* Runs a one-shot mode with cfg loaded; returns the exit code. */
struct e2b_config;
int cli_run(const cli_args *a, struct e2b_config *cfg);

#endif
