/* A box's egress (see box_egress.h). */
#include "core/box/box_egress.h"
#include "core/box/secrets_providers.h"
#include "core/e2b/egress_list.h"
#include "core/util/sanitize.h"

#include <stdlib.h>
#include <string.h>

#define ALL_TRAFFIC "0.0.0.0/0"

static bool has_entry(const json_t *list, const char *entry)
{
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v) {
        if (json_string_value(v) && strcmp(json_string_value(v), entry) == 0)
            return true;
    }
    return false;
}

json_t *e2b_box_egress_network(const e2b_box_egress *eg, const e2b_secret_list *secrets,
                               e2b_metadata *env, int *internet)
{
    json_t *net = e2b_provider_network(secrets, env);
    json_t *allow = e2b_egress_list_json(eg ? eg->allow_out : NULL);
    json_t *deny = e2b_egress_list_json(eg ? eg->deny_out : NULL);
    bool off = eg && !eg->allow_internet;
    *internet = off ? 0 : -1;
    /* An allow list means only these; no internet with a provider's rule means only its
     * host. E2B takes a domain in allowOut only with ALL_TRAFFIC in denyOut
     * (allow_internet_access false does not count), so both put ALL_TRAFFIC there. */
    if (json_array_size(allow) || (off && json_object_size(json_object_get(net, "rules"))))
        e2b_egress_list_add(deny, ALL_TRAFFIC);
    /* The providers' hosts are allowed when all else is blocked. A deny list of some
     * addresses alone leaves them reachable (E2B denies by address, never by name) and
     * must not name them (a domain in allowOut would be refused without ALL_TRAFFIC). */
    if (has_entry(deny, ALL_TRAFFIC)) {
        const char *host;
        json_t *v;
        json_object_foreach(json_object_get(net, "rules"), host, v) e2b_egress_list_add(allow, host);
    }
    if (json_array_size(allow) || json_array_size(deny)) {
        if (!net)
            net = json_object();
        if (json_array_size(allow))
            json_object_set(net, "allowOut", allow);
        if (json_array_size(deny))
            json_object_set(net, "denyOut", deny);
    }
    json_decref(allow);
    json_decref(deny);
    return net;
}

/* Appends to secrets each ${e2b.secrets.NAME} of value, mapped to host. */
static void add_placeholders(json_t *secrets, const char *host, const char *value)
{
    static const char pre[] = "${e2b.secrets.";
    for (const char *p = value ? strstr(value, pre) : NULL; p; p = strstr(p + 1, pre)) {
        const char *name = p + sizeof pre - 1, *end = strchr(name, '}');
        if (!end || end == name || end - name > 128)
            continue;
        json_array_append_new(secrets, json_pack("{s:s%, s:s}", "name", name, (size_t)(end - name),
                                                 "host", host));
    }
}

json_t *e2b_box_egress_summary(const json_t *network, int internet)
{
    json_t *allow = json_array(), *deny = json_array(), *secrets = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(network, "allowOut"), i, v) {
        if (json_is_string(v))
            json_array_append(allow, v);
    }
    json_array_foreach(json_object_get(network, "denyOut"), i, v) {
        if (json_is_string(v))
            json_array_append(deny, v);
    }
    const char *host;
    json_t *set;
    json_object_foreach(json_object_get(network, "rules"), host, set) {
        json_t *rule;
        json_array_foreach(set, i, rule) {
            const char *name;
            json_t *val;
            json_object_foreach(json_object_get(json_object_get(rule, "transform"), "headers"), name, val)
                add_placeholders(secrets, host, json_string_value(val));
        }
    }
    return json_pack("{s:b, s:o, s:o, s:o}", "internet", internet != 0, "allow_out", allow,
                     "deny_out", deny, "secrets", secrets);
}

/* A list's entries joined by ", " (a new string), or none when empty. */
static char *joined(const json_t *list, const char *none)
{
    size_t n = 1, i;
    json_t *v;
    json_array_foreach(list, i, v) n += strlen(json_string_value(v) ? json_string_value(v) : "") + 2;
    char *out = malloc(n > strlen(none) ? n : strlen(none) + 1);
    if (!out)
        return NULL;
    out[0] = '\0';
    json_array_foreach(list, i, v) {
        if (i)
            strcat(out, ", ");
        strcat(out, json_string_value(v) ? json_string_value(v) : "");
    }
    if (!json_array_size(list))
        strcpy(out, none);
    return out;
}

void e2b_box_egress_describe(const char *summary_json, e2b_box_egress_line_fn fn, void *ud)
{
    json_t *s = summary_json ? json_loads(summary_json, 0, NULL) : NULL;
    if (!json_is_object(s)) {
        json_decref(s);
        return;
    }
    bool off = json_is_false(json_object_get(s, "internet"));
    fn(ud, "Internet", off ? "off (only what is allowed)" : "on");
    char *a = joined(json_object_get(s, "allow_out"), off ? "(none)" : "(none: all that is not denied)");
    char *d = joined(json_object_get(s, "deny_out"), "(none)");
    fn(ud, "Allow out", a ? a : "?");
    fn(ud, "Deny out", d ? d : "?");
    free(a);
    free(d);
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(s, "secrets"), i, v) {
        char line[400];
        snprintf(line, sizeof line, "%.128s -> %.253s", json_string_value(json_object_get(v, "name")) ? json_string_value(json_object_get(v, "name")) : "?",
                 json_string_value(json_object_get(v, "host")) ? json_string_value(json_object_get(v, "host")) : "?");
        fn(ud, "Secret", line);
    }
    json_decref(s);
}

struct print_ctx {
    const char *indent;
    FILE *out;
};

static void print_line(void *ud, const char *label, const char *value)
{
    struct print_ctx *p = ud;
    char *c = e2b_sanitize_display(value, strlen(value), 0); /* a record may be edited */
    fprintf(p->out, "%s%s: %s\n", p->indent, label, c ? c : "?");
    free(c);
}

void e2b_box_egress_print(const char *summary_json, const char *indent, FILE *out)
{
    struct print_ctx p = {indent, out};
    e2b_box_egress_describe(summary_json, print_line, &p);
}
