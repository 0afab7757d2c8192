/* The provider table and the egress rules built from it (see secrets_providers.h). */
#include "core/box/secrets_providers.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const e2b_provider anthropic = {"anthropic", "api.anthropic.com", "x-api-key", "",
                                       "ANTHROPIC_API_KEY"};
static const e2b_provider openai = {"openai", "api.openai.com", "Authorization", "Bearer ",
                                    "OPENAI_API_KEY"};
static const e2b_provider openrouter = {"openrouter", "openrouter.ai", "Authorization",
                                        "Bearer ", "OPENROUTER_API_KEY"};
static const e2b_provider *const table[] = {&anthropic, &openai, &openrouter, NULL};

const e2b_provider *e2b_provider_find(const char *name)
{
    for (size_t i = 0; name && table[i]; i++)
        if (strcasecmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

int e2b_secret_name_valid(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 128 || strncasecmp(name, "sec_", 4) == 0)
        return 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p <= ' ' || *p == 0x7f || *p == '{' || *p == '}')
            return 0;
    return 1;
}

json_t *e2b_provider_network(const e2b_secret_list *secrets, e2b_metadata *env)
{
    json_t *rules = json_object();
    for (size_t i = 0; secrets && i < secrets->count; i++) {
        const e2b_provider *p = e2b_provider_find(secrets->items[i].name);
        char value[256];
        if (!p)
            continue;
        snprintf(value, sizeof value, "%s${e2b.secrets.%s}", p->prefix, p->name);
        json_object_set_new(rules, p->host,
                            json_pack("[{s:{s:{s:s}}}]", "transform", "headers", p->header, value));
        if (env)
            e2b_metadata_set(env, p->env_var, E2B_SECRET_PLACEHOLDER);
    }
    if (json_object_size(rules) == 0) {
        json_decref(rules);
        return NULL;
    }
    return json_pack("{s:o}", "rules", rules);
}
