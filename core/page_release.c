/* page_release.c - see page_release.h. */
#define _GNU_SOURCE
#include "page_release.h"

#include <fcntl.h>

#define PAGE_RELEASE_ALIGN ((off_t)1 << 20)

void page_release_behind(int fd, PageRelease *p, off_t end, off_t lag, bool write_back) {
  off_t target = end > lag ? (end - lag) / PAGE_RELEASE_ALIGN * PAGE_RELEASE_ALIGN : 0;
  if (p->started > p->released) {
    (void)posix_fadvise(fd, p->released, p->started - p->released, POSIX_FADV_DONTNEED);
    p->released = p->started;
  }
  if (target > p->started) {
    if (write_back) (void)sync_file_range(fd, p->started, target - p->started, SYNC_FILE_RANGE_WRITE);
    p->started = target;
  }
}
