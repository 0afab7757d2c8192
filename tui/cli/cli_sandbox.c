/* One-shot modes on one box or sandbox named by a box name or a sandbox id: --stop and
 * --kill (a box goes through its step machine in cli_box.c, so its record and password go
 * too; any other sandbox through the API), --resume and --extend (the API, with a box's own
 * lifetime as the default). No curses here. */
#include "tui/cli/cli_internal.h"

#include "core/box/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What an operand names: a box (by its record or its metadata) or any sandbox by its id. */
typedef struct cli_target {
    e2b_sandbox_list list; /* every sandbox (owned) */
    const e2b_sandbox *sb; /* borrowed from list; NULL for a box whose sandbox is gone */
    const char *box_name;  /* the box's name, or NULL for a sandbox that is not a box */
    int have_record;       /* a local record of that name: nothing was listed */
    char sandbox_id[128];  /* the sandbox (the record's, or sb's) */
    int hours;             /* the box's lifetime (record, metadata), else the configured one */
    char label[200];       /* "box NAME" or "sandbox ID", sanitised */
} cli_target;

static void target_clear(cli_target *t)
{
    e2b_sandbox_list_clear(&t->list);
}

/* Finds what arg names. Returns 0, or the exit code after telling why. A record of the name
 * comes first (a box name: no request), then a sandbox id, then a box made elsewhere by its
 * name (one list). */
static int find_target(cli_ctx *c, const char *arg, cli_target *t)
{
    e2b_box_record rec = {0};
    e2b_error *err = e2b_box_record_read(c->cfg->records_dir, arg, &rec);
    int have_record = err == NULL;
    e2b_error_free(err);
    if (have_record) {
        t->have_record = 1;
        t->box_name = arg;
        snprintf(t->sandbox_id, sizeof t->sandbox_id, "%s", rec.sandbox_id);
        t->hours = rec.hours ? rec.hours : c->cfg->hours;
        char safe[160];
        cli_clean(arg, safe, sizeof safe);
        snprintf(t->label, sizeof t->label, "box %s", safe);
        e2b_box_record_clear(&rec);
        return 0;
    }
    cli_call k = {0};
    e2b_error *start_err = NULL;
    e2b_list_query q = {.workspace_keys = c->cfg->workspace_keys};
    const e2b_api_call *call = e2b_api_list(c->client, &q, cli_on_list, &k, &start_err);
    if ((err = cli_await(c, call, start_err, &k))) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        e2b_sandbox_list_free(k.result);
        e2b_box_record_clear(&rec);
        return rc;
    }
    if (k.result) {
        t->list = *(e2b_sandbox_list *)k.result;
        free(k.result);
    }
    /* A sandbox id, else the boxes the name answers to by the one rule (core/box/box.h:
     * a fork is its record's NAME-N): one, or a conflict naming them all. */
    e2b_box_record_list recs = {0};
    if ((err = e2b_box_record_list_read(c->cfg->records_dir, &recs, NULL)) == NULL &&
        e2b_box_identify(&recs, &t->list, c->cfg->workspace_keys) < 0)
        err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; !err && i < t->list.count && !t->sb; i++)
        if (strcmp(t->list.items[i].sandbox_id, arg) == 0)
            t->sb = &t->list.items[i];
    if (!err && !t->sb) {
        e2b_box_match bm;
        e2b_box_lookup(&recs, &t->list, arg, &bm);
        t->sb = bm.count == 1 ? bm.sandbox : NULL;
        err = bm.count > 1 ? e2b_box_match_error(&bm, arg) : NULL;
    }
    e2b_box_record_list_clear(&recs);
    char safe[160];
    cli_clean(arg, safe, sizeof safe);
    if (err) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    if (!t->sb) {
        fprintf(stderr, "e2b-tui: no box or sandbox named %s (e2b-tui --list shows them)\n",
                safe);
        return 3;
    }
    t->box_name = t->sb->kind == E2B_KIND_BOX && t->sb->box_name && *t->sb->box_name
                      ? t->sb->box_name : NULL;
    snprintf(t->sandbox_id, sizeof t->sandbox_id, "%s", t->sb->sandbox_id);
    t->hours = e2b_box_hours(t->sb, c->cfg);
    cli_clean(t->box_name ? t->box_name : t->sb->sandbox_id, safe, sizeof safe);
    snprintf(t->label, sizeof t->label, "%s %s", t->box_name ? "box" : "sandbox", safe);
    return 0;
}

const char *cli_target_sandbox(const cli_target *t)
{
    return t->sandbox_id[0] ? t->sandbox_id : NULL;
}
const char *cli_target_box(const cli_target *t)
{
    return t->box_name;
}

static int api_fail(const e2b_error *err, const char *verb, const char *label)
{
    e2b_error *e = e2b_error_copy(err);
    e2b_error_set_action(e, "%s %s", verb, label);
    int rc = cli_fail(e);
    e2b_error_free(e);
    return rc;
}

/* stop and kill of a sandbox that is not a box. */
static int plain_stop_kill(cli_ctx *c, const cli_target *t)
{
    int stop = c->args->mode == CLI_STOP;
    cli_call k = {0};
    e2b_error *start_err = NULL, *err;
    const e2b_api_call *call =
        stop ? e2b_api_pause(c->client, t->sandbox_id, cli_on_status, &k, &start_err)
             : e2b_api_kill(c->client, t->sandbox_id, cli_on_status, &k, &start_err);
    err = cli_await(c, call, start_err, &k);
    if (err && stop && err->kind == E2B_ERR_CONFLICT) {
        fprintf(stderr, "e2b-tui: %s was already paused\n", t->label);
        e2b_error_free(err);
        return 0;
    }
    if (err) {
        int rc = api_fail(err, stop ? "pausing" : "killing", t->label);
        e2b_error_free(err);
        return rc;
    }
    printf("%s %s\n", stop ? "paused" : "killed", t->label);
    return 0;
}

static int resume_extend(cli_ctx *c, const cli_target *t)
{
    int resume = c->args->mode == CLI_RESUME;
    int hours = c->args->hours ? c->args->hours : t->hours;
    cli_call k = {0};
    e2b_error *start_err = NULL, *err;
    const e2b_api_call *call =
        resume ? e2b_api_connect(c->client, t->sandbox_id, (long)hours * 3600,
                                 cli_on_sandbox, &k, &start_err)
               : e2b_api_set_timeout(c->client, t->sandbox_id, (long)hours * 3600,
                                     cli_on_status, &k, &start_err);
    err = cli_await(c, call, start_err, &k);
    e2b_sandbox_free(k.result);
    if (err) {
        int rc = api_fail(err, resume ? "resuming" : "extending", t->label);
        e2b_error_free(err);
        return rc;
    }
    if (resume && k.status != 201)
        printf("%s was already running; it now ends in %d hour%s at the earliest\n", t->label,
               hours, hours == 1 ? "" : "s");
    else
        printf("%s %s; it now ends in %d hour%s\n", t->label, resume ? "resumed" : "extended",
               hours, hours == 1 ? "" : "s");
    return 0;
}

int cli_sandbox(cli_ctx *c)
{
    cli_target t = {0};
    int rc = find_target(c, c->args->name, &t);
    if (rc == 0) {
        if (c->args->mode == CLI_RESUME || c->args->mode == CLI_EXTEND)
            rc = resume_extend(c, &t);
        else if (t.box_name) /* by its record's name, or the sandbox chosen by its id */
            rc = cli_box(c, t.have_record ? NULL : &t);
        else
            rc = plain_stop_kill(c, &t);
    }
    target_clear(&t);
    return rc;
}
