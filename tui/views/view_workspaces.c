/* The Workspaces view. Workspaces: sandboxes made by OpenCode 1's workspace plugin. */
#include "tui/sandbox_list.h"

static const struct view_ops OPS = {
    .name = "workspaces",
    .title = "Workspaces",
    .bit = VIEW_WORKSPACES,
    .draw = sandbox_view_draw,
    .act = sandbox_view_act,
    .destroy = sandbox_view_destroy,
};

struct view *view_workspaces_new(void)
{
    return sandbox_view_new(&OPS);
}
