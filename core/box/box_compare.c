/* --compare --json's document (core/box/box_compare.h). */
#include "core/box/box_compare.h"
#include "core/util/json_style.h"

#include <jansson.h>
#include <stdlib.h>

static json_t *jstr(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *row_json(const e2b_box_compare_row *r)
{
    json_t *o = json_object();
    const e2b_evidence *ev = r->evidence;
    json_object_set_new(o, "name", jstr(r->name));
    json_object_set_new(o, "sandbox_id", jstr(r->sandbox_id));
    json_object_set_new(o, "state", jstr(r->state));
    json_object_set_new(o, "last_end", jstr(r->last_end));
    json_object_set_new(o, "model", jstr(r->model));
    json_object_set_new(o, "turn_seconds", r->turn_s >= 0 ? json_integer(r->turn_s) : json_null());
    json_object_set_new(o, "diff", ev && ev->diff_known
                                       ? json_pack("{s:I,s:I,s:I}", "files", (json_int_t)ev->files,
                                                   "added", (json_int_t)ev->added, "deleted",
                                                   (json_int_t)ev->deleted)
                                       : json_null());
    const char *result = !ev                         ? "pending"
                         : ev->test == E2B_TEST_PASS ? "pass"
                         : ev->test == E2B_TEST_FAIL ? "fail"
                         : ev->test == E2B_TEST_ERROR ? "error"
                                                      : "not run";
    json_t *t = json_pack("{s:s}", "result", result);
    if (t && ev && ev->exit_code >= 0) {
        json_object_set_new(t, "exit_code", json_integer(ev->exit_code));
        json_object_set_new(t, "duration_ms", json_integer(ev->test_ms));
        json_object_set_new(t, "tail", json_string(ev->tail));
    }
    if (t && ev && ev->why[0])
        json_object_set_new(t, "why", json_string(ev->why));
    json_object_set_new(o, "test", t ? t : json_null());
    /* tokens and cost: what the agent's server said (null: not known, never 0) */
    json_object_set_new(o, "tokens", r->have_tokens
                                         ? json_pack("{s:I,s:I}", "input",
                                                     (json_int_t)r->tokens_input, "output",
                                                     (json_int_t)r->tokens_output)
                                         : json_null());
    json_object_set_new(o, "cost", r->have_cost ? json_real(r->cost_usd) : json_null());
    json_object_set_new(o, "last_message", jstr(r->last_message));
    return o;
}

char *e2b_box_compare_json(const char *group, const e2b_box_compare_row *rows, size_t n,
                           bool pretty)
{
    json_t *members = json_array();
    for (size_t i = 0; members && i < n; i++)
        json_array_append_new(members, row_json(&rows[i]));
    json_t *root = members ? json_pack("{s:i,s:s,s:o}", "version", 1, "group", group ? group : "",
                                       "members", members)
                           : NULL;
    char *s = root ? json_dumps(root, e2b_json_style(pretty)) : NULL;
    json_decref(root);
    return s;
}
