/* The Changes panel and pane (tui/views/view_changes.h). Paths and diff lines arrive
 * sanitised from core (core/live/live_changes.h); the counts are numbers. */
#include "tui/views/view_changes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/live/live_changes.h"
#include "tui/term/term.h"
#include "tui/views/get_action.h"
#include "tui/widgets/draw.h"

enum focus { FOCUS_FILES, FOCUS_DIFF };

struct changes_panel {
    struct live_changes *src;
    char id[128];
    char title[256];
    enum focus focus;
    size_t cursor;   /* the selected file */
    size_t top;      /* the first file row drawn */
    char *sel_raw;   /* the selected file's raw path (kept across reads) */
    int diff_top;    /* the first diff line drawn */
    int diff_page;   /* diff rows drawn last */
    int file_rows;   /* file rows drawn last */
};

static const e2b_changes_file *selected_file(const struct changes_panel *p)
{
    const e2b_changes_list *l = e2b_live_changes_list(p->src, NULL);
    return p->cursor < l->count ? &l->files[p->cursor] : NULL;
}

/* Asks the diff of the file under the cursor (when it is another one). */
static void select_cursor(struct changes_panel *p)
{
    const e2b_changes_file *f = selected_file(p);
    const char *raw = f ? f->raw : "";
    if (p->sel_raw && strcmp(p->sel_raw, raw) == 0)
        return;
    free(p->sel_raw);
    p->sel_raw = strdup(raw);
    p->diff_top = 0;
    e2b_live_changes_select(p->src, raw);
}

void changes_panel_changed(struct changes_panel *p, struct ui *ui, unsigned what)
{
    if (!(what & (E2B_LIVE_CHANGES | E2B_LIVE_SANDBOXES)))
        return;
    if (what & E2B_LIVE_CHANGES) {
        /* A new list: the cursor stays on the same file when it is still there. */
        const e2b_changes_list *l = e2b_live_changes_list(p->src, NULL);
        if (p->sel_raw && *p->sel_raw) {
            for (size_t i = 0; i < l->count; i++) {
                if (strcmp(l->files[i].raw, p->sel_raw) == 0) {
                    p->cursor = i;
                    break;
                }
            }
        }
        if (p->cursor >= l->count)
            p->cursor = l->count ? l->count - 1 : 0;
        select_cursor(p);
    }
    ui->dirty = true;
}

/* "M", "A", "D", "T" or "new" (untracked). */
static const char *status_word(const e2b_changes_file *f)
{
    static const char *letters[] = {"A", "M", "D", "T"};
    if (f->untracked)
        return "new";
    const char *s = strchr("AMDT", f->status);
    return s && *s ? letters[s - "AMDT"] : "?";
}

static int diff_role(const char *line)
{
    if (strncmp(line, "@@", 2) == 0)
        return ROLE_HUNK;
    if (strncmp(line, "+++", 3) == 0 || strncmp(line, "---", 3) == 0 ||
        strncmp(line, "diff --git", 10) == 0 || strncmp(line, "index ", 6) == 0 ||
        strncmp(line, "new file", 8) == 0 || strncmp(line, "deleted file", 12) == 0)
        return ROLE_DIM;
    if (line[0] == '+')
        return ROLE_ADDED;
    if (line[0] == '-')
        return ROLE_REMOVED;
    return ROLE_NORMAL;
}

static void draw_files(struct changes_panel *p, const e2b_changes_list *l, int y, int x, int rows,
                       int w)
{
    if (p->cursor < p->top)
        p->top = p->cursor;
    if (p->cursor >= p->top + (size_t)rows)
        p->top = p->cursor - (size_t)rows + 1;
    for (int i = 0; i < rows && p->top + (size_t)i < l->count; i++) {
        size_t k = p->top + (size_t)i;
        const e2b_changes_file *f = &l->files[k];
        bool sel = k == p->cursor;
        int role = sel ? (p->focus == FOCUS_FILES ? ROLE_SELECTED : ROLE_INFO) : ROLE_NORMAL;
        char add[24], del[24], line[1200];
        if (f->binary) {
            snprintf(add, sizeof add, "%6s", "bin");
            snprintf(del, sizeof del, "%6s", "");
        } else {
            snprintf(add, sizeof add, "%+6ld", f->added);
            snprintf(del, sizeof del, "%6ld", -f->removed);
            if (f->removed == 0)
                snprintf(del, sizeof del, "%6s", "-0");
        }
        snprintf(line, sizeof line, " %-3s %s %s  %s", status_word(f), add, del, f->path);
        if (sel) {
            draw_text(y + i, x, w, role, line, true);
            continue;
        }
        /* Counts in colour (the text says + and - without it). */
        draw_text(y + i, x, 5, ROLE_NORMAL, line, false);
        draw_text(y + i, x + 5, 6, ROLE_ADDED, add, false);
        draw_text(y + i, x + 11, 1, ROLE_NORMAL, " ", false);
        draw_text(y + i, x + 12, 6, ROLE_REMOVED, del, false);
        draw_text(y + i, x + 18, w - 18, ROLE_NORMAL, line + 18, false);
    }
}

static void draw_diff(struct changes_panel *p, int y, int x, int rows, int w)
{
    bool ready = false;
    e2b_live_changes_diff_path(p->src, &ready);
    struct e2b_live_lines *lines = e2b_live_changes_diff(p->src);
    p->diff_page = rows > 0 ? rows : 1;
    if (!ready) {
        draw_text(y, x + 2, w - 2, ROLE_DIM, selected_file(p) ? "Reading the diff..." : "", false);
        return;
    }
    int n = e2b_live_lines_count(lines);
    if (p->diff_top > n - 1)
        p->diff_top = n > 0 ? n - 1 : 0;
    for (int i = 0; i < rows && p->diff_top + i < n; i++) {
        const char *line = e2b_live_lines_get(lines, p->diff_top + i);
        if (line)
            draw_text(y + i, x + 1, w - 1, diff_role(line), line, false);
    }
}

void changes_panel_draw(struct changes_panel *p, struct ui *ui, int y, int x, int h, int w)
{
    (void)ui;
    bool listed = false, error = false;
    const e2b_changes_list *l = e2b_live_changes_list(p->src, &listed);
    char head[600], against[64] = "";
    if (listed) {
        if (strcmp(l->against, "empty") == 0)
            snprintf(against, sizeof against, "against the empty tree");
        else
            snprintf(against, sizeof against, "against %s %.7s",
                     strcmp(l->against, "base") == 0 ? "base" : "HEAD (base unknown)", l->commit);
        snprintf(head, sizeof head, "CHANGES  %s  %zu file%s%s  +%ld -%ld  %s", p->title, l->count,
                 l->count == 1 ? "" : "s", l->cut ? " (cut: more not shown)" : "", l->added,
                 l->removed, against);
    } else {
        snprintf(head, sizeof head, "CHANGES  %s", p->title);
    }
    draw_text(y, x, w, ROLE_HEADER, head, true);
    const char *status = e2b_live_changes_status(p->src, &error);
    char st[500];
    snprintf(st, sizeof st, "%s%s", e2b_live_changes_busy(p->src) ? "reading... " : "", status);
    draw_text(y + 1, x + 1, w - 1, error ? ROLE_ERROR : ROLE_DIM, st, true);
    int body = h - 2;
    if (body <= 0)
        return;
    if (!listed || l->count == 0) {
        const char *empty =
            !listed ? "" : "No changes against the base: the work tree is as `up` left it.";
        draw_text(y + 3, x + 2, w - 2, ROLE_DIM, empty, false);
        p->file_rows = 0;
        return;
    }
    /* Files above (a third of the pane at most), the diff of the selected one below. */
    int frows = (int)l->count;
    int cap = body / 3 > 3 ? body / 3 : 3;
    if (frows > cap)
        frows = cap;
    if (frows > body - 2)
        frows = body - 2 > 1 ? body - 2 : 1;
    p->file_rows = frows;
    draw_files(p, l, y + 2, x, frows, w);
    const e2b_changes_file *f = selected_file(p);
    char sep[1200];
    int n = e2b_live_lines_count(e2b_live_changes_diff(p->src));
    snprintf(sep, sizeof sep, "── %s  (line %d of %d)  %s", f ? f->path : "",
             n ? p->diff_top + 1 : 0, n,
             p->focus == FOCUS_FILES ? "Tab: scroll the diff, PgUp/PgDn pages it"
                                     : "Tab: back to the files");
    draw_text(y + 2 + frows, x, w, ROLE_DIM, sep, true);
    draw_diff(p, y + 3 + frows, x, body - frows - 1, w);
}

static void scroll_diff(struct changes_panel *p, int delta)
{
    int n = e2b_live_lines_count(e2b_live_changes_diff(p->src));
    int last = n > p->diff_page ? n - p->diff_page : 0;
    p->diff_top += delta;
    if (p->diff_top > last)
        p->diff_top = last;
    if (p->diff_top < 0)
        p->diff_top = 0;
}

static void move_files(struct changes_panel *p, long delta)
{
    size_t count = e2b_live_changes_list(p->src, NULL)->count;
    if (!count)
        return;
    long c = (long)p->cursor + delta;
    if (c < 0)
        c = 0;
    if (c >= (long)count)
        c = (long)count - 1;
    p->cursor = (size_t)c;
    select_cursor(p);
}

bool changes_panel_act(struct changes_panel *p, struct ui *ui, enum action_id a)
{
    int page = p->diff_page > 1 ? p->diff_page - 1 : 1;
    bool files = p->focus == FOCUS_FILES;
    switch (a) {
    case ACT_REREAD:
        e2b_live_changes_refresh(p->src);
        break;
    case ACT_FOCUS: p->focus = files ? FOCUS_DIFF : FOCUS_FILES; break;
    case ACT_GET: {
        const e2b_changes_file *f = selected_file(p);
        const char *raw = f ? f->raw : "";
        for (const char *c = raw; *c; c++)
            if ((unsigned char)*c < ' ' || (unsigned char)*c == 0x7f)
                raw = ""; /* the box's bytes: only a printable name is offered */
        get_action_open(ui, p->id, raw);
        break;
    }
    case ACT_MOVE_UP: files ? move_files(p, -1) : scroll_diff(p, -1); break;
    case ACT_MOVE_DOWN: files ? move_files(p, 1) : scroll_diff(p, 1); break;
    case ACT_PAGE_UP: scroll_diff(p, -page); break;
    case ACT_PAGE_DOWN: scroll_diff(p, page); break;
    case ACT_FIRST: files ? move_files(p, -(long)p->cursor) : scroll_diff(p, -p->diff_top); break;
    case ACT_LAST: files ? move_files(p, 1L << 30) : scroll_diff(p, 1 << 30); break;
    default: return false;
    }
    ui->dirty = true;
    return true;
}

struct changes_panel *changes_panel_new(struct ui *ui, const char *sandbox_id, const char *name)
{
    struct changes_panel *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->id, sizeof p->id, "%s", sandbox_id);
    snprintf(p->title, sizeof p->title, "%s (%s)", name, sandbox_id);
    p->src = e2b_live_changes_open(ui->model, p->id);
    if (!p->src) {
        free(p);
        return NULL;
    }
    return p;
}

void changes_panel_free(struct changes_panel *p)
{
    if (!p)
        return;
    e2b_live_changes_close(p->src);
    free(p->sel_raw);
    free(p);
}

/* ---- the pane ---- */

static void pane_changed(struct view *v, struct ui *ui, unsigned what)
{
    changes_panel_changed(v->priv, ui, what);
}

static void pane_draw(struct view *v, struct ui *ui, int y, int x, int h, int w)
{
    changes_panel_draw(v->priv, ui, y, x, h, w);
}

static bool pane_act(struct view *v, struct ui *ui, enum action_id a)
{
    return changes_panel_act(v->priv, ui, a);
}

static void pane_destroy(struct view *v)
{
    changes_panel_free(v->priv);
    free(v);
}

static const struct view_ops OPS = {
    .name = "changes",
    .title = "Changes",
    .bit = VIEW_CHANGES,
    .changed = pane_changed,
    .draw = pane_draw,
    .act = pane_act,
    .destroy = pane_destroy,
};

struct view *view_changes_new(struct ui *ui, const char *sandbox_id, const char *name)
{
    struct view *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->priv = changes_panel_new(ui, sandbox_id, name);
    if (!v->priv) {
        free(v);
        return NULL;
    }
    v->ops = &OPS;
    return v;
}
