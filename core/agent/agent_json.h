/* The JSON of `e2b-tui --status --json` (version 1; its fields: tui/cli/cli.h), made here
 * because only core/ includes jansson. */
#ifndef E2B_AGENT_JSON_H
#define E2B_AGENT_JSON_H

#include "core/agent/agent.h"
#include "core/e2b/opencode_kind.h"

#include <stdbool.h>
#include <stddef.h>

/* One box as --status shows it. Strings borrowed; status NULL when not watched (why says
 * why, or NULL). */
typedef struct e2b_agent_box_view {
    const char *name, *sandbox_id;
    const char *sandbox; /* "running", "paused", "gone", "unknown" */
    const char *state;   /* the agent state's name, or "paused" / "gone" / "unknown" */
    const char *why;
    const e2b_agent_status *status;
    const e2b_opencode_kind *opencode; /* what the box runs (its record's), or NULL */
    bool have_sandbox_usd;             /* the sandbox's cost is known (core/box/cost.h) */
    double sandbox_usd;
    const char *group; /* the group of attempts it is a member of, or NULL ("group": null) */
    double budget_usd; /* what it may cost ("budget_usd"; 0: none, null) */
    bool budget_stopped; /* stopped at it ("budget_stopped") */
} e2b_agent_box_view;

/* {"version":1,"boxes":[...]} in the one style (core/util/json_style.h: one line, or pretty;
 * ASCII; strings were sanitised when stored). Caller frees; NULL when out of memory. */
char *e2b_agent_status_json(const e2b_agent_box_view *boxes, size_t n, bool pretty);

/* One line of `--watch --json`: the box as in --status's "boxes" (its fields, same names)
 * plus "version":1, "at" (when the change was seen) and "request" (the oldest pending one:
 * {"id","kind","action","summary","since"}, or null). One compact line; caller frees; NULL
 * when out of memory. */
char *e2b_agent_change_json(const e2b_agent_box_view *b, int64_t at_ms);

#endif
