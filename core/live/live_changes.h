/* What the agent changed in a box, for the Changes pane: the files that differ from the
 * box's base (the commit `up` started from, in the box's record and metadata) with their
 * added/removed line counts, untracked files included, and one selected file's diff. Read
 * from the box's own git through envd (core/git/changes_script.h run as a process), so it
 * works while the box's OpenCode server is down.
 *
 * Each read asks E2B for the sandbox first (its state, envd's token), then runs the script;
 * one read at a time, later requests coalesce (the newest selection wins). Everything read
 * is bounded (E2B_CHANGES_* in core/util/limits.h) and sanitised before it is kept. Every
 * change (list, diff, status) is an E2B_LIVE_CHANGES notification. The list is read again when
 * the agent's turn ends and when it finishes a file-writing tool call (edit, write, patch,
 * bash: at most one read per 2 s). No timer runs and
 * nothing is asked while nobody calls refresh or select.
 *
 *   struct live_changes *c = e2b_live_changes_open(m, id); // reads the list at once; NULL: no memory
 *   ... draw e2b_live_changes_list(c), e2b_live_changes_diff(c), e2b_live_changes_status(c, &err) ...
 *   e2b_live_changes_select(c, file->raw);                 // that file's diff
 *   e2b_live_changes_refresh(c);                           // the list again (and the diff)
 *   e2b_live_changes_close(c); // cancels; the memory goes when the last callback ran
 *
 * Threads: the loop thread only. Strings and lists are owned by c, valid until the next
 * E2B_LIVE_CHANGES notification. */
#ifndef E2B_LIVE_CHANGES_H
#define E2B_LIVE_CHANGES_H

#include <stdbool.h>

#include "core/git/changes_script.h"
#include "core/live/live.h"
#include "core/live/live_lines.h"

struct live_changes;

struct live_changes *e2b_live_changes_open(e2b_live *m, const char *sandbox_id);
void e2b_live_changes_close(struct live_changes *c);

/* Reads the list again, then the selected file's diff (a read on its way is redone once it
 * ends). */
void e2b_live_changes_refresh(struct live_changes *c);
/* Shows the diff of the file whose raw path (e2b_changes_file.raw) is given; "" clears it. */
void e2b_live_changes_select(struct live_changes *c, const char *raw_path);

/* The last list read (empty until the first arrived); listed says whether one has. */
const e2b_changes_list *e2b_live_changes_list(const struct live_changes *c, bool *listed);
/* The selected file's diff lines (sanitised, tabs expanded) and its raw path ("" = none);
 * diff_ready is false while it is on its way. */
struct e2b_live_lines *e2b_live_changes_diff(struct live_changes *c);
const char *e2b_live_changes_diff_path(const struct live_changes *c, bool *diff_ready);
/* What the reader is doing, one line; *error is true when it is a problem. */
const char *e2b_live_changes_status(const struct live_changes *c, bool *error);
/* A read is on its way. */
bool e2b_live_changes_busy(const struct live_changes *c);

#endif
