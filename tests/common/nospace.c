/*
 * nospace.c - a preloadable library (LD_PRELOAD) under which posix_fallocate
 * of more than 4 MB fails with ENOSPC and statvfs reports 1 MB free, as on a
 * disk with only a few megabytes left (the lock files' small reservations
 * still succeed). enumerate reserves the blocks of its table's file with it
 * before the table goes on in that file, and asks statvfs whether the disk
 * has room for the database before its sorted write; the end-to-end test runs
 * the real binary under it to show that a disk that cannot take the table
 * stops the run with a clear message, and that a run short of room for its
 * database removes its table's checkpoint and says so. Built with
 * NOSPACE_STATVFS_ONLY (lowroom.so) only statvfs is changed: the distributed
 * test preloads it in the ranks, whose MPI library reserves its own shared
 * memory with posix_fallocate.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/statvfs.h>

#define ROOM ((off_t)4 << 20)

#ifndef NOSPACE_STATVFS_ONLY
int posix_fallocate(int fd, off_t offset, off_t len) {
  if (offset + len > ROOM) return ENOSPC;
  int (*real)(int, off_t, off_t) = (int (*)(int, off_t, off_t))dlsym(RTLD_NEXT, "posix_fallocate");
  return real ? real(fd, offset, len) : ENOSYS;
}
#endif

/* 1 MB available; the free blocks stay as they are, far more (as where a volume's share of a pool, or a
 * reserve, is below the file system's free blocks). */
static void one_megabyte_free(struct statvfs *fs) {
  fs->f_bavail = fs->f_frsize ? ((unsigned long)1 << 20) / fs->f_frsize : 256;
}

int statvfs(const char *path, struct statvfs *fs) {
  int (*real)(const char *, struct statvfs *) = (int (*)(const char *, struct statvfs *))dlsym(RTLD_NEXT, "statvfs");
  int rc = real ? real(path, fs) : -1;
  if (rc == 0) one_megabyte_free(fs);
  return rc;
}
