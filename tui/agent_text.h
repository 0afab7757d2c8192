/* A box's agent status (core/agent/agent.h) in words for the dashboard: the AGENT and TODO
 * cells of a box row, the tone a state is drawn in, "3m ago". Pure: no curses (tests/unit
 * checks it). The text is readable without colour: a box waiting for you starts with "!". */
#ifndef E2B_TUI_AGENT_TEXT_H
#define E2B_TUI_AGENT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/agent/agent.h"
#include "core/live/live.h"
#include "core/e2b/config.h"

#include <time.h>

/* How a state is drawn (the views map it to a role). */
enum agent_tone { TONE_PLAIN, TONE_GOOD, TONE_BAD, TONE_BUSY, TONE_WAITING };

/* The wall clock in ms (the agent's times are wall-clock ms). */
int64_t agent_text_now_ms(void);

/* How the AGENT cell of a box waiting for you starts (what :waiting filters on). */
#define AGENT_WAITING_MARK "! waiting"

enum agent_tone agent_text_tone(const e2b_agent_status *st);

/* The AGENT cell: "! waiting: bash: rm -rf build", "working", "retrying (2)", "idle 3m
 * done", "idle 1m failed", "server down", "paused", "unknown"; "-" without a status. From a
 * minute on, how long in the state: "working 12m", "! waiting 3m: bash: ...". */
void agent_text_cell(const e2b_agent_status *st, int64_t now_ms, char *buf, size_t n);

/* The AGENT cell in width columns (the column's fit, tui/widgets/table.h): the last words
 * go first ("idle 3m done", "idle 3m", "idle"; "! waiting: bash: ...", "! waiting"), then
 * the state's shorter word ("! wait", "work", "retry", "down"). Into buf; returns buf. */
const char *agent_text_fit(const char *cell, int width, char *buf, size_t n);

/* Appends ", pauses in 4m" (", pauses in <1m") to an AGENT cell when the idle pauser
 * (core/live/live_idle.h) will pause the box at due_ms (0: nothing appended). */
void agent_text_pauses(int64_t due_ms, int64_t now_ms, char *buf, size_t n);

/* How a box whose every permission request is allowed (--yes-all) is marked. */
#define AGENT_YES_ALL_MARK "[YES-ALL]"
/* Appends the box's approval rules to an AGENT cell: " [YES-ALL]", " [auto 2]" (2 rules),
 * nothing when it has none. */
void agent_text_rules(const e2b_live *m, const char *sandbox_id, char *buf, size_t n);

/* The TODO cell: "2/5", "-" when there is no list. */
void agent_text_todo(const e2b_agent_status *st, char *buf, size_t n);

/* (A box's cost, agent and sandbox: the model's e2b_live_box_cost, core/live/live_budget.h.) */
/* The AGENT cell of a box stopped at its budget (core/live/live_budget.h) while it is
 * paused or being stopped: "budget $2.00"; false (buf untouched) otherwise. */
bool agent_text_budget(const e2b_live *m, const char *sandbox_id, const e2b_agent_status *st,
                       char *buf, size_t n);
/* The COST cell: "$0.43" (agent and sandbox), "$0.42+?" when a part is not known, "?" when
 * nothing is, "-" without a status. */
void agent_text_cost(const e2b_agent_status *st, const e2b_sandbox *sb, const e2b_config *cfg,
                     time_t now, char *buf, size_t n);
/* The same for today (the local day of now): the agent's spent today (e2b_agent_status
 * today; a box with no figure of today spent none, where its figures are known at all) and
 * the sandbox's run since midnight. */
bool agent_text_box_cost_today(const e2b_agent_status *st, const e2b_sandbox *sb,
                               const e2b_config *cfg, time_t now, double *agent_usd,
                               double *sandbox_usd);
/* The fleet's cost today: every watched box's figures of today summed into *usd (one pass
 * over the boxes); false when some part is not known (then *usd is what is known). */
bool agent_text_fleet_cost(const e2b_live *m, time_t now, double *usd);

/* Sets the AGENT, TODO and COST cells (columns SBCOL_AGENT, SBCOL_TODO) of every row of a sandbox
 * table from the model; *changed is set when a cell changed. */
struct table;
void agent_text_apply(struct table *t, const e2b_live *m, int64_t now_ms, bool *changed);

#endif
