/* The Detail pane: one field per line (tui/views/view_detail.h). */
#include "tui/views/view_detail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/box/box_egress.h"
#include "core/live/live_ports.h"
#include "core/util/sanitize.h"
#include "tui/sandbox_rows.h"
#include "core/e2b/cost.h"
#include "core/live/live_budget.h"
#include "tui/views/copy_action.h"
#include "tui/views/get_action.h"
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
    char box_id[128]; /* a box's sandbox: its ports are shown (read when the pane opens) */
    int ports_at;     /* the line before which they are drawn */
    struct ui *ui;
};

/* ---- the box's ports (core/live/live_ports.h), drawn from the model at each frame ---- */

enum { PORT_LINES_MAX = 3 + E2B_LIVE_FORWARDS };

/* The ports' lines (label, value) into lab/val; how many. */
static int port_lines(const struct detail *d, char lab[][16], char val[][600])
{
    if (!d->box_id[0])
        return 0;
    e2b_live_ports_info pi;
    e2b_live_ports_get(d->ui->model, d->box_id, &pi);
    int n = 0;
    snprintf(lab[n], 16, "Ports");
    if (pi.state == E2B_LIVE_PORTS_NONE)
        snprintf(val[n], 600, "not read yet (w reads them, then forwards one)");
    else if (pi.state == E2B_LIVE_PORTS_READING)
        snprintf(val[n], 600, "reading the box's listening ports...");
    else if (pi.state == E2B_LIVE_PORTS_FAILED)
        snprintf(val[n], 600, "%s", pi.why);
    else if (pi.ports->count == 0)
        snprintf(val[n], 600, "nothing listens on a TCP port (w reads them again)");
    else {
        size_t k = 0;
        val[n][0] = '\0';
        for (size_t i = 0; i < pi.ports->count && k < 500; i++)
            k += (size_t)snprintf(val[n] + k, 600 - k, "%s%d%s", i ? ", " : "",
                                  pi.ports->items[i].port,
                                  pi.ports->items[i].loopback ? " (127.0.0.1 only)" : "");
        if (k < 560)
            snprintf(val[n] + k, 600 - k, "  (w: forward one)");
    }
    n++;
    for (size_t i = 0; i < pi.nforwards; i++, n++) {
        snprintf(lab[n], 16, "Forward");
        snprintf(val[n], 600, "%d -> %s (yours only)", pi.fwd_port[i], pi.fwd_url[i]);
    }
    if (pi.state == E2B_LIVE_PORTS_READ && pi.is_public && pi.ports->count) {
        char *u = e2b_live_port_direct_url(d->ui->model, d->box_id, pi.ports->items[0].port);
        char *clean = u ? e2b_sanitize_display(u, strlen(u), 0) : NULL;
        snprintf(lab[n], 16, "Public");
        snprintf(val[n++], 600, "anyone reaches its ports directly, e.g. %s", clean ? clean : "?");
        free(clean);
        free(u);
    }
    return n;
}

static void forward_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    const char *id = ctx;
    char *end;
    long port = ok ? strtol(text, &end, 10) : 0;
    if (!ok)
        return;
    if (!*text || *end || port < 1 || port > 65535) {
        ui_flash(ui, FLASH_ERROR, "forward: a port is a number from 1 to 65535");
        return;
    }
    const char *url = NULL;
    if (e2b_live_forward(ui->model, id, (int)port, &url) == 0 && url) {
        char what[64];
        snprintf(what, sizeof what, "port %ld's local URL (yours only)", port);
        copy_action_text(ui, what, url);
    }
    ui->dirty = true;
}

static void forward_ask(struct detail *d, struct ui *ui)
{
    e2b_live_ports_info pi;
    e2b_live_ports_get(ui->model, d->box_id, &pi);
    if (pi.state != E2B_LIVE_PORTS_READ) {
        if (pi.state != E2B_LIVE_PORTS_READING && e2b_live_ports_read(ui->model, d->box_id) == 0)
            ui_flash(ui, FLASH_INFO, "reading the box's ports (a paused box is resumed); w again forwards one");
        return;
    }
    /* the first port that is not the box's OpenCode server and that E2B's proxy reaches
     * (not bound to 127.0.0.1 only), else the first */
    char initial[16] = "";
    if (pi.ports->count)
        snprintf(initial, sizeof initial, "%d", pi.ports->items[0].port);
    for (size_t i = 0; i < pi.ports->count; i++)
        if (pi.ports->items[i].port != E2B_BOX_PORT && !pi.ports->items[i].loopback) {
            snprintf(initial, sizeof initial, "%d", pi.ports->items[i].port);
            break;
        }
    char *id = strdup(d->box_id);
    if (!id)
        return;
    prompt_open(ui, "forward: which port of the box (a local URL, yours only): ", false, initial,
                NULL, forward_done, id, free);
}

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

/* "Budget: $2.00 (its own), $0.42 spent; stopped there: e raises it" (live_budget.h). */
static void budget_line(struct detail *d, const e2b_live *model, const char *id)
{
    e2b_live_budget b;
    char line[200], f[24], s[24];
    if (!e2b_live_budget_of(model, id, &b) || b.usd <= 0) {
        add(d, "Budget", "none (--up --budget, or budget_usd in the config)");
        return;
    }
    e2b_cost_format(b.usd, f, sizeof f);
    e2b_cost_format(b.spent_usd, s, sizeof s);
    snprintf(line, sizeof line, "%s (%s), %s spent now%s", f,
             b.own ? "its own" : "the config's budget_usd", s,
             b.stopped ? "; stopped there: e or m raises it"
             : b.reached ? "; reached" : "");
    add(d, "Budget", line);
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
        budget_line(d, model, sb->sandbox_id);
        /* what e2b-tui allows by itself (core/agent/rules.h; --approve NAME lists the server's too) */
        if (rec && rec->yes_all)
            add(d, "Approves", "YES-ALL: every permission request, without asking");
        for (size_t i = 0; rec && i < rec->napprove; i++)
            add(d, i || rec->yes_all ? "" : "Approves", rec->approve[i]);
        if (rec && !rec->yes_all && !rec->napprove)
            add(d, "Approves", "nothing by itself (--approve NAME RULE)");
    } else if (sb->kind == E2B_KIND_BOX) {
        add(d, "Project", "(no record on this machine)");
    }
    free(url);
    d->ports_at = d->n;
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
    char plab[PORT_LINES_MAX][16], pval[PORT_LINES_MAX][600];
    int np = port_lines(d, plab, pval);
    for (int i = 0; i + d->top < d->n + np && i < h - 1; i++) {
        char line[1024];
        int k = i + d->top, at = np ? d->ports_at : d->n;
        if (k < at)
            snprintf(line, sizeof line, "%-12s %s", d->label[k], d->value[k]);
        else if (k < at + np)
            snprintf(line, sizeof line, "%-12s %s", plab[k - at], pval[k - at]);
        else
            snprintf(line, sizeof line, "%-12s %s", d->label[k - np], d->value[k - np]);
        draw_text(y + 1 + i, x + 1, w - 1, ROLE_NORMAL, line, false);
    }
    (void)ui;
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    struct detail *d = v->priv;
    switch (a) {
    case ACT_GET:
        if (!d->box_id[0])
            return false;
        get_action_open(ui, d->box_id, "");
        ui->dirty = true;
        return true;
    case ACT_FORWARD:
        if (!d->box_id[0])
            return false;
        forward_ask(d, ui);
        ui->dirty = true;
        return true;
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
        d->ui = ui;
        if (sb->kind == E2B_KIND_BOX && sb->box_name) {
            snprintf(d->box_id, sizeof d->box_id, "%s", sb->sandbox_id);
            /* on demand: a running box's ports are read as its pane opens (a paused one's
             * when w asks, which resumes it) */
            e2b_live_ports_info pi;
            e2b_live_ports_get(ui->model, d->box_id, &pi);
            if (sb->state == E2B_STATE_RUNNING && pi.state != E2B_LIVE_PORTS_READING)
                e2b_live_ports_read(ui->model, d->box_id);
        }
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
