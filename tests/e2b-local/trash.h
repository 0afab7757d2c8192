/* Trees deleted after their sandbox is gone, off the request path. A kill holds g_lock while
 * it buries the sandbox; deleting a root of 30,000 files there stalled every other request
 * (and SIGTERM) for a minute on a loaded machine. trash_tree moves the tree into
 * <state>/trash (one rename, same file system) and a thread of its own removes it. */
#ifndef E2B_LOCAL_TRASH_H
#define E2B_LOCAL_TRASH_H

/* Starts the remover; it first empties what a previous run left in the trash. 0 or -1. */
int trash_start(void);

/* Moves path into the trash for the remover (a missing path is nothing to do). When the
 * move fails (the trash is not on path's file system), removes the tree at once. */
void trash_tree(const char *path);

/* Tells the remover to stop after the tree it is removing (never waited for: a stopping
 * server does not wait for a big tree); what is left in the trash goes at the next start. */
void trash_stop(void);

#endif
