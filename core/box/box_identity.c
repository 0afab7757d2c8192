/* Box identity, the one rule every client follows: a sandbox that one of this machine's
 * records names by its id is that record's box (a fork carries its parent's name in its
 * metadata, E2B copies it; its record says NAME-N); any other box sandbox is the box its
 * metadata names (a box of another machine). A name that more than one sandbox answers to
 * is a conflict, never a pick. */
#include "core/box/box.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *e2b_box_name_of(const e2b_box_record_list *records, const e2b_sandbox *sb)
{
    const e2b_box_record *r = e2b_box_record_list_find_sandbox(records, sb->sandbox_id);
    if (r)
        return r->name;
    if (sb->kind != E2B_KIND_BOX)
        return NULL;
    const char *n = e2b_metadata_get(&sb->metadata, E2B_META_NAME);
    return n && *n ? n : NULL;
}

int e2b_box_identify(const e2b_box_record_list *records, e2b_sandbox_list *list,
                     const char *workspace_keys)
{
    for (size_t i = 0; i < list->count; i++) {
        e2b_sandbox *sb = &list->items[i];
        const e2b_box_record *r = e2b_box_record_list_find_sandbox(records, sb->sandbox_id);
        if (r) {
            sb->kind = E2B_KIND_BOX;
            if (sb->box_name && strcmp(sb->box_name, r->name) == 0)
                continue;
            char *n = strdup(r->name);
            if (!n)
                return -1;
            free(sb->box_name);
            sb->box_name = n;
            continue;
        }
        /* Named by a record once and no more: back to what its metadata says. */
        const char *meta = sb->kind == E2B_KIND_BOX ? e2b_metadata_get(&sb->metadata, E2B_META_NAME) : NULL;
        if (sb->kind == E2B_KIND_BOX && (!meta != !sb->box_name ||
                                         (meta && strcmp(meta, sb->box_name) != 0)))
            if (e2b_sandbox_classify(sb, workspace_keys) < 0)
                return -1;
    }
    return 0;
}

static void add_id(e2b_box_match *out, const char *id)
{
    size_t used = strlen(out->ids);
    if (used < sizeof out->ids - 1)
        snprintf(out->ids + used, sizeof out->ids - used, "%s%s", out->count ? ", " : "", id);
    out->count++;
}

void e2b_box_lookup(const e2b_box_record_list *records, const e2b_sandbox_list *list,
                    const char *name, e2b_box_match *out)
{
    memset(out, 0, sizeof *out);
    const e2b_box_record *r = e2b_box_record_list_find(records, name);
    if (r) {
        out->record = r;
        add_id(out, r->sandbox_id);
        for (size_t i = 0; list && i < list->count; i++)
            if (strcmp(list->items[i].sandbox_id, r->sandbox_id) == 0)
                out->sandbox = &list->items[i];
        if (out->sandbox || !list)
            return; /* this machine's box of that name: the metadata is only a fallback */
    }
    /* No record, or its sandbox is gone: the boxes of other machines by their metadata. */
    for (size_t i = 0; list && i < list->count; i++) {
        const e2b_sandbox *sb = &list->items[i];
        if (r && strcmp(sb->sandbox_id, r->sandbox_id) == 0)
            continue;
        const char *n = e2b_box_name_of(records, sb);
        if (!n || strcmp(n, name) != 0)
            continue;
        if (!out->count)
            out->sandbox = sb;
        add_id(out, sb->sandbox_id);
    }
}

e2b_error *e2b_box_match_error(const e2b_box_match *m, const char *name)
{
    if (m->count == 0)
        return e2b_error_new(E2B_ERR_NOT_FOUND, "no box named %s", name);
    if (m->count > 1)
        return e2b_error_new(E2B_ERR_CONFLICT,
                             "%zu sandboxes are box %s (%s): nothing was done; name one by "
                             "its sandbox id",
                             m->count, name, m->ids);
    return NULL;
}
