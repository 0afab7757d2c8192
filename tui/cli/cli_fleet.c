/* The agent modes over several boxes: `--watch [NAME...] [--json] [--until STATE]
 * [--timeout S]` (a line per state change, as it happens) and `--wait NAME NAME...`,
 * `--wait --all`, `--wait --any [NAME...]` (one --wait over several boxes). Each box is the
 * model's watch of it, as cli_agent.c makes it (e2b_live_agent_watch, through
 * tui/cli/cli_agent_box.h); nothing is polled: the loop sleeps until a watch has news (or a
 * second passes, for the clock of --timeout). */
#include "tui/cli/cli_internal.h"
#include "tui/cli/cli_agent_box.h"

#include "core/agent/agent_json.h"
#include "core/box/records.h"
#include "core/git/gitwork.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- options ---- */

/* The states --until takes: the state's name, or its first word. */
static const char *const until_states[] = {"working", "waiting", "retrying", "idle", "down",
                                           "paused", "unknown", "gone"};

static bool state_is(const char *state, const char *until)
{
    if (!state || !until)
        return false;
    size_t n = strlen(until);
    if (!strcmp(until, "down"))
        return !strcmp(state, "server down");
    return !strncmp(state, until, n) && (state[n] == '\0' || state[n] == ' ');
}

int cli_fleet_option(cli_args *a, int argc, char **argv, int *i)
{
    const char *f = argv[*i];
    if (!strcmp(f, "--watch")) {
        if (a->mode != CLI_NONE && a->mode != CLI_WATCH) {
            fprintf(stderr, "e2b-tui: --watch cannot be combined with another mode (see "
                            "e2b-tui --help)\n");
            return -1;
        }
        a->mode = CLI_WATCH;
        return 1;
    }
    if (!strcmp(f, "--all"))
        return a->wait_all = 1, 1;
    if (!strcmp(f, "--any"))
        return a->wait_any = 1, 1;
    if (!strcmp(f, "--until")) {
        if (*i + 1 >= argc || !argv[*i + 1][0]) {
            fprintf(stderr, "e2b-tui: --until needs a state (working, waiting, retrying, idle, "
                            "down, paused)\n");
            return -1;
        }
        const char *v = argv[++*i];
        for (size_t k = 0; k < sizeof until_states / sizeof *until_states; k++)
            if (!strcmp(v, until_states[k]))
                return a->until = until_states[k], 1;
        fprintf(stderr, "e2b-tui: --until takes working, waiting, retrying, idle, down or "
                        "paused, not '%s'\n", v);
        return -1;
    }
    return 0;
}

int cli_fleet_operands(cli_args *a, const char **operands, int n)
{
    if (a->mode != CLI_WAIT && a->mode != CLI_WATCH)
        return 0;
    a->nnames = 0;
    if (a->name)
        a->names[a->nnames++] = a->name;
    for (int k = 0; k < n; k++) {
        if (a->nnames >= CLI_NAMES_MAX) {
            fprintf(stderr, "e2b-tui: at most %d box names at once\n", CLI_NAMES_MAX);
            return -1;
        }
        a->names[a->nnames++] = operands[k];
    }
    for (int k = 0; k < a->nnames; k++)
        if (!e2b_gitwork_box_name_valid(a->names[k])) {
            fprintf(stderr, "e2b-tui: '%s' is not a valid box name (letters, digits, '.', '_', "
                            "'-'; see e2b-tui --help)\n", a->names[k]);
            return -1;
        }
    a->name = a->nnames ? a->names[0] : NULL;
    if (a->mode == CLI_WAIT && !a->nnames && !a->wait_all && !a->wait_any) {
        fprintf(stderr, "e2b-tui: --wait needs a box name, several, --all or --any (see "
                        "e2b-tui --help)\n");
        return -1;
    }
    if (a->mode == CLI_WAIT && a->wait_all && a->nnames) {
        fprintf(stderr, "e2b-tui: --wait --all waits for every box: it takes no name\n");
        return -1;
    }
    return 1;
}

int cli_fleet_check(const cli_args *a)
{
    const char *bad = NULL;
    if (a->until && a->mode != CLI_WATCH)
        bad = "--until";
    else if ((a->wait_all || a->wait_any) && a->mode != CLI_WAIT)
        bad = a->wait_all ? "--all" : "--any";
    else if (a->wait_all && a->wait_any)
        bad = "--all";
    if (bad) {
        fprintf(stderr, "e2b-tui: %s does not go with %s (see e2b-tui --help)\n", bad,
                a->wait_all && a->wait_any ? "--any" : "this mode");
        return -1;
    }
    return 0;
}

/* ---- the boxes ---- */

struct fleet {
    struct agent_box *boxes;
    size_t n;
};

static void fleet_clear(struct fleet *f)
{
    for (size_t i = 0; i < f->n; i++)
        cli_agent_box_clear(&f->boxes[i]);
    free(f->boxes);
}

/* The boxes named, else every box of this machine; each looked up and watched. */
static int fleet_open(e2b_live *m, const cli_args *a, struct fleet *f)
{
    memset(f, 0, sizeof *f);
    int rc = 0;
    if (a->nnames) {
        f->boxes = calloc((size_t)a->nnames, sizeof *f->boxes);
        if (!f->boxes)
            return 1;
        for (int k = 0; k < a->nnames; k++) {
            if ((rc = cli_agent_box_read(m, a, a->names[k], &f->boxes[f->n])))
                return rc;
            f->n++;
        }
    } else {
        e2b_box_record_list recs = {0};
        e2b_error *err = e2b_box_record_list_read(e2b_live_config(m)->records_dir, &recs, NULL);
        if (err) {
            rc = cli_fail(err);
            e2b_error_free(err);
            return rc;
        }
        f->boxes = recs.count ? calloc(recs.count, sizeof *f->boxes) : NULL;
        for (size_t i = 0; f->boxes && i < recs.count; i++) {
            f->boxes[f->n].rec = recs.items[i];
            memset(&recs.items[i], 0, sizeof recs.items[i]);
            f->n++;
        }
        e2b_box_record_list_clear(&recs);
    }
    cli_agent_boxes_watch(m, f->boxes, f->n);
    for (size_t i = 0; i < f->n; i++) /* the API failed: its exit status, said once */
        if (cli_agent_box_api_err(&f->boxes[i]))
            return cli_fail(cli_agent_box_api_err(&f->boxes[i]));
    return 0;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether b's status is known enough to be told. */
static bool told_yet(e2b_live *m, const struct agent_box *b)
{
    const e2b_agent_status *st = cli_agent_box_status(m, b);
    return !st || e2b_live_agent_synced(m, b->rec.sandbox_id) ||
           st->state == E2B_AGENT_SERVER_DOWN;
}

/* "NAME<TAB>STATE<TAB>the status line" (sanitised). */
static void print_plain(e2b_live *m, const struct agent_box *b, const char *at)
{
    char line[1024], buf[1200];
    const e2b_agent_status *st = cli_agent_box_status(m, b);
    const char *why = cli_agent_box_why(b);
    if (st)
        e2b_agent_status_line(st, line, sizeof line);
    else
        snprintf(line, sizeof line, "%s", why ? why : cli_agent_box_state(m, b));
    cli_clean(line, buf, sizeof buf);
    if (at)
        printf("%s\t", at);
    printf("%s\t%s\t%s\n", b->rec.name, cli_agent_box_state(m, b), buf);
}

/* ---- --watch ---- */

/* What a line tells: the state, the oldest request, how the last turn ended. */
static void signature(e2b_live *m, const struct agent_box *b, char *buf, size_t n)
{
    const e2b_agent_status *st = cli_agent_box_status(m, b);
    snprintf(buf, n, "%s|%s|%d", cli_agent_box_state(m, b),
             st && st->nrequests ? st->requests[0].id : "", st ? (int)st->last_end : 0);
}

static void print_change(e2b_live *m, const struct agent_box *b, bool json)
{
    int64_t now = wall_ms();
    if (json) {
        e2b_opencode_kind oc;
        e2b_box_record_opencode(&b->rec, &oc);
        e2b_agent_box_view v = {.name = b->rec.name, .sandbox_id = b->rec.sandbox_id,
                                .sandbox = cli_agent_box_sandbox(m, b),
                                .state = cli_agent_box_state(m, b),
                                .why = cli_agent_box_why(b),
                                .status = cli_agent_box_status(m, b),
                                .opencode = &oc};
        char *s = e2b_agent_change_json(&v, now);
        if (s)
            puts(s);
        free(s);
    } else {
        char at[32];
        time_t t = (time_t)(now / 1000);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", &tm);
        print_plain(m, b, at);
    }
    fflush(stdout);
}

static int cli_watch(e2b_live *m, const cli_args *a)
{
    struct fleet f;
    int rc = fleet_open(m, a, &f);
    if (rc) {
        fleet_clear(&f);
        return rc;
    }
    char (*seen)[600] = f.n ? calloc(f.n, sizeof *seen) : NULL;
    if (f.n && !seen) {
        fleet_clear(&f);
        return 1;
    }
    int64_t end = a->timeout_s > 0 ? e2b_now_ms() + (int64_t)a->timeout_s * 1000 : 0;
    for (rc = -1; rc < 0;) {
        for (size_t i = 0; i < f.n && rc < 0; i++) {
            char sig[600];
            if (!told_yet(m, &f.boxes[i]))
                continue;
            signature(m, &f.boxes[i], sig, sizeof sig);
            if (!strcmp(sig, seen[i]))
                continue;
            snprintf(seen[i], sizeof seen[i], "%s", sig);
            print_change(m, &f.boxes[i], a->json);
            if (a->until && state_is(cli_agent_box_state(m, &f.boxes[i]), a->until))
                rc = 0;
        }
        if (rc >= 0)
            break;
        if (end && e2b_now_ms() >= end) {
            fprintf(stderr, "e2b-tui: --watch: no box became %s within %d s\n",
                    a->until ? a->until : "anything else", a->timeout_s);
            rc = a->until ? EXIT_TIMED_OUT : 0;
            break;
        }
        e2b_loop_run_once(e2b_live_loop(m), 1000);
    }
    free(seen);
    fleet_clear(&f);
    return rc;
}

/* ---- --wait over several boxes ---- */

/* The exit status of several: 6 one waits for you, else 1 one failed, else 3 one is gone,
 * else 10 one was interrupted, else 0. */
static int worst(int a, int b)
{
    static const int order[] = {EXIT_WAITING, 1, 3, EXIT_NOT_FINISHED};
    for (size_t k = 0; k < sizeof order / sizeof *order; k++)
        if (a == order[k] || b == order[k])
            return order[k];
    return a > b ? a : b;
}

static int cli_wait_many(e2b_live *m, const cli_args *a)
{
    struct fleet f;
    int rc = fleet_open(m, a, &f);
    if (rc) {
        fleet_clear(&f);
        return rc;
    }
    int *verdict = f.n ? calloc(f.n, sizeof *verdict) : NULL;
    bool *seen_turn = f.n ? calloc(f.n, sizeof *seen_turn) : NULL;
    if (f.n && (!verdict || !seen_turn)) {
        free(verdict);
        free(seen_turn);
        fleet_clear(&f);
        return 1;
    }
    size_t watched = 0;
    for (size_t i = 0; i < f.n; i++) {
        verdict[i] = -1;
        struct agent_box *b = &f.boxes[i];
        if (!cli_agent_box_status(m, b)) { /* not running, or not reachable: nothing to wait for */
            if (a->wait_all) {
                verdict[i] = -2; /* --all: the boxes that run */
                continue;
            }
            print_plain(m, b, NULL);
            fprintf(stderr, "e2b-tui: box %s is %s: not waited for\n", b->rec.name,
                    cli_agent_box_state(m, b));
            verdict[i] = !strcmp(cli_agent_box_sandbox(m, b), "gone") ? 3 : 1;
            continue;
        }
        watched++;
    }
    int64_t start = e2b_now_ms();
    int64_t end = a->timeout_s > 0 ? start + (int64_t)a->timeout_s * 1000 : 0;
    int any_rc = -1;
    for (;;) {
        bool all = true;
        for (size_t i = 0; i < f.n && any_rc < 0; i++) {
            if (verdict[i] != -1)
                continue;
            const e2b_agent_status *st = cli_agent_box_status(m, &f.boxes[i]);
            if (st && (st->state == E2B_AGENT_WORKING || st->state == E2B_AGENT_RETRYING))
                seen_turn[i] = true;
            int v = cli_agent_exit_wait(m, &f.boxes[i], seen_turn[i], e2b_now_ms() - start, false);
            if (v < 0) {
                all = false;
                continue;
            }
            verdict[i] = v;
            print_plain(m, &f.boxes[i], NULL);
            fflush(stdout);
            if (a->wait_any)
                any_rc = v;
        }
        if (any_rc >= 0 || all)
            break;
        if (end && e2b_now_ms() >= end) {
            for (size_t i = 0; i < f.n; i++)
                if (verdict[i] == -1)
                    fprintf(stderr, "e2b-tui: box %s: still %s after %d s\n", f.boxes[i].rec.name,
                            cli_agent_box_state(m, &f.boxes[i]), a->timeout_s);
            any_rc = EXIT_TIMED_OUT;
            break;
        }
        e2b_loop_run_once(e2b_live_loop(m), 1000);
    }
    if (any_rc >= 0) {
        rc = any_rc;
    } else if (watched == 0 && a->wait_all) {
        fprintf(stderr, "e2b-tui: --wait --all: no box of this machine runs\n");
        rc = 0;
    } else {
        rc = 0;
        for (size_t i = 0; i < f.n; i++)
            if (verdict[i] >= 0)
                rc = worst(rc, verdict[i]);
    }
    free(verdict);
    free(seen_turn);
    fleet_clear(&f);
    return rc;
}

int cli_fleet(e2b_live *m, const cli_args *a)
{
    return a->mode == CLI_WATCH ? cli_watch(m, a) : cli_wait_many(m, a);
}

bool cli_fleet_wait_many(const cli_args *a)
{
    return a->mode == CLI_WAIT && (a->nnames > 1 || a->wait_all || a->wait_any);
}
