/* ":network" (see network_cmd.h). */
#include "tui/network_cmd.h"

#include "core/box/box_egress.h"
#include "core/e2b/egress_list.h"
#include "tui/ui.h"
#include "tui/widgets/table.h"

#include <stdio.h>
#include <string.h>

void network_command(struct ui *ui, const char *args)
{
    if (ui->opts.readonly) {
        ui_flash(ui, FLASH_ERROR, "network: disabled in read-only mode");
        return;
    }
    char buf[512], allow[512] = "", deny[512] = "", why[300];
    snprintf(buf, sizeof buf, "%s", args ? args : "");
    e2b_box_egress eg = {.allow_internet = 1};
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (strcmp(w, "--no-internet") == 0) {
            eg.allow_internet = 0;
            continue;
        }
        bool a = strcmp(w, "--allow-out") == 0, d = strcmp(w, "--deny-out") == 0;
        char *v = a || d ? strtok_r(NULL, " ", &save) : NULL;
        if (!v) {
            ui_flash(ui, FLASH_ERROR, a || d ? "network: %s needs a list (commas between the entries)"
                                             : "network: unknown option '%.60s' (--allow-out LIST, "
                                               "--deny-out LIST, --no-internet)", w);
            return;
        }
        if (e2b_egress_list_check(v, d, why, sizeof why) != 0) {
            ui_flash(ui, FLASH_ERROR, "network: %s: %s", w, why);
            return;
        }
        snprintf(a ? allow : deny, sizeof allow, "%s", v);
    }
    eg.allow_out = allow[0] ? allow : NULL;
    eg.deny_out = deny[0] ? deny : NULL;
    const struct table_row *r = ui->tab <= TAB_ALL && !ui->pane ? table_selected(&ui->tabs[ui->tab]->table)
                                                                : NULL;
    const e2b_sandbox *sb = r ? e2b_live_sandbox(ui->model, r->id) : NULL;
    if (!sb) {
        ui_flash(ui, FLASH_ERROR, "network: select a box or sandbox in a list first");
        return;
    }
    const char *box = sb->kind == E2B_KIND_BOX && sb->box_name && *sb->box_name ? sb->box_name : NULL;
    e2b_live_set_network(ui->model, sb->sandbox_id, box, &eg);
}
