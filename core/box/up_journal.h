/* The journal of creates in doubt: <state_dir>/in-doubt/<tag>, one small file per up whose
 * sandbox create has been sent and whose box record is not written yet.
 *
 * An up adds its entry before POST /v2/sandboxes (tag = the create's E2B_META_UP value) and
 * removes it once the record is written or the failure is settled (no sandbox can still
 * appear). The entry is held with an exclusive flock for as long as its up runs, so a crash
 * (SIGKILL between create and record) leaves it unlocked: the next start of e2b-tui claims
 * it and sweeps for a sandbox carrying the tag (core/box/orphans.h). An entry still locked
 * belongs to an up in progress (in this or another process) and is never touched.
 *
 * Files: the directory is 0700, entries 0600, each written atomically (temp file, fsync,
 * rename, fsync of the directory); an entry holds the box name and the time the create was
 * sent, never a secret (the tag is metadata anyone with the API key can read anyway). */
#ifndef E2B_UP_JOURNAL_H
#define E2B_UP_JOURNAL_H

#include "core/util/error.h"

#include <stddef.h>
#include <time.h>

#define E2B_UP_JOURNAL_DIR "in-doubt"

typedef struct e2b_up_journal_entry {
    int fd;         /* open and flock'ed while held; -1 = none */
    char tag[33];   /* the create's E2B_META_UP value (32 of [A-Za-z0-9]) */
    char name[128]; /* the box name */
    time_t sent_at; /* when the create was sent */
} e2b_up_journal_entry;

/* Writes and locks the entry for tag (the create is about to be sent). */
e2b_error *e2b_up_journal_add(const char *state_dir, const char *tag, const char *name,
                          e2b_up_journal_entry *out);
/* The entry is settled: removes it, then drops the lock. fd -1 is fine. */
void e2b_up_journal_remove(const char *state_dir, e2b_up_journal_entry *e);
/* Drops the lock and keeps the entry for the next start's sweep. */
void e2b_up_journal_release(e2b_up_journal_entry *e);

/* Claims every entry no running up holds (locked for the caller from now on). *out is a
 * malloc'd array (free with e2b_up_journal_claims_free after removing or releasing each).
 * A missing directory is no entry. Returns the count, or -1 (cannot read the directory). */
long e2b_up_journal_claim(const char *state_dir, e2b_up_journal_entry **out);
void e2b_up_journal_claims_free(e2b_up_journal_entry *entries, size_t n);
/* Whether the directory holds any entry at all (cheap: no locks, no reads). */
int e2b_up_journal_any(const char *state_dir);

#endif
