/* Approval rules and the agents' history from a shell (core/live/live.h): --up ...
 * --approve RULE / --yes-all (kept in the new box's record), --approve NAME [RULE]
 * [--yes-all] (add, or list e2b-tui's and the server's saved "always" ones), --revoke NAME
 * RULE|yes-all / --revoke NAME --saved ID, and --history [NAME] [--json]. */
#include "tui/cli/cli_agent_box.h"

#include "core/agent/rules.h"
#include "core/git/gitwork.h"
#include "core/util/json_style.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define YES_ALL_WARNING                                                                       \
    "e2b-tui: WARNING: yes-all: every permission request of box %s (any command, any file) " \
    "is allowed without asking you, while e2b-tui watches it\n"

/* ---- options ---- */

static int next_plain(int argc, char **argv, int *i)
{
    return *i + 1 < argc && argv[*i + 1][0] && argv[*i + 1][0] != '-';
}

static int check_rule(const char *rule)
{
    char why[300];
    if (e2b_rules_valid(rule, why, sizeof why))
        return 0;
    fprintf(stderr, "e2b-tui: %s\n", why);
    return -1;
}

int cli_rules_option(cli_args *a, int argc, char **argv, int *i)
{
    const char *f = argv[*i];
    if (strcmp(f, "--yes-all") == 0)
        return a->yes_all = 1, 1;
    if (strcmp(f, "--session") == 0) { /* --attach NAME --session ID (cli_box.c) */
        if (*i + 1 >= argc || argv[*i + 1][0] == '-') {
            fprintf(stderr, "e2b-tui: --session needs a session id (ses_...; --status NAME "
                            "shows the active one)\n");
            return -1;
        }
        a->session_id = argv[++*i];
        return 1;
    }
    if (strcmp(f, "--saved") == 0) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "e2b-tui: --saved needs the id of a saved permission (e2b-tui "
                            "--approve NAME lists them)\n");
            return -1;
        }
        a->saved_id = argv[++*i];
        return 1;
    }
    if (strcmp(f, "--approve") == 0 && a->mode == CLI_UP) { /* --up ... --approve RULE */
        if (*i + 1 >= argc) {
            fprintf(stderr, "e2b-tui: --approve needs a rule (e.g. 'bash:python3 -m unittest*' "
                            "or edit)\n");
            return -1;
        }
        if (a->napprove >= (int)(sizeof a->approve / sizeof *a->approve)) {
            fprintf(stderr, "e2b-tui: at most %d approval rules a box\n", E2B_RULES_MAX);
            return -1;
        }
        if (check_rule(argv[*i + 1]) < 0)
            return -1;
        a->approve[a->napprove++] = argv[++*i];
        return 1;
    }
    if (strcmp(f, "--approve") == 0 || strcmp(f, "--revoke") == 0) {
        if (cli_set_mode(a, f[2] == 'a' ? CLI_APPROVE : CLI_REVOKE, f) < 0)
            return -1;
        if (next_plain(argc, argv, i))
            a->name = argv[++*i];
        if (a->name && *i + 1 < argc && argv[*i + 1][0] != '-')
            a->rule = argv[++*i];
        return 1;
    }
    if (strcmp(f, "--history") == 0) {
        if (cli_set_mode(a, CLI_HISTORY, f) < 0)
            return -1;
        if (next_plain(argc, argv, i))
            a->name = argv[++*i];
        return 1;
    }
    return 0;
}

int cli_rules_place(cli_args *a, const char **operands, int n)
{
    if (a->mode != CLI_APPROVE && a->mode != CLI_REVOKE && a->mode != CLI_HISTORY)
        return 0;
    int next = 0;
    if (!a->name && next < n)
        a->name = operands[next++];
    if (a->mode != CLI_HISTORY && !a->rule && next < n)
        a->rule = operands[next++];
    if (next < n) {
        fprintf(stderr, "e2b-tui: unexpected argument '%s' (see e2b-tui --help)\n", operands[next]);
        return -1;
    }
    const char *flag = a->mode == CLI_APPROVE ? "--approve" : a->mode == CLI_REVOKE ? "--revoke"
                                                                                     : "--history";
    if (!a->name && a->mode != CLI_HISTORY) {
        fprintf(stderr, "e2b-tui: %s needs a box name (see e2b-tui --help)\n", flag);
        return -1;
    }
    if (a->name && !e2b_gitwork_box_name_valid(a->name)) {
        fprintf(stderr, "e2b-tui: '%s' is not a valid box name (letters, digits, '.', '_', "
                        "'-'; see e2b-tui --help)\n", a->name);
        return -1;
    }
    if (a->mode == CLI_REVOKE && !a->rule && !a->saved_id && !a->yes_all) {
        fprintf(stderr, "e2b-tui: --revoke needs a rule, yes-all or --saved ID (e2b-tui "
                        "--approve %s lists them)\n", a->name);
        return -1;
    }
    if (a->mode == CLI_APPROVE && a->rule && strcmp(a->rule, E2B_RULE_YES_ALL) &&
        check_rule(a->rule) < 0)
        return -1;
    return 0;
}

int cli_rules_check(const cli_args *a)
{
    const char *bad = NULL;
    if (a->napprove && a->mode != CLI_UP)
        bad = "--approve RULE";
    else if (a->yes_all && a->mode != CLI_UP && a->mode != CLI_APPROVE && a->mode != CLI_REVOKE)
        bad = "--yes-all";
    else if (a->saved_id && a->mode != CLI_REVOKE)
        bad = "--saved";
    else if (a->yes_all && a->try_count)
        bad = "--yes-all";
    if (!bad && a->session_id && a->mode != CLI_ATTACH) {
        fprintf(stderr, "e2b-tui: --session goes with --attach NAME (see e2b-tui --help)\n");
        return -1;
    }
    if (bad) {
        fprintf(stderr, "e2b-tui: %s goes with --up, --approve NAME or --revoke NAME (see "
                        "e2b-tui --help)\n", bad);
        return -1;
    }
    return 0;
}

/* ---- the modes ---- */

/* e2b-tui's rules, then (when its agent can be watched) what the server saved. */
static int list_rules(e2b_live *m, const cli_args *a, struct agent_box *b)
{
    char safe[600];
    if (b->rec.yes_all)
        printf("e2b-tui\t%s\n", E2B_RULE_YES_ALL);
    for (size_t i = 0; i < b->rec.napprove; i++) {
        cli_clean(b->rec.approve[i], safe, sizeof safe);
        printf("e2b-tui\t%s\n", safe);
    }
    cli_agent_boxes_watch(m, b, 1);
    if (!e2b_live_agent_synced(m, b->rec.sandbox_id)) {
        const char *why = cli_agent_box_why(b);
        cli_clean(why ? why : "its agent is not reached", safe, sizeof safe);
        fprintf(stderr, "e2b-tui: box %s: the server's saved permissions are not known: %s\n",
                a->name, safe);
        return 0;
    }
    e2b_live_end end = {0};
    e2b_live_then(m, &end);
    e2b_live_saved_load(m, b->rec.sandbox_id);
    e2b_wait(e2b_live_loop(m), &end.done);
    if (end.err) {
        cli_clean(e2b_error_message(end.err), safe, sizeof safe);
        fprintf(stderr, "e2b-tui: box %s: the server's saved permissions: %s\n", a->name, safe);
        e2b_error_free(end.err);
        return 0;
    }
    size_t n = 0;
    const e2b_agent_request *s = e2b_live_saved(m, b->rec.sandbox_id, &n, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        char id[300], act[300];
        cli_clean(s[i].id, id, sizeof id);
        cli_clean(s[i].action ? s[i].action : "", act, sizeof act);
        cli_clean(s[i].detail ? s[i].detail : "", safe, sizeof safe);
        printf("server\t%s\t%s\t%s\n", id, act, safe);
    }
    return 0;
}

static int revoke_saved(e2b_live *m, const cli_args *a, struct agent_box *b)
{
    cli_agent_boxes_watch(m, b, 1);
    if (!e2b_live_agent_synced(m, b->rec.sandbox_id)) {
        const char *why = cli_agent_box_why(b);
        char safe[600];
        cli_clean(why ? why : "its agent is not reached", safe, sizeof safe);
        fprintf(stderr, "e2b-tui: box %s: %s\n", a->name, safe);
        return 1;
    }
    e2b_live_end end = {0};
    e2b_live_then(m, &end);
    e2b_live_saved_revoke(m, b->rec.sandbox_id, a->saved_id);
    e2b_wait(e2b_live_loop(m), &end.done);
    if (end.err) {
        int rc = cli_fail(end.err);
        e2b_error_free(end.err);
        return rc;
    }
    printf("box %s: saved permission %s removed\n", a->name, a->saved_id);
    return 0;
}

/* An approval rule or the yes-all flag changed: the record only (no API, no box reached). */
static int change_rules(e2b_live *m, const cli_args *a)
{
    bool yes_all_word = a->rule && !strcmp(a->rule, E2B_RULE_YES_ALL);
    const char *rule = yes_all_word ? NULL : a->rule;
    int yes_all = a->yes_all || yes_all_word ? (a->mode == CLI_APPROVE) : -1;
    e2b_error *err = e2b_live_rules_change(m, a->name, rule, a->mode == CLI_APPROVE, yes_all);
    if (err) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    char safe[600];
    cli_clean(rule ? rule : E2B_RULE_YES_ALL, safe, sizeof safe);
    printf("box %s: %s %s\n", a->name, a->mode == CLI_APPROVE ? "approves" : "revoked", safe);
    if (yes_all == 1)
        fprintf(stderr, YES_ALL_WARNING, a->name);
    return 0;
}

bool cli_rules_local(const cli_args *a)
{
    return a->mode == CLI_HISTORY || ((a->mode == CLI_APPROVE || a->mode == CLI_REVOKE) &&
                                      (a->rule || a->yes_all) && !a->saved_id);
}

static int cli_rules_mode(e2b_live *m, const cli_args *a)
{
    if (cli_rules_local(a))
        return change_rules(m, a);
    struct agent_box b;
    int rc = cli_agent_box_read(m, a, a->name, &b);
    if (!rc && (rc = cli_open_keystore(m, a)) == 0) /* the watch reads the password */
        rc = a->mode == CLI_APPROVE ? list_rules(m, a, &b) : revoke_saved(m, a, &b);
    cli_agent_box_clear(&b);
    return rc;
}

static int cli_history(e2b_live *m, const cli_args *a)
{
    e2b_live_history h;
    e2b_error *err = e2b_live_history_read(e2b_live_config(m), a->name, &h);
    if (err) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    /* JSON: rows of (at, box, event); the entries are sanitised by the reader */
    char (*at)[32] = calloc(h.count ? h.count : 1, sizeof *at);
    const char **cells = calloc(h.count ? h.count * 3 : 1, sizeof *cells);
    int rc = at && cells ? 0 : 1;
    for (size_t i = 0; !rc && i < h.count; i++) {
        const e2b_live_history_entry *e = &h.items[i];
        struct tm tm;
        if (a->json) {
            strftime(at[i], sizeof at[i], "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&e->at, &tm));
            cells[i * 3] = at[i];
            cells[i * 3 + 1] = e->box;
            cells[i * 3 + 2] = e->text;
        } else {
            char box[300], text[1100];
            cli_clean(e->box, box, sizeof box);
            cli_clean(e->text, text, sizeof text);
            strftime(at[i], sizeof at[i], "%Y-%m-%d %H:%M:%S", localtime_r(&e->at, &tm));
            printf("%s  %s %s\n", at[i], box, text);
        }
    }
    if (!rc && a->json) {
        static const char *const keys[] = {"at", "box", "event"};
        char *doc = e2b_json_rows("events", keys, 3, cells, h.count, a->pretty);
        if (doc)
            printf("%s\n", doc);
        rc = doc ? 0 : 1;
        free(doc);
    }
    if (rc)
        fputs("e2b-tui: out of memory\n", stderr);
    free(at);
    free(cells);
    e2b_live_history_clear(&h);
    return rc;
}

int cli_rules(e2b_live *m, const cli_args *a)
{
    return a->mode == CLI_HISTORY ? cli_history(m, a) : cli_rules_mode(m, a);
}
