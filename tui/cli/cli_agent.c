/* One-shot agent modes: --status, --prompt (and --up ... --prompt), --wait, --reply,
 * --interrupt. Each box is reached the dashboard's way (core/agent/watch.h: health, event
 * stream, snapshot) with the password from the store; results on stdout, the rest on stderr.
 * Exit codes: those of cli.h plus 6 waiting for you and 7 timed out (--wait). */
#include "tui/cli/cli_internal.h"

#include "core/agent/watch.h"
#include "core/box/records.h"
#include "core/util/buf.h"
#include "core/util/str.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_WAITING 6
#define EXIT_TIMED_OUT 7

struct agent_box {
    cli_ctx *c;
    box_record rec;
    const char *state;      /* "running", "paused", "gone" */
    char *domain, *token;   /* of the sandbox (token: a secret) */
    e2b_agent_watch *w;
    char *why;              /* not watched: why (sanitised) */
    int got;                /* the sandbox lookup called back */
};

static void on_get(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    struct agent_box *b = ud;
    (void)status;
    b->got = 1;
    if (err) {
        b->state = err->kind == E2B_ERR_NOT_FOUND ? "gone" : "unknown";
        if (err->kind != E2B_ERR_NOT_FOUND)
            b->why = strdup(e2b_error_message(err));
    } else {
        b->state = sb->state == E2B_STATE_PAUSED ? "paused" : "running";
        b->domain = sb->domain ? strdup(sb->domain) : NULL;
        b->token = sb->traffic_access_token ? strdup(sb->traffic_access_token) : NULL;
    }
    e2b_sandbox_free(sb);
}

static void box_clear(struct agent_box *b)
{
    e2b_agent_watch_free(b->w);
    box_record_clear(&b->rec);
    free(b->domain);
    e2b_wipe_free(b->token);
    free(b->why);
}

/* Looks the sandbox up and, when it runs, starts watching its agent. */
static void box_start(cli_ctx *c, struct agent_box *b)
{
    b->c = c;
    e2b_error *err = NULL;
    if (!e2b_api_get(c->client, b->rec.sandbox_id, on_get, b, &err)) {
        b->state = "unknown";
        b->why = strdup(e2b_error_message(err));
        e2b_error_free(err);
        return;
    }
    e2b_wait(c->loop, &b->got);
    if (strcmp(b->state, "running"))
        return;
    char *pw = NULL;
    ks_error kerr = {0};
    if (!c->ks || keystore_get(c->ks, b->rec.name, b->rec.sandbox_id, &pw, &kerr) != KS_OK) {
        b->why = e2b_strfmt("the password of box %s is not on this machine", b->rec.name);
        return;
    }
    char *url = e2b_config_port_url(c->cfg, b->rec.port ? b->rec.port : E2B_BOX_PORT,
                                    b->rec.sandbox_id, b->domain);
    e2b_oc_config oc = {.api = b->rec.opencode == 1 ? 1 : 2, .base_url = url, .password = pw,
                        .traffic_token = b->token, .directory = b->rec.dir};
    b->w = url ? e2b_agent_watch_new(c->loop, &oc, NULL, NULL, &err) : NULL;
    keystore_password_free(pw);
    free(url);
    if (!b->w) {
        b->why = strdup(err ? e2b_error_message(err) : "out of memory");
        e2b_error_free(err);
    }
}

/* Whether the box's status is known enough to be told (synced, or its server is down). */
static bool box_settled(const struct agent_box *b)
{
    if (!b->w)
        return true;
    const e2b_agent_status *st = e2b_agent_watch_status(b->w);
    return e2b_agent_watch_synced(b->w) || st->state == E2B_AGENT_SERVER_DOWN;
}

static long settle_timeout_ms(void)
{
    const char *v = getenv("E2B_TUI_HEALTH_TIMEOUT");
    long s = v && *v ? strtol(v, NULL, 10) : 0;
    return s > 0 ? s * 1000 : 20000;
}

static void run_until_settled(cli_ctx *c, struct agent_box *boxes, size_t n)
{
    int64_t end = e2b_now_ms() + settle_timeout_ms();
    for (;;) {
        bool all = true;
        for (size_t i = 0; i < n; i++)
            all = all && box_settled(&boxes[i]);
        if (all || e2b_now_ms() >= end)
            return;
        e2b_loop_run_once(c->loop, 200);
    }
}

static int read_box(cli_ctx *c, const char *name, struct agent_box *b)
{
    memset(b, 0, sizeof *b);
    e2b_error *err = box_record_read(c->cfg->records_dir, name, &b->rec);
    if (err) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    return 0;
}

/* The one box a mode acts on, watched and settled; prints why not and returns non-zero. */
static int one_box(cli_ctx *c, struct agent_box *b)
{
    int rc = read_box(c, c->args->name, b);
    if (rc)
        return rc;
    box_start(c, b);
    if (!strcmp(b->state, "gone")) {
        fprintf(stderr, "e2b-tui: box %s's sandbox is gone\n", b->rec.name);
        return 3;
    }
    if (!strcmp(b->state, "paused")) {
        fprintf(stderr, "e2b-tui: box %s is paused (e2b-tui --attach %s resumes it)\n",
                b->rec.name, b->rec.name);
        return 1;
    }
    if (!b->w) {
        char buf[600];
        cli_clean(b->why, buf, sizeof buf);
        fprintf(stderr, "e2b-tui: box %s: %s\n", b->rec.name, buf);
        return 1;
    }
    run_until_settled(c, b, 1);
    const e2b_agent_status *st = e2b_agent_watch_status(b->w);
    if (st->state == E2B_AGENT_SERVER_DOWN || !e2b_agent_watch_synced(b->w)) {
        char buf[600];
        cli_clean(st->error ? st->error : "it does not answer", buf, sizeof buf);
        fprintf(stderr, "e2b-tui: box %s: the agent's server is down: %s\n", b->rec.name, buf);
        return 1;
    }
    return 0;
}

/* ---- --status ---- */

static const char *state_word(const struct agent_box *b)
{
    if (!b->w)
        return !strcmp(b->state, "paused") ? "paused" : !strcmp(b->state, "gone") ? "gone" : "unknown";
    return e2b_agent_state_name(e2b_agent_watch_status(b->w)->state);
}

static json_t *jstr(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *jtime(int64_t ms)
{
    if (!ms)
        return json_null();
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    char buf[32];
    gmtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return json_string(buf);
}

static json_t *box_json(const struct agent_box *b)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(b->rec.name));
    json_object_set_new(o, "sandbox_id", json_string(b->rec.sandbox_id));
    json_object_set_new(o, "sandbox", json_string(b->state));
    json_object_set_new(o, "state", json_string(state_word(b)));
    if (!b->w) {
        json_object_set_new(o, "detail", jstr(b->why));
        return o;
    }
    const e2b_agent_status *st = e2b_agent_watch_status(b->w);
    char line[1024];
    e2b_agent_status_line(st, line, sizeof line);
    json_object_set_new(o, "detail", json_string(line));
    json_object_set_new(o, "api", json_integer(st->api));
    json_object_set_new(o, "last_end", st->last_end ? json_string(e2b_agent_end_name(st->last_end))
                                                    : json_null());
    json_object_set_new(o, "error", jstr(st->error));
    json_object_set_new(o, "idle_since", jtime(st->state == E2B_AGENT_IDLE ? st->idle_since_ms : 0));
    json_object_set_new(o, "last_activity", jtime(st->last_activity_ms));
    if (st->state == E2B_AGENT_RETRYING)
        json_object_set_new(o, "retry", json_pack("{s:i,s:o,s:o}", "attempt", st->retry_attempt,
                                                  "message", jstr(st->retry_message),
                                                  "next", jtime(st->retry_next_ms)));
    json_object_set_new(o, "session", st->session_id
                        ? json_pack("{s:s,s:s}", "id", st->session_id, "title",
                                    st->session_title ? st->session_title : "")
                        : json_null());
    json_t *items = json_array();
    for (size_t i = 0; i < st->ntodos; i++)
        json_array_append_new(items, json_pack("{s:s,s:s,s:s}", "content", st->todos[i].content,
                                               "status", st->todos[i].status, "priority",
                                               st->todos[i].priority));
    json_object_set_new(o, "todos", json_pack("{s:i,s:i,s:o}", "done", (int)st->todo_done, "total",
                                              (int)st->todo_total, "items", items));
    json_t *reqs = json_array();
    for (size_t i = 0; i < st->nrequests; i++) {
        const e2b_agent_request *r = &st->requests[i];
        json_array_append_new(reqs, json_pack("{s:s,s:o,s:s,s:o,s:o,s:o}", "id", r->id,
                                              "session_id", jstr(r->session_id),
                                              "kind", r->question ? "question" : "permission",
                                              "action", jstr(r->action), "detail", jstr(r->detail),
                                              "summary", jstr(r->summary)));
    }
    json_object_set_new(o, "requests", reqs);
    json_object_set_new(o, "stream", json_pack("{s:b,s:i}", "up", st->stream_up, "reconnects",
                                               (int)st->reconnects));
    json_object_set_new(o, "usage", st->have_usage
                        ? json_pack("{s:I,s:I,s:I,s:f}", "input", (json_int_t)st->tokens_input,
                                    "output", (json_int_t)st->tokens_output, "reasoning",
                                    (json_int_t)st->tokens_reasoning, "cost", st->cost)
                        : json_null());
    return o;
}

static void box_print(const struct agent_box *b)
{
    char line[1024], buf[1200];
    if (!b->w) {
        cli_clean(b->why ? b->why : "", line, sizeof line);
        printf("%s\t%s%s%s\n", b->rec.name, state_word(b), *line ? ": " : "", line);
        return;
    }
    const e2b_agent_status *st = e2b_agent_watch_status(b->w);
    e2b_agent_status_line(st, line, sizeof line);
    cli_clean(line, buf, sizeof buf);
    printf("%s\t%s", b->rec.name, buf);
    if (st->session_id) {
        cli_clean(st->session_title, line, sizeof line);
        printf("\tsession %s \"%s\"", st->session_id, line);
    }
    if (st->todo_total)
        printf("\ttodo %u/%u", st->todo_done, st->todo_total);
    printf("\n");
    for (size_t i = 0; i < st->nrequests; i++) {
        cli_clean(st->requests[i].summary, line, sizeof line);
        printf("  request %s: %s\n", st->requests[i].id, line);
    }
}

static int cli_status(cli_ctx *c)
{
    const cli_args *a = c->args;
    box_record_list recs = {0};
    struct agent_box *boxes = NULL;
    size_t n = 0;
    int rc = 0;
    if (a->name) {
        boxes = calloc(1, sizeof *boxes);
        if (!boxes || (rc = read_box(c, a->name, &boxes[0]))) {
            free(boxes);
            return rc ? rc : 1;
        }
        n = 1;
    } else {
        e2b_error *err = box_record_list_read(c->cfg->records_dir, &recs, NULL);
        if (err) {
            rc = cli_fail(err);
            e2b_error_free(err);
            return rc;
        }
        boxes = recs.count ? calloc(recs.count, sizeof *boxes) : NULL;
        for (size_t i = 0; boxes && i < recs.count; i++) {
            boxes[n].rec = recs.items[i];
            memset(&recs.items[i], 0, sizeof recs.items[i]);
            n++;
        }
        box_record_list_clear(&recs);
    }
    for (size_t i = 0; i < n; i++)
        box_start(c, &boxes[i]);
    run_until_settled(c, boxes, n);
    if (a->json) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, box_json(&boxes[i]));
        json_t *root = json_pack("{s:i,s:o}", "version", 1, "boxes", arr);
        char *s = root ? json_dumps(root, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
        if (s)
            puts(s);
        free(s);
        json_decref(root);
    } else {
        for (size_t i = 0; i < n; i++)
            box_print(&boxes[i]);
    }
    if (a->name && !strcmp(boxes[0].state, "gone"))
        rc = 3;
    for (size_t i = 0; i < n; i++)
        box_clear(&boxes[i]);
    free(boxes);
    return rc;
}

/* ---- commands ---- */

struct cmd_wait {
    int done;
    e2b_error *err;
    char *session_id;
};

static void on_cmd(void *ud, const char *session_id, const e2b_error *err)
{
    struct cmd_wait *w = ud;
    w->done = 1;
    w->err = err ? e2b_error_copy(err) : NULL;
    w->session_id = session_id ? strdup(session_id) : NULL;
}

static int wait_cmd(cli_ctx *c, int started, e2b_error *err, struct cmd_wait *w)
{
    if (started != 0) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    e2b_wait(c->loop, &w->done);
    if (w->err) {
        int rc = cli_fail(w->err);
        e2b_error_free(w->err);
        w->err = NULL;
        return rc;
    }
    return 0;
}

/* The prompt's text: --prompt-file, the TEXT given, else stdin ("-" or absent). */
static char *prompt_text(const cli_args *a)
{
    FILE *f = NULL;
    if (a->prompt_file) {
        f = fopen(a->prompt_file, "r");
        if (!f) {
            fprintf(stderr, "e2b-tui: cannot read %s\n", a->prompt_file);
            return NULL;
        }
    } else if (a->prompt_text && strcmp(a->prompt_text, "-")) {
        return strdup(a->prompt_text);
    } else {
        f = stdin;
    }
    e2b_buf b = {0};
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < 1024 * 1024)
        e2b_buf_add(&b, chunk, got);
    if (f != stdin)
        fclose(f);
    char *s = e2b_buf_take(&b);
    if (s && !*s) {
        fputs("e2b-tui: the prompt is empty\n", stderr);
        free(s);
        return NULL;
    }
    return s;
}

struct ready_wait {
    int done;
    bool ready;
};

static void on_ready(void *ud, e2b_oc_result *res, const e2b_error *err)
{
    struct ready_wait *r = ud;
    r->done = 1;
    r->ready = !err && res->healthy;
}

static void on_tick(void *ud)
{
    *(int *)ud = 1;
}

/* v2 (1.18.33): a prompt sent before the model catalog has the configured model is lost
 * without an error (a new box's server needs some seconds): wait for it, within bounds. */
static void wait_model(cli_ctx *c, const struct agent_box *b)
{
    e2b_oc_client *oc = e2b_agent_watch_client(b->w);
    int64_t end = e2b_now_ms() + settle_timeout_ms();
    while (e2b_oc_api(oc) == 2 && e2b_now_ms() < end) {
        struct ready_wait r = {0};
        if (!e2b_oc_model_ready(oc, on_ready, &r, NULL))
            return;
        e2b_wait(c->loop, &r.done);
        if (r.ready)
            return;
        int tick = 0;
        if (!e2b_loop_timer_add(c->loop, 500, on_tick, &tick))
            return;
        e2b_wait(c->loop, &tick);
    }
}

static int prompt_box(cli_ctx *c, struct agent_box *b)
{
    char *text = prompt_text(c->args);
    if (!text)
        return 1;
    wait_model(c, b);
    struct cmd_wait w = {0};
    e2b_error *err = NULL;
    int started = e2b_agent_watch_prompt(b->w, NULL, c->args->new_session, text, on_cmd, &w, &err);
    free(text);
    int rc = wait_cmd(c, started, err, &w);
    if (rc == 0)
        printf("%s\n", w.session_id ? w.session_id : "");
    free(w.session_id);
    return rc;
}

static int cli_prompt(cli_ctx *c)
{
    struct agent_box b;
    int rc = one_box(c, &b);
    if (rc == 0)
        rc = prompt_box(c, &b);
    box_clear(&b);
    return rc;
}

int cli_agent_prompt_after_up(cli_ctx *c, const char *name)
{
    struct agent_box b;
    int rc = read_box(c, name, &b);
    if (rc)
        return rc;
    box_start(c, &b);
    if (!b.w) {
        fprintf(stderr, "e2b-tui: box %s is up but its agent cannot be reached\n", name);
        box_clear(&b);
        return 1;
    }
    run_until_settled(c, &b, 1);
    rc = prompt_box(c, &b);
    box_clear(&b);
    return rc;
}

static int cli_reply(cli_ctx *c)
{
    struct agent_box b;
    int rc = one_box(c, &b);
    if (rc == 0) {
        struct cmd_wait w = {0};
        e2b_error *err = NULL;
        int started = e2b_agent_watch_reply(b.w, c->args->request_id, c->args->reply, on_cmd, &w, &err);
        rc = wait_cmd(c, started, err, &w);
        if (rc == 0)
            printf("replied %s\n", e2b_agent_reply_name(c->args->reply));
        free(w.session_id);
    }
    box_clear(&b);
    return rc;
}

static int cli_interrupt(cli_ctx *c)
{
    struct agent_box b;
    int rc = one_box(c, &b);
    if (rc == 0) {
        struct cmd_wait w = {0};
        e2b_error *err = NULL;
        int started = e2b_agent_watch_interrupt(b.w, on_cmd, &w, &err);
        rc = wait_cmd(c, started, err, &w);
        if (rc == 0)
            printf("interrupted\n");
        free(w.session_id);
    }
    box_clear(&b);
    return rc;
}

/* ---- --wait ---- */

/* An idle box that was never seen working is given this long to start (a prompt sent just
 * before --wait may not have begun its turn yet). */
#define IDLE_GRACE_MS 2000

static int cli_wait(cli_ctx *c)
{
    struct agent_box b;
    int rc = one_box(c, &b);
    if (rc) {
        box_clear(&b);
        return rc;
    }
    int64_t start = e2b_now_ms();
    int64_t end = c->args->timeout_s > 0 ? start + (int64_t)c->args->timeout_s * 1000 : 0;
    for (;;) {
        const e2b_agent_status *st = e2b_agent_watch_status(b.w);
        int64_t now = e2b_now_ms();
        if (st->state == E2B_AGENT_WAITING && e2b_agent_watch_synced(b.w)) {
            char buf[1200];
            cli_clean(st->requests[0].summary, buf, sizeof buf);
            fprintf(stderr, "e2b-tui: box %s is waiting for you: %s (request %s)\n", b.rec.name,
                    buf, st->requests[0].id);
            rc = EXIT_WAITING;
            break;
        }
        if (st->state == E2B_AGENT_IDLE && e2b_agent_watch_synced(b.w) &&
            (st->last_end != E2B_AGENT_END_NONE || now - start >= IDLE_GRACE_MS)) {
            if (st->last_end == E2B_AGENT_END_FAILED) {
                char buf[1200];
                cli_clean(st->error ? st->error : "", buf, sizeof buf);
                fprintf(stderr, "e2b-tui: box %s: the turn failed: %s\n", b.rec.name, buf);
                rc = 1;
            } else {
                printf("idle: %s\n", st->last_end ? e2b_agent_end_name(st->last_end) : "no turn running");
                rc = 0;
            }
            break;
        }
        if (st->state == E2B_AGENT_SERVER_DOWN) {
            char buf[600];
            cli_clean(st->error ? st->error : "", buf, sizeof buf);
            fprintf(stderr, "e2b-tui: box %s: the agent's server is down: %s\n", b.rec.name, buf);
            rc = 1;
            break;
        }
        if (end && now >= end) {
            fprintf(stderr, "e2b-tui: box %s: still %s after %d s\n", b.rec.name,
                    e2b_agent_state_name(st->state), c->args->timeout_s);
            rc = EXIT_TIMED_OUT;
            break;
        }
        e2b_loop_run_once(c->loop, 200);
    }
    box_clear(&b);
    return rc;
}

int cli_agent(cli_ctx *c)
{
    int rc = cli_open_keystore(c);
    if (rc)
        return rc;
    switch (c->args->mode) {
    case CLI_STATUS: return cli_status(c);
    case CLI_PROMPT: return cli_prompt(c);
    case CLI_WAIT: return cli_wait(c);
    case CLI_REPLY: return cli_reply(c);
    case CLI_INTERRUPT: return cli_interrupt(c);
    default: return 1;
    }
}
