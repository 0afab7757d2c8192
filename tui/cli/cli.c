/* One-shot modes: the headless model they all run on (cli_run), what they share (the exit
 * mapping, the clean text), and --list and --secrets, each one model command, its end and a
 * printer. The box modes are in cli_box.c. No curses here. */
#include "tui/cli/cli_internal.h"

#include "core/util/str.h"
#include "core/util/log.h"
#include "core/util/sanitize.h"
#include "core/box/secrets_providers.h"
#include "core/live/live.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

void cli_clean(const char *s, char *buf, size_t n)
{
    char *clean = e2b_sanitize_display(s ? s : "", strlen(s ? s : ""), 0);
    snprintf(buf, n, "%s", clean ? clean : "?");
    free(clean);
}

int cli_fail(const e2b_error *err)
{
    char buf[1024];
    cli_clean(e2b_error_message(err), buf, sizeof buf);
    fprintf(stderr, "e2b-tui: %s\n", buf);
    return e2b_error_exit_code(err) ? e2b_error_exit_code(err) : 1;
}

int cli_no_record(e2b_live *m, const char *name, const e2b_error *not_found)
{
    /* The model's list of the boxes (one page of a metadata query), then the one rule. */
    e2b_live_end end;
    e2b_live_then(m, &end);
    e2b_live_refresh_now(m);
    e2b_wait(e2b_live_loop(m), &end.done);
    e2b_error *err = end.err;
    if (!err) {
        e2b_box_match bm;
        e2b_box_lookup(e2b_live_records(m, NULL), e2b_live_sandboxes(m), name, &bm);
        err = bm.count > 1 ? e2b_box_match_error(&bm, name) : NULL;
        if (bm.count == 1)
            err = e2b_error_new(E2B_ERR_NOT_FOUND,
                                "box %s was made on another machine (sandbox %s): it has no "
                                "record here",
                                name, bm.ids);
    }
    int rc = cli_fail(err ? err : not_found);
    e2b_error_free(err);
    return rc;
}

/* ---- box operations: the model's, by name ---- */

struct op_progress {
    e2b_live *m;
    int tty, shown;
    char told[64]; /* the last setup step printed as a line */
    int said;      /* a remake's plan was printed */
};

/* The operation moved on: its step (and bytes) on one line of the terminal; a step of the
 * project's setup also as a line of its own, so a log says what the up started from. */
static void on_ops(void *ud, unsigned what)
{
    struct op_progress *ps = ud;
    e2b_live_op_info op;
    (void)what;
    if (!e2b_live_op_get(ps->m, 0, &op)) /* one at a time here */
        return;
    if (op.says && *op.says && !ps->said) { /* a remake says what it remakes from, once */
        char safe[700];
        cli_clean(op.says, safe, sizeof safe);
        fprintf(stderr, "%se2b-tui: %s\n", ps->shown ? "\r\033[K" : "", safe);
        ps->said = 1;
    }
    if (op.setup_step && strcmp(op.step, ps->told) != 0) {
        snprintf(ps->told, sizeof ps->told, "%s", op.step);
        fprintf(stderr, "%se2b-tui: %s\n", ps->shown ? "\r\033[K" : "", op.step);
    }
    if (!ps->tty)
        return;
    if (op.total > 0)
        fprintf(stderr, "\r\033[K%s: %lld/%lld KiB (%d%%)", op.step, (long long)(op.done / 1024),
                (long long)(op.total / 1024), (int)(op.done * 100 / op.total));
    else if (op.done > 0)
        fprintf(stderr, "\r\033[K%s: %lld KiB", op.step, (long long)(op.done / 1024));
    else
        fprintf(stderr, "\r\033[K%s...", op.step);
    ps->shown = 1;
}

void cli_op_note(const e2b_box_result *r)
{
    if (r && r->note) {
        char buf[800];
        cli_clean(r->note, buf, sizeof buf);
        fprintf(stderr, "e2b-tui: %s\n", buf);
    }
}

e2b_box_op *cli_op_run(e2b_live *m, const e2b_live_op_params *p, int *rc)
{
    struct op_progress ps = {.m = m, .tty = isatty(STDERR_FILENO)};
    if (e2b_live_subscribe(m, E2B_LIVE_OPS, on_ops, &ps) < 0)
        ps.tty = 0;
    e2b_live_end end;
    e2b_live_then(m, &end);
    e2b_live_op_by_name(m, p); /* one that cannot start fills end at once */
    e2b_wait(e2b_live_loop(m), &end.done);
    e2b_live_unsubscribe(m, on_ops, &ps);
    if (ps.shown)
        fputs("\r\033[K", stderr);
    if (end.err) {
        *rc = cli_fail(end.err);
        if (p->kind == E2B_LIVE_OP_GET && end.err->kind == E2B_ERR_INVALID)
            *rc = 2; /* --get: a path or folder refused before the box is asked (usage) */
        e2b_error_free(end.err);
        cli_op_note(end.op ? e2b_box_op_result(end.op) : NULL);
        e2b_box_op_free(end.op);
        return NULL;
    }
    return end.op;
}

/* What a sweep for a failed up's sandbox did (or could not), on stderr. */
static void orphan_notice(void *ud, const char *done, const e2b_error *failed)
{
    char buf[1024];
    (void)ud;
    cli_clean(failed ? e2b_error_message(failed) : done, buf, sizeof buf);
    fprintf(stderr, "e2b-tui: %s%s\n", failed ? "warning: " : "", buf);
}

/* The one-shot modes must not linger: the second sweep after a failed create waits at most
 * this long (the journal entry stays for the next start when that is shorter than
 * orphan_sweep_delay). */
#define CLI_ORPHAN_DELAY_MAX_S 10

/* The fallback warning is told where a password is stored (--up), not by every mode that
 * only reads or deletes one: --info says which store is used. */
int cli_open_keystore(e2b_live *m, const cli_args *a)
{
    char *warning = NULL;
    e2b_error *err = e2b_live_store_open(m, &warning);
    if (err) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    if (warning && a->mode == CLI_UP)
        fprintf(stderr, "e2b-tui: warning: %s\n", warning);
    free(warning);
    return 0;
}

/* ---- --list ---- */


/* The table's columns; a cell longer than its cap is cut with "..." so the rows stay
 * aligned (the whole value is in --list --json). The last column is never cut. */
enum { COL_NAME, COL_KIND, COL_STATE, COL_ID, COL_TEMPLATE, COL_AGE, COL_ENDS, COL_BRANCH,
       COL_PATH, NCOLS };
static const struct {
    const char *title;
    size_t cap;
} table_cols[NCOLS] = {{"NAME", 32}, {"KIND", 9}, {"STATE", 7}, {"ID", 32}, {"TEMPLATE", 20},
                       {"AGE", 5}, {"ENDS", 7}, {"BRANCH", 30}, {"PATH", 4096}};
enum { CELL_MAX = 600 };

static void cell_set(char *cell, size_t col, const char *raw)
{
    cli_clean(raw && *raw ? raw : "-", cell, CELL_MAX);
    size_t cap = table_cols[col].cap;
    if (strlen(cell) > cap) /* sanitised text is printable ASCII or UTF-8: cut at a boundary */
    {
        size_t cut = cap - 3;
        while (cut > 0 && ((unsigned char)cell[cut] & 0xC0) == 0x80)
            cut--;
        memcpy(cell + cut, "...", 4);
    }
}

/* Display width of sanitised text (UTF-8 continuation bytes take no column). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void print_table(const e2b_box_listing *l)
{
    time_t now = time(NULL);
    if (l->count == 0) {
        printf("No boxes or sandboxes. e2b-tui --up starts a box from the current git project.\n");
        return;
    }
    char(*cells)[NCOLS][CELL_MAX] = calloc(l->count, sizeof *cells);
    size_t width[NCOLS];
    if (!cells) {
        fputs("e2b-tui: out of memory\n", stderr);
        return;
    }
    for (size_t k = 0; k < NCOLS; k++)
        width[k] = strlen(table_cols[k].title);
    for (size_t i = 0; i < l->count; i++) {
        const e2b_box_entry *e = &l->items[i];
        const e2b_sandbox *sb = e->sandbox;
        const char *branch = e->record ? e->record->branch : sb ? sb->box_branch : NULL;
        char age[32] = "-", ends[32] = "-";
        if (sb && sb->started_at)
            e2b_span_text(labs((long)(now - sb->started_at)), age, sizeof age);
        if (sb && sb->state == E2B_STATE_PAUSED)
            snprintf(ends, sizeof ends, "paused");
        else if (sb && sb->end_at && sb->end_at <= now)
            snprintf(ends, sizeof ends, "expired");
        else if (sb && sb->end_at)
            e2b_span_text((long)(sb->end_at - now), ends, sizeof ends);
        cell_set(cells[i][COL_NAME], COL_NAME,
                 e->kind == E2B_KIND_BOX && e->name ? e->name : sb ? e2b_live_sandbox_name(sb) : "?");
        cell_set(cells[i][COL_KIND], COL_KIND, e2b_sandbox_kind_name(e->kind));
        cell_set(cells[i][COL_STATE], COL_STATE, e2b_box_list_state_name(e->state));
        cell_set(cells[i][COL_ID], COL_ID,
                 sb ? sb->sandbox_id : e->record ? e->record->sandbox_id : "-");
        cell_set(cells[i][COL_TEMPLATE], COL_TEMPLATE,
                 sb ? (sb->alias ? sb->alias : sb->template_id) : NULL);
        cell_set(cells[i][COL_AGE], COL_AGE, age);
        cell_set(cells[i][COL_ENDS], COL_ENDS, ends);
        cell_set(cells[i][COL_BRANCH], COL_BRANCH, e->kind == E2B_KIND_BOX ? branch : NULL);
        cell_set(cells[i][COL_PATH], COL_PATH,
                 e->kind != E2B_KIND_BOX ? NULL
                 : e->record && e->record->dir[0] ? e->record->dir : "(other machine)");
        for (size_t k = 0; k < NCOLS; k++) {
            size_t w = text_width(cells[i][k]);
            if (w > width[k])
                width[k] = w;
        }
    }
    for (size_t k = 0; k < NCOLS; k++)
        printf("%s%-*s", k ? " " : "", k + 1 < NCOLS ? (int)width[k] : 0, table_cols[k].title);
    putchar('\n');
    for (size_t i = 0; i < l->count; i++) {
        for (size_t k = 0; k < NCOLS; k++) {
            const char *v = cells[i][k];
            size_t pad = k + 1 < NCOLS ? width[k] - text_width(v) : 0;
            printf("%s%s%*s", k ? " " : "", v, (int)pad, "");
        }
        putchar('\n');
    }
    free(cells);
}

/* The model's list of every sandbox (one request per page), its records, a printer. */
static int cli_list(e2b_live *m, const cli_args *a)
{
    e2b_live_end end;
    e2b_live_show_all(m, true); /* every sandbox, not the boxes only */
    e2b_live_then(m, &end);
    e2b_live_refresh_now(m); /* the list show_all started, or a new one */
    e2b_wait(e2b_live_loop(m), &end.done);
    if (end.err) {
        int rc = cli_fail(end.err);
        e2b_error_free(end.err);
        return rc;
    }
    const char *skipped = NULL;
    const e2b_box_record_list *records = e2b_live_records(m, &skipped);
    if (skipped)
        fprintf(stderr, "e2b-tui: warning: unreadable box records skipped: %s\n", skipped);
    e2b_box_listing listing = {0};
    if (e2b_box_listing_build(records, e2b_live_sandboxes(m), &listing) < 0) {
        fputs("e2b-tui: out of memory\n", stderr);
        return 1;
    }
    if (a->json)
        e2b_box_listing_print_json(&listing, a->pretty, stdout);
    else
        print_table(&listing);
    e2b_box_listing_clear(&listing);
    return 0;
}

/* ---- --secrets ---- */

/* Reads a secret value: the provider's environment variable, else stdin (a no-echo prompt
 * on a terminal). Returns a malloc'd string (caller wipes and frees) or NULL. */
static char *read_secret_value(const char *name)
{
    const e2b_provider *p = e2b_provider_find(name);
    const char *env = p ? getenv(p->env_var) : NULL;
    if (env && *env) {
        fprintf(stderr, "e2b-tui: using the value of %s\n", p->env_var);
        return strdup(env);
    }
    struct termios old, quiet;
    int tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;
    if (tty) {
        fprintf(stderr, "Value for secret %s (not shown): ", name);
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    }
    /* No stdio buffer (it would keep a copy of the value after we wipe ours), and room
     * enough that getline does not realloc (which would leave the old block unwiped). */
    setvbuf(stdin, NULL, _IONBF, 0);
    size_t cap = 4096;
    char *line = malloc(cap);
    if (!line)
        return NULL;
    ssize_t n = getline(&line, &cap, stdin);
    if (tty) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
        fputc('\n', stderr);
    }
    if (n <= 0) {
        explicit_bzero(line, cap);
        free(line);
        return NULL;
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    return line;
}

/* The secrets as the dashboard's Secrets view shows them: NAME, HOSTS, CREATED. */
static void print_secrets(const e2b_secret_list *list)
{
    size_t w = strlen("NAME");
    for (size_t i = 0; i < list->count; i++) {
        char name[200];
        cli_clean(list->items[i].name, name, sizeof name);
        if (text_width(name) > w)
            w = text_width(name);
    }
    printf("%-*s %-20s %s\n", (int)w, "NAME", "HOSTS", "CREATED");
    for (size_t i = 0; i < list->count; i++) {
        const e2b_secret *s = &list->items[i];
        char name[200], when[32];
        cli_clean(s->name, name, sizeof name);
        e2b_secret_time_text(s->created_at, when, sizeof when);
        printf("%s%*s %-20s %s\n", name, (int)(w - text_width(name)), "", e2b_secret_host(s->name),
               when);
    }
}

/* Waits for the command the model was given after e2b_live_then(m, end) (one that could not
 * start filled end at once). Returns its error (the caller frees) or NULL. */
static e2b_error *command_end(e2b_live *m, e2b_live_end *end)
{
    e2b_wait(e2b_live_loop(m), &end->done);
    return end->err;
}

/* --secrets: the model's list, set (create, or update when the name exists: the dashboard's
 * path) and remove, each with its printer. */
static int cli_secrets(e2b_live *m, const cli_args *a)
{
    e2b_live_end end;
    e2b_error *err = NULL;
    if (strcmp(a->secrets_cmd, "list") == 0) {
        e2b_live_then(m, &end);
        e2b_live_show_secrets(m, true);
        if ((err = command_end(m, &end))) {
            int rc = cli_fail(err);
            e2b_error_free(err);
            return rc;
        }
        const e2b_secret_list *list = e2b_live_secrets(m, NULL);
        if (a->json)
            e2b_secrets_print_json(list, a->pretty, stdout);
        else if (list->count == 0)
            printf("No secrets. e2b-tui --secrets set anthropic stores one (the value from "
                   "ANTHROPIC_API_KEY, else stdin).\n");
        else
            print_secrets(list);
        return 0;
    }
    if (!e2b_secret_name_valid(a->name)) {
        char safe[300];
        cli_clean(a->name, safe, sizeof safe);
        fprintf(stderr, "e2b-tui: '%s' is not a valid secret name (" E2B_SECRET_NAME_RULE ")\n",
                safe);
        return 2;
    }
    if (strcmp(a->secrets_cmd, "remove") == 0) {
        e2b_live_then(m, &end);
        e2b_live_secret_remove(m, a->name);
        if ((err = command_end(m, &end))) {
            int rc = cli_fail(err);
            e2b_error_free(err);
            return rc;
        }
        printf("removed secret %s\n", a->name);
        return 0;
    }
    char *value = read_secret_value(a->name);
    if (!value || !*value) {
        const e2b_provider *p = e2b_provider_find(a->name);
        fprintf(stderr, "e2b-tui: no value for secret %s: set %s or give it on stdin\n", a->name,
                p ? p->env_var : "it");
        free(value);
        return 1;
    }
    e2b_live_then(m, &end);
    e2b_live_secret_set(m, a->name, value); /* copied into the request */
    explicit_bzero(value, strlen(value));
    free(value);
    if ((err = command_end(m, &end))) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    printf("%s secret %s (version %ld)\n", end.updated ? "updated" : "stored", a->name,
           end.version);
    return 0;
}

int cli_run(const cli_args *a, e2b_config *cfg)
{
    e2b_live *m = e2b_live_new_config(cfg, a->keystore_flag);
    if (!m) {
        fputs("e2b-tui: out of memory\n", stderr);
        return 1;
    }
    e2b_live_headless h = {.orphan_delay_max_ms = CLI_ORPHAN_DELAY_MAX_S * 1000L,
                           .orphan_notice = orphan_notice};
    e2b_error *err = cli_rules_local(a) ? NULL : e2b_live_start_headless(m, &h);
    int rc = err ? cli_fail(err) : 0;
    e2b_error_free(err);
    if (rc == 0 && cli_try_is_group(m, a)) {
        rc = cli_try(m, a); /* --wait of a group of attempts */
    } else if (rc == 0) {
        switch (a->mode) {
        case CLI_LIST: rc = cli_list(m, a); break;
        case CLI_SECRETS: rc = cli_secrets(m, a); break;
        case CLI_STATUS:
        case CLI_PROMPT:
        case CLI_WAIT:
        case CLI_REPLY:
        case CLI_ANSWER:
        case CLI_INTERRUPT:
        case CLI_WATCH: rc = cli_agent(m, a); break;
        case CLI_SNAPSHOT:
        case CLI_SNAPSHOTS:
        case CLI_FORK:
        case CLI_TEMPLATES:
        case CLI_GC_TEMPLATES: rc = cli_snap(m, a); break;
        case CLI_STOP:
        case CLI_KILL:
        case CLI_RESUME:
        case CLI_EXTEND:
        case CLI_NETWORK: rc = cli_sandbox(m, a); break;
        case CLI_PORTS:
        case CLI_FORWARD:
        case CLI_GET:
        case CLI_KEEPALIVE: rc = cli_life(m, a); break;
        case CLI_APPROVE:
        case CLI_REVOKE:
        case CLI_HISTORY: rc = cli_rules(m, a); break;
        default:
            rc = a->try_count || a->mode == CLI_COMPARE || a->mode == CLI_PICK ? cli_try(m, a)
                                                                               : cli_box(m, a, NULL);
            break;
        }
    }
    e2b_live_free(m); /* its store, sweeper, client and loop */
    keystore_jobs_drain(2000);
    e2b_log_close(); /* opened by the box modes */
    return rc;
}

int cli_set_mode(cli_args *a, cli_mode m, const char *flag)
{
    if (a->mode != CLI_NONE && a->mode != m) {
        fprintf(stderr, "e2b-tui: %s cannot be combined with another mode (see e2b-tui --help)\n",
                flag);
        return -1;
    }
    a->mode = m;
    return 0;
}
