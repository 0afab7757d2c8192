/* The Detail pane: one field per line (tui/views/view_detail.h). */
#include "tui/views/view_detail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/box/box_egress.h"
#include "core/util/sanitize.h"
#include "tui/sandbox_rows.h"
#include "tui/term/term.h"
#include "tui/widgets/draw.h"

#define DETAIL_MAX 64

struct detail {
    struct view *list; /* the tab under the pane (lives as long as ui): the row's actions */
    int n;
    int top;
    bool oom;
    char *label[DETAIL_MAX];
    char *value[DETAIL_MAX];
};

/* Adds a line; the value is sanitised here (it may come from the network). */
static void add(struct detail *d, const char *label, const char *value)
{
    if (d->n >= DETAIL_MAX)
        return;
    if (!value)
        value = "-";
    d->label[d->n] = strdup(label);
    d->value[d->n] = e2b_sanitize_display(value, strlen(value), 0);
    if (!d->label[d->n] || !d->value[d->n]) {
        free(d->label[d->n]);
        free(d->value[d->n]);
        d->oom = true;
        return;
    }
    d->n++;
}

static void add_time(struct detail *d, const char *label, time_t t)
{
    char buf[32] = "-";
    if (t)
        e2b_format_rfc3339(t, buf, sizeof buf);
    add(d, label, buf);
}

static void add_int(struct detail *d, const char *label, int v, const char *unit)
{
    char buf[32] = "-";
    if (v >= 0)
        snprintf(buf, sizeof buf, "%d%s", v, unit);
    add(d, label, buf);
}

static void egress_line(void *ud, const char *label, const char *value)
{
    add(ud, label, value);
}

static void from_sandbox(struct detail *d, const e2b_live *model, const e2b_sandbox *sb)
{
    char left[32];
    add(d, "ID", sb->sandbox_id);
    if (sb->kind == E2B_KIND_BOX)
        add(d, "Box", sb->box_name);
    add(d, "Kind", e2b_sandbox_kind_name(sb->kind));
    add(d, "Template", sb->alias && *sb->alias ? sb->alias : sb->template_id);
    add(d, "Template ID", sb->template_id);
    add(d, "State", e2b_sandbox_state_name(sb->state));
    add_time(d, "Started", sb->started_at);
    add_time(d, "Ends", sb->end_at);
    sandbox_rows_format_remaining(sb->end_at, time(NULL), left, sizeof left);
    add(d, "Time left", sb->state == E2B_STATE_PAUSED ? "paused" : left);
    add_int(d, "CPUs", sb->cpu_count, "");
    add_int(d, "Memory", sb->memory_mb, " MiB");
    add_int(d, "Disk", sb->disk_size_mb, " MiB");
    if (sb->kind == E2B_KIND_BOX) {
        add(d, "Branch", sb->box_branch);
        add(d, "Base", sb->box_base);
        const char *traffic = e2b_metadata_get(&sb->metadata, E2B_META_TRAFFIC);
        add(d, "Traffic", !traffic ? "not recorded (made before private boxes)"
                          : strcmp(traffic, "private") == 0
                              ? "private: its ports need the sandbox's traffic token"
                              : "public: anyone with the password reaches its server");
    }
    char dir[4096], *url = NULL;
    if (sb->kind == E2B_KIND_BOX && e2b_live_box_where(model, sb->sandbox_id, dir, sizeof dir, &url)) {
        add(d, "Project", dir);
        add(d, "Server", url);
        e2b_opencode_kind oc; /* what its up found in the box (core/e2b/opencode_kind.h) */
        char what[80];
        e2b_box_record_opencode(e2b_live_record(model, sb->sandbox_id), &oc);
        add(d, "OpenCode", e2b_opencode_kind_describe(&oc, what, sizeof what));
        /* what it may reach (core/box/box_egress.h), as up or a network change set it */
        const e2b_box_record *rec = e2b_live_record(model, sb->sandbox_id);
        add(d, "Egress", rec && rec->egress ? "(n: change)" : "not recorded (made before egress rules)");
        if (rec && rec->egress)
            e2b_box_egress_describe(rec->egress, egress_line, d);
    } else if (sb->kind == E2B_KIND_BOX) {
        add(d, "Project", "(no record on this machine)");
    }
    free(url);
    add(d, "Metadata", sb->metadata.count ? "" : "(none)");
    for (size_t i = 0; i < sb->metadata.count && d->n < DETAIL_MAX; i++) {
        char line[512];
        snprintf(line, sizeof line, "%s = %s", sb->metadata.items[i].key,
                 sb->metadata.items[i].value);
        add(d, "", line);
    }
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    struct detail *d = v->priv;
    draw_text(y, x, w, ROLE_HEADER, "DETAIL  (Esc: back)", true);
    for (int i = 0; i + d->top < d->n && i < h - 1; i++) {
        char line[1024];
        snprintf(line, sizeof line, "%-12s %s", d->label[i + d->top], d->value[i + d->top]);
        draw_text(y + 1 + i, x + 1, w - 1, ROLE_NORMAL, line, false);
    }
    (void)ui;
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    struct detail *d = v->priv;
    switch (a) {
    case ACT_ATTACH:
    case ACT_STOP:
    case ACT_RESUME:
    case ACT_KILL:
    case ACT_PULL:
    case ACT_EXTEND:
    case ACT_LOGS:
    case ACT_COPY:
        /* The row's actions, on the row under the pane (a pane it opens goes over this one,
         * which Esc returns to). */
        return d->list && d->list->ops->act && d->list->ops->act(d->list, ui, a);
    case ACT_MOVE_UP:
        if (d->top > 0)
            d->top--;
        break;
    case ACT_PAGE_UP:
    case ACT_FIRST: d->top = 0; break;
    case ACT_MOVE_DOWN:
        if (d->top + 1 < d->n)
            d->top++;
        break;
    case ACT_PAGE_DOWN:
    case ACT_LAST: d->top = d->n > 0 ? d->n - 1 : 0; break;
    case ACT_HALF_UP: d->top = d->top > (LINES - 2) / 2 ? d->top - (LINES - 2) / 2 : 0; break;
    case ACT_HALF_DOWN:
        d->top += (LINES - 2) / 2;
        if (d->top >= d->n)
            d->top = d->n > 0 ? d->n - 1 : 0;
        break;
    default: return false;
    }
    ui->dirty = true;
    return true;
}

static void destroy(struct view *v)
{
    struct detail *d = v->priv;
    for (int i = 0; i < d->n; i++) {
        free(d->label[i]);
        free(d->value[i]);
    }
    free(d);
    free(v);
}

static const struct view_ops OPS = {
    .name = "detail",
    .title = "Detail",
    .bit = VIEW_DETAIL,
    .draw = draw,
    .act = act,
    .destroy = destroy,
};

struct view *view_detail_new(struct ui *ui, const struct view *list)
{
    const struct table_row *r = table_selected(&list->table);
    if (!r)
        return NULL;
    struct view *v = calloc(1, sizeof *v);
    struct detail *d = calloc(1, sizeof *d);
    if (!v || !d) {
        free(v);
        free(d);
        return NULL;
    }
    v->ops = &OPS;
    v->priv = d;
    const e2b_sandbox *sb =
        (list->ops->bit & VIEWS_SANDBOXES) ? e2b_live_sandbox(ui->model, r->id) : NULL;
    if (sb) {
        from_sandbox(d, ui->model, sb);
        d->list = (struct view *)list; /* a tab: the row's actions go to it */
    } else {
        const struct table *t = &list->table;
        for (int c = 0; c < t->ncols; c++)
            add(d, t->cols[c].title, r->cells[c]);
    }
    if (d->oom) {
        destroy(v);
        return NULL;
    }
    return v;
}
