/* The merged listing as JSON (what `--list --json` prints). In core because only core/ uses
 * jansson; the CLI calls e2b_box_listing_print_json and knows no JSON library. */
#include "core/box/box.h"
#include "core/util/json_style.h"

#include <jansson.h>
#include <stdlib.h>

const char *e2b_box_list_state_name(e2b_box_list_state s)
{
    return s == E2B_BOX_RUNNING ? "running" : s == E2B_BOX_PAUSED ? "paused" : "gone";
}

static void put_time(json_t *o, const char *key, time_t t)
{
    char buf[32];
    if (!t) {
        json_object_set_new(o, key, json_null());
        return;
    }
    e2b_format_rfc3339(t, buf, sizeof buf);
    json_object_set_new(o, key, json_string(buf));
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *entry_json(const e2b_box_entry *e)
{
    json_t *o = json_object();
    const e2b_sandbox *sb = e->sandbox;
    if (e->kind == E2B_KIND_BOX)
        json_object_set_new(o, "name", str_or_null(e->name));
    json_object_set_new(o, "sandbox_id",
                        str_or_null(sb ? sb->sandbox_id : e->record ? e->record->sandbox_id : NULL));
    json_object_set_new(o, "state", json_string(e2b_box_list_state_name(e->state)));
    json_object_set_new(o, "template",
                        str_or_null(sb ? (sb->alias ? sb->alias : sb->template_id) : NULL));
    put_time(o, "started_at", sb ? sb->started_at : 0);
    put_time(o, "end_at", sb ? sb->end_at : 0);
    if (e->kind == E2B_KIND_BOX) {
        const char *branch = e->record ? e->record->branch : sb ? sb->box_branch : NULL;
        json_object_set_new(o, "branch", str_or_null(branch));
        json_object_set_new(o, "dir", str_or_null(e->record ? e->record->dir : NULL));
        json_object_set_new(o, "local", json_boolean(e->record != NULL));
        /* a member of a group of attempts (--try): its group's name, else null */
        json_object_set_new(o, "group",
                            str_or_null(e->record && e->record->group[0] ? e->record->group : NULL));
        /* what it may reach (core/box/box_egress.h), as up or --network last set it */
        json_t *eg = e->record && e->record->egress ? json_loads(e->record->egress, 0, NULL) : NULL;
        json_object_set_new(o, "egress", json_is_object(eg) ? json_incref(eg) : json_null());
        json_decref(eg);
    } else {
        json_object_set_new(o, "metadata", sb ? e2b_metadata_to_json(&sb->metadata) : json_object());
    }
    return o;
}

/* One entry at a time (the same text as one json_dumps of the whole document in the one
 * style, core/util/json_style.h): 2,000 sandboxes as one jansson tree plus its text would
 * cost several MB for nothing. */
void e2b_box_listing_print_json(const e2b_box_listing *l, bool pretty, FILE *out)
{
    static const char *const keys[] = {"boxes", "workspaces", "sandboxes"};
    /* what json_dumps puts between the parts, pretty or compact */
    const char *nl = pretty ? "\n  " : "", *colon = pretty ? ": " : ":";
    const char *item = pretty ? "\n    " : "", *close = pretty ? "\n  ]" : "]";
    fprintf(out, "{%s\"version\"%s1", nl, colon);
    for (int k = 0; k < 3; k++) {
        int n = 0;
        fprintf(out, ",%s\"%s\"%s[", nl, keys[k], colon);
        for (size_t i = 0; i < l->count; i++) {
            const e2b_box_entry *e = &l->items[i];
            int ek = e->kind == E2B_KIND_BOX ? 0 : e->kind == E2B_KIND_WORKSPACE ? 1 : 2;
            if (ek != k)
                continue;
            json_t *o = entry_json(e);
            char *text = o ? json_dumps(o, e2b_json_style(pretty)) : NULL;
            json_decref(o);
            if (!text)
                continue;
            fprintf(out, "%s%s", n++ ? "," : "", item);
            for (const char *p = text; *p; p++) { /* nested two levels deeper */
                fputc(*p, out);
                if (*p == '\n')
                    fputs("    ", out);
            }
            free(text);
        }
        fputs(n ? close : "]", out);
    }
    fputs(pretty ? "\n}\n" : "}\n", out);
}
