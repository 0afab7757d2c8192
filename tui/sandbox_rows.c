#include "tui/sandbox_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/live/live.h"

/* The countdown changes once a minute while far away and once a second in its last ten
 * minutes: the dashboard wakes only when a shown text changes. */
enum { SECONDS_SHOWN_BELOW = 600, HOUR = 3600, DAY = 86400 };

bool sandbox_rows_keeps(enum sandbox_filter f, const e2b_sandbox *sb)
{
    switch (f) {
    case SANDBOX_FILTER_BOXES: return sb->kind == E2B_KIND_BOX;
    case SANDBOX_FILTER_WORKSPACES: return sb->kind == E2B_KIND_WORKSPACE;
    default: return true;
    }
}

void sandbox_rows_format_remaining(time_t end, time_t now, char *buf, size_t bufsz)
{
    if (end == 0) {
        snprintf(buf, bufsz, "-");
        return;
    }
    if (end <= now) {
        snprintf(buf, bufsz, "expired");
        return;
    }
    long long left = (long long)(end - now);
    if (left >= DAY)
        snprintf(buf, bufsz, "%lldd %02lldh", left / DAY, (left % DAY) / HOUR);
    else if (left >= HOUR)
        snprintf(buf, bufsz, "%lldh %02lldm", left / HOUR, (left % HOUR) / 60);
    else if (left >= SECONDS_SHOWN_BELOW)
        snprintf(buf, bufsz, "%lldm", left / 60);
    else
        snprintf(buf, bufsz, "%lld:%02lld", left / 60, left % 60);
}

long sandbox_rows_remaining_next_change(time_t end, time_t now)
{
    if (end == 0 || end <= now)
        return -1;
    long long left = (long long)(end - now);
    if (left < SECONDS_SHOWN_BELOW)
        return 1;
    if (left < DAY)
        return (long)(left % 60 + 1);
    return (long)(left % HOUR + 1);
}

/* The text of every cell of one sandbox, in one allocation per row. */
struct row_text {
    char cpu[16], mem[24], ends[24];
    const char *cells[SBCOL_COUNT];
};

static void ends_text(const e2b_sandbox *sb, time_t now, char *buf, size_t bufsz)
{
    if (sb->state == E2B_STATE_PAUSED)
        snprintf(buf, bufsz, "paused");
    else
        sandbox_rows_format_remaining(sb->end_at, now, buf, bufsz);
}

/* The sandbox's latest metric when it runs, else NULL. */
static const e2b_metric *metric_of(const e2b_sandbox *sb, const e2b_metric_list *metrics)
{
    if (sb->state != E2B_STATE_RUNNING || !metrics)
        return NULL;
    return e2b_live_metric_find(metrics, sb->sandbox_id);
}

/* m: the sandbox's latest metric or NULL. CPU and MEM show what is in use, from the
 * metric; without one (paused, or not sampled yet) they say "-" rather than the sandbox's
 * size, which would read like a usage figure (the size is in the Detail pane). */
static void row_text(const e2b_sandbox *sb, const e2b_metric *m, time_t now,
                     struct row_text *rt)
{
    const char *tmpl = sb->alias && *sb->alias ? sb->alias : sb->template_id;
    if (m)
        snprintf(rt->cpu, sizeof rt->cpu, "%.0f%%", m->cpu_used_pct);
    else
        snprintf(rt->cpu, sizeof rt->cpu, "-");
    /* Sampled means a figure, even 0M (an idle sandbox); "-" only when nothing is known. */
    if (m)
        snprintf(rt->mem, sizeof rt->mem, "%lldM", (long long)(m->mem_used >> 20));
    else
        snprintf(rt->mem, sizeof rt->mem, "-");
    ends_text(sb, now, rt->ends, sizeof rt->ends);
    rt->cells[SBCOL_NAME] = e2b_live_sandbox_name(sb);
    /* The git branch a box was made from; other sandboxes have none. */
    rt->cells[SBCOL_BRANCH] =
        sb->kind == E2B_KIND_BOX && sb->box_branch && *sb->box_branch ? sb->box_branch : "-";
    rt->cells[SBCOL_ID] = sb->sandbox_id;
    rt->cells[SBCOL_TEMPLATE] = tmpl ? tmpl : "-";
    rt->cells[SBCOL_STATE] = e2b_sandbox_state_name(sb->state);
    rt->cells[SBCOL_CPU] = rt->cpu;
    rt->cells[SBCOL_MEM] = rt->mem;
    rt->cells[SBCOL_ENDS] = rt->ends;
    rt->cells[SBCOL_KIND] = e2b_sandbox_kind_name(sb->kind);
    rt->cells[SBCOL_AGENT] = "-";
    rt->cells[SBCOL_TODO] = "-";
    rt->cells[SBCOL_COST] = "-";
    rt->cells[SBCOL_GROUP] = "-";
}

void sandbox_rows_set_groups(struct table *t, const e2b_live *m, bool *any, bool *changed)
{
    *any = false;
    for (size_t i = 0; i < t->nrows; i++) {
        const e2b_box_record *rec = e2b_live_record(m, t->rows[i].id);
        char text[200] = "-", sum[120];
        if (rec && rec->group[0]) {
            e2b_live_group_summary(m, rec->group, sum, sizeof sum);
            snprintf(text, sizeof text, "%s: %s", rec->group, sum);
            *any = true;
        }
        if (table_set_cell(t, i, SBCOL_GROUP, text) > 0)
            *changed = true;
    }
}

int sandbox_rows_fill(struct table *t, enum sandbox_filter f, const e2b_sandbox_list *list,
                      const e2b_metric_list *metrics, time_t now, bool *changed)
{
    size_t n = list->count;
    struct row_text *text = malloc((n ? n : 1) * sizeof *text);
    struct table_row_in *rows = malloc((n ? n : 1) * sizeof *rows);
    int rc = -1;
    if (!text || !rows)
        goto out;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const e2b_sandbox *sb = &list->items[i];
        if (!sandbox_rows_keeps(f, sb))
            continue;
        row_text(sb, metric_of(sb, metrics), now, &text[k]);
        rows[k] = (struct table_row_in){sb->sandbox_id, text[k].cells};
        k++;
    }
    size_t nchanged = 0;
    if (table_update_rows(t, rows, k, &nchanged) != 0)
        goto out;
    if (nchanged)
        *changed = true;
    rc = 0;
out:
    free(text);
    free(rows);
    return rc;
}

/* Sets cell col of row idx; false when the rows are not the sandboxes' (an earlier update
 * failed), so the caller rebuilds them all. */
static bool set_cell(struct table *t, size_t idx, const e2b_sandbox *sb, int col,
                     const char *text, size_t *changed)
{
    if (idx >= t->nrows || strcmp(t->rows[idx].id, sb->sandbox_id) != 0)
        return false;
    int u = table_set_cell(t, idx, col, text);
    if (u < 0)
        return false;
    *changed += (size_t)u;
    return true;
}

/* Updates some cells of row idx (the row of sb); false when the rows are not the sandboxes'
 * (the walk then rebuilds them all). */
typedef bool (*cells_fn)(struct table *t, size_t idx, const e2b_sandbox *sb,
                         const e2b_metric_list *metrics, time_t now, size_t *changed);

/* Walks the rows f keeps beside the sandboxes of list, letting cells update each; rebuilds
 * every row when they are out of step (a row missing, one too many, another sandbox's). */
static int update_cells(struct table *t, enum sandbox_filter f, const e2b_sandbox_list *list,
                        const e2b_metric_list *metrics, time_t now, bool *changed, cells_fn cells)
{
    size_t k = 0, nchanged = 0;
    bool in_sync = true;
    for (size_t i = 0; in_sync && i < list->count; i++) {
        const e2b_sandbox *sb = &list->items[i];
        if (!sandbox_rows_keeps(f, sb))
            continue;
        size_t idx = k++;
        if (idx >= t->nrows) {
            in_sync = false;
            break;
        }
        in_sync = cells(t, idx, sb, metrics, now, &nchanged);
    }
    if (!in_sync || k != t->nrows)
        return sandbox_rows_fill(t, f, list, metrics, now, changed);
    if (nchanged)
        *changed = true;
    return 0;
}

/* The clock only moves ENDS: touch that cell of the rows counting down, nothing else. */
static bool ends_cell(struct table *t, size_t idx, const e2b_sandbox *sb,
                      const e2b_metric_list *metrics, time_t now, size_t *changed)
{
    (void)metrics;
    if (sb->state != E2B_STATE_RUNNING || !sb->end_at)
        return true;
    char ends[24];
    ends_text(sb, now, ends, sizeof ends);
    return strcmp(t->rows[idx].cells[SBCOL_ENDS], ends) == 0 ||
           set_cell(t, idx, sb, SBCOL_ENDS, ends, changed);
}

/* New metrics move only CPU and MEM: rows without a metric before or now keep "-". */
static bool usage_cells(struct table *t, size_t idx, const e2b_sandbox *sb,
                        const e2b_metric_list *metrics, time_t now, size_t *changed)
{
    const e2b_metric *m = metric_of(sb, metrics);
    const char *cpu_cell = t->rows[idx].cells[SBCOL_CPU];
    const char *mem_cell = t->rows[idx].cells[SBCOL_MEM];
    if (!m && strcmp(cpu_cell, "-") == 0 && strcmp(mem_cell, "-") == 0)
        return true;
    struct row_text rt;
    row_text(sb, m, now, &rt);
    if (strcmp(cpu_cell, rt.cpu) != 0 && !set_cell(t, idx, sb, SBCOL_CPU, rt.cpu, changed))
        return false;
    return strcmp(mem_cell, rt.mem) == 0 || set_cell(t, idx, sb, SBCOL_MEM, rt.mem, changed);
}

int sandbox_rows_redraw_times(struct table *t, enum sandbox_filter f,
                              const e2b_sandbox_list *list, const e2b_metric_list *metrics,
                              time_t now, bool *changed)
{
    return update_cells(t, f, list, metrics, now, changed, ends_cell);
}

int sandbox_rows_set_usage(struct table *t, enum sandbox_filter f, const e2b_sandbox_list *list,
                           const e2b_metric_list *metrics, time_t now, bool *changed)
{
    return update_cells(t, f, list, metrics, now, changed, usage_cells);
}

long sandbox_rows_next_change(const e2b_sandbox_list *list, time_t now)
{
    long next = -1;
    for (size_t i = 0; i < list->count; i++) {
        const e2b_sandbox *sb = &list->items[i];
        if (sb->state != E2B_STATE_RUNNING)
            continue;
        long d = sandbox_rows_remaining_next_change(sb->end_at, now);
        if (d > 0 && (next < 0 || d < next)) {
            next = d;
            if (next == 1)
                break;
        }
    }
    return next;
}
