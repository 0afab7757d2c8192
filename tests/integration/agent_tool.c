/* agent_tool: drives core/agent's watch against an OpenCode server from shell tests and
 * benchmarks, without a box around it.
 *
 *   AGENT_PW=pw agent_tool watch API URL SECONDS [UNTIL]
 *       watches; prints one line per change of the status line (monotonic ms, the line,
 *       session, todos, requests, activity, stream, reconnects) and, at the end, the
 *       activity entries; stops after SECONDS, or as soon as the status line starts with
 *       UNTIL (exit 0; 7 when it never did)
 *
 * The password comes from the environment, never argv. */
#include "core/agent/watch.h"
#include "core/net/loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ctx {
    e2b_agent_watch *w;
    char last[4096];
    const char *until;
    int done, reached;
};

static void on_change(void *ud)
{
    struct ctx *c = ud;
    const e2b_agent_status *st = e2b_agent_watch_status(c->w);
    char line[1024], full[4096];
    e2b_agent_status_line(st, line, sizeof line);
    snprintf(full, sizeof full, "%s | session %s \"%s\" | todo %u/%u | requests %zu | activity %zu | stream %s | reconnects %u",
             line, st->session_id ? st->session_id : "-", st->session_title ? st->session_title : "",
             st->todo_done, st->todo_total, st->nrequests, st->nactivity, st->stream_up ? "up" : "down",
             st->reconnects);
    if (strcmp(full, c->last)) {
        snprintf(c->last, sizeof c->last, "%s", full);
        printf("%lld %s\n", (long long)e2b_now_ms(), full);
        fflush(stdout);
    }
    if (c->until && !strncmp(line, c->until, strlen(c->until)) && e2b_agent_watch_synced(c->w)) {
        c->reached = 1;
        c->done = 1;
    }
}

static void on_timeout(void *ud)
{
    ((struct ctx *)ud)->done = 1;
}

int main(int argc, char **argv)
{
    if (argc < 5 || strcmp(argv[1], "watch")) {
        fprintf(stderr, "usage: AGENT_PW=pw agent_tool watch API URL SECONDS [UNTIL]\n");
        return 2;
    }
    e2b_loop *loop = e2b_loop_new();
    struct ctx c = {.until = argc > 5 ? argv[5] : NULL};
    e2b_oc_config oc = {.api = atoi(argv[2]), .base_url = argv[3], .password = getenv("AGENT_PW"),
                        .directory = getenv("AGENT_DIR")};
    e2b_error *err = NULL;
    c.w = e2b_agent_watch_new(loop, &oc, on_change, &c, &err);
    if (!c.w) {
        fprintf(stderr, "agent_tool: %s\n", e2b_error_message(err));
        e2b_error_free(err);
        e2b_loop_free(loop);
        return 1;
    }
    e2b_loop_timer_add(loop, atol(argv[4]) * 1000, on_timeout, &c);
    e2b_wait(loop, &c.done);
    const e2b_agent_status *st = e2b_agent_watch_status(c.w);
    for (size_t i = 0; i < st->nactivity; i++) {
        const e2b_agent_activity *a = &st->activity[i];
        printf("activity %s %s %s: %.200s\n",
               a->kind == E2B_AGENT_ACT_TEXT     ? "text"
               : a->kind == E2B_AGENT_ACT_TOOL   ? "tool"
               : a->kind == E2B_AGENT_ACT_PROMPT ? "prompt"
                                                 : "error",
               a->tool ? a->tool : "-", a->state ? a->state : "-", a->text);
    }
    for (size_t i = 0; i < st->ntodos; i++)
        printf("todo %s %s\n", st->todos[i].status, st->todos[i].content);
    for (size_t i = 0; i < st->nrequests; i++)
        printf("request %s %s\n", st->requests[i].id, st->requests[i].summary);
    e2b_agent_watch_free(c.w);
    e2b_loop_free(loop);
    return c.until && !c.reached ? 7 : 0;
}
