/* Groups of attempts (issue "Best of N"): `--up NAME --try N --prompt TEXT|--prompt-file F
 * [--models m1,m2,...]` makes one box NAME-1 (one upload), forks it into NAME-2 ... NAME-N
 * (the model's fork, recorded as group NAME: core/box/records.h "group"), and gives every
 * member the task in a new session, the models taken round robin. Each step is the model's
 * command (e2b_live_op_by_name, e2b_live_agent_watch, e2b_live_agent_prompt_model); results
 * on stdout (one line per member: name, session, model), the rest on stderr. */
#include "tui/cli/cli_internal.h"

#include "core/agent/opencode.h"
#include "core/box/box_compare.h"
#include "core/box/records.h"
#include "core/git/gitwork.h"
#include "core/util/buf.h"
#include "core/util/log.h"
#include "core/util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The longest group name: its members' names (NAME-100) stay valid box names and fit the
 * record's group field. */
#define TRY_GROUP_MAX 50
#define TRY_MAX 100
#define TRY_MODELS_MAX 100

/* ---- options ---- */

int cli_try_option(cli_args *a, int argc, char **argv, int *i)
{
    const char *f = argv[*i];
    if (strcmp(f, "--compare") == 0) {
        if (a->mode != CLI_NONE && a->mode != CLI_COMPARE) {
            fprintf(stderr, "e2b-tui: --compare cannot be combined with another mode (see "
                            "e2b-tui --help)\n");
            return -1;
        }
        if (*i + 1 >= argc || !argv[*i + 1][0] || argv[*i + 1][0] == '-') {
            fprintf(stderr, "e2b-tui: --compare needs a group's name (see e2b-tui --help)\n");
            return -1;
        }
        a->mode = CLI_COMPARE;
        a->name = argv[++*i];
        return 1;
    }
    if (strcmp(f, "--pick") == 0) {
        if (a->mode != CLI_NONE && a->mode != CLI_PICK) {
            fprintf(stderr, "e2b-tui: --pick cannot be combined with another mode (see "
                            "e2b-tui --help)\n");
            return -1;
        }
        if (*i + 1 >= argc || !argv[*i + 1][0] || argv[*i + 1][0] == '-') {
            fprintf(stderr, "e2b-tui: --pick needs a member's name (NAME-K; see e2b-tui "
                            "--help)\n");
            return -1;
        }
        a->mode = CLI_PICK;
        a->name = argv[++*i];
        return 1;
    }
    if (strcmp(f, "--kill-rest") == 0) {
        a->kill_rest = 1;
        return 1;
    }
    if (strcmp(f, "--try") == 0) {
        const char *v = *i + 1 < argc ? argv[*i + 1] : NULL;
        char *end = NULL;
        long n = v && *v ? strtol(v, &end, 10) : 0;
        if (!v || !*v || *end || n < 2 || n > TRY_MAX) {
            fprintf(stderr, "e2b-tui: --try needs a number of attempts from 2 to %d%s%s%s\n",
                    TRY_MAX, v ? ", not '" : "", v ? v : "", v ? "'" : "");
            return -1;
        }
        ++*i;
        a->try_count = (int)n;
        return 1;
    }
    if (strcmp(f, "--models") == 0) {
        if (*i + 1 >= argc || !argv[*i + 1][0] || argv[*i + 1][0] == '-') {
            fprintf(stderr, "e2b-tui: --models needs a list of provider/model names, comma-"
                            "separated (see e2b-tui --help)\n");
            return -1;
        }
        a->models = argv[++*i];
        return 1;
    }
    return 0;
}

/* One model of the list: provider/model, printable, no spaces or commas. */
static int model_valid(const char *s, size_t n)
{
    const char *slash = memchr(s, '/', n);
    if (!slash || slash == s || slash == s + n - 1 || n > 120)
        return 0;
    for (size_t k = 0; k < n; k++)
        if ((unsigned char)s[k] <= ' ' || (unsigned char)s[k] >= 0x7f)
            return 0;
    return 1;
}

int cli_try_check(const cli_args *a)
{
    const char *bad = NULL;
    if (a->kill_rest && a->mode != CLI_PICK)
        bad = "--kill-rest goes with --pick NAME-K";
    else if (a->models && !a->try_count)
        bad = "--models goes with --up NAME --try N";
    else if (a->try_count && a->mode != CLI_UP)
        bad = "--try goes with --up NAME";
    else if (a->try_count && (!a->name || !*a->name))
        bad = "--up --try needs the group's name (--up NAME --try N)";
    else if (a->try_count && !a->prompt_text && !a->prompt_file)
        bad = "--up NAME --try N needs the task: --prompt TEXT or --prompt-file FILE";
    else if (a->try_count && a->attach_after_up)
        bad = "--attach does not go with --try (attach a member: e2b-tui --attach NAME-1)";
    if (bad) {
        fprintf(stderr, "e2b-tui: %s\n", bad);
        return -1;
    }
    if (a->try_count && (strlen(a->name) > TRY_GROUP_MAX || !e2b_gitwork_box_name_valid(a->name))) {
        fprintf(stderr, "e2b-tui: '%s' is not a valid group name (a box name of at most %d "
                        "characters: its members are NAME-1 ... NAME-N)\n",
                a->name, TRY_GROUP_MAX);
        return -1;
    }
    for (const char *p = a->models; p && *p;) {
        size_t n = strcspn(p, ",");
        if (!model_valid(p, n)) {
            fprintf(stderr, "e2b-tui: --models: '%.*s' is not provider/model (e.g. "
                            "anthropic/claude-sonnet-4-5)\n", (int)(n > 200 ? 200 : n), p);
            return -1;
        }
        p += n + (p[n] == ',');
    }
    if (a->try_count > E2B_BOX_FORK_ASK_ABOVE && !a->yes) {
        fprintf(stderr, "e2b-tui: --try %d makes %d boxes: add --yes to make them (more than "
                        "%d need it)\n",
                a->try_count, a->try_count, E2B_BOX_FORK_ASK_ABOVE);
        return -1;
    }
    return 0;
}

/* The k-th model of the list (round robin) into buf, or NULL when no list was given. */
static const char *model_of(const char *models, size_t k, char *buf, size_t n)
{
    if (!models)
        return NULL;
    e2b_live_try_model_of(models, k, buf, n);
    return buf;
}

/* ---- the members ---- */

struct member {
    e2b_box_record rec;
    e2b_live_end end; /* the watch's */
};

static long settle_ms(void)
{
    const char *v = getenv("E2B_TUI_HEALTH_TIMEOUT");
    long s = v && *v ? strtol(v, NULL, 10) : 0;
    return s > 0 ? s * 1000 : 20000;
}

struct ready {
    int done;
    bool ok;
};

static void on_ready(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    struct ready *r = ud;
    r->done = 1;
    r->ok = !err && res->healthy;
}

static void on_tick(void *ud)
{
    *(int *)ud = 1;
}

/* v2: a prompt sent before the model catalog has the configured model is lost (1.18.33):
 * wait for it, within bounds (as --prompt does). */
static void wait_catalog(e2b_live *m, const char *sandbox_id)
{
    e2b_oc_client *oc = e2b_live_agent_client(m, sandbox_id);
    int64_t end = e2b_now_ms() + settle_ms();
    while (oc && e2b_oc_api(oc) == 2 && e2b_now_ms() < end) {
        struct ready r = {0};
        if (!e2b_oc_model_ready(oc, on_ready, &r, NULL))
            return;
        e2b_wait(e2b_live_loop(m), &r.done);
        if (r.ok)
            return;
        int tick = 0;
        if (!e2b_loop_timer_add(e2b_live_loop(m), 500, on_tick, &tick))
            return;
        e2b_wait(e2b_live_loop(m), &tick);
    }
}

/* Watches every member (all at once), then gives each the task (all at once); prints one
 * line per member.
 * Returns 0 when every member has it, else 1 (each failure told). */
static int give_task(e2b_live *m, const cli_args *a, struct member *mem, size_t n,
                     const char *text)
{
    for (size_t i = 0; i < n; i++) {
        e2b_live_then(m, &mem[i].end);
        e2b_live_agent_watch(m, &mem[i].rec, settle_ms()); /* may end at once */
    }
    for (size_t i = 0; i < n; i++)
        e2b_wait(e2b_live_loop(m), &mem[i].end.done);
    /* the catalogs (all servers started together: the first wait covers the rest), then
     * every prompt at once, then their ends */
    bool *ok = calloc(n, sizeof *ok);
    e2b_live_end *sent = calloc(n, sizeof *sent);
    char (*models)[128] = calloc(n, sizeof *models);
    if (!ok || !sent || !models) {
        free(ok), free(sent), free(models);
        fputs("e2b-tui: out of memory\n", stderr);
        return 1;
    }
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (mem[i].end.err || !e2b_live_agent(m, mem[i].rec.sandbox_id)) {
            char why[600];
            cli_clean(mem[i].end.err ? e2b_error_message(mem[i].end.err)
                                     : "its agent cannot be reached",
                      why, sizeof why);
            fprintf(stderr, "e2b-tui: member %s did not get the task: %s\n", mem[i].rec.name, why);
            rc = 1;
            continue;
        }
        wait_catalog(m, mem[i].rec.sandbox_id);
        ok[i] = true;
    }
    for (size_t i = 0; i < n; i++) {
        const char *model = model_of(a->models, i, models[i], sizeof models[i]);
        if (!model)
            models[i][0] = '\0';
        if (!ok[i]) {
            sent[i].done = 1;
            continue;
        }
        e2b_live_then(m, &sent[i]);
        e2b_live_agent_prompt_model(m, mem[i].rec.sandbox_id, NULL, true, text, model);
    }
    for (size_t i = 0; i < n; i++)
        e2b_wait(e2b_live_loop(m), &sent[i].done);
    for (size_t i = 0; i < n; i++) {
        if (!ok[i])
            continue;
        const char *model = models[i][0] ? models[i] : NULL;
        if (sent[i].err) {
            char why[600];
            cli_clean(e2b_error_message(sent[i].err), why, sizeof why);
            fprintf(stderr, "e2b-tui: member %s did not get the task: %s\n", mem[i].rec.name, why);
            e2b_error_free(sent[i].err);
            rc = 1;
        } else {
            printf("%s\t%s\t%s\n", mem[i].rec.name, sent[i].session_id ? sent[i].session_id : "",
                   model ? model : "(configured model)");
            /* the member's task, for --compare: its model and when it was given */
            snprintf(mem[i].rec.model, sizeof mem[i].rec.model, "%s", model ? model : "");
            mem[i].rec.task_at = time(NULL);
            e2b_error *werr = e2b_box_record_write(e2b_live_config(m)->records_dir,
                                                   &mem[i].rec, 0);
            if (werr) {
                rc = cli_fail(werr);
                e2b_error_free(werr);
            }
        }
        free(sent[i].session_id);
    }
    free(ok), free(sent), free(models);
    return rc;
}

static int cli_compare(e2b_live *m, const cli_args *a, bool wait);
static int cli_pick(e2b_live *m, const cli_args *a);

bool cli_try_is_group(e2b_live *m, const cli_args *a)
{
    if (a->mode != CLI_WAIT || !a->name || a->nnames > 1 || a->wait_all || a->wait_any)
        return false;
    const char *dir = e2b_live_config(m)->records_dir;
    if (e2b_box_record_exists(dir, a->name)) /* a box of that name: its own --wait */
        return false;
    e2b_box_record_list recs = {0};
    e2b_error *err = e2b_box_record_list_read(dir, &recs, NULL);
    bool group = false;
    for (size_t i = 0; !err && i < recs.count && !group; i++)
        group = !strcmp(recs.items[i].group, a->name);
    e2b_error_free(err);
    e2b_box_record_list_clear(&recs);
    return group;
}

int cli_try(e2b_live *m, const cli_args *a)
{
    int rc;
    if (a->mode == CLI_PICK)
        return cli_pick(m, a);
    if (a->mode == CLI_COMPARE || a->mode == CLI_WAIT)
        return cli_compare(m, a, a->mode == CLI_WAIT);
    if (e2b_live_config(m)->log_path && *e2b_live_config(m)->log_path) {
        e2b_log_set_max(e2b_live_config(m)->log_max);
        e2b_error_free(e2b_log_open(e2b_live_config(m)->log_path));
    }
    if ((rc = cli_open_keystore(m, a)))
        return rc;
    char *text = cli_prompt_text(a); /* the task */
    if (!text)
        return 1;
    char first[80];
    snprintf(first, sizeof first, "%s-1", a->name);
    const char *env_health = getenv("E2B_TUI_HEALTH_TIMEOUT");
    long health_ms = env_health && *env_health ? strtol(env_health, NULL, 10) * 1000 : 0;
    /* one upload: the first member */
    e2b_live_op_params up = {.kind = E2B_LIVE_OP_UP, .name = first, .dir = a->dir,
                             .template_id = a->template_id, .from_snapshot = a->from_snapshot,
                             .hours = a->hours, .keep_failed = a->keep_failed,
                             .public_traffic = a->public_traffic,
                             .health_timeout_ms = health_ms > 0 ? health_ms : 0};
    e2b_box_op *op = cli_op_run(m, &up, &rc);
    if (!op) {
        free(text);
        return rc;
    }
    cli_op_note(e2b_box_op_result(op));
    fprintf(stderr, "e2b-tui: box %s is up (%llu files uploaded); forking it into %d\n", first,
            (unsigned long long)e2b_box_op_result(op)->files, a->try_count - 1);
    e2b_box_op_free(op);
    /* the others: forks of it, recorded with it as group NAME */
    e2b_live_op_params fk = {.kind = E2B_LIVE_OP_FORK, .name = first,
                             .count = a->try_count - 1, .group = a->name};
    op = cli_op_run(m, &fk, &rc);
    if (!op) {
        fprintf(stderr, "e2b-tui: the group %s has only %s (e2b-tui --kill %s removes it)\n",
                a->name, first, first);
        free(text);
        return rc;
    }
    const e2b_box_result *r = e2b_box_op_result(op);
    if (r->fork_failures) {
        char buf[2000];
        cli_clean(r->fork_failures, buf, sizeof buf);
        fprintf(stderr, "e2b-tui: %s\n", buf);
    }
    size_t n = 1 + r->nforks;
    struct member *mem = calloc(n, sizeof *mem);
    rc = mem ? 0 : 1;
    for (size_t i = 0; mem && i < n && !rc; i++) {
        e2b_error *err = e2b_box_record_read(e2b_live_config(m)->records_dir,
                                             i ? r->forks[i - 1] : first, &mem[i].rec);
        if (err) {
            rc = cli_fail(err);
            e2b_error_free(err);
        }
    }
    e2b_box_op_free(op);
    if (!rc) {
        fprintf(stderr, "e2b-tui: group %s: %zu members; giving each the task\n", a->name, n);
        rc = give_task(m, a, mem, n, text);
    }
    if (!rc && n < (size_t)a->try_count) /* some forks did not start: told above */
        rc = 1;
    for (size_t i = 0; mem && i < n; i++) {
        e2b_box_record_clear(&mem[i].rec);
        e2b_error_free(mem[i].end.err);
    }
    free(mem);
    free(text);
    return rc;
}

/* ---- --compare ---- */

/* The agent's last text in its active session (the watch's recent activity), or NULL. */
static const char *last_message(const e2b_agent_status *st)
{
    for (size_t i = st ? st->nactivity : 0; i > 0; i--) {
        const e2b_agent_activity *ac = &st->activity[i - 1];
        if (ac->kind == E2B_AGENT_ACT_TEXT && ac->text && *ac->text &&
            (!st->session_id || !ac->session_id || !strcmp(ac->session_id, st->session_id)))
            return ac->text;
    }
    return NULL;
}

/* Whether a member's turn has ended: its test runs then. */
static bool turn_ended(const e2b_agent_status *st)
{
    return st && st->state == E2B_AGENT_IDLE && st->last_end != E2B_AGENT_END_NONE;
}

/* The last line of text (into buf), for the table. */
static void last_line(const char *text, char *buf, size_t n)
{
    size_t len = text ? strlen(text) : 0;
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
        len--;
    size_t from = len;
    while (from && text[from - 1] != '\n')
        from--;
    snprintf(buf, n, "%.*s", (int)(len - from), text ? text + from : "");
}

/* The member called name among mb[0..n), or NULL. */
static const e2b_live_member *member_named(const e2b_live_member *mb, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(mb[i].rec->name, name))
            return &mb[i];
    return NULL;
}

/* --compare NAME, and --wait NAME of a group (wait: until every member's turn has ended
 * or it waits for you; then the same table, and exit 0 when a member passes its tests, 1
 * when none does, 6 when one waits for you, 7 timed out). */
static int cli_compare(e2b_live *m, const cli_args *a, bool wait)
{
    int rc = cli_open_keystore(m, a);
    if (rc)
        return rc;
    /* the model's records, as of a list of the boxes */
    e2b_live_end end;
    e2b_live_then(m, &end);
    e2b_live_refresh_now(m);
    e2b_wait(e2b_live_loop(m), &end.done);
    if (end.err) {
        rc = cli_fail(end.err);
        e2b_error_free(end.err);
        return rc;
    }
    size_t n = e2b_live_group_members(m, a->name, NULL, 0);
    if (n == 0) {
        fprintf(stderr, "e2b-tui: no group %s on this machine (e2b-tui --up %s --try N "
                        "--prompt TEXT makes one)\n", a->name, a->name);
        return 3;
    }
    e2b_live_member *mb = calloc(n, sizeof *mb);
    struct member *mem = calloc(n, sizeof *mem);
    e2b_live_end *tests = calloc(n, sizeof *tests);
    e2b_box_compare_row *rows = calloc(n, sizeof *rows);
    if (!mb || !mem || !tests || !rows) {
        free(mb), free(mem), free(tests), free(rows);
        fputs("e2b-tui: out of memory\n", stderr);
        return 1;
    }
    e2b_live_group_members(m, a->name, mb, n);
    /* copies: the records may be read again while we wait */
    for (size_t i = 0; i < n; i++) {
        e2b_box_record *r = &mem[i].rec;
        const e2b_box_record *src = mb[i].rec;
        *r = (e2b_box_record){.name = strdup(src->name), .sandbox_id = strdup(src->sandbox_id),
                              .template_id = strdup(src->template_id), .branch = strdup(src->branch),
                              .base = strdup(src->base), .dir = strdup(src->dir),
                              .port = src->port, .opencode = src->opencode, .hours = src->hours,
                              .created_at = src->created_at, .task_at = src->task_at};
        memcpy(r->opencode_bin, src->opencode_bin, sizeof r->opencode_bin);
        memcpy(r->opencode_version, src->opencode_version, sizeof r->opencode_version);
        memcpy(r->group, src->group, sizeof r->group);
        memcpy(r->model, src->model, sizeof r->model);
    }
    /* every member's agent, at once */
    for (size_t i = 0; i < n; i++) {
        e2b_live_then(m, &mem[i].end);
        e2b_live_agent_watch(m, &mem[i].rec, settle_ms());
    }
    for (size_t i = 0; i < n; i++)
        e2b_wait(e2b_live_loop(m), &mem[i].end.done);
    int waiting = 0, timed_out = 0;
    int64_t start = e2b_now_ms();
    while (wait) {
        size_t settled = 0;
        waiting = 0;
        for (size_t i = 0; i < n; i++) {
            const e2b_agent_status *st = mem[i].end.err ? NULL
                                                        : e2b_live_agent(m, mem[i].rec.sandbox_id);
            bool synced = st && e2b_live_agent_synced(m, mem[i].rec.sandbox_id);
            if (!st || st->state == E2B_AGENT_SERVER_DOWN || st->state == E2B_AGENT_PAUSED)
                settled++; /* it cannot end a turn: not waited for */
            else if (synced && st->state == E2B_AGENT_WAITING)
                settled++, waiting++;
            else if (synced && turn_ended(st))
                settled++;
        }
        if (settled == n)
            break;
        if (a->timeout_s > 0 && e2b_now_ms() - start >= (int64_t)a->timeout_s * 1000) {
            timed_out = 1;
            break;
        }
        e2b_loop_run_once(e2b_live_loop(m), 200);
    }
    /* the evidence of every member whose turn has ended since its evidence was taken (by
     * any process: it is kept beside the records), at once */
    size_t nm = e2b_live_group_members(m, a->name, mb, n);
    for (size_t i = 0; i < n; i++) {
        const e2b_live_member *now = member_named(mb, nm < n ? nm : n, mem[i].rec.name);
        if (mem[i].end.err || !now || !e2b_live_member_evidence_due(m, now)) {
            tests[i].done = 1;
            continue;
        }
        e2b_live_then(m, &tests[i]);
        e2b_live_op_by_name(m, &(e2b_live_op_params){.kind = E2B_LIVE_OP_TEST,
                                                     .name = mem[i].rec.name});
    }
    for (size_t i = 0; i < n; i++)
        e2b_wait(e2b_live_loop(m), &tests[i].done);
    for (size_t i = 0; i < n && !rc; i++)
        if (tests[i].err && tests[i].err->kind != E2B_ERR_NOT_FOUND)
            rc = cli_fail(tests[i].err);
    nm = e2b_live_group_members(m, a->name, mb, n); /* with the evidence just taken */
    for (size_t i = 0; i < n; i++) {
        const e2b_agent_status *st = mem[i].end.err ? NULL : e2b_live_agent(m, mem[i].rec.sandbox_id);
        const e2b_live_member *now = member_named(mb, nm < n ? nm : n, mem[i].rec.name);
        const e2b_evidence *res = now && now->evidence ? now->evidence : NULL;
        long turn = -1;
        if (turn_ended(st) && mem[i].rec.task_at && st->idle_since_ms / 1000 >= mem[i].rec.task_at)
            turn = (long)(st->idle_since_ms / 1000 - mem[i].rec.task_at);
        rows[i] = (e2b_box_compare_row){
            .name = mem[i].rec.name, .sandbox_id = mem[i].rec.sandbox_id,
            .state = st ? e2b_agent_state_name(st->state)
                     : mem[i].end.err && mem[i].end.err->kind == E2B_ERR_NOT_FOUND ? "gone"
                                                                                 : "unknown",
            .last_end = st && st->last_end ? e2b_agent_end_name(st->last_end) : NULL,
            .model = mem[i].rec.model[0] ? mem[i].rec.model : NULL, .turn_s = turn,
            .evidence = res, .last_message = last_message(st),
            .have_tokens = st && st->total.have_tokens, .have_cost = st && st->total.have_cost,
            .tokens_input = st ? st->total.input : 0, .tokens_output = st ? st->total.output : 0,
            .cost_usd = st ? st->total.cost_usd : 0};
    }
    if (a->json) {
        char *s = e2b_box_compare_json(a->name, rows, n, a->pretty);
        if (s)
            puts(s);
        else
            fputs("e2b-tui: out of memory\n", stderr);
        free(s);
    } else {
        char sum[120];
        e2b_live_group_summary(m, a->name, sum, sizeof sum);
        printf("group %s: %s\n", a->name, sum);
        printf("%-20s %-16s %-24s %6s %6s %13s %-8s %7s %s\n", "MEMBER", "STATE", "MODEL", "TURN",
               "FILES", "+/-", "TESTS", "TIME", "COST");
        for (size_t i = 0; i < n; i++) {
            const e2b_box_compare_row *r = &rows[i];
            const e2b_evidence *ev = r->evidence;
            char state[64], turn[16] = "-", files[16] = "-", lines[32] = "-", tm[16] = "-";
            snprintf(state, sizeof state, "%s%s%s", r->state, r->last_end ? ": " : "",
                     r->last_end ? r->last_end : "");
            if (r->turn_s >= 0)
                e2b_span_text(r->turn_s, turn, sizeof turn);
            if (ev && ev->diff_known) {
                snprintf(files, sizeof files, "%ld", ev->files);
                snprintf(lines, sizeof lines, "+%ld/-%ld", ev->added, ev->deleted);
            }
            if (ev && ev->exit_code >= 0)
                snprintf(tm, sizeof tm, "%.1fs", ev->test_ms / 1000.0);
            char cost[32] = "unknown";
            if (r->have_cost)
                snprintf(cost, sizeof cost, "$%.4f", r->cost_usd);
            printf("%-20s %-16s %-24s %6s %6s %13s %-8s %7s %s\n", r->name, state,
                   r->model ? r->model : "(configured)", turn, files, lines,
                   !ev ? "pending" : e2b_live_test_result_name(ev->test), tm, cost);
            char line[300];
            if (ev && ev->why[0])
                printf("    tests: %s\n", ev->why);
            else if (ev && ev->tail[0]) {
                last_line(ev->tail, line, sizeof line);
                printf("    tests: %s\n", line);
            }
            if (r->last_message) {
                last_line(r->last_message, line, sizeof line);
                printf("    agent: %s\n", line);
            }
        }
    }
    if (wait && !rc) {
        size_t passing = 0;
        for (size_t i = 0; i < n; i++)
            passing += rows[i].evidence && rows[i].evidence->test == E2B_TEST_PASS;
        for (size_t i = 0; i < n; i++) {
            const e2b_agent_status *st = mem[i].end.err ? NULL
                                                        : e2b_live_agent(m, mem[i].rec.sandbox_id);
            if (st && st->state == E2B_AGENT_WAITING && st->nrequests) {
                char buf[600];
                cli_clean(st->requests[0].summary, buf, sizeof buf);
                fprintf(stderr, "e2b-tui: member %s is waiting for you: %s (request %s)\n",
                        mem[i].rec.name, buf, st->requests[0].id);
            }
        }
        rc = timed_out ? 7 : waiting ? 6 : passing ? 0 : 1;
        if (timed_out)
            fprintf(stderr, "e2b-tui: group %s: not every member's turn ended within %d s\n",
                    a->name, a->timeout_s);
        else if (!waiting && !passing)
            fprintf(stderr, "e2b-tui: group %s: no member passes its tests\n", a->name);
    }
    for (size_t i = 0; i < n; i++) {
        e2b_box_record_clear(&mem[i].rec);
        e2b_error_free(mem[i].end.err);
        e2b_error_free(tests[i].err);
        e2b_box_op_free(tests[i].op);
    }
    free(mb), free(mem), free(tests), free(rows);
    return rc;
}

/* ---- --pick NAME-K [--kill-rest] ---- */

static int cli_pick(e2b_live *m, const cli_args *a)
{
    int rc = cli_open_keystore(m, a);
    if (rc)
        return rc;
    const char *dir = e2b_live_config(m)->records_dir;
    e2b_box_record rec = {0};
    e2b_error *err = e2b_box_record_read(dir, a->name, &rec);
    if (!err && !rec.group[0])
        err = e2b_error_new(E2B_ERR_INVALID, "box %s is not a member of a group of attempts "
                                             "(e2b-tui --pull %s brings it home as e2b/%s)",
                            a->name, a->name, a->name);
    if (err) {
        rc = cli_fail(err);
        e2b_error_free(err);
        e2b_box_record_clear(&rec);
        return rc;
    }
    char group[64];
    snprintf(group, sizeof group, "%s", rec.group);
    e2b_box_record_clear(&rec);
    /* the member's work, as the group's branch (box_pull.c) */
    e2b_live_op_params p = {.kind = E2B_LIVE_OP_PULL, .name = a->name, .dir = a->dir,
                            .force = a->force};
    e2b_box_op *op = cli_op_run(m, &p, &rc);
    if (!op)
        return rc;
    const e2b_box_result *r = e2b_box_op_result(op);
    char safe[3][300];
    cli_clean(r->branch, safe[0], sizeof safe[0]);
    cli_clean(r->commit, safe[1], sizeof safe[1]);
    cli_op_note(r);
    if (r->nothing_pulled)
        printf("no new work in member %s of group %s; nothing to pull\n", a->name, group);
    else
        printf("%s %s %s (member %s of group %s)\n", safe[0], safe[1],
               r->no_new_work ? "up to date" : r->outcome ? r->outcome : "pulled", a->name, group);
    e2b_box_op_free(op);
    if (!a->kill_rest)
        return 0;
    /* the others go: they were not picked (their work is not in the group's branch) */
    e2b_box_record_list recs = {0};
    if ((err = e2b_box_record_list_read(dir, &recs, NULL))) {
        rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    for (size_t i = 0; i < recs.count; i++) {
        if (strcmp(recs.items[i].group, group) || !strcmp(recs.items[i].name, a->name))
            continue;
        int krc = 0;
        e2b_live_op_params k = {.kind = E2B_LIVE_OP_KILL, .name = recs.items[i].name};
        e2b_box_op *kop = cli_op_run(m, &k, &krc);
        if (kop)
            printf("killed member %s (not picked)\n", recs.items[i].name);
        else if (!rc)
            rc = krc;
        e2b_box_op_free(kop);
    }
    e2b_box_record_list_clear(&recs);
    return rc;
}
