/* pull: placeholder until pull_script lands (see box_pull_impl). */
#include "core/box_internal.h"

#include <stdlib.h>

static void pull_unavailable(e2b_box_op *op, const e2b_error *err)
{
    (void)err;
    box_op_finish(op, e2b_error_new(E2B_ERR_INTERNAL, "pull is not built yet"));
}

e2b_box_op *e2b_box_pull(const e2b_box_env *env, const e2b_box_pull_params *p,
                         e2b_box_progress_fn progress, e2b_box_done_fn done, void *ud,
                         e2b_error **err)
{
    e2b_box_op *op = box_op_new(OP_PULL, env, progress, done, ud);
    (void)p;
    if (!op) {
        *err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    box_op_start(op, NULL, pull_unavailable);
    return op;
}
