/* One-shot agent modes: --status, --prompt (and --up ... --prompt), --wait, --reply,
 * --interrupt. Each box is reached the dashboard's way (core/agent/watch.h: health, event
 * stream, snapshot) with the password from the store; results on stdout, the rest on stderr.
 * Exit codes: those of cli.h plus 6 waiting for you and 7 timed out (--wait). */
#include "tui/cli/cli_internal.h"

#include "core/agent/agent_json.h"
#include "core/agent/watch.h"
#include "core/box/records.h"
#include "core/util/buf.h"
#include "core/util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_WAITING 6
#define EXIT_TIMED_OUT 7

struct agent_box {
    e2b_box_record rec;
    const char *state;      /* "running", "paused", "gone" */
    char *domain, *token;   /* of the sandbox (token: a secret) */
    e2b_agent_watch *w;
    char *why;              /* not watched: why (sanitised) */
    e2b_error *api_err;     /* the API's answer when it failed (not a gone sandbox) */
    int got;                /* the sandbox lookup called back */
    int private_box;        /* metadata e2b-tui.traffic = private: the token comes from connect */
};

static void on_get(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    struct agent_box *b = ud;
    (void)status;
    b->got = 1;
    if (err) {
        b->state = err->kind == E2B_ERR_NOT_FOUND ? "gone" : "unknown";
        if (err->kind != E2B_ERR_NOT_FOUND) {
            b->why = strdup(e2b_error_message(err));
            b->api_err = e2b_error_copy(err);
        }
    } else {
        b->state = sb->state == E2B_STATE_PAUSED ? "paused" : "running";
        b->domain = sb->domain ? strdup(sb->domain) : NULL;
        b->token = sb->traffic_access_token ? strdup(sb->traffic_access_token) : NULL;
        const char *traffic = e2b_metadata_get(&sb->metadata, E2B_META_TRAFFIC);
        b->private_box = traffic && strcmp(traffic, "private") == 0;
    }
    e2b_sandbox_free(sb);
}

/* A private box's traffic token: only create and connect hand it out (the box runs, so a
 * connect only confirms its timeout, never shortens it). */
static void on_token(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    struct agent_box *b = ud;
    (void)status;
    b->got = 1;
    if (!err && sb && sb->traffic_access_token && *sb->traffic_access_token)
        b->token = strdup(sb->traffic_access_token);
    e2b_sandbox_free(sb);
}

static void box_clear(struct agent_box *b)
{
    e2b_agent_watch_free(b->w);
    e2b_box_record_clear(&b->rec);
    free(b->domain);
    e2b_wipe_free(b->token);
    free(b->why);
    e2b_error_free(b->api_err);
}

/* Looks the sandbox up and, when it runs, starts watching its agent. */
static void box_start(e2b_live *m, struct agent_box *b)
{
    e2b_error *err = NULL;
    if (!e2b_api_get(e2b_live_client(m), b->rec.sandbox_id, on_get, b, &err)) {
        b->state = "unknown";
        b->why = strdup(e2b_error_message(err));
        b->api_err = err;
        return;
    }
    e2b_wait(e2b_live_loop(m), &b->got);
    if (strcmp(b->state, "running"))
        return;
    if (b->private_box && !b->token) {
        b->got = 0;
        if (e2b_api_connect(e2b_live_client(m), b->rec.sandbox_id, 60, on_token, b, &err))
            e2b_wait(e2b_live_loop(m), &b->got);
        e2b_error_free(err); /* without the token the watch tells what the server says */
        err = NULL;
    }
    char *pw = NULL;
    ks_error kerr = {0};
    keystore *ks = e2b_live_store(m);
    if (!ks || keystore_get(ks, b->rec.name, b->rec.sandbox_id, &pw, &kerr) != KS_OK) {
        b->why = e2b_strfmt("the password of box %s is not on this machine", b->rec.name);
        return;
    }
    char *url = e2b_config_port_url(e2b_live_config(m), b->rec.port ? b->rec.port : E2B_BOX_PORT,
                                    b->rec.sandbox_id, b->domain);
    e2b_oc_config oc = {.api = b->rec.opencode == 1 ? 1 : 2, .base_url = url, .password = pw,
                        .traffic_token = b->token, .directory = b->rec.dir};
    b->w = url ? e2b_agent_watch_new(e2b_live_loop(m), &oc, NULL, NULL, &err) : NULL;
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

static void run_until_settled(e2b_live *m, struct agent_box *boxes, size_t n)
{
    int64_t end = e2b_now_ms() + settle_timeout_ms();
    for (;;) {
        bool all = true;
        for (size_t i = 0; i < n; i++)
            all = all && box_settled(&boxes[i]);
        if (all || e2b_now_ms() >= end)
            return;
        e2b_loop_run_once(e2b_live_loop(m), 200);
    }
}

static int read_box(e2b_live *m, const cli_args *a, const char *name, struct agent_box *b)
{
    memset(b, 0, sizeof *b);
    e2b_error *err = e2b_box_record_read(e2b_live_config(m)->records_dir, name, &b->rec);
    if (err) {
        /* Not this machine's: a box of that name elsewhere, or several (a conflict)? */
        int rc = err->kind == E2B_ERR_NOT_FOUND ? cli_no_record(m, name, err) : cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    return 0;
}

/* The one box a mode acts on, watched and settled; prints why not and returns non-zero. */
static int one_box(e2b_live *m, const cli_args *a, struct agent_box *b)
{
    int rc = read_box(m, a, a->name, b);
    if (rc)
        return rc;
    box_start(m, b);
    if (b->api_err)
        return cli_fail(b->api_err);
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
    run_until_settled(m, b, 1);
    const e2b_agent_status *st = e2b_agent_watch_status(b->w);
    if (st->state == E2B_AGENT_SERVER_DOWN) {
        char buf[600];
        cli_clean(st->error ? st->error : "it does not answer", buf, sizeof buf);
        fprintf(stderr, "e2b-tui: box %s: the agent's server is down: %s\n", b->rec.name, buf);
        return 1;
    }
    if (!e2b_agent_watch_synced(b->w)) {
        /* it answers, but its sessions and requests could not all be read in time */
        fprintf(stderr,
                "e2b-tui: box %s: the agent's server answers but did not tell its state "
                "within %ld s (busy or still starting?): try again, or give it longer with "
                "E2B_TUI_HEALTH_TIMEOUT=SECONDS\n",
                b->rec.name, settle_timeout_ms() / 1000);
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
    char ago[16] = "";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    if (st->state == E2B_AGENT_IDLE) /* (a box's clock a little ahead: "0s") */
        e2b_agent_ago(st->idle_since_ms < now ? st->idle_since_ms : now, now, ago, sizeof ago);
    if (*ago && !strncmp(buf, "idle", 4)) /* "idle 2m: failed: why" */
        printf("%s\tidle %s%s", b->rec.name, ago, buf + 4);
    else
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

static int cli_status(e2b_live *m, const cli_args *a)
{
    e2b_box_record_list recs = {0};
    struct agent_box *boxes = NULL;
    size_t n = 0;
    int rc = 0;
    if (a->name) {
        boxes = calloc(1, sizeof *boxes);
        if (!boxes || (rc = read_box(m, a, a->name, &boxes[0]))) {
            free(boxes);
            return rc ? rc : 1;
        }
        n = 1;
    } else {
        e2b_error *err = e2b_box_record_list_read(e2b_live_config(m)->records_dir, &recs, NULL);
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
        e2b_box_record_list_clear(&recs);
    }
    for (size_t i = 0; i < n; i++)
        box_start(m, &boxes[i]);
    run_until_settled(m, boxes, n);
    if (a->json) {
        e2b_agent_box_view *views = n ? calloc(n, sizeof *views) : NULL;
        e2b_opencode_kind *oc = n ? calloc(n, sizeof *oc) : NULL;
        for (size_t i = 0; views && oc && i < n; i++) {
            e2b_box_record_opencode(&boxes[i].rec, &oc[i]);
            views[i] = (e2b_agent_box_view){
                .name = boxes[i].rec.name, .sandbox_id = boxes[i].rec.sandbox_id,
                .sandbox = boxes[i].state, .state = state_word(&boxes[i]), .why = boxes[i].why,
                .status = boxes[i].w ? e2b_agent_watch_status(boxes[i].w) : NULL,
                .opencode = &oc[i]};
        }
        char *s = e2b_agent_status_json(views, views ? n : 0, a->pretty);
        if (s)
            puts(s);
        else
            fputs("e2b-tui: out of memory\n", stderr);
        free(s);
        free(views);
        free(oc);
    } else {
        for (size_t i = 0; i < n; i++)
            box_print(&boxes[i]);
    }
    if (a->name && !strcmp(boxes[0].state, "gone"))
        rc = 3;
    for (size_t i = 0; i < n && !rc; i++) /* the API failed: its exit status, said once */
        if (boxes[i].api_err)
            rc = cli_fail(boxes[i].api_err);
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

static int wait_cmd(e2b_live *m, int started, e2b_error *err, struct cmd_wait *w)
{
    if (started != 0) {
        int rc = cli_fail(err);
        e2b_error_free(err);
        return rc;
    }
    e2b_wait(e2b_live_loop(m), &w->done);
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
static void wait_model(e2b_live *m, const struct agent_box *b)
{
    e2b_oc_client *oc = e2b_agent_watch_client(b->w);
    int64_t end = e2b_now_ms() + settle_timeout_ms();
    while (e2b_oc_api(oc) == 2 && e2b_now_ms() < end) {
        struct ready_wait r = {0};
        if (!e2b_oc_model_ready(oc, on_ready, &r, NULL))
            return;
        e2b_wait(e2b_live_loop(m), &r.done);
        if (r.ready)
            return;
        int tick = 0;
        if (!e2b_loop_timer_add(e2b_live_loop(m), 500, on_tick, &tick))
            return;
        e2b_wait(e2b_live_loop(m), &tick);
    }
}

static int prompt_box(e2b_live *m, const cli_args *a, struct agent_box *b)
{
    char *text = prompt_text(a);
    if (!text)
        return 1;
    wait_model(m, b);
    struct cmd_wait w = {0};
    e2b_error *err = NULL;
    int started = e2b_agent_watch_prompt(b->w, NULL, a->new_session, text, on_cmd, &w, &err);
    free(text);
    int rc = wait_cmd(m, started, err, &w);
    if (rc == 0)
        printf("%s\n", w.session_id ? w.session_id : "");
    free(w.session_id);
    return rc;
}

static int cli_prompt(e2b_live *m, const cli_args *a)
{
    struct agent_box b;
    int rc = one_box(m, a, &b);
    if (rc == 0)
        rc = prompt_box(m, a, &b);
    box_clear(&b);
    return rc;
}

int cli_agent_prompt_after_up(e2b_live *m, const cli_args *a, const char *name)
{
    struct agent_box b;
    int rc = read_box(m, a, name, &b);
    if (rc)
        return rc;
    box_start(m, &b);
    if (!b.w) {
        fprintf(stderr, "e2b-tui: box %s is up but its agent cannot be reached\n", name);
        box_clear(&b);
        return 1;
    }
    run_until_settled(m, &b, 1);
    rc = prompt_box(m, a, &b);
    box_clear(&b);
    return rc;
}

static int cli_reply(e2b_live *m, const cli_args *a)
{
    struct agent_box b;
    int rc = one_box(m, a, &b);
    if (rc == 0) {
        struct cmd_wait w = {0};
        e2b_error *err = NULL;
        int started = e2b_agent_watch_reply(b.w, a->request_id, a->reply, on_cmd, &w, &err);
        rc = wait_cmd(m, started, err, &w);
        if (rc == 0)
            printf("replied %s\n", e2b_agent_reply_name(a->reply));
        free(w.session_id);
    }
    box_clear(&b);
    return rc;
}

static int cli_interrupt(e2b_live *m, const cli_args *a)
{
    struct agent_box b;
    int rc = one_box(m, a, &b);
    if (rc == 0) {
        struct cmd_wait w = {0};
        e2b_error *err = NULL;
        /* An idle agent has no turn to stop: the interrupt still goes to its session (a
         * turn may be starting), but it is told there was nothing to interrupt. */
        bool idle = e2b_agent_watch_status(b.w)->state == E2B_AGENT_IDLE;
        int started = e2b_agent_watch_interrupt(b.w, on_cmd, &w, &err);
        if (started < 0 && err && err->kind == E2B_ERR_NOT_FOUND && idle) {
            printf("nothing to interrupt: box %s's agent is idle (no session)\n", b.rec.name);
            e2b_error_free(err);
            rc = 0;
        } else {
            rc = wait_cmd(m, started, err, &w);
            if (rc == 0 && idle)
                printf("nothing to interrupt: box %s's agent is idle\n", b.rec.name);
            else if (rc == 0)
                printf("interrupted\n");
        }
        free(w.session_id);
    }
    box_clear(&b);
    return rc;
}

/* ---- --wait ---- */

/* An idle box that was never seen working is given this long to start (a prompt sent just
 * before --wait may not have begun its turn yet; a server may look idle between a turn's
 * steps): then how its last turn ended (read from its newest message) decides. */
#define IDLE_GRACE_MS 2000

static int cli_wait(e2b_live *m, const cli_args *a)
{
    struct agent_box b;
    int rc = one_box(m, a, &b);
    if (rc) {
        box_clear(&b);
        return rc;
    }
    int64_t start = e2b_now_ms();
    int64_t end = a->timeout_s > 0 ? start + (int64_t)a->timeout_s * 1000 : 0;
    bool seen_turn = false;
    for (;;) {
        const e2b_agent_status *st = e2b_agent_watch_status(b.w);
        int64_t now = e2b_now_ms();
        if (st->state == E2B_AGENT_WORKING || st->state == E2B_AGENT_RETRYING)
            seen_turn = true;
        if (st->state == E2B_AGENT_WAITING && e2b_agent_watch_synced(b.w)) {
            char buf[1200];
            cli_clean(st->requests[0].summary, buf, sizeof buf);
            fprintf(stderr, "e2b-tui: box %s is waiting for you: %s (request %s)\n", b.rec.name,
                    buf, st->requests[0].id);
            rc = EXIT_WAITING;
            break;
        }
        if (st->state == E2B_AGENT_IDLE && e2b_agent_watch_synced(b.w) &&
            ((seen_turn && st->last_end != E2B_AGENT_END_NONE) || now - start >= IDLE_GRACE_MS)) {
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
                    e2b_agent_state_name(st->state), a->timeout_s);
            rc = EXIT_TIMED_OUT;
            break;
        }
        e2b_loop_run_once(e2b_live_loop(m), 200);
    }
    box_clear(&b);
    return rc;
}

int cli_agent(e2b_live *m, const cli_args *a)
{
    int rc = cli_open_keystore(m, a);
    if (rc)
        return rc;
    switch (a->mode) {
    case CLI_STATUS: return cli_status(m, a);
    case CLI_PROMPT: return cli_prompt(m, a);
    case CLI_WAIT: return cli_wait(m, a);
    case CLI_REPLY: return cli_reply(m, a);
    case CLI_INTERRUPT: return cli_interrupt(m, a);
    default: return 1;
    }
}
