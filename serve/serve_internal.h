/*
 * serve_internal.h - what the parts of the server share: the server itself,
 * jobs (solver work on a thread of its own whose output a response streams),
 * and the API's handlers (api.c).
 */
#ifndef TSUME_SERVE_INTERNAL_H
#define TSUME_SERVE_INTERNAL_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "serve.h"

#define SERVE_HOSTS_MAX 8

/* A checker kept between check jobs: its table is allocated once (a new 64 MB
 * table costs more than a short check). */
typedef struct {
  struct Checker *checker;
  volatile int stop; /* the checker's stop flag */
  bool busy;
} CheckerSlot;

struct Server {
  ServeOptions opt;
  char listen_copy[128];
  char db_path[4096];
  bool have_db;
  struct MHD_Daemon *d4, *d6;
  unsigned port;
  char url[160];
  char hosts[SERVE_HOSTS_MAX][160]; /* the Host values accepted ("127.0.0.1:8080") */
  int nhosts;
  pthread_mutex_t mu;
  pthread_cond_t idle; /* signalled when a job ends */
  int running;         /* jobs whose thread runs */
  struct Job *jobs;    /* every job still referenced, linked by next */
  bool stopping;
  CheckerSlot slots[64]; /* max_jobs of them, under mu */
};

typedef struct Job Job;
typedef void (*JobFn)(Job *j);

struct Job {
  Server *srv;
  Job *next;
  char id[33];
  int refs; /* the job's thread, the response; under srv->mu */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  char *out; /* bytes emitted; out[pos..len) not yet sent */
  size_t len, cap, pos;
  bool done;
  bool ndjson;     /* the response is lines of JSON (heartbeat: a progress line), else one object (heartbeat: "\n") */
  volatile int stop;
  volatile int *linked_stop; /* a pooled checker's stop flag while the job holds it (under mu) */
  struct Checker *linked_checker; /* that checker (under mu): its nodes go into the heartbeat */
  uint64_t shown_nodes;           /* the most nodes a heartbeat has shown (under mu) */
  uint64_t t0_ms;
  JobFn run;
  void *arg;
  void (*free_arg)(void *arg);
};

/* Appends text to the job's output (whole lines: a heartbeat never splits one). */
void job_emit(Job *j, const char *text, size_t n);

/* Starts fn(job) on a thread of its own (with a large stack) and queues the
 * response that streams its output. MHD_YES/MHD_NO as a handler returns; a 503
 * when max_jobs run already. arg is freed by free_arg when the job ends. */
enum MHD_Result job_start(Server *s, struct MHD_Connection *c, bool ndjson, JobFn fn, void *arg,
                          void (*free_arg)(void *));

/* A job by its id (with a reference: job_release it), NULL when none. */
Job *job_find(Server *s, const char *id);
void job_release(Job *j);

/* Stops the job: its own flag and the pooled checker's it holds. */
void job_stop(Job *j);

/* A pooled checker for the job (cleared, its deadline off), NULL when out of
 * memory; checker_put gives it back. */
struct Checker *checker_take(Job *j, CheckerSlot **slot);
void checker_put(Job *j, CheckerSlot *slot);

/* Responses. */
enum MHD_Result serve_reply(struct MHD_Connection *c, unsigned status, const char *type, const char *body, size_t n);
enum MHD_Result serve_reply_owned(struct MHD_Connection *c, unsigned status, const char *type, char *body, size_t n);
/* {"error": msg} with the status. */
enum MHD_Result serve_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
enum MHD_Result serve_ts_error(struct MHD_Connection *c, const TsError *err);

/* The API (api.c): body is the request's body (NUL-terminated, len bytes). */
enum MHD_Result api_dispatch(Server *s, struct MHD_Connection *c, const char *method, const char *url,
                             const char *body, size_t len);

uint64_t serve_now_ms(void);

#endif
