/* What a sandbox costs while it runs: E2B bills the vCPUs and memory a sandbox is given, per
 * second while it runs; a paused sandbox costs nothing (core/e2b/config.h has the prices).
 *
 * The figure is the current run's: from the sandbox's startedAt to now, as the API reports
 * it. Runs before a pause are not counted (the API does not tell them), so a box that was
 * paused and resumed shows less than it cost in all. Pure: no I/O. */
#ifndef E2B_COST_H
#define E2B_COST_H

#include <stdbool.h>
#include <time.h>

#include "core/e2b/objects.h"

/* The running sandbox's cost so far in dollars into *usd: (now - started_at) × (cpu_count ×
 * vcpu_second + memory_mb / 1024 × gib_second). false (unknown) when the sandbox is not
 * running, or its size or start is not known. */
bool e2b_sandbox_cost(const e2b_sandbox *sb, double vcpu_second, double gib_second, time_t now,
                      double *usd);
/* What the sandbox costs a second while it runs, in dollars: cpu_count × vcpu_second +
 * memory_mb / 1024 × gib_second (a size not known counts 0). */
double e2b_sandbox_cost_rate(const e2b_sandbox *sb, double vcpu_second, double gib_second);
/* The same for the part of the current run after since (today's: since = local midnight). */
bool e2b_sandbox_cost_since(const e2b_sandbox *sb, double vcpu_second, double gib_second,
                            time_t since, time_t now, double *usd);

/* Dollars for a person: "$0.42", "$12.30", "$0.004" under a cent, "<$0.001" above 0. */
void e2b_cost_format(double usd, char *buf, size_t n);

/* A budget in dollars as a person writes it: "2", "2.50", "$2.50"; from 0.01 to
 * E2B_BUDGET_MAX_USD. Returns 0 (into *usd), or -1 for anything else. */
#define E2B_BUDGET_MAX_USD 100000.0
int e2b_budget_parse(const char *s, double *usd);

/* Whether a box's cost has reached its budget: the figures known (agent_usd and sandbox_usd,
 * a part not known being 0) sum to budget_usd or more. budget_usd <= 0 is no budget (never
 * reached). Pure. */
bool e2b_budget_reached(double budget_usd, double agent_usd, double sandbox_usd);

#endif
