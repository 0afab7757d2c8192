/* The JSON of `e2b-tui --compare NAME --json` (version 1; its fields: tui/cli/cli.h), made
 * here because tui/ includes no jansson. */
#ifndef E2B_BOX_COMPARE_H
#define E2B_BOX_COMPARE_H

#include "core/box/box.h"

#include <stdbool.h>
#include <stddef.h>

/* One member as --compare shows it; strings borrowed (sanitised or checked already). */
typedef struct e2b_box_compare_row {
    const char *name, *sandbox_id;
    const char *state;         /* the agent's state ("idle", "working", ...) or the sandbox's */
    const char *last_end;      /* how its last turn ended ("done", ...), or NULL */
    const char *model;         /* "provider/model", or NULL (the configured one) */
    long turn_s;               /* its turn's time in seconds, -1 not known */
    const e2b_evidence *evidence; /* NULL: not taken (its turn has not ended) */
    const char *last_message;  /* the agent's last text, or NULL (not known) */
    int have_tokens, have_cost; /* the agent's usage over its sessions, when its server said */
    long long tokens_input, tokens_output;
    double cost_usd;
} e2b_box_compare_row;

/* {"version":1,"group":G,"members":[...]} ("tokens": {"input","output"} or null, "cost":
 * USD or null: not known) in the one style (core/util/json_style.h).
 * Caller frees; NULL when out of memory. */
char *e2b_box_compare_json(const char *group, const e2b_box_compare_row *rows, size_t n,
                           bool pretty);

#endif
