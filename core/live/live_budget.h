/* Budgets (live_budget.c; README "Budgets"): what a box may cost, agent and sandbox
 * together (e2b_live_box_cost). A box's own budget is its record's (--up --budget), else the
 * config's budget_usd; 0 is none. When a box's cost reaches its budget, a running dashboard
 * or `e2b-tui --keepalive` (the same model code) interrupts its turn, pauses it, marks its
 * record stopped at the budget and tells it ("feat-x stopped at its $2.00 budget"). While
 * neither runs, nothing watches the budget (the one-shot modes only refuse to go past it).
 *
 * The cost is the sum of the figures known: an unknown agent cost (1.18.33's v2 prices
 * nothing) counts as 0, so only what is known can stop a box; the sandbox's part is the
 * current run's (core/e2b/cost.h), so a budget raised and resumed counts its runs anew.
 *
 * Zero CPU between: the check runs on the model's changes, plus one timer set for when the
 * earliest running box's sandbox part reaches its budget. */
#ifndef E2B_LIVE_BUDGET_H
#define E2B_LIVE_BUDGET_H

#include <stdbool.h>
#include <time.h>

#include "core/agent/agent.h"
#include "core/box/records.h"
#include "core/e2b/config.h"
#include "core/e2b/objects.h"
#include "core/live/live.h"

/* A box's cost: the agent's (the server's own figures) into *agent_usd and the sandbox's
 * current run (core/e2b/cost.h) into *sandbox_usd, each 0 when not known. Returns whether
 * both parts are known (a paused sandbox costs nothing: known). Pure. */
bool e2b_live_box_cost(const e2b_agent_status *st, const e2b_sandbox *sb, const e2b_config *cfg,
                       time_t now, double *agent_usd, double *sandbox_usd);

/* The budget of the box of record rec: its own, else cfg's budget_usd; 0 = none. Pure. */
double e2b_live_budget_usd(const e2b_box_record *rec, const e2b_config *cfg);

/* A box's budget as the model sees it. */
typedef struct e2b_live_budget {
    double usd;     /* the budget, 0 = none */
    bool own;       /* its record's (--up --budget), not the config's */
    bool stopped;   /* stopped at it (its record says so, or this model just did) */
    bool reached;   /* its cost known now reaches it (e2b_budget_reached) */
    double spent_usd; /* the cost known now (agent + sandbox) */
} e2b_live_budget;

/* The budget of the box shown as sandbox_id (a box of this machine); false when it has no
 * record here. */
bool e2b_live_budget_of(const e2b_live *m, const char *sandbox_id, e2b_live_budget *out);

/* Sets the budget of this machine's box name to usd (> 0; written to its record) and clears
 * its "stopped at the budget" mark. Returns NULL, or why not (the caller frees). Blocking
 * (one small file write): for a command, not for a redraw. */
e2b_error *e2b_live_budget_set(e2b_live *m, const char *name, double usd);

#endif
