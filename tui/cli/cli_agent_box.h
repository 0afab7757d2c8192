/* Private to tui/cli/cli_agent.c and cli_fleet.c: one box's agent as a one-shot mode sees it,
 * the model's watch of one named box (e2b_live_agent_watch; cli_agent.c makes and reads it,
 * the fleet modes of cli_fleet.c watch several). */
#ifndef E2B_TUI_CLI_AGENT_BOX_H
#define E2B_TUI_CLI_AGENT_BOX_H

#include "core/box/records.h"
#include "tui/cli/cli_internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXIT_WAITING 6
#define EXIT_TIMED_OUT 7
#define EXIT_NOTHING_PENDING 9 /* --reply: no request waits for a reply */
#define EXIT_NOT_FINISHED 10   /* --wait: the turn ended interrupted (a rejected permission
                                  or an interrupt), not finished */
#define EXIT_AT_BUDGET 11      /* --prompt: the box is at its budget (--budget raises it) */

struct agent_box {
    e2b_box_record rec;
    e2b_live_end end; /* the watch's: settled, or why it cannot be watched */
};

/* name's record into b (zeroed first); 0, or the exit status (told). */
int cli_agent_box_read(e2b_live *m, const cli_args *a, const char *name, struct agent_box *b);
/* The model's watch of each box (all at once), until each has settled (bounded). */
void cli_agent_boxes_watch(e2b_live *m, struct agent_box *boxes, size_t n);
/* The agent's status when it is watched (not paused), else NULL. */
const e2b_agent_status *cli_agent_box_status(e2b_live *m, const struct agent_box *b);
/* The sandbox: "running", "paused", "gone" or "unknown". */
const char *cli_agent_box_sandbox(e2b_live *m, const struct agent_box *b);
/* The state's word ("working", "paused", "gone", ...). */
const char *cli_agent_box_state(e2b_live *m, const struct agent_box *b);
/* Why it is not watched (NULL when it is, or gone); the API's error when it failed. */
const char *cli_agent_box_why(const struct agent_box *b);
const e2b_error *cli_agent_box_api_err(const struct agent_box *b);
void cli_agent_box_clear(struct agent_box *b);
/* --wait's verdict on one box: its exit status once it stopped working (0 finished, 10
 * interrupted, 1 failed, server down or not watched, 6 waiting; told on stderr unless
 * quiet), or -1 not yet. seen_turn: it was seen working; waited_ms: how long --wait has
 * watched. */
int cli_agent_exit_wait(e2b_live *m, const struct agent_box *b, bool seen_turn,
                        int64_t waited_ms, bool quiet);

#endif
