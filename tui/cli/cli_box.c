/* One-shot box modes: --up, --attach, --tunnel, --stop, --kill, --pull, each the model's
 * operation on a box by its name (e2b_live_op_by_name, through cli_op_run: progress on
 * stderr when it is a terminal), then a printer of its result on stdout. */
#include "tui/cli/cli_internal.h"

#include "core/box/orphans.h"
#include "core/e2b/cost.h"
#include "core/util/log.h"
#include "core/util/str.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long health_timeout_ms(void)
{
    const char *v = getenv("E2B_TUI_HEALTH_TIMEOUT");
    long s = v && *v ? strtol(v, NULL, 10) : 0;
    return s > 0 ? s * 1000 : 0;
}

/* Runs the attach command, {url} being a loopback tunnel to the box's server, with the
 * password only in its environment; returns its exit status (128 + signal when it was
 * killed). The tunnel lives as long as the command. */
static int run_attach_command(const e2b_config *cfg, const e2b_box_result *r,
                              const char *session_id, bool asked)
{
    e2b_error *err = NULL;
    e2b_tunnel *tun = e2b_box_tunnel_open(r, &err);
    if (!tun) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    e2b_attach_cmd cmd;
    if ((err = e2b_box_attach_cmd(cfg, r, e2b_tunnel_url(tun), &cmd))) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        e2b_tunnel_close(tun);
        return rc;
    }
    /* the box's active session (or --session's), not the client's start screen */
    if (session_id && !e2b_box_attach_cmd_session(&cmd, session_id) && asked) {
        char safe[300];
        cli_clean(session_id, safe, sizeof safe);
        fprintf(stderr, "e2b-tui: the attach command takes no session (or '%s' is not a session "
                        "id): opening its start screen\n", safe);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("e2b-tui: fork");
        e2b_box_attach_cmd_free(&cmd);
        e2b_tunnel_close(tun);
        return 1;
    }
    if (pid == 0) {
        if (r->dir && *r->dir && chdir(r->dir) != 0) {
            /* the project may not exist here (another machine's box): stay where we are */
        }
        execvpe(cmd.argv[0], cmd.argv, cmd.env);
        static const char msg[] = "e2b-tui: cannot run the attach command\n";
        if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
        }
        _exit(127);
    }
    e2b_box_attach_cmd_free(&cmd);
    /* The child owns the terminal now: ^C goes to it, not to us. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    e2b_tunnel_close(tun);
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

/* Whether the current directory is dir or inside it (both resolved). */
static int cwd_inside(const char *dir)
{
    char *cwd = realpath(".", NULL), *d = realpath(dir, NULL);
    size_t n = d ? strlen(d) : 0;
    int in = cwd && d && strncmp(cwd, d, n) == 0 && (cwd[n] == '\0' || cwd[n] == '/');
    free(cwd);
    free(d);
    return in;
}

/* --tunnel NAME: keeps a tunnel to the box's server open for any client until SIGINT,
 * SIGTERM or SIGHUP, and prints its URL on stdout (one line). */
static int run_tunnel(const e2b_box_result *r)
{
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    /* Blocked before the tunnel's threads start, so that they inherit it and the signal
     * comes to sigwait here. */
    pthread_sigmask(SIG_BLOCK, &stop, &old);
    e2b_error *err = NULL;
    e2b_tunnel *tun = e2b_box_tunnel_open(r, &err);
    if (!tun) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    printf("%s\n", e2b_tunnel_url(tun));
    fflush(stdout);
    if (isatty(STDERR_FILENO))
        fprintf(stderr,
                "e2b-tui: box %s is at %s (user opencode, the box's password); Ctrl-C ends "
                "the tunnel\n",
                r->name ? r->name : "", e2b_tunnel_url(tun));
    int sig = 0;
    sigwait(&stop, &sig);
    e2b_tunnel_close(tun);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return 0;
}

/* The result's texts came (partly) from the network: printed only through cli_clean. */
static const char *safe_name(const e2b_box_result *r)
{
    static char buf[300];
    cli_clean(r->name ? r->name : "", buf, sizeof buf);
    return buf;
}
#define SAFE_NAME(r) safe_name(r)
#define SAFE(i, text) (cli_clean((text), safe[i], sizeof safe[i]), safe[i])

/* Prints what the ended operation did (r: its result). */
/* The budget the new box has (its own, else the config's), and who watches it. */
static void print_budget(const e2b_config *cfg, const cli_args *a, const e2b_box_result *r)
{
    double usd = a->budget_usd > 0 ? a->budget_usd : cfg->budget_usd;
    if (usd <= 0)
        return;
    char f[24], safe[600];
    e2b_cost_format(usd, f, sizeof f);
    cli_clean(r->name ? r->name : "", safe, sizeof safe);
    fprintf(stderr, "e2b-tui: box %s has a budget of %s (agent + sandbox): a running dashboard "
                    "or e2b-tui --keepalive interrupts and pauses it there; while neither runs "
                    "the budget is not watched\n", safe, f);
}

static void print_result(const cli_args *a, const e2b_box_result *r)
{
    char safe[3][600];
    cli_op_note(r);
    switch (a->mode) {
    case CLI_UP:
        if (r->prepared_as) { /* --prepare */
            printf("prepared snapshot %s of %s: %s\n", SAFE(0, r->prepared_as), SAFE(1, r->dir),
                   SAFE(2, r->snapshot_id));
            break;
        }
        printf("box %s is up: sandbox %s, server %s\n", SAFE(0, r->name), SAFE(1, r->sandbox_id),
               SAFE(2, r->url));
        fprintf(stderr, "e2b-tui: uploaded %llu files (%llu bytes, %llu sent)\n",
                    (unsigned long long)r->files, (unsigned long long)r->bytes_in,
                    (unsigned long long)r->bytes_sent);
        break;
    case CLI_STOP:
        if (!r->note)
            printf("paused box %s\n", SAFE(0, r->name));
        break;
    case CLI_KILL: printf("killed box %s\n", SAFE(0, r->name)); break;
    case CLI_REMAKE:
        printf("box %s is remade: sandbox %s, server %s\n", SAFE(0, r->name),
               SAFE(1, r->sandbox_id), SAFE(2, r->url));
        break;
    case CLI_PULL:
        if (r->nothing_pulled)
            printf("no new work in box %s; nothing to pull\n", SAFE(0, r->name));
        else if (r->no_new_work)
            printf("no new work in box %s: %s is up to date at %s\n", SAFE(0, r->name),
                   SAFE(1, r->branch), SAFE(2, r->commit));
        else
            printf("%s %s %s\n", SAFE(0, r->branch), SAFE(1, r->commit), SAFE(2, r->outcome));
        if (r->dir && !cwd_inside(r->dir))
            fprintf(stderr, "e2b-tui: pulled into the box's project %s\n", SAFE(0, r->dir));
        if (r->resumed)
            fprintf(stderr, "e2b-tui: box %s was paused: paused again\n", SAFE(0, r->name));
        if (r->bundle_bytes)
            fprintf(stderr, "e2b-tui: bundle of %llu bytes\n", (unsigned long long)r->bundle_bytes);
        break;
    default: break;
    }
}

/* --kill of a box looks for unpulled work first (the model's look, p's box): refused
 * (CLI_EXIT_UNPULLED, nothing killed) unless --force; a check that cannot tell (a paused box
 * is not resumed to look) says so and lets the kill go on, so that `--pull NAME && --kill
 * NAME` keeps working. Returns 0 to go on, else the exit status. */
static int kill_check(e2b_live *m, const cli_args *a, e2b_live_op_params p)
{
    p.kind = E2B_LIVE_OP_UNPULLED;
    int rc = 0;
    e2b_box_op *op = cli_op_run(m, &p, &rc);
    if (!op)
        return rc;
    const e2b_box_result *r = e2b_box_op_result(op);
    const e2b_unpulled *u = &r->unpulled;
    const char *name = r->name ? r->name : p.name;
    char text[600], safe[700];
    e2b_box_unpulled_text(name, u, text, sizeof text);
    cli_clean(text, safe, sizeof safe);
    if (u->state == E2B_UNPULLED_WORK && !a->force) {
        fprintf(stderr, "e2b-tui: %s; nothing was killed: e2b-tui --pull %s brings it home "
                        "first, --kill %s --force kills anyway\n",
                safe, name, name);
        rc = CLI_EXIT_UNPULLED;
    } else if (u->state == E2B_UNPULLED_WORK) {
        fprintf(stderr, "e2b-tui: %s; killing it anyway (--force)\n", safe);
    } else if (u->state == E2B_UNPULLED_UNKNOWN && u->found) {
        fprintf(stderr, "e2b-tui: %s; killing it anyway\n", safe);
    }
    e2b_box_op_free(op);
    return rc;
}

int cli_box(e2b_live *m, const cli_args *a, const struct cli_target *target)
{
    int rc;
    /* The request log, as in the dashboard: what a failed up or pull did, step by step.
     * Best effort: without it the action still runs. */
    if (e2b_live_config(m)->log_path && *e2b_live_config(m)->log_path) {
        e2b_log_set_max(e2b_live_config(m)->log_max);
        e2b_error *lerr = e2b_log_open(e2b_live_config(m)->log_path);
        e2b_error_free(lerr);
    }
    /* stop needs no password; kill goes on without the store (and says what is left);
     * everything else reads or writes one. */
    if (a->mode != CLI_STOP && (rc = cli_open_keystore(m, a)) && a->mode != CLI_KILL)
        return rc;
    e2b_live_op_params p = {.name = target ? cli_target_box(target) : a->name,
                            .sandbox_id = target ? cli_target_sandbox(target) : NULL,
                            .health_timeout_ms = health_timeout_ms()};
    switch (a->mode) {
    case CLI_UP:
        p = (e2b_live_op_params){.kind = E2B_LIVE_OP_UP, .name = a->name, .dir = a->dir,
                                 .template_id = a->template_id,
                                 .from_snapshot = a->from_snapshot, .hours = a->hours,
                                 .keep_failed = a->keep_failed,
                                 .public_traffic = a->public_traffic,
                                 .allow_out = a->allow_out, .deny_out = a->deny_out,
                                 .no_internet = a->no_internet,
                                 .budget_usd = a->budget_usd,
                                 .prepare = a->from_snapshot ? E2B_BOX_PREPARE_NONE : a->up_prepare,
                                 .approve = a->approve, .napprove = (size_t)a->napprove,
                                 .yes_all = a->yes_all,
                                 .health_timeout_ms = p.health_timeout_ms};
        if (a->yes_all)
            fprintf(stderr, "e2b-tui: WARNING: yes-all: every permission request of the new box "
                            "(any command, any file) is allowed without asking you, while "
                            "e2b-tui watches it\n");
        break;
    case CLI_ATTACH:
    case CLI_TUNNEL: p.kind = E2B_LIVE_OP_ATTACH; break;
    case CLI_STOP: p.kind = E2B_LIVE_OP_STOP; break;
    case CLI_REMAKE: p.kind = E2B_LIVE_OP_REMAKE; break;
    case CLI_KILL:
        p.kind = E2B_LIVE_OP_KILL;
        if ((rc = kill_check(m, a, p)) != 0)
            return rc;
        break;
    case CLI_PULL:
        p.kind = E2B_LIVE_OP_PULL;
        p.dir = a->dir;
        p.force = a->force;
        break;
    default: fputs("e2b-tui: internal error: unknown mode\n", stderr); return 1;
    }
    rc = 0;
    e2b_box_op *op = cli_op_run(m, &p, &rc);
    struct e2b_orphans *orphans = a->mode == CLI_UP ? e2b_live_orphans(m) : NULL;
    if (orphans && e2b_orphans_busy(orphans)) {
        fprintf(stderr,
                "e2b-tui: E2B may still make the sandbox of that create: looking again in %ld s "
                "(the next start of e2b-tui looks too)\n",
                e2b_orphans_delay_ms(orphans) / 1000);
        e2b_live_orphans_wait(m);
    }
    if (!op)
        return rc;
    print_result(a, e2b_box_op_result(op));
    if (a->mode == CLI_UP)
        print_budget(e2b_live_config(m), a, e2b_box_op_result(op));
    if (a->mode == CLI_UP && (a->prompt_text || a->prompt_file)) {
        /* --up ... --prompt: the box's first task */
        char *box = strdup(e2b_box_op_result(op)->name);
        rc = box ? cli_agent_prompt_after_up(m, a, box) : 1;
        free(box);
    }
    if (rc == 0 && a->mode == CLI_UP && a->attach_after_up) {
        /* up made the password and the server; attach again for a fresh connection */
        e2b_live_op_params at = {.kind = E2B_LIVE_OP_ATTACH,
                                 .name = e2b_box_op_result(op)->name,
                                 .health_timeout_ms = p.health_timeout_ms};
        e2b_box_op *up = op;
        op = cli_op_run(m, &at, &rc);
        e2b_box_op_free(up);
        if (!op)
            return rc;
        cli_op_note(e2b_box_op_result(op));
    }
    if (rc == 0 && (a->mode == CLI_ATTACH || (a->mode == CLI_UP && a->attach_after_up))) {
        const e2b_box_result *r = e2b_box_op_result(op);
        if (r->resumed)
            fprintf(stderr, "e2b-tui: box %s was paused: resumed it first\n", SAFE_NAME(r));
        /* --session's, else the client's own choice: finding the active session here would
         * cost a whole agent watch (event stream, requests, sessions) before the attach */
        rc = run_attach_command(e2b_live_config(m), r, a->session_id, a->session_id != NULL);
    }
    else if (rc == 0 && a->mode == CLI_TUNNEL)
        rc = run_tunnel(e2b_box_op_result(op));
    e2b_box_op_free(op);
    return rc;
}
