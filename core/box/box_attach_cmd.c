/* The attach command's argv and environment, built once for both clients (the dashboard's
 * attach and --attach): the password goes only into the environment, never the argv. */
#include "core/box/box.h"

#include "core/util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* The variables the command gets from r, never from the caller's environment. */
static bool ours(const char *v)
{
    return !strncmp(v, "OPENCODE_SERVER_PASSWORD=", 25) || !strncmp(v, "OPENCODE_PASSWORD=", 18) ||
           !strncmp(v, "OPENCODE_SERVER_USERNAME=", 25);
}

e2b_error *e2b_box_attach_cmd(const e2b_config *cfg, const e2b_box_result *r, const char *url,
                              e2b_attach_cmd *out)
{
    memset(out, 0, sizeof *out);
    int box_api = r->box_oc.api ? r->box_oc.api : e2b_config_box_api(cfg, NULL);
    const char *why = cfg->attach_command ? NULL : e2b_opencode_kind_mismatch(&r->local_oc, box_api);
    if (why) {
        char here[80], there[80];
        return e2b_error_new(E2B_ERR_INVALID,
                             "box %s runs %s, which this machine's %s cannot attach to: %s",
                             r->name ? r->name : "?",
                             e2b_opencode_kind_describe(&r->box_oc, there, sizeof there),
                             e2b_opencode_kind_describe(&r->local_oc, here, sizeof here), why);
    }
    out->template = e2b_config_attach_command(cfg, &r->local_oc, box_api);
    out->argv = e2b_box_command_argv(out->template, url, r->dir, E2B_BOX_PORT);
    if (!out->argv)
        return e2b_error_new(E2B_ERR_INVALID,
                             "attach_command is empty or has unbalanced quotes");
    /* 1.x reads only OPENCODE_SERVER_PASSWORD; 2's name is given both (as before). */
    int v1 = r->local_oc.api ? r->local_oc.api == 1 : box_api == 1;
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    out->env = calloc(n + 4, sizeof *out->env);
    const char *pw = r->password ? r->password : "";
    if (!out->env || !(out->pw[0] = e2b_strfmt("OPENCODE_SERVER_PASSWORD=%s", pw)) ||
        !(out->pw[1] = e2b_strfmt("OPENCODE_PASSWORD=%s", pw))) {
        e2b_box_attach_cmd_free(out);
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        if (!ours(environ[i]))
            out->env[k++] = environ[i];
    out->env[k++] = out->pw[0];
    if (!v1 || cfg->attach_command)
        out->env[k++] = out->pw[1];
    out->env[k++] = "OPENCODE_SERVER_USERNAME=opencode";
    out->env[k] = NULL;
    return NULL;
}

void e2b_box_attach_cmd_free(e2b_attach_cmd *c)
{
    e2b_box_argv_free(c->argv);
    e2b_wipe_free(c->pw[0]);
    e2b_wipe_free(c->pw[1]);
    free(c->env);
    memset(c, 0, sizeof *c);
}
