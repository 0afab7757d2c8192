/* pack_feed: libgit2's indexer on a thread of its own, fed through a bounded queue.
 *
 * The pull's import reads each pack byte twice: the pack scanner (pack_scan.h) checks the
 * declared sizes first, then the indexer inflates, hashes and writes. Run one after the
 * other on the writing thread they would add up; with the indexer here they overlap: the
 * writer scans chunk k + 1 while this thread indexes chunk k, and only scanned bytes are
 * ever queued. (It also takes the indexer's work off the thread that downloads.)
 *
 * Threads: push, finish and stop are called by one thread at a time (the importer's); the
 * indexer is touched only by the feed's thread until finish or stop returned, after which
 * it is the caller's again (for git_indexer_commit). The indexer's progress callback runs
 * on the feed's thread while it appends: it must only look at pack_feed_stopping. */
#ifndef E2B_PACK_FEED_H
#define E2B_PACK_FEED_H

#include "core/util/error.h"

#include <git2.h>
#include <stddef.h>

#define PACK_FEED_QUEUE_BYTES (8u << 20) /* copies waiting for the indexer, at most */

typedef struct pack_feed pack_feed;

/* Starts the thread that appends to idx (borrowed). NULL with *err set (a new error) when
 * it cannot. */
pack_feed *pack_feed_start(git_indexer *idx, e2b_error **err);

/* Queues a copy of p[0..n), waiting while the queue is full. Returns NULL, or (a new error
 * the caller owns) the indexer's error (E2B_SUB_BAD_BUNDLE "bad pack in bundle: ...") or
 * E2B_SUB_NOMEM; after an error nothing more is queued. */
e2b_error *pack_feed_push(pack_feed *f, const void *p, size_t n);

/* The indexer's latest progress (what its appends reported). */
void pack_feed_stats(pack_feed *f, git_indexer_progress *out);

/* Waits until every queued byte was appended and ends the thread; then frees f. stats gets
 * the appends' last progress, which git_indexer_commit must be given (it checks the object
 * count in it). Returns NULL or the indexer's error, as push. */
e2b_error *pack_feed_finish(pack_feed *f, git_indexer_progress *stats);

/* Tells the thread to stop (the indexer's progress callback then answers "cancel"), ends
 * it and frees f; queued bytes are dropped. NULL is a no-op. */
void pack_feed_stop(pack_feed *f);

/* For the indexer's progress callback: 1 once stop was called. */
int pack_feed_stopping(const pack_feed *f);

#endif
