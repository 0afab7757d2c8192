/* One-shot snapshot and template modes: --snapshot, --snapshots [--delete], --fork, --templates,
 * --gc-templates [--dry-run], and the snapshot behind --up --from. Their options are parsed
 * here (cli_snap_option) so that main.c only hands them on. */
#include "tui/cli/cli_internal.h"

#include "core/util/str.h"
#include "core/box/box.h"
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
        if (cli_set_mode(a, CLI_SNAPSHOT, f) < 0)
            return -1;
        return (a->name = value_of(argc, argv, i, "a box name")) ? 1 : -1;
    }
    if (strcmp(f, "--as") == 0)
        return (a->snap_as = value_of(argc, argv, i, "a snapshot name")) ? 1 : -1;
    if (strcmp(f, "--snapshots") == 0)
        return cli_set_mode(a, CLI_SNAPSHOTS, f) < 0 ? -1 : 1;
    if (strcmp(f, "--delete") == 0)
        return (a->snap_delete = value_of(argc, argv, i, "a snapshot name")) ? 1 : -1;
    if (strcmp(f, "--from") == 0)
        return (a->from_snapshot = value_of(argc, argv, i, "a snapshot name")) ? 1 : -1;
    if (strcmp(f, "--no-prepared") == 0)
        return a->up_prepare = E2B_BOX_PREPARE_NONE, 1;
    if (strcmp(f, "--prepare") == 0) { /* an up that makes only the prepared snapshot */
        a->up_prepare = E2B_BOX_PREPARE_ONLY;
        return cli_set_mode(a, CLI_UP, f) < 0 ? -1 : 1;
    }
    if (strcmp(f, "--fork") == 0) {
        if (cli_set_mode(a, CLI_FORK, f) < 0)
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
        return cli_set_mode(a, CLI_TEMPLATES, f) < 0 ? -1 : 1;
    if (strcmp(f, "--gc-templates") == 0)
        return cli_set_mode(a, CLI_GC_TEMPLATES, f) < 0 ? -1 : 1;
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
                      : a->up_prepare == E2B_BOX_PREPARE_NONE && a->mode != CLI_UP ? "--no-prepared"
                      : a->up_prepare == E2B_BOX_PREPARE_ONLY &&
                              (a->from_snapshot || a->attach_after_up || a->prompt_text ||
                               a->prompt_file || a->name || a->try_count)
                          ? "--prepare"
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

/* The model's delete of template id (with this machine's snapshot record of it); *gone: E2B
 * had it no more. Returns 0 or the exit status (told). */
static int delete_template(e2b_live *m, const char *id, int *gone)
{
    e2b_live_end end;
    e2b_live_then(m, &end);
    e2b_live_template_delete(m, id); /* one that cannot start fills end at once */
    e2b_wait(e2b_live_loop(m), &end.done);
    *gone = end.err && end.err->kind == E2B_ERR_NOT_FOUND;
    int rc = end.err && !*gone ? cli_fail(end.err) : 0;
    e2b_error_free(end.err);
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
    int gone = 0, rc = delete_template(m, id, &gone); /* the record goes with it */
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

/* The model's list of the templates (its rows: this machine's snapshots joined). Returns 0
 * or the exit status (told). */
static int templates_fetch(e2b_live *m)
{
    e2b_live_end end;
    e2b_live_then(m, &end);
    e2b_live_templates_refresh(m);
    e2b_wait(e2b_live_loop(m), &end.done);
    int rc = end.err ? cli_fail(end.err) : 0;
    e2b_error_free(end.err);
    return rc;
}

/* The row's kind in the words of --templates. */
static const char *template_mark(const e2b_live_template_row *t)
{
    if (!strcmp(t->kind, "snapshot"))
        return "e2b-tui snapshot";
    if (t->other_machine)
        return "managed, another machine's";
    return t->kind;
}

static void template_line(const e2b_live_template_row *t, time_t now)
{
    char safe[2][400], when[32];
    age(t->last_used, now, when, sizeof when);
    printf("%-28s %-28s %6ld %-9s %s\n", SAFE(0, t->id), SAFE(1, t->aliases), t->builds, when,
           template_mark(t));
}

static int templates_list(e2b_live *m)
{
    int rc = templates_fetch(m);
    if (rc)
        return rc;
    time_t now = time(NULL);
    e2b_live_template_row t;
    printf("%-28s %-28s %6s %-9s %s\n", "TEMPLATE", "ALIASES", "BUILDS", "LAST USED", "");
    for (size_t i = 0; e2b_live_template_get(m, i, &t); i++)
        template_line(&t, now);
    return 0;
}

/* The GC of the model's rows: each one due deleted in turn (its line says so). */
static int templates_gc(e2b_live *m, const cli_args *a)
{
    char safe[1][400], when[32];
    int rc = templates_fetch(m);
    if (rc)
        return rc;
    time_t now = time(NULL);
    long ttl = e2b_live_config(m)->template_ttl_s;
    size_t due = 0, failed = 0, n = e2b_live_template_count(m);
    char **ids = n ? calloc(n, sizeof *ids) : NULL;
    long *used = n ? calloc(n, sizeof *used) : NULL;
    char (*why)[96] = n ? calloc(n, sizeof *why) : NULL; /* a superseded prepared snapshot's name */
    size_t prepared = 0;
    e2b_live_template_row t;
    /* the rows go when a delete ends: what is due is copied first */
    for (size_t i = 0; ids && used && why && e2b_live_template_get(m, i, &t); i++) {
        if (!t.gc_due)
            continue;
        used[due] = (long)t.last_used;
        if (t.superseded)
            snprintf(why[due], sizeof why[due], "%s", t.name);
        prepared += t.superseded;
        if (!(ids[due] = strdup(t.id)))
            break;
        due++;
    }
    if (n && (!ids || !used || !why))
        fputs("e2b-tui: out of memory\n", stderr), failed++;
    for (size_t i = 0; i < due; i++) {
        age((time_t)used[i], now, when, sizeof when);
        char what[160];
        if (why[i][0])
            snprintf(what, sizeof what, "prepared snapshot %s: a newer one of its project replaces it",
                     why[i]);
        else
            snprintf(what, sizeof what, "last used %s ago", when);
        int gone = 0;
        if (a->dry_run)
            printf("would delete %s (%s)\n", SAFE(0, ids[i]), what);
        else if (delete_template(m, ids[i], &gone) == 0)
            printf("deleted %s (%s)\n", SAFE(0, ids[i]), what);
        else
            failed++;
        free(ids[i]);
    }
    free(ids);
    free(used);
    free(why);
    char old[64] = "";
    if (prepared)
        snprintf(old, sizeof old, ", %zu old prepared snapshot%s", prepared, prepared == 1 ? "" : "s");
    fprintf(stderr, "e2b-tui: %zu managed template%s of this machine unused for more than %ld h%s%s\n",
            due - prepared, due - prepared == 1 ? "" : "s", ttl / 3600, old,
            a->dry_run ? " (dry run: nothing deleted)" : "");
    return failed ? 1 : 0;
}

/* ---- --snapshot and --fork ---- */

/* The model's snapshot or fork of the box by its name, then a printer. */
static int run_op(e2b_live *m, const cli_args *a, int mode)
{
    char safe[3][600];
    int rc = cli_open_keystore(m, a);
    if (rc && mode == CLI_FORK)
        return rc;
    e2b_live_op_params p = {.kind = mode == CLI_SNAPSHOT ? E2B_LIVE_OP_SNAPSHOT : E2B_LIVE_OP_FORK,
                            .name = a->name, .as = a->snap_as, .count = a->count};
    rc = 0;
    e2b_box_op *op = cli_op_run(m, &p, &rc);
    if (!op)
        return rc;
    const e2b_box_result *r = e2b_box_op_result(op);
    cli_op_note(r);
    if (mode == CLI_SNAPSHOT)
        printf("snapshot %s of box %s: %s\n", SAFE(0, r->name), SAFE(1, a->name), SAFE(2, r->snapshot_id));
    else
        for (size_t i = 0; i < r->nforks; i++)
            printf("forked box %s into %s\n", SAFE(0, a->name), SAFE(1, r->forks[i]));
    if (r->fork_failures) {
        char buf[2000];
        cli_clean(r->fork_failures, buf, sizeof buf);
        fprintf(stderr, "e2b-tui: %s\n", buf);
        rc = 1; /* some forks did not start: a script must notice */
    }
    e2b_box_op_free(op);
    return rc;
}

int cli_snap(e2b_live *m, const cli_args *a)
{
    if (e2b_live_config(m)->log_path && *e2b_live_config(m)->log_path) {
        e2b_log_set_max(e2b_live_config(m)->log_max);
        e2b_error_free(e2b_log_open(e2b_live_config(m)->log_path));
    }
    switch (a->mode) {
    case CLI_SNAPSHOT:
    case CLI_FORK: return run_op(m, a, a->mode);
    case CLI_SNAPSHOTS:
        return a->snap_delete ? snapshot_delete(m, a, a->snap_delete) : snapshots_list(m, a);
    case CLI_TEMPLATES: return templates_list(m);
    case CLI_GC_TEMPLATES: return templates_gc(m, a);
    default: return 1;
    }
}
