/* The Log pane (tui/views/view_log.h). Every line is sanitised when it arrives. */
#include "tui/views/view_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/live/live_sandbox_log.h"
#include "core/live/live_server_log.h"
#include "tui/term/term.h"
#include "tui/widgets/draw.h"

enum log_source { SRC_SERVER, SRC_E2B };

struct log_view {
    struct ui *ui;
    char id[128];
    char title[256];
    bool is_box;
    enum log_source source;
    struct e2b_live_server_log *server; /* boxes only */
    struct e2b_live_sandbox_log *e2b;
    int top;
    bool follow;
    int page;             /* rows shown last */
    long long dropped;    /* the source's dropped-line count when last drawn */
    char search[128];     /* / search: the text ("" = none), matched in any case */
    int match;            /* the line of the current match, -1 = none */
    int match_no, matches; /* it is match match_no of matches (as counted when found) */
};

static const struct view_ops OPS;

static struct e2b_live_lines *current_lines(struct log_view *lv)
{
    return lv->source == SRC_SERVER ? e2b_live_server_log_lines(lv->server)
                                    : e2b_live_sandbox_log_lines(lv->e2b);
}

/* The line under the header: what the source is doing, or a hint. */
static const char *status_line(struct log_view *lv, bool *error)
{
    *error = false;
    if (lv->source == SRC_E2B) {
        const char *err = e2b_live_sandbox_log_error(lv->e2b);
        if (err[0]) {
            *error = true;
            return err;
        }
        if (!lv->is_box)
            return "Not a box: these are E2B's logs of the sandbox (a box also shows its "
                   "server's output).";
        return "E2B's logs of the sandbox (lifecycle events); Tab: the server's output";
    }
    /* The list knows about a pause before the stream does (a paused sandbox's stream may
     * just go quiet). */
    const e2b_sandbox *sb = e2b_live_sandbox(lv->ui->model, lv->id);
    if (sb && sb->state == E2B_STATE_PAUSED) {
        *error = true;
        return lv->ui->opts.readonly ? "sandbox paused (read-only here: resume it elsewhere)"
                                     : "sandbox paused — r resumes it (the output continues then)";
    }
    return e2b_live_server_log_status(lv->server, error);
}

static void draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    struct log_view *lv = v->priv;
    struct e2b_live_lines *lines = current_lines(lv);
    char head[800];
    const char *what = lv->source == SRC_SERVER ? "server output" : "E2B logs";
    const char *other = !lv->is_box ? "" : lv->source == SRC_SERVER ? "; Tab: E2B logs"
                                                                     : "; Tab: server output";
    char found[200] = "";
    if (lv->match >= 0)
        snprintf(found, sizeof found, "  /%.100s %d/%d", lv->search, lv->match_no, lv->matches);
    snprintf(head, sizeof head, "LOG  %s  [%s%s]%s  (%s%s; Esc: back)", lv->title, what,
             lv->follow ? ", following" : "", found, lv->follow ? "End follows" : "End: follow",
             other);
    draw_text(y, x, w, ROLE_HEADER, head, true);
    bool error = false;
    const char *status = status_line(lv, &error);
    draw_text(y + 1, x + 1, w - 1, error ? ROLE_ERROR : ROLE_DIM, status, true);
    int rows = h - 2;
    lv->page = rows > 0 ? rows : 1;
    int n = e2b_live_lines_count(lines);
    /* Lines dropped from the top (the retention cap) shift what the user is reading. */
    if (!lv->follow && lines->dropped != lv->dropped) {
        lv->top -= (int)(lines->dropped - lv->dropped);
        if (lv->top < 0)
            lv->top = 0;
    }
    lv->dropped = lines->dropped;
    if (lv->follow)
        lv->top = n > rows ? n - rows : 0;
    if (n == 0) {
        const char *empty = lv->source == SRC_SERVER ? "No output from the server yet."
                            : e2b_live_sandbox_log_loading(lv->e2b)
                                ? "Loading the sandbox's E2B logs..."
                                : "No E2B log entries yet.";
        draw_text(y + 3, x + 2, w - 2, ROLE_DIM, empty, false);
    }
    for (int i = 0; i < rows && lv->top + i < n; i++) {
        const char *line = e2b_live_lines_get(lines, lv->top + i);
        if (line)
            draw_text(y + 2 + i, x + 1, w - 1,
                      lv->top + i == lv->match ? ROLE_SELECTED : ROLE_NORMAL, line, false);
    }
    (void)ui;
}

static void switch_source(struct log_view *lv, struct ui *ui)
{
    if (!lv->is_box) {
        ui_flash(ui, FLASH_INFO, "not a box: only E2B's logs are available for this sandbox");
        return;
    }
    lv->source = lv->source == SRC_SERVER ? SRC_E2B : SRC_SERVER;
    lv->match = -1;
    /* The E2B logs are polled only while shown; the server's stream stays up. */
    e2b_live_sandbox_log_set_active(lv->e2b, lv->source == SRC_E2B);
    lv->follow = true;
    lv->dropped = current_lines(lv)->dropped;
    ui->dirty = true;
}

/* The next line from `from` in direction dir (1 or -1) that holds the search text. */
static void find(struct log_view *lv, struct ui *ui, int from, int dir)
{
    struct e2b_live_lines *lines = current_lines(lv);
    int n = e2b_live_lines_count(lines);
    if (!lv->search[0]) {
        ui_flash(ui, FLASH_INFO, "no search yet: / searches the log");
        return;
    }
    for (int i = from; i >= 0 && i < n; i += dir) {
        const char *line = e2b_live_lines_get(lines, i);
        if (line && strcasestr(line, lv->search)) {
            lv->match = i;
            lv->follow = false;
            lv->top = i > 2 ? i - 2 : 0; /* a little context above */
            /* Which match of how many ("3/17", as less and k9s say). */
            lv->match_no = lv->matches = 0;
            for (int k = 0; k < n; k++) {
                const char *l = e2b_live_lines_get(lines, k);
                if (l && strcasestr(l, lv->search)) {
                    lv->matches++;
                    if (k <= i)
                        lv->match_no++;
                }
            }
            ui_flash(ui, FLASH_INFO, "\"%s\": match %d of %d (n next, N previous)", lv->search,
                     lv->match_no, lv->matches);
            ui->dirty = true;
            return;
        }
    }
    ui_flash(ui, FLASH_INFO, "\"%s\" not found %s", lv->search,
             dir > 0 ? "below (N searches up)" : "above (n searches down)");
}

/* The prompt's answer goes to the Log pane still shown (it may have closed meanwhile). */
static void search_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    (void)ctx;
    struct view *v = ui->pane;
    if (!ok || !v || v->ops != &OPS)
        return;
    struct log_view *lv = v->priv;
    snprintf(lv->search, sizeof lv->search, "%s", text);
    lv->match = -1;
    if (lv->search[0])
        find(lv, ui, 0, 1);
}

/* r in the pane: resume this sandbox (as r in the list does), then reconnect. */
static void resume(struct log_view *lv, struct ui *ui)
{
    e2b_live_resume(ui->model, lv->id, 0);
    if (lv->server)
        e2b_live_server_log_retry_now(lv->server);
}

static bool act(struct view *v, struct ui *ui, enum action_id a)
{
    struct log_view *lv = v->priv;
    int n = e2b_live_lines_count(current_lines(lv));
    int last = n > lv->page ? n - lv->page : 0;
    switch (a) {
    case ACT_LOG_SOURCE: switch_source(lv, ui); return true;
    case ACT_LOG_SEARCH:
        prompt_open(ui, "search the log: ", false, lv->search, NULL, search_done, NULL, NULL);
        return true;
    case ACT_SEARCH_NEXT: find(lv, ui, lv->match >= 0 ? lv->match + 1 : lv->top, 1); return true;
    case ACT_SEARCH_PREV: find(lv, ui, lv->match >= 0 ? lv->match - 1 : lv->top, -1); return true;
    case ACT_RESUME: resume(lv, ui); return true;
    case ACT_MOVE_UP: lv->top = lv->top > 0 ? lv->top - 1 : 0; break;
    case ACT_PAGE_UP: lv->top = lv->top > lv->page ? lv->top - lv->page : 0; break;
    case ACT_FIRST: lv->top = 0; break;
    case ACT_MOVE_DOWN: lv->top = lv->top < last ? lv->top + 1 : last; break;
    case ACT_PAGE_DOWN: lv->top = lv->top + lv->page < last ? lv->top + lv->page : last; break;
    case ACT_LAST: lv->top = last; break;
    case ACT_HALF_UP: lv->top = lv->top > lv->page / 2 ? lv->top - lv->page / 2 : 0; break;
    case ACT_HALF_DOWN:
        lv->top = lv->top + lv->page / 2 < last ? lv->top + lv->page / 2 : last;
        break;
    default: return false;
    }
    /* Scrolled to the end: follow again; anywhere else: stay put. */
    lv->follow = lv->top >= last;
    ui->dirty = true;
    return true;
}

static void destroy(struct view *v)
{
    struct log_view *lv = v->priv;
    e2b_live_server_log_close(lv->server);
    e2b_live_sandbox_log_close(lv->e2b);
    free(lv);
    free(v);
}

/* The followers tell the model, the model tells the views: redraw what arrived. */
static void changed(struct view *v, struct ui *ui, unsigned what)
{
    (void)v;
    if (what & (E2B_LIVE_LOGS | E2B_LIVE_SANDBOXES))
        ui->dirty = true;
}

static const struct view_ops OPS = {
    .name = "log",
    .title = "Log",
    .bit = VIEW_LOG,
    .changed = changed,
    .draw = draw,
    .act = act,
    .destroy = destroy,
};

struct view *view_log_new(struct ui *ui, const char *id, const char *name)
{
    struct view *v = calloc(1, sizeof *v);
    struct log_view *lv = calloc(1, sizeof *lv);
    if (!v || !lv) {
        free(v);
        free(lv);
        return NULL;
    }
    lv->ui = ui;
    lv->follow = true;
    lv->match = -1;
    snprintf(lv->id, sizeof lv->id, "%s", id);
    snprintf(lv->title, sizeof lv->title, "%s (%s)", name, id);
    const e2b_sandbox *sb = e2b_live_sandbox(ui->model, id);
    lv->is_box = sb && sb->kind == E2B_KIND_BOX;
    lv->e2b = e2b_live_sandbox_log_open(ui->model, lv->id);
    if (lv->is_box)
        lv->server = e2b_live_server_log_open(ui->model, lv->id);
    if (!lv->e2b || (lv->is_box && !lv->server)) {
        e2b_live_server_log_close(lv->server);
        e2b_live_sandbox_log_close(lv->e2b);
        free(lv);
        free(v);
        return NULL;
    }
    lv->source = lv->is_box ? SRC_SERVER : SRC_E2B;
    e2b_live_sandbox_log_set_active(lv->e2b, lv->source == SRC_E2B);
    v->ops = &OPS;
    v->priv = lv;
    return v;
}
