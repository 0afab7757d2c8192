#include "tui/sandbox_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/sandbox_list.h"

/* The countdown changes once a minute while far away and once a second in its last ten
 * minutes: the dashboard wakes only when a shown text changes. */
enum { SECONDS_SHOWN_BELOW = 600, HOUR = 3600, DAY = 86400 };

void sandbox_format_remaining(time_t end, time_t now, char *buf, size_t bufsz)
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

long sandbox_remaining_next_change(time_t end, time_t now)
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
        sandbox_format_remaining(sb->end_at, now, buf, bufsz);
}

/* m: the sandbox's latest metric or NULL. CPU and MEM show what is in use, from the
 * metric; without one (paused, or not sampled yet) they say "-" rather than the sandbox's
 * size, which would read like a usage figure (the size is in the Detail pane). */
static void row_text(const e2b_sandbox *sb, const e2b_metric *m, time_t now,
                     struct row_text *rt)
{
    const char *name = sb->kind == E2B_KIND_BOX ? sb->box_name : NULL;
    if (!name || !*name)
        name = e2b_metadata_get(&sb->metadata, "name");
    if (!name || !*name)
        name = sb->alias;
    if (!name || !*name)
        name = sb->sandbox_id;
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
    rt->cells[SBCOL_NAME] = name;
    /* The git branch a box was made from; other sandboxes have none. */
    rt->cells[SBCOL_BRANCH] =
        sb->kind == E2B_KIND_BOX && sb->box_branch && *sb->box_branch ? sb->box_branch : "-";
    rt->cells[SBCOL_ID] = sb->sandbox_id;
    rt->cells[SBCOL_TEMPLATE] = tmpl ? tmpl : "-";
    rt->cells[SBCOL_STATE] = e2b_sandbox_state_name(sb->state);
    rt->cells[SBCOL_CPU] = rt->cpu;
    rt->cells[SBCOL_MEM] = rt->mem;
    rt->cells[SBCOL_ENDS] = rt->ends;
}

/* Updates the three views' rows from list (borrowed): only changed cells are replaced
 * (tui/widgets/table.h), and a frame is asked for only when some row changed. */
static int set_rows(struct ui *ui, const e2b_sandbox_list *list, time_t now)
{
    size_t n = list->count;
    struct row_text *text = malloc((n ? n : 1) * sizeof *text);
    struct table_row_in *all = malloc((n ? n : 1) * sizeof *all);
    struct table_row_in *boxes = malloc((n ? n : 1) * sizeof *boxes);
    struct table_row_in *ws = malloc((n ? n : 1) * sizeof *ws);
    int rc = -1;
    if (!text || !all || !boxes || !ws)
        goto out;
    size_t nb = 0, nw = 0;
    for (size_t i = 0; i < n; i++) {
        const e2b_sandbox *sb = &list->items[i];
        const e2b_metric *m = sb->state == E2B_STATE_RUNNING && ui->metrics.count
                                  ? sandbox_rows_metric(ui, sb->sandbox_id)
                                  : NULL;
        row_text(sb, m, now, &text[i]);
        struct table_row_in r = {sb->sandbox_id, text[i].cells};
        all[i] = r;
        if (sb->kind == E2B_KIND_BOX)
            boxes[nb++] = r;
        else if (sb->kind == E2B_KIND_WORKSPACE)
            ws[nw++] = r;
    }
    size_t changed[3] = {0, 0, 0};
    if (table_update_rows(&ui->tabs[TAB_ALL]->table, all, n, &changed[0]) != 0 ||
        table_update_rows(&ui->tabs[TAB_BOXES]->table, boxes, nb, &changed[1]) != 0 ||
        table_update_rows(&ui->tabs[TAB_WORKSPACES]->table, ws, nw, &changed[2]) != 0)
        goto out;
    if (changed[0] || changed[1] || changed[2])
        ui->dirty = true;
    rc = 0;
out:
    free(text);
    free(all);
    free(boxes);
    free(ws);
    return rc;
}

int sandbox_rows_fill(struct ui *ui, e2b_sandbox_list *list, time_t now)
{
    bool first = !ui->tabs[TAB_ALL]->loaded;
    if (set_rows(ui, list, now) != 0)
        return -1;
    for (int t = TAB_BOXES; t <= TAB_ALL; t++)
        ui->tabs[t]->loaded = true;
    if (first)
        ui->dirty = true; /* "Loading..." becomes the rows, or the empty text */
    e2b_sandbox_list_clear(&ui->sandboxes);
    ui->ends_due = 0; /* other sandboxes, other end times */
    ui->sandboxes = *list;
    list->items = NULL;
    list->count = 0;
    return 0;
}

/* Sets cell col of the sandbox behind row idx of t; false when the rows are not the
 * sandboxes' (an earlier update failed), so the caller rebuilds them all. */
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

/* Sets one cell of a sandbox's row in All and in its own view (Boxes or Workspaces).
 * i: its index in ui->sandboxes; sub_idx: its index in its own view. */
static bool set_sandbox_cell(struct ui *ui, size_t i, size_t sub_idx, int col, const char *text,
                             size_t *changed)
{
    const e2b_sandbox *sb = &ui->sandboxes.items[i];
    struct table *sub = sb->kind == E2B_KIND_BOX         ? &ui->tabs[TAB_BOXES]->table
                        : sb->kind == E2B_KIND_WORKSPACE ? &ui->tabs[TAB_WORKSPACES]->table
                                                         : NULL;
    return set_cell(&ui->tabs[TAB_ALL]->table, i, sb, col, text, changed) &&
           (!sub || set_cell(sub, sub_idx, sb, col, text, changed));
}

/* The index of sandbox i in its own view, counting as set_rows does. */
static size_t next_sub_index(const e2b_sandbox *sb, size_t *nb, size_t *nw)
{
    if (sb->kind == E2B_KIND_BOX)
        return (*nb)++;
    if (sb->kind == E2B_KIND_WORKSPACE)
        return (*nw)++;
    return 0;
}

int sandbox_rows_redraw_times(struct ui *ui, time_t now)
{
    /* The clock only moves ENDS: touch that cell of the rows counting down, nothing else. */
    const struct table *all = &ui->tabs[TAB_ALL]->table;
    size_t nb = 0, nw = 0, changed = 0;
    bool in_sync = all->nrows == ui->sandboxes.count;
    for (size_t i = 0; in_sync && i < ui->sandboxes.count; i++) {
        const e2b_sandbox *sb = &ui->sandboxes.items[i];
        size_t sub_idx = next_sub_index(sb, &nb, &nw);
        if (sb->state != E2B_STATE_RUNNING || !sb->end_at)
            continue;
        char ends[24];
        ends_text(sb, now, ends, sizeof ends);
        if (strcmp(all->rows[i].cells[SBCOL_ENDS], ends) != 0)
            in_sync = set_sandbox_cell(ui, i, sub_idx, SBCOL_ENDS, ends, &changed);
    }
    if (!in_sync)
        return set_rows(ui, &ui->sandboxes, now);
    if (changed)
        ui->dirty = true;
    return 0;
}

/* New metrics move only CPU and MEM: rows without a metric before or now keep "-". */
static int update_usage(struct ui *ui, time_t now)
{
    const struct table *all = &ui->tabs[TAB_ALL]->table;
    size_t nb = 0, nw = 0, changed = 0;
    bool in_sync = all->nrows == ui->sandboxes.count;
    for (size_t i = 0; in_sync && i < ui->sandboxes.count; i++) {
        const e2b_sandbox *sb = &ui->sandboxes.items[i];
        size_t sub_idx = next_sub_index(sb, &nb, &nw);
        const e2b_metric *m =
            sb->state == E2B_STATE_RUNNING ? sandbox_rows_metric(ui, sb->sandbox_id) : NULL;
        const char *cpu_cell = all->rows[i].cells[SBCOL_CPU];
        const char *mem_cell = all->rows[i].cells[SBCOL_MEM];
        if (!m && strcmp(cpu_cell, "-") == 0 && strcmp(mem_cell, "-") == 0)
            continue;
        struct row_text rt;
        row_text(sb, m, now, &rt);
        if (strcmp(cpu_cell, rt.cpu) != 0)
            in_sync = set_sandbox_cell(ui, i, sub_idx, SBCOL_CPU, rt.cpu, &changed);
        if (in_sync && strcmp(mem_cell, rt.mem) != 0)
            in_sync = set_sandbox_cell(ui, i, sub_idx, SBCOL_MEM, rt.mem, &changed);
    }
    if (!in_sync)
        return set_rows(ui, &ui->sandboxes, now);
    if (changed)
        ui->dirty = true;
    return 0;
}

/* Orders metrics by sandbox id (NULL ids last) for the lookups of every refresh. */
static int cmp_metric(const void *a, const void *b)
{
    const e2b_metric *x = a, *y = b;
    if (!x->sandbox_id || !y->sandbox_id)
        return (x->sandbox_id == NULL) - (y->sandbox_id == NULL);
    int c = strcmp(x->sandbox_id, y->sandbox_id);
    if (c == 0) /* the newest sample of a sandbox first */
        c = (y->timestamp > x->timestamp) - (y->timestamp < x->timestamp);
    return c;
}

int sandbox_rows_set_metrics(struct ui *ui, e2b_metric_list *m, time_t now)
{
    e2b_metric_list_clear(&ui->metrics);
    ui->metrics = *m;
    m->items = NULL;
    m->count = 0;
    if (ui->metrics.count > 1)
        qsort(ui->metrics.items, ui->metrics.count, sizeof *ui->metrics.items, cmp_metric);
    return update_usage(ui, now);
}

bool sandbox_rows_counting(const struct ui *ui, time_t now)
{
    return sandbox_rows_next_change(ui, now) > 0;
}

long sandbox_rows_next_change(const struct ui *ui, time_t now)
{
    long next = -1;
    for (size_t i = 0; i < ui->sandboxes.count; i++) {
        const e2b_sandbox *sb = &ui->sandboxes.items[i];
        if (sb->state != E2B_STATE_RUNNING)
            continue;
        long d = sandbox_remaining_next_change(sb->end_at, now);
        if (d > 0 && (next < 0 || d < next)) {
            next = d;
            if (next == 1)
                break;
        }
    }
    return next;
}

const e2b_sandbox *sandbox_rows_find(const struct ui *ui, const char *id)
{
    for (size_t i = 0; i < ui->sandboxes.count; i++) {
        if (strcmp(ui->sandboxes.items[i].sandbox_id, id) == 0)
            return &ui->sandboxes.items[i];
    }
    return NULL;
}

const e2b_metric *sandbox_rows_metric(const struct ui *ui, const char *id)
{
    /* Binary search over the id order sandbox_rows_set_metrics made; the first of equal
     * ids is the newest. */
    size_t lo = 0, hi = ui->metrics.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *mid_id = ui->metrics.items[mid].sandbox_id;
        if (mid_id && strcmp(mid_id, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ui->metrics.count && ui->metrics.items[lo].sandbox_id &&
        strcmp(ui->metrics.items[lo].sandbox_id, id) == 0)
        return &ui->metrics.items[lo];
    return NULL;
}
