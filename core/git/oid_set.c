/* Open addressing with linear probing over the ids' first bytes (oid_set.h). */
#include "core/git/oid_set.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t home(const git_oid *id, size_t cap)
{
    uint64_t h;
    memcpy(&h, id->id, sizeof h); /* an object id is a hash already */
    return (size_t)(h & (cap - 1));
}

static size_t find(const oid_set *s, const git_oid *id)
{
    size_t i = home(id, s->cap);
    while (s->state[i] && git_oid_cmp(&s->ids[i], id) != 0)
        i = (i + 1) & (s->cap - 1);
    return i;
}

static int grow(oid_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 1024;
    oid_set n = {calloc(cap, sizeof *n.ids), calloc(cap, 1), cap, 0};
    if (!n.ids || !n.state) {
        free(n.ids);
        free(n.state);
        return -1;
    }
    for (size_t i = 0; i < s->cap; i++)
        if (s->state[i]) {
            size_t j = find(&n, &s->ids[i]);
            n.ids[j] = s->ids[i];
            n.state[j] = s->state[i];
            n.count++;
        }
    oid_set_free(s);
    *s = n;
    return 0;
}

int oid_set_add(oid_set *s, const git_oid *id)
{
    if ((s->count + 1) * 2 > s->cap && grow(s) != 0)
        return -1;
    size_t i = find(s, id);
    if (s->state[i])
        return 0;
    git_oid_cpy(&s->ids[i], id);
    s->state[i] = 1;
    s->count++;
    return 1;
}

int oid_set_get(const oid_set *s, const git_oid *id)
{
    return s->cap ? s->state[find(s, id)] : 0;
}

int oid_set_mark(oid_set *s, const git_oid *id)
{
    if (!s->cap)
        return 0;
    size_t i = find(s, id);
    int was = s->state[i];
    if (was)
        s->state[i] = 2;
    return was;
}

const git_oid *oid_set_slot(const oid_set *s, size_t i, int *marked)
{
    *marked = s->state[i] == 2;
    return s->state[i] ? &s->ids[i] : NULL;
}

void oid_set_free(oid_set *s)
{
    free(s->ids);
    free(s->state);
    memset(s, 0, sizeof *s);
}
