#include "tui/attach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util/str.h"
#include "tui/term/term.h"
#include "tui/ui.h"

/* What to do about a failed attach command, in words: what to install or configure. */
static void attach_hint(int st, const char *cmd, char *buf, size_t bufsz)
{
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        snprintf(buf, bufsz,
                 "the attach command could not be found (exit 127): install OpenCode "
                 "(opencode or opencode2 on PATH) or set attach_command in the config (now: %.200s)",
                 cmd);
    else if (WIFEXITED(st) && WEXITSTATUS(st) == 126)
        snprintf(buf, bufsz,
                 "the attach command could not be run (exit 126): check that it is executable, "
                 "or set attach_command in the config (now: %.200s)",
                 cmd);
    else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
        snprintf(buf, bufsz, "the attach command exited with status %d (its last lines are above)",
                 WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(buf, bufsz, "the attach command died of signal %d", WTERMSIG(st));
}

static void hold_fn(int st, void *ctx, char *buf, size_t bufsz)
{
    attach_hint(st, ctx, buf, bufsz);
}

/* Runs the attach command with the password only in its environment and {url} a loopback
 * tunnel to the box's server, open for the command's lifetime (the tunnel has threads of
 * its own: this loop is parked in a callback until the command ends). Returns the wait
 * status, or -1 with *err (a client that cannot talk to the box is refused here, before
 * the terminal is handed over); *tmpl is the command it ran (cfg's or static). */
static int run_attach(e2b_live *model, const e2b_config *cfg, const e2b_box_result *r,
                      e2b_tunnel *tun, const char **tmpl, e2b_error **err)
{
    e2b_attach_cmd cmd;
    if ((*err = e2b_box_attach_cmd(cfg, r, e2b_tunnel_url(tun), &cmd)))
        return -1;
    *tmpl = cmd.template;
    /* the box's active session, not OpenCode's start screen */
    const e2b_agent_status *st = r->sandbox_id ? e2b_live_agent(model, r->sandbox_id) : NULL;
    if (st && st->session_id)
        e2b_box_attach_cmd_session(&cmd, st->session_id);
    int rc = term_run_foreground_hold(cmd.argv, cmd.env, hold_fn, (void *)cmd.template);
    e2b_box_attach_cmd_free(&cmd);
    return rc;
}

void attach_run(void *ud, const char *name, const e2b_box_result *r)
{
    struct ui *ui = ud;
    if (!r) {
        ui_flash(ui, FLASH_ERROR, "attach %s: nothing to attach to", name);
        return;
    }
    /* Nothing reads the loop's transfers while the child runs: a Log pane's stream would
     * back up into envd and, through it, block the server's output. */
    if (ui_pane_open(ui, VIEW_LOG))
        ui_set_pane(ui, NULL);
    e2b_error *terr = NULL;
    e2b_tunnel *tun = e2b_box_tunnel_open(r, &terr);
    if (!tun) {
        ui_flash(ui, FLASH_ERROR, "attach %s: %s", name, e2b_error_message(terr));
        e2b_error_free(terr);
        return;
    }
    const char *tmpl = "";
    e2b_error *aerr = NULL;
    int st = run_attach(ui->model, e2b_live_config(ui->model), r, tun, &tmpl, &aerr);
    e2b_tunnel_close(tun);
    ui->full_redraw = ui->dirty = true;
    if (st == -1 && aerr)
        ui_flash(ui, FLASH_ERROR, "attach %s: %s", name, e2b_error_message(aerr));
    else if (st == -1)
        ui_flash(ui, FLASH_ERROR, "attach %s: the attach command could not be run", name);
    else if ((WIFEXITED(st) && WEXITSTATUS(st) != 0) || WIFSIGNALED(st)) {
        char hint[600] = "";
        attach_hint(st, tmpl, hint, sizeof hint);
        ui_flash(ui, FLASH_ERROR, "attach %s: %s", name, hint);
    } else
        ui_flash(ui, FLASH_INFO, "back from %s", name);
    e2b_error_free(aerr);
}
