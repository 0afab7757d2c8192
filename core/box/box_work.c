/* Blocking local work of a box op on a worker thread (box_internal.h: box_op_work). */
#include "core/box/box_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

struct box_work {
    e2b_box_op *op;
    box_work_fn fn;
    void *arg;
    box_work_then then;
    e2b_error *err; /* fn's result, handed to then */
    pthread_t thread;
    atomic_int cancel;
};

static void work_on_loop(void *ud)
{
    struct box_work *w = ud;
    e2b_box_op *op = w->op;
    pthread_join(w->thread, NULL); /* it ended right after posting this */
    op->work = NULL;
    op->pending--;
    box_work_then then = w->then;
    e2b_error *err = w->err;
    free(w);
    then(op, err);
}

static void *work_main(void *ud)
{
    struct box_work *w = ud;
    w->err = w->fn(w->arg, &w->cancel);
    /* The only way back is the loop; a post fails only when memory runs out, so it is
     * tried again (off the UI thread, so waiting here costs the dashboard nothing). */
    while (e2b_loop_post(w->op->env.loop, work_on_loop, w) < 0)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    return NULL;
}

int box_op_work(e2b_box_op *op, box_work_fn fn, void *arg, box_work_then then)
{
    struct box_work *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    w->op = op;
    w->fn = fn;
    w->arg = arg;
    w->then = then;
    atomic_init(&w->cancel, op->cancelled);
    op->work = w;
    op->pending++;
    if (pthread_create(&w->thread, NULL, work_main, w) != 0) {
        op->work = NULL;
        op->pending--;
        free(w);
        return -1;
    }
    return 0;
}

void box_op_work_cancel(e2b_box_op *op)
{
    if (op->work)
        atomic_store(&op->work->cancel, 1);
}

int box_op_work_cancelled(const e2b_box_op *op)
{
    return op->work && atomic_load(&op->work->cancel);
}
