/* oid_set: a set of object ids (open addressing), each with a mark, for the up's reachable
 * set: bounded by the objects a repository has, 21 bytes a slot, at most half full.
 * Zero-initialise an oid_set; oid_set_free releases it. Not thread-safe. */
#ifndef E2B_OID_SET_H
#define E2B_OID_SET_H

#include <git2/oid.h>
#include <stddef.h>

typedef struct {
    git_oid *ids;
    unsigned char *state; /* 0 empty, 1 in the set, 2 in the set and marked */
    size_t cap, count;
} oid_set;

/* 1 when id was added, 0 when it was there already, -1 out of memory. */
int oid_set_add(oid_set *s, const git_oid *id);
/* 0 absent, 1 present, 2 present and marked. */
int oid_set_get(const oid_set *s, const git_oid *id);
/* Marks id when present; returns what oid_set_get returned before. */
int oid_set_mark(oid_set *s, const git_oid *id);
/* Slot i (0 <= i < cap): its id, or NULL when empty; *marked says whether it is marked. */
const git_oid *oid_set_slot(const oid_set *s, size_t i, int *marked);
void oid_set_free(oid_set *s);

#endif
