/* The Boxes view. Boxes: sandboxes holding a copy of a local git project and an OpenCode server. */
#include "tui/sandbox_list.h"

static const struct view_ops OPS = {
    .name = "boxes",
    .title = "Boxes",
    .bit = VIEW_BOXES,
    .draw = sandbox_view_draw,
    .act = sandbox_view_act,
    .destroy = sandbox_view_destroy,
};

struct view *view_boxes_new(void)
{
    return sandbox_view_new(&OPS);
}
