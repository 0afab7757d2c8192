/* Late orphans (orphans.h): sweeps of the journal of creates in doubt. */
#include "core/box/orphans.h"

#include "core/box/records.h"
#include "core/util/log.h"
#include "keystore/keystore.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sweep sweep;

struct e2b_orphans {
    e2b_box_env env;
    long delay_ms;
    e2b_orphans_notice_fn notice;
    void *ud;
    sweep *sweeps; /* waiting or running */
    int detached;  /* 1: e2b_orphans_free is stopping the sweeps; 2: it returned, the last
                      sweep to end frees the object */
};

struct sweep {
    e2b_orphans *o;
    sweep *next;
    e2b_up_journal_entry e;
    time_t failed_at;      /* when the create failed (or, after a crash, at the latest) */
    uint64_t timer;
    e2b_api_call *call;
    ks_job *job;
    atomic_int posted;     /* the job's wake posted job_back to the loop */
    int opening;           /* job opens a store (then deletes the password with it) */
    keystore *own_ks;      /* a store this sweep opened (when env.ks is NULL) */
    e2b_sandbox_list found;
    size_t next_found;
    int unsure;            /* a list or a kill failed: keep the entry */
    int killed;
    int real;              /* what it found is a box with a record: its up did finish */
};

static void sweep_step(sweep *s);

static void unlink_sweep(sweep *s)
{
    for (sweep **p = &s->o->sweeps; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            return;
        }
}

static void maybe_free_owner(e2b_orphans *o)
{
    if (o->detached == 2 && !o->sweeps)
        free(o);
}

/* The end of a sweep: the entry goes when the sweep is sure, else it stays for later. */
static void sweep_end(sweep *s)
{
    e2b_orphans *o = s->o;
    const e2b_config *cfg = o->env.cfg;
    int settled = s->killed || s->real || time(NULL) >= s->failed_at + cfg->orphan_sweep_delay_s;
    if (!o->detached && !s->unsure && settled)
        e2b_up_journal_remove(cfg->state_dir, &s->e);
    else
        e2b_up_journal_release(&s->e);
    e2b_sandbox_list_clear(&s->found);
    if (s->own_ks)
        keystore_close(s->own_ks);
    unlink_sweep(s);
    free(s);
    maybe_free_owner(o);
}

/* Tells the user (and the log) what a sweep did: done, or the sandbox it could not remove. */
static void tell(sweep *s, const char *done, const e2b_error *failed)
{
    e2b_logf("orphans: %s", done ? done : e2b_error_message(failed));
    if (s->o->notice && !s->o->detached)
        s->o->notice(s->o->ud, done, failed);
}

static const e2b_sandbox *current(sweep *s)
{
    return &s->found.items[s->next_found - 1];
}

static void job_wake(void *ctx) /* worker thread, job locked */;
static void delete_password(sweep *s);

static void job_back(void *ud)
{
    sweep *s = ud;
    ks_error kerr = {0};
    int opened = 0;
    if (s->job) { /* NULL when e2b_orphans_free let go of it */
        if (s->opening) {
            char *warning = NULL;
            s->own_ks = keystore_job_take_store(s->job, &warning);
            free(warning); /* the dashboard says it when a box operation opens the store */
            opened = s->own_ks != NULL;
        } else {
            keystore_job_result(s->job, &kerr, NULL, NULL, NULL);
        }
        keystore_job_free(s->job);
        s->job = NULL;
    }
    s->opening = 0;
    atomic_store(&s->posted, 0);
    if (s->o->detached) {
        sweep_end(s);
        return;
    }
    if (opened) {
        delete_password(s);
        return;
    }
    sweep_step(s);
}

static void job_wake(void *ctx) /* worker thread, job locked */
{
    sweep *s = ctx;
    atomic_store(&s->posted, 1);
    if (e2b_loop_post(s->o->env.loop, job_back, s) < 0)
        atomic_store(&s->posted, 0); /* lost (out of memory): the sweep ends at free */
}

/* The killed sandbox's password (stored before the upload) is of no use without the box.
 * Without a store of its own (the dashboard opens one only for a box operation) the sweep
 * opens the configured one. */
static void delete_password(sweep *s)
{
    const e2b_sandbox *sb = current(s);
    keystore *ks = s->o->env.ks ? s->o->env.ks : s->own_ks;
    ks_error kerr = {0};
    if (ks) {
        s->job = keystore_job_delete(ks, s->e.name, sb->sandbox_id, 0, job_wake, s, &kerr);
    } else if (!s->opening) {
        ks_select sel = e2b_keystore_choice(NULL, s->o->env.cfg);
        s->job = keystore_job_open(&sel, 0, job_wake, s, &kerr);
        s->opening = s->job != NULL;
    }
    if (!s->job)
        sweep_step(s);
}

static void killed(void *ud, long status, const e2b_error *err)
{
    sweep *s = ud;
    const e2b_sandbox *sb = current(s);
    (void)status;
    s->call = NULL;
    if (s->o->detached) {
        s->unsure = 1;
        sweep_end(s);
        return;
    }
    if (err && err->kind != E2B_ERR_NOT_FOUND) {
        s->unsure = 1;
        e2b_error *failed = e2b_error_copy(err);
        e2b_error_set_action(failed,
                             "removing sandbox %s (an up of box %s made it, then failed or was "
                             "interrupted; it has no record, e2b-tui --list shows it)",
                             sb->sandbox_id, s->e.name);
        tell(s, NULL, failed);
        e2b_error_free(failed);
        sweep_step(s);
        return;
    }
    s->killed = 1;
    char done[600];
    snprintf(done, sizeof done,
             "removed sandbox %s: an up of box %s made it, then failed or was interrupted before "
             "writing its record",
             sb->sandbox_id, s->e.name);
    tell(s, done, NULL);
    if (s->e.name[0])
        delete_password(s);
    else
        sweep_step(s);
}

/* Kills the next sandbox found that no record names. */
static void sweep_step(sweep *s)
{
    e2b_orphans *o = s->o;
    e2b_box_record_list records = {0};
    int have_records = 0;
    while (s->next_found < s->found.count) {
        const e2b_sandbox *sb = &s->found.items[s->next_found++];
        if (!have_records) {
            e2b_error *rerr = e2b_box_record_list_read(o->env.cfg->records_dir, &records, NULL);
            if (rerr) { /* cannot tell a real box from an orphan: touch nothing */
                e2b_logf("orphans: %s", e2b_error_message(rerr));
                e2b_error_free(rerr);
                s->unsure = 1;
                break;
            }
            have_records = 1;
        }
        if (e2b_box_record_list_find_sandbox(&records, sb->sandbox_id)) {
            s->real = 1; /* the up did finish: a real box */
            continue;
        }
        e2b_error *err = NULL;
        s->call = e2b_api_kill(o->env.client, sb->sandbox_id, killed, s, &err);
        if (s->call) {
            e2b_box_record_list_clear(&records);
            return;
        }
        s->unsure = 1;
        e2b_error_free(err);
    }
    e2b_box_record_list_clear(&records);
    sweep_end(s);
}

static void listed(void *ud, e2b_sandbox_list *list, const e2b_error *err)
{
    sweep *s = ud;
    s->call = NULL;
    if (err || !list || s->o->detached) {
        if (err && err->kind != E2B_ERR_CANCELLED)
            e2b_logf("orphans: looking for the sandbox of box %s: %s", s->e.name,
                     e2b_error_message(err));
        e2b_sandbox_list_free(list);
        s->unsure = 1;
        sweep_end(s);
        return;
    }
    s->found = *list;
    free(list);
    s->next_found = 0;
    sweep_step(s);
}

static void sweep_start(void *ud)
{
    sweep *s = ud;
    e2b_orphans *o = s->o;
    e2b_error *err = NULL;
    e2b_metadata md = {0};
    s->timer = 0;
    e2b_metadata_set(&md, E2B_META_UP, s->e.tag);
    e2b_list_query q = {.metadata = &md, .workspace_keys = o->env.cfg->workspace_keys};
    s->call = e2b_api_list(o->env.client, &q, listed, s, &err);
    e2b_metadata_clear(&md);
    if (!s->call) {
        e2b_error_free(err);
        s->unsure = 1;
        sweep_end(s);
    }
}

static sweep *sweep_new(e2b_orphans *o, e2b_up_journal_entry *e, time_t failed_at, long delay_ms)
{
    sweep *s = calloc(1, sizeof *s);
    if (!s) {
        e2b_up_journal_release(e);
        return NULL;
    }
    s->o = o;
    s->e = *e;
    e->fd = -1;
    s->failed_at = failed_at;
    s->next = o->sweeps;
    o->sweeps = s;
    /* From the loop, so that notice never runs inside the caller's call. */
    s->timer = e2b_loop_timer_add(o->env.loop, delay_ms, sweep_start, s);
    if (!s->timer) {
        s->unsure = 1;
        sweep_end(s);
        return NULL;
    }
    return s;
}

e2b_orphans *e2b_orphans_new(const e2b_box_env *env, long delay_ms, e2b_orphans_notice_fn notice,
                             void *ud)
{
    e2b_orphans *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->env = *env;
    o->env.orphans = NULL;
    o->delay_ms = delay_ms;
    o->notice = notice;
    o->ud = ud;
    return o;
}

void e2b_orphans_sweep_journal(e2b_orphans *o)
{
    e2b_up_journal_entry *entries = NULL;
    if (!o)
        return;
    long n = e2b_up_journal_claim(o->env.cfg->state_dir, &entries);
    for (long i = 0; i < n; i++) /* a crashed up failed at the latest when its create timed out */
        sweep_new(o, &entries[i], entries[i].sent_at + o->env.cfg->http_timeout_s, 0);
    e2b_up_journal_claims_free(entries, n > 0 ? (size_t)n : 0);
}

void e2b_orphans_sweep_later(e2b_orphans *o, e2b_up_journal_entry *e)
{
    if (!o || o->detached) {
        e2b_up_journal_release(e); /* the next start sweeps it */
        return;
    }
    sweep_new(o, e, time(NULL), o->delay_ms);
}

int e2b_orphans_busy(const e2b_orphans *o)
{
    return o && o->sweeps;
}

long e2b_orphans_delay_ms(const e2b_orphans *o)
{
    return o ? o->delay_ms : 0;
}

void e2b_orphans_free(e2b_orphans *o)
{
    if (!o)
        return;
    o->detached = 1;
    for (sweep *s = o->sweeps, *next; s; s = next) {
        next = s->next;
        if (s->timer) {
            e2b_loop_timer_cancel(o->env.loop, s->timer);
            s->timer = 0;
            s->unsure = 1;
            sweep_end(s);
        } else if (s->call) {
            e2b_api_cancel(s->call); /* its callback ends the sweep */
        } else if (s->job) {
            keystore_job_free(s->job); /* wake is not called after this */
            s->job = NULL;
            if (!atomic_load(&s->posted)) /* else job_back runs and ends it */
                sweep_end(s);
        }
    }
    o->detached = 2;
    if (!o->sweeps)
        free(o);
}
