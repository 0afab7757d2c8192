/* Snapshot records: what a snapshot this machine took holds (README "Using it": --snapshot).
 *
 *   <state_dir>/snapshots/<name>.json   one file per snapshot (directory 0700, files 0600,
 *                                       written atomically)
 *
 * E2B's snapshot list says only the snapshot's id and names; the record adds the box and
 * sandbox it came from, the project directory, the branch and the commit the box's files
 * were at, so that an up from it sends only what differs. No secret is ever in one.
 * A e2b_snap_record owns its strings (e2b_snap_record_clear); a list owns its records. */
#ifndef E2B_SNAP_RECORDS_H
#define E2B_SNAP_RECORDS_H

#include "core/e2b/api_templates.h"
#include "core/util/error.h"

#include <stddef.h>
#include <time.h>

typedef struct e2b_snap_record {
    char *name;        /* the snapshot's local name (a box name's rules), also the file name */
    char *snapshot_id; /* E2B's snapshotID: usable as a template in create */
    char *box;         /* the box it was taken of */
    char *sandbox_id;  /* that box's sandbox */
    char *template_id; /* the template the box was made from */
    char *dir;         /* the project's absolute path (local and in the box) */
    char *branch;      /* the box's branch */
    char *commit;      /* what the box's project files were at (40 hex, "" unknown) */
    int port;
    int opencode;
    time_t created_at;
    /* A prepared snapshot (core/box/prepare.h): the key of what it was set up from (64 hex:
     * the template, the setup and the project's lock files), NULL for one --snapshot took. */
    char *setup_key;
} e2b_snap_record;

typedef struct e2b_snap_record_list {
    e2b_snap_record *items;
    size_t count;
} e2b_snap_record_list;

/* <state_dir>/snapshots (new string). */
char *e2b_snap_records_dir(const char *state_dir);
/* Writes (replaces) r. */
e2b_error *e2b_snap_record_write(const char *state_dir, const e2b_snap_record *r);
/* NOT_FOUND ("no snapshot named X on this machine") when there is none. */
e2b_error *e2b_snap_record_read(const char *state_dir, const char *name, e2b_snap_record *out);
e2b_error *e2b_snap_record_remove(const char *state_dir, const char *name);
/* Whether a snapshot of that name has a record here (one stat). */
int e2b_snap_record_exists(const char *state_dir, const char *name);
/* Every readable record, by name; corrupt files are skipped. A missing dir is empty. */
e2b_error *e2b_snap_record_list_read(const char *state_dir, e2b_snap_record_list *out);
/* The record whose snapshot_id is id (borrowed), or NULL. */
const e2b_snap_record *e2b_snap_record_list_find_id(const e2b_snap_record_list *l, const char *id);
/* The record of the snapshot that is template t (borrowed), or NULL: a record's snapshot_id,
 * without its team namespace ("team/") and its tag (":default"), is t's id or one of its
 * aliases. */
const e2b_snap_record *e2b_snap_record_of_template(const e2b_snap_record_list *l, const e2b_template *t);
/* Whether template t is a snapshot e2b-tui made: it has a record here, or (made on another
 * machine) one of its aliases starts with "e2b-tui-". */
int e2b_snap_template_is_ours(const e2b_snap_record_list *l, const e2b_template *t);

/* Whether s is a setup key: 64 lower-case hex digits. */
int e2b_snap_setup_key_valid(const char *s);
/* Whether r is a prepared record that a newer prepared record of the same project (dir)
 * replaces: the template GC deletes it (the newest of each project stays). */
int e2b_snap_record_superseded(const e2b_snap_record_list *l, const e2b_snap_record *r);
/* The newest prepared record of this key (borrowed), or NULL. */
const e2b_snap_record *e2b_snap_record_list_find_key(const e2b_snap_record_list *l, const char *key);

void e2b_snap_record_clear(e2b_snap_record *r);
void e2b_snap_record_list_clear(e2b_snap_record_list *l);

#endif
