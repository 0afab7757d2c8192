/* Changing a running box's egress (e2b_live_set_network, live.h): the stored secrets are
 * listed (their rules are kept), the whole config is replaced with PUT
 * /sandboxes/{id}/network, and the box's record gets the new summary. */
#include "core/live/live_internal.h"

#include "core/box/box_egress.h"
#include "core/box/records.h"
#include "core/e2b/egress_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct net_cmd {
    e2b_live *m;
    char id[128];
    char name[128];    /* the box's record name ("" for a sandbox without one) */
    char label[160];   /* for the notice */
    char *allow_out, *deny_out;
    int internet;
    char *summary;     /* the summary the PUT makes true */
    e2b_live_end *end;
};

static void net_free(struct net_cmd *c)
{
    free(c->allow_out);
    free(c->deny_out);
    free(c->summary);
    free(c);
}

static void net_finish(struct net_cmd *c, const e2b_error *err, long status)
{
    e2b_live *m = c->m;
    if (!m->closing) {
        if (err) {
            live_notice(m, E2B_LIVE_ERROR, "%s", e2b_error_message(err));
        } else {
            live_notice(m, E2B_LIVE_INFO, "%s: egress changed (internet %s%s%s%s%s)", c->label,
                        c->internet ? "on" : "off", c->allow_out && *c->allow_out ? "; allow " : "",
                        c->allow_out ? c->allow_out : "", c->deny_out && *c->deny_out ? "; deny " : "",
                        c->deny_out ? c->deny_out : "");
        }
        live_end(c->end, err, status);
        if ((!err || err->kind != E2B_ERR_CANCELLED) && !m->is_headless)
            e2b_live_refresh_now(m);
    }
    net_free(c);
}

static void net_put(void *ud, long status, const e2b_error *err)
{
    struct net_cmd *c = ud;
    if (!err && c->name[0]) {
        e2b_box_record rec = {0};
        e2b_error *e = e2b_box_record_read(c->m->cfg.records_dir, c->name, &rec);
        if (!e && strcmp(rec.sandbox_id, c->id) == 0) {
            free(rec.egress);
            rec.egress = c->summary;
            c->summary = NULL;
            e = e2b_box_record_write(c->m->cfg.records_dir, &rec, 0);
        }
        if (e) /* the box's egress changed; only its record does not say so */
            live_notice(c->m, E2B_LIVE_ERROR, "%s: egress changed, but the record was not updated: %s",
                        c->label, e2b_error_message(e));
        e2b_error_free(e);
        e2b_box_record_clear(&rec);
    }
    net_finish(c, err, status);
}

static void net_secrets(void *ud, e2b_secret_list *list, const e2b_error *err)
{
    struct net_cmd *c = ud;
    if (err || c->m->closing) {
        e2b_secret_list_free(list);
        net_finish(c, err, 0);
        return;
    }
    e2b_box_egress eg = {.allow_out = c->allow_out, .deny_out = c->deny_out, .allow_internet = c->internet};
    int internet = -1;
    json_t *net = e2b_box_egress_network(&eg, list, NULL, &internet);
    e2b_secret_list_free(list);
    json_t *summary = e2b_box_egress_summary(net, internet);
    c->summary = summary ? json_dumps(summary, JSON_COMPACT) : NULL;
    json_decref(summary);
    /* PUT replaces everything: the internet flag is always sent, so "on" clears an "off". */
    e2b_error *e = NULL;
    e2b_api_call *call = e2b_api_set_network(c->m->client, c->id, net, c->internet, net_put, c, &e);
    json_decref(net);
    if (!call) {
        net_finish(c, e, 0);
        e2b_error_free(e);
    }
}

int e2b_live_set_network(e2b_live *m, const char *sandbox_id, const char *box_name,
                         const e2b_box_egress *eg)
{
    e2b_live_end *end = live_then_take(m);
    char why[300];
    if (!m->client) {
        live_end_fail(end, E2B_ERR_AUTH, "no API key (set E2B_API_KEY)");
        live_notice(m, E2B_LIVE_ERROR, "network: no API key (set E2B_API_KEY); nothing was changed");
        return -1;
    }
    if ((eg->allow_out && e2b_egress_list_check(eg->allow_out, false, why, sizeof why)) ||
        (eg->deny_out && e2b_egress_list_check(eg->deny_out, true, why, sizeof why))) {
        live_end_fail(end, E2B_ERR_INVALID, why);
        live_notice(m, E2B_LIVE_ERROR, "network: %s", why);
        return -1;
    }
    if (live_op_busy(m, sandbox_id, NULL, why, sizeof why)) {
        live_notice(m, E2B_LIVE_ERROR, "network: %s", why);
        live_end_fail(end, E2B_ERR_CONFLICT, why);
        return -1;
    }
    struct net_cmd *c = calloc(1, sizeof *c);
    if (!c || (eg->allow_out && !(c->allow_out = strdup(eg->allow_out))) ||
        (eg->deny_out && !(c->deny_out = strdup(eg->deny_out)))) {
        if (c)
            net_free(c);
        live_end_fail(end, E2B_ERR_INTERNAL, "out of memory");
        return -1;
    }
    c->m = m;
    c->end = end;
    c->internet = eg->allow_internet ? 1 : 0;
    snprintf(c->id, sizeof c->id, "%s", sandbox_id);
    snprintf(c->name, sizeof c->name, "%s", box_name ? box_name : "");
    const e2b_sandbox *sb = e2b_live_sandbox(m, sandbox_id);
    snprintf(c->label, sizeof c->label, "%s", box_name ? box_name : sb ? e2b_live_sandbox_name(sb) : sandbox_id);
    e2b_error *err = NULL;
    if (!e2b_api_secrets_list(m->client, net_secrets, c, &err)) {
        live_notice(m, E2B_LIVE_ERROR, "%s", err ? e2b_error_message(err) : "out of memory");
        if (err)
            live_end(end, err, 0);
        else
            live_end_fail(end, E2B_ERR_INTERNAL, "out of memory");
        e2b_error_free(err);
        net_free(c);
        return -1;
    }
    live_notice(m, E2B_LIVE_INFO, "changing the egress of %s...", c->label);
    return 0;
}
