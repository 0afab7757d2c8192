/* core/secrets_providers: provider table, secret names, network rules with placeholders. */
#include "core/box/secrets_providers.h"
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

static void test_find(void)
{
    const e2b_provider *p = e2b_provider_find("OpenAI");
    CHECK(p);
    CHECK_STR_EQ(p->host, "api.openai.com");
    CHECK_STR_EQ(p->env_var, "OPENAI_API_KEY");
    CHECK(e2b_provider_find("anthropic") && e2b_provider_find("openrouter"));
    CHECK(!e2b_provider_find("mistral"));
    CHECK(!e2b_provider_find(NULL));
}

static void test_names(void)
{
    CHECK(e2b_secret_name_valid("anthropic"));
    CHECK(e2b_secret_name_valid("my-key_2"));
    CHECK(!e2b_secret_name_valid(""));
    CHECK(!e2b_secret_name_valid("sec_x"));
    CHECK(!e2b_secret_name_valid("a{b"));
    CHECK(!e2b_secret_name_valid("a b"));
    CHECK(!e2b_secret_name_valid("a\nb"));
}

static void test_network_rules(void)
{
    e2b_secret items[3] = {{.secret_id = "1", .name = "anthropic"},
                           {.secret_id = "2", .name = "custom"},
                           {.secret_id = "3", .name = "openrouter"}};
    e2b_secret_list list = {items, 3};
    e2b_metadata env = {0};
    json_t *net = e2b_provider_network(&list, &env);
    CHECK(net);
    json_t *rules = json_object_get(net, "rules");
    CHECK_INT_EQ((int)json_object_size(rules), 2);
    const char *h = json_string_value(json_object_get(
        json_object_get(json_object_get(json_array_get(json_object_get(rules, "api.anthropic.com"), 0),
                                        "transform"),
                        "headers"),
        "x-api-key"));
    CHECK(h);
    CHECK_STR_EQ(h, "${e2b.secrets.anthropic}");
    h = json_string_value(json_object_get(
        json_object_get(json_object_get(json_array_get(json_object_get(rules, "openrouter.ai"), 0),
                                        "transform"),
                        "headers"),
        "Authorization"));
    CHECK(h);
    CHECK_STR_EQ(h, "Bearer ${e2b.secrets.openrouter}");
    CHECK_STR_EQ(e2b_metadata_get(&env, "ANTHROPIC_API_KEY"), E2B_SECRET_PLACEHOLDER);
    CHECK(!e2b_metadata_get(&env, "OPENAI_API_KEY"));
    json_decref(net);
    e2b_metadata_clear(&env);
}

static void test_no_rules(void)
{
    e2b_secret items[1] = {{.secret_id = "1", .name = "custom"}};
    e2b_secret_list list = {items, 1};
    CHECK(!e2b_provider_network(&list, NULL));
    CHECK(!e2b_provider_network(NULL, NULL));
}

int main(void)
{
    RUN(test_find);
    RUN(test_names);
    RUN(test_network_rules);
    RUN(test_no_rules);
    return harness_finish();
}
