#include "tui/views/group_kill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/live/live_unpulled.h"

enum { GROUP_KILL_MAX = 100 };

struct group_kill {
    char group[64];
    size_t n;
    struct {
        char name[128], id[128];
        struct live_unpulled *look;
    } mb[GROUP_KILL_MAX];
};

static void gk_free(void *p)
{
    struct group_kill *g = p;
    for (size_t i = 0; i < g->n; i++)
        e2b_live_unpulled_close(g->mb[i].look);
    free(g);
}

/* Whether every look has answered; *kept: how many members' work is all home. */
static bool gk_done(const struct group_kill *g, size_t *kept)
{
    bool all = true;
    *kept = 0;
    for (size_t i = 0; i < g->n; i++) {
        e2b_unpulled_state st = E2B_UNPULLED_UNKNOWN;
        bool done = false;
        e2b_live_unpulled_text(g->mb[i].look, &st, &done);
        all = all && done;
        *kept += done && st == E2B_UNPULLED_NONE;
    }
    return all;
}

static bool kept_member(const struct group_kill *g, size_t i)
{
    e2b_unpulled_state st = E2B_UNPULLED_UNKNOWN;
    e2b_live_unpulled_text(g->mb[i].look, &st, NULL);
    return st == E2B_UNPULLED_NONE;
}

static void gk_text(const struct group_kill *g, char *text, size_t n)
{
    size_t kept = 0, len = 0;
    bool done = gk_done(g, &kept);
#define ADD(...) (len += (size_t)snprintf(text + len, len < n ? n - len : 0, __VA_ARGS__))
    if (!done) {
        ADD("Kill the members of group %s that are not pulled?\nchecking %zu members for "
            "unpulled work...", g->group, g->n);
    } else if (!kept) {
        ADD("No member of group %s is pulled yet: nothing is killed.\np pulls the selected "
            "member as e2b/%s; then K kills the others.", g->group, g->group);
    } else {
        ADD("Kill");
        for (size_t i = 0, k = 0; i < g->n; i++)
            if (!kept_member(g, i))
                ADD("%s %s", k++ ? "," : "", g->mb[i].name);
        ADD(" (group %s, not pulled)?\n", g->group);
        for (size_t i = 0; i < g->n; i++)
            if (!kept_member(g, i))
                ADD("%s\n", e2b_live_unpulled_text(g->mb[i].look, NULL, NULL));
        ADD("Kept (work in e2b/%s):", g->group);
        for (size_t i = 0, k = 0; i < g->n; i++)
            if (kept_member(g, i))
                ADD("%s %s", k++ ? "," : "", g->mb[i].name);
        ADD(".\nTheir files, records and passwords go for good.");
    }
#undef ADD
    if (len >= n && n > 4)
        memcpy(text + n - 4, "...", 4);
}

static void gk_changed(struct ui *ui, void *ctx, const char *arg)
{
    char text[4096];
    (void)arg;
    gk_text(ctx, text, sizeof text);
    dialog_set_text(&ui->dialog, text);
}

static void gk_yes(struct ui *ui, void *ctx, const char *arg)
{
    struct group_kill *g = ctx;
    size_t kept = 0, killed = 0;
    (void)arg;
    if (!gk_done(g, &kept)) {
        ui_flash(ui, FLASH_ERROR, "nothing killed: %s still being checked", g->group);
        return;
    }
    if (!kept) {
        ui_flash(ui, FLASH_ERROR, "nothing killed: no member of %s pulled", g->group);
        return;
    }
    char names[1200] = "";
    size_t len = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (kept_member(g, i) || e2b_live_kill(ui->model, g->mb[i].id) != 0)
            continue;
        killed++;
        len += (size_t)snprintf(names + len, len < sizeof names ? sizeof names - len : 0,
                                "%s%s", killed > 1 ? ", " : "", g->mb[i].name);
    }
    ui_flash(ui, FLASH_INFO, "killing %s (of %s, not pulled)", killed ? names : "none",
             g->group);
}

void group_kill_open(struct ui *ui, const char *group)
{
    e2b_live_member mb[GROUP_KILL_MAX];
    size_t n = e2b_live_group_members(ui->model, group, mb, GROUP_KILL_MAX);
    struct group_kill *g = n ? calloc(1, sizeof *g) : NULL;
    if (!g) {
        ui_flash(ui, FLASH_ERROR, n ? "kill: out of memory" : "kill: group %s has no members",
                 group);
        return;
    }
    snprintf(g->group, sizeof g->group, "%s", group);
    for (size_t i = 0; i < n && i < GROUP_KILL_MAX; i++) {
        snprintf(g->mb[i].name, sizeof g->mb[i].name, "%s", mb[i].rec->name);
        snprintf(g->mb[i].id, sizeof g->mb[i].id, "%s", mb[i].rec->sandbox_id);
        g->mb[i].look = e2b_live_unpulled_open(ui->model, mb[i].rec->sandbox_id);
        if (!g->mb[i].look) {
            g->n = i;
            gk_free(g);
            ui_flash(ui, FLASH_ERROR, "kill: out of memory");
            return;
        }
        g->n = i + 1;
    }
    char text[4096];
    gk_text(g, text, sizeof text);
    dialog_open(&ui->dialog, "Kill group members", text, group, gk_yes, g);
    dialog_watch(&ui->dialog, E2B_LIVE_UNPULLED, gk_changed, gk_free);
}
