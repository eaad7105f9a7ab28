/*
 * tsdb_lock.h - one writer per database file: an exclusive flock() on the
 * file "<path>-writer" beside the database, which holds the writer's pid.
 *
 *   TsDbWriterLock *lock;
 *   if (tsdb_writer_lock("g2p1.mdb", &lock, &err)) fail(&err);  // before anything is removed
 *   ...remove and recreate, or open and write g2p1.mdb...
 *   tsdb_writer_unlock(lock);                                   // removes the lock file
 *
 * The lock is advisory and separate from LMDB's own lock file (which a
 * `--force` run removes with the database): readers never take it, so they
 * go on reading while a writer runs. A process that dies loses its flock
 * with it; the stale file left behind is locked again by the next writer.
 */
#ifndef TSUME_TSDB_LOCK_H
#define TSUME_TSDB_LOCK_H

#include "error.h"

typedef struct TsDbWriterLock TsDbWriterLock;

/*
 * Takes the writer lock of the database path (which need not exist yet).
 * TS_ERR_DB "database PATH is being written by another process (pid N)"
 * when another process holds it; TS_ERR_IO when the lock file cannot be
 * created (e.g. a read-only folder); TS_ERR_NOMEM.
 */
int tsdb_writer_lock(const char *path, TsDbWriterLock **out, TsError *err);
/* Removes the lock file and releases the lock (NULL is fine). */
void tsdb_writer_unlock(TsDbWriterLock *lock);

#endif
