/* Late orphans: sandboxes a failed or interrupted up made without ever writing a record.
 *
 *   e2b_orphans *o = e2b_orphans_new(&env, delay_ms, on_notice, ui);
 *   e2b_orphans_sweep_journal(o);       // at the start of every mode that uses the API
 *   env.orphans = o;                    // a failed up hands its entry over (sweep_later)
 *   ... the loop runs; on_notice(ui, "removed sandbox i1 ...", NULL) once per sandbox ...
 *   e2b_orphans_free(o);
 *
 * Two ways a sandbox can be left behind with nobody knowing its id, both covered through
 * the journal of creates in doubt (core/box/up_journal.h):
 *   - the create's reply is lost (timeout, broken connection) and E2B makes the sandbox
 *     later than the up's immediate sweep looked: a failed up hands its journal entry to
 *     sweep_later, which looks again after delay_ms;
 *   - the process dies between the create and the record (SIGKILL, a crash, a power cut):
 *     its entry stays in the journal, unlocked, and the next start's sweep_journal claims it.
 * A sweep lists the sandboxes carrying the entry's E2B_META_UP tag and kills each one that
 * no record of this machine names (a box whose record exists is a real box: never killed),
 * deletes its password (with env.ks, else with the configured store, opened for it), and
 * tells the user once through notice.
 * The entry is removed once the sweep is sure: it killed what it found, or found nothing
 * at least cfg->orphan_sweep_delay_s after the create failed (a sweep that looked sooner
 * keeps the entry for the next start).
 *
 * Callbacks run on the loop thread. notice gets exactly one of done (what a sweep removed)
 * and failed (a sandbox it could not remove: the error's message names it and says why),
 * both borrowed. env's members are borrowed and must outlive the object. */
#ifndef E2B_ORPHANS_H
#define E2B_ORPHANS_H

#include "core/box/box.h"
#include "core/box/up_journal.h"

typedef struct e2b_orphans e2b_orphans;
typedef void (*e2b_orphans_notice_fn)(void *ud, const char *done, const e2b_error *failed);

/* delay_ms: the wait of the second sweep (the dashboard: cfg->orphan_sweep_delay_s; the
 * one-shot --up: at most 10 s, so that a failed up does not linger). */
e2b_orphans *e2b_orphans_new(const e2b_box_env *env, long delay_ms, e2b_orphans_notice_fn notice,
                             void *ud);
/* Claims the journal's entries no running up holds and sweeps each (no request at all when
 * the journal is empty). */
void e2b_orphans_sweep_journal(e2b_orphans *o);
/* Takes over a failed up's entry (*e is moved out) for a second sweep after delay_ms. */
void e2b_orphans_sweep_later(e2b_orphans *o, e2b_up_journal_entry *e);
/* Sweeps still waiting or running. */
int e2b_orphans_busy(const e2b_orphans *o);
long e2b_orphans_delay_ms(const e2b_orphans *o);
/* Stops what is waiting (its entries stay in the journal for the next start); a request in
 * flight is cancelled and the object frees itself once its callback has run, so keep running
 * the loop until requests in flight are 0. NULL is fine. */
void e2b_orphans_free(e2b_orphans *o);

#endif
