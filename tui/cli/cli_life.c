/* A box's life from a shell: --ports NAME (what listens in the box), --forward NAME PORT
 * [--local PORT] (an owner-only local URL to that port until Ctrl-C), --get NAME PATH...
 * [--dir DEST] [--force] (files of the box brought home) and --keepalive (idle boxes paused,
 * cli_keepalive.c). Their options are parsed here so that main.c only hands them on. */
#include "tui/cli/cli_internal.h"

#include "core/box/box_get.h"
#include "core/box/box_ports.h"
#include "core/git/gitwork.h"
#include "core/util/log.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- options ---- */

static int parse_port(const char *v, const char *what, int *out)
{
    char *end;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v || *end || n < 1 || n > 65535) {
        fprintf(stderr, "e2b-tui: %s must be a port number from 1 to 65535, not '%s'\n", what,
                v ? v : "");
        return -1;
    }
    *out = (int)n;
    return 0;
}

static int next_plain(int argc, char **argv, int *i)
{
    return *i + 1 < argc && argv[*i + 1][0] && argv[*i + 1][0] != '-';
}

static int add_path(cli_args *a, const char *p)
{
    if (a->get_npaths >= (int)(sizeof a->get_paths / sizeof a->get_paths[0])) {
        fprintf(stderr, "e2b-tui: --get takes at most %d paths at once\n", E2B_BOX_GET_PATHS_MAX);
        return -1;
    }
    a->get_paths[a->get_npaths++] = p;
    return 0;
}

int cli_life_option(cli_args *a, int argc, char **argv, int *i)
{
    const char *f = argv[*i];
    if (strcmp(f, "--ports") == 0) {
        if (cli_set_mode(a, CLI_PORTS, f) < 0)
            return -1;
        if (next_plain(argc, argv, i))
            a->name = argv[++*i];
        return 1;
    }
    if (strcmp(f, "--forward") == 0) {
        if (cli_set_mode(a, CLI_FORWARD, f) < 0)
            return -1;
        if (next_plain(argc, argv, i))
            a->name = argv[++*i];
        if (a->name && next_plain(argc, argv, i) && parse_port(argv[++*i], "--forward's PORT", &a->port) < 0)
            return -1;
        return 1;
    }
    if (strcmp(f, "--local") == 0) {
        if (!next_plain(argc, argv, i)) {
            fprintf(stderr, "e2b-tui: --local needs a port number (see e2b-tui --help)\n");
            return -1;
        }
        return parse_port(argv[++*i], "--local", &a->local_port) < 0 ? -1 : 1;
    }
    if (strcmp(f, "--get") == 0) {
        if (cli_set_mode(a, CLI_GET, f) < 0)
            return -1;
        if (next_plain(argc, argv, i))
            a->name = argv[++*i];
        while (a->name && next_plain(argc, argv, i))
            if (add_path(a, argv[++*i]) < 0)
                return -1;
        return 1;
    }
    if (strcmp(f, "--keepalive") == 0)
        return cli_set_mode(a, CLI_KEEPALIVE, f) < 0 ? -1 : 1;
    return 0;
}

int cli_life_place(cli_args *a, const char **operands, int n)
{
    if (a->mode != CLI_PORTS && a->mode != CLI_FORWARD && a->mode != CLI_GET &&
        a->mode != CLI_KEEPALIVE)
        return 0;
    int next = 0;
    if (a->mode != CLI_KEEPALIVE && !a->name && next < n)
        a->name = operands[next++];
    if (a->mode == CLI_FORWARD && !a->port && next < n &&
        parse_port(operands[next++], "--forward's PORT", &a->port) < 0)
        return -1;
    while (a->mode == CLI_GET && next < n)
        if (add_path(a, operands[next++]) < 0)
            return -1;
    if (next < n) {
        fprintf(stderr, "e2b-tui: unexpected argument '%s' (see e2b-tui --help)\n", operands[next]);
        return -1;
    }
    const char *need = a->mode == CLI_KEEPALIVE                    ? NULL
                       : !a->name                                  ? "a box name"
                       : a->mode == CLI_FORWARD && !a->port        ? "a box name and a port"
                       : a->mode == CLI_GET && a->get_npaths == 0  ? "a box name and a path"
                                                                   : NULL;
    if (need) {
        fprintf(stderr, "e2b-tui: %s needs %s (see e2b-tui --help)\n",
                a->mode == CLI_PORTS ? "--ports" : a->mode == CLI_FORWARD ? "--forward" : "--get",
                need);
        return -1;
    }
    if (a->name && !e2b_gitwork_box_name_valid(a->name)) {
        fprintf(stderr, "e2b-tui: '%s' is not a valid box name (letters, digits, '.', '_', "
                        "'-'; see e2b-tui --help)\n", a->name);
        return -1;
    }
    return 1;
}

int cli_life_check(const cli_args *a)
{
    if (a->local_port && a->mode != CLI_FORWARD) {
        fprintf(stderr, "e2b-tui: --local does not go with %s (see e2b-tui --help)\n",
                a->mode == CLI_NONE ? "the dashboard" : "this mode");
        return -1;
    }
    return 0;
}

/* ---- running: each is the model's box operation (cli_op_run) ---- */

static void told_resumed(const e2b_box_op *op, const char *name)
{
    if (e2b_box_op_result(op)->resumed)
        fprintf(stderr, "e2b-tui: box %s was paused: resumed it\n", name);
}

static void print_ports(const e2b_box_op *op, const char *name)
{
    const e2b_box_ports *p = e2b_box_ports_of(op);
    if (p->count == 0)
        printf("nothing listens on a TCP port in box %s\n", name);
    for (size_t i = 0; i < p->count; i++)
        printf("%d%s\n", p->items[i].port,
               p->items[i].loopback ? " (127.0.0.1 only: E2B's proxy may not reach it)" : "");
    if (p->more)
        printf("(more than %d ports; the first %d shown)\n", E2B_BOX_PORTS_MAX, E2B_BOX_PORTS_MAX);
}

static int port_listed(const e2b_box_ports *p, int port)
{
    for (size_t i = 0; i < p->count; i++)
        if (p->items[i].port == port)
            return 1;
    return 0;
}

/* --forward: the tunnel until SIGINT, SIGTERM or SIGHUP; its URL on stdout. */
static int run_forward(const e2b_box_op *op, const cli_args *a)
{
    sigset_t stop, old;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, &old); /* the tunnel's threads inherit it */
    e2b_error *err = NULL;
    e2b_tunnel *t = e2b_box_forward_open(op, a->port, a->local_port, &err);
    if (!t) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    printf("%s\n", e2b_tunnel_url(t));
    fflush(stdout);
    if (!port_listed(e2b_box_ports_of(op), a->port))
        fprintf(stderr, "e2b-tui: nothing listens on port %d in box %s yet (the forward waits "
                        "for it: each request tries again)\n", a->port, a->name);
    if (e2b_box_ports_public(op)) {
        char *direct = e2b_box_port_url(op, a->port), safe[400];
        cli_clean(direct, safe, sizeof safe);
        fprintf(stderr, "e2b-tui: box %s is public: port %d is also at %s (anyone can open "
                        "it)\n", a->name, a->port, safe);
        free(direct);
    }
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "e2b-tui: port %d of box %s is at %s (yours only); Ctrl-C ends the "
                        "forward\n", a->port, a->name, e2b_tunnel_url(t));
    int sig = 0;
    sigwait(&stop, &sig);
    e2b_tunnel_close(t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return 0;
}

int cli_keepalive(e2b_live *m, const cli_args *a);

int cli_life(e2b_live *m, const cli_args *a)
{
    if (a->mode == CLI_KEEPALIVE)
        return cli_keepalive(m, a);
    const e2b_config *cfg = e2b_live_config(m);
    if (cfg->log_path && *cfg->log_path) { /* best effort, as the box modes */
        e2b_log_set_max(cfg->log_max);
        e2b_error_free(e2b_log_open(cfg->log_path));
    }
    int rc = 0;
    if (a->mode == CLI_GET) {
        /* a path or folder refused before the box is asked is a usage error (2: cli_op_run) */
        e2b_box_op *op = cli_op_run(m, &(e2b_live_op_params){.kind = E2B_LIVE_OP_GET,
                                                             .name = a->name,
                                                             .paths = a->get_paths,
                                                             .npaths = (size_t)a->get_npaths,
                                                             .dir = a->dir,
                                                             .force = a->force},
                                    &rc);
        if (op) {
            const e2b_box_result *r = e2b_box_op_result(op);
            char safe[600];
            told_resumed(op, a->name);
            cli_clean(r->dir, safe, sizeof safe);
            printf("fetched %llu entries (%llu bytes) from box %s into %s\n",
                   (unsigned long long)r->files, (unsigned long long)r->bytes_in, a->name, safe);
        }
        e2b_box_op_free(op);
        return rc;
    }
    e2b_box_op *op =
        cli_op_run(m, &(e2b_live_op_params){.kind = E2B_LIVE_OP_PORTS, .name = a->name}, &rc);
    if (op) {
        told_resumed(op, a->name);
        if (a->mode == CLI_PORTS)
            print_ports(op, a->name);
        else
            rc = run_forward(op, a);
    }
    e2b_box_op_free(op);
    return rc;
}
