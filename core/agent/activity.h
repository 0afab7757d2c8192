/* Private to core/agent: a box's recent activity in storage allocated once. The status's
 * E2B_AGENT_ACTIVITY_MAX entry slots and one text block of E2B_AGENT_ACTIVITY_TEXT_CAP bytes
 * are allocated at its first entry and kept until e2b_agent_status_clear; every entry's text
 * is a NUL-ended view into the block (in entry order), so the chunks of a streamed turn
 * reuse the same bytes instead of allocating a string each (issue 32: a dashboard left open
 * for weeks keeps a flat RSS). Single-threaded, like the watch. */
#ifndef E2B_AGENT_ACTIVITY_H
#define E2B_AGENT_ACTIVITY_H

#include "core/agent/agent.h"

#include <stdbool.h>

/* The entry of kind and key (the newest such), else a new one (the oldest dropped when the
 * slots are full). NULL only when out of memory. Borrowed: valid until the next call here. */
e2b_agent_activity *e2b_activity_get(e2b_agent_status *st, e2b_agent_activity_kind kind,
                                     const char *sid, const char *key);

/* Appends text to a's (whole: replaces it), sanitised (newlines kept), keeping its last
 * E2B_AGENT_TAIL_MAX bytes; older entries are dropped when the block is full. */
void e2b_activity_text(e2b_agent_status *st, e2b_agent_activity *a, const char *text, bool whole);

/* Drops the oldest entries while their text is over E2B_AGENT_ACTIVITY_BYTES (one stays). */
void e2b_activity_bound(e2b_agent_status *st);

/* dst's activity: a deep copy of src's (dst's fields are overwritten). Returns 0, or -1 when
 * out of memory (dst then has none). */
int e2b_activity_copy(e2b_agent_status *dst, const e2b_agent_status *src);

/* Frees the entries and the block. */
void e2b_activity_free(e2b_agent_status *st);

#endif
