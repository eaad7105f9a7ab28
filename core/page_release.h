/*
 * page_release.h - a file written (or read) front to back, let go of the page
 * cache behind it: what lies more than a lag before the current end is
 * written back, and at the next call dropped. A stream of gigabytes then goes
 * on in pages just freed instead of memory new to the page cache, which costs
 * several times more to take on the machines measured (a 4 GB file written
 * in 5.5-9.1 s, against 1.1-1.3 s let go of behind). Both calls are advice: a
 * page still dirty or under writeback stays, and a page dropped is read from
 * the disk when it is asked for again, so what the file holds is the same.
 */
#ifndef TSUME_PAGE_RELEASE_H
#define TSUME_PAGE_RELEASE_H

#include <stdbool.h>
#include <sys/types.h>

typedef struct {
  off_t started;  /* writeback started (or, reading, passed) from 0 to here */
  off_t released; /* dropped from the page cache from 0 to here */
} PageRelease;

/* With the file at (or read up to) end: drops what the previous call passed,
 * and passes what lies more than lag before end (on 1 MB boundaries),
 * starting its writeback when write_back. */
void page_release_behind(int fd, PageRelease *p, off_t end, off_t lag, bool write_back);

#endif
