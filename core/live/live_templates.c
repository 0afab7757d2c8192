/* The team's templates and this machine's snapshots, for the dashboard's Templates pane
 * (live.h): GET /templates joined with the snapshot records (core/box/snap_records.h),
 * deletes, and the GC of the OpenCode plugin's managed templates this machine made
 * (template_ttl; core/util/machine_id.h). */
#include "core/live/live_internal.h"

#include "core/box/snap_records.h"
#include "core/e2b/api_templates.h"
#include "core/util/machine_id.h"
#include "core/util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tpl_row {
    char *id, *name, *aliases, *kind, *source;
    long builds;
    time_t last_used;
    bool gc_due;
    bool other_machine; /* a managed template another machine made (the GC keeps it) */
    bool superseded;    /* a prepared snapshot with a newer one of its project */
};

struct live_templates {
    e2b_api_call *call;
    char machine[E2B_MACHINE_ID_LEN + 1]; /* this machine's id ("" until read) */
    bool loading;
    e2b_live_end *end; /* the list's waiter (e2b_live_then), or NULL */
    struct tpl_row *rows;
    size_t nrows;
    unsigned deletes; /* in flight */
};

static struct live_templates *state(e2b_live *m)
{
    if (!m->tpl)
        m->tpl = calloc(1, sizeof *m->tpl);
    return m->tpl;
}

static void rows_clear(struct live_templates *t)
{
    for (size_t i = 0; i < t->nrows; i++) {
        free(t->rows[i].id);
        free(t->rows[i].name);
        free(t->rows[i].aliases);
        free(t->rows[i].kind);
        free(t->rows[i].source);
    }
    free(t->rows);
    t->rows = NULL;
    t->nrows = 0;
}

void live_templates_free(e2b_live *m)
{
    if (!m->tpl)
        return;
    rows_clear(m->tpl);
    free(m->tpl);
    m->tpl = NULL;
}

static void build_rows(e2b_live *m, struct live_templates *t, const e2b_template_list *l)
{
    e2b_snap_record_list recs = {0};
    e2b_error *err = e2b_snap_record_list_read(m->cfg.state_dir, &recs);
    e2b_error_free(err);
    rows_clear(t);
    t->rows = calloc(l->count + 1, sizeof *t->rows);
    if (!t->rows) {
        e2b_snap_record_list_clear(&recs);
        return;
    }
    if (!t->machine[0]) {
        e2b_error *merr = e2b_machine_id(m->cfg.state_dir, t->machine);
        if (merr)
            live_notice(m, E2B_LIVE_ERROR, "templates: %s (the GC deletes nothing)", e2b_error_message(merr));
        e2b_error_free(merr);
    }
    time_t now = time(NULL);
    for (size_t i = 0; i < l->count; i++) {
        const e2b_template *tp = &l->items[i];
        const e2b_snap_record *r = e2b_snap_record_of_template(&recs, tp);
        char aliases[300] = "";
        for (size_t k = 0; k < tp->naliases; k++) {
            size_t used = strlen(aliases);
            snprintf(aliases + used, sizeof aliases - used, "%s%s", k ? "," : "", tp->aliases[k]);
        }
        bool ours = e2b_snap_template_is_ours(&recs, tp);
        struct tpl_row *row = &t->rows[t->nrows];
        row->id = strdup(tp->template_id);
        row->name = strdup(r ? r->name : aliases[0] ? aliases : "-");
        row->aliases = strdup(aliases[0] ? aliases : "-");
        bool managed = !ours && e2b_template_is_managed(tp);
        bool here = managed && e2b_template_made_here(tp, t->machine);
        char project[64] = "";
        if (managed)
            e2b_template_project(tp, project, sizeof project);
        row->kind = strdup(ours         ? "snapshot"
                           : here       ? "managed"
                           : managed    ? "another machine's"
                           : tp->is_public ? "public"
                                           : "");
        row->other_machine = managed && !here;
        row->source = strdup(r ? r->box : project);
        row->builds = tp->build_count;
        row->last_used = e2b_template_last_used(tp);
        row->superseded = r && e2b_snap_record_superseded(&recs, r);
        row->gc_due = row->superseded || e2b_template_gc_due(tp, now, m->cfg.template_ttl_s, t->machine);
        if (row->id && row->name && row->aliases && row->kind && row->source)
            t->nrows++;
        else
            free(row->id), free(row->name), free(row->aliases), free(row->kind),
                free(row->source);
    }
    e2b_snap_record_list_clear(&recs);
}

static void on_listed(void *ud, e2b_template_list *l, const e2b_error *err)
{
    e2b_live *m = ud;
    if (m->closing) {
        e2b_template_list_free(l);
        return;
    }
    struct live_templates *t = m->tpl;
    t->call = NULL;
    t->loading = false;
    if (err)
        live_notice(m, E2B_LIVE_ERROR, "%s", e2b_error_message(err));
    else
        build_rows(m, t, l);
    e2b_template_list_free(l);
    live_end(t->end, err, 0);
    t->end = NULL;
    live_notify(m, E2B_LIVE_TEMPLATES);
}

void e2b_live_templates_refresh(e2b_live *m)
{
    struct live_templates *t = state(m);
    e2b_live_end *end = live_then_take(m);
    if (t && t->call && end && !t->end) /* the list on its way is the one it waits for */
        t->end = end;
    if (!t || t->call) {
        if (!t)
            live_end_fail(end, E2B_ERR_INTERNAL, "out of memory");
        return;
    }
    if (!m->client) {
        live_notice(m, E2B_LIVE_ERROR, "templates: no API key (set E2B_API_KEY)");
        live_end_fail(end, E2B_ERR_AUTH, "templates: no API key (set E2B_API_KEY)");
        return;
    }
    e2b_error *err = NULL;
    t->call = e2b_api_templates_list(m->client, on_listed, m, &err);
    if (!t->call) {
        live_notice(m, E2B_LIVE_ERROR, "%s", err ? e2b_error_message(err) : "templates: out of memory");
        if (err)
            live_end(end, err, 0);
        else
            live_end_fail(end, E2B_ERR_INTERNAL, "out of memory");
        e2b_error_free(err);
        return;
    }
    t->end = end;
    t->loading = true;
    live_notify(m, E2B_LIVE_TEMPLATES);
}

bool e2b_live_templates_loading(const e2b_live *m)
{
    return m->tpl && m->tpl->loading;
}

size_t e2b_live_template_count(const e2b_live *m)
{
    return m->tpl ? m->tpl->nrows : 0;
}

bool e2b_live_template_get(const e2b_live *m, size_t i, e2b_live_template_row *out)
{
    if (!m->tpl || i >= m->tpl->nrows)
        return false;
    const struct tpl_row *r = &m->tpl->rows[i];
    *out = (e2b_live_template_row){.id = r->id, .name = r->name, .aliases = r->aliases,
                                   .kind = r->kind, .source = r->source,
                                   .builds = r->builds, .last_used = r->last_used, .gc_due = r->gc_due,
                                   .other_machine = r->other_machine,
                                   .superseded = r->superseded};
    return true;
}

struct del {
    e2b_live *m;
    char *id;
    char *record; /* the snapshot record to remove with it, or NULL */
    e2b_live_end *end; /* its waiter (e2b_live_then), or NULL */
};

static void on_deleted(void *ud, long status, const e2b_error *err)
{
    struct del *d = ud;
    e2b_live *m = d->m;
    if (!m->closing) {
        m->tpl->deletes--;
        bool gone = err && err->kind == E2B_ERR_NOT_FOUND;
        e2b_error *rerr = NULL;
        if (err && !gone) {
            live_notice(m, E2B_LIVE_ERROR, "%s", e2b_error_message(err));
        } else {
            if (d->record)
                rerr = e2b_snap_record_remove(m->cfg.state_dir, d->record);
            live_notice(m, E2B_LIVE_INFO, "deleted %s%s", d->id, gone ? " (E2B had it no more)" : "");
        }
        /* gone: the waiter hears E2B's 404 (the record, if any, went all the same) */
        live_end(d->end, rerr ? rerr : err, status);
        e2b_error_free(rerr);
        if (!m->tpl->deletes && !m->is_headless)
            e2b_live_templates_refresh(m);
    }
    free(d->id);
    free(d->record);
    free(d);
}

int e2b_live_template_delete(e2b_live *m, const char *id)
{
    struct live_templates *t = state(m);
    e2b_live_end *end = live_then_take(m);
    if (!t || !m->client) {
        live_end_fail(end, t ? E2B_ERR_AUTH : E2B_ERR_INTERNAL,
                      t ? "templates: no API key (set E2B_API_KEY)" : "out of memory");
        return -1;
    }
    struct del *d = calloc(1, sizeof *d);
    if (!d || !(d->id = strdup(id))) {
        free(d);
        live_end_fail(end, E2B_ERR_INTERNAL, "out of memory");
        return -1;
    }
    d->m = m;
    /* This machine's snapshot record of that template goes with it (read now: the rows
     * need not be listed). */
    e2b_snap_record_list recs = {0};
    e2b_error *err = e2b_snap_record_list_read(m->cfg.state_dir, &recs);
    const e2b_snap_record *r = err ? NULL : e2b_snap_record_list_find_id(&recs, id);
    if (r)
        d->record = strdup(r->name);
    /* E2B's id of a snapshot is not always the snapshotID its record keeps: the listed
     * row of that id (joined by id or alias) names the record. */
    for (size_t i = 0; !d->record && i < t->nrows; i++)
        if (strcmp(t->rows[i].id, id) == 0 && strcmp(t->rows[i].kind, "snapshot") == 0 &&
            e2b_snap_record_exists(m->cfg.state_dir, t->rows[i].name))
            d->record = strdup(t->rows[i].name);
    e2b_error_free(err);
    err = NULL;
    e2b_snap_record_list_clear(&recs);
    if (!e2b_api_template_delete(m->client, id, on_deleted, d, &err)) {
        live_notice(m, E2B_LIVE_ERROR, "%s", err ? e2b_error_message(err) : "delete: out of memory");
        if (err)
            live_end(end, err, 0);
        else
            live_end_fail(end, E2B_ERR_INTERNAL, "out of memory");
        e2b_error_free(err);
        free(d->id);
        free(d->record);
        free(d);
        return -1;
    }
    d->end = end;
    t->deletes++;
    return 0;
}

size_t e2b_live_templates_gc(e2b_live *m, bool dry_run)
{
    struct live_templates *t = state(m);
    size_t n = 0;
    for (size_t i = 0; t && i < t->nrows; i++) {
        if (!t->rows[i].gc_due)
            continue;
        n++;
        if (!dry_run)
            e2b_live_template_delete(m, t->rows[i].id);
    }
    return n;
}
