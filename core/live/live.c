/* The model's object: config, loop, client, subscribers and notices. The refresh is in
 * live_refresh.c, sandbox commands in live_commands.c, box operations in live_ops.c. */
#include "core/live/live_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/box/orphans.h"
#include "core/util/sanitize.h"

void live_refresh_start(e2b_live *m); /* live_refresh.c */
void live_refresh_stop(e2b_live *m);

static e2b_error *load_config(e2b_live *m, const e2b_live_options *o)
{
    e2b_config *cfg = &m->cfg;
    e2b_config_init(cfg);
    if (o->refresh_seconds > 0) {
        char n[16];
        snprintf(n, sizeof n, "%d", o->refresh_seconds);
        e2b_error_free(e2b_config_set(cfg, "refresh", n, E2B_SRC_FLAG)); /* it is in range */
    }
    const struct {
        const char *key, *value;
    } flags[] = {{"config", o->config_file},
                 {"domain", o->domain},
                 {"api_url", o->api_url},
                 {"keystore", o->keystore}};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        if (!flags[k].value)
            continue;
        e2b_error *err = e2b_config_set(cfg, flags[k].key, flags[k].value, E2B_SRC_FLAG);
        if (err)
            return e2b_error_set_action(err, "--%s", flags[k].key);
    }
    e2b_error *err = e2b_config_load(cfg, NULL);
    if (!err)
        return NULL;
    /* "config: <file>:<line>: <why>": the file's own action stays in the words. */
    e2b_error *e = e2b_error_new(err->kind == E2B_ERR_IO ? E2B_ERR_IO : E2B_ERR_INVALID, "%s",
                                 e2b_error_message(err));
    e2b_error_free(err);
    return e2b_error_set_action(e, "config");
}

e2b_live *e2b_live_new(const e2b_live_options *o, e2b_error **problem)
{
    *problem = NULL;
    e2b_live *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    *problem = load_config(m, o);
    m->keystore_flag = o->keystore;
    m->have_api_key = m->cfg.api_key && *m->cfg.api_key;
    m->next_op_id = 1;
    return m;
}

/* What a sweep removed (or could not) is told once, like any other result. */
static void orphan_notice(void *ud, const char *done, const e2b_error *failed)
{
    if (failed)
        live_notice(ud, E2B_LIVE_ERROR, "%s", e2b_error_message(failed));
    else
        live_notice(ud, E2B_LIVE_INFO, "%s", done);
}

int e2b_live_start(e2b_live *m)
{
    m->loop = e2b_loop_new();
    if (!m->loop)
        return -1;
    if (!m->have_api_key)
        return 0;
    e2b_error *err = NULL;
    m->client = e2b_client_new(m->loop, &m->cfg, &err);
    if (!m->client) {
        live_notice(m, E2B_LIVE_ERROR, "%s", err ? e2b_error_message(err) : "no API client");
        e2b_error_free(err);
        return 0;
    }
    live_refresh_start(m);
    live_idle_start(m);
    live_budget_start(m);
    e2b_box_env env = {.loop = m->loop, .client = m->client, .cfg = &m->cfg};
    m->orphans = e2b_orphans_new(&env, m->cfg.orphan_sweep_delay_s * 1000L, orphan_notice, m);
    e2b_orphans_sweep_journal(m->orphans);
    return 0;
}

void e2b_live_free(e2b_live *m)
{
    if (!m)
        return;
    m->closing = true;
    if (m->loop) {
        live_refresh_stop(m);
        live_idle_free(m);
        live_budget_free(m);
        live_ops_shutdown(m);
        live_unpulled_shutdown(m);
        live_ports_shutdown(m);
        live_tries_shutdown(m);
        live_agents_shutdown(m);
        e2b_orphans_free(m->orphans); /* before the loop its timers are on */
        m->orphans = NULL;
        live_probes_join(m); /* their posts go to this loop */
        live_history_follow_stop(m);
        /* Calls still in flight end now: their callbacks see closing and only free. */
        e2b_loop_free(m->loop);
        m->loop = NULL;
    }
    live_probes_free(m);
    live_agents_free(m);
    live_saved_free(m);
    live_history_follow_free(m);
    live_history_free(m);
    live_ops_free(m);
    live_templates_free(m);
    live_ports_free(m);
    live_groups_free(m);
    live_tries_free(m);
    live_records_free(m);
    live_gone_free(m);
    e2b_client_free(m->client);
    e2b_sandbox_list_clear(&m->sandboxes);
    e2b_metric_list_clear(&m->metrics);
    e2b_secret_list_clear(&m->secrets);
    e2b_config_clear(&m->cfg);
    free(m->store_warning);
    free(m->subs);
    free(m);
}

int e2b_live_subscribe(e2b_live *m, unsigned mask, e2b_live_fn cb, void *ud)
{
    struct live_sub *s = realloc(m->subs, (m->nsubs + 1) * sizeof *s);
    if (!s)
        return -1;
    m->subs = s;
    m->subs[m->nsubs++] = (struct live_sub){mask, cb, ud};
    return 0;
}

void e2b_live_unsubscribe(e2b_live *m, e2b_live_fn cb, void *ud)
{
    for (size_t i = 0; i < m->nsubs; i++) {
        if (m->subs[i].cb == cb && m->subs[i].ud == ud) {
            memmove(&m->subs[i], &m->subs[i + 1], (m->nsubs - i - 1) * sizeof *m->subs);
            m->nsubs--;
            return;
        }
    }
}

void live_notify(e2b_live *m, unsigned what)
{
    if (m->closing)
        return;
    /* By index: a callback may subscribe or unsubscribe others. */
    for (size_t i = 0; i < m->nsubs; i++) {
        if (m->subs[i].mask & what)
            m->subs[i].cb(m->subs[i].ud, m->subs[i].mask & what);
    }
    live_tries_changed(m); /* a group being made may go on (posted: not from in here) */
}

void live_notice(e2b_live *m, enum e2b_live_level level, const char *fmt, ...)
{
    char raw[sizeof m->notice];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    /* Notices carry names and server messages: sanitised before anyone can draw them. */
    char *safe = e2b_sanitize_display(raw, strlen(raw), 0);
    snprintf(m->notice, sizeof m->notice, "%s", safe ? safe : "");
    free(safe);
    m->notice_level = level;
    live_notify(m, E2B_LIVE_NOTICE);
}

const char *e2b_live_notice(const e2b_live *m, enum e2b_live_level *level)
{
    if (level)
        *level = m->notice_level;
    return m->notice;
}

e2b_loop *e2b_live_loop(const e2b_live *m)
{
    return m->loop;
}

const e2b_config *e2b_live_config(const e2b_live *m)
{
    return &m->cfg;
}

bool e2b_live_has_client(const e2b_live *m)
{
    return m->client != NULL;
}

long e2b_live_refresh_ms(const e2b_live *m)
{
    int s = m->cfg.refresh_seconds > 0 ? m->cfg.refresh_seconds : E2B_DEFAULT_REFRESH_S;
    return s * 1000L;
}

time_t e2b_live_list_stale_since(const e2b_live *m)
{
    return m->list_stale ? m->listed_at : 0;
}

enum e2b_live_list_state e2b_live_list_state(const e2b_live *m)
{
    if (!m->client)
        return E2B_LIVE_NO_CLIENT;
    if (m->listed_once)
        return E2B_LIVE_LISTED;
    return m->list_failed ? E2B_LIVE_LIST_FAILED : E2B_LIVE_LOADING;
}

const e2b_sandbox_list *e2b_live_sandboxes(const e2b_live *m)
{
    return &m->sandboxes;
}

const e2b_sandbox *e2b_live_sandbox(const e2b_live *m, const char *id)
{
    return live_sandbox_find(&m->sandboxes, id);
}

const e2b_metric_list *e2b_live_metrics(const e2b_live *m)
{
    return &m->metrics;
}

const e2b_secret_list *e2b_live_secrets(const e2b_live *m, bool *secrets_listed)
{
    if (secrets_listed)
        *secrets_listed = m->secrets_arrived;
    return &m->secrets;
}

void e2b_live_set_attach_handler(e2b_live *m, e2b_live_attach_fn fn, void *ud)
{
    m->attach_fn = fn;
    m->attach_ud = ud;
}
