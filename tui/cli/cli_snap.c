/* One-shot snapshot and template modes: --snapshot, --snapshots [--delete], --fork, --templates,
 * --gc-templates [--dry-run], and the snapshot behind --up --from. Their options are parsed
 * here (cli_snap_option) so that main.c only hands them on. */
#include "tui/cli/cli_internal.h"

#include "core/util/str.h"
#include "core/box/snap_records.h"
#include "core/e2b/api_templates.h"
#include "core/util/log.h"
#include "core/util/machine_id.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- options ---- */

static int snap_mode(cli_args *a, cli_mode m, const char *flag)
{
    if (a->mode != CLI_NONE && a->mode != m) {
        fprintf(stderr, "e2b-tui: %s cannot be combined with another mode (see e2b-tui --help)\n", flag);
        return -1;
    }
    a->mode = m;
    return 0;
}

static const char *value_of(int argc, char **argv, int *i, const char *what)
{
    if (*i + 1 < argc && argv[*i + 1][0] && argv[*i + 1][0] != '-')
        return argv[++*i];
    fprintf(stderr, "e2b-tui: %s needs %s (see e2b-tui --help)\n", argv[*i], what);
    return NULL;
}

int cli_snap_option(cli_args *a, int argc, char **argv, int *i)
{
    const char *f = argv[*i];
    if (strcmp(f, "--snapshot") == 0) {
        if (snap_mode(a, CLI_SNAPSHOT, f) < 0)
            return -1;
        return (a->name = value_of(argc, argv, i, "a box name")) ? 1 : -1;
    }
    if (strcmp(f, "--as") == 0)
        return (a->snap_as = value_of(argc, argv, i, "a snapshot name")) ? 1 : -1;
    if (strcmp(f, "--snapshots") == 0)
        return snap_mode(a, CLI_SNAPSHOTS, f) < 0 ? -1 : 1;
    if (strcmp(f, "--delete") == 0)
        return (a->snap_delete = value_of(argc, argv, i, "a snapshot name")) ? 1 : -1;
    if (strcmp(f, "--from") == 0)
        return (a->from_snapshot = value_of(argc, argv, i, "a snapshot name")) ? 1 : -1;
    if (strcmp(f, "--fork") == 0) {
        if (snap_mode(a, CLI_FORK, f) < 0)
            return -1;
        return (a->name = value_of(argc, argv, i, "a box name")) ? 1 : -1;
    }
    if (strcmp(f, "--count") == 0) {
        const char *v = value_of(argc, argv, i, "a number of forks");
        char *end;
        long n = v ? strtol(v, &end, 10) : 0;
        if (!v)
            return -1;
        if (*end || n < 1 || n > 100) {
            fprintf(stderr, "e2b-tui: --count must be a whole number from 1 to 100, not '%s'\n", v);
            return -1;
        }
        a->count = (int)n;
        return 1;
    }
    if (strcmp(f, "--templates") == 0)
        return snap_mode(a, CLI_TEMPLATES, f) < 0 ? -1 : 1;
    if (strcmp(f, "--gc-templates") == 0)
        return snap_mode(a, CLI_GC_TEMPLATES, f) < 0 ? -1 : 1;
    if (strcmp(f, "--dry-run") == 0)
        return a->dry_run = 1, 1;
    return 0;
}

int cli_snap_check(const cli_args *a)
{
    const char *bad = a->snap_as && a->mode != CLI_SNAPSHOT         ? "--as"
                      : a->snap_delete && a->mode != CLI_SNAPSHOTS  ? "--delete"
                      : a->from_snapshot && a->mode != CLI_UP       ? "--from"
                      : a->count && a->mode != CLI_FORK             ? "--count"
                      : a->dry_run && a->mode != CLI_GC_TEMPLATES   ? "--dry-run"
                      : a->from_snapshot && a->template_id          ? "--template"
                                                                    : NULL;
    if (bad) {
        fprintf(stderr, "e2b-tui: %s does not go with %s (see e2b-tui --help)\n", bad,
                a->mode == CLI_NONE ? "the dashboard" : "this mode");
        return -1;
    }
    return 0;
}

/* ---- helpers ---- */

static void age(time_t t, time_t now, char *buf, size_t n)
{
    e2b_span_text(t > 0 && now >= t ? (long)(now - t) : -1, buf, n);
}

typedef struct wait_state {
    int done;
    e2b_error *err;
    void *result;
    long status;
} wait_state;

static void keep_err(wait_state *w, const e2b_error *err)
{
    w->err = err ? e2b_error_copy(err) : NULL;
    w->done = 1;
}

static void on_snapshots(void *ud, e2b_snapshot_list *l, const e2b_error *err)
{
    wait_state *w = ud;
    w->result = l;
    keep_err(w, err);
}

static void on_templates(void *ud, e2b_template_list *l, const e2b_error *err)
{
    wait_state *w = ud;
    w->result = l;
    keep_err(w, err);
}

static void on_status(void *ud, long status, const e2b_error *err)
{
    wait_state *w = ud;
    w->status = status;
    keep_err(w, err);
}

/* Runs the loop until the call started (call != NULL) has called back; the call's error or
 * the start's is returned in w->err. */
static int finish_wait(e2b_live *m, void *call, wait_state *w,
                       e2b_error *start_err)
{
    if (!call) {
        w->err = start_err;
        return cli_fail(start_err);
    }
    e2b_wait(e2b_live_loop(m), &w->done);
    return w->err ? cli_fail(w->err) : 0;
}

#define SAFE(i, text) (cli_clean((text), safe[i], sizeof safe[i]), safe[i])

/* ---- --snapshots ---- */

static int delete_template(e2b_live *m, const char *id, int *gone)
{
    wait_state w = {0};
    e2b_error *err = NULL;
    void *call = e2b_api_template_delete(e2b_live_client(m), id, on_status, &w, &err);
    if (!call) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    e2b_wait(e2b_live_loop(m), &w.done);
    *gone = w.err && w.err->kind == E2B_ERR_NOT_FOUND;
    int rc = w.err && !*gone ? cli_fail(w.err) : 0;
    e2b_error_free(w.err);
    return rc;
}

static int snapshot_delete(e2b_live *m, const cli_args *a, const char *name)
{
    char safe[2][400];
    e2b_snap_record r;
    e2b_error *err = e2b_snap_record_read(e2b_live_config(m)->state_dir, name, &r);
    const char *id = name; /* without a record: an E2B snapshot id */
    if (err && err->kind != E2B_ERR_NOT_FOUND) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    if (!err)
        id = r.snapshot_id;
    int gone = 0, rc = delete_template(m, id, &gone);
    if (rc == 0 && !err) {
        e2b_error *rerr = e2b_snap_record_remove(e2b_live_config(m)->state_dir, name);
        if (rerr)
            rc = cli_fail(rerr);
        e2b_error_free(rerr);
    }
    if (rc == 0 && err && gone) {
        fprintf(stderr, "e2b-tui: no snapshot named %s here or on E2B (e2b-tui --snapshots lists them)\n",
                SAFE(0, name));
        rc = 3;
    } else if (rc == 0) {
        if (gone)
            fprintf(stderr, "e2b-tui: E2B had no snapshot %s any more; removed the record\n", SAFE(1, id));
        printf("deleted snapshot %s\n", SAFE(0, name));
    }
    e2b_error_free(err);
    if (!err)
        e2b_snap_record_clear(&r);
    return rc;
}

static int snapshots_list(e2b_live *m, const cli_args *a)
{
    char safe[4][400], when[32];
    wait_state w = {0};
    e2b_error *err = NULL;
    void *call = e2b_api_snapshots_list(e2b_live_client(m), NULL, on_snapshots, &w, &err);
    int rc = finish_wait(m, call, &w, err);
    e2b_snapshot_list *api = w.result;
    e2b_error_free(w.err);
    if (rc)
        return rc;
    e2b_snap_record_list recs;
    err = e2b_snap_record_list_read(e2b_live_config(m)->state_dir, &recs);
    if (err) {
        rc = cli_fail(err);
        e2b_error_free(err);
        e2b_snapshot_list_free(api);
        return rc;
    }
    time_t now = time(NULL);
    printf("%-24s %-20s %-6s %s\n", "NAME", "BOX", "AGE", "SNAPSHOT");
    for (size_t i = 0; i < recs.count; i++) {
        const e2b_snap_record *r = &recs.items[i];
        int on_e2b = 0;
        for (size_t k = 0; api && k < api->count && !on_e2b; k++)
            on_e2b = strcmp(api->items[k].snapshot_id, r->snapshot_id) == 0;
        age(r->created_at, now, when, sizeof when);
        printf("%-24s %-20s %-6s %s%s\n", SAFE(0, r->name), SAFE(1, r->box), when, SAFE(2, r->snapshot_id),
               on_e2b ? "" : "  (gone on E2B: --snapshots --delete removes the record)");
    }
    for (size_t k = 0; api && k < api->count; k++)
        if (!e2b_snap_record_list_find_id(&recs, api->items[k].snapshot_id))
            printf("%-24s %-20s %-6s %s\n", "-", "(not from this machine)", "-", SAFE(3, api->items[k].snapshot_id));
    e2b_snap_record_list_clear(&recs);
    e2b_snapshot_list_free(api);
    return 0;
}

/* ---- --templates and --gc-templates ---- */

/* What a template is to e2b-tui: "managed" (the plugin's, made here), "snapshot" (one of
 * ours), "". */
static const char *template_mark(const e2b_template *t, const e2b_snap_record_list *recs,
                                 const char *machine)
{
    if (e2b_snap_template_is_ours(recs, t))
        return "e2b-tui snapshot";
    if (e2b_template_is_managed(t))
        return e2b_template_made_here(t, machine) ? "managed" : "managed, another machine's";
    return t->is_public ? "public" : "";
}

static int templates_fetch(e2b_live *m, const cli_args *a, e2b_template_list **out,
                           e2b_snap_record_list *recs,
                           char machine[E2B_MACHINE_ID_LEN + 1])
{
    wait_state w = {0};
    e2b_error *err = NULL;
    void *call = e2b_api_templates_list(e2b_live_client(m), on_templates, &w, &err);
    int rc = finish_wait(m, call, &w, err);
    e2b_error_free(w.err);
    *out = w.result;
    if (rc)
        return rc;
    err = e2b_machine_id(e2b_live_config(m)->state_dir, machine);
    if (!err)
        err = e2b_snap_record_list_read(e2b_live_config(m)->state_dir, recs);
    if (err) {
        rc = cli_fail(err);
        e2b_error_free(err);
        e2b_template_list_free(*out);
        *out = NULL;
    }
    return rc;
}

static void template_line(const e2b_template *t, const char *mark, time_t now)
{
    char safe[2][400], when[32];
    char aliases[400] = "";
    for (size_t k = 0; k < t->naliases; k++) {
        size_t used = strlen(aliases);
        snprintf(aliases + used, sizeof aliases - used, "%s%s", k ? "," : "", t->aliases[k]);
    }
    age(e2b_template_last_used(t), now, when, sizeof when);
    printf("%-28s %-28s %6ld %-9s %s\n", SAFE(0, t->template_id), SAFE(1, aliases[0] ? aliases : "-"),
           t->build_count, when, mark);
}

static int templates_list(e2b_live *m, const cli_args *a)
{
    e2b_template_list *l;
    e2b_snap_record_list recs;
    char machine[E2B_MACHINE_ID_LEN + 1];
    int rc = templates_fetch(m, a, &l, &recs, machine);
    if (rc)
        return rc;
    time_t now = time(NULL);
    printf("%-28s %-28s %6s %-9s %s\n", "TEMPLATE", "ALIASES", "BUILDS", "LAST USED", "");
    for (size_t i = 0; i < l->count; i++)
        template_line(&l->items[i], template_mark(&l->items[i], &recs, machine), now);
    e2b_snap_record_list_clear(&recs);
    e2b_template_list_free(l);
    return 0;
}

static int templates_gc(e2b_live *m, const cli_args *a)
{
    char safe[1][400], when[32];
    e2b_template_list *l;
    e2b_snap_record_list recs;
    char machine[E2B_MACHINE_ID_LEN + 1];
    int rc = templates_fetch(m, a, &l, &recs, machine);
    if (rc)
        return rc;
    time_t now = time(NULL);
    long ttl = e2b_live_config(m)->template_ttl_s;
    size_t due = 0, deleted = 0, failed = 0;
    for (size_t i = 0; i < l->count; i++) {
        const e2b_template *t = &l->items[i];
        if (!e2b_template_gc_due(t, now, ttl, machine))
            continue;
        due++;
        age(e2b_template_last_used(t), now, when, sizeof when);
        if (a->dry_run) {
            printf("would delete %s (last used %s ago)\n", SAFE(0, t->template_id), when);
            continue;
        }
        int gone = 0;
        if (delete_template(m, t->template_id, &gone) == 0) {
            deleted++;
            printf("deleted %s (last used %s ago)\n", SAFE(0, t->template_id), when);
        } else {
            failed++;
        }
    }
    fprintf(stderr, "e2b-tui: %zu managed template%s of this machine unused for more than %ld h%s\n", due,
            due == 1 ? "" : "s",
            ttl / 3600, a->dry_run ? " (dry run: nothing deleted)" : "");
    (void)deleted;
    e2b_snap_record_list_clear(&recs);
    e2b_template_list_free(l);
    return failed ? 1 : 0;
}

/* ---- --snapshot and --fork ---- */

static void quiet_done(void *ud, e2b_box_op *op, const e2b_error *err)
{
    (void)ud, (void)op, (void)err;
}

static void quiet_progress(void *ud, const char *step, int64_t done, int64_t total)
{
    (void)done, (void)total;
    if (*(int *)ud)
        fprintf(stderr, "\r\033[K%s...", step);
}

static int run_op(e2b_live *m, const cli_args *a, int mode, int *tty)
{
    char safe[3][600];
    e2b_box_env env = {
        .loop = e2b_live_loop(m), .client = e2b_live_client(m), .cfg = e2b_live_config(m)};
    e2b_error *err = NULL;
    e2b_box_op *op;
    int rc = cli_open_keystore(m, a);
    if (rc && mode == CLI_FORK)
        return rc;
    env.ks = e2b_live_store(m);
    if (mode == CLI_SNAPSHOT) {
        op = e2b_box_snapshot(&env, a->name, a->snap_as, quiet_progress, quiet_done, tty, &err);
    } else {
        /* after_fork: where --prompt (the agents work) will hand each fork its prompt. */
        e2b_box_fork_params p = {.name = a->name, .count = a->count ? a->count : 1};
        op = e2b_box_fork(&env, &p, quiet_progress, quiet_done, tty, &err);
    }
    if (!op) {
        rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    err = e2b_box_op_wait(op);
    if (*tty)
        fputs("\r\033[K", stderr);
    const e2b_box_result *r = e2b_box_op_result(op);
    rc = err ? cli_fail(err) : 0;
    e2b_error_free(err);
    if (r->note)
        fprintf(stderr, "e2b-tui: %s\n", SAFE(0, r->note));
    if (!rc && mode == CLI_SNAPSHOT)
        printf("snapshot %s of box %s: %s\n", SAFE(0, r->name), SAFE(1, a->name), SAFE(2, r->snapshot_id));
    if (!rc && mode == CLI_FORK)
        for (size_t i = 0; i < r->nforks; i++)
            printf("forked box %s into %s\n", SAFE(0, a->name), SAFE(1, r->forks[i]));
    if (r->fork_failures) {
        char buf[2000];
        cli_clean(r->fork_failures, buf, sizeof buf);
        fprintf(stderr, "e2b-tui: %s\n", buf);
        if (!rc)
            rc = 1; /* some forks did not start: a script must notice */
    }
    e2b_box_op_free(op);
    return rc;
}

int cli_snap(e2b_live *m, const cli_args *a)
{
    int tty = isatty(STDERR_FILENO);
    if (e2b_live_config(m)->log_path && *e2b_live_config(m)->log_path) {
        e2b_log_set_max(e2b_live_config(m)->log_max);
        e2b_error_free(e2b_log_open(e2b_live_config(m)->log_path));
    }
    switch (a->mode) {
    case CLI_SNAPSHOT:
    case CLI_FORK: return run_op(m, a, a->mode, &tty);
    case CLI_SNAPSHOTS:
        return a->snap_delete ? snapshot_delete(m, a, a->snap_delete) : snapshots_list(m, a);
    case CLI_TEMPLATES: return templates_list(m, a);
    case CLI_GC_TEMPLATES: return templates_gc(m, a);
    default: return 1;
    }
}
