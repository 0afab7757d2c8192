/* Which OpenCode the box has (box_internal.h: box_oc_probe): opencode2 and opencode asked
 * for their --version once, at up, beside the extraction; the answer goes into op->rec
 * (API, binary, version) and decides the serve command and the health path. */
#include "core/box/box_internal.h"
#include "core/util/log.h"

#include <stdio.h>
#include <string.h>

static int probe_on_event(void *ud, const e2b_process_event *ev)
{
    e2b_box_op *op = ud;
    if (ev->type == E2B_PROC_STDOUT) {
        size_t room = sizeof op->ocp.out - 1 - op->ocp.len;
        size_t n = ev->len < room ? ev->len : room; /* bounded: the rest is not needed */
        memcpy(op->ocp.out + op->ocp.len, ev->data, n);
        op->ocp.len += n;
        op->ocp.out[op->ocp.len] = '\0';
        char bin[16];
        if (!op->ocp.bin_known &&
            e2b_opencode_kind_found(op->ocp.out, op->ocp.len, bin, sizeof bin) > 0 && bin[0]) {
            /* one binary: its serve command is known; the versions still decide the API */
            snprintf(op->rec.opencode_bin, sizeof op->rec.opencode_bin, "%s", bin);
            op->ocp.bin_known = 1;
        }
    }
    return 0;
}

/* Sets op->rec's OpenCode fields from what was found (the opencode key wins). */
static void probe_settle(e2b_box_op *op, const e2b_opencode_kind *k)
{
    const e2b_config *cfg = op->env.cfg;
    op->ocp.found = *k;
    op->rec.opencode = e2b_config_box_api(cfg, k);
    snprintf(op->rec.opencode_bin, sizeof op->rec.opencode_bin, "%s", k->bin);
    snprintf(op->rec.opencode_version, sizeof op->rec.opencode_version, "%s", k->version);
    char what[80];
    e2b_logf("box up %s (OpenCode): in the box: %s; API v%d", op->rec.name ? op->rec.name : "-",
             e2b_opencode_kind_describe(k, what, sizeof what), op->rec.opencode);
    op->ocp.done = 1;
    box_server_api_known(op); /* a server started early waits for this to probe its health */
    void (*then)(e2b_box_op *) = op->ocp.then;
    op->ocp.then = NULL;
    if (then)
        then(op);
}

static void probe_done(void *ud, const e2b_error *err)
{
    e2b_box_op *op = ud;
    op->ocp.stream = NULL;
    op->pending--;
    e2b_opencode_kind k = {0};
    if (err) /* not fatal: the server's start says what is missing */
        e2b_logf("box up %s (OpenCode): the probe failed: %s", op->rec.name ? op->rec.name : "-",
                 e2b_error_message(err));
    else
        e2b_opencode_kind_parse(op->ocp.out, op->ocp.len, 0, &k);
    probe_settle(op, &k);
}

void box_oc_probe_skip(e2b_box_op *op, void (*then)(e2b_box_op *op))
{
    op->ocp.asked = 1;
    op->ocp.then = then;
    e2b_opencode_kind none = {0};
    probe_settle(op, &none);
}

void box_oc_probe(e2b_box_op *op, void (*then)(e2b_box_op *op))
{
    op->ocp.asked = 1;
    op->ocp.then = then;
    if (op->env.cfg->opencode) { /* forced: nothing to ask */
        e2b_opencode_kind k;
        e2b_opencode_kind_from_preset(op->env.cfg->opencode, &k);
        probe_settle(op, &k);
        return;
    }
    e2b_error *err = NULL;
    const char *args[] = {"-c", E2B_OPENCODE_KIND_PROBE, NULL};
    e2b_process_spec spec = {.cmd = "/bin/bash", .args = args, .timeout_ms = 30000};
    op->ocp.stream = e2b_envd_process_start(op->envd, &spec, probe_on_event, probe_done, op, &err);
    if (!op->ocp.stream) {
        e2b_logf("box up %s (OpenCode): the probe could not start: %s",
                 op->rec.name ? op->rec.name : "-", e2b_error_message(err));
        e2b_error_free(err);
        e2b_opencode_kind none = {0};
        probe_settle(op, &none);
        return;
    }
    op->pending++;
}

void box_oc_probe_cancel(e2b_box_op *op)
{
    if (op->ocp.stream)
        e2b_http_cancel(op->ocp.stream);
}
