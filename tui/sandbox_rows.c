#include "tui/sandbox_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/sandbox_list.h"

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
    if (left >= 86400)
        snprintf(buf, bufsz, "%lldd %02lldh", left / 86400, (left % 86400) / 3600);
    else
        snprintf(buf, bufsz, "%lld:%02lld:%02lld", left / 3600, (left % 3600) / 60, left % 60);
}

/* The text of every cell of one sandbox, in one allocation per row. */
struct row_text {
    char cpu[16], mem[24], ends[24];
    const char *cells[SBCOL_COUNT];
};

/* m: the sandbox's latest metric or NULL; with one, CPU is the percentage in use and MEM
 * the memory in use, else the sandbox's size (CPU count, MiB). */
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
    else if (sb->cpu_count >= 0)
        snprintf(rt->cpu, sizeof rt->cpu, "%d", sb->cpu_count);
    else
        snprintf(rt->cpu, sizeof rt->cpu, "-");
    if (m && m->mem_used > 0)
        snprintf(rt->mem, sizeof rt->mem, "%lldM", (long long)(m->mem_used >> 20));
    else if (sb->memory_mb >= 0)
        snprintf(rt->mem, sizeof rt->mem, "%dM", sb->memory_mb);
    else
        snprintf(rt->mem, sizeof rt->mem, "-");
    if (sb->state == E2B_STATE_PAUSED)
        snprintf(rt->ends, sizeof rt->ends, "paused");
    else
        sandbox_format_remaining(sb->end_at, now, rt->ends, sizeof rt->ends);
    rt->cells[SBCOL_NAME] = name;
    rt->cells[SBCOL_ID] = sb->sandbox_id;
    rt->cells[SBCOL_TEMPLATE] = tmpl ? tmpl : "-";
    rt->cells[SBCOL_STATE] = e2b_sandbox_state_name(sb->state);
    rt->cells[SBCOL_CPU] = rt->cpu;
    rt->cells[SBCOL_MEM] = rt->mem;
    rt->cells[SBCOL_ENDS] = rt->ends;
}

/* Sets the three views' rows from list (borrowed). */
static int set_rows(struct ui *ui, const e2b_sandbox_list *list, time_t now)
{
    size_t n = list->count;
    struct row_text *text = calloc(n ? n : 1, sizeof *text);
    struct table_row_in *all = calloc(n ? n : 1, sizeof *all);
    struct table_row_in *boxes = calloc(n ? n : 1, sizeof *boxes);
    struct table_row_in *ws = calloc(n ? n : 1, sizeof *ws);
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
    if (table_set_rows(&ui->tabs[TAB_ALL]->table, all, n) != 0 ||
        table_set_rows(&ui->tabs[TAB_BOXES]->table, boxes, nb) != 0 ||
        table_set_rows(&ui->tabs[TAB_WORKSPACES]->table, ws, nw) != 0)
        goto out;
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
    if (set_rows(ui, list, now) != 0)
        return -1;
    for (int t = TAB_BOXES; t <= TAB_ALL; t++)
        ui->tabs[t]->loaded = true;
    e2b_sandbox_list_clear(&ui->sandboxes);
    ui->sandboxes = *list;
    list->items = NULL;
    list->count = 0;
    return 0;
}

int sandbox_rows_redraw_times(struct ui *ui, time_t now)
{
    return set_rows(ui, &ui->sandboxes, now);
}

bool sandbox_rows_counting(const struct ui *ui, time_t now)
{
    for (size_t i = 0; i < ui->sandboxes.count; i++) {
        const e2b_sandbox *sb = &ui->sandboxes.items[i];
        /* Until end_at: the tick at end_at draws "expired", then the clock stops. */
        if (sb->state == E2B_STATE_RUNNING && sb->end_at && sb->end_at > now)
            return true;
    }
    return false;
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
    for (size_t i = 0; i < ui->metrics.count; i++) {
        const char *mid = ui->metrics.items[i].sandbox_id;
        if (mid && strcmp(mid, id) == 0)
            return &ui->metrics.items[i];
    }
    return NULL;
}
