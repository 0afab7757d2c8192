/* The Agent pane (tui/views/view_agent.h). */
#include "tui/views/view_agent.h"

#include "core/e2b/cost.h"
#include "core/util/sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/net/loop.h"
#include "tui/agent_text.h"
#include "tui/sandbox_rows.h"
#include "tui/term/term.h"
#include "tui/views/agent_actions.h"
#include "tui/views/view_changes.h"
#include "tui/widgets/draw.h"
#include "tui/widgets/textwidth.h"

enum { FRAME_MS = 100, REQUEST_ROWS = 8, CHANGES_SETTLE_MS = 300 };

enum agent_tab { TAB_ACTIVITY, TAB_CHANGES };
enum agent_focus { FOCUS_SESSIONS, FOCUS_ACTIVITY };

struct agent_view {
    struct ui *ui;
    char id[128];
    char name[128];
    enum agent_tab tab;
    enum agent_focus focus;
    char session[256]; /* the selected session ("" = the active one) */
    int back;          /* activity rows scrolled back from the end (0 = following) */
    int page;          /* activity rows drawn last */
    bool tool_input;   /* tool calls whole, their raw input (v), not one line each */
    struct changes_panel *changes; /* made when the tab is first shown */
    /* Another box shown while the Changes tab is: its panel is made once the choice rests
     * (one read of the box's git per box looked at, not per key). */
    uint64_t changes_timer;
    bool preview; /* beside the Boxes list: no sessions, no keys of its own */
    /* Coalescing: the last frame asked for, and the timer that asks for the next. */
    int64_t last_frame_ms;
    uint64_t frame_timer;
};

static const e2b_agent_status *status_of(struct agent_view *av)
{
    return e2b_live_agent(av->ui->model, av->id);
}

/* The session shown: the one chosen, else the box's active one. */
static const char *shown_session(struct agent_view *av, const e2b_agent_status *st)
{
    if (av->session[0])
        return av->session;
    return st && st->session_id ? st->session_id : "";
}

/* ---- coalesced frames ---- */

static void on_frame_timer(void *ud)
{
    struct agent_view *av = ud;
    av->frame_timer = 0;
    av->last_frame_ms = e2b_now_ms();
    av->ui->dirty = true;
}

/* A change to show: a frame now when the last was 100 ms ago, else one when it is. */
static void want_frame(struct agent_view *av)
{
    int64_t now = e2b_now_ms();
    if (av->frame_timer)
        return;
    if (now - av->last_frame_ms >= FRAME_MS) {
        av->last_frame_ms = now;
        av->ui->dirty = true;
        return;
    }
    av->frame_timer = e2b_loop_timer_add(e2b_live_loop(av->ui->model),
                                         (long)(FRAME_MS - (now - av->last_frame_ms)),
                                         on_frame_timer, av);
    if (!av->frame_timer)
        av->ui->dirty = true;
}

/* The Changes tab's panel of the box shown (said when out of memory). */
static void make_changes(struct agent_view *av)
{
    if (!av->changes)
        av->changes = changes_panel_new(av->ui, av->id, av->name);
    if (!av->changes)
        ui_flash(av->ui, FLASH_ERROR, "changes: out of memory");
}

static void on_changes_timer(void *ud)
{
    struct agent_view *av = ud;
    av->changes_timer = 0;
    if (av->tab == TAB_CHANGES)
        make_changes(av);
    av->ui->dirty = true;
}

static void drop_changes(struct agent_view *av)
{
    if (av->changes_timer)
        e2b_loop_timer_cancel(e2b_live_loop(av->ui->model), av->changes_timer);
    av->changes_timer = 0;
    changes_panel_free(av->changes);
    av->changes = NULL;
}

/* Shows another box: its active session, following its activity; the Changes tab's panel
 * of the old box goes and the new one's comes once the choice rests. */
static void show_box(struct agent_view *av, const char *id, const char *name)
{
    if (!strcmp(av->id, id))
        return;
    snprintf(av->id, sizeof av->id, "%s", id);
    snprintf(av->name, sizeof av->name, "%s", name);
    av->session[0] = '\0';
    av->back = 0;
    drop_changes(av);
    if (av->tab == TAB_CHANGES)
        av->changes_timer = e2b_loop_timer_add(e2b_live_loop(av->ui->model), CHANGES_SETTLE_MS,
                                               on_changes_timer, av);
    if (av->tab == TAB_CHANGES && !av->changes_timer)
        make_changes(av);
    av->ui->dirty = true;
}

static void changed(struct view *v, struct ui *ui, unsigned what)
{
    struct agent_view *av = v->priv;
    if (av->changes && av->tab == TAB_CHANGES)
        changes_panel_changed(av->changes, ui, what);
    if (what & (E2B_LIVE_AGENTS | E2B_LIVE_SANDBOXES | UI_CHANGED_CLOCK))
        want_frame(av);
}

/* ---- drawing ---- */

/* Draws text wrapped into rows of width w from row y; returns the rows used (at most max). */
static int draw_wrapped(int y, int x, int w, int max, int role, const char *text)
{
    int rows = 0;
    const char *s = text;
    while (rows < max && *s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char line[E2B_AGENT_DETAIL_MAX + 1];
        snprintf(line, sizeof line, "%.*s", (int)len, s);
        const char *p = line;
        do {
            size_t fit = text_fit(p, w, NULL);
            if (fit == 0 && *p)
                fit = 1;
            char piece[E2B_AGENT_DETAIL_MAX + 1];
            snprintf(piece, sizeof piece, "%.*s", (int)fit, p);
            draw_text(y + rows, x, w, role, piece, false);
            rows++;
            p += fit;
        } while (*p && rows < max);
        s = nl ? nl + 1 : s + len;
    }
    return rows;
}

static int draw_requests(const e2b_agent_status *st, int y, int x, int h, int w)
{
    int used = 0;
    for (size_t i = 0; i < st->nrequests && used < h; i++) {
        const e2b_agent_request *r = &st->requests[i];
        char head[600];
        snprintf(head, sizeof head, "! WAITING FOR YOU: %s", r->summary ? r->summary : "?");
        draw_text(y + used++, x, w, ROLE_WAITING, head, true);
        if (r->detail && r->detail[0] && used < h)
            used += draw_wrapped(y + used, x + 2, w - 2, h - used < REQUEST_ROWS ? h - used : REQUEST_ROWS,
                                 ROLE_NORMAL, r->detail);
        for (size_t k = 0; r->question && k < r->noptions && used < h; k++) {
            char opt[600];
            snprintf(opt, sizeof opt, "%zu. %s%s%s", k + 1, r->option_labels[k],
                     r->option_descs[k][0] ? " - " : "", r->option_descs[k]);
            draw_text(y + used++, x + 2, w - 2, ROLE_NORMAL, opt, false);
        }
        if (r->nalways && used < h) {
            char pat[400];
            size_t k = (size_t)snprintf(pat, sizeof pat, "always would save:");
            for (size_t j = 0; j < r->nalways && k < sizeof pat; j++)
                k += (size_t)snprintf(pat + k, sizeof pat - k, " %s", r->always[j]);
            draw_text(y + used++, x + 2, w - 2, ROLE_DIM, pat, false);
        }
        if (used < h)
            draw_text(y + used++, x + 2, w - 2, ROLE_DIM,
                      r->question ? r->custom ? "A: answer (an option's number, or your own words)"
                                              : "A: answer (an option's number)"
                                  : "y: allow once   Y: allow always (asks)   n: reject",
                      false);
    }
    return used;
}

/* " (…a1b2c3)", the end of the session's id, when another session has its title (two
 * sessions with one title told apart); else "". Linear in the sessions (bounded). */
static void session_tell(const e2b_agent_status *st, const e2b_agent_session *s, char *buf,
                         size_t n)
{
    buf[0] = '\0';
    const char *t = s->title ? s->title : "";
    for (size_t k = 0; k < st->nsessions; k++) {
        const e2b_agent_session *o = &st->sessions[k];
        if (o != s && !strcmp(o->title ? o->title : "", t)) {
            size_t len = strlen(s->id);
            snprintf(buf, n, " (...%s)", len > 6 ? s->id + len - 6 : s->id);
            return;
        }
    }
}

static int draw_sessions(struct agent_view *av, const e2b_agent_status *st, int y, int x, int h,
                         int w)
{
    draw_text(y, x, w, ROLE_HEADER, "SESSIONS", true);
    const char *shown = shown_session(av, st);
    int used = 1;
    if (st->nsessions == 0)
        draw_text(y + used++, x + 1, w - 1, ROLE_DIM, "none yet (m starts one)", false);
    for (size_t i = 0; i < st->nsessions && used < h; i++) {
        const e2b_agent_session *s = &st->sessions[i];
        bool sel = strcmp(s->id, shown) == 0;
        char line[600], tell[40];
        session_tell(st, s, tell, sizeof tell);
        snprintf(line, sizeof line, "%s %s %s%s", sel ? ">" : " ", s->busy ? "busy" : "idle",
                 s->title && s->title[0] ? s->title : "(untitled)", tell);
        int role = sel ? (av->focus == FOCUS_SESSIONS ? ROLE_SELECTED : ROLE_INFO)
                   : s->busy ? ROLE_HUNK : ROLE_NORMAL;
        draw_text(y + used++, x, w, role, line, true);
    }
    return used;
}

static int draw_todos(const e2b_agent_status *st, int y, int x, int h, int w)
{
    char head[64];
    snprintf(head, sizeof head, "TODO %u/%u", st->todo_done, st->todo_total);
    draw_text(y, x, w, ROLE_HEADER, head, true);
    int used = 1;
    if (st->ntodos == 0 && used < h)
        draw_text(y + used++, x + 1, w - 1, ROLE_DIM, "no todo list", false);
    for (size_t i = 0; i < st->ntodos && used < h; i++) {
        const e2b_agent_todo *t = &st->todos[i];
        const char *mark = !t->status ? "[ ]"
                           : !strcmp(t->status, "completed") ? "[x]"
                           : !strcmp(t->status, "in_progress") ? "[>]"
                           : !strcmp(t->status, "cancelled") ? "[-]" : "[ ]";
        char line[400];
        snprintf(line, sizeof line, "%s %s", mark, t->content ? t->content : "");
        int role = mark[1] == 'x' ? ROLE_DIM : mark[1] == '>' ? ROLE_HUNK : ROLE_NORMAL;
        draw_text(y + used++, x, w, role, line, false);
    }
    return used;
}

/* One activity row: a piece of text of an entry and its role. */
struct act_row {
    const char *text;
    size_t len;
    int role;
};

/* Whether a permission request of the call's session for its tool waits: the call waits for
 * the user, it does not run. */
static bool tool_waits(const e2b_agent_status *st, const e2b_agent_activity *a)
{
    for (size_t i = 0; a->tool && i < st->nrequests; i++) {
        const e2b_agent_request *r = &st->requests[i];
        if (!r->question && r->action && !strcmp(r->action, a->tool) &&
            (!a->session_id || !r->session_id || !strcmp(a->session_id, r->session_id)))
            return true;
    }
    return false;
}

/* A tool call as one line of what it does: "todo: 1/2 check it", "bash: python3 -m
 * unittest", "edit: todo.py"; its state by the row's colour, an error in words, a call
 * that waits for a permission reply "[waiting for you]". The todo list's JSON is the
 * status's list, counted (the raw input is v away). */
static char *tool_line(const e2b_agent_status *st, const e2b_agent_activity *a)
{
    const char *tool = a->tool ? a->tool : "?";
    const char *text = a->text ? a->text : "";
    size_t first_line = strcspn(text, "\n");
    const char *state = a->state ? a->state : "";
    bool live = !strcmp(state, "running") || !strcmp(state, "pending");
    const char *mark = !strcmp(state, "error")     ? " [error]"
                       : live && tool_waits(st, a) ? " [waiting for you]"
                       : !strcmp(state, "running") ? " [running]"
                       : !strcmp(state, "pending") ? " [pending]"
                                                   : "";
    char *line = NULL;
    int rc;
    if (!strncmp(tool, "todo", 4) && strcmp(state, "error") != 0) {
        const char *now = "";
        for (size_t i = 0; i < st->ntodos && !now[0]; i++) {
            if (st->todos[i].status && !strcmp(st->todos[i].status, "in_progress"))
                now = st->todos[i].content ? st->todos[i].content : "";
        }
        for (size_t i = 0; i < st->ntodos && !now[0]; i++) {
            if (st->todos[i].status && !strcmp(st->todos[i].status, "pending"))
                now = st->todos[i].content ? st->todos[i].content : "";
        }
        rc = asprintf(&line, "todo: %u/%u%s%s%s", st->todo_done, st->todo_total, now[0] ? " " : "",
                      now, mark);
    } else {
        rc = asprintf(&line, "%s: %.*s%s%s", tool, (int)first_line, text,
                      text[first_line] ? " ..." : "", mark);
    }
    if (rc < 0)
        return NULL;
    /* Model text (the todo's words, the command): sanitised again, as one line. */
    char *safe = e2b_sanitize_display(line, strlen(line), 0);
    free(line);
    return safe;
}

/* The rows of the shown session's activity, wrapped to w (caller frees *rows); a tool call
 * is one row (tool_line) unless tool_input shows it whole. */
static size_t activity_rows(const e2b_agent_status *st, const char *session, int w,
                            bool tool_input, struct act_row **rows, char ***owned, size_t *nowned)
{
    size_t n = 0, cap = 0;
    *rows = NULL;
    *owned = calloc(st->nactivity ? st->nactivity : 1, sizeof **owned);
    *nowned = 0;
    for (size_t i = 0; i < st->nactivity && *owned; i++) {
        const e2b_agent_activity *a = &st->activity[i];
        if (session[0] && a->session_id && strcmp(a->session_id, session) != 0)
            continue;
        char *text = NULL;
        int role = ROLE_NORMAL;
        bool one_row = false;
        if (a->kind == E2B_AGENT_ACT_TOOL && !tool_input) {
            text = tool_line(st, a);
            one_row = true;
            role = a->state && !strcmp(a->state, "error") ? ROLE_REMOVED
                   : a->state && !strcmp(a->state, "completed") ? ROLE_DIM : ROLE_HUNK;
        } else if (a->kind == E2B_AGENT_ACT_TOOL) {
            if (asprintf(&text, "tool %s [%s] %s", a->tool ? a->tool : "?",
                         a->state ? a->state : "?", a->text ? a->text : "") < 0)
                text = NULL;
            role = a->state && !strcmp(a->state, "error") ? ROLE_REMOVED
                   : a->state && !strcmp(a->state, "completed") ? ROLE_DIM : ROLE_HUNK;
        } else if (a->kind == E2B_AGENT_ACT_ERROR) {
            if (asprintf(&text, "error: %s", a->text ? a->text : "") < 0)
                text = NULL;
            role = ROLE_REMOVED;
        } else if (a->kind == E2B_AGENT_ACT_PROMPT) { /* a turn begins: the user's words */
            char at[8] = "";
            time_t t = (time_t)(a->at_ms / 1000);
            struct tm tm;
            if (a->at_ms > 0 && localtime_r(&t, &tm))
                strftime(at, sizeof at, " %H:%M", &tm);
            if (asprintf(&text, "── you%s: %s", at, a->text ? a->text : "") < 0)
                text = NULL;
            role = ROLE_INFO;
        } else if (a->kind == E2B_AGENT_ACT_NOTE) { /* e2b-tui's own: a rule's answer */
            if (asprintf(&text, "e2b-tui: %s", a->text ? a->text : "") < 0)
                text = NULL;
            role = ROLE_INFO;
        } else {
            text = strdup(a->text ? a->text : "");
        }
        if (!text)
            continue;
        (*owned)[(*nowned)++] = text;
        if (one_row) { /* cut to the width, never wrapped */
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                struct act_row *r = realloc(*rows, cap * sizeof *r);
                if (!r)
                    return n;
                *rows = r;
            }
            (*rows)[n++] = (struct act_row){text, text_fit(text, w, NULL), role};
            continue;
        }
        const char *s = text;
        for (;;) {
            const char *nl = strchr(s, '\n');
            size_t len = nl ? (size_t)(nl - s) : strlen(s);
            size_t off = 0;
            do {
                char tmp[E2B_AGENT_TAIL_MAX + 1];
                snprintf(tmp, sizeof tmp, "%.*s", (int)(len - off), s + off);
                size_t fit = text_fit(tmp, w, NULL);
                if (fit == 0 && len > off)
                    fit = 1;
                if (n == cap) {
                    cap = cap ? cap * 2 : 64;
                    struct act_row *r = realloc(*rows, cap * sizeof *r);
                    if (!r)
                        return n;
                    *rows = r;
                }
                (*rows)[n++] = (struct act_row){s + off, fit, role};
                off += fit;
            } while (off < len);
            if (!nl)
                break;
            s = nl + 1;
        }
    }
    return n;
}

static void draw_activity(struct agent_view *av, const e2b_agent_status *st, int y, int x, int h,
                          int w)
{
    char head[200];
    snprintf(head, sizeof head, "ACTIVITY%s", av->back ? "  (scrolled back; End follows)" : "");
    draw_text(y, x, w, ROLE_HEADER, head, true);
    int rows_h = h - 1;
    av->page = rows_h > 0 ? rows_h : 1;
    struct act_row *rows = NULL;
    char **owned = NULL;
    size_t nowned = 0;
    size_t n = activity_rows(st, shown_session(av, st), w - 1, av->tool_input, &rows, &owned,
                             &nowned);
    if (n == 0)
        draw_text(y + 1, x + 1, w - 1, ROLE_DIM, "nothing yet", false);
    int max_back = (int)n > rows_h ? (int)n - rows_h : 0;
    if (av->back > max_back)
        av->back = max_back;
    size_t first = n > (size_t)rows_h ? n - (size_t)rows_h - (size_t)av->back : 0;
    for (int i = 0; i < rows_h && first + (size_t)i < n; i++) {
        const struct act_row *r = &rows[first + (size_t)i];
        char line[E2B_AGENT_TAIL_MAX + 1];
        snprintf(line, sizeof line, "%.*s", (int)r->len, r->text);
        draw_text(y + 1 + i, x + 1, w - 1, r->role, line, false);
    }
    for (size_t i = 0; i < nowned; i++)
        free(owned[i]);
    free(owned);
    free(rows);
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    struct agent_view *av = v->priv;
    av->last_frame_ms = e2b_now_ms();
    const e2b_agent_status *st = status_of(av);
    char head[600];
    if (av->preview)
        snprintf(head, sizeof head, "PREVIEW  %s  %s  (P: %s)", av->name,
                 av->tab == TAB_ACTIVITY ? "[Activity] Changes" : "Activity [Changes]",
                 av->tab == TAB_ACTIVITY ? "changes" : "hide");
    else
        snprintf(head, sizeof head, "AGENT  %s (%s)  %s  (c: %s; Tab: %s; ( ): box; Esc: back)",
                 av->name, av->id,
                 av->tab == TAB_ACTIVITY ? "[Activity] Changes" : "Activity [Changes]",
                 av->tab == TAB_ACTIVITY ? "changes" : "activity",
                 av->tab == TAB_ACTIVITY ? "sessions/activity" : "files/diff");
    draw_text(y, x, w, ROLE_HEADER, head, true);
    if (av->tab == TAB_CHANGES) {
        if (!av->changes && !av->changes_timer)
            make_changes(av); /* shown again after view_agent_rest */
        if (av->changes)
            changes_panel_draw(av->changes, ui, y + 1, x, h - 1, w);
        else
            draw_text(y + 2, x + 2, w - 2, ROLE_DIM, "Reading the changes...", false);
        return;
    }
    if (!st) {
        draw_text(y + 2, x + 2, w - 2, ROLE_DIM, "This box's agent is not watched (any more).", false);
        return;
    }
    /* The state line: the state in words (coloured), the session, todo, usage, last event. */
    char state[400], extra[300], ago[16];
    e2b_agent_status_line(st, state, sizeof state);
    e2b_agent_ago(st->last_activity_ms, agent_text_now_ms(), ago, sizeof ago);
    char tell[40] = "";
    for (size_t i = 0; st->session_id && i < st->nsessions; i++)
        if (!strcmp(st->sessions[i].id, st->session_id))
            session_tell(st, &st->sessions[i], tell, sizeof tell);
    int k = snprintf(extra, sizeof extra, "   session: %s%s", st->session_title && st->session_title[0]
                                                                ? st->session_title
                                                                : st->session_id ? "(untitled)" : "none",
                     tell);
    if (st->todo_total && k > 0 && (size_t)k < sizeof extra)
        k += snprintf(extra + k, sizeof extra - (size_t)k, "   todo %u/%u", st->todo_done, st->todo_total);
    /* this turn's figures (the sum of its steps; until its first step ends, the last
     * turn's, said so), then the box's (the server's totals) */
    const e2b_agent_usage *turn = &st->turn;
    bool last = false;
    if (!turn->have_tokens && !turn->have_cost &&
        (st->last_turn.have_tokens || st->last_turn.have_cost)) {
        turn = &st->last_turn;
        last = true;
    }
    if ((turn->have_tokens || turn->have_cost) && k > 0 && (size_t)k < sizeof extra) {
        char c[24] = "?";
        if (turn->have_cost)
            e2b_cost_format(turn->cost_usd, c, sizeof c);
        k += snprintf(extra + k, sizeof extra - (size_t)k, "   %sturn %lld in / %lld out %s",
                      last ? "last " : "", (long long)turn->input, (long long)turn->output, c);
    }
    if (st->total.have_cost && k > 0 && (size_t)k < sizeof extra) {
        char c[24];
        e2b_cost_format(st->total.cost_usd, c, sizeof c);
        k += snprintf(extra + k, sizeof extra - (size_t)k, "   agent %s", c);
    }
    if (ago[0] && k > 0 && (size_t)k < sizeof extra)
        snprintf(extra + k, sizeof extra - (size_t)k, "   last event %s ago", ago);
    int sw = text_width(state) + 1;
    if (sw > w - 1)
        sw = w - 1;
    draw_text(y + 1, x + 1, sw, agent_tone_role(agent_text_tone(st)), state, false);
    draw_text(y + 1, x + 1 + sw, w - 1 - sw, ROLE_DIM, extra, false);
    int top = y + 2, left = h - 2;
    if (st->nrequests) {
        int used = draw_requests(st, top, x + 1, left / 2, w - 1);
        top += used;
        left -= used;
    }
    if (left <= 2)
        return;
    /* Sessions and todos on the left (or above on a narrow screen), activity beside; the
     * preview is the activity alone (the state line has the todo count). */
    if (av->preview) {
        draw_activity(av, st, top, x, left, w);
    } else if (w >= 90) {
        int lw = w / 3 > 48 ? 48 : w / 3;
        int su = draw_sessions(av, st, top, x, left / 2, lw);
        draw_todos(st, top + su, x, left - su, lw);
        draw_activity(av, st, top, x + lw + 1, left, w - lw - 1);
    } else {
        int su = draw_sessions(av, st, top, x, left / 4 > 2 ? left / 4 : 2, w);
        int tu = draw_todos(st, top + su, x, left / 4 > 2 ? left / 4 : 2, w);
        draw_activity(av, st, top + su + tu, x, left - su - tu, w);
    }
}

/* ---- keys ---- */

static void move_session(struct agent_view *av, int delta)
{
    const e2b_agent_status *st = status_of(av);
    if (!st || !st->nsessions)
        return;
    const char *cur = shown_session(av, st);
    long i = 0;
    for (size_t k = 0; k < st->nsessions; k++)
        if (strcmp(st->sessions[k].id, cur) == 0)
            i = (long)k;
    i += delta;
    if (i < 0)
        i = 0;
    if (i >= (long)st->nsessions)
        i = (long)st->nsessions - 1;
    snprintf(av->session, sizeof av->session, "%s", st->sessions[i].id);
    av->back = 0;
}

/* ( and ): the previous or next box with an agent in the list the pane was opened over
 * (the Boxes tab when that is not a list of sandboxes), whose cursor follows, so Esc
 * returns to the box shown. */
static void step_box(struct agent_view *av, int dir)
{
    struct ui *ui = av->ui;
    struct view *list = ui->tabs[ui->tab];
    if (!(list->ops->bit & VIEWS_SANDBOXES))
        list = ui->tabs[TAB_BOXES];
    struct table *t = &list->table;
    long from = t->nvisible ? (long)t->cursor : -1;
    for (size_t i = 0; i < t->nvisible; i++)
        if (!strcmp(t->rows[t->visible[i]].id, av->id))
            from = (long)i;
    for (long i = from + dir; i >= 0 && i < (long)t->nvisible; i += dir) {
        const struct table_row *r = &t->rows[t->visible[i]];
        if (!e2b_live_agent(ui->model, r->id))
            continue;
        table_move_to(t, (size_t)i);
        show_box(av, r->id, r->cells[SBCOL_NAME]);
        return;
    }
    ui_flash(ui, FLASH_INFO, "%s: %s is the %s box of the list", action_info(dir < 0 ? ACT_PREV_BOX : ACT_NEXT_BOX)->name,
             av->name, dir < 0 ? "first" : "last");
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    struct agent_view *av = v->priv;
    if (a == ACT_PREV_BOX || a == ACT_NEXT_BOX) {
        step_box(av, a == ACT_PREV_BOX ? -1 : 1);
        return true;
    }
    if (a == ACT_CHANGES) {
        if (!av->changes)
            av->changes = changes_panel_new(ui, av->id, av->name);
        if (!av->changes) {
            ui_flash(ui, FLASH_ERROR, "changes: out of memory");
            return true;
        }
        av->tab = av->tab == TAB_CHANGES ? TAB_ACTIVITY : TAB_CHANGES;
        ui->dirty = true;
        return true;
    }
    if (av->tab == TAB_CHANGES &&
        (a == ACT_ALLOW || a == ACT_ALLOW_ALWAYS || a == ACT_REJECT)) {
        /* an answer only where the request is shown: the Changes tab does not show it */
        ui_flash(ui, FLASH_INFO, "%s: the request is not shown here (c: the activity, where "
                                 "it is answered)", action_info(a)->name);
        return true;
    }
    if (agent_actions_handles(a)) {
        const e2b_agent_status *st = status_of(av);
        const char *s = st ? shown_session(av, st) : "";
        return agent_actions_run(ui, av->id, av->name, s[0] ? s : NULL, a);
    }
    if (av->tab == TAB_CHANGES && av->changes)
        return changes_panel_act(av->changes, ui, a);
    int page = av->page > 1 ? av->page - 1 : 1;
    bool sessions = av->focus == FOCUS_SESSIONS;
    switch (a) {
    case ACT_REREAD: return false;
    case ACT_TOOL_INPUT:
        av->tool_input = !av->tool_input;
        ui_flash(ui, FLASH_INFO, "%s", av->tool_input ? "tool calls whole, with their input (v: one line each)"
                                                      : "tool calls one line each (v: whole)");
        break;
    case ACT_FOCUS: av->focus = sessions ? FOCUS_ACTIVITY : FOCUS_SESSIONS; break;
    case ACT_MOVE_UP:
        if (sessions)
            move_session(av, -1);
        else
            av->back++;
        break;
    case ACT_MOVE_DOWN:
        if (sessions)
            move_session(av, 1);
        else if (av->back > 0)
            av->back--;
        break;
    case ACT_PAGE_UP: av->back += page; break;
    case ACT_PAGE_DOWN: av->back = av->back > page ? av->back - page : 0; break;
    case ACT_FIRST: av->back = 1 << 20; break;
    case ACT_LAST: av->back = 0; break;
    default: return false;
    }
    ui->dirty = true;
    return true;
}

static void destroy(struct view *v)
{
    struct agent_view *av = v->priv;
    if (av->frame_timer)
        e2b_loop_timer_cancel(e2b_live_loop(av->ui->model), av->frame_timer);
    drop_changes(av);
    free(av);
    free(v);
}

static const struct view_ops OPS = {
    .name = "agent",
    .title = "Agent",
    .bit = VIEW_AGENT,
    .changed = changed,
    .draw = draw,
    .act = act,
    .destroy = destroy,
};

struct view *view_agent_new(struct ui *ui, const char *sandbox_id, const char *name)
{
    struct view *v = calloc(1, sizeof *v);
    struct agent_view *av = calloc(1, sizeof *av);
    if (!v || !av) {
        free(v);
        free(av);
        return NULL;
    }
    av->ui = ui;
    snprintf(av->id, sizeof av->id, "%s", sandbox_id);
    snprintf(av->name, sizeof av->name, "%s", name);
    v->ops = &OPS;
    v->priv = av;
    return v;
}

struct view *view_agent_preview_new(struct ui *ui)
{
    struct view *v = view_agent_new(ui, "", "");
    if (v)
        ((struct agent_view *)v->priv)->preview = true;
    return v;
}

void view_agent_show(struct view *v, const char *sandbox_id, const char *name)
{
    show_box(v->priv, sandbox_id, name);
}

void view_agent_rest(struct view *v)
{
    drop_changes(v->priv);
}

void view_agent_set_changes(struct view *v, bool changes)
{
    struct agent_view *av = v->priv;
    av->tab = changes ? TAB_CHANGES : TAB_ACTIVITY;
    if (changes && av->id[0])
        make_changes(av);
    else if (!changes)
        drop_changes(av);
    av->ui->dirty = true;
}
