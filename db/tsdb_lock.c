/*
 * tsdb_lock.c - the writer lock of a database (tsdb_lock.h).
 *
 * The holder removes the lock file before it lets go, so a process that
 * was waiting on the old file may get a lock on a file no longer in the
 * folder: after flock() succeeds the path must still name the locked file
 * (same inode), else the lock is dropped and taken again on the new file.
 */
#include "tsdb_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_SUFFIX "-writer"

struct TsDbWriterLock {
  int fd;
  char path[4096];
};

/* The pid written by the holder, or 0 when it has not been written yet. */
static long holder_pid(int fd) {
  char buf[32];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return 0;
  buf[n] = 0;
  return strtol(buf, NULL, 10);
}

int tsdb_writer_lock(const char *path, TsDbWriterLock **out, TsError *err) {
  *out = NULL;
  TsDbWriterLock *l = malloc(sizeof *l);
  if (!l) return ts_error_set(err, TS_ERR_NOMEM, path, 0, 0, "out of memory");
  if ((size_t)snprintf(l->path, sizeof l->path, "%s" LOCK_SUFFIX, path) >= sizeof l->path) {
    free(l);
    return ts_error_set(err, TS_ERR_USAGE, path, 0, 0, "database path too long");
  }
  for (int tries = 0;; tries++) {
    int fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      int e = errno;
      free(l);
      return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot create the writer lock file %s" LOCK_SUFFIX ": %s",
                          path, strerror(e));
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int e = errno;
      long pid = e == EWOULDBLOCK ? holder_pid(fd) : 0;
      close(fd);
      free(l);
      if (e != EWOULDBLOCK)
        return ts_error_set(err, TS_ERR_IO, path, 0, 0, "cannot lock %s" LOCK_SUFFIX ": %s", path, strerror(e));
      if (pid > 0)
        return ts_error_set(err, TS_ERR_DB, path, 0, 0,
                            "database %s is being written by another process (pid %ld)", path, pid);
      return ts_error_set(err, TS_ERR_DB, path, 0, 0, "database %s is being written by another process",
                          path);
    }
    struct stat a, b;
    if (fstat(fd, &a) == 0 && stat(l->path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
      char buf[32];
      int n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
      /* the pid is only for the other writer's message: if it cannot be written the lock still holds */
      if (ftruncate(fd, 0) == 0) n = (int)pwrite(fd, buf, (size_t)n, 0);
      l->fd = fd;
      *out = l;
      return TS_OK;
    }
    close(fd); /* the holder removed the file meanwhile: lock the new one */
    if (tries > 100) {
      free(l);
      return ts_error_set(err, TS_ERR_IO, path, 0, 0, "the writer lock file %s" LOCK_SUFFIX " keeps changing",
                          path);
    }
  }
}

void tsdb_writer_unlock(TsDbWriterLock *l) {
  if (!l) return;
  unlink(l->path);
  close(l->fd);
  free(l);
}
