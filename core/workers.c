#include "workers.h"

#include <pthread.h>

int workers_run(int nt, void *(*fn)(void *), void *ws, size_t size) {
  pthread_t th[WORKERS_MAX];
  if (nt > WORKERS_MAX) nt = WORKERS_MAX;
  int started = 1;
  for (int t = 1; t < nt; t++, started++)
    if (pthread_create(&th[t], NULL, fn, (char *)ws + (size_t)t * size) != 0) break;
  fn(ws);
  for (int t = 1; t < started; t++) pthread_join(th[t], NULL);
  return started;
}
