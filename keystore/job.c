/* Jobs: one keystore call on a worker thread, bounded by a hard deadline, so that the UI
 * loop never waits on the keyring. Each job has two threads: the worker runs the call, the
 * timer ends the job at the deadline if the worker has not. Whichever finishes first
 * publishes the result and calls wake; the other only drops its reference. */
#include "keystore/ks_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JOB_DEFAULT_TIMEOUT_MS 30000u

typedef enum { JOB_PUT, JOB_GET, JOB_DELETE, JOB_LIST, JOB_OPEN } job_kind;

struct ks_job {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* CLOCK_MONOTONIC; signalled when done */
    int refs;            /* caller + worker + timer */
    bool done, caller_gone;
    job_kind kind;
    keystore *ks;
    char *box, *sid, *password;
    /* JOB_OPEN: copies of the selection strings */
    char *sel_flag, *sel_env, *sel_config, *sel_file;
    unsigned sel_timeout_ms;
    unsigned timeout_ms;
    struct timespec deadline;
    ks_wake_fn wake;
    void *wake_ctx;
    /* result */
    ks_code rc;
    ks_error err;
    char *out_password;
    ks_entry *out_entries;
    size_t out_count;
    keystore *out_store;
    char *out_warning;
};

/* Threads still running, for keystore_jobs_drain(). */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t live_cond = PTHREAD_COND_INITIALIZER;
static int live_threads;

static void live_add(int n)
{
    pthread_mutex_lock(&live_lock);
    live_threads += n;
    if (live_threads == 0)
        pthread_cond_broadcast(&live_cond);
    pthread_mutex_unlock(&live_lock);
}

static void job_destroy(ks_job *j)
{
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->cond);
    ks_unref(j->ks);
    free(j->box);
    free(j->sid);
    keystore_password_free(j->password);
    keystore_password_free(j->out_password);
    ks_entries_free(j->out_entries, j->out_count);
    keystore_close(j->out_store);
    free(j->out_warning);
    free(j->sel_flag);
    free(j->sel_env);
    free(j->sel_config);
    free(j->sel_file);
    free(j);
}

/* Called with j->lock held; unlocks it (and frees the job on the last reference). */
static void unref_locked(ks_job *j)
{
    bool last = --j->refs == 0;
    pthread_mutex_unlock(&j->lock);
    if (last)
        job_destroy(j);
}

/* Publishes a result (with j->lock held) and wakes the caller. wake runs under the lock so
 * that keystore_job_free() can promise that it is not called afterwards. */
static void publish_locked(ks_job *j)
{
    j->done = true;
    pthread_cond_broadcast(&j->cond);
    if (j->wake && !j->caller_gone)
        j->wake(j->wake_ctx);
}

/* The job's deadline passed: one sentence whichever thread sees it first (the backend's
 * call is given the same time, so its own timeout races the timer's at the deadline). */
static ks_code job_timed_out(const ks_job *j, ks_error *err)
{
    return ks_fail(err, KS_ERR_TIMEOUT,
                   "the keystore (%s) did not answer within %.1f s; if an unlock prompt is "
                   "open, answer it and retry, or choose --keystore=file",
                   j->ks ? keystore_backend_name(j->ks) : "opening", j->timeout_ms / 1000.0);
}

static bool past_deadline(const ks_job *j)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > j->deadline.tv_sec ||
           (now.tv_sec == j->deadline.tv_sec && now.tv_nsec >= j->deadline.tv_nsec);
}

static void *worker_main(void *arg)
{
    ks_job *j = arg;
    ks_error err = {KS_OK, ""};
    char *pw = NULL;
    ks_entry *entries = NULL;
    size_t count = 0;
    keystore *store = NULL;
    char *warning = NULL;
    ks_code rc = KS_ERR_INVALID;
    ks_select sel = {j->sel_flag, j->sel_env, j->sel_config, j->sel_file, j->sel_timeout_ms};
    switch (j->kind) {
    case JOB_PUT:
        rc = ks_do_put(j->ks, j->box, j->sid, j->password, j->timeout_ms, &err);
        break;
    case JOB_GET:
        rc = ks_do_get(j->ks, j->box, j->sid, &pw, j->timeout_ms, &err);
        break;
    case JOB_DELETE:
        rc = ks_do_delete(j->ks, j->box, j->sid, j->timeout_ms, &err);
        break;
    case JOB_LIST:
        rc = ks_do_list(j->ks, &entries, &count, j->timeout_ms, &err);
        break;
    case JOB_OPEN:
        store = keystore_open_selected(&sel, &warning, &err);
        rc = store ? KS_OK : err.code;
        break;
    }
    pthread_mutex_lock(&j->lock);
    if (!j->done && rc == KS_ERR_TIMEOUT && past_deadline(j)) /* the timer's own case */
        rc = job_timed_out(j, &err);
    if (!j->done) {
        j->rc = rc;
        j->err = err;
        j->out_password = pw;
        j->out_entries = entries;
        j->out_count = count;
        j->out_store = store;
        j->out_warning = warning;
        publish_locked(j);
    } else { /* too late: the timer already reported a timeout */
        keystore_password_free(pw);
        ks_entries_free(entries, count);
        keystore_close(store);
        free(warning);
    }
    explicit_bzero(&err, sizeof err);
    unref_locked(j);
    live_add(-1);
    return NULL;
}

static void *timer_main(void *arg)
{
    ks_job *j = arg;
    pthread_mutex_lock(&j->lock);
    while (!j->done) {
        int r = pthread_cond_timedwait(&j->cond, &j->lock, &j->deadline);
        if (r == ETIMEDOUT && !j->done) {
            j->rc = job_timed_out(j, &j->err);
            publish_locked(j);
        }
    }
    unref_locked(j);
    live_add(-1);
    return NULL;
}

static ks_job *job_start(job_kind kind, keystore *ks, const ks_select *sel, const char *box,
                         const char *sid, const char *password, unsigned timeout_ms,
                         ks_wake_fn wake, void *wake_ctx, ks_error *err)
{
    if (!ks && kind != JOB_OPEN) {
        ks_fail(err, KS_ERR_INVALID, "no keystore is open");
        return NULL;
    }
    ks_job *j = calloc(1, sizeof *j);
    if (!j) {
        ks_fail(err, KS_ERR_NOMEM, "out of memory starting a keystore job");
        return NULL;
    }
    j->kind = kind;
    j->box = ks_strdup(box);
    j->sid = ks_strdup(sid);
    j->password = ks_strdup(password);
    bool sel_ok = true;
    if (sel) {
        j->sel_flag = ks_strdup(sel->flag);
        j->sel_env = ks_strdup(sel->env);
        j->sel_config = ks_strdup(sel->config);
        j->sel_file = ks_strdup(sel->file_path);
        /* The probe must not outlive the job. */
        j->sel_timeout_ms = sel->timeout_ms;
        sel_ok = (!sel->flag || j->sel_flag) && (!sel->env || j->sel_env) &&
                 (!sel->config || j->sel_config) && (!sel->file_path || j->sel_file);
    }
    if ((box && !j->box) || (sid && !j->sid) || (password && !j->password) || !sel_ok) {
        j->refs = 0;
        pthread_mutex_init(&j->lock, NULL);
        pthread_cond_init(&j->cond, NULL);
        job_destroy(j);
        ks_fail(err, KS_ERR_NOMEM, "out of memory starting a keystore job");
        return NULL;
    }
    if (ks)
        ks_ref(ks);
    j->ks = ks;
    j->timeout_ms = timeout_ms ? timeout_ms : JOB_DEFAULT_TIMEOUT_MS;
    if (sel && (!j->sel_timeout_ms || j->sel_timeout_ms > j->timeout_ms))
        j->sel_timeout_ms = j->timeout_ms;
    j->wake = wake;
    j->wake_ctx = wake_ctx;
    j->refs = 1;
    pthread_mutex_init(&j->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&j->cond, &ca);
    pthread_condattr_destroy(&ca);
    clock_gettime(CLOCK_MONOTONIC, &j->deadline);
    j->deadline.tv_sec += j->timeout_ms / 1000;
    j->deadline.tv_nsec += (long)(j->timeout_ms % 1000) * 1000000L;
    if (j->deadline.tv_nsec >= 1000000000L) {
        j->deadline.tv_sec++;
        j->deadline.tv_nsec -= 1000000000L;
    }

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    /* The timer first: once the worker runs, the deadline must already be watched. */
    pthread_mutex_lock(&j->lock);
    j->refs++;
    live_add(1);
    if (pthread_create(&t, &attr, timer_main, j) != 0) {
        j->refs--;
        live_add(-1);
        pthread_mutex_unlock(&j->lock);
        pthread_attr_destroy(&attr);
        job_destroy(j);
        ks_fail(err, KS_ERR_NOMEM, "cannot start a keystore thread");
        return NULL;
    }
    j->refs++;
    live_add(1);
    if (pthread_create(&t, &attr, worker_main, j) != 0) {
        j->refs--;
        live_add(-1);
        j->rc = ks_fail(&j->err, KS_ERR_NOMEM, "cannot start a keystore thread");
        j->caller_gone = true; /* no wake for a job the caller never gets */
        publish_locked(j);
        pthread_mutex_unlock(&j->lock);
        pthread_attr_destroy(&attr);
        keystore_job_free(j);
        ks_fail(err, KS_ERR_NOMEM, "cannot start a keystore thread");
        return NULL;
    }
    pthread_mutex_unlock(&j->lock);
    pthread_attr_destroy(&attr);
    ks_ok(err);
    return j;
}

ks_job *keystore_job_open(const ks_select *sel, unsigned timeout_ms, ks_wake_fn wake,
                          void *wake_ctx, ks_error *err)
{
    ks_select none = {0};
    return job_start(JOB_OPEN, NULL, sel ? sel : &none, NULL, NULL, NULL, timeout_ms, wake,
                     wake_ctx, err);
}

ks_job *keystore_job_put(keystore *ks, const char *box, const char *sandbox_id,
                         const char *password, unsigned timeout_ms, ks_wake_fn wake, void *wake_ctx,
                         ks_error *err)
{
    return job_start(JOB_PUT, ks, NULL, box, sandbox_id, password, timeout_ms, wake, wake_ctx, err);
}

ks_job *keystore_job_get(keystore *ks, const char *box, const char *sandbox_id, unsigned timeout_ms,
                         ks_wake_fn wake, void *wake_ctx, ks_error *err)
{
    return job_start(JOB_GET, ks, NULL, box, sandbox_id, NULL, timeout_ms, wake, wake_ctx, err);
}

ks_job *keystore_job_delete(keystore *ks, const char *box, const char *sandbox_id,
                            unsigned timeout_ms, ks_wake_fn wake, void *wake_ctx, ks_error *err)
{
    return job_start(JOB_DELETE, ks, NULL, box, sandbox_id, NULL, timeout_ms, wake, wake_ctx, err);
}

ks_job *keystore_job_list(keystore *ks, unsigned timeout_ms, ks_wake_fn wake, void *wake_ctx,
                          ks_error *err)
{
    return job_start(JOB_LIST, ks, NULL, NULL, NULL, NULL, timeout_ms, wake, wake_ctx, err);
}

bool keystore_job_done(ks_job *j)
{
    pthread_mutex_lock(&j->lock);
    bool d = j->done;
    pthread_mutex_unlock(&j->lock);
    return d;
}

void keystore_job_wait(ks_job *j)
{
    pthread_mutex_lock(&j->lock);
    while (!j->done)
        pthread_cond_wait(&j->cond, &j->lock);
    pthread_mutex_unlock(&j->lock);
}

ks_code keystore_job_result(ks_job *j, ks_error *err, char **password, ks_entry **entries,
                            size_t *count)
{
    if (password)
        *password = NULL;
    if (entries)
        *entries = NULL;
    if (count)
        *count = 0;
    pthread_mutex_lock(&j->lock);
    if (!j->done) {
        pthread_mutex_unlock(&j->lock);
        return ks_fail(err, KS_ERR_INVALID, "the keystore job has not finished yet");
    }
    ks_code rc = j->rc;
    if (err)
        *err = j->err;
    if (password) {
        *password = j->out_password;
        j->out_password = NULL;
    }
    if (entries && count) {
        *entries = j->out_entries;
        *count = j->out_count;
        j->out_entries = NULL;
        j->out_count = 0;
    }
    pthread_mutex_unlock(&j->lock);
    return rc;
}

void keystore_job_free(ks_job *j)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->lock);
    j->caller_gone = true;
    if (!j->done) {
        /* Let the timer thread end now rather than at the deadline. */
        j->done = true;
        j->rc = KS_ERR_CANCELLED;
        pthread_cond_broadcast(&j->cond);
    }
    unref_locked(j);
}

bool keystore_jobs_drain(unsigned timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&live_lock);
    while (live_threads > 0)
        if (pthread_cond_timedwait(&live_cond, &live_lock, &until) == ETIMEDOUT)
            break;
    bool idle = live_threads == 0;
    pthread_mutex_unlock(&live_lock);
    return idle;
}

keystore *keystore_job_take_store(ks_job *j, char **warning)
{
    if (warning)
        *warning = NULL;
    pthread_mutex_lock(&j->lock);
    keystore *ks = NULL;
    if (j->done) {
        ks = j->out_store;
        j->out_store = NULL;
        if (warning) {
            *warning = j->out_warning;
            j->out_warning = NULL;
        }
    }
    pthread_mutex_unlock(&j->lock);
    return ks;
}
