/* How a box whose sandbox E2B no longer has is made again (box.h e2b_box_remake_hint,
 * e2b_box_remake_plan_of): never silently, what it is made from and what is lost is said. */
#include "core/box/box.h"
#include "core/box/box_internal.h"
#include "core/box/snap_records.h"
#include "core/e2b/egress_list.h"
#include "core/util/str.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* The newest snapshot of box name in l, or NULL. */
static const e2b_snap_record *newest_of(const e2b_snap_record_list *l, const char *name)
{
    const e2b_snap_record *last = NULL;
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].box && strcmp(l->items[i].box, name) == 0 &&
            (!last || l->items[i].created_at > last->created_at))
            last = &l->items[i];
    return last;
}

char *e2b_box_remake_hint(const char *state_dir, const char *name, const char *dir)
{
    e2b_snap_record_list l;
    e2b_error *err = e2b_snap_record_list_read(state_dir, &l); /* none: from the project */
    e2b_error_free(err);
    const e2b_snap_record *last = newest_of(&l, name);
    const char *d = dir && *dir ? dir : ".";
    char *hint = last ? e2b_strfmt("e2b-tui --remake %s makes it again from its last snapshot %s; "
                                   "by hand: e2b-tui --kill %s --force (its record), then "
                                   "e2b-tui --up %s --from %s --dir %s makes it again from its "
                                   "last snapshot (or without --from from its project)",
                                   name, last->name, name, name, last->name, d)
                      : e2b_strfmt("e2b-tui --remake %s makes it again from its project; by "
                                   "hand: e2b-tui --kill %s --force (its record), then e2b-tui "
                                   "--up %s --dir %s makes it again from its project",
                                   name, name, name, d);
    e2b_snap_record_list_clear(&l);
    return hint;
}

/* The template under the snapshots: a snapshot's record names the template its box came
 * from, which may be a snapshot again (at most a few levels). */
static void base_of(const e2b_snap_record_list *l, const char *template_id, char *out, size_t n)
{
    snprintf(out, n, "%s", template_id ? template_id : "");
    for (int depth = 0; depth < 8; depth++) {
        const e2b_snap_record *hit = NULL;
        for (size_t i = 0; i < l->count && !hit; i++)
            if (l->items[i].snapshot_id && strcmp(l->items[i].snapshot_id, out) == 0)
                hit = &l->items[i];
        if (!hit || !hit->template_id || !*hit->template_id)
            return;
        snprintf(out, n, "%s", hit->template_id);
    }
}

/* Whether s is the host of one of the summary's secrets (their rules come again). */
static int secret_host(const json_t *secrets, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(secrets, i, v) {
        const char *h = json_string_value(json_object_get(v, "host"));
        if (h && strcmp(h, s) == 0)
            return 1;
    }
    return 0;
}

/* The user's entries of a summary's list (what the egress rules added left out). */
static void user_list(const json_t *list, const json_t *secrets, int deny, char *out, size_t n)
{
    size_t i, used = 0;
    json_t *v;
    out[0] = 0;
    json_array_foreach(list, i, v) {
        const char *s = json_string_value(v);
        if (!s || (deny && strcmp(s, "0.0.0.0/0") == 0) || (!deny && secret_host(secrets, s)))
            continue;
        int w = snprintf(out + used, n - used, "%s%s", used ? ", " : "", s);
        if (w < 0 || (size_t)w >= n - used) { /* too long to keep: none (checked below) */
            out[0] = 0;
            return;
        }
        used += (size_t)w;
    }
}

static void egress_of(const e2b_box_record *rec, e2b_box_remake_plan *out)
{
    out->internet = -1;
    json_t *j = rec->egress ? json_loads(rec->egress, 0, NULL) : NULL;
    if (!json_is_object(j)) {
        json_decref(j);
        return;
    }
    const json_t *secrets = json_object_get(j, "secrets");
    if (json_is_boolean(json_object_get(j, "internet")))
        out->internet = json_is_true(json_object_get(j, "internet"));
    user_list(json_object_get(j, "allow_out"), secrets, 0, out->allow_out, sizeof out->allow_out);
    user_list(json_object_get(j, "deny_out"), secrets, 1, out->deny_out, sizeof out->deny_out);
    char why[200];
    /* a record is a file the user may edit: only checked lists go on */
    if (e2b_egress_list_check(out->allow_out, false, why, sizeof why) != 0)
        out->allow_out[0] = 0;
    if (e2b_egress_list_check(out->deny_out, true, why, sizeof why) != 0)
        out->deny_out[0] = 0;
    json_decref(j);
}

void e2b_box_remake_plan_of(const char *state_dir, const e2b_box_record *rec, time_t now,
                            e2b_box_remake_plan *out)
{
    memset(out, 0, sizeof *out);
    e2b_snap_record_list l;
    e2b_error *err = e2b_snap_record_list_read(state_dir, &l);
    e2b_error_free(err);
    const e2b_snap_record *last = newest_of(&l, rec->name);
    base_of(&l, rec->template_id, out->base_template, sizeof out->base_template);
    if (last) {
        char age[40];
        snprintf(out->snapshot, sizeof out->snapshot, "%s", last->name);
        out->taken_at = last->created_at;
        box_up_prepared_age(last->created_at, now, age, sizeof age);
        snprintf(out->says, sizeof out->says,
                 "box %s's sandbox is gone: remaking it from its snapshot %s (taken %s); what "
                 "the box did after that and was not pulled is lost",
                 rec->name, last->name, age);
    } else {
        snprintf(out->says, sizeof out->says,
                 "box %s's sandbox is gone: remaking it from its project %s%s%s (it has no "
                 "snapshot); everything the box did that was not pulled is lost",
                 rec->name, rec->dir ? rec->dir : "?", rec->branch && *rec->branch ? ", branch " : "",
                 rec->branch && *rec->branch ? rec->branch : "");
    }
    egress_of(rec, out);
    e2b_snap_record_list_clear(&l);
}
