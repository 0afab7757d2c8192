/* Sandbox state changes shared by the API handlers and the timeout ticker.
 * All take g_lock (held by the caller) and persist the record. */
#ifndef E2B_LOCAL_LIFECYCLE_H
#define E2B_LOCAL_LIFECYCLE_H

#include "sandbox.h"

/* Freezes every process (SIGSTOP) and marks the sandbox paused. */
void lifecycle_pause_locked(struct sandbox *sb, const char *why);
/* Thaws a paused sandbox; after a server restart it resumes cold (no process). */
void lifecycle_resume_locked(struct sandbox *sb);
/* Kills every process, removes the record and the root directory. */
void lifecycle_kill_locked(struct sandbox *sb, const char *why);
/* Applies expired timeouts (pause or kill) and process lifetimes; called periodically. */
void lifecycle_tick(void);
/* At shutdown: kills every sandbox's processes, keeps records and files. */
void lifecycle_stop_all(void);

#endif
