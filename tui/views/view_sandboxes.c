#include "tui/views/view_sandboxes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/term/term.h"
#include "tui/views/agent_actions.h"
#include "tui/views/batch_actions.h"
#include "tui/views/budget_ask.h"
#include "tui/views/copy_action.h"
#include "tui/views/kill_question.h"
#include "tui/views/screens.h"
#include "tui/views/view_agent.h"
#include "tui/views/view_compare.h"
#include "tui/views/view_detail.h"
#include "tui/views/up_form.h"
#include "tui/views/view_log.h"
#include "tui/widgets/draw.h"
#include "tui/views/view_sandboxes_snap.h"
#include "tui/widgets/list.h"

static const struct table_column SANDBOX_COLUMNS[SBCOL_COUNT] = {
    [SBCOL_NAME] = {"NAME", 'N', 8, 40, false, true},
    [SBCOL_BRANCH] = {"BRANCH", 'B', 6, 30, false, false},
    [SBCOL_ID] = {"ID", 'I', 6, 24, false, false},
    [SBCOL_TEMPLATE] = {"TEMPLATE", 'T', 8, 24, false, false},
    [SBCOL_STATE] = {"STATE", 'S', 7, 10, false, false},
    [SBCOL_CPU] = {"CPU", 'C', 5, 6, true, false},
    [SBCOL_MEM] = {"MEM", 'M', 6, 8, true, false},
    [SBCOL_ENDS] = {"ENDS", 'E', 6, 10, false, false},
    [SBCOL_AGENT] = {"AGENT", 'A', 5, 40, false, false},
    [SBCOL_TODO] = {"TODO", 'D', 4, 7, false, false},
    [SBCOL_COST] = {"COST", 0, 5, 10, false, false},
    [SBCOL_GROUP] = {"GROUP", 0, 5, 28, false, false}, /* by NAME, members sit together */
    [SBCOL_KIND] = {"KIND", 0, 4, 9, false, false},
};

/* Narrow screens hide COST, CPU, then MEM, TEMPLATE, TODO, BRANCH, KIND, ENDS, AGENT and
 * STATE (the drop rank, highest first); NAME and the ID users copy stay whole. GROUP is
 * hidden while no row is a group member (a column of dashes says nothing); while one is, it
 * goes after ENDS, and AGENT is squeezed to its short form ("idle 1m done") before any
 * column is hidden, so that 80 columns show NAME, ID, STATE, AGENT and GROUP. */
enum { GROUP_DROP = 5, GROUP_DROP_NONE = -1, GROUP_AGENT_SQUEEZE = 13 };
static const int SANDBOX_DROP[SBCOL_COUNT] = {
    [SBCOL_NAME] = 0,   [SBCOL_BRANCH] = 10, [SBCOL_ID] = 0,     [SBCOL_TEMPLATE] = 14,
    [SBCOL_STATE] = 2,  [SBCOL_CPU] = 18,    [SBCOL_MEM] = 16,   [SBCOL_ENDS] = 6,
    [SBCOL_KIND] = 8,   [SBCOL_AGENT] = 4,   [SBCOL_TODO] = 12,  [SBCOL_COST] = 20,
    [SBCOL_GROUP] = GROUP_DROP_NONE,
};

/* The preview beside the Boxes list: shown by itself from the config's preview_columns
 * while a box's agent is watched, on P from PREVIEW_MIN_COLS; the list gets the left half. */
enum { PREVIEW_MIN_COLS = 80, MARKS_MAX = 512 };
enum preview_mode { PV_AUTO, PV_ACTIVITY, PV_CHANGES, PV_OFF };

struct sandboxes_view {
    enum sandbox_filter filter;
    enum preview_mode preview_mode;
    struct view *preview; /* the Agent pane's preview (view_agent.h), made when first shown */
    bool preview_drawn;   /* drawn in the last frame of this view */
    /* The marked rows (Boxes), by sandbox id (owned copies); rows that go lose their mark. */
    char **marks;
    size_t nmarks;
    /* An up started from this view: once it ends, its box is selected (so the suggested
     * `a` attaches to the new box, not the row that was selected before). */
    unsigned up_op;
    char up_sandbox[128]; /* learnt while the up runs; "" until then */
    int up_wait;          /* lists still to wait for the new box to show, once it ended */
    /* Boxes: is the current directory a git project (for the empty list's advice)? */
    enum { CWD_UNKNOWN, CWD_PROBING, CWD_GIT, CWD_NOT_GIT } cwd_state;
    struct ui *ui; /* for the probe's answer (ui outlives the model's probes) */
    bool complete_seen; /* a list of every sandbox filled it (Workspaces, All) */
    int drop[SBCOL_COUNT]; /* SANDBOX_DROP, GROUP's rank as the rows have groups or not */
    int squeeze[SBCOL_COUNT]; /* AGENT's, while a row is a group member */
};

static enum sandbox_filter filter_of(const struct view *v)
{
    return ((const struct sandboxes_view *)v->priv)->filter;
}

/* ---- following the model ---- */

static void set_empty_text(struct view *v, struct ui *ui);

/* The current directory's probe answered (the tab lives as long as the dashboard). */
static void cwd_probed(void *ud, const e2b_live_project *p)
{
    struct view *v = ud;
    struct sandboxes_view *sv = v->priv;
    sv->cwd_state = p->ok ? CWD_GIT : CWD_NOT_GIT;
    set_empty_text(v, sv->ui);
    sv->ui->dirty = true;
}

static void set_empty_text(struct view *v, struct ui *ui)
{
    switch (e2b_live_list_state(ui->model)) {
    case E2B_LIVE_LOADING: v->empty_text = "Loading sandboxes from E2B..."; break;
    case E2B_LIVE_LIST_FAILED:
        v->empty_text = "Could not list sandboxes yet (see the status line); retrying.";
        break;
    case E2B_LIVE_LISTED: {
        struct sandboxes_view *sv = v->priv;
        if (filter_of(v) == SANDBOX_FILTER_WORKSPACES)
            v->empty_text = "No workspaces (OpenCode workspaces of your team show here).";
        else if (filter_of(v) != SANDBOX_FILTER_BOXES)
            v->empty_text = "No sandboxes.";
        else if (sv->cwd_state == CWD_NOT_GIT)
            v->empty_text = "No boxes yet, and this directory is no git project: start e2b-tui "
                            "in one, or press u and give the project's directory last.";
        else
            v->empty_text = "No boxes yet: u starts one from the current git project.";
        break;
    }
    default: break; /* no client: the no-key screen, or "Loading..." */
    }
}

/* Follows the up started here: its sandbox id while it runs, then selects that row. */
static void follow_up(struct view *v, struct ui *ui)
{
    struct sandboxes_view *sv = v->priv;
    if (!sv->up_op)
        return;
    bool running = false;
    for (size_t i = 0; i < e2b_live_op_count(ui->model); i++) {
        e2b_live_op_info op;
        if (e2b_live_op_get(ui->model, i, &op) && op.id == sv->up_op) {
            running = true;
            if (op.sandbox_id && *op.sandbox_id)
                snprintf(sv->up_sandbox, sizeof sv->up_sandbox, "%s", op.sandbox_id);
        }
    }
    if (running)
        return;
    for (size_t i = 0; sv->up_sandbox[0] && i < v->table.nvisible; i++) {
        if (strcmp(v->table.rows[v->table.visible[i]].id, sv->up_sandbox) == 0) {
            table_move_to(&v->table, i);
            ui->dirty = true;
            sv->up_op = 0;
            return;
        }
    }
    /* Ended without a box (failed, cancelled) or not listed yet: a few lists at most. */
    if (!sv->up_sandbox[0] || --sv->up_wait <= 0)
        sv->up_op = 0;
}

/* ---- marks ---- */

static long mark_index(const struct sandboxes_view *sv, const char *id)
{
    for (size_t i = 0; i < sv->nmarks; i++)
        if (!strcmp(sv->marks[i], id))
            return (long)i;
    return -1;
}

static void unmark_at(struct sandboxes_view *sv, size_t i)
{
    free(sv->marks[i]);
    sv->marks[i] = sv->marks[--sv->nmarks];
}

/* Marks (or with on false unmarks) the row id; false when out of room or memory. */
static bool set_mark(struct sandboxes_view *sv, const char *id, bool on)
{
    long i = mark_index(sv, id);
    if (!on) {
        if (i >= 0)
            unmark_at(sv, (size_t)i);
        return true;
    }
    if (i >= 0)
        return true;
    if (sv->nmarks == MARKS_MAX)
        return false;
    if (!sv->marks && !(sv->marks = calloc(MARKS_MAX, sizeof *sv->marks)))
        return false;
    if (!(sv->marks[sv->nmarks] = strdup(id)))
        return false;
    sv->nmarks++;
    return true;
}

static void clear_marks(struct sandboxes_view *sv)
{
    while (sv->nmarks)
        unmark_at(sv, sv->nmarks - 1);
}

/* A mark whose row went (killed, no longer listed) goes with it. */
static void prune_marks(struct view *v, bool *dirty)
{
    struct sandboxes_view *sv = v->priv;
    for (size_t i = sv->nmarks; i-- > 0;) {
        bool listed = false;
        for (size_t r = 0; r < v->table.nrows && !listed; r++)
            listed = !strcmp(v->table.rows[r].id, sv->marks[i]);
        if (!listed) {
            unmark_at(sv, i);
            *dirty = true;
        }
    }
}

size_t view_sandboxes_marked(const struct view *v)
{
    return v->ops->bit == VIEW_BOXES ? ((const struct sandboxes_view *)v->priv)->nmarks : 0;
}

static void mark_key(struct view *v, struct ui *ui, enum action_id a)
{
    struct sandboxes_view *sv = v->priv;
    struct table *t = &v->table;
    if (a == ACT_MARK) {
        const struct table_row *r = table_selected(t);
        if (!r)
            return;
        bool on = mark_index(sv, r->id) < 0;
        if (!set_mark(sv, r->id, on))
            ui_flash(ui, FLASH_ERROR, "mark: at most %d marks", MARKS_MAX);
        else if (on && sv->nmarks == 1)
            ui_flash(ui, FLASH_INFO, "marked %s: y n i m s p now act on every marked box, "
                                     "after one question (Esc clears the marks)",
                     r->cells[SBCOL_NAME]);
        table_move(t, 1); /* as k9s: the next row, to mark it too */
        ui->dirty = true;
        return;
    }
    /* every row shown (the filter's): marked, or unmarked when all were */
    bool all = t->nvisible > 0;
    for (size_t i = 0; i < t->nvisible && all; i++)
        all = mark_index(sv, t->rows[t->visible[i]].id) >= 0;
    for (size_t i = 0; i < t->nvisible; i++) {
        if (!set_mark(sv, t->rows[t->visible[i]].id, !all)) {
            ui_flash(ui, FLASH_ERROR, "mark-all: at most %d marks", MARKS_MAX);
            break;
        }
    }
    ui->dirty = true;
}

/* y n i m s p with marks: on every marked row, after one question (batch_actions.h). */
static void batch_marked(struct view *v, struct ui *ui, enum action_id a)
{
    struct sandboxes_view *sv = v->priv;
    const char *ids[MARKS_MAX], *names[MARKS_MAX];
    size_t n = 0;
    /* in the list's order; marked rows the filter hides after the rows shown */
    const struct table *t = &v->table;
    for (size_t pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < (pass ? t->nrows : t->nvisible); i++) {
            const struct table_row *row = &t->rows[pass ? i : t->visible[i]];
            bool seen = false;
            for (size_t k = 0; pass && k < n && !seen; k++)
                seen = ids[k] == row->id;
            if (!seen && n < MARKS_MAX && mark_index(sv, row->id) >= 0) {
                ids[n] = row->id;
                names[n++] = row->cells[SBCOL_NAME];
            }
        }
    }
    batch_run(ui, ids, names, n, a);
}

static void changed(struct view *v, struct ui *ui, unsigned what)
{
    const e2b_sandbox_list *list = e2b_live_sandboxes(ui->model);
    const e2b_metric_list *metrics = e2b_live_metrics(ui->model);
    time_t now = time(NULL);
    bool dirty = false;
    int rc = 0;
    struct sandboxes_view *sv = v->priv;
    if (filter_of(v) == SANDBOX_FILTER_BOXES && sv->cwd_state == CWD_UNKNOWN &&
        e2b_live_list_state(ui->model) == E2B_LIVE_LISTED) {
        sv->cwd_state = CWD_PROBING;
        sv->ui = ui;
        e2b_live_project_probe(ui->model, NULL, cwd_probed, v, NULL);
    }
    if (what & E2B_LIVE_SANDBOXES) {
        set_empty_text(v, ui);
        if (e2b_live_list_state(ui->model) == E2B_LIVE_LISTED) {
            bool first = !v->loaded;
            rc = sandbox_rows_fill(&v->table, filter_of(v), list, metrics, now, &dirty);
            if (rc == 0 && filter_of(v) != SANDBOX_FILTER_BOXES && !sv->complete_seen &&
                e2b_live_list_complete(ui->model)) {
                /* Its first whole list: the cursor starts at the top, not on the box it
                 * was on among the few rows known before. */
                sv->complete_seen = true;
                table_move_to(&v->table, 0);
                dirty = true;
            }
            if (rc == 0) {
                v->loaded = true;
                ui->ends_due = 0; /* other sandboxes, other end times */
                if (first)
                    dirty = true; /* "Loading..." becomes the rows, or the empty text */
            } else if (filter_of(v) == SANDBOX_FILTER_ALL) {
                ui_flash(ui, FLASH_ERROR, "out of memory while listing sandboxes");
            }
        } else {
            dirty = true;
        }
    } else if ((what & E2B_LIVE_METRICS) && v->loaded && !e2b_live_list_stale_since(ui->model)) {
        sandbox_rows_set_usage(&v->table, filter_of(v), list, metrics, now, &dirty);
    }
    /* A stale list (E2B unreachable) is drawn dim under a banner; its countdowns and CPU
     * figures stop rather than pass for current ones. */
    bool stale = e2b_live_list_stale_since(ui->model) != 0;
    if (stale != v->dim) {
        v->dim = stale;
        dirty = true;
    }
    if ((what & UI_CHANGED_CLOCK) && v->loaded && !stale)
        sandbox_rows_redraw_times(&v->table, filter_of(v), list, metrics, now, &dirty);
    if ((what & E2B_LIVE_SANDBOXES) && sv->nmarks && v->loaded)
        prune_marks(v, &dirty);
    if (sv->preview && sv->preview_drawn && !ui->pane && ui->tabs[ui->tab] == v)
        sv->preview->ops->changed(sv->preview, ui, what);
    if (what & (E2B_LIVE_OPS | E2B_LIVE_SANDBOXES))
        follow_up(v, ui);
    if ((what & (E2B_LIVE_AGENTS | E2B_LIVE_SANDBOXES | UI_CHANGED_CLOCK)) &&
        v->loaded)
        agent_text_apply(&v->table, ui->model, agent_text_now_ms(), &dirty);
    if ((what & (E2B_LIVE_AGENTS | E2B_LIVE_SANDBOXES | E2B_LIVE_OPS)) && v->loaded) {
        bool any = false;
        sandbox_rows_set_groups(&v->table, ui->model, &any, &dirty);
        int rank = any ? GROUP_DROP : GROUP_DROP_NONE;
        if (sv->drop[SBCOL_GROUP] != rank) {
            sv->drop[SBCOL_GROUP] = rank;
            sv->squeeze[SBCOL_AGENT] = any ? GROUP_AGENT_SQUEEZE : 0;
            v->table.squeeze = any ? sv->squeeze : NULL;
            dirty = true;
        }
    }
    if (dirty)
        ui->dirty = true;
}

size_t view_sandboxes_running_ids(struct view *v, const char **ids, size_t max)
{
    size_t n = 0;
    int rows = v->rows_shown > 0 ? v->rows_shown : 60;
    for (size_t i = v->table.top; i < v->table.nvisible && n < max && rows-- > 0; i++) {
        /* The row says the state; looking each sandbox up would cost a scan per row. */
        const struct table_row *row = &v->table.rows[v->table.visible[i]];
        if (strcmp(row->cells[SBCOL_STATE], e2b_sandbox_state_name(E2B_STATE_RUNNING)) == 0)
            ids[n++] = row->id;
    }
    return n;
}

/* What the preview shows on a screen w wide: by itself from preview_columns columns while
 * some box's agent is watched (else there is nothing to preview), as P chose from
 * PREVIEW_MIN_COLS; never beside another tab's list. */
static enum preview_mode preview_shown(const struct sandboxes_view *sv, const struct ui *ui,
                                       int w)
{
    if (sv->filter != SANDBOX_FILTER_BOXES || w < PREVIEW_MIN_COLS)
        return PV_OFF;
    if (sv->preview_mode == PV_AUTO) {
        int from = e2b_live_config(ui->model)->preview_columns;
        return from > 0 && w >= from && e2b_live_agent_count(ui->model) ? PV_ACTIVITY : PV_OFF;
    }
    return sv->preview_mode;
}

/* P: activity, then changes, then none, then activity again. */
static void preview_key(struct view *v, struct ui *ui)
{
    struct sandboxes_view *sv = v->priv;
    enum preview_mode now = preview_shown(sv, ui, COLS);
    if (COLS < PREVIEW_MIN_COLS) {
        ui_flash(ui, FLASH_INFO, "preview: needs %d columns at least (Enter opens the Agent pane)",
                 PREVIEW_MIN_COLS);
        return;
    }
    sv->preview_mode = now == PV_ACTIVITY ? PV_CHANGES : now == PV_CHANGES ? PV_OFF : PV_ACTIVITY;
    if (sv->preview)
        view_agent_set_changes(sv->preview, sv->preview_mode == PV_CHANGES);
    else if (sv->preview_mode == PV_CHANGES && (sv->preview = view_agent_preview_new(ui)))
        view_agent_set_changes(sv->preview, true);
    ui_flash(ui, FLASH_INFO, "preview: %s (P: %s)",
             sv->preview_mode == PV_ACTIVITY ? "the selected box's activity"
             : sv->preview_mode == PV_CHANGES ? "the selected box's changes" : "hidden",
             sv->preview_mode == PV_ACTIVITY ? "its changes"
             : sv->preview_mode == PV_CHANGES ? "hide it" : "show it");
    ui->dirty = true;
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    if (!ui_have_api_key(ui) && !v->loaded) {
        screens_no_api_key(y, x, h, w);
        return;
    }
    time_t since = e2b_live_list_stale_since(ui->model);
    if (since && h > 3) {
        char when[16], line[200];
        struct tm tm;
        localtime_r(&since, &tm);
        strftime(when, sizeof when, "%H:%M:%S", &tm);
        long age = (long)(time(NULL) - since);
        snprintf(line, sizeof line,
                 " STALE: E2B cannot be reached; this is the list of %s (%lds ago), retrying", when,
                 age < 0 ? 0 : age);
        draw_text(y, x, w, ROLE_ERROR, line, true);
        y++;
        h--;
    }
    struct sandboxes_view *sv = v->priv;
    enum preview_mode pm = preview_shown(sv, ui, w);
    int lw = pm == PV_OFF ? w : w / 2;
    /* the marks' gutter, while there are marks: "*" beside each marked row */
    int gut = sv->nmarks ? 2 : 0;
    list_draw(v, ui, y, x + gut, h, lw - gut);
    agent_cells_colour(v, ui->model, y, x + gut, h, lw - gut);
    for (int i = 0; gut && i < h - 1 && v->table.top + (size_t)i < v->table.nvisible; i++) {
        const struct table_row *r = &v->table.rows[v->table.visible[v->table.top + (size_t)i]];
        if (mark_index(sv, r->id) >= 0)
            draw_text(y + 1 + i, x, gut, ROLE_WAITING, "*", false);
    }
    sv->preview_drawn = false;
    if (pm == PV_OFF) {
        if (sv->preview)
            view_agent_rest(sv->preview); /* hidden (a narrower screen): no reads */
        return;
    }
    if (!sv->preview && !(sv->preview = view_agent_preview_new(ui)))
        return;
    sv->preview_drawn = true;
    for (int i = 0; i < h; i++)
        draw_text(y + i, x + lw, 1, ROLE_DIM, "│", false);
    int px = x + lw + 1, pw = w - lw - 1;
    const struct table_row *r = table_selected(&v->table);
    if (!r || !e2b_live_is_box(ui->model, r->id)) {
        draw_text(y, px, pw, ROLE_HEADER, "PREVIEW", true);
        draw_text(y + 2, px + 2, pw - 2, ROLE_DIM,
                  r ? "Not a box: nothing to preview." : "No row selected.", false);
        return;
    }
    view_agent_show(sv->preview, r->id, r->cells[SBCOL_NAME]);
    sv->preview->ops->draw(sv->preview, ui, y, px, h, pw);
}

/* ---- up (tui/views/up_form.c): once started, its box is selected when it is listed ---- */

static void up_started(struct view *v, unsigned op_id)
{
    struct sandboxes_view *sv = v->priv;
    sv->up_op = op_id;
    sv->up_sandbox[0] = '\0';
    sv->up_wait = 5;
}

/* ---- extend: hours (the sandbox id is the context) ---- */

static void extend_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    const char *id = ctx;
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "extend: cancelled");
        return;
    }
    int h;
    if (!up_form_hours(text, &h)) {
        ui_flash(ui, FLASH_ERROR, "extend: give a whole number of hours from 1 to 24");
        return;
    }
    e2b_live_extend(ui->model, id, h);
}

static void stop_confirmed(struct ui *ui, void *ctx, const char *id)
{
    (void)ctx;
    e2b_live_stop(ui->model, id);
}

static void extend_ask(struct ui *ui, const char *sandbox_id)
{
    char *id = strdup(sandbox_id);
    if (!id)
        return;
    const e2b_config *cfg = e2b_live_config(ui->model);
    char initial[16];
    snprintf(initial, sizeof initial, "%d", cfg->hours > 0 ? cfg->hours : 1);
    prompt_open(ui, "extend: hours from now (1-24): ", false, initial, NULL, extend_done, id,
                free);
}

/* The budget was raised (budget_ask): e goes on. */
static void extend_after_raise(struct ui *ui, const char *id, const char *name,
                               const char *session_id, int action)
{
    (void)name, (void)session_id, (void)action;
    extend_ask(ui, id);
}

static void extend_confirmed(struct ui *ui, void *ctx, const char *id)
{
    (void)ctx;
    extend_ask(ui, id);
}

/* What a sandbox that is not this machine's box is, in words ("" for one of ours). */
static const char *whose(struct ui *ui, const char *id)
{
    if (e2b_live_is_local_box(ui->model, id))
        return "";
    const e2b_sandbox *sb = e2b_live_sandbox(ui->model, id);
    if (!sb)
        return "not one of this machine's boxes";
    switch (sb->kind) {
    case E2B_KIND_BOX: return "a box made on another machine (no record here)";
    case E2B_KIND_WORKSPACE: return "an OpenCode workspace, not one of this machine's boxes";
    default: return "a team sandbox, not one of this machine's boxes";
    }
}

/* Does the selected row name a box (else says so)? */
static bool selected_is_box(struct ui *ui, const struct table_row *r, enum action_id a)
{
    if (!e2b_live_is_box(ui->model, r->id)) {
        ui_flash(ui, FLASH_ERROR, "%s: only for boxes (made by e2b-tui)", action_info(a)->name);
        return false;
    }
    return true;
}

static void open_pane(struct ui *ui, struct view *pane, const char *what)
{
    if (pane)
        ui_set_pane(ui, pane);
    else
        ui_flash(ui, FLASH_ERROR, "%s", what);
}

/* Enter / o: a watched box's Agent pane; any other sandbox's Details. */
static void open_agent_or_detail(struct ui *ui, struct view *v, const struct table_row *r)
{
    if (e2b_live_agent(ui->model, r->id))
        open_pane(ui, view_agent_new(ui, r->id, r->cells[SBCOL_NAME]), "agent: out of memory");
    else
        open_pane(ui, view_detail_new(ui, v), "detail: no row selected");
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    struct sandboxes_view *sv = v->priv;
    if (a == ACT_BACK && sv->nmarks) { /* Esc: the marks go first, then the filter */
        clear_marks(sv);
        ui_flash(ui, FLASH_INFO, "marks cleared");
        ui->dirty = true;
        return true;
    }
    if (a == ACT_MARK || a == ACT_MARK_ALL) {
        mark_key(v, ui, a);
        return true;
    }
    if (a == ACT_PREVIEW) {
        preview_key(v, ui);
        return true;
    }
    if (sv->nmarks && batch_handles(a)) {
        batch_marked(v, ui, a);
        return true;
    }
    if (list_act(v, ui, a))
        return true;
    const struct table_row *r = table_selected(&v->table);
    if (agent_actions_handles(a) || a == ACT_AGENT) {
        if (!r)
            ui_flash(ui, FLASH_ERROR, "%s: no sandbox selected", action_info(a)->name);
        else if (a == ACT_AGENT)
            open_agent_or_detail(ui, v, r);
        else
            agent_actions_run(ui, r->id, r->cells[SBCOL_NAME], NULL, a);
        return true;
    }
    switch (a) {
    case ACT_DETAIL:
    case ACT_LOGS:
    case ACT_STOP:
    case ACT_RESUME:
    case ACT_KILL:
    case ACT_EXTEND:
    case ACT_ATTACH:
    case ACT_PULL:
    case ACT_COPY:
        if (!r) {
            ui_flash(ui, FLASH_ERROR, "%s: no sandbox selected", action_info(a)->name);
            return true;
        }
        break;
    default: break;
    }
    switch (a) {
    case ACT_DETAIL: open_pane(ui, view_detail_new(ui, v), "detail: no row selected"); return true;
    case ACT_COPY: copy_action_open(ui, r->id); return true;
    case ACT_LOGS: {
        if (!e2b_live_has_client(ui->model)) {
            ui_flash(ui, FLASH_ERROR, "logs: no API key (set E2B_API_KEY)");
            return true;
        }
        open_pane(ui, view_log_new(ui, r->id, r->cells[SBCOL_NAME]), "logs: out of memory");
        return true;
    }
    case ACT_KILL:
        kill_question_open(ui, r->id, r->cells[SBCOL_NAME], whose(ui, r->id));
        return true;
    case ACT_STOP:
    case ACT_EXTEND: {
        /* Someone else's sandbox (a team's, a workspace, a box made elsewhere): ask. */
        const char *w = whose(ui, r->id);
        if (!*w) {
            if (a == ACT_STOP)
                e2b_live_stop(ui->model, r->id);
            else if (!budget_ask(ui, r->id, r->cells[SBCOL_NAME], NULL, a, extend_after_raise))
                extend_ask(ui, r->id); /* (at its budget: asked first) */
            return true;
        }
        char text[512];
        snprintf(text, sizeof text, "\"%s\" (%s) is %s.\n%s it anyway?", r->cells[SBCOL_NAME],
                 r->id, w, a == ACT_STOP ? "Pause" : "Extend");
        dialog_open(&ui->dialog, a == ACT_STOP ? "Stop sandbox" : "Extend sandbox", text, r->id,
                    a == ACT_STOP ? stop_confirmed : extend_confirmed, NULL);
        return true;
    }
    case ACT_RESUME: e2b_live_resume(ui->model, r->id, 0); return true;
    case ACT_ATTACH:
    case ACT_PULL:
        if (selected_is_box(ui, r, a))
            e2b_live_box_op(ui->model, a == ACT_ATTACH ? E2B_LIVE_OP_ATTACH : E2B_LIVE_OP_PULL,
                            r->id);
        return true;
    case ACT_UP: up_form_open(ui, v, up_started); return true;
    case ACT_COMPARE: view_compare_open(ui, NULL); return true;
    default: return view_sandboxes_snap_act(ui, a, r); /* S, F */
    }
}

/* The Boxes view needs the box sandboxes only; the others every sandbox (core/live lists
 * what is shown). */
static void open_view(struct view *v, struct ui *ui)
{
    if (filter_of(v) != SANDBOX_FILTER_BOXES)
        e2b_live_show_all(ui->model, true);
}

static void close_view(struct view *v, struct ui *ui)
{
    struct sandboxes_view *sv = v->priv;
    if (filter_of(v) != SANDBOX_FILTER_BOXES)
        e2b_live_show_all(ui->model, false);
    if (sv->preview) /* another tab: the preview's changes are read no more */
        view_agent_rest(sv->preview);
}

static void destroy(struct view *v)
{
    struct sandboxes_view *sv = v->priv;
    if (sv->preview)
        sv->preview->ops->destroy(sv->preview);
    clear_marks(sv);
    free(sv->marks);
    list_view_destroy(v);
}

static const struct view_ops OPS[] = {
    [SANDBOX_FILTER_BOXES] = {.name = "boxes", .title = "Boxes", .bit = VIEW_BOXES,
                              .changed = changed, .draw = draw, .act = act,
                              .destroy = destroy, .open = open_view,
                              .close = close_view},
    [SANDBOX_FILTER_WORKSPACES] = {.name = "workspaces", .title = "Workspaces",
                                   .bit = VIEW_WORKSPACES, .changed = changed, .draw = draw,
                                   .act = act, .destroy = destroy, .open = open_view,
                                   .close = close_view},
    [SANDBOX_FILTER_ALL] = {.name = "all", .title = "All sandboxes", .bit = VIEW_ALL,
                            .changed = changed, .draw = draw, .act = act,
                            .destroy = destroy, .open = open_view,
                            .close = close_view},
};

struct view *view_sandboxes_new(enum sandbox_filter f)
{
    struct view *v = list_view_new(&OPS[f], SANDBOX_COLUMNS,
                                   f == SANDBOX_FILTER_ALL ? SBCOL_COUNT : SBCOL_COUNT - 1,
                                   "Loading...");
    struct sandboxes_view *sv = v ? calloc(1, sizeof *sv) : NULL;
    if (!sv) {
        if (v)
            list_view_destroy(v);
        return NULL;
    }
    sv->filter = f;
    v->priv = sv;
    memcpy(sv->drop, SANDBOX_DROP, sizeof sv->drop);
    v->table.drop = sv->drop;
    /* AGENT narrows to "idle 3m", "! wait", "work" before it is cut (tui/agent_text.h). */
    v->table.fit = agent_text_fit;
    v->table.fit_col = SBCOL_AGENT;
    return v;
}
