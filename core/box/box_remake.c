/* How a box whose sandbox E2B no longer has is made again (box.h e2b_box_remake_hint): never
 * silently, the command is said. */
#include "core/box/box.h"
#include "core/box/snap_records.h"
#include "core/util/str.h"

#include <string.h>

char *e2b_box_remake_hint(const char *state_dir, const char *name, const char *dir)
{
    e2b_snap_record_list l;
    const e2b_snap_record *last = NULL;
    e2b_error *err = e2b_snap_record_list_read(state_dir, &l); /* none: from the project */
    e2b_error_free(err);
    for (size_t i = 0; i < l.count; i++)
        if (strcmp(l.items[i].box, name) == 0 && (!last || l.items[i].created_at > last->created_at))
            last = &l.items[i];
    char *hint = last ? e2b_strfmt("e2b-tui --kill %s --force (its record), then e2b-tui --up %s "
                                   "--from %s --dir %s makes it again from its last snapshot (or "
                                   "without --from from its project)",
                                   name, name, last->name, dir && *dir ? dir : ".")
                      : e2b_strfmt("e2b-tui --kill %s --force (its record), then e2b-tui --up %s "
                                   "--dir %s makes it again from its project",
                                   name, name, dir && *dir ? dir : ".");
    e2b_snap_record_list_clear(&l);
    return hint;
}
