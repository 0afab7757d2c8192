/* A group member's evidence kept on disk (issue "Best of N"): the last test run of each
 * member, in <records_dir>/.evidence/NAME.json (0600, written atomically), so that every
 * client (the dashboard, --keepalive, --wait, --compare) reuses evidence another took, and
 * a member paused or looked at later still shows the result of its turn. The file names
 * the member's sandbox: one of another sandbox (a new box of the same name) is ignored. */
#ifndef E2B_BOX_EVIDENCE_FILE_H
#define E2B_BOX_EVIDENCE_FILE_H

#include "core/box/box.h"

#include <stdint.h>

/* Saves ev (taken at taken_ms, wall clock) for member name of sandbox sandbox_id.
 * Returns NULL or the error (caller frees). */
e2b_error *e2b_box_evidence_save(const char *records_dir, const char *name,
                                 const char *sandbox_id, const e2b_evidence *ev,
                                 int64_t taken_ms);

/* Reads the saved evidence of member name into ev and *taken_ms: 1 when there is one for
 * sandbox_id, 0 when none (or of another sandbox, or unreadable: never an error to the
 * user; the evidence is taken again). The strings are sanitised again on the way in. */
int e2b_box_evidence_load(const char *records_dir, const char *name, const char *sandbox_id,
                          e2b_evidence *ev, int64_t *taken_ms);

/* Removes member name's saved evidence (none is fine). */
void e2b_box_evidence_remove(const char *records_dir, const char *name);

#endif
