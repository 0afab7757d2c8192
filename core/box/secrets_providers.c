/* The provider table and the egress rules built from it (see secrets_providers.h). */
#include "core/box/secrets_providers.h"
#include "core/util/json_style.h"

#include <stdio.h>
#include <stdlib.h>
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

const char *e2b_secret_host(const char *name)
{
    const e2b_provider *p = e2b_provider_find(name);
    return p ? p->host : "(no rule)";
}

void e2b_secret_time_text(time_t t, char *buf, size_t bufsz)
{
    struct tm tm;
    if (!t || !localtime_r(&t, &tm) || strftime(buf, bufsz, "%Y-%m-%d %H:%M", &tm) == 0)
        snprintf(buf, bufsz, "-");
}

static json_t *time_or_null(time_t t)
{
    char buf[32];
    if (!t)
        return json_null();
    e2b_format_rfc3339(t, buf, sizeof buf);
    return json_string(buf);
}

void e2b_secrets_print_json(const e2b_secret_list *l, bool pretty, FILE *out)
{
    json_t *arr = json_array();
    for (size_t i = 0; l && i < l->count; i++) {
        const e2b_secret *s = &l->items[i];
        const e2b_provider *p = e2b_provider_find(s->name);
        json_t *hosts = json_array();
        if (p)
            json_array_append_new(hosts, json_string(p->host));
        json_array_append_new(arr, json_pack("{s:s, s:o, s:I, s:o, s:o}", "name", s->name,
                                             "hosts", hosts, "version",
                                             (json_int_t)s->current_version, "created_at",
                                             time_or_null(s->created_at), "updated_at",
                                             time_or_null(s->updated_at)));
    }
    json_t *doc = json_pack("{s:i, s:o}", "version", 1, "secrets", arr);
    char *text = doc ? json_dumps(doc, e2b_json_style(pretty)) : NULL;
    if (text)
        fprintf(out, "%s\n", text);
    free(text);
    json_decref(doc);
}
