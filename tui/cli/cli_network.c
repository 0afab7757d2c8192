/* --network NAME|ID [--allow-out LIST] [--deny-out LIST] [--no-internet]: replaces a running
 * box's (or sandbox's) egress through the model's command (core/live/live.h,
 * e2b_live_set_network: the stored secrets' rules are kept) and prints what it may reach
 * now. Nothing given is an open box. No curses here. */
#include "tui/cli/cli_internal.h"

#include "core/box/box_egress.h"
#include "core/box/records.h"

#include <stdio.h>
#include <string.h>

int cli_network(e2b_live *m, const cli_args *a, const struct cli_target *t)
{
    e2b_box_egress eg = {.allow_out = a->allow_out, .deny_out = a->deny_out,
                         .allow_internet = !a->no_internet};
    const char *box = cli_target_box(t);
    char label[200], safe[160];
    cli_clean(box ? box : cli_target_sandbox(t), safe, sizeof safe);
    snprintf(label, sizeof label, "%s %s", box ? "box" : "sandbox", safe);
    e2b_live_end end;
    e2b_live_then(m, &end);
    e2b_live_set_network(m, cli_target_sandbox(t), box, &eg);
    e2b_wait(e2b_live_loop(m), &end.done); /* filled at once when it could not start */
    if (end.err) {
        int rc = cli_api_fail(end.err, "changing the egress of", label);
        e2b_error_free(end.err);
        return rc;
    }
    printf("%s: egress changed\n", label);
    e2b_box_record rec = {0};
    e2b_error *err = box ? e2b_box_record_read(e2b_live_config(m)->records_dir, box, &rec) : NULL;
    if (box && !err)
        e2b_box_egress_print(rec.egress, "  ", stdout);
    e2b_error_free(err);
    e2b_box_record_clear(&rec);
    return 0;
}
