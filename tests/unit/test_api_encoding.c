#include "core/e2b/api.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

static void test_encode_uri_component_like_js(void)
{
    char *s = e2b_encode_uri_component("a b/c?d=e&f~g!h*i'j(k)l-_.é");
    CHECK_STR_EQ(s, "a%20b%2Fc%3Fd%3De%26f~g!h*i'j(k)l-_.%C3%A9");
    free(s);
    s = e2b_encode_form_component("a b~!'()*-._%");
    CHECK_STR_EQ(s, "a+b%7E%21%27%28%29*-._%25");
    free(s);
}

static void test_list_query_defaults(void)
{
    e2b_list_query q = {0};
    char *s = e2b_api_list_query_string(&q, NULL);
    CHECK_STR_EQ(s, "limit=100");
    free(s);
    q.states = E2B_LIST_RUNNING | E2B_LIST_PAUSED;
    s = e2b_api_list_query_string(&q, "MjAyNS0wMS0wMlQwMzowNDowNVpfX2lhYmM=");
    CHECK_STR_EQ(s, "state=running,paused&limit=100&nextToken=MjAyNS0wMS0wMlQwMzowNDowNVpfX2lhYmM%3D");
    free(s);
    q.states = E2B_LIST_PAUSED;
    s = e2b_api_list_query_string(&q, "");
    CHECK_STR_EQ(s, "state=paused&limit=100");
    free(s);
}

static void test_metadata_filter_triple_encoded(void)
{
    e2b_metadata md = {0};
    e2b_list_query q = {.metadata = &md, .states = E2B_LIST_RUNNING};
    char *s;
    e2b_metadata_set(&md, "e2b-tui", "box");
    e2b_metadata_set(&md, "e2b-tui.name", "feat x/y");
    s = e2b_api_list_query_string(&q, NULL);
    /* encodeURIComponent: "feat%20x%2Fy"; URLSearchParams: "feat%2520x%252Fy";
     * joined "e2b-tui=box&e2b-tui.name=feat%2520x%252Fy"; then encodeURIComponent again. */
    CHECK_STR_EQ(s, "metadata=e2b-tui%3Dbox%26e2b-tui.name%3Dfeat%252520x%25252Fy"
                    "&state=running&limit=100");
    free(s);
    e2b_metadata_clear(&md);
    /* '+' and '=' and '&' inside values survive all three decodes. */
    e2b_metadata_set(&md, "k=1", "a+b&c");
    q.states = 0;
    s = e2b_api_list_query_string(&q, NULL);
    CHECK_STR_EQ(s, "metadata=k%25253D1%3Da%25252Bb%252526c&limit=100");
    free(s);
    e2b_metadata_clear(&md);
}

/* Decodes %XX (and '+' as space when form is set), as Go's QueryUnescape does. */
static char *unescape(const char *s, int form)
{
    char *o = malloc(strlen(s) + 1), *p = o;
    for (; *s; s++) {
        if (*s == '%' && s[1] && s[2]) {
            char h[3] = {s[1], s[2], 0};
            *p++ = (char)strtol(h, NULL, 16);
            s += 2;
        } else if (*s == '+' && form) {
            *p++ = ' ';
        } else {
            *p++ = *s;
        }
    }
    *p = 0;
    return o;
}

static void test_metadata_filter_round_trips_through_server_decoding(void)
{
    /* The server: decode the parameter, QueryUnescape the whole, split on & and =,
     * QueryUnescape each part. Arbitrary bytes must come back unchanged. */
    e2b_metadata md = {0};
    e2b_list_query q = {.metadata = &md};
    const char *key = "wé%ird k+y=&", *val = "v a/l?u+e%2B&x=y~!*'()";
    char *s, *d1, *d2, *eq, *k, *v;
    e2b_metadata_set(&md, key, val);
    s = e2b_api_list_query_string(&q, NULL);
    CHECK(strncmp(s, "metadata=", 9) == 0);
    *strchr(s, '&') = '\0';
    d1 = unescape(s + 9, 1);
    d2 = unescape(d1, 1);
    CHECK(strchr(d2, '&') == NULL);
    eq = strchr(d2, '=');
    CHECK(eq != NULL);
    *eq = '\0';
    k = unescape(d2, 1);
    v = unescape(eq + 1, 1);
    CHECK_STR_EQ(k, key);
    CHECK_STR_EQ(v, val);
    free(s);
    free(d1);
    free(d2);
    free(k);
    free(v);
    e2b_metadata_clear(&md);
}

static void test_create_body(void)
{
    e2b_metadata md = {0}, env = {0};
    json_t *net = json_loads("{\"allowOut\":[\"api.anthropic.com\"]}", 0, NULL);
    e2b_create_params p = {.template_id = "opencode", .timeout_s = 3600, .metadata = &md,
                           .env_vars = &env, .auto_pause = 1, .allow_internet_access = -1,
                           .network = net};
    json_t *b;
    char *s;
    e2b_metadata_set(&md, "e2b-tui", "box");
    e2b_metadata_set(&env, "ANTHROPIC_API_KEY", "placeholder");
    b = e2b_api_create_body(&p);
    s = json_dumps(b, JSON_COMPACT | JSON_SORT_KEYS);
    CHECK_STR_EQ(s, "{\"autoPause\":true,\"envVars\":{\"ANTHROPIC_API_KEY\":\"placeholder\"},"
                    "\"metadata\":{\"e2b-tui\":\"box\"},\"network\":{\"allowOut\":"
                    "[\"api.anthropic.com\"]},\"templateID\":\"opencode\",\"timeout\":3600}");
    free(s);
    json_decref(b);
    p = (e2b_create_params){.template_id = "base", .allow_internet_access = 0};
    b = e2b_api_create_body(&p);
    s = json_dumps(b, JSON_COMPACT | JSON_SORT_KEYS);
    CHECK_STR_EQ(s, "{\"allow_internet_access\":false,\"templateID\":\"base\"}");
    free(s);
    json_decref(b);
    p.template_id = NULL;
    CHECK(e2b_api_create_body(&p) == NULL);
    json_decref(net);
    e2b_metadata_clear(&md);
    e2b_metadata_clear(&env);
}

static void test_client_needs_a_key(void)
{
    e2b_config cfg;
    e2b_error *err = NULL;
    e2b_config_init(&cfg);
    CHECK(e2b_client_new(NULL, &cfg, &err) == NULL);
    CHECK(err && err->kind == E2B_ERR_AUTH);
    CHECK(strstr(e2b_error_message(err), "E2B_API_KEY") != NULL);
    CHECK_INT_EQ(e2b_error_exit_code(err), 4);
    e2b_error_free(err);
    e2b_config_clear(&cfg);
}

int main(void)
{
    RUN(test_encode_uri_component_like_js);
    RUN(test_list_query_defaults);
    RUN(test_metadata_filter_triple_encoded);
    RUN(test_metadata_filter_round_trips_through_server_decoding);
    RUN(test_create_body);
    RUN(test_client_needs_a_key);
    return harness_finish();
}
