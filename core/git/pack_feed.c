/* The indexer's thread: a list of chunk copies under one mutex, two conditions. */
#include "core/git/pack_feed.h"

#include "core/git/gitwork.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
    struct chunk *next;
    size_t len;
    unsigned char data[];
} chunk;

struct pack_feed {
    git_indexer *idx;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t changed; /* a chunk queued or taken, the feed closed or failed */
    chunk *head, *tail;
    size_t queued;          /* bytes in the queue */
    int closed;             /* no more chunks will come */
    int failed;             /* the indexer refused a chunk: err says why */
    int idle, full;         /* the thread waits for a chunk; the writer waits for room */
    e2b_error *err;
    git_indexer_progress stats;
    atomic_int stop;
};

static void *feed_main(void *arg)
{
    pack_feed *f = arg;
    git_indexer_progress st = {0};
    pthread_mutex_lock(&f->mu);
    for (;;) {
        while (!f->head && !f->closed && !atomic_load(&f->stop)) {
            f->idle = 1;
            pthread_cond_wait(&f->changed, &f->mu);
        }
        f->idle = 0;
        chunk *c = f->head;
        if (!c || atomic_load(&f->stop))
            break;
        f->head = c->next;
        if (!f->head)
            f->tail = NULL;
        pthread_mutex_unlock(&f->mu);
        int rc = git_indexer_append(f->idx, c->data, c->len, &st);
        e2b_error *e = NULL;
        if (rc < 0) /* libgit2's error is this thread's: read it here */
            e = e2b_gitwork_git_error(E2B_SUB_BAD_BUNDLE, "bad pack in bundle");
        pthread_mutex_lock(&f->mu);
        f->queued -= c->len;
        free(c);
        f->stats = st;
        if (e) {
            f->failed = 1;
            f->err = e;
        }
        if (f->full || f->failed) /* a wake-up only when the writer waits: fewer switches */
            pthread_cond_broadcast(&f->changed);
        if (f->failed)
            break;
    }
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

pack_feed *pack_feed_start(git_indexer *idx, e2b_error **err)
{
    pack_feed *f = calloc(1, sizeof *f);
    if (!f) {
        *err = e2b_error_local(E2B_SUB_NOMEM, "out of memory");
        return NULL;
    }
    f->idx = idx;
    atomic_init(&f->stop, 0);
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->changed, NULL);
    if (pthread_create(&f->thread, NULL, feed_main, f) != 0) {
        pthread_cond_destroy(&f->changed);
        pthread_mutex_destroy(&f->mu);
        free(f);
        *err = e2b_error_local(E2B_SUB_FAILED, "cannot start a thread for the pack import");
        return NULL;
    }
    return f;
}

e2b_error *pack_feed_push(pack_feed *f, const void *p, size_t n)
{
    if (n == 0)
        return NULL;
    chunk *c = malloc(sizeof *c + n);
    if (!c)
        return e2b_error_local(E2B_SUB_NOMEM, "out of memory");
    c->next = NULL;
    c->len = n;
    memcpy(c->data, p, n);
    pthread_mutex_lock(&f->mu);
    while (!f->failed && f->queued > 0 && f->queued + n > PACK_FEED_QUEUE_BYTES) {
        f->full = 1;
        pthread_cond_wait(&f->changed, &f->mu);
    }
    f->full = 0;
    if (f->failed) { /* the indexer's error, copied for the caller */
        e2b_error *e = e2b_error_copy(f->err);
        pthread_mutex_unlock(&f->mu);
        free(c);
        return e;
    }
    if (f->tail)
        f->tail->next = c;
    else
        f->head = c;
    f->tail = c;
    f->queued += n;
    if (f->idle)
        pthread_cond_broadcast(&f->changed);
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

void pack_feed_stats(pack_feed *f, git_indexer_progress *out)
{
    pthread_mutex_lock(&f->mu);
    *out = f->stats;
    pthread_mutex_unlock(&f->mu);
}

int pack_feed_stopping(const pack_feed *f) { return atomic_load(&f->stop); }

/* Closes the queue, joins the thread and frees f; the indexer's error or NULL. */
static e2b_error *end(pack_feed *f, git_indexer_progress *stats)
{
    pthread_mutex_lock(&f->mu);
    f->closed = 1;
    pthread_cond_broadcast(&f->changed);
    pthread_mutex_unlock(&f->mu);
    pthread_join(f->thread, NULL);
    e2b_error *e = f->err; /* set only when the indexer failed */
    if (stats)
        *stats = f->stats;
    while (f->head) {
        chunk *c = f->head;
        f->head = c->next;
        free(c);
    }
    pthread_cond_destroy(&f->changed);
    pthread_mutex_destroy(&f->mu);
    free(f);
    return e;
}

e2b_error *pack_feed_finish(pack_feed *f, git_indexer_progress *stats)
{
    return end(f, stats);
}

void pack_feed_stop(pack_feed *f)
{
    if (!f)
        return;
    atomic_store(&f->stop, 1);
    e2b_error_free(end(f, NULL));
}
