/* The kill question's look for unpulled work (core/box/box.h: e2b_box_unpulled) of one box
 * shown as sandbox_id: opened when the question opens, its answer an E2B_LIVE_UNPULLED
 * change, closed with the question. Nothing is asked of a paused box (the answer says
 * "unknown"); the look is bounded by its own deadline.
 *
 *   struct live_unpulled *u = e2b_live_unpulled_open(m, id); // starts at once; NULL: no memory
 *   ... on E2B_LIVE_UNPULLED: e2b_live_unpulled_text(u, &state) ...
 *   e2b_live_unpulled_close(u); // cancels a look on its way
 *
 * Threads: the loop thread only. The model closes what is still open when it is freed. */
#ifndef E2B_LIVE_UNPULLED_H
#define E2B_LIVE_UNPULLED_H

#include "core/live/live.h"

struct live_unpulled;

struct live_unpulled *e2b_live_unpulled_open(e2b_live *m, const char *sandbox_id);
void e2b_live_unpulled_close(struct live_unpulled *u);

/* The answer so far, one line for the question (sanitised, owned by u): "checking for
 * unpulled work..." while the look is on its way. *state (may be NULL) is its state, and
 * UNKNOWN while on its way; *done says whether it has ended. */
const char *e2b_live_unpulled_text(const struct live_unpulled *u, e2b_unpulled_state *state,
                               bool *done);

#endif
