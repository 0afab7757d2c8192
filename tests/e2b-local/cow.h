/* Copy-on-write roots: a sandbox made from a snapshot, or a fork of such a sandbox, shares
 * the snapshot's files until it writes them (as E2B resumes snapshots), instead of a copy
 * of every file at create.
 *
 * The root STATE/roots/<id> is an overlay mount: the snapshot's directory is the read-only
 * lower layer, STATE/cow/<id>/upper holds what the sandbox wrote (work/ is overlayfs's),
 * STATE/cow/<id>/lower names the lower layer relative to STATE. Needs the right to mount
 * (the server runs as root); elsewhere, or with E2B_LOCAL_COW=0, every call here says "not
 * done" and the caller copies the files as before. Mounts are in the server's (host's) mount
 * namespace, so the root reads as a directory from outside too; cow_unmount_all at stop and
 * cow_load_all at start keep them to the server's lifetime.
 *
 * A snapshot deleted or rebuilt while sandboxes still read it as their lower layer is moved
 * to STATE/retired/ (cow_retire) and removed with its last user. All functions are
 * thread-safe (one lock of their own, never held with g_lock or the template lock). */
#ifndef E2B_LOCAL_COW_H
#define E2B_LOCAL_COW_H

#include <stdbool.h>

/* At start: reads STATE/cow/, mounts every root not mounted yet (after a restart), removes
 * retired layers nobody uses. */
void cow_load_all(void);
/* At stop: unmounts every root (files stay for the next start). */
void cow_unmount_all(void);

/* Makes the fresh root of sandbox id an overlay over the snapshot directory lower (an
 * absolute path under STATE). 0 done; -1 not done (cannot mount, or E2B_LOCAL_COW=0: the
 * root is left there, maybe empty, and the caller copies the snapshot into it). */
int cow_root_from(const char *id, const char *lower);
/* The root of child as a fork of parent: parent's written files copied, its lower layer
 * shared. 0 done; 1 parent is not copy-on-write; -1 not done (the root is left there,
 * maybe empty: the caller copies the parent's files in both cases). */
int cow_root_fork(const char *parent, const char *child);
/* Whether sandbox id's root is an overlay of ours. */
bool cow_is_overlay(const char *id);
/* Unmounts sandbox id's root and removes its layer files (kill); a no-op for a plain root. */
void cow_drop(const char *id);
/* Called instead of removing a snapshot directory (an absolute path under STATE): removed
 * now when no sandbox reads it, else moved aside and removed with its last user. */
void cow_retire(const char *dir);

#endif
