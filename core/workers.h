/*
 * workers.h - running one function on several threads over an array of
 * per-thread arguments (the enumerator's phases, verify's batches).
 */
#ifndef TSUME_WORKERS_H
#define TSUME_WORKERS_H

#include <stddef.h>

#define WORKERS_MAX 64

/*
 * Runs fn on nt threads (at most WORKERS_MAX), thread t getting (char *)ws + t * size;
 * thread 0 is the caller. Work is meant to be shared through counters inside the
 * workers, so if a thread cannot be created the started ones do it all. Returns
 * the number of workers that ran.
 */
int workers_run(int nt, void *(*fn)(void *), void *ws, size_t size);

#endif
