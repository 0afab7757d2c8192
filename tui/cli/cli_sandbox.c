/* One-shot modes on one box or sandbox named by a box name or a sandbox id: --stop and
 * --kill (a box is the model's operation by its name in cli_box.c, so its record and
 * password go too; any other sandbox the model's command by id), --resume and --extend (the
 * model's commands, with a box's own lifetime as the default). No curses here. */
#include "tui/cli/cli_internal.h"

#include "core/box/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What an operand names: a box (by its record or its metadata) or any sandbox by its id. */
typedef struct cli_target {
    const e2b_sandbox *sb; /* the model's; NULL for a box whose sandbox is gone */
    const char *box_name;  /* the box's name, or NULL for a sandbox that is not a box */
    int have_record;       /* a local record of that name: nothing was listed */
    char sandbox_id[128];  /* the sandbox (the record's, or sb's) */
    int hours;             /* the box's lifetime (record, metadata), else the configured one */
    char label[200];       /* "box NAME" or "sandbox ID", sanitised */
} cli_target;

/* Finds what arg names. Returns 0, or the exit code after telling why. A record of the name
 * comes first (a box name: no request), then the model's list (one request per page). */
static int find_target(e2b_live *m, const char *arg, cli_target *t)
{
    e2b_box_record rec = {0};
    e2b_error *err = e2b_box_record_read(e2b_live_config(m)->records_dir, arg, &rec);
    int have_record = err == NULL;
    e2b_error_free(err);
    if (have_record) {
        t->have_record = 1;
        t->box_name = arg;
        snprintf(t->sandbox_id, sizeof t->sandbox_id, "%s", rec.sandbox_id);
        t->hours = rec.hours ? rec.hours : e2b_live_config(m)->hours;
        char safe[160];
        cli_clean(arg, safe, sizeof safe);
        snprintf(t->label, sizeof t->label, "box %s", safe);
        e2b_box_record_clear(&rec);
        return 0;
    }
    e2b_box_record_clear(&rec);
    /* The model's list of every sandbox, then its look-up: a sandbox id, else the boxes the
     * name answers to by the one rule (core/box/box.h: a fork is its record's NAME-N), else
     * a sandbox by the name shown; several are a conflict naming them all. */
    e2b_live_end end;
    e2b_live_show_all(m, true);
    e2b_live_then(m, &end);
    e2b_live_refresh_now(m); /* the list show_all started, or a new one */
    e2b_wait(e2b_live_loop(m), &end.done);
    if ((err = end.err) == NULL)
        t->sb = e2b_live_lookup(m, arg, &err);
    if (err) {
        char safe[160];
        cli_clean(arg, safe, sizeof safe);
        int rc = 3;
        if (err->kind == E2B_ERR_NOT_FOUND && !end.err)
            fprintf(stderr, "e2b-tui: no box or sandbox named %s (e2b-tui --list shows them)\n",
                    safe);
        else
            rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    char safe[160];
    t->box_name = t->sb->kind == E2B_KIND_BOX && t->sb->box_name && *t->sb->box_name
                      ? t->sb->box_name : NULL;
    snprintf(t->sandbox_id, sizeof t->sandbox_id, "%s", t->sb->sandbox_id);
    t->hours = e2b_box_hours(t->sb, e2b_live_config(m));
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

int cli_api_fail(const e2b_error *err, const char *verb, const char *label)
{
    e2b_error *e = e2b_error_copy(err);
    e2b_error_set_action(e, "%s %s", verb, label);
    int rc = cli_fail(e);
    e2b_error_free(e);
    return rc;
}

/* stop and kill of a sandbox that is not a box: the model's command, its end, a printer. */
static int plain_stop_kill(e2b_live *m, const cli_args *a, const cli_target *t)
{
    int stop = a->mode == CLI_STOP;
    e2b_live_end end;
    e2b_live_then(m, &end);
    if (stop)
        e2b_live_stop(m, t->sandbox_id);
    else
        e2b_live_kill(m, t->sandbox_id);
    e2b_wait(e2b_live_loop(m), &end.done); /* filled at once when it could not start */
    if (end.err && stop && end.err->kind == E2B_ERR_CONFLICT) {
        fprintf(stderr, "e2b-tui: %s was already paused\n", t->label);
        e2b_error_free(end.err);
        return 0;
    }
    if (end.err) {
        int rc = cli_api_fail(end.err, stop ? "pausing" : "killing", t->label);
        e2b_error_free(end.err);
        return rc;
    }
    printf("%s %s\n", stop ? "paused" : "killed", t->label);
    return 0;
}

/* resume and extend (a box or any sandbox): the model's command with the box's own lifetime
 * unless --hours, its end, a printer. */
static int resume_extend(e2b_live *m, const cli_args *a, const cli_target *t)
{
    int resume = a->mode == CLI_RESUME;
    int hours = a->hours ? a->hours : t->hours;
    e2b_live_end end;
    e2b_live_then(m, &end);
    if (resume)
        e2b_live_resume(m, t->sandbox_id, hours);
    else
        e2b_live_extend(m, t->sandbox_id, hours);
    e2b_wait(e2b_live_loop(m), &end.done);
    if (end.err) {
        int rc = cli_api_fail(end.err, resume ? "resuming" : "extending", t->label);
        e2b_error_free(end.err);
        return rc;
    }
    if (resume && end.status != 201)
        printf("%s was already running; it now ends in %d hour%s at the earliest\n", t->label,
               hours, hours == 1 ? "" : "s");
    else
        printf("%s %s; it now ends in %d hour%s\n", t->label, resume ? "resumed" : "extended",
               hours, hours == 1 ? "" : "s");
    return 0;
}

int cli_sandbox(e2b_live *m, const cli_args *a)
{
    cli_target t = {0};
    int rc = find_target(m, a->name, &t);
    if (rc == 0) {
        if (a->mode == CLI_RESUME || a->mode == CLI_EXTEND)
            rc = resume_extend(m, a, &t);
        else if (a->mode == CLI_NETWORK)
            rc = cli_network(m, a, &t);
        else if (t.box_name) /* by its record's name, or the sandbox chosen by its id */
            rc = cli_box(m, a, t.have_record ? NULL : &t);
        else
            rc = plain_stop_kill(m, a, &t);
    }
    return rc;
}
