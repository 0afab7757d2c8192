#include "tui/refresh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/box/orphans.h"
#include "core/util/log.h"
#include "tui/sandbox_list.h"
#include "tui/sandbox_rows.h"

enum { METRICS_MAX = 100 }; /* the bulk call's limit */

struct refresh {
    uint64_t timer;
    e2b_api_call *list_call, *metrics_call, *secrets_call;
    bool listed_once;
    bool secrets_listed; /* the first secrets list was asked for */
};

void secrets_rows_fill(struct ui *ui, const e2b_secret_list *list); /* view_secrets.c */

int refresh_config(struct ui *ui, char *why, size_t whysz)
{
    e2b_config_init(&ui->cfg);
    char *msg = NULL;
    if (ui->opts.refresh_seconds > 0) {
        char n[16];
        snprintf(n, sizeof n, "%d", ui->opts.refresh_seconds);
        e2b_config_set(&ui->cfg, "refresh", n, E2B_SRC_FLAG, &msg);
        free(msg);
    }
    const struct {
        const char *key, *value;
    } flags[] = {{"config", ui->opts.config_file},
                 {"domain", ui->opts.domain},
                 {"api_url", ui->opts.api_url},
                 {"keystore", ui->opts.keystore}};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        if (!flags[k].value)
            continue;
        if (e2b_config_set(&ui->cfg, flags[k].key, flags[k].value, E2B_SRC_FLAG, &msg) != 0) {
            snprintf(why, whysz, "--%s: %s", flags[k].key, msg ? msg : "bad value");
            free(msg);
            return -1;
        }
    }
    e2b_error *err = e2b_config_load(&ui->cfg, NULL);
    if (err) {
        snprintf(why, whysz, "config: %s", e2b_error_message(err));
        e2b_error_free(err);
        return -1;
    }
    return 0;
}

long refresh_interval_ms(const struct ui *ui)
{
    int s = ui->cfg.refresh_seconds > 0 ? ui->cfg.refresh_seconds : E2B_DEFAULT_REFRESH_S;
    return s * 1000L;
}

static void on_timer(void *ud);

static void schedule(struct ui *ui)
{
    struct refresh *r = ui->refresh;
    if (r->timer)
        e2b_loop_timer_cancel(ui->loop, r->timer);
    r->timer = e2b_loop_timer_add(ui->loop, refresh_interval_ms(ui), on_timer, ui);
}

/* ---- state changes between two lists ---- */

static int cmp_sandbox_id(const void *a, const void *b)
{
    const e2b_sandbox *const *x = a, *const *y = b;
    return strcmp((*x)->sandbox_id, (*y)->sandbox_id);
}

static const char *display_name(const e2b_sandbox *sb)
{
    const char *n = sb->kind == E2B_KIND_BOX ? sb->box_name : NULL;
    if (!n || !*n)
        n = e2b_metadata_get(&sb->metadata, "name");
    return n && *n ? n : sb->sandbox_id;
}

/* Flashes what changed state (or went away) from old to new. */
static void flash_changes(struct ui *ui, const e2b_sandbox_list *old, const e2b_sandbox_list *nw)
{
    /* An action's own message (e.g. "x killed") says it better: keep it. */
    if (!old->count || ui->flash.expires_ms)
        return;
    const e2b_sandbox **idx = malloc(old->count * sizeof *idx);
    bool *seen = calloc(old->count, sizeof *seen);
    if (!idx || !seen) {
        free(idx);
        free(seen);
        return;
    }
    for (size_t i = 0; i < old->count; i++)
        idx[i] = &old->items[i];
    qsort(idx, old->count, sizeof *idx, cmp_sandbox_id);
    int changes = 0;
    char first[300] = "";
    for (size_t i = 0; i < nw->count; i++) {
        const e2b_sandbox *key = &nw->items[i];
        const e2b_sandbox **hit = bsearch(&key, idx, old->count, sizeof *idx, cmp_sandbox_id);
        if (!hit)
            continue;
        seen[hit - idx] = true;
        if ((*hit)->state != key->state) {
            if (!changes++)
                snprintf(first, sizeof first, "%s: %s -> %s", display_name(key),
                         e2b_sandbox_state_name((*hit)->state),
                         e2b_sandbox_state_name(key->state));
        }
    }
    for (size_t i = 0; i < old->count; i++) {
        if (!seen[i] && !changes++)
            snprintf(first, sizeof first, "%s: gone", display_name(idx[i]));
    }
    free(idx);
    free(seen);
    if (changes == 1)
        ui_flash(ui, FLASH_INFO, "%s", first);
    else if (changes > 1)
        ui_flash(ui, FLASH_INFO, "%s (and %d more changes)", first, changes - 1);
}

/* ---- metrics of the running sandboxes on the screen ---- */

static void on_metrics(void *ud, e2b_metric_list *m, const e2b_error *err)
{
    struct ui *ui = ud;
    if (ui->closing) {
        e2b_metric_list_free(m);
        return;
    }
    ui->refresh->metrics_call = NULL;
    if (err) {
        /* Metrics are extra: log it, keep the rows (the list's own errors are shown). */
        e2b_logf("metrics: %s", e2b_error_message(err));
        return;
    }
    sandbox_rows_set_metrics(ui, m, time(NULL));
    e2b_metric_list_free(m); /* empty: the items moved into ui->metrics */
}

static void start_metrics(struct ui *ui)
{
    struct refresh *r = ui->refresh;
    if (r->metrics_call)
        return;
    struct view *v = ui->tabs[ui->tab <= TAB_ALL ? ui->tab : TAB_ALL];
    const char *ids[METRICS_MAX];
    size_t n = 0;
    int rows = ui->list_rows > 0 ? ui->list_rows : 60;
    for (size_t i = v->table.top; i < v->table.nvisible && n < METRICS_MAX && rows-- > 0; i++) {
        /* The row says the state; looking each sandbox up would cost a scan per row. */
        const struct table_row *row = &v->table.rows[v->table.visible[i]];
        if (strcmp(row->cells[SBCOL_STATE], e2b_sandbox_state_name(E2B_STATE_RUNNING)) == 0)
            ids[n++] = row->id;
    }
    if (!n)
        return;
    e2b_error *err = NULL;
    r->metrics_call = e2b_api_metrics_bulk(ui->client, ids, n, on_metrics, ui, &err);
    if (!r->metrics_call) {
        e2b_logf("metrics: %s", err ? e2b_error_message(err) : "not started");
        e2b_error_free(err);
    }
}

/* ---- the lists ---- */

static void set_empty_texts(struct ui *ui, const char *sandboxes, const char *boxes)
{
    ui->tabs[TAB_BOXES]->empty_text = boxes ? boxes : sandboxes;
    ui->tabs[TAB_WORKSPACES]->empty_text = sandboxes;
    ui->tabs[TAB_ALL]->empty_text = sandboxes;
}

static void on_list(void *ud, e2b_sandbox_list *list, const e2b_error *err)
{
    struct ui *ui = ud;
    if (ui->closing) {
        e2b_sandbox_list_free(list);
        return;
    }
    struct refresh *r = ui->refresh;
    r->list_call = NULL;
    schedule(ui);
    if (err) {
        ui_flash(ui, FLASH_ERROR, "%s", e2b_error_message(err));
        if (!r->listed_once)
            set_empty_texts(ui, "Could not list sandboxes yet (see the status line); retrying.",
                            NULL);
        ui->dirty = true;
        return;
    }
    if (list->unchanged && r->listed_once) {
        /* Byte for byte the last reply: nothing to parse, compare or draw. */
        e2b_sandbox_list_free(list);
        start_metrics(ui);
        return;
    }
    if (r->listed_once)
        flash_changes(ui, &ui->sandboxes, list);
    if (sandbox_rows_fill(ui, list, time(NULL)) != 0) {
        ui_flash(ui, FLASH_ERROR, "out of memory while listing sandboxes");
        e2b_sandbox_list_free(list);
        return;
    }
    e2b_sandbox_list_free(list); /* empty: its items moved into ui->sandboxes */
    if (!r->listed_once) {
        r->listed_once = true;
        set_empty_texts(ui, "No sandboxes.",
                        "No boxes yet: u starts one from the current git project.");
    }
    start_metrics(ui);
}

static void on_secrets(void *ud, e2b_secret_list *list, const e2b_error *err)
{
    struct ui *ui = ud;
    if (ui->closing) {
        e2b_secret_list_free(list);
        return;
    }
    ui->refresh->secrets_call = NULL;
    if (err) {
        /* Shown when it is the view being looked at; the sandbox list reports the rest. */
        if (ui->tab == TAB_SECRETS)
            ui_flash(ui, FLASH_ERROR, "%s", e2b_error_message(err));
        return;
    }
    secrets_rows_fill(ui, list);
    e2b_secret_list_free(list);
}

static void start_secrets(struct ui *ui)
{
    struct refresh *r = ui->refresh;
    if (r->secrets_call)
        return;
    e2b_error *err = NULL;
    r->secrets_call = e2b_api_secrets_list(ui->client, on_secrets, ui, &err);
    e2b_error_free(err);
    r->secrets_listed = true;
}

static void start_cycle(struct ui *ui)
{
    struct refresh *r = ui->refresh;
    e2b_error *err = NULL;
    if (!r->list_call) {
        e2b_list_query q = {.workspace_keys = ui->cfg.workspace_keys, .report_unchanged = 1};
        r->list_call = e2b_api_list(ui->client, &q, on_list, ui, &err);
        if (!r->list_call) {
            ui_flash(ui, FLASH_ERROR, "%s", err ? e2b_error_message(err) : "cannot list");
            e2b_error_free(err);
            err = NULL;
            schedule(ui);
        }
    }
    /* Secrets: once at the start (the tab then opens filled), later only while the Secrets
     * view is shown, so the other views' refresh costs no request for them. */
    if (!r->secrets_listed || ui->tab == TAB_SECRETS)
        start_secrets(ui);
}

static void on_timer(void *ud)
{
    struct ui *ui = ud;
    ui->refresh->timer = 0;
    start_cycle(ui);
}

static void orphan_notice(void *ud, const char *text, int is_error)
{
    ui_flash(ud, is_error ? FLASH_ERROR : FLASH_INFO, "%s", text);
}

int refresh_start(struct ui *ui)
{
    ui->refresh = calloc(1, sizeof *ui->refresh);
    if (!ui->refresh)
        return -1;
    if (!ui->have_api_key)
        return 0;
    e2b_error *err = NULL;
    ui->client = e2b_client_new(ui->loop, &ui->cfg, &err);
    if (!ui->client) {
        ui_flash(ui, FLASH_ERROR, "%s", err ? e2b_error_message(err) : "no API client");
        e2b_error_free(err);
        return 0;
    }
    set_empty_texts(ui, "Loading sandboxes from E2B...", NULL);
    ui->tabs[TAB_SECRETS]->empty_text = "Loading secrets from E2B...";
    start_cycle(ui);
    e2b_box_env env = {.loop = ui->loop, .client = ui->client, .cfg = &ui->cfg};
    ui->orphans = e2b_orphans_new(&env, ui->cfg.orphan_sweep_delay_s * 1000L, orphan_notice, ui);
    e2b_orphans_sweep_journal(ui->orphans);
    return 0;
}

void refresh_now(struct ui *ui)
{
    if (!ui->client || !ui->refresh)
        return;
    if (ui->refresh->timer) {
        e2b_loop_timer_cancel(ui->loop, ui->refresh->timer);
        ui->refresh->timer = 0;
    }
    start_cycle(ui);
}

void refresh_secrets_now(struct ui *ui)
{
    if (ui->client && ui->refresh)
        start_secrets(ui);
}

void refresh_free(struct ui *ui)
{
    e2b_client_free(ui->client);
    ui->client = NULL;
    free(ui->refresh);
    ui->refresh = NULL;
    e2b_metric_list_clear(&ui->metrics);
    e2b_config_clear(&ui->cfg);
}
