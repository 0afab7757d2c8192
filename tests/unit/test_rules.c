/* Approval rules (core/agent/rules.h): what a rule allows, and what it must never allow. */
#include "core/agent/rules.h"
#include "tests/lib/harness.h"

static e2b_agent_request perm(const char *action, const char *detail, bool exact)
{
    return (e2b_agent_request){.id = "per_1", .action = (char *)action,
                               .detail = (char *)detail, .exact = exact};
}

static void test_glob_on_the_command(void)
{
    e2b_agent_request r = perm("bash", "python3 -m unittest -v", true);
    CHECK(e2b_rules_allows("bash:python3 -m unittest*", &r));
    CHECK(!e2b_rules_allows("bash:python3 -m pytest*", &r));
    CHECK(!e2b_rules_allows("bash:python3", &r)); /* the whole command, not a prefix */
    CHECK(e2b_rules_allows("bash:python3 -m unittest ?v", &r));
    r.detail = "python3 -m unittest";
    CHECK(e2b_rules_allows("bash:python3 -m unittest*", &r));
}

static void test_tool_kind(void)
{
    e2b_agent_request r = perm("edit", "todo.py", false);
    CHECK(e2b_rules_allows("edit", &r));  /* the whole kind needs no exact detail */
    CHECK(!e2b_rules_allows("bash", &r));
    CHECK(!e2b_rules_allows("edi", &r));  /* the tool's whole name */
    CHECK(!e2b_rules_allows("edits", &r));
    r.action = "editor";
    CHECK(!e2b_rules_allows("edit", &r));
    CHECK(!e2b_rules_allows("edit:*", &r));
}

static void test_never_spans_a_shell_control(void)
{
    const char *evil[] = {"python3 -m unittest; rm -rf ~", "python3 -m unittest && curl x",
                          "python3 -m unittest | sh", "python3 -m unittest > /etc/x",
                          "python3 -m unittest $(id)", "python3 -m unittest `id`",
                          "python3 -m unittest\nrm -rf ~"};
    for (size_t i = 0; i < sizeof evil / sizeof *evil; i++) {
        e2b_agent_request r = perm("bash", evil[i], true);
        CHECK(!e2b_rules_allows("bash:python3 -m unittest*", &r));
    }
    /* a glob that names the character allows it */
    e2b_agent_request r = perm("bash", "make test | tee log", true);
    CHECK(e2b_rules_allows("bash:make test | tee *", &r));
}

static void test_only_what_was_kept_whole(void)
{
    e2b_agent_request r = perm("bash", "python3 -m unittest", false); /* cut or sanitised */
    CHECK(!e2b_rules_allows("bash:python3 -m unittest*", &r));
    CHECK(e2b_rules_allows("bash", &r));
    r = perm("bash", NULL, true);
    CHECK(!e2b_rules_allows("bash:*", &r));
}

static void test_questions_never(void)
{
    e2b_agent_request q = perm("bash", "python3 -m unittest", true);
    q.question = true;
    CHECK(!e2b_rules_allows("bash", &q));
    CHECK(e2b_rules_match(NULL, 0, true, &q) == NULL);
}

static void test_match_names_the_rule(void)
{
    char *rules[] = {"edit", "bash:ls*", "bash:python3 -m unittest*"};
    e2b_agent_request r = perm("bash", "python3 -m unittest", true);
    CHECK_STR_EQ(e2b_rules_match(rules, 3, false, &r), "bash:python3 -m unittest*");
    r.detail = "rm -rf build";
    CHECK(e2b_rules_match(rules, 3, false, &r) == NULL);
    CHECK_STR_EQ(e2b_rules_match(rules, 3, true, &r), E2B_RULE_YES_ALL);
    CHECK(e2b_rules_match(rules, 0, false, &r) == NULL);
}

static void test_valid(void)
{
    char why[200];
    CHECK(e2b_rules_valid("bash:python3 -m unittest*", why, sizeof why));
    CHECK(e2b_rules_valid("edit", why, sizeof why));
    CHECK(!e2b_rules_valid("", why, sizeof why));
    CHECK(!e2b_rules_valid(":ls", why, sizeof why));
    CHECK(strstr(why, "tool name") != NULL);
    CHECK(!e2b_rules_valid("Bash:ls", why, sizeof why));
    CHECK(!e2b_rules_valid("bash:", why, sizeof why));
    CHECK(!e2b_rules_valid("bash:ls\x1b[2J", why, sizeof why));
    char big[300];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK(!e2b_rules_valid(big, why, sizeof why));
    /* an invalid rule allows nothing */
    e2b_agent_request r = perm("Bash", "ls", true);
    CHECK(!e2b_rules_allows("Bash:ls", &r));
}

int main(void)
{
    RUN(test_glob_on_the_command);
    RUN(test_tool_kind);
    RUN(test_never_spans_a_shell_control);
    RUN(test_only_what_was_kept_whole);
    RUN(test_questions_never);
    RUN(test_match_names_the_rule);
    RUN(test_valid);
    return harness_finish();
}
