#include "core/live/live_changes.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/box/records.h"
#include "core/e2b/envd.h"
#include "core/live/live_internal.h"
#include "core/util/buf.h"
#include "core/util/limits.h"
#include "core/util/log.h"
#include "core/util/sanitize.h"

enum { SCRIPT_TIMEOUT_MS = 60000, TAB_WIDTH = 8,
       EDIT_READ_MS = 2000 /* at most one read per this long for the agent's edits */ };

enum read_kind { READ_LIST, READ_DIFF };

struct live_changes {
    e2b_live *m;
    char id[128];
    char *dir;  /* the project directory in the box (from the record), NULL = unknown */
    char base[41];

    e2b_changes_list list;
    bool listed;
    struct e2b_live_lines diff;
    char *want_path;  /* the selected file (raw), NULL = none */
    char *shown_path; /* the file whose diff is in diff, NULL = none */
    bool diff_ready;

    char status[400];
    bool status_error;

    /* The read on its way (one at a time); the struct goes when closed and none is left. */
    bool want_list, want_diff;
    enum read_kind kind;
    char *asked_path; /* the file of the diff on its way */
    int pending;
    bool closed;
    uint64_t kick_timer;
    e2b_api_call *get_call;
    e2b_envd *envd;
    e2b_http_request *proc;
    e2b_buf out; /* the script's stdout, at most cap bytes */
    size_t cap;
    bool out_cut;

    /* A turn's end (the agent's idle time moves on) reads the list again. */
    bool subscribed;
    int64_t seen_turn_end; /* the idle_since_ms last seen, -1 = nothing seen yet */
    /* The agent's edits (a file tool call done) read the list again, at a bounded rate. */
    int64_t seen_edit_ms;  /* the newest edit's time seen (wall clock ms of its entry) */
    int64_t edit_read_ms;  /* when an edit last asked a read (monotonic), 0 none */
    uint64_t edit_timer;
};

static void kick(struct live_changes *c);
static void on_agents_changed(void *ud, unsigned what);

static void set_status(struct live_changes *c, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_status(struct live_changes *c, bool error, const char *fmt, ...)
{
    char raw[sizeof c->status];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* It carries text from the network (error messages, the box's own words). */
    char *safe = e2b_sanitize_display(raw, strlen(raw), 0);
    snprintf(c->status, sizeof c->status, "%s", safe ? safe : "");
    free(safe);
    c->status_error = error;
    live_notify(c->m, E2B_LIVE_CHANGES);
}

static void destroy(struct live_changes *c)
{
    if (c->subscribed && !c->m->closing)
        e2b_live_unsubscribe(c->m, on_agents_changed, c);
    e2b_changes_list_clear(&c->list);
    e2b_live_lines_clear(&c->diff);
    e2b_envd_free(c->envd);
    free(c->dir);
    free(c->want_path);
    free(c->shown_path);
    free(c->asked_path);
    e2b_buf_clear(&c->out);
    free(c);
}

/* A callback's first words: true when c is closed (and frees it when it was the last). */
static bool finished_closed(struct live_changes *c)
{
    c->pending--;
    if (!c->closed && !c->m->closing)
        return false;
    if (c->closed && c->pending == 0)
        destroy(c);
    return true;
}

/* ---- the results ---- */

/* Feeds diff text into the lines with tabs expanded (sanitising would make each one space). */
static void feed_expanded(struct e2b_live_lines *l, const char *s, size_t n)
{
    char buf[4096];
    size_t k = 0, col = 0;
    for (size_t i = 0; i < n; i++) {
        if (k + TAB_WIDTH + 1 > sizeof buf) {
            e2b_live_lines_feed(l, buf, k);
            k = 0;
        }
        if (s[i] == '\t') {
            do
                buf[k++] = ' ';
            while (++col % TAB_WIDTH);
        } else {
            buf[k++] = s[i];
            col = s[i] == '\n' ? 0 : col + 1;
        }
    }
    e2b_live_lines_feed(l, buf, k);
}

static void now_text(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, n, "%H:%M:%S", &tm);
}

static bool in_list(const e2b_changes_list *l, const char *raw)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->files[i].raw, raw) == 0)
            return true;
    return false;
}

static void list_arrived(struct live_changes *c)
{
    e2b_changes_list nl;
    const char *out = c->out.data ? c->out.data : "";
    e2b_error *e = e2b_changes_parse_list(out, c->out.len, E2B_CHANGES_FILES, &nl);
    if (e) {
        set_status(c, true, "cannot read the changes: %s — R tries again", e2b_error_message(e));
        e2b_error_free(e);
        return;
    }
    if (c->out_cut)
        nl.cut = true;
    e2b_changes_list_clear(&c->list);
    c->list = nl;
    c->listed = true;
    /* The selected file: read its diff again, or drop it when it no longer differs. */
    if (c->want_path && !in_list(&c->list, c->want_path)) {
        free(c->want_path);
        c->want_path = NULL;
    }
    if (c->want_path) {
        c->want_diff = true;
    } else {
        free(c->shown_path);
        c->shown_path = NULL;
        e2b_live_lines_clear(&c->diff);
        c->diff_ready = false;
    }
    char when[16];
    now_text(when, sizeof when);
    set_status(c, false, "read at %s — R reads again", when);
}

static void diff_arrived(struct live_changes *c)
{
    size_t off = 0;
    const char *out = c->out.data ? c->out.data : "";
    e2b_error *e = e2b_changes_parse_diff_header(out, c->out.len, &off);
    if (e) {
        set_status(c, true, "cannot read the diff: %s — R tries again", e2b_error_message(e));
        e2b_error_free(e);
        return;
    }
    e2b_live_lines_clear(&c->diff);
    feed_expanded(&c->diff, c->out.data + off, c->out.len - off);
    if (c->out.len - off == 0)
        e2b_live_lines_add(&c->diff, "(no difference in the work tree any more)");
    if (c->out_cut || c->out.len - off >= E2B_CHANGES_DIFF_BYTES)
        e2b_live_lines_add(&c->diff,
                           "[... the diff is longer than 1 MiB: the rest is not shown ...]");
    free(c->shown_path);
    c->shown_path = c->asked_path;
    c->asked_path = NULL;
    c->diff_ready = true;
    live_notify(c->m, E2B_LIVE_CHANGES);
}

/* ---- the script ---- */

static int on_proc_event(void *ud, const e2b_process_event *ev)
{
    struct live_changes *c = ud;
    if (c->closed)
        return 1;
    if (ev->type != E2B_PROC_STDOUT || c->out_cut)
        return 0;
    size_t room = c->cap - c->out.len;
    size_t n = ev->len < room ? ev->len : room;
    if (n < ev->len)
        c->out_cut = true; /* the box printed more than its own cap allows */
    if (e2b_buf_add(&c->out, ev->data, n) != 0)
        c->out_cut = true;
    return 0;
}

static void on_proc_done(void *ud, const e2b_error *err)
{
    struct live_changes *c = ud;
    c->proc = NULL;
    if (finished_closed(c))
        return;
    if (err) {
        set_status(c, true, "cannot read the changes in the box (%s) — R tries again",
                   e2b_error_message(err));
        /* envd's token may have changed (a resume): ask E2B again next time. */
        e2b_envd_free(c->envd);
        c->envd = NULL;
    } else if (c->kind == READ_LIST) {
        list_arrived(c);
    } else {
        diff_arrived(c);
    }
    e2b_buf_clear(&c->out);
    c->out = (e2b_buf){0}; /* forgets a failed add too */
    kick(c);
}

static void run_script(struct live_changes *c)
{
    char cap[32];
    size_t bytes = c->kind == READ_LIST ? E2B_CHANGES_LIST_BYTES : E2B_CHANGES_DIFF_BYTES;
    snprintf(cap, sizeof cap, "%zu", bytes);
    c->cap = bytes + 64; /* the diff's header record comes on top of its cap */
    c->out_cut = false;
    e2b_metadata env = {0};
    e2b_metadata_set(&env, "E2B_TUI_DIR", c->dir);
    e2b_metadata_set(&env, "E2B_TUI_BASE", c->base);
    e2b_metadata_set(&env, "E2B_TUI_MODE", c->kind == READ_LIST ? "list" : "diff");
    e2b_metadata_set(&env, "E2B_TUI_FILE", c->asked_path ? c->asked_path : "");
    e2b_metadata_set(&env, "E2B_TUI_CAP", cap);
    const char *args[] = {"-c", e2b_changes_script_text(), NULL};
    e2b_process_spec spec = {.cmd = "/bin/bash", .args = args, .envs = &env,
                             .timeout_ms = SCRIPT_TIMEOUT_MS};
    e2b_error *err = NULL;
    c->proc = e2b_envd_process_start(c->envd, &spec, on_proc_event, on_proc_done, c, &err);
    e2b_metadata_clear(&env);
    if (!c->proc) {
        set_status(c, true, "cannot run git in the box (%s) — R tries again",
                   err ? e2b_error_message(err) : "out of memory");
        e2b_error_free(err);
        return;
    }
    c->pending++;
}

/* ---- a read: the sandbox first (unless envd is known), then the script ---- */

static void on_sandbox(void *ud, e2b_sandbox *sb, long status, const e2b_error *err)
{
    struct live_changes *c = ud;
    (void)status;
    c->get_call = NULL;
    if (finished_closed(c)) {
        e2b_sandbox_free(sb);
        return;
    }
    if (err && err->kind == E2B_ERR_NOT_FOUND) {
        set_status(c, true, "the sandbox is gone (killed or timed out) — Esc closes the pane");
    } else if (err || !sb) {
        set_status(c, true, "cannot reach E2B (%s) — R tries again",
                   err ? e2b_error_message(err) : "no reply");
    } else if (sb->state != E2B_STATE_RUNNING) {
        set_status(c, true, "sandbox %s — r resumes it, then R reads the changes",
                   e2b_sandbox_state_name(sb->state));
    } else {
        e2b_error *e = NULL;
        e2b_envd_free(c->envd);
        c->envd = e2b_envd_new(c->m->loop, &c->m->cfg, sb, NULL, &e);
        if (c->envd) {
            run_script(c);
        } else {
            set_status(c, true, "cannot reach envd (%s) — R tries again",
                       e ? e2b_error_message(e) : "out of memory");
            e2b_error_free(e);
        }
    }
    e2b_sandbox_free(sb);
    if (!c->proc)
        kick(c); /* a diff asked meanwhile still gets its turn (and its error) */
}

static void on_kick(void *ud)
{
    struct live_changes *c = ud;
    c->kick_timer = 0;
    if (c->closed || c->get_call || c->proc)
        return;
    if (c->want_list) {
        c->want_list = false;
        c->kind = READ_LIST;
    } else if (c->want_diff && c->want_path) {
        c->want_diff = false;
        c->kind = READ_DIFF;
        free(c->asked_path);
        c->asked_path = strdup(c->want_path);
        if (!c->asked_path)
            return;
    } else {
        c->want_diff = false;
        return;
    }
    if (!c->dir) {
        set_status(c, true, "no record of this box on this machine: the project directory in "
                            "the box is not known here");
        return;
    }
    /* A list asks E2B each time (the state, a new token after a resume); a diff reuses
     * envd while it answers. */
    if (c->envd && c->kind == READ_DIFF) {
        run_script(c);
        return;
    }
    if (!c->m->client) {
        set_status(c, true, "no API key (set E2B_API_KEY)");
        return;
    }
    if (c->kind == READ_LIST && !c->listed)
        set_status(c, false, "reading the changes in the box...");
    e2b_error *err = NULL;
    c->get_call = e2b_api_get(c->m->client, c->id, on_sandbox, c, &err);
    if (!c->get_call) {
        set_status(c, true, "%s — R tries again", err ? e2b_error_message(err) : "no request");
        e2b_error_free(err);
        return;
    }
    c->pending++;
}

/* Starts the next read soon (never inside a transfer's callback). */
static void kick(struct live_changes *c)
{
    if (c->closed || c->get_call || c->proc || c->kick_timer)
        return;
    if (!c->want_list && !(c->want_diff && c->want_path))
        return;
    c->kick_timer = e2b_loop_timer_add(c->m->loop, 0, on_kick, c);
}

/* ---- the agent's turns and edits ---- */

/* A tool call that writes files (OpenCode's edit, write, patch tools, and bash). */
static bool edits_files(const char *tool)
{
    static const char *const tools[] = {"edit", "write", "apply_patch", "patch", "multiedit",
                                        "bash"};
    for (size_t i = 0; tool && i < sizeof tools / sizeof *tools; i++)
        if (!strcmp(tool, tools[i]))
            return true;
    return false;
}

/* The newest finished file-writing tool call's time in st's activity (0 none). */
static int64_t newest_edit(const e2b_agent_status *st)
{
    int64_t t = 0;
    for (size_t i = 0; i < st->nactivity; i++) {
        const e2b_agent_activity *a = &st->activity[i];
        if (a->kind == E2B_AGENT_ACT_TOOL && a->state && !strcmp(a->state, "completed") &&
            edits_files(a->tool) && a->at_ms > t)
            t = a->at_ms;
    }
    return t;
}

static void on_edit_timer(void *ud)
{
    struct live_changes *c = ud;
    c->edit_timer = 0;
    if (c->closed)
        return;
    c->edit_read_ms = e2b_now_ms();
    e2b_live_changes_refresh(c);
}

/* An edit seen: a read now, or when EDIT_READ_MS has passed since the last one asked. */
static void edit_seen(struct live_changes *c)
{
    if (c->edit_timer)
        return; /* one is due: it reads what this edit did too */
    int64_t now = e2b_now_ms(), wait = 0;
    if (c->edit_read_ms && now - c->edit_read_ms < EDIT_READ_MS)
        wait = EDIT_READ_MS - (now - c->edit_read_ms);
    c->edit_timer = e2b_loop_timer_add(c->m->loop, (long)wait, on_edit_timer, c);
}

static void on_agents_changed(void *ud, unsigned what)
{
    struct live_changes *c = ud;
    (void)what;
    if (c->closed)
        return;
    const e2b_agent_status *st = e2b_live_agent(c->m, c->id);
    if (!st)
        return;
    int64_t edit = newest_edit(st);
    if (edit > c->seen_edit_ms) {
        c->seen_edit_ms = edit;
        edit_seen(c);
    }
    int64_t end = st->state == E2B_AGENT_IDLE ? st->idle_since_ms : 0;
    bool ended = c->seen_turn_end >= 0 && end != 0 && end != c->seen_turn_end;
    c->seen_turn_end = end;
    if (ended)
        e2b_live_changes_refresh(c); /* a timer starts the read: not inside this callback */
}

/* ---- the interface ---- */

/* The project directory and base from the box's record (the directory is not in the
 * sandbox's metadata); the base falls back to the metadata. */
static void read_record(struct live_changes *c)
{
    const e2b_sandbox *sb = e2b_live_sandbox(c->m, c->id);
    if (!sb || !sb->box_name || !*sb->box_name)
        return;
    if (sb->box_base)
        snprintf(c->base, sizeof c->base, "%s", sb->box_base);
    e2b_box_record rec = {0};
    e2b_error *err = e2b_box_record_read(c->m->cfg.records_dir, sb->box_name, &rec);
    if (err) {
        e2b_error_free(err);
        return;
    }
    if (rec.sandbox_id && strcmp(rec.sandbox_id, c->id) == 0 && rec.dir && rec.dir[0] == '/') {
        c->dir = strdup(rec.dir);
        if (rec.base && rec.base[0])
            snprintf(c->base, sizeof c->base, "%s", rec.base);
    }
    e2b_box_record_clear(&rec);
}

struct live_changes *e2b_live_changes_open(e2b_live *m, const char *sandbox_id)
{
    struct live_changes *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->m = m;
    snprintf(c->id, sizeof c->id, "%s", sandbox_id);
    e2b_live_lines_init(&c->diff, E2B_CHANGES_DIFF_LINES);
    read_record(c);
    const e2b_agent_status *st = e2b_live_agent(m, c->id);
    c->seen_turn_end = !st ? -1 : st->state == E2B_AGENT_IDLE ? st->idle_since_ms : 0;
    c->seen_edit_ms = st ? newest_edit(st) : 0; /* (the read below shows them) */
    c->subscribed = e2b_live_subscribe(m, E2B_LIVE_AGENTS, on_agents_changed, c) == 0;
    e2b_live_changes_refresh(c);
    return c;
}

void e2b_live_changes_close(struct live_changes *c)
{
    if (!c)
        return;
    c->closed = true;
    if (c->subscribed && !c->m->closing)
        e2b_live_unsubscribe(c->m, on_agents_changed, c);
    c->subscribed = false;
    if (c->kick_timer)
        e2b_loop_timer_cancel(c->m->loop, c->kick_timer);
    c->kick_timer = 0;
    if (c->edit_timer)
        e2b_loop_timer_cancel(c->m->loop, c->edit_timer);
    c->edit_timer = 0;
    if (c->get_call)
        e2b_api_cancel(c->get_call);
    if (c->proc)
        e2b_http_cancel(c->proc);
    if (c->pending == 0)
        destroy(c);
}

void e2b_live_changes_refresh(struct live_changes *c)
{
    if (!c)
        return;
    c->want_list = true;
    kick(c);
}

void e2b_live_changes_select(struct live_changes *c, const char *raw_path)
{
    if (!c || !raw_path)
        return;
    if (!*raw_path) {
        free(c->want_path);
        c->want_path = NULL;
        c->want_diff = false;
        return;
    }
    if (c->want_path && strcmp(c->want_path, raw_path) == 0)
        return;
    char *p = strdup(raw_path);
    if (!p)
        return;
    free(c->want_path);
    c->want_path = p;
    c->want_diff = true;
    c->diff_ready = false;
    kick(c);
}

const e2b_changes_list *e2b_live_changes_list(const struct live_changes *c, bool *listed)
{
    if (listed)
        *listed = c->listed;
    return &c->list;
}

struct e2b_live_lines *e2b_live_changes_diff(struct live_changes *c)
{
    return &c->diff;
}

const char *e2b_live_changes_diff_path(const struct live_changes *c, bool *diff_ready)
{
    bool same = c->shown_path && c->want_path && strcmp(c->shown_path, c->want_path) == 0;
    if (diff_ready)
        *diff_ready = c->diff_ready && same;
    return c->want_path ? c->want_path : "";
}

const char *e2b_live_changes_status(const struct live_changes *c, bool *error)
{
    if (error)
        *error = c->status_error;
    return c->status;
}

bool e2b_live_changes_busy(const struct live_changes *c)
{
    return c->get_call || c->proc || c->kick_timer;
}
