/* Approval rules (rules.h): a tool name, and a glob on the request's one command or path. */
#include "core/agent/rules.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#define TOOL_MAX 32
#define CONTROL_CHARS ";&|<>$`\n"

static size_t tool_len(const char *rule)
{
    const char *colon = strchr(rule, ':');
    return colon ? (size_t)(colon - rule) : strlen(rule);
}

bool e2b_rules_valid(const char *rule, char *why, size_t n)
{
    size_t len = rule ? strlen(rule) : 0, tl = rule ? tool_len(rule) : 0;
    const char *bad = NULL;
    if (!len)
        bad = "an empty rule";
    else if (len >= E2B_RULE_TEXT_MAX)
        bad = "longer than 255 bytes";
    else if (!tl || tl > TOOL_MAX)
        bad = "no tool name before ':' (e.g. bash:python3 -m unittest*)";
    for (size_t i = 0; !bad && i < tl; i++) {
        char c = rule[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            bad = "a tool name is lower-case letters, digits, '_' and '-' (bash, edit)";
    }
    if (!bad && rule[tl] == ':' && !rule[tl + 1])
        bad = "nothing after ':' (name the tool alone to allow all of it)";
    for (size_t i = tl; !bad && i < len; i++)
        if ((unsigned char)rule[i] < 0x20 || rule[i] == 0x7f)
            bad = "a control character";
    if (bad && why && n)
        snprintf(why, n, "approval rule \"%.60s\": %s", rule ? rule : "", bad);
    return !bad;
}

/* Whether detail has a shell control character that glob does not name. */
static bool spans_control(const char *glob, const char *detail)
{
    for (const char *c = CONTROL_CHARS; *c; c++)
        if (strchr(detail, *c) && !strchr(glob, *c))
            return true;
    return false;
}

bool e2b_rules_allows(const char *rule, const e2b_agent_request *r)
{
    if (!rule || !r || r->question || !r->action || !e2b_rules_valid(rule, NULL, 0))
        return false;
    size_t tl = tool_len(rule);
    if (strlen(r->action) != tl || strncmp(rule, r->action, tl) != 0)
        return false;
    if (!rule[tl])
        return true; /* the whole tool */
    const char *glob = rule + tl + 1;
    if (!r->exact || !r->detail || spans_control(glob, r->detail))
        return false;
    return fnmatch(glob, r->detail, 0) == 0;
}

const char *e2b_rules_match(char *const *rules, size_t n, bool yes_all,
                            const e2b_agent_request *r)
{
    if (!r || r->question)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (e2b_rules_allows(rules[i], r))
            return rules[i];
    return yes_all ? E2B_RULE_YES_ALL : NULL;
}
