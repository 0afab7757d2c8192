/* A box at its budget (core/live/live_budget.h): m and e ask before going past it. The
 * question offers a raise ("feat is at its $2.00 budget: raise it to $4.00?"; y), or t to
 * type a new budget; No is the default. Once raised (written to the box's record), the
 * action goes on through go. */
#ifndef E2B_TUI_BUDGET_ASK_H
#define E2B_TUI_BUDGET_ASK_H

#include <stdbool.h>

#include "tui/ui.h"

/* How the action goes on after a raise: the box's id and name, the session it was for (""
 * none) and the action (an enum action_id). */
typedef void (*budget_go_fn)(struct ui *ui, const char *id, const char *name,
                             const char *session_id, int action);

/* When the box shown as id is stopped at its budget or its cost has reached it, asks and
 * returns true (go runs after a raise); else returns false and the caller goes on. */
bool budget_ask(struct ui *ui, const char *id, const char *name, const char *session_id,
                int action, budget_go_fn go);

/* The raise offered for a budget of budget_usd at a cost of spent_usd: the budget doubled
 * until it is more than the cost. Pure. */
double budget_ask_raise(double budget_usd, double spent_usd);

#endif
