/* One-shot agent modes: --status, --prompt (and --up ... --prompt), --wait, --reply,
 * --answer, --interrupt. Each box is the model's watch of one named box
 * (e2b_live_agent_watch: the dashboard's watch, with no list first) and each command the
 * model's (e2b_live_agent_*); results on stdout, the rest on stderr.
 * Exit codes: those of cli.h plus 6 waiting for you, 7 timed out (--wait), 9 nothing pending
 * (--reply), 10 the turn ended interrupted (--wait) and 11 at its budget (--prompt). */
#include "tui/cli/cli_internal.h"
#include "tui/cli/cli_agent_box.h"

#include "core/agent/agent_json.h"
#include "core/agent/opencode.h"
#include "core/box/records.h"
#include "core/e2b/cost.h"
#include "core/live/live_budget.h"
#include "core/util/buf.h"
#include "core/util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void box_clear(struct agent_box *b)
{
    e2b_box_record_clear(&b->rec);
    e2b_error_free(b->end.err);
    b->end.err = NULL;
}

static long settle_timeout_ms(void)
{
    const char *v = getenv("E2B_TUI_HEALTH_TIMEOUT");
    long s = v && *v ? strtol(v, NULL, 10) : 0;
    return s > 0 ? s * 1000 : 20000;
}

/* The model's watch of each box (all at once), until each has settled. */
static void watch_boxes(e2b_live *m, struct agent_box *boxes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        e2b_live_then(m, &boxes[i].end);
        e2b_live_agent_watch(m, &boxes[i].rec, settle_timeout_ms()); /* may end at once */
    }
    for (size_t i = 0; i < n; i++)
        e2b_wait(e2b_live_loop(m), &boxes[i].end.done);
}

/* What the watch found: the sandbox ("running", "paused", "gone", "unknown"), the agent's
 * status when it is watched (else NULL), why it is not (NULL when it is, or gone), and the
 * API's error when the sandbox could not be asked. */
static const char *sandbox_word(e2b_live *m, const struct agent_box *b)
{
    const e2b_error *err = b->end.err;
    if (err)
        return err->kind == E2B_ERR_NOT_FOUND ? "gone"
               : err->kind == E2B_ERR_INVALID || err->kind == E2B_ERR_IO ? "running"
                                                                           : "unknown";
    const e2b_agent_status *st = e2b_live_agent(m, b->rec.sandbox_id);
    return st && st->state == E2B_AGENT_PAUSED ? "paused" : "running";
}

static const e2b_agent_status *box_status(e2b_live *m, const struct agent_box *b)
{
    const e2b_agent_status *st = b->end.err ? NULL : e2b_live_agent(m, b->rec.sandbox_id);
    return st && st->state != E2B_AGENT_PAUSED ? st : NULL;
}

static const char *box_why(const struct agent_box *b)
{
    return b->end.err && b->end.err->kind != E2B_ERR_NOT_FOUND ? e2b_error_message(b->end.err)
                                                               : NULL;
}

static const e2b_error *box_api_err(const struct agent_box *b)
{
    const e2b_error *err = b->end.err;
    return err && err->kind != E2B_ERR_NOT_FOUND && err->kind != E2B_ERR_INVALID &&
                   err->kind != E2B_ERR_IO
               ? err
               : NULL;
}

/* The running sandbox's cost so far (core/e2b/cost.h), from the sandbox the watch found;
 * false when not known (not running, or its size or start not told). */
static bool box_sandbox_usd(e2b_live *m, const struct agent_box *b, double *usd)
{
    const e2b_config *cfg = e2b_live_config(m);
    *usd = 0;
    return e2b_sandbox_cost(e2b_live_agent_sandbox(m, b->rec.sandbox_id), cfg->price_vcpu_second,
                            cfg->price_gib_second, time(NULL), usd);
}

static int read_box(e2b_live *m, const cli_args *a, const char *name, struct agent_box *b)
{
    (void)a;
    memset(b, 0, sizeof *b);
    e2b_error *err = e2b_box_record_read(e2b_live_config(m)->records_dir, name, &b->rec);
    if (err) {
        /* Not this machine's: a box of that name elsewhere, or several (a conflict)? */
        int rc = err->kind == E2B_ERR_NOT_FOUND ? cli_no_record(m, name, err) : cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    return 0;
}

/* The one box a mode acts on, watched and settled; prints why not and returns non-zero. */
/* A prompt goes past a box's budget only when asked: --budget raises it (written to the
 * record), else a box stopped at its budget (its record says so; spent: its cost now, when
 * known) is refused with EXIT_AT_BUDGET. Returns 0 to go on. */
static int budget_gate(e2b_live *m, const cli_args *a, struct agent_box *b, double spent,
                       bool reached)
{
    const e2b_config *cfg = e2b_live_config(m);
    double budget = e2b_live_budget_usd(&b->rec, cfg);
    char f[24], g[24];
    if (a->budget_usd > 0) {
        if (b->rec.budget_stopped && budget > 0 && !(a->budget_usd > budget)) {
            e2b_cost_format(budget, f, sizeof f);
            fprintf(stderr, "e2b-tui: box %s was stopped at its %s budget: nothing was sent "
                            "(give --budget more than that)\n", b->rec.name, f);
            return EXIT_AT_BUDGET;
        }
        if (reached || !(a->budget_usd > spent)) {
            e2b_cost_format(spent, f, sizeof f);
            e2b_cost_format(a->budget_usd, g, sizeof g);
            fprintf(stderr, "e2b-tui: box %s has cost %s already: a budget of %s is reached "
                            "(give --budget more than that)\n", b->rec.name, f, g);
            return EXIT_AT_BUDGET;
        }
        if (a->budget_usd == b->rec.budget_usd && !b->rec.budget_stopped)
            return 0;
        e2b_error *e = e2b_live_budget_set(m, b->rec.name, a->budget_usd);
        if (e) {
            int rc = cli_fail(e);
            e2b_error_free(e);
            return rc;
        }
        b->rec.budget_usd = a->budget_usd;
        b->rec.budget_stopped = false;
        e2b_cost_format(a->budget_usd, f, sizeof f);
        fprintf(stderr, "e2b-tui: box %s's budget is %s now\n", b->rec.name, f);
        return 0;
    }
    if (budget > 0 && (b->rec.budget_stopped || reached)) {
        e2b_cost_format(budget, f, sizeof f);
        e2b_cost_format(budget * 2, g, sizeof g);
        fprintf(stderr, "e2b-tui: box %s is at its %s budget%s: nothing was sent "
                        "(e2b-tui --prompt %s TEXT --budget %.2f raises it to %s)\n",
                b->rec.name, f, b->rec.budget_stopped ? " (stopped there)" : "", b->rec.name,
                budget * 2, g);
        return EXIT_AT_BUDGET;
    }
    return 0;
}

static int one_box(e2b_live *m, const cli_args *a, struct agent_box *b)
{
    int rc = read_box(m, a, a->name, b);
    if (rc)
        return rc;
    if (a->mode == CLI_PROMPT && (rc = budget_gate(m, a, b, 0, false)) != 0)
        return rc; /* before a paused box is resumed */
    watch_boxes(m, b, 1);
    const char *sandbox = sandbox_word(m, b);
    if (box_api_err(b))
        return cli_fail(box_api_err(b));
    if (!strcmp(sandbox, "gone")) {
        /* never made again silently: the way to make it again is said */
        char *hint = e2b_box_remake_hint(e2b_live_config(m)->state_dir, b->rec.name, b->rec.dir);
        char safe[1400];
        cli_clean(hint ? hint : "e2b-tui --kill removes its record", safe, sizeof safe);
        fprintf(stderr, "e2b-tui: box %s's sandbox is gone (E2B no longer has it): %s\n",
                b->rec.name, safe);
        free(hint);
        return 3;
    }
    if (!strcmp(sandbox, "paused") && a->mode == CLI_PROMPT) {
        /* --prompt resumes it first (the model's resume: the box's own hours), and says so;
         * the watch then waits for the resumed agent to settle */
        e2b_live_end end = {0};
        e2b_live_then(m, &end);
        e2b_live_resume(m, b->rec.sandbox_id, 0);
        e2b_wait(e2b_live_loop(m), &end.done);
        if (end.err) {
            char buf[600];
            cli_clean(e2b_error_message(end.err), buf, sizeof buf);
            fprintf(stderr, "e2b-tui: box %s is paused and resuming it failed: %s\n",
                    b->rec.name, buf);
            rc = e2b_error_exit_code(end.err);
            e2b_error_free(end.err);
            return rc ? rc : 1;
        }
        fprintf(stderr, "e2b-tui: box %s was paused: resumed it first\n", b->rec.name);
        e2b_error_free(b->end.err);
        memset(&b->end, 0, sizeof b->end);
        watch_boxes(m, b, 1);
        sandbox = sandbox_word(m, b);
        if (box_api_err(b))
            return cli_fail(box_api_err(b));
    }
    if (!strcmp(sandbox, "paused")) {
        fprintf(stderr, "e2b-tui: box %s is paused (e2b-tui --attach %s resumes it)\n",
                b->rec.name, b->rec.name);
        return 1;
    }
    const e2b_agent_status *st = box_status(m, b);
    if (!st) {
        char buf[600];
        cli_clean(box_why(b) ? box_why(b) : "its agent cannot be reached", buf, sizeof buf);
        fprintf(stderr, "e2b-tui: %s\n", buf);
        return 1;
    }
    if (st->state == E2B_AGENT_SERVER_DOWN) {
        char buf[600];
        cli_clean(st->error ? st->error : "it does not answer", buf, sizeof buf);
        fprintf(stderr, "e2b-tui: box %s: the agent's server is down: %s\n", b->rec.name, buf);
        return 1;
    }
    if (!e2b_live_agent_synced(m, b->rec.sandbox_id)) {
        /* it answers, but its sessions and requests could not all be read in time */
        fprintf(stderr,
                "e2b-tui: box %s: the agent's server answers but did not tell its state "
                "within %ld s (busy or still starting?): try again, or give it longer with "
                "E2B_TUI_HEALTH_TIMEOUT=SECONDS\n",
                b->rec.name, settle_timeout_ms() / 1000);
        return 1;
    }
    return 0;
}

/* ---- --status ---- */

static const char *state_word(e2b_live *m, const struct agent_box *b)
{
    const e2b_agent_status *st = box_status(m, b);
    const char *sandbox = sandbox_word(m, b);
    if (!st)
        return !strcmp(sandbox, "paused") || !strcmp(sandbox, "gone") ? sandbox : "unknown";
    return e2b_agent_state_name(st->state);
}

/* "\tbudget $2.00 (stopped there)" when the box has one. */
static void print_budget(e2b_live *m, const struct agent_box *b)
{
    double budget = e2b_live_budget_usd(&b->rec, e2b_live_config(m));
    char f[24];
    if (budget <= 0)
        return;
    e2b_cost_format(budget, f, sizeof f);
    printf("\tbudget %s%s", f, b->rec.budget_stopped ? " (stopped there)" : "");
}

static void box_print(e2b_live *m, const struct agent_box *b)
{
    char line[1024], buf[1200];
    const e2b_agent_status *st = box_status(m, b);
    if (!st) {
        cli_clean(box_why(b) ? box_why(b) : "", line, sizeof line);
        printf("%s\t%s%s%s", b->rec.name, state_word(m, b), *line ? ": " : "", line);
        print_budget(m, b);
        printf("\n");
        return;
    }
    e2b_agent_status_line(st, line, sizeof line);
    cli_clean(line, buf, sizeof buf);
    char ago[16] = "";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (st->state == E2B_AGENT_IDLE) /* (a box's clock a little ahead: "0s") */
        e2b_agent_ago(st->idle_since_ms < now ? st->idle_since_ms : now, now, ago, sizeof ago);
    if (*ago && !strncmp(buf, "idle", 4)) /* "idle 2m: failed: why" */
        printf("%s\tidle %s%s", b->rec.name, ago, buf + 4);
    else
        printf("%s\t%s", b->rec.name, buf);
    if (st->session_id) {
        cli_clean(st->session_title, line, sizeof line);
        printf("\tsession %s \"%s\"", st->session_id, line);
    }
    if (st->todo_total)
        printf("\ttodo %u/%u", st->todo_done, st->todo_total);
    char agent[32] = "?", sandbox[32] = "?";
    double sandbox_usd;
    if (st->total.have_cost)
        e2b_cost_format(st->total.cost_usd, agent, sizeof agent);
    if (box_sandbox_usd(m, b, &sandbox_usd))
        e2b_cost_format(sandbox_usd, sandbox, sizeof sandbox);
    printf("\tcost %s agent + %s sandbox", agent, sandbox);
    print_budget(m, b);
    if (st->total.have_tokens)
        printf("\ttokens %lld in / %lld out", (long long)st->total.input,
               (long long)st->total.output);
    printf("\n");
    for (size_t i = 0; i < st->nrequests; i++) {
        const e2b_agent_request *r = &st->requests[i];
        cli_clean(r->summary, line, sizeof line);
        printf("  %s %s: %s\n", r->question ? "question" : "request", r->id, line);
        for (size_t k = 0; r->question && k < r->noptions; k++) {
            cli_clean(r->option_labels[k], line, sizeof line);
            cli_clean(r->option_descs[k], buf, sizeof buf);
            printf("    %zu. %s%s%s\n", k + 1, line, *buf ? " - " : "", buf);
        }
        if (r->question)
            printf("    %s\n", r->custom ? "(or a typed answer)" : "(only these options)");
    }
}

static int cli_status(e2b_live *m, const cli_args *a)
{
    e2b_box_record_list recs = {0};
    struct agent_box *boxes = NULL;
    size_t n = 0;
    int rc = 0;
    if (a->name) {
        boxes = calloc(1, sizeof *boxes);
        if (!boxes || (rc = read_box(m, a, a->name, &boxes[0]))) {
            free(boxes);
            return rc ? rc : 1;
        }
        n = 1;
    } else {
        e2b_error *err = e2b_box_record_list_read(e2b_live_config(m)->records_dir, &recs, NULL);
        if (err) {
            rc = cli_fail(err);
            e2b_error_free(err);
            return rc;
        }
        boxes = recs.count ? calloc(recs.count, sizeof *boxes) : NULL;
        for (size_t i = 0; boxes && i < recs.count; i++) {
            boxes[n].rec = recs.items[i];
            memset(&recs.items[i], 0, sizeof recs.items[i]);
            n++;
        }
        e2b_box_record_list_clear(&recs);
    }
    watch_boxes(m, boxes, n);
    if (a->json) {
        e2b_agent_box_view *views = n ? calloc(n, sizeof *views) : NULL;
        e2b_opencode_kind *oc = n ? calloc(n, sizeof *oc) : NULL;
        for (size_t i = 0; views && oc && i < n; i++) {
            e2b_box_record_opencode(&boxes[i].rec, &oc[i]);
            double sandbox_usd;
            bool have_sandbox_usd = box_sandbox_usd(m, &boxes[i], &sandbox_usd);
            views[i] = (e2b_agent_box_view){
                .name = boxes[i].rec.name, .sandbox_id = boxes[i].rec.sandbox_id,
                .sandbox = sandbox_word(m, &boxes[i]), .state = state_word(m, &boxes[i]),
                .why = box_why(&boxes[i]), .status = box_status(m, &boxes[i]),
                .opencode = &oc[i], .have_sandbox_usd = have_sandbox_usd,
                .sandbox_usd = sandbox_usd, .group = boxes[i].rec.group,
                .budget_usd = e2b_live_budget_usd(&boxes[i].rec, e2b_live_config(m)),
                .budget_stopped = boxes[i].rec.budget_stopped};
        }
        char *s = e2b_agent_status_json(views, views ? n : 0, a->pretty);
        if (s)
            puts(s);
        else
            fputs("e2b-tui: out of memory\n", stderr);
        free(s);
        free(views);
        free(oc);
    } else {
        for (size_t i = 0; i < n; i++)
            box_print(m, &boxes[i]);
    }
    if (a->name && !strcmp(sandbox_word(m, &boxes[0]), "gone"))
        rc = 3;
    for (size_t i = 0; i < n && !rc; i++) /* the API failed: its exit status, said once */
        if (box_api_err(&boxes[i]))
            rc = cli_fail(box_api_err(&boxes[i]));
    for (size_t i = 0; i < n; i++)
        box_clear(&boxes[i]);
    free(boxes);
    return rc;
}

/* ---- commands ---- */

/* Waits for the agent command just given to the model (after e2b_live_then(m, end)).
 * Returns 0, or the exit status (told). */
static int command_end(e2b_live *m, e2b_live_end *end)
{
    e2b_wait(e2b_live_loop(m), &end->done);
    int rc = end->err ? cli_fail(end->err) : 0;
    e2b_error_free(end->err);
    end->err = NULL;
    return rc;
}

char *cli_prompt_text(const cli_args *a)
{
    FILE *f = NULL;
    if (a->prompt_file) {
        f = fopen(a->prompt_file, "r");
        if (!f) {
            fprintf(stderr, "e2b-tui: cannot read %s\n", a->prompt_file);
            return NULL;
        }
    } else if (a->prompt_text && strcmp(a->prompt_text, "-")) {
        return strdup(a->prompt_text);
    } else {
        f = stdin;
    }
    e2b_buf b = {0};
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < 1024 * 1024)
        e2b_buf_add(&b, chunk, got);
    if (f != stdin)
        fclose(f);
    char *s = e2b_buf_take(&b);
    if (s && !*s) {
        fputs("e2b-tui: the prompt is empty\n", stderr);
        free(s);
        return NULL;
    }
    return s;
}

struct ready_wait {
    int done;
    bool ready;
};

static void on_ready(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    struct ready_wait *r = ud;
    r->done = 1;
    r->ready = !err && res->healthy;
}

static void on_tick(void *ud)
{
    *(int *)ud = 1;
}

/* v2 (1.18.33): a prompt sent before the model catalog has the configured model is lost
 * without an error (a new box's server needs some seconds): wait for it, within bounds. */
static void wait_model(e2b_live *m, const struct agent_box *b)
{
    e2b_oc_client *oc = e2b_live_agent_client(m, b->rec.sandbox_id);
    int64_t end = e2b_now_ms() + settle_timeout_ms();
    while (oc && e2b_oc_api(oc) == 2 && e2b_now_ms() < end) {
        struct ready_wait r = {0};
        if (!e2b_oc_model_ready(oc, on_ready, &r, NULL))
            return;
        e2b_wait(e2b_live_loop(m), &r.done);
        if (r.ready)
            return;
        int tick = 0;
        if (!e2b_loop_timer_add(e2b_live_loop(m), 500, on_tick, &tick))
            return;
        e2b_wait(e2b_live_loop(m), &tick);
    }
}

/* The model's prompt to the box's agent; prints the session it went to. */
static int prompt_box(e2b_live *m, const cli_args *a, struct agent_box *b)
{
    char *text = cli_prompt_text(a);
    if (!text)
        return 1;
    wait_model(m, b);
    /* a box waiting for you takes the message once the request is answered: said on stderr
     * (the session's id stays the only line on stdout) */
    const e2b_agent_status *st = box_status(m, b);
    char waits[E2B_AGENT_DETAIL_MAX + 64] = "";
    if (st && st->state == E2B_AGENT_WAITING && st->nrequests && !a->new_session)
        cli_clean(st->requests[0].summary ? st->requests[0].summary : "a request", waits,
                  sizeof waits);
    e2b_live_end end;
    e2b_live_then(m, &end);
    e2b_live_agent_prompt(m, b->rec.sandbox_id, NULL, a->new_session, text);
    free(text);
    int rc = command_end(m, &end);
    if (rc == 0 && *waits)
        fprintf(stderr, "e2b-tui: box %s waits for you on %s: the message is queued behind it "
                "(e2b-tui --reply %s once|always|reject answers it)\n", b->rec.name, waits,
                b->rec.name);
    if (rc == 0)
        printf("%s\n", end.session_id ? end.session_id : "");
    free(end.session_id);
    return rc;
}

static int cli_prompt(e2b_live *m, const cli_args *a)
{
    struct agent_box b;
    int rc = one_box(m, a, &b);
    e2b_live_budget bu;
    /* running: its cost now (the watch's figures) may have reached the budget */
    if (rc == 0 && e2b_live_budget_of(m, b.rec.sandbox_id, &bu) && bu.reached &&
        !(a->budget_usd > bu.spent_usd))
        rc = budget_gate(m, a, &b, bu.spent_usd, true);
    if (rc == 0)
        rc = prompt_box(m, a, &b);
    box_clear(&b);
    return rc;
}

int cli_agent_prompt_after_up(e2b_live *m, const cli_args *a, const char *name)
{
    struct agent_box b;
    int rc = read_box(m, a, name, &b);
    if (rc)
        return rc;
    watch_boxes(m, &b, 1);
    if (!box_status(m, &b)) {
        fprintf(stderr, "e2b-tui: box %s is up but its agent cannot be reached\n", name);
        box_clear(&b);
        return 1;
    }
    rc = prompt_box(m, a, &b);
    box_clear(&b);
    return rc;
}

static int cli_reply(e2b_live *m, const cli_args *a)
{
    struct agent_box b;
    int rc = one_box(m, a, &b);
    if (rc == 0) {
        e2b_live_end end;
        e2b_live_then(m, &end);
        e2b_live_agent_reply(m, b.rec.sandbox_id, a->request_id, a->reply);
        e2b_wait(e2b_live_loop(m), &end.done);
        if (end.err && end.err->kind == E2B_ERR_NOT_FOUND) {
            /* its own code: not a mistyped box (3), nothing to answer */
            char buf[600];
            cli_clean(e2b_error_message(end.err), buf, sizeof buf);
            fprintf(stderr, "e2b-tui: box %s: %s\n", b.rec.name, buf);
            rc = EXIT_NOTHING_PENDING;
        } else {
            rc = end.err ? cli_fail(end.err) : 0;
        }
        e2b_error_free(end.err);
        if (rc == 0)
            printf("replied %s\n", e2b_agent_reply_name(a->reply));
        free(end.session_id);
    }
    box_clear(&b);
    return rc;
}

static int cli_answer(e2b_live *m, const cli_args *a)
{
    struct agent_box b;
    int rc = one_box(m, a, &b);
    if (rc == 0) {
        e2b_live_end end;
        e2b_live_then(m, &end);
        e2b_live_agent_answer(m, b.rec.sandbox_id, a->request_id, a->answer_text,
                              a->answer_option);
        rc = command_end(m, &end);
        if (rc == 0)
            printf("answered\n");
        free(end.session_id);
    }
    box_clear(&b);
    return rc;
}

static int cli_interrupt(e2b_live *m, const cli_args *a)
{
    struct agent_box b;
    int rc = one_box(m, a, &b);
    if (rc == 0) {
        /* An idle agent has no turn to stop: the model still sends the interrupt (a turn
         * may be starting), and it is told there was nothing to interrupt. */
        bool idle = box_status(m, &b)->state == E2B_AGENT_IDLE;
        e2b_live_end end;
        e2b_live_then(m, &end);
        e2b_live_agent_interrupt(m, b.rec.sandbox_id);
        rc = command_end(m, &end);
        if (rc == 0 && idle)
            printf("nothing to interrupt: box %s's agent is idle\n", b.rec.name);
        else if (rc == 0)
            printf("interrupted\n");
        free(end.session_id);
    }
    box_clear(&b);
    return rc;
}

/* ---- --wait ---- */

/* An idle box that was never seen working, and is owed no turn, is given this long to start
 * (a prompt sent some other way may not have begun its turn yet; a server may look idle
 * between a turn's steps): then how its last turn ended (read from its newest message)
 * decides. A box owed a turn (a prompt through e2b-tui that the server accepted: core/agent/
 * turn_owed.h) is not done while idle until that turn was seen, however late it starts. */
#define IDLE_GRACE_MS 2000

/* Says once on stderr that an idle box is owed a turn (--wait waits for it), or that the mark
 * was dropped as lost; *told keeps which was said. */
static void tell_owed(e2b_live *m, const struct agent_box *b, int *told)
{
    int64_t owed_ms = 0;
    e2b_turn_owed_verdict v = e2b_live_agent_owed(m, b->rec.sandbox_id, &owed_ms);
    const e2b_agent_status *st = box_status(m, b);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    char ago[16] = "";
    e2b_agent_ago(owed_ms < now ? owed_ms : now, now, ago, sizeof ago);
    if (v == E2B_TURN_OWED_WAIT && !(*told & 1) && st && st->state == E2B_AGENT_IDLE &&
        e2b_live_agent_synced(m, b->rec.sandbox_id)) {
        *told |= 1;
        fprintf(stderr, "e2b-tui: box %s is idle, but the prompt sent %s ago has not had its "
                        "turn yet: waiting for it\n", b->rec.name, ago);
    }
    if (v == E2B_TURN_OWED_LOST && !(*told & 2)) {
        *told |= 2;
        fprintf(stderr, "e2b-tui: box %s: the prompt sent %s ago never started a turn (within "
                        "%d min): not waited for any more\n", b->rec.name, ago,
                E2B_TURN_OWED_MAX_MS / 60000);
    }
}

static int cli_wait(e2b_live *m, const cli_args *a)
{
    struct agent_box b;
    int rc = one_box(m, a, &b);
    if (rc) {
        box_clear(&b);
        return rc;
    }
    int64_t start = e2b_now_ms();
    int64_t end = a->timeout_s > 0 ? start + (int64_t)a->timeout_s * 1000 : 0;
    bool seen_turn = false;
    int told = 0;
    for (;;) {
        const e2b_agent_status *st = box_status(m, &b); /* watched: one_box said so */
        int64_t now = e2b_now_ms();
        if (st->state == E2B_AGENT_WORKING || st->state == E2B_AGENT_RETRYING)
            seen_turn = true;
        tell_owed(m, &b, &told);
        rc = cli_agent_exit_wait(m, &b, seen_turn, now - start, false);
        if (rc == 0 || rc == EXIT_NOT_FINISHED) {
            printf("idle: %s\n", st->last_end ? e2b_agent_end_name(st->last_end) : "no turn running");
            if (rc == EXIT_NOT_FINISHED) /* refused or stopped work is not finished work */
                fprintf(stderr, "e2b-tui: box %s: the turn ended interrupted (a rejected "
                                "permission or an interrupt), not finished\n", b.rec.name);
        }
        if (rc >= 0)
            break;
        if (end && now >= end) {
            bool owed = e2b_live_agent_owed(m, b.rec.sandbox_id, NULL) == E2B_TURN_OWED_WAIT;
            fprintf(stderr, "e2b-tui: box %s: still %s%s after %d s\n", b.rec.name,
                    e2b_agent_state_name(st->state),
                    owed && st->state == E2B_AGENT_IDLE ? " (its prompt's turn has not begun)"
                                                        : "",
                    a->timeout_s);
            rc = EXIT_TIMED_OUT;
            break;
        }
        e2b_loop_run_once(e2b_live_loop(m), 200);
    }
    box_clear(&b);
    return rc;
}

int cli_agent(e2b_live *m, const cli_args *a)
{
    int rc = cli_open_keystore(m, a);
    if (rc)
        return rc;
    switch (a->mode) {
    case CLI_STATUS: return cli_status(m, a);
    case CLI_PROMPT: return cli_prompt(m, a);
    case CLI_WAIT: return cli_fleet_wait_many(a) ? cli_fleet(m, a) : cli_wait(m, a);
    case CLI_WATCH: return cli_fleet(m, a);
    case CLI_REPLY: return cli_reply(m, a);
    case CLI_ANSWER: return cli_answer(m, a);
    case CLI_INTERRUPT: return cli_interrupt(m, a);
    default: return 1;
    }
}

/* ---- for the other agent modes (tui/cli/cli_agent_box.h) ---- */

int cli_agent_box_read(e2b_live *m, const cli_args *a, const char *name, struct agent_box *b)
{
    return read_box(m, a, name, b);
}

void cli_agent_boxes_watch(e2b_live *m, struct agent_box *boxes, size_t n)
{
    watch_boxes(m, boxes, n);
}

const e2b_agent_status *cli_agent_box_status(e2b_live *m, const struct agent_box *b)
{
    return box_status(m, b);
}

const char *cli_agent_box_sandbox(e2b_live *m, const struct agent_box *b)
{
    return sandbox_word(m, b);
}

const char *cli_agent_box_state(e2b_live *m, const struct agent_box *b)
{
    return state_word(m, b);
}

const char *cli_agent_box_why(const struct agent_box *b)
{
    return box_why(b);
}

const e2b_error *cli_agent_box_api_err(const struct agent_box *b)
{
    return box_api_err(b);
}

void cli_agent_box_clear(struct agent_box *b)
{
    box_clear(b);
}

int cli_agent_exit_wait(e2b_live *m, const struct agent_box *b, bool seen_turn,
                        int64_t waited_ms, bool quiet)
{
    const e2b_agent_status *st = box_status(m, b);
    bool synced = e2b_live_agent_synced(m, b->rec.sandbox_id);
    char buf[1200];
    if (!st)
        return 1;
    /* a request the box's approval rules allow is answered by this very watch: not yours */
    if (st->state == E2B_AGENT_WAITING && synced && !e2b_live_agent_ruled(m, b->rec.sandbox_id)) {
        if (!quiet) {
            cli_clean(st->requests[0].summary, buf, sizeof buf);
            fprintf(stderr, "e2b-tui: box %s is waiting for you: %s (request %s)\n", b->rec.name,
                    buf, st->requests[0].id);
        }
        return EXIT_WAITING;
    }
    /* a turn owed: idle says nothing until it was seen (then it is this turn's end) */
    e2b_turn_owed_verdict owed = e2b_live_agent_owed(m, b->rec.sandbox_id, NULL);
    if (owed == E2B_TURN_OWED_SEEN)
        seen_turn = true;
    if (st->state == E2B_AGENT_IDLE && synced && owed != E2B_TURN_OWED_WAIT &&
        ((seen_turn && st->last_end != E2B_AGENT_END_NONE) || waited_ms >= IDLE_GRACE_MS)) {
        if (st->last_end == E2B_AGENT_END_FAILED) {
            if (!quiet) {
                cli_clean(st->error ? st->error : "", buf, sizeof buf);
                fprintf(stderr, "e2b-tui: box %s: the turn failed: %s\n", b->rec.name, buf);
            }
            return 1;
        }
        return st->last_end == E2B_AGENT_END_INTERRUPTED ? EXIT_NOT_FINISHED : 0;
    }
    if (st->state == E2B_AGENT_SERVER_DOWN) {
        if (!quiet) {
            cli_clean(st->error ? st->error : "", buf, sizeof buf);
            fprintf(stderr, "e2b-tui: box %s: the agent's server is down: %s\n", b->rec.name, buf);
        }
        return 1;
    }
    return -1;
}
