/* core/e2b/egress_list and core/box/box_egress: the lists users write (what is accepted,
 * the words for what is not) and the network object built from them and the secrets. */
#include "core/box/box_egress.h"
#include "core/box/secrets_providers.h"
#include "core/e2b/egress_list.h"
#include "tests/lib/harness.h"

#include <stdlib.h>
#include <string.h>

static int ok(const char *text, bool deny)
{
    char why[300];
    return e2b_egress_list_check(text, deny, why, sizeof why) == 0;
}

static void test_accepted(void)
{
    CHECK(ok(NULL, false) && ok("", false) && ok(" , ", true));
    CHECK(ok("api.example.com", false));
    CHECK(ok("*.example.com, 10.0.0.0/8 1.2.3.4", false));
    CHECK(ok("localhost", false));
    CHECK(ok("0.0.0.0/0,192.168.1.7,10.0.0.0/32", true));
}

static void test_refused(void)
{
    char why[300];
    CHECK(e2b_egress_list_check("10.0.0.0/33", false, why, sizeof why) < 0);
    CHECK(strstr(why, "'10.0.0.0/33' is not a CIDR: the prefix length is 0 to 32"));
    CHECK(e2b_egress_list_check("a.com 300.1.1.1", false, why, sizeof why) < 0);
    CHECK(strstr(why, "'300.1.1.1' is not an IPv4 address"));
    CHECK(e2b_egress_list_check("10.0.0/8", false, why, sizeof why) < 0 && strstr(why, "not a CIDR"));
    CHECK(e2b_egress_list_check("10.0.0.0/", false, why, sizeof why) < 0 && strstr(why, "not a CIDR"));
    CHECK(e2b_egress_list_check("example.com", true, why, sizeof why) < 0);
    CHECK(strstr(why, "the deny list takes IPv4 addresses and CIDRs only"));
    CHECK(e2b_egress_list_check("*", false, why, sizeof why) < 0 && strstr(why, "a wildcard is one leading"));
    CHECK(e2b_egress_list_check("a.*.com", false, why, sizeof why) < 0 && strstr(why, "a wildcard"));
    CHECK(e2b_egress_list_check("-a.com", false, why, sizeof why) < 0 && strstr(why, "is not a domain"));
    CHECK(e2b_egress_list_check("a..com", false, why, sizeof why) < 0 && strstr(why, "is not a domain"));
    CHECK(e2b_egress_list_check("a_b.com", false, why, sizeof why) < 0);
    CHECK(e2b_egress_list_check("host:443", false, why, sizeof why) < 0 && strstr(why, "has a port"));
    CHECK(e2b_egress_list_check("::1", true, why, sizeof why) < 0 && strstr(why, "IPv6"));
    char many[64 * 4 + 8] = "";
    for (int i = 0; i <= E2B_EGRESS_LIST_MAX; i++)
        strcat(many, "a.b ");
    CHECK(e2b_egress_list_check(many, false, why, sizeof why) < 0 && strstr(why, "more than 64"));
}

static const char *str_at(const json_t *arr, size_t i)
{
    return json_string_value(json_array_get(arr, i));
}

static void test_network(void)
{
    e2b_secret items[2] = {{.secret_id = "1", .name = "openai"}, {.secret_id = "2", .name = "custom"}};
    e2b_secret_list secrets = {items, 2};
    int internet = 7;
    /* nothing restricted: only the secret's rule, nothing allowed or denied */
    e2b_box_egress open = {.allow_internet = 1};
    json_t *net = e2b_box_egress_network(&open, &secrets, NULL, &internet);
    CHECK(net && json_object_get(net, "rules") && !json_object_get(net, "allowOut") &&
          !json_object_get(net, "denyOut"));
    CHECK_INT_EQ(internet, -1);
    json_decref(net);
    CHECK(!e2b_box_egress_network(&open, NULL, NULL, &internet));

    /* an allow list: only these and the provider's host, everything else denied */
    e2b_box_egress only = {.allow_out = "API.example.com api.example.com", .allow_internet = 1};
    e2b_metadata env = {0};
    net = e2b_box_egress_network(&only, &secrets, &env, &internet);
    json_t *allow = json_object_get(net, "allowOut"), *deny = json_object_get(net, "denyOut");
    CHECK_INT_EQ(json_array_size(allow), 2);
    CHECK_STR_EQ(str_at(allow, 0), "api.example.com");
    CHECK_STR_EQ(str_at(allow, 1), "api.openai.com");
    CHECK_INT_EQ(json_array_size(deny), 1);
    CHECK_STR_EQ(str_at(deny, 0), "0.0.0.0/0");
    CHECK_STR_EQ(e2b_metadata_get(&env, "OPENAI_API_KEY"), E2B_SECRET_PLACEHOLDER);
    json_t *sum = e2b_box_egress_summary(net, internet);
    char *text = json_dumps(sum, JSON_COMPACT | JSON_SORT_KEYS);
    CHECK_STR_EQ(text, "{\"allow_out\":[\"api.example.com\",\"api.openai.com\"],\"deny_out\":[\"0.0.0.0/0\"],"
                       "\"internet\":true,\"secrets\":[{\"host\":\"api.openai.com\",\"name\":\"openai\"}]}");
    free(text);
    json_decref(sum);
    json_decref(net);
    e2b_metadata_clear(&env);

    /* a deny list of some addresses alone: the provider's host is not denied and is not
     * named (E2B refuses a domain in allowOut without 0.0.0.0/0 in denyOut) */
    e2b_box_egress some = {.deny_out = "10.0.0.0/8", .allow_internet = 1};
    net = e2b_box_egress_network(&some, &secrets, NULL, &internet);
    allow = json_object_get(net, "allowOut"), deny = json_object_get(net, "denyOut");
    CHECK(!allow);
    CHECK(json_array_size(deny) == 1 && !strcmp(str_at(deny, 0), "10.0.0.0/8"));
    CHECK(json_object_get(json_object_get(net, "rules"), "api.openai.com"));
    CHECK_INT_EQ(internet, -1);
    json_decref(net);
    /* a deny list with 0.0.0.0/0: all else is blocked, the provider's host is allowed */
    e2b_box_egress all = {.deny_out = "10.0.0.0/8 0.0.0.0/0", .allow_internet = 1};
    net = e2b_box_egress_network(&all, &secrets, NULL, &internet);
    allow = json_object_get(net, "allowOut");
    CHECK(json_array_size(allow) == 1 && !strcmp(str_at(allow, 0), "api.openai.com"));
    CHECK_INT_EQ(internet, -1);
    json_decref(net);

    /* no internet: allow_internet_access false, the provider's host allowed, and denyOut
     * 0.0.0.0/0 beside it (E2B looks for it there, not at the flag) */
    e2b_box_egress off = {.allow_internet = 0};
    net = e2b_box_egress_network(&off, &secrets, NULL, &internet);
    CHECK_INT_EQ(internet, 0);
    allow = json_object_get(net, "allowOut"), deny = json_object_get(net, "denyOut");
    CHECK(json_array_size(allow) == 1 && !strcmp(str_at(allow, 0), "api.openai.com"));
    CHECK(json_array_size(deny) == 1 && !strcmp(str_at(deny, 0), "0.0.0.0/0"));
    sum = e2b_box_egress_summary(net, internet);
    CHECK(json_is_false(json_object_get(sum, "internet")));
    json_decref(sum);
    json_decref(net);
    /* no internet and no secret: nothing but the flag */
    CHECK(!e2b_box_egress_network(&off, NULL, NULL, &internet));
    CHECK_INT_EQ(internet, 0);
}

int main(void)
{
    RUN(test_accepted);
    RUN(test_refused);
    RUN(test_network);
    return harness_finish();
}
