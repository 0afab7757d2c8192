/* Pure helpers on the model's lists: the metrics in id order and their lookup, a sandbox by
 * id, its display name, and the words for what changed between two lists. */
#include "core/live/live_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *e2b_live_sandbox_name(const e2b_sandbox *sb)
{
    const char *n = sb->kind == E2B_KIND_BOX ? sb->box_name : NULL;
    if (!n || !*n)
        n = e2b_metadata_get(&sb->metadata, "name");
    /* Not the template: many sandboxes share one, and the id is what users copy. */
    return n && *n ? n : sb->sandbox_id;
}

/* Orders metrics by sandbox id (NULL ids last), the newest sample of a sandbox first. */
static int cmp_metric(const void *a, const void *b)
{
    const e2b_metric *x = a, *y = b;
    if (!x->sandbox_id || !y->sandbox_id)
        return (x->sandbox_id == NULL) - (y->sandbox_id == NULL);
    int c = strcmp(x->sandbox_id, y->sandbox_id);
    if (c == 0)
        c = (y->timestamp > x->timestamp) - (y->timestamp < x->timestamp);
    return c;
}

void live_metrics_sort(e2b_metric_list *m)
{
    if (m->count > 1)
        qsort(m->items, m->count, sizeof *m->items, cmp_metric);
}

const e2b_metric *e2b_live_metric_find(const e2b_metric_list *m, const char *id)
{
    /* Binary search over live_metrics_sort's order; the first of equal ids is the newest. */
    size_t lo = 0, hi = m->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *mid_id = m->items[mid].sandbox_id;
        if (mid_id && strcmp(mid_id, id) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < m->count && m->items[lo].sandbox_id && strcmp(m->items[lo].sandbox_id, id) == 0)
        return &m->items[lo];
    return NULL;
}

const e2b_sandbox *live_sandbox_find(const e2b_sandbox_list *l, const char *id)
{
    for (size_t i = 0; i < l->count; i++) {
        if (strcmp(l->items[i].sandbox_id, id) == 0)
            return &l->items[i];
    }
    return NULL;
}

static int cmp_sandbox_id(const void *a, const void *b)
{
    const e2b_sandbox *const *x = a, *const *y = b;
    return strcmp((*x)->sandbox_id, (*y)->sandbox_id);
}

int live_changes_text(const e2b_sandbox_list *old, const e2b_sandbox_list *nw, char *buf,
                      size_t bufsz)
{
    if (bufsz)
        buf[0] = '\0';
    if (!old->count)
        return 0;
    const e2b_sandbox **idx = malloc(old->count * sizeof *idx);
    bool *seen = calloc(old->count, sizeof *seen);
    if (!idx || !seen) {
        free(idx);
        free(seen);
        return 0;
    }
    for (size_t i = 0; i < old->count; i++)
        idx[i] = &old->items[i];
    qsort(idx, old->count, sizeof *idx, cmp_sandbox_id);
    int changes = 0;
    char first[300] = "";
    for (size_t i = 0; i < nw->count; i++) {
        const e2b_sandbox *key = &nw->items[i];
        const e2b_sandbox **hit = bsearch(&key, idx, old->count, sizeof *idx, cmp_sandbox_id);
        if (!hit)
            continue;
        seen[hit - idx] = true;
        if ((*hit)->state != key->state && !changes++)
            snprintf(first, sizeof first, "%s: %s -> %s", e2b_live_sandbox_name(key),
                     e2b_sandbox_state_name((*hit)->state), e2b_sandbox_state_name(key->state));
    }
    for (size_t i = 0; i < old->count; i++) {
        if (!seen[i] && !changes++)
            snprintf(first, sizeof first, "%s: gone", e2b_live_sandbox_name(idx[i]));
    }
    free(idx);
    free(seen);
    if (changes == 1)
        snprintf(buf, bufsz, "%s", first);
    else if (changes > 1)
        snprintf(buf, bufsz, "%s (and %d more changes)", first, changes - 1);
    return changes;
}
