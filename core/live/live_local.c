/* Which sandboxes are this machine's boxes: a box whose local record names that very
 * sandbox (the model's records, live_records.c). Everything else (team sandboxes,
 * workspaces, boxes made on another machine or whose record points elsewhere) is someone
 * else's, and the dashboard asks before it stops, extends or kills one. */
#include "core/live/live_internal.h"

#include <stdio.h>
#include <string.h>

bool e2b_live_box_where(const e2b_live *m, const char *sandbox_id, char *dir, size_t dirsz,
                        char **url)
{
    *url = NULL;
    const e2b_box_record *r = e2b_live_record(m, sandbox_id);
    if (!r)
        return false;
    const e2b_sandbox *sb = live_sandbox_find(&m->sandboxes, sandbox_id);
    snprintf(dir, dirsz, "%s", r->dir ? r->dir : "");
    *url = e2b_config_port_url(&m->cfg, r->port ? r->port : E2B_BOX_PORT, sandbox_id,
                               sb ? sb->domain : NULL);
    return true;
}

bool e2b_live_is_local_box(const e2b_live *m, const char *sandbox_id)
{
    return e2b_live_record(m, sandbox_id) != NULL;
}

bool e2b_live_is_box(const e2b_live *m, const char *sandbox_id)
{
    const e2b_sandbox *sb = live_sandbox_find(&m->sandboxes, sandbox_id);
    return sb && sb->kind == E2B_KIND_BOX && sb->box_name && *sb->box_name;
}

const e2b_sandbox *e2b_live_lookup(const e2b_live *m, const char *arg, e2b_error **err)
{
    *err = NULL;
    const e2b_sandbox *sb = live_sandbox_find(&m->sandboxes, arg);
    if (sb)
        return sb;
    e2b_box_match bm;
    e2b_box_lookup(&m->records, &m->sandboxes, arg, &bm);
    if (bm.count == 1 && bm.sandbox)
        return bm.sandbox;
    if (bm.count > 1) {
        *err = e2b_box_match_error(&bm, arg);
        return NULL;
    }
    /* Not a box: a sandbox by the name shown (its metadata "name"), when only one has it. */
    const e2b_sandbox *found = NULL;
    size_t n = 0;
    char ids[600] = "";
    for (size_t i = 0; i < m->sandboxes.count; i++) {
        const e2b_sandbox *s = &m->sandboxes.items[i];
        if (s->kind == E2B_KIND_BOX || strcmp(e2b_live_sandbox_name(s), arg) != 0)
            continue;
        size_t used = strlen(ids);
        snprintf(ids + used, sizeof ids - used, "%s%s", n ? ", " : "", s->sandbox_id);
        found = s;
        n++;
    }
    if (n == 1)
        return found;
    if (n > 1)
        *err = e2b_error_new(E2B_ERR_CONFLICT,
                             "%zu sandboxes are called %s (%s): name one by its id", n, arg, ids);
    else if (bm.count == 1)
        *err = e2b_error_new(E2B_ERR_NOT_FOUND, "box %s: its sandbox %s is gone", arg,
                             bm.record->sandbox_id);
    else
        *err = e2b_error_new(E2B_ERR_NOT_FOUND, "no box or sandbox named %s", arg);
    return NULL;
}
