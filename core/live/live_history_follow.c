/* The History view's follower (live.h "e2b_live_history_follow"): a thread of its own reads
 * history.log.1 and history.log (the newest E2B_LIVE_HISTORY_CAP entries), then sleeps in
 * poll(2) on inotify, woken only when history.log is written or a new one takes its place
 * (a rotation, another process's first line), and reads what is new: from where it stopped,
 * or the whole again after a rotation or a truncation. Each new list goes to the loop thread
 * through a slot that cannot fail; the UI thread never reads the file.
 *
 * One follower struct per model, made on first use and kept until the model goes, so a
 * slot still queued when the view closed finds it alive; a generation tells a stopped
 * follow's last list from the current one's. */
#include "core/live/live_internal.h"

#include "core/util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/inotify.h>
#include <unistd.h>

struct live_history_follow {
    e2b_live *m;
    pthread_t thread;
    bool running;   /* the thread runs (joined by stop) */
    int wake[2];    /* stop: a byte down this pipe wakes the thread */
    atomic_int stop;
    unsigned gen;   /* this follow's (a new follow adds one) */
    char box[128];  /* "" = every box */
    bool all;
    char path[4096], old_path[4096], dir[4096];

    /* the thread's newest list, handed over under mu */
    pthread_mutex_t mu;
    e2b_live_history pending;
    size_t pending_dropped;
    char pending_why[300];
    unsigned pending_gen;
    bool pending_set;
    e2b_loop_slot slot;

    /* the loop thread's (e2b_live_history_followed) */
    bool following; /* a follow is on (between follow and unfollow) */
    bool loading;
    e2b_live_history shown;
    size_t dropped;
    char why[300];
};

static void on_list(void *arg);

/* ---- the thread ---- */

static void publish(struct live_history_follow *f, const live_history_ring *r, const char *why)
{
    e2b_live_history copy;
    live_history_ring_order(r, &copy);
    pthread_mutex_lock(&f->mu);
    e2b_live_history_clear(&f->pending);
    f->pending = copy;
    f->pending_dropped = r->dropped;
    snprintf(f->pending_why, sizeof f->pending_why, "%s", why ? why : "");
    f->pending_gen = f->gen;
    f->pending_set = true;
    pthread_mutex_unlock(&f->mu);
    e2b_loop_post_slot(f->m->loop, &f->slot, on_list, f);
}

/* Everything again: the old file, then the current one from its start. */
static e2b_error *read_all(struct live_history_follow *f, live_history_ring *r, long *pos,
                           ino_t *ino)
{
    live_history_ring_clear(r);
    const char *box = f->all ? NULL : f->box;
    e2b_error *err = live_history_read_file(f->old_path, box, r, NULL, &f->stop);
    struct stat st;
    *ino = stat(f->path, &st) == 0 ? st.st_ino : 0;
    *pos = 0;
    if (!err)
        err = live_history_read_file(f->path, box, r, pos, &f->stop);
    return err;
}

static void *follow_main(void *arg)
{
    struct live_history_follow *f = arg;
    live_history_ring r = {.max = E2B_LIVE_HISTORY_CAP};
    long pos = 0;
    ino_t ino = 0;
    char why[300] = "";
    int in = -1, file_wd = -1;
    e2b_mkdir_private(f->dir); /* so its folder can be watched before the first line */
    in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (in >= 0 && inotify_add_watch(in, f->dir, IN_CREATE | IN_MOVED_TO) < 0) {
        close(in);
        in = -1;
    }
    if (in < 0)
        snprintf(why, sizeof why, "new lines are not followed (inotify: %s): reopen the view",
                 strerror(errno));
    else
        file_wd = inotify_add_watch(in, f->path, IN_MODIFY); /* none yet: the folder's tells */
    e2b_error *err = read_all(f, &r, &pos, &ino);
    publish(f, &r, err ? e2b_error_message(err) : why);
    e2b_error_free(err);
    while (in >= 0 && !atomic_load(&f->stop)) {
        struct pollfd p[2] = {{.fd = in, .events = POLLIN}, {.fd = f->wake[0], .events = POLLIN}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (atomic_load(&f->stop) || (p[1].revents & POLLIN))
            break;
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        bool renewed = false;
        ssize_t n;
        while ((n = read(in, buf, sizeof buf)) > 0) { /* drained: one read for all of them */
            for (char *q = buf; q < buf + n;) {
                const struct inotify_event *ev = (const struct inotify_event *)q;
                if (ev->wd != file_wd && ev->len && !strcmp(ev->name, "history.log"))
                    renewed = true;
                q += sizeof *ev + ev->len;
            }
        }
        if (renewed) { /* a new history.log: watch it instead of the old one */
            if (file_wd >= 0)
                inotify_rm_watch(in, file_wd);
            file_wd = inotify_add_watch(in, f->path, IN_MODIFY);
        }
        struct stat st;
        bool same = stat(f->path, &st) == 0 && st.st_ino == ino && st.st_size >= pos;
        long was = pos;
        size_t count = r.h.count, dropped = r.dropped;
        err = same ? live_history_read_file(f->path, f->all ? NULL : f->box, &r, &pos, &f->stop)
                   : read_all(f, &r, &pos, &ino);
        if (err || !same || pos != was || r.h.count != count || r.dropped != dropped)
            publish(f, &r, err ? e2b_error_message(err) : why);
        e2b_error_free(err);
    }
    if (in >= 0)
        close(in);
    live_history_ring_clear(&r);
    return NULL;
}

/* ---- the loop thread ---- */

static void on_list(void *arg)
{
    struct live_history_follow *f = arg;
    pthread_mutex_lock(&f->mu);
    bool take = f->pending_set && f->pending_gen == f->gen && f->following;
    if (take) {
        e2b_live_history_clear(&f->shown);
        f->shown = f->pending;
        memset(&f->pending, 0, sizeof f->pending);
        f->dropped = f->pending_dropped;
        snprintf(f->why, sizeof f->why, "%s", f->pending_why);
        f->loading = false;
    }
    f->pending_set = false;
    pthread_mutex_unlock(&f->mu);
    if (take && !f->m->closing)
        live_notify(f->m, E2B_LIVE_HISTORY);
}

static void stop_thread(struct live_history_follow *f)
{
    if (!f || !f->running)
        return;
    atomic_store(&f->stop, 1);
    ssize_t w = write(f->wake[1], "x", 1);
    (void)w;
    pthread_join(f->thread, NULL); /* it reads at most one more line */
    f->running = false;
    close(f->wake[0]);
    close(f->wake[1]);
    f->wake[0] = f->wake[1] = -1;
}

static void set_why(struct live_history_follow *f, const char *why)
{
    f->loading = false;
    snprintf(f->why, sizeof f->why, "%s", why);
    live_notify(f->m, E2B_LIVE_HISTORY);
}

int e2b_live_history_follow(e2b_live *m, const char *box)
{
    struct live_history_follow *f = m->history_follow;
    if (!f && m->loop && !m->closing && (f = calloc(1, sizeof *f))) {
        f->m = m;
        f->wake[0] = f->wake[1] = -1;
        pthread_mutex_init(&f->mu, NULL);
        m->history_follow = f;
    }
    if (!f)
        return -1;
    stop_thread(f);
    f->gen++;
    f->following = true;
    f->loading = true;
    f->dropped = 0;
    f->why[0] = '\0';
    e2b_live_history_clear(&f->shown);
    f->all = !box || !*box;
    snprintf(f->box, sizeof f->box, "%s", f->all ? "" : box);
    if (live_history_path(&m->cfg, false, f->path, sizeof f->path) < 0 ||
        live_history_path(&m->cfg, true, f->old_path, sizeof f->old_path) < 0) {
        set_why(f, "no state folder: there is no history");
        return -1;
    }
    snprintf(f->dir, sizeof f->dir, "%s", m->cfg.state_dir);
    atomic_store(&f->stop, 0);
    if (pipe2(f->wake, O_CLOEXEC) < 0) {
        set_why(f, "the history cannot be read: no pipe");
        return -1;
    }
    if (pthread_create(&f->thread, NULL, follow_main, f) != 0) {
        close(f->wake[0]);
        close(f->wake[1]);
        f->wake[0] = f->wake[1] = -1;
        set_why(f, "the history cannot be read: no thread");
        return -1;
    }
    f->running = true;
    return 0;
}

void e2b_live_history_unfollow(e2b_live *m)
{
    struct live_history_follow *f = m->history_follow;
    if (!f)
        return;
    stop_thread(f);
    f->following = false;
    f->gen++;
    e2b_live_history_clear(&f->shown);
}

const e2b_live_history *e2b_live_history_followed(const e2b_live *m, size_t *dropped,
                                                  bool *loading, const char **why)
{
    const struct live_history_follow *f = m->history_follow;
    bool on = f && f->following;
    if (dropped)
        *dropped = on ? f->dropped : 0;
    if (loading)
        *loading = on && f->loading;
    if (why)
        *why = on && f->why[0] ? f->why : NULL;
    return on ? &f->shown : NULL;
}

void live_history_follow_stop(e2b_live *m)
{
    stop_thread(m->history_follow);
}

void live_history_follow_free(e2b_live *m)
{
    struct live_history_follow *f = m->history_follow;
    if (!f)
        return;
    stop_thread(f);
    e2b_live_history_clear(&f->shown);
    e2b_live_history_clear(&f->pending);
    pthread_mutex_destroy(&f->mu);
    free(f);
    m->history_follow = NULL;
}
