/* The project probe: is a directory in a git project, where is its work tree, and what
 * would a box from it be called by default? The dashboard's up form asks it while the
 * user types (the real default name, a non-git directory told before anything starts).
 * libgit2 reads the disk, so the look runs on a thread of its own and its answer comes
 * back on the loop (a slot that cannot fail). */
#include "core/live/live_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/git/gitwork.h"

struct live_probe {
    e2b_live *m;
    pthread_t thread;
    char dir[4096];
    e2b_live_project result;
    e2b_live_project_fn fn; /* NULL once cancelled */
    void *ud;
    void (*ud_free)(void *ud);
    e2b_loop_slot slot;
    struct live_probe *next;
};

static void unlink_probe(e2b_live *m, struct live_probe *p)
{
    for (struct live_probe **pp = &m->probes; *pp; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            return;
        }
    }
}

static void probe_done(void *arg)
{
    struct live_probe *p = arg;
    pthread_join(p->thread, NULL); /* it ended right after posting this */
    unlink_probe(p->m, p);
    if (p->fn && !p->m->closing)
        p->fn(p->ud, &p->result); /* fn owns ud now */
    else if (p->ud_free)
        p->ud_free(p->ud);
    free(p);
}

static void *probe_main(void *arg)
{
    struct live_probe *p = arg;
    e2b_live_project *r = &p->result;
    e2b_gitwork *g = NULL;
    e2b_gitwork_head head;
    e2b_error *err = e2b_gitwork_open(&g, p->dir, 0);
    if (!err)
        err = e2b_gitwork_head_info(g, &head);
    if (err) {
        snprintf(r->why, sizeof r->why, "%s", e2b_error_message(err));
    } else {
        r->ok = true;
        snprintf(r->workdir, sizeof r->workdir, "%s", e2b_gitwork_workdir(g));
        e2b_gitwork_default_box_name(&head, r->default_name, sizeof r->default_name);
    }
    e2b_error_free(err);
    e2b_gitwork_close(g);
    e2b_loop_post_slot(p->m->loop, &p->slot, probe_done, p);
    return NULL;
}

int e2b_live_project_probe(e2b_live *m, const char *dir, e2b_live_project_fn fn, void *ud,
                           void (*ud_free)(void *ud))
{
    struct live_probe *p = m->loop && !m->closing ? calloc(1, sizeof *p) : NULL;
    if (!p)
        goto fail;
    p->m = m;
    snprintf(p->dir, sizeof p->dir, "%s", dir && *dir ? dir : ".");
    p->fn = fn;
    p->ud = ud;
    p->ud_free = ud_free;
    if (pthread_create(&p->thread, NULL, probe_main, p) != 0) {
        free(p);
        goto fail;
    }
    p->next = m->probes;
    m->probes = p;
    return 0;
fail:
    if (ud_free)
        ud_free(ud);
    return -1;
}

void e2b_live_project_probe_cancel(e2b_live *m, void *ud)
{
    for (struct live_probe *p = m ? m->probes : NULL; p; p = p->next) {
        if (p->fn && p->ud == ud) {
            p->fn = NULL;
            if (p->ud_free)
                p->ud_free(p->ud);
            p->ud_free = NULL;
            p->ud = NULL;
        }
    }
}

void live_probes_join(e2b_live *m)
{
    for (struct live_probe *p = m->probes; p; p = p->next)
        pthread_join(p->thread, NULL);
}

void live_probes_free(e2b_live *m)
{
    /* The threads were joined before the loop went (live_probes_join); their posts were
     * dropped with it. */
    while (m->probes) {
        struct live_probe *p = m->probes;
        m->probes = p->next;
        if (p->ud_free)
            p->ud_free(p->ud);
        free(p);
    }
}
