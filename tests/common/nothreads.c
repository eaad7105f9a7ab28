/*
 * nothreads.c - a preloadable library (LD_PRELOAD) under which every
 * pthread_create fails with EAGAIN, as it does when a process reaches its
 * thread or memory limit. The end-to-end tests run the real binary under it
 * to show that each place that starts a thread carries on in the calling one
 * and gives the same results.
 */
#include <errno.h>
#include <pthread.h>

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  (void)thread;
  (void)attr;
  (void)fn;
  (void)arg;
  return EAGAIN;
}
