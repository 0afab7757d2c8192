/* The model without a screen: the one-shot modes' client (tui/cli). It is made from a config
 * its caller resolved, starts with no refresh timer, no secrets, metrics or agent watches,
 * opens the password store on the calling thread, and tells the end of the next command to
 * whoever waits for it (e2b_live_then). */
#include "core/live/live_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/box/orphans.h"
#include "core/box/up_journal.h"
#include "keystore/keystore.h"

e2b_live *e2b_live_new_config(e2b_config *cfg, const char *keystore_flag)
{
    e2b_live *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cfg = *cfg; /* moved: the caller's copy is left empty */
    memset(cfg, 0, sizeof *cfg);
    m->keystore_flag = keystore_flag;
    m->have_api_key = m->cfg.api_key && *m->cfg.api_key;
    m->next_op_id = 1;
    return m;
}

static void orphan_told(void *ud, const char *done, const e2b_error *failed)
{
    e2b_live *m = ud;
    if (m->headless.orphan_notice)
        m->headless.orphan_notice(m->headless.ud, done, failed);
}

e2b_error *e2b_live_start_headless(e2b_live *m, const e2b_live_headless *h)
{
    m->is_headless = true;
    m->headless = *h;
    m->secrets_listed_once = true; /* listed only when a mode asks (e2b_live_show_secrets) */
    m->loop = e2b_loop_new();
    if (!m->loop)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    /* The client applies http_timeout itself; without an API key it says what to set. */
    e2b_error *err = NULL;
    m->client = e2b_client_new(m->loop, &m->cfg, &err);
    if (!m->client)
        return err ? err : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    /* Sandboxes an interrupted up left behind go first: no request at all when the journal
     * is empty. The store is opened for the sweep (it deletes a password), quietly: the
     * mode may not need one. */
    if (e2b_up_journal_any(m->cfg.state_dir)) {
        char *warning = NULL;
        e2b_error_free(e2b_live_store_open(m, &warning));
        m->store_warning = warning; /* told by the mode that uses the store */
        e2b_orphans_sweep_journal(e2b_live_orphans(m));
        e2b_live_orphans_wait(m);
    }
    return NULL;
}

e2b_error *e2b_live_store_open(e2b_live *m, char **warning)
{
    *warning = NULL;
    if (m->ks) { /* opened already: its warning is told once */
        *warning = m->store_warning;
        m->store_warning = NULL;
        return NULL;
    }
    ks_error kerr = {0};
    ks_select sel = e2b_keystore_choice(m->keystore_flag, &m->cfg);
    m->ks = keystore_open_selected(&sel, warning, &kerr);
    return m->ks ? NULL : e2b_keystore_error(&kerr);
}

e2b_client *e2b_live_client(const e2b_live *m)
{
    return m->client;
}

struct e2b_orphans *e2b_live_orphans(e2b_live *m)
{
    if (!m->orphans) {
        e2b_box_env env = {.loop = m->loop, .client = m->client, .cfg = &m->cfg, .ks = m->ks};
        long ms = m->cfg.orphan_sweep_delay_s * 1000L;
        if (m->headless.orphan_delay_max_ms > 0 && ms > m->headless.orphan_delay_max_ms)
            ms = m->headless.orphan_delay_max_ms;
        m->orphans = e2b_orphans_new(&env, ms, orphan_told, m);
    }
    return m->orphans;
}

void e2b_live_orphans_wait(e2b_live *m)
{
    while (e2b_orphans_busy(m->orphans))
        if (e2b_loop_run_once(m->loop, 1000) < 0)
            break;
}

void e2b_live_then(e2b_live *m, e2b_live_end *end)
{
    memset(end, 0, sizeof *end);
    m->then = end;
}

e2b_live_end *live_then_take(e2b_live *m)
{
    e2b_live_end *e = m->then;
    m->then = NULL;
    return e;
}

void live_end(e2b_live_end *e, const e2b_error *err, long status)
{
    if (!e)
        return;
    e->err = err ? e2b_error_copy(err) : NULL;
    e->status = status;
    e->done = 1;
}

void live_end_fail(e2b_live_end *e, e2b_error_kind kind, const char *why)
{
    if (!e)
        return;
    e->err = e2b_error_new(kind, "%s", why);
    e->done = 1;
}
