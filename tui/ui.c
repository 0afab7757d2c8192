/* The helpers of tui/ui.h: the current view, the status-line message, tabs and the pane.
 * Views and widgets call these (never tui/app.c); they call views only through view_ops. */
#include "tui/ui.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/sanitize.h"
#include "tui/term/loop.h"

enum { FLASH_INFO_MS = 4000, FLASH_ERROR_MS = 8000 };

struct view *ui_current(struct ui *ui)
{
    return ui->pane ? ui->pane : ui->tabs[ui->tab];
}

unsigned ui_current_bit(struct ui *ui)
{
    return ui->help_open ? VIEW_HELP : ui_current(ui)->ops->bit;
}

bool ui_have_api_key(const struct ui *ui)
{
    const e2b_config *cfg = e2b_live_config(ui->model);
    return cfg->api_key && *cfg->api_key;
}

void ui_flash(struct ui *ui, enum flash_level level, const char *fmt, ...)
{
    char raw[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* Flash texts carry names and server messages: sanitise before they can be drawn. */
    char *safe = e2b_sanitize_display(raw, strlen(raw), 0);
    const char *text = safe ? safe : "";
    messages_add(&ui->messages, level == FLASH_ERROR, time(NULL), text);
    snprintf(ui->flash.text, sizeof ui->flash.text, "%s", text);
    ui->flash.cut = strlen(text) >= sizeof ui->flash.text;
    free(safe);
    ui->flash.level = level;
    ui->flash.expires_ms = loop_now_ms() + (level == FLASH_ERROR ? FLASH_ERROR_MS : FLASH_INFO_MS);
    ui->dirty = true;
}

static void destroy_pane(struct ui *ui, struct view *p, bool shown)
{
    if (shown && p->ops->close)
        p->ops->close(p, ui);
    if (p->ops->destroy)
        p->ops->destroy(p);
    ui->dirty = true;
}

/* Closes every pane: the one shown and those below it. */
static void close_pane(struct ui *ui)
{
    struct view *p = ui->pane;
    ui->pane = NULL;
    if (p)
        destroy_pane(ui, p, true);
    while (ui->nbelow > 0)
        destroy_pane(ui, ui->below[--ui->nbelow], false);
}

void ui_show_tab(struct ui *ui, int tab)
{
    if (tab < 0 || tab >= TAB_COUNT)
        return;
    close_pane(ui);
    ui->help_open = false;
    struct view *old = ui->tabs[ui->tab];
    if (tab != ui->tab && old->ops->close)
        old->ops->close(old, ui);
    bool changed = tab != ui->tab;
    ui->tab = tab;
    ui->dirty = true;
    struct view *v = ui->tabs[tab];
    /* Opening the Secrets tab again lists them again (as it always did). */
    if ((changed || v->ops->bit == VIEW_SECRETS) && v->ops->open)
        v->ops->open(v, ui);
}

void ui_set_pane(struct ui *ui, struct view *v)
{
    if (!v) {
        close_pane(ui);
    } else if (ui->pane) {
        /* The pane it is opened from waits below (the oldest goes when they are many). */
        struct view *from = ui->pane;
        if (from->ops->close)
            from->ops->close(from, ui);
        if (ui->nbelow == UI_PANES_BELOW) {
            destroy_pane(ui, ui->below[0], false);
            memmove(ui->below, ui->below + 1, (UI_PANES_BELOW - 1) * sizeof ui->below[0]);
            ui->nbelow--;
        }
        ui->below[ui->nbelow++] = from;
    }
    ui->help_open = false;
    ui->pane = v;
    if (v && v->ops->open)
        v->ops->open(v, ui);
    ui->dirty = true;
}

void ui_back_pane(struct ui *ui)
{
    struct view *p = ui->pane;
    if (!p)
        return;
    ui->pane = NULL;
    destroy_pane(ui, p, true);
    if (ui->nbelow == 0)
        return;
    struct view *v = ui->below[--ui->nbelow];
    ui->pane = v;
    if (v->ops->open)
        v->ops->open(v, ui);
    if (v->ops->changed)
        v->ops->changed(v, ui, E2B_LIVE_ALL | UI_CHANGED_CLOCK);
    ui->dirty = true;
}

bool ui_pane_open(const struct ui *ui, unsigned bit)
{
    if (ui->pane && ui->pane->ops->bit == bit)
        return true;
    for (int i = 0; i < ui->nbelow; i++) {
        if (ui->below[i]->ops->bit == bit)
            return true;
    }
    return false;
}

void ui_changed(struct ui *ui, unsigned what)
{
    for (int t = 0; t < TAB_COUNT; t++) {
        struct view *v = ui->tabs[t];
        if (v && v->ops->changed)
            v->ops->changed(v, ui, what);
    }
    if (ui->pane && ui->pane->ops->changed)
        ui->pane->ops->changed(ui->pane, ui, what);
    dialog_changed(&ui->dialog, what);
}
