/* e2b-tui entry point: parses the command line and dispatches to the dashboard or to a
 * one-shot mode. One-shot modes never touch curses; their errors go to stderr. */
#include "core/agent/agent.h"
#include "core/box/box.h"
#include "core/e2b/config.h"
#include "keystore/keystore.h"
#include "core/git/gitwork.h"
#include "tui/cli/cli.h"
#include "core/e2b/egress_list.h"
#include "core/e2b/cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/app.h"

enum exit_code {
    EXIT_OK = 0,
    EXIT_FAILED = 1,
    EXIT_USAGE = 2,
};

static void print_help(FILE *f)
{
    fputs("Usage: e2b-tui [OPTION]... [MODE]\n"
          "A terminal dashboard for E2B sandboxes running the OpenCode agent.\n"
          "\n"
          "Modes (without one, the interactive dashboard starts):\n"
          "  --list [--json]          list boxes, workspaces and other sandboxes\n"
          "  --up [NAME]              start a box from the current git project\n"
          "       [--template T] [--hours H] [--attach] [--dir PATH] [--keep-failed]\n"
          "       [--from SNAPNAME]   start from a snapshot, sending only what differs\n"
          "       [--no-prepared]     not from the project's prepared snapshot (setup_command)\n"
          "  --prepare [--dir PATH]   make the project's prepared snapshot (its setup run once)\n"
          "       [--public]          a box whose ports need no traffic token\n"
          "       [--budget USD]      what it may cost: a running dashboard or --keepalive\n"
          "                           interrupts and pauses it there (budget_usd)\n"
          "       [--allow-out LIST] [--deny-out LIST] [--no-internet]\n"
          "                           what the box may reach (domains, *.suffix, IPs, CIDRs;\n"
          "                           an allow list means only these; the stored secrets'\n"
          "                           provider hosts stay reachable)\n"
          "       [--approve RULE]... [--yes-all]\n"
          "                           permission requests e2b-tui allows once by itself\n"
          "                           (RULE: TOOL or TOOL:GLOB, e.g. 'bash:python3 -m\n"
          "                           unittest*'; --yes-all: every one, loudly)\n"
          "  --attach NAME [--session ID]\n"
          "                           hand the terminal to the box's OpenCode server (on\n"
          "                           the session ID)\n"
          "  --tunnel NAME            print a local URL that reaches the box's server (with\n"
          "                           its traffic token, not its password) until Ctrl-C\n"
          "  --ports NAME             list the TCP ports that listen in the box\n"
          "  --forward NAME PORT [--local PORT]\n"
          "                           print a local URL that reaches PORT of the box (yours\n"
          "                           only: no password; the traffic token added) until Ctrl-C\n"
          "  --get NAME PATH... [--dir DEST] [--force]\n"
          "                           copy files or folders of the box's project (or /tmp)\n"
          "                           into DEST (default .); existing files need --force\n"
          "  --keepalive              pause boxes idle for idle_minutes, until Ctrl-C\n"
          "  --stop NAME|ID           pause a box or sandbox (paused already is no error)\n"
          "  --kill NAME|ID [--force] delete a box (record and password too) or sandbox;\n"
          "                           a box with unpulled work is refused (exit 8) unless\n"
          "                           --force\n"
          "  --remake NAME            make a box whose sandbox E2B no longer has again, with\n"
          "                           its settings, from its newest snapshot (else its\n"
          "                           project); says what is lost; one still there: exit 5\n"
          "  --network NAME|ID [--allow-out LIST] [--deny-out LIST] [--no-internet]\n"
          "                           replace a running box's egress (nothing given: open);\n"
          "                           the secrets' rules are kept\n"
          "  --resume NAME|ID         resume a paused box or sandbox for its own hours\n"
          "  --extend NAME|ID [--hours H]\n"
          "                           end it H hours from now (default: its own hours)\n"
          "  --pull [NAME] [--force] [--dir PATH]\n"
          "                           bring a box's work home as branch e2b/NAME, into the\n"
          "                           box's own project unless --dir names another\n"
          "  --snapshot NAME [--as SNAPNAME]\n"
          "                           keep a copy of the box (its installed dependencies too)\n"
          "  --snapshots [--delete SNAPNAME]\n"
          "                           list this machine's and E2B's snapshots, or delete one\n"
          "  --fork NAME [--count N]  copy a box into boxes NAME-2, NAME-3, ... (new passwords)\n"
          "  --up NAME --try N --prompt TEXT|--prompt-file F [--models m1,m2,...]\n"
          "                           best of N: box NAME-1 forked into NAME-2..NAME-N (group\n"
          "                           NAME), each given the task (the models round robin)\n"
          "  --compare NAME [--json]  the group's members: state, model, turn time, diff,\n"
          "                           test_command's result in each, cost\n"
          "  --wait NAME              (a group) until every member's turn ends: exit 0 one\n"
          "                           passes its tests, 1 none does, 6 one waits for you\n"
          "  --pick NAME-K [--kill-rest]\n"
          "                           pull the member as branch e2b/NAME; kill the others\n"
          "  --templates              list the team's templates (managed ones and snapshots marked)\n"
          "  --gc-templates [--dry-run]\n"
          "                           delete managed templates unused for template_ttl (3d)\n"
          "  --secrets list [--json]|set NAME|remove NAME\n"
          "                           manage model API keys stored as E2B secrets; the value\n"
          "                           comes from the provider's variable (ANTHROPIC_API_KEY,\n"
          "                           OPENAI_API_KEY, OPENROUTER_API_KEY), else from stdin\n"
          "  --status [NAME] [--json] each box's agent: state, session, todos, pending request\n"
          "  --prompt NAME [TEXT]     send TEXT (stdin when absent or -) to the box's agent;\n"
          "       [--new-session]     prints the session id (--up ... --prompt TEXT or\n"
          "       [--prompt-file F]   --prompt-file F gives a new box its first task)\n"
          "       [--budget USD]      a box at its budget is refused (exit 11) unless\n"
          "                           --budget raises it\n"
          "  --wait NAME [--timeout SECONDS]\n"
          "                           wait until the agent stops working: exit 0 idle after\n"
          "                           a finished turn, 10 interrupted (a rejected permission\n"
          "                           or an interrupt), 1 the turn failed, 6 waiting for you\n"
          "                           (the request on stderr), 7 timed out, 3 no such box\n"
          "  --wait NAME NAME...|--all  every one (a line each; the worst exit status)\n"
          "  --wait --any [NAME...]   the first that needs you or ends its turn (its line and\n"
          "                           its exit status)\n"
          "  --watch [NAME...] [--json] [--until STATE] [--timeout SECONDS]\n"
          "                           a line per state change of each box (JSON: one object\n"
          "                           a line) until interrupted, or until a box is STATE\n"
          "                           (working, waiting, retrying, idle, down, paused)\n"
          "  --reply NAME once|always|reject [REQUEST_ID]\n"
          "                           answer the agent's permission request (the oldest);\n"
          "                           exit 9 when nothing waits for a reply\n"
          "  --answer NAME [REQUEST_ID] TEXT|--option N\n"
          "                           answer the agent's question (the oldest) with TEXT or\n"
          "                           its option N (--status lists them)\n"
          "  --interrupt NAME         interrupt the agent's turn (its pending permission\n"
          "                           requests are rejected)\n"
          "  --approve NAME [RULE] [--yes-all]\n"
          "                           add an approval rule to a box (none given: list its\n"
          "                           rules and the server's saved \"always\" permissions)\n"
          "  --revoke NAME RULE|yes-all|--saved ID\n"
          "                           remove one of them (--saved: the server's)\n"
          "  --history [NAME] [--json] the agents' state changes and rule answers, with times\n"
          "  --info                   print paths, API URL, domain and keystore backend\n"
          "  --version                print the version and exit\n"
          "  --help                   print this help and exit\n"
          "\n"
          "Options:\n"
          "  --config FILE            read FILE instead of the default config file\n"
          "  --domain DOMAIN          E2B domain (default e2b.app)\n"
          "  --api-url URL            E2B API URL (default https://api.DOMAIN)\n"
          "  --keystore NAME          where box passwords are kept\n"
          "                           (auto, secret-service, file)\n"
          "  --template T             template of a new box (default opencode)\n"
          "  --hours H                hours of a new box (default 1); --extend: from now\n"
          "  --dir PATH               the git project (default: the current directory)\n"
          "  --keep-failed            leave the sandbox of a failed --up for inspection\n"
          "  --public                 --up: open the box's ports to anyone with the password\n"
          "                           (default private: they need the sandbox's traffic token)\n"
          "  --force                  --pull: overwrite a diverged e2b/NAME; --kill: kill\n"
          "                           a box even with work not pulled home; --get: overwrite\n"
          "                           local files\n"
          "  --yes                    --fork of more than 3, --up for more hours than the\n"
          "                           config's: make them (else exit 2; the dashboard asks)\n"
          "  --json                   --list, --secrets list, --status: print JSON (one\n"
          "                           compact line with a \"version\" field)\n"
          "  --pretty                 with --json: indented\n"
          "\n"
          "Dashboard options:\n"
          "  --refresh SECONDS        refresh the lists every SECONDS (default "
          E2B_STRINGIFY(E2B_DEFAULT_REFRESH_S) ")\n"
          "  --readonly               hide every action that changes something\n"
          "  --mouse                  mouse clicks and wheel\n"
          "  --no-color               no colours (also NO_COLOR)\n"
          "  --print-keys[=conf|man]  print the key bindings (conf: as share/keys.conf)\n"
          "\n"
          "Exit codes: 0 ok, 1 failed, 2 usage, 3 no such box or sandbox,\n"
          "4 authentication, 5 conflict (e.g. diverged branch), 6 the agent waits for\n"
          "you (--wait), 7 timed out (--wait), 8 unpulled work (--kill: nothing was\n"
          "killed), 9 nothing waits for a reply (--reply), 10 the turn ended interrupted\n"
          "(--wait), 11 the box is at its budget (--prompt). A script: e2b-tui --up --prompt-file task.md && e2b-tui --wait feat-x\n"
          "&& e2b-tui --pull feat-x && e2b-tui --kill feat-x\n"
          "\n"
          "Arguments go in any order: NAME may come anywhere (--up --template base NAME).\n"
          "\n"
          "Environment: E2B_API_KEY, E2B_DOMAIN, E2B_API_URL, E2B_SANDBOX_URL,\n"
          "E2B_TUI_KEYSTORE, E2B_TUI_HEALTH_TIMEOUT (seconds a box's server may take to\n"
          "become healthy, default 90), E2B_TUI_HTTP_TIMEOUT (seconds per API request,\n"
          "default 60).\n"
          "Try it without an account: make demo\n",
          f);
}

/* Global options that take a value: "--name VALUE" or "--name=VALUE" -> config key. */
static const struct {
    const char *flag, *key;
} global_options[] = {
    {"--config", "config"},
    {"--domain", "domain"},
    {"--api-url", "api_url"},
    {"--keystore", "keystore"},
};

/* Applies argv[*i] when it is a global option (advancing *i past its value). Returns 1 when
 * it was one, 0 when not, -1 on a usage error (already reported). */
static int global_option(e2b_config *cfg, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    for (size_t k = 0; k < sizeof global_options / sizeof global_options[0]; k++) {
        size_t fl = strlen(global_options[k].flag);
        const char *value;
        if (strncmp(a, global_options[k].flag, fl) != 0 || (a[fl] && a[fl] != '='))
            continue;
        if (a[fl] == '=') {
            value = a + fl + 1;
        } else if (*i + 1 < argc) {
            value = argv[++*i];
        } else {
            fprintf(stderr, "e2b-tui: %s needs a value (see e2b-tui --help)\n", a);
            return -1;
        }
        e2b_error *bad = e2b_config_set(cfg, global_options[k].key, value, E2B_SRC_FLAG);
        if (bad) {
            fprintf(stderr, "e2b-tui: %s: %s\n", global_options[k].flag, e2b_error_message(bad));
            e2b_error_free(bad);
            return -1;
        }
        return 1;
    }
    return 0;
}

/* The optional value after argv[*i] (not starting with '-'), or NULL. */
static const char *optional_value(int argc, char **argv, int *i)
{
    if (*i + 1 < argc && argv[*i + 1][0] != '-')
        return argv[++*i];
    return NULL;
}

static const char *required_value(int argc, char **argv, int *i, const char *what)
{
    if (*i + 1 < argc && argv[*i + 1][0] != '\0') {
        const char *v = argv[++*i];
        if (v[0] != '-' || v[1] == '\0')
            return v;
        --*i;
    }
    fprintf(stderr, "e2b-tui: %s needs %s (see e2b-tui --help)\n", argv[*i], what);
    return NULL;
}

/* The modes that act on one box (or sandbox): their flag, and what their one operand is.
 * The operand may follow the flag or come anywhere else among the arguments (as getopt
 * users expect: "--up --template base zz"). A new mode of this shape is one more row. */
enum operand { OPERAND_OPTIONAL, OPERAND_REQUIRED };
static const struct {
    const char *flag;
    cli_mode mode;
    enum operand operand;
    const char *what;
    int box_name; /* the operand must be a valid box name (a sandbox id is one too) */
} named_modes[] = {
    {"--up", CLI_UP, OPERAND_OPTIONAL, "a box name", 1},
    {"--pull", CLI_PULL, OPERAND_OPTIONAL, "a box name", 1},
    {"--attach", CLI_ATTACH, OPERAND_REQUIRED, "a box name", 1},
    {"--stop", CLI_STOP, OPERAND_REQUIRED, "a box name or sandbox id", 1},
    {"--kill", CLI_KILL, OPERAND_REQUIRED, "a box name or sandbox id", 1},
    {"--remake", CLI_REMAKE, OPERAND_REQUIRED, "a box name", 1},
    {"--resume", CLI_RESUME, OPERAND_REQUIRED, "a box name or sandbox id", 1},
    {"--extend", CLI_EXTEND, OPERAND_REQUIRED, "a box name or sandbox id", 1},
    {"--tunnel", CLI_TUNNEL, OPERAND_REQUIRED, "a box name", 1},
    {"--status", CLI_STATUS, OPERAND_OPTIONAL, "a box name", 1},
    {"--wait", CLI_WAIT, OPERAND_REQUIRED, "a box name", 1},
    {"--interrupt", CLI_INTERRUPT, OPERAND_REQUIRED, "a box name", 1},
    {"--network", CLI_NETWORK, OPERAND_REQUIRED, "a box name or sandbox id", 1},
};
#define N_NAMED_MODES (sizeof named_modes / sizeof named_modes[0])

static int named_mode_index(cli_mode m)
{
    for (size_t k = 0; k < N_NAMED_MODES; k++)
        if (named_modes[k].mode == m)
            return (int)k;
    return -1;
}

/* The dashboard's own options: told as such when they come with a one-shot mode. */
static int dashboard_option(const char *a)
{
    static const char *const flags[] = {"--refresh", "--readonly", "--mouse", "--no-color",
                                        "--no-colour", "--print-keys"};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        size_t n = strlen(flags[k]);
        if (strncmp(a, flags[k], n) == 0 && (a[n] == '\0' || a[n] == '='))
            return 1;
    }
    return 0;
}

/* Parses a mode flag or a mode option at argv[*i]. Returns 1 when it was one, 0 when not,
 * -1 on a usage error (reported). */
static int mode_option(cli_args *a, int argc, char **argv, int *i, int *pending_attach)
{
    const char *f = argv[*i];
    if (strcmp(f, "--list") == 0)
        return cli_set_mode(a, CLI_LIST, f) < 0 ? -1 : 1;
    if (strcmp(f, "--json") == 0)
        return a->json = 1, 1;
    if (strcmp(f, "--pretty") == 0)
        return a->pretty = 1, 1;
    if (strcmp(f, "--keep-failed") == 0)
        return a->keep_failed = 1, 1;
    if (strcmp(f, "--force") == 0)
        return a->force = 1, 1;
    if (strcmp(f, "--yes") == 0)
        return a->yes = 1, 1;
    if (strcmp(f, "--public") == 0)
        return a->public_traffic = 1, 1;
    if (strcmp(f, "--no-internet") == 0)
        return a->no_internet = 1, 1;
    if (strcmp(f, "--allow-out") == 0 || strcmp(f, "--deny-out") == 0) {
        int deny = f[2] == 'd';
        const char *v = required_value(argc, argv, i, "a list of domains, IPs or CIDRs");
        char why[300];
        if (!v)
            return -1;
        if (e2b_egress_list_check(v, deny, why, sizeof why) != 0) {
            fprintf(stderr, "e2b-tui: %s: %s\n", f, why);
            return -1;
        }
        *(deny ? &a->deny_out : &a->allow_out) = v;
        return 1;
    }
    if (strcmp(f, "--attach") == 0 && a->mode == CLI_UP) {
        a->attach_after_up = 1; /* "--up NAME --attach" */
        return 1;
    }
    for (size_t k = 0; k < N_NAMED_MODES; k++) {
        if (strcmp(f, named_modes[k].flag) != 0)
            continue;
        const char *v = optional_value(argc, argv, i);
        if (named_modes[k].mode == CLI_ATTACH && !v && a->mode == CLI_NONE) {
            *pending_attach = 1; /* "--attach --up NAME" */
            return 1;
        }
        if (cli_set_mode(a, named_modes[k].mode, f) < 0)
            return -1;
        if (v)
            a->name = v;
        return 1;
    }
    if (strcmp(f, "--prompt") == 0) {
        if (a->mode == CLI_UP) { /* --up ... --prompt TEXT */
            if (*i + 1 < argc && (argv[*i + 1][0] != '-' || !strcmp(argv[*i + 1], "-")))
                a->prompt_text = argv[++*i];
            else
                a->prompt_text = "-";
            return 1;
        }
        if (cli_set_mode(a, CLI_PROMPT, f) < 0)
            return -1;
        if (!(a->name = required_value(argc, argv, i, "a box name")))
            return -1;
        if (*i + 1 < argc && (argv[*i + 1][0] != '-' || !strcmp(argv[*i + 1], "-")))
            a->prompt_text = argv[++*i];
        return 1;
    }
    if (strcmp(f, "--prompt-file") == 0)
        return (a->prompt_file = required_value(argc, argv, i, "a file")) ? 1 : -1;
    if (strcmp(f, "--new-session") == 0)
        return a->new_session = 1, 1;
    if (strcmp(f, "--timeout") == 0) {
        const char *v = required_value(argc, argv, i, "a number of seconds");
        char *end;
        long t;
        if (!v)
            return -1;
        t = strtol(v, &end, 10);
        if (*end || t < 1 || t > 86400) {
            fprintf(stderr, "e2b-tui: --timeout must be a whole number of seconds from 1 to "
                            "86400, not '%s'\n", v);
            return -1;
        }
        a->timeout_s = (int)t;
        return 1;
    }
    if (strcmp(f, "--reply") == 0) {
        if (cli_set_mode(a, CLI_REPLY, f) < 0)
            return -1;
        if (!(a->name = required_value(argc, argv, i, "a box name")))
            return -1;
        const char *r = required_value(argc, argv, i, "once, always or reject");
        e2b_agent_reply rep;
        if (!r)
            return -1;
        if (e2b_agent_reply_parse(r, &rep) < 0) {
            fprintf(stderr, "e2b-tui: --reply takes once, always or reject, not '%s'\n", r);
            return -1;
        }
        a->reply = (int)rep;
        a->request_id = optional_value(argc, argv, i);
        return 1;
    }
    if (strcmp(f, "--secrets") == 0) {
        if (cli_set_mode(a, CLI_SECRETS, f) < 0)
            return -1;
        if (!(a->secrets_cmd = required_value(argc, argv, i, "list, set NAME or remove NAME")))
            return -1;
        if (strcmp(a->secrets_cmd, "list") == 0)
            return 1;
        if (strcmp(a->secrets_cmd, "set") != 0 && strcmp(a->secrets_cmd, "remove") != 0) {
            fprintf(stderr, "e2b-tui: --secrets takes list, set NAME or remove NAME, not '%s'\n",
                    a->secrets_cmd);
            return -1;
        }
        return (a->name = required_value(argc, argv, i, "a secret name")) ? 1 : -1;
    }
    if (strcmp(f, "--template") == 0)
        return (a->template_id = required_value(argc, argv, i, "a template")) ? 1 : -1;
    if (strcmp(f, "--dir") == 0)
        return (a->dir = required_value(argc, argv, i, "a directory")) ? 1 : -1;
    if (strcmp(f, "--budget") == 0) {
        const char *v = required_value(argc, argv, i, "dollars");
        if (!v)
            return -1;
        if (e2b_budget_parse(v, &a->budget_usd) < 0) {
            fprintf(stderr, "e2b-tui: --budget must be dollars, a number from 0.01 to %g "
                            "(e.g. 2.50), not '%s'\n", E2B_BUDGET_MAX_USD, v);
            return -1;
        }
        return 1;
    }
    if (strcmp(f, "--hours") == 0) {
        const char *v = required_value(argc, argv, i, "a number of hours");
        char *end;
        long h;
        if (!v)
            return -1;
        h = strtol(v, &end, 10);
        if (*end || h < 1 || h > 24) {
            fprintf(stderr, "e2b-tui: --hours must be a whole number from 1 to 24, not '%s'\n", v);
            return -1;
        }
        a->hours = (int)h;
        return 1;
    }
    return 0;
}

/* The operands (arguments that are not options) go to the mode's one name; anything more
 * is a usage error that says what the mode takes. */
static int place_operands(cli_args *a, const char **operands, int n)
{
    int fleet = cli_fleet_operands(a, operands, n); /* --wait and --watch: several names */
    if (fleet)
        return fleet < 0 ? -1 : 0;
    int k = named_mode_index(a->mode);
    int next = 0, life = cli_life_place(a, operands, n);
    if (life)
        return life < 0 ? -1 : 0;
    int rules = cli_rules_place(a, operands, n);
    if (rules)
        return rules < 0 ? -1 : 0;
    if (k >= 0 && !a->name && n > 0)
        a->name = operands[next++];
    if (next < n) {
        if (k >= 0)
            fprintf(stderr, "e2b-tui: unexpected argument '%s': %s takes only %s (see e2b-tui "
                            "--help)\n",
                    operands[next], named_modes[k].flag, named_modes[k].what);
        else
            fprintf(stderr, "e2b-tui: unexpected argument '%s' (see e2b-tui --help)\n",
                    operands[next]);
        return -1;
    }
    if (k >= 0 && named_modes[k].operand == OPERAND_REQUIRED && !a->name) {
        fprintf(stderr, "e2b-tui: %s needs %s (see e2b-tui --help)\n", named_modes[k].flag,
                named_modes[k].what);
        return -1;
    }
    if (k >= 0 && named_modes[k].box_name && a->name && !e2b_gitwork_box_name_valid(a->name)) {
        fprintf(stderr, "e2b-tui: '%s' is not a valid box name (letters, digits, '.', '_', "
                        "'-'; see e2b-tui --help)\n", a->name);
        return -1;
    }
    return 0;
}

/* Mode options that make no sense for the chosen mode are usage errors, not ignored. */
static int check_combination(const cli_args *a)
{
    const char *bad = NULL;
    if (a->json && a->mode != CLI_LIST && a->mode != CLI_STATUS && a->mode != CLI_WATCH &&
        a->mode != CLI_COMPARE && a->mode != CLI_HISTORY &&
        !(a->mode == CLI_SECRETS && strcmp(a->secrets_cmd, "list") == 0))
        bad = "--json";
    else if (a->pretty && !a->json)
        bad = "--pretty";
    else if (a->hours && a->mode != CLI_UP && a->mode != CLI_EXTEND)
        bad = "--hours";
    else if (a->budget_usd > 0 && a->mode != CLI_UP && a->mode != CLI_PROMPT)
        bad = "--budget";
    else if ((a->prompt_text || a->prompt_file) && a->mode != CLI_UP && a->mode != CLI_PROMPT)
        bad = a->prompt_file ? "--prompt-file" : "--prompt";
    else if (a->new_session && a->mode != CLI_PROMPT && a->mode != CLI_UP)
        bad = "--new-session";
    else if (a->timeout_s && a->mode != CLI_WAIT && a->mode != CLI_WATCH)
        bad = "--timeout";
    else if ((a->template_id || a->keep_failed || a->attach_after_up || a->public_traffic) &&
             a->mode != CLI_UP)
        bad = a->template_id ? "--template" : a->keep_failed ? "--keep-failed"
              : a->public_traffic ? "--public" : "--attach";
    else if ((a->allow_out || a->deny_out || a->no_internet) && a->mode != CLI_UP &&
             a->mode != CLI_NETWORK)
        bad = a->allow_out ? "--allow-out" : a->deny_out ? "--deny-out" : "--no-internet";
    else if (a->force && a->mode != CLI_PULL && a->mode != CLI_KILL && a->mode != CLI_GET &&
             a->mode != CLI_PICK)
        bad = "--force";
    else if (a->dir && a->mode != CLI_UP && a->mode != CLI_PULL && a->mode != CLI_GET &&
             a->mode != CLI_PICK)
        bad = "--dir";
    else if (a->yes && a->mode != CLI_UP && a->mode != CLI_FORK)
        bad = "--yes";
    if (bad) {
        fprintf(stderr, "e2b-tui: %s does not go with %s (see e2b-tui --help)\n", bad,
                a->mode == CLI_NONE ? "the dashboard" : "this mode");
        return -1;
    }
    return 0;
}

/* A fork of many boxes, or an up for more hours than the config's, costs money: the
 * dashboard asks, a script says --yes (the same thresholds). */
static int refuse_costly(const cli_args *a, const e2b_config *cfg)
{
    if (a->yes)
        return 0;
    if (a->mode == CLI_FORK && a->count > E2B_BOX_FORK_ASK_ABOVE) {
        fprintf(stderr, "e2b-tui: --fork --count %d makes %d boxes, each the size of %s: add "
                        "--yes to make them (more than %d need it)\n",
                a->count, a->count, a->name, E2B_BOX_FORK_ASK_ABOVE);
        return 1;
    }
    if (a->mode == CLI_UP && a->hours > cfg->hours) {
        fprintf(stderr, "e2b-tui: --up --hours %d is more than the config's hours (%d): add "
                        "--yes to start the box for %d hours\n",
                a->hours, cfg->hours, a->hours);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    /* The dashboard when every argument is a dashboard or global option. */
    struct tui_options topts;
    enum tui_options_result tr = tui_options_parse(argc, argv, &topts);
    if (tr == TUI_OPTIONS_RUN)
        return tui_run(&topts);
    if (tr == TUI_OPTIONS_USAGE)
        return EXIT_USAGE;
    e2b_config cfg;
    int info = 0, rc, pending_attach = 0, noperands = 0;
    const char **operands = calloc((size_t)argc, sizeof *operands);
    cli_args args = {0};
    if (!operands) {
        fputs("e2b-tui: out of memory\n", stderr);
        return EXIT_FAILED;
    }
    e2b_config_init(&cfg);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int g;
        if (strcmp(a, "--version") == 0) {
            printf("e2b-tui %s\n", E2B_TUI_VERSION);
            free(operands);
            e2b_config_clear(&cfg);
            return EXIT_OK;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help(stdout);
            free(operands);
            e2b_config_clear(&cfg);
            return EXIT_OK;
        }
        if (strcmp(a, "--info") == 0) {
            info = 1;
            continue;
        }
        if (strncmp(a, "--keystore", 10) == 0 && (a[10] == '=' || a[10] == '\0'))
            args.keystore_flag = a[10] == '=' ? a + 11 : (i + 1 < argc ? argv[i + 1] : NULL);
        g = global_option(&cfg, argc, argv, &i);
        if (g == 0)
            g = mode_option(&args, argc, argv, &i, &pending_attach);
        if (g == 0)
            g = cli_snap_option(&args, argc, argv, &i);
        if (g == 0)
            g = cli_try_option(&args, argc, argv, &i);
        if (g == 0)
            g = cli_fleet_option(&args, argc, argv, &i);
        if (g == 0)
            g = cli_life_option(&args, argc, argv, &i);
        if (g == 0)
            g = cli_answer_option(&args, argc, argv, &i);
        if (g == 0)
            g = cli_rules_option(&args, argc, argv, &i);
        if (g < 0) {
            free(operands);
            e2b_config_clear(&cfg);
            return EXIT_USAGE;
        }
        if (g > 0)
            continue;
        if (a[0] != '-' || a[1] == '\0') {
            operands[noperands++] = a;
            continue;
        }
        if (dashboard_option(a))
            fprintf(stderr, "e2b-tui: %.*s is a dashboard option: it does not go with %s (see "
                            "e2b-tui --help)\n",
                    (int)strcspn(a, "="), a, info ? "--info" : "a one-shot mode");
        else
            fprintf(stderr, "e2b-tui: unknown option '%s' (see e2b-tui --help)\n", a);
        free(operands);
        e2b_config_clear(&cfg);
        return EXIT_USAGE;
    }
    if (pending_attach) {
        if (args.mode == CLI_UP)
            args.attach_after_up = 1;
        else if (args.mode == CLI_NONE && !info)
            args.mode = CLI_ATTACH; /* "--attach" with its name elsewhere */
        else {
            fprintf(stderr, "e2b-tui: --attach goes with --up, or names a box (see e2b-tui "
                            "--help)\n");
            free(operands);
            e2b_config_clear(&cfg);
            return EXIT_USAGE;
        }
    }
    if ((info && noperands) || place_operands(&args, operands, noperands) < 0) {
        if (info && noperands)
            fprintf(stderr, "e2b-tui: unexpected argument '%s': --info takes none (see e2b-tui "
                            "--help)\n", operands[0]);
        free(operands);
        e2b_config_clear(&cfg);
        return EXIT_USAGE;
    }
    free(operands);
    if (info && args.mode != CLI_NONE) {
        fprintf(stderr, "e2b-tui: --info cannot be combined with another mode\n");
        e2b_config_clear(&cfg);
        return EXIT_USAGE;
    }
    if (check_combination(&args) < 0 || cli_snap_check(&args) < 0 || cli_fleet_check(&args) < 0 ||
        cli_life_check(&args) < 0 || cli_answer_check(&args) < 0 || cli_try_check(&args) < 0 ||
        cli_rules_check(&args) < 0) {
        e2b_config_clear(&cfg);
        return EXIT_USAGE;
    }
    {
        e2b_error *err = e2b_config_load(&cfg, NULL);
        if (err) {
            fprintf(stderr, "e2b-tui: %s\n", e2b_error_message(err));
            e2b_error_free(err);
            e2b_config_clear(&cfg);
            return EXIT_USAGE;
        }
    }
    if (refuse_costly(&args, &cfg)) {
        e2b_config_clear(&cfg);
        return EXIT_USAGE;
    }
    if (info) {
        /* The backend that would be used, probed (not just the configured choice). */
        ks_select sel = e2b_keystore_choice(args.keystore_flag, &cfg);
        sel.timeout_ms = 5000;
        char *ks = keystore_describe(&sel);
        e2b_config_write_info(&cfg, ks, stdout);
        free(ks);
        rc = EXIT_OK;
    } else if (args.mode != CLI_NONE) {
        rc = cli_run(&args, &cfg);
    } else {
        /* Not reached: without a mode every argument is the dashboard's (tui_options_parse). */
        fputs("e2b-tui: no mode given (see e2b-tui --help)\n", stderr);
        rc = EXIT_USAGE;
    }
    e2b_config_clear(&cfg);
    return rc;
}
