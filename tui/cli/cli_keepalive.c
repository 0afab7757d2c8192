/* --keepalive: the dashboard's model without a screen (core/live/live_idle.h): the boxes
 * are listed and their agents watched as in the dashboard, and a box idle for idle_minutes
 * with nothing pending is paused; what it does is told on stderr, one line each, until
 * SIGINT, SIGTERM or SIGHUP (exit 0). For a server or a tmux window. */
#include "tui/cli/cli_internal.h"

#include "core/box/records.h"
#include "core/live/live_idle.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

int cli_keepalive(e2b_live *m, const cli_args *a);

/* Whether a budget may need watching: the config's, or one of this machine's records'. */
static bool any_budget(const e2b_config *cfg)
{
    if (cfg->budget_usd > 0)
        return true;
    e2b_box_record_list recs = {0};
    e2b_error *e = e2b_box_record_list_read(cfg->records_dir, &recs, NULL);
    bool any = false;
    for (size_t i = 0; !e && i < recs.count; i++)
        any |= recs.items[i].budget_usd > 0;
    e2b_error_free(e);
    e2b_box_record_list_clear(&recs);
    return any;
}

static void on_signal(void *ud, int fd, unsigned revents)
{
    struct signalfd_siginfo si;
    (void)revents;
    if (read(fd, &si, sizeof si) == (ssize_t)sizeof si)
        *(int *)ud = 1;
}

/* The model's notices, on stderr with the time (each is sanitised by the model). */
static void on_change(void *ud, unsigned what)
{
    e2b_live *m = ud;
    if (!(what & E2B_LIVE_NOTICE))
        return;
    enum e2b_live_level level;
    const char *text = e2b_live_notice(m, &level);
    if (level == E2B_LIVE_CHANGE)
        return; /* the refresh's "x: running -> paused": the pause's own line says it */
    char when[16];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof when, "%H:%M:%S", localtime_r(&now, &tm));
    fprintf(stderr, "%s %s%s\n", when, level == E2B_LIVE_ERROR ? "error: " : "", text);
}

int cli_keepalive(e2b_live *m, const cli_args *a)
{
    const e2b_config *cfg = e2b_live_config(m);
    bool budgets = any_budget(cfg);
    if (cfg->idle_ms <= 0 && !budgets) {
        fputs("e2b-tui: --keepalive has nothing to do: idle_minutes is 0 (never pause) and no "
              "box has a budget\n", stderr);
        return 2;
    }
    if (!e2b_live_client(m)) {
        fputs("e2b-tui: --keepalive needs E2B_API_KEY\n", stderr);
        return 4;
    }
    int rc = cli_open_keystore(m, a); /* the agents' watches read the boxes' passwords */
    if (rc)
        return rc;
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigprocmask(SIG_BLOCK, &stop, &old);
    int sfd = signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK), done = 0;
    if (sfd < 0 || e2b_live_subscribe(m, E2B_LIVE_NOTICE, on_change, m) != 0 ||
        e2b_loop_watch_fd(e2b_live_loop(m), sfd, E2B_LOOP_IN, on_signal, &done) != 0) {
        perror("e2b-tui: --keepalive");
        if (sfd >= 0)
            close(sfd);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return 1;
    }
    if (cfg->idle_ms > 0)
        fprintf(stderr, "e2b-tui: keeping watch: a box idle for %g min with nothing pending is "
                        "paused (idle_minutes)%s; Ctrl-C ends\n", cfg->idle_ms / 60000.0,
                budgets ? ", a box at its budget too" : "");
    else
        fputs("e2b-tui: keeping watch: a box at its budget is interrupted and paused "
              "(idle_minutes is 0: no idle pause); Ctrl-C ends\n", stderr);
    e2b_live_keepalive(m);
    e2b_wait(e2b_live_loop(m), &done);
    e2b_loop_unwatch_fd(e2b_live_loop(m), sfd);
    e2b_live_unsubscribe(m, on_change, m);
    close(sfd);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return 0;
}
