/*
 * nospace.c - a preloadable library (LD_PRELOAD) under which posix_fallocate
 * of more than 4 MB fails with ENOSPC, as on a disk with only a few
 * megabytes left (the lock files' small reservations still succeed).
 * enumerate reserves the blocks of its table's file with it before the table
 * goes on in that file; the end-to-end test runs the real binary under it to
 * show that a disk that cannot take the table stops the run with a clear
 * message.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>

#define ROOM ((off_t)4 << 20)

int posix_fallocate(int fd, off_t offset, off_t len) {
  if (offset + len > ROOM) return ENOSPC;
  int (*real)(int, off_t, off_t) = (int (*)(int, off_t, off_t))dlsym(RTLD_NEXT, "posix_fallocate");
  return real ? real(fd, offset, len) : ENOSYS;
}
