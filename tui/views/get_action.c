/* Fetch files from a box (tui/views/get_action.h). */
#include "tui/views/get_action.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct get_ask {
    char id[128];
    char paths[1024];
};

static void dest_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct get_ask *g = ctx;
    if (!ok)
        return;
    if (e2b_live_get(ui->model, g->id, g->paths, text, false))
        ui_flash(ui, FLASH_INFO, "get: fetching %s from the box into %s (ctrl-x cancels)",
                 g->paths, *text ? text : ".");
}

static void paths_done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct get_ask *g = ctx;
    if (!ok)
        return;
    if (!*text || strspn(text, " \t") == strlen(text)) {
        ui_flash(ui, FLASH_ERROR, "get: no path given");
        return;
    }
    struct get_ask *n = malloc(sizeof *n);
    if (!n)
        return;
    snprintf(n->id, sizeof n->id, "%s", g->id);
    snprintf(n->paths, sizeof n->paths, "%s", text);
    prompt_open(ui, "get: into the local folder: ", false, ".", NULL, dest_done, n, free);
}

void get_action_open(struct ui *ui, const char *sandbox_id, const char *initial_path)
{
    struct get_ask *g = calloc(1, sizeof *g);
    if (!g)
        return;
    snprintf(g->id, sizeof g->id, "%s", sandbox_id);
    prompt_open(ui, "get: paths in the box (its project or /tmp; space-separated): ", false,
                initial_path ? initial_path : "", NULL, paths_done, g, free);
}
