/* The archives of an up (box_internal.h box_up_source, box_up_prepare): from a snapshot of
 * this project only what differs from the snapshot's commit, else everything with a note
 * saying why. */
#include "core/box/box_internal.h"
#include "core/box/snap_records.h"
#include "core/git/delta.h"
#include "core/util/str.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

e2b_error *box_up_source(const char *state_dir, const char *from, e2b_snap_record *r, up_source *src)
{
    memset(src, 0, sizeof *src);
    if (!from)
        return NULL;
    e2b_error *err = e2b_snap_record_read(state_dir, from, r);
    if (err)
        return err;
    if (!(src->snapshot_id = strdup(r->snapshot_id)))
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    return NULL;
}

e2b_error *box_up_prepare(e2b_gitwork *g, const e2b_snap_record *r, const char *from, int gzip_level,
                          unsigned flags, const atomic_int *cancel, e2b_upload_set *set, up_source *src)
{
    if (src->snapshot_id) {
        if (strcmp(r->dir, e2b_gitwork_workdir(g)) != 0) {
            src->note = e2b_strfmt("snapshot %s holds the project %s, not this one: sent everything",
                                   from, r->dir);
        } else {
            e2b_delta_info info;
            e2b_error *err = e2b_delta_prepare(g, r->commit, gzip_level, flags, cancel, set, &info);
            if (!err) {
                src->delta = 1;
                snprintf(src->delta_base, sizeof src->delta_base, "%s", r->commit);
                char what[120];
                if (r->setup_key) {
                    char ago[40];
                    box_up_prepared_age(r->created_at, time(NULL), ago, sizeof ago);
                    snprintf(what, sizeof what, "the prepared snapshot (set up %s)", ago);
                } else {
                    snprintf(what, sizeof what, "snapshot %s", from);
                }
                src->note = e2b_strfmt("from %s: sent only what differs from its commit %.12s "
                                       "(%llu files changed, %llu deleted, %llu git objects)",
                                       what, r->commit, (unsigned long long)info.changed,
                                       (unsigned long long)info.deleted, (unsigned long long)info.objects);
                return NULL;
            }
            if (e2b_error_sub_of(err) != E2B_SUB_MISSING_BASE)
                return err;
            e2b_error_free(err);
            src->clean_first = 1;
            src->note = e2b_strfmt("snapshot %s's commit %.12s is not in this repository: sent everything",
                                   from, r->commit);
        }
    }
    return e2b_upload_prepare(g, gzip_level, flags, cancel, set);
}

e2b_error *box_up_snapshot_gone(const e2b_box_op *op, const e2b_error *err)
{
    if (!op->snap_as || !err || err->kind != E2B_ERR_NOT_FOUND)
        return NULL;
    return e2b_error_new(E2B_ERR_NOT_FOUND,
                         "snapshot %s is gone on E2B (deleted, or it expired): e2b-tui --snapshots "
                         "--delete %s removes its record; --up without --from uploads everything",
                         op->snap_as, op->snap_as);
}
