/* Approval rules: which permission requests e2b-tui answers "once" by itself for a box.
 *
 *   TOOL          every request of that tool ("edit", "bash")
 *   TOOL:GLOB     a request of that tool whose command or path matches GLOB as a whole
 *                 (fnmatch(3): '*' any text, '?' one character, [..] a set)
 *
 * and the box's yes-all flag, which allows every permission request. A rule never answers
 * a question, never matches a command the server sent in a form we could not keep
 * unchanged (cut, sanitised, several joined: e2b_agent_request.exact), and its glob never
 * spans a shell control character (; & | < > $ ` newline) that the glob itself does not
 * name: "bash:python3 -m unittest*" allows "python3 -m unittest -v", not
 * "python3 -m unittest; rm -rf ~". Pure: no I/O. */
#ifndef E2B_AGENT_RULES_H
#define E2B_AGENT_RULES_H

#include "core/agent/agent.h"

#include <stdbool.h>
#include <stddef.h>

#define E2B_RULES_MAX 32      /* rules kept per box */
#define E2B_RULE_TEXT_MAX 256 /* bytes of one rule */
#define E2B_RULE_YES_ALL "yes-all" /* what e2b_rules_match names for the yes-all flag */

/* Whether rule is well formed; when not, why (in words for the user) into why. */
bool e2b_rules_valid(const char *rule, char *why, size_t n);
/* Whether rule allows the permission request r. */
bool e2b_rules_allows(const char *rule, const e2b_agent_request *r);
/* The rule that allows r: the first of rules[0..n) that does, else E2B_RULE_YES_ALL when
 * yes_all, else NULL (borrowed: rules' own text, or the constant). */
const char *e2b_rules_match(char *const *rules, size_t n, bool yes_all,
                            const e2b_agent_request *r);

#endif
