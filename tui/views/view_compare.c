#include "tui/views/view_compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/live/live.h"
#include "core/util/sanitize.h"
#include "tui/term/term.h"
#include "tui/views/group_kill.h"
#include "tui/views/view_changes.h"
#include "tui/widgets/draw.h"

enum { MEMBERS_MAX = 100, WIDE = 130 };

struct compare_view {
    char group[64];
    size_t sel;
};

static bool turn_ended(const e2b_agent_status *st)
{
    return st && st->state == E2B_AGENT_IDLE && st->last_end != E2B_AGENT_END_NONE;
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    struct compare_view *cv = v->priv;
    e2b_live_member mb[MEMBERS_MAX];
    size_t n = e2b_live_group_members(ui->model, cv->group, mb, MEMBERS_MAX);
    if (n > MEMBERS_MAX)
        n = MEMBERS_MAX;
    if (cv->sel >= n)
        cv->sel = n ? n - 1 : 0;
    char sum[120], head[400];
    e2b_live_group_summary(ui->model, cv->group, sum, sizeof sum);
    snprintf(head, sizeof head, "COMPARE  %s  %s  (c: its changes, p: pull it as e2b/%s, K: kill "
             "the others, Esc: back)", cv->group, sum, cv->group);
    draw_text(y, x, w, ROLE_HEADER, head, true);
    char line[1200];
    /* Under WIDE columns: what decides first (the test result, the diff, the model), TIME
     * and COST go, the names narrow (80 columns show the tests and the last test line). */
    bool narrow = w < WIDE;
    if (narrow)
        snprintf(line, sizeof line, "%-12s %-12s %-7s %5s %9s %-14s %s", "MEMBER", "STATE",
                 "TESTS", "FILES", "+/-", "MODEL", "LAST TEST LINE");
    else
        snprintf(line, sizeof line, "%-20s %-18s %-22s %6s %13s %-8s %7s %-7s %s", "MEMBER",
                 "STATE", "MODEL", "FILES", "+/-", "TESTS", "TIME", "COST", "LAST TEST LINE");
    draw_text(y + 1, x, w, ROLE_DIM, line, true);
    if (!n)
        draw_text(y + 3, x + 2, w - 2, ROLE_DIM, "No members (the group has no box left).", false);
    for (size_t i = 0; i < n && (int)i < h - 2; i++) {
        const e2b_box_record *r = mb[i].rec;
        const e2b_evidence *ev = mb[i].evidence;
        const e2b_agent_status *st = e2b_live_agent(ui->model, r->sandbox_id);
        char state[64], files[16] = "-", lines[32] = "-", tm[16] = "-", last[300] = "";
        snprintf(state, sizeof state, "%s%s%s", st ? e2b_agent_state_name(st->state) : "unknown",
                 st && st->last_end ? ": " : "", st && st->last_end ? e2b_agent_end_name(st->last_end) : "");
        if (ev && ev->diff_known) {
            snprintf(files, sizeof files, "%ld", ev->files);
            snprintf(lines, sizeof lines, "+%ld/-%ld", ev->added, ev->deleted);
        }
        if (ev && ev->exit_code >= 0)
            snprintf(tm, sizeof tm, "%.1fs", ev->test_ms / 1000.0);
        if (ev) { /* the tail's last line (sanitised in core; newlines kept) */
            const char *t = ev->why[0] ? ev->why : ev->tail;
            size_t len = strlen(t);
            while (len && (t[len - 1] == '\n' || t[len - 1] == ' '))
                len--;
            size_t from = len;
            while (from && t[from - 1] != '\n')
                from--;
            snprintf(last, sizeof last, "%.*s", (int)(len - from), t + from);
        }
        char cost[32] = "unknown";
        if (st && st->total.have_cost)
            snprintf(cost, sizeof cost, "$%.4f", st->total.cost_usd);
        const char *tests = !ev ? (turn_ended(st) ? "running" : "pending")
                                : e2b_live_test_result_name(ev->test);
        char model[128];
        char *safe_model = e2b_sanitize_display(r->model, strlen(r->model), 0);
        snprintf(model, sizeof model, "%s", safe_model && *safe_model ? safe_model : "(configured)");
        free(safe_model);
        if (narrow)
            snprintf(line, sizeof line, "%-12s %-12.12s %-7s %5s %9s %-14.14s %s", r->name, state,
                     tests, files, lines, model, last);
        else
            snprintf(line, sizeof line, "%-20s %-18s %-22s %6s %13s %-8s %7s %-7s %s", r->name,
                     state, model, files, lines, tests, tm, cost, last);
        int role = i == cv->sel ? ROLE_SELECTED
                   : ev && ev->test == E2B_TEST_PASS ? ROLE_ADDED
                   : ev && (ev->test == E2B_TEST_FAIL || ev->test == E2B_TEST_ERROR) ? ROLE_REMOVED
                                                                                    : ROLE_NORMAL;
        draw_text(y + 2 + (int)i, x, w, role, line, true);
    }
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    struct compare_view *cv = v->priv;
    e2b_live_member mb[MEMBERS_MAX];
    size_t n = e2b_live_group_members(ui->model, cv->group, mb, MEMBERS_MAX);
    if (n > MEMBERS_MAX)
        n = MEMBERS_MAX;
    switch (a) {
    case ACT_MOVE_UP: cv->sel = cv->sel ? cv->sel - 1 : 0; break;
    case ACT_MOVE_DOWN: cv->sel = cv->sel + 1 < n ? cv->sel + 1 : cv->sel; break;
    case ACT_FIRST: cv->sel = 0; break;
    case ACT_LAST: cv->sel = n ? n - 1 : 0; break;
    case ACT_CHANGES: { /* the selected member's Changes pane (Esc comes back here) */
        if (cv->sel >= n)
            return true;
        struct view *cw = view_changes_new(ui, mb[cv->sel].rec->sandbox_id, mb[cv->sel].rec->name);
        if (cw)
            ui_set_pane(ui, cw);
        else
            ui_flash(ui, FLASH_ERROR, "changes: out of memory");
        return true;
    }
    case ACT_PULL: {
        if (cv->sel >= n) {
            ui_flash(ui, FLASH_ERROR, "compare %s: no member to pull", cv->group);
            return true;
        }
        char name[128];
        snprintf(name, sizeof name, "%s", mb[cv->sel].rec->name);
        if (e2b_live_op_by_name(ui->model, &(e2b_live_op_params){.kind = E2B_LIVE_OP_PULL,
                                                                 .name = name}))
            ui_flash(ui, FLASH_INFO, "pulling member %s of group %s as branch e2b/%s", name,
                     cv->group, cv->group);
        break;
    }
    case ACT_KILL: group_kill_open(ui, cv->group); return true;
    default: return false;
    }
    ui->dirty = true;
    return true;
}

static void changed(struct view *v, struct ui *ui, unsigned what)
{
    (void)v; /* the model runs each member's tests as its turn ends (live_groups.c) */
    if (what & (E2B_LIVE_SANDBOXES | E2B_LIVE_AGENTS | E2B_LIVE_OPS))
        ui->dirty = true;
}

static void open_view(struct view *v, struct ui *ui)
{
    (void)v;
    ui->dirty = true;
}

static void destroy(struct view *v)
{
    free(v->priv);
    free(v);
}

static const struct view_ops OPS = {
    .name = "compare",
    .title = "Compare",
    .bit = VIEW_COMPARE,
    .open = open_view,
    .changed = changed,
    .draw = draw,
    .act = act,
    .destroy = destroy,
};

void view_compare_open(struct ui *ui, const char *group)
{
    char g[64] = "", from[128] = ""; /* the group; the member whose row it was opened on */
    struct view *cur = ui_current(ui);
    const struct table_row *row = cur->has_table ? table_selected(&cur->table) : NULL;
    if (group && *group) {
        snprintf(g, sizeof g, "%s", group);
    } else {
        const e2b_box_record *rec = row ? e2b_live_record(ui->model, row->id) : NULL;
        if (rec) {
            snprintf(g, sizeof g, "%s", rec->group);
            snprintf(from, sizeof from, "%s", rec->name);
        }
    }
    if (!g[0]) {
        ui_flash(ui, FLASH_ERROR, "compare: %s is in no group of attempts", /* fits 80 columns */
                 row ? row->cells[0] : "the selection");
        return;
    }
    if (!e2b_live_group_members(ui->model, g, NULL, 0)) {
        ui_flash(ui, FLASH_ERROR, "compare: no group %s on this machine", g);
        return;
    }
    struct view *v = calloc(1, sizeof *v);
    struct compare_view *cv = v ? calloc(1, sizeof *cv) : NULL;
    if (!cv) {
        free(v);
        ui_flash(ui, FLASH_ERROR, "compare: out of memory");
        return;
    }
    snprintf(cv->group, sizeof cv->group, "%s", g);
    e2b_live_member mb[MEMBERS_MAX];
    size_t n = e2b_live_group_members(ui->model, g, mb, MEMBERS_MAX);
    for (size_t i = 0; from[0] && i < n && i < MEMBERS_MAX; i++)
        if (!strcmp(mb[i].rec->name, from))
            cv->sel = i; /* = on g-2's row selects g-2 */
    v->ops = &OPS;
    v->priv = cv;
    ui_set_pane(ui, v);
}
