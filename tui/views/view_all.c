/* The All sandboxes view. All sandboxes of the API key's team, like e2b sandbox list. */
#include "tui/sandbox_list.h"

static const struct view_ops OPS = {
    .name = "all",
    .title = "All sandboxes",
    .bit = VIEW_ALL,
    .draw = sandbox_view_draw,
    .act = sandbox_view_act,
    .destroy = sandbox_view_destroy,
};

struct view *view_all_new(void)
{
    return sandbox_view_new(&OPS);
}
