/*
 * server.c - the HTTP side of `tsume serve`: listening, the checks every
 * request passes (Host, Origin, method, body size), the fixed list of static
 * files, and jobs whose output a response streams.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "serve_internal.h"
#include "tsdb.h"

#define JOB_STACK ((size_t)512 << 20) /* deep solver searches recurse */
#define HEARTBEAT_MS 250               /* a waiting stream writes this often (a gone client is seen then) */

uint64_t serve_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void serve_options_default(ServeOptions *o) {
  memset(o, 0, sizeof *o);
  o->port = 8719;
  o->max_jobs = SERVE_JOBS_DEFAULT;
  o->max_time_ms = SERVE_TIME_MS_MAX_DEFAULT;
  o->hash_mb = 64;
}

/* ------------------------------------------------------------------ responses */

static void common_headers(struct MHD_Response *r, const char *type) {
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(r, "X-Frame-Options", "DENY");
  MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
  MHD_add_response_header(r, "Content-Security-Policy",
                          "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
                          "frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
}

enum MHD_Result serve_reply(struct MHD_Connection *c, unsigned status, const char *type, const char *body, size_t n) {
  struct MHD_Response *r = MHD_create_response_from_buffer(n, (void *)body, MHD_RESPMEM_MUST_COPY);
  if (!r) return MHD_NO;
  common_headers(r, type);
  enum MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ret;
}

enum MHD_Result serve_reply_owned(struct MHD_Connection *c, unsigned status, const char *type, char *body, size_t n) {
  struct MHD_Response *r = MHD_create_response_from_buffer(n, body, MHD_RESPMEM_MUST_FREE);
  if (!r) {
    free(body);
    return MHD_NO;
  }
  common_headers(r, type);
  enum MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ret;
}

/* msg as a JSON string (bytes below 0x20 escaped; the messages are UTF-8). */
static void json_escape_into(const char *msg, char *out, size_t n) {
  size_t k = 0;
  for (const unsigned char *p = (const unsigned char *)msg; *p && k + 8 < n; p++) {
    if (*p == '"' || *p == '\\')
      k += (size_t)snprintf(out + k, n - k, "\\%c", *p);
    else if (*p < 0x20 || *p == 0x7f)
      k += (size_t)snprintf(out + k, n - k, "\\u%04x", *p);
    else
      out[k++] = (char)*p;
  }
  out[k] = 0;
}

enum MHD_Result serve_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...) {
  char msg[2048], esc[4096 + 64], body[4096 + 96];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  json_escape_into(msg, esc, sizeof esc);
  int n = snprintf(body, sizeof body, "{\"error\":\"%s\"}\n", esc);
  return serve_reply(c, status, "application/json; charset=utf-8", body, (size_t)n);
}

enum MHD_Result serve_ts_error(struct MHD_Connection *c, const TsError *err) {
  char buf[1024];
  ts_error_format(err, buf, sizeof buf);
  unsigned status = err->code == TS_ERR_NOMEM ? MHD_HTTP_SERVICE_UNAVAILABLE
                    : err->code == TS_ERR_IO || err->code == TS_ERR_DB ? MHD_HTTP_INTERNAL_SERVER_ERROR
                                                                         : MHD_HTTP_BAD_REQUEST;
  return serve_error(c, status, "%s: %s", ts_strerror(err->code), buf);
}

/* ------------------------------------------------------------------ jobs */

void job_emit(Job *j, const char *text, size_t n) {
  pthread_mutex_lock(&j->mu);
  if (j->len + n + 1 > j->cap) {
    size_t cap = j->cap ? j->cap : 4096;
    while (cap < j->len + n + 1) cap *= 2;
    char *o = realloc(j->out, cap);
    if (!o) { /* the line is lost; the job goes on */
      pthread_mutex_unlock(&j->mu);
      return;
    }
    j->out = o, j->cap = cap;
  }
  memcpy(j->out + j->len, text, n);
  j->len += n;
  pthread_cond_broadcast(&j->cv);
  pthread_mutex_unlock(&j->mu);
}

static void job_free(Job *j) {
  if (j->free_arg) j->free_arg(j->arg);
  pthread_mutex_destroy(&j->mu);
  pthread_cond_destroy(&j->cv);
  free(j->out);
  free(j);
}

void job_release(Job *j) {
  Server *s = j->srv;
  pthread_mutex_lock(&s->mu);
  bool last = --j->refs == 0;
  if (last)
    for (Job **p = &s->jobs; *p; p = &(*p)->next)
      if (*p == j) {
        *p = j->next;
        break;
      }
  pthread_mutex_unlock(&s->mu);
  if (last) job_free(j);
}

Job *job_find(Server *s, const char *id) {
  Job *found = NULL;
  pthread_mutex_lock(&s->mu);
  for (Job *j = s->jobs; j; j = j->next)
    if (!strcmp(j->id, id) && !j->done) {
      found = j;
      j->refs++;
      break;
    }
  pthread_mutex_unlock(&s->mu);
  return found;
}

static void *job_main(void *arg) {
  Job *j = arg;
  j->run(j);
  pthread_mutex_lock(&j->mu);
  j->done = true;
  pthread_cond_broadcast(&j->cv);
  pthread_mutex_unlock(&j->mu);
  Server *s = j->srv;
  pthread_mutex_lock(&s->mu);
  s->running--;
  pthread_cond_broadcast(&s->idle);
  pthread_mutex_unlock(&s->mu);
  job_release(j);
  return NULL;
}

/* The response's reader: the job's output as it comes; while none comes, a
 * heartbeat, so that a client that went away is seen (the write fails) and its
 * job stopped (job_reader_free). */
static ssize_t job_reader(void *cls, uint64_t offset, char *buf, size_t max) {
  (void)offset;
  Job *j = cls;
  pthread_mutex_lock(&j->mu);
  for (;;) {
    if (j->pos < j->len) {
      size_t n = j->len - j->pos < max ? j->len - j->pos : max;
      memcpy(buf, j->out + j->pos, n);
      j->pos += n;
      if (j->pos == j->len) j->pos = j->len = 0; /* all sent: the buffer starts again */
      pthread_mutex_unlock(&j->mu);
      return (ssize_t)n;
    }
    if (j->done) {
      pthread_mutex_unlock(&j->mu);
      return MHD_CONTENT_READER_END_OF_STREAM;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += HEARTBEAT_MS * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    int e = 0;
    while (j->pos == j->len && !j->done && e != ETIMEDOUT) e = pthread_cond_timedwait(&j->cv, &j->mu, &ts);
    if (e == ETIMEDOUT && j->pos == j->len && !j->done) {
      int n;
      if (j->ndjson && j->linked_checker) { /* a check: its nodes too, never fewer than shown before */
        uint64_t nodes = check_nodes_live(j->linked_checker);
        if (nodes > j->shown_nodes) j->shown_nodes = nodes;
        n = snprintf(buf, max, "{\"progress\":{\"elapsed_ms\":%llu,\"nodes\":%llu}}\n",
                     (unsigned long long)(serve_now_ms() - j->t0_ms), (unsigned long long)j->shown_nodes);
      } else {
        n = j->ndjson ? snprintf(buf, max, "{\"progress\":{\"elapsed_ms\":%llu}}\n",
                                 (unsigned long long)(serve_now_ms() - j->t0_ms))
                      : snprintf(buf, max, "\n");
      }
      pthread_mutex_unlock(&j->mu);
      return n > 0 && (size_t)n < max ? n : 0;
    }
  }
}

void job_stop(Job *j) {
  pthread_mutex_lock(&j->mu);
  j->stop = 1;
  if (j->linked_stop) *j->linked_stop = 1;
  pthread_mutex_unlock(&j->mu);
}

static void job_reader_free(void *cls) {
  Job *j = cls;
  job_stop(j); /* a client that went away (or a finished stream) ends the job */
  job_release(j);
}

Checker *checker_take(Job *j, CheckerSlot **slot) {
  Server *s = j->srv;
  CheckerSlot *t = NULL;
  pthread_mutex_lock(&s->mu);
  for (int i = 0; i < s->opt.max_jobs && i < 64; i++)
    if (!s->slots[i].busy && (!t || (s->slots[i].checker && !t->checker))) t = &s->slots[i];
  if (t) t->busy = true;
  pthread_mutex_unlock(&s->mu);
  if (!t) return NULL;
  if (!t->checker) {
    CheckOptions o;
    check_options_default(&o);
    o.hash_mb = s->opt.hash_mb;
    o.stop = &t->stop;
    /* a check at the desk has a time budget: its hard questions are asked on two processors
     * (each slot holds a table per worker, set up now: --hash MB times SERVE_CHECK_WORKERS) */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o.workers = cores < 2 ? 1 : SERVE_CHECK_WORKERS;
    t->checker = check_create(&o);
  } else {
    solver_clear(check_solver(t->checker));
  }
  if (!t->checker) {
    checker_put(j, t);
    return NULL;
  }
  pthread_mutex_lock(&j->mu);
  t->stop = j->stop;
  j->linked_stop = &t->stop;
  j->linked_checker = t->checker;
  pthread_mutex_unlock(&j->mu);
  *slot = t;
  return t->checker;
}

void checker_put(Job *j, CheckerSlot *slot) {
  pthread_mutex_lock(&j->mu);
  j->linked_stop = NULL;
  j->linked_checker = NULL;
  pthread_mutex_unlock(&j->mu);
  pthread_mutex_lock(&j->srv->mu);
  slot->busy = false;
  slot->stop = 0;
  pthread_mutex_unlock(&j->srv->mu);
}

static void random_id(char out[33]) {
  unsigned char b[16];
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  ssize_t got = fd >= 0 ? read(fd, b, sizeof b) : -1;
  if (fd >= 0) close(fd);
  if (got != (ssize_t)sizeof b) { /* no urandom: the clock and the address, still unique here */
    uint64_t t = serve_now_ms() ^ (uint64_t)(uintptr_t)out;
    for (size_t i = 0; i < sizeof b; i++) b[i] = (unsigned char)(t >> (8 * (i % 8))) ^ (unsigned char)i;
  }
  for (size_t i = 0; i < sizeof b; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

enum MHD_Result job_start(Server *s, struct MHD_Connection *c, bool ndjson, JobFn fn, void *arg,
                          void (*free_arg)(void *)) {
  pthread_mutex_lock(&s->mu);
  bool full = s->running >= s->opt.max_jobs || s->stopping;
  if (!full) s->running++;
  pthread_mutex_unlock(&s->mu);
  if (full) {
    if (free_arg) free_arg(arg);
    return serve_error(c, MHD_HTTP_SERVICE_UNAVAILABLE,
                       "busy: %d jobs are running (the most at once); try again when one ends", s->opt.max_jobs);
  }
  Job *j = calloc(1, sizeof *j);
  if (!j) goto nomem;
  j->srv = s;
  j->ndjson = ndjson;
  j->run = fn;
  j->arg = arg;
  j->free_arg = free_arg;
  j->t0_ms = serve_now_ms();
  j->refs = 2;
  random_id(j->id);
  pthread_mutex_init(&j->mu, NULL);
  pthread_cond_init(&j->cv, NULL);
  if (ndjson) {
    char first[64];
    int n = snprintf(first, sizeof first, "{\"job\":\"%s\"}\n", j->id);
    job_emit(j, first, (size_t)n);
  }
  struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, job_reader, j, job_reader_free);
  if (!r) {
    job_free(j); /* frees arg */
    j = NULL, free_arg = NULL;
    goto nomem;
  }
  common_headers(r, ndjson ? "application/x-ndjson; charset=utf-8" : "application/json; charset=utf-8");
  pthread_mutex_lock(&s->mu);
  j->next = s->jobs;
  s->jobs = j;
  pthread_mutex_unlock(&s->mu);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, JOB_STACK);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t th;
  int e = pthread_create(&th, &attr, job_main, j);
  pthread_attr_destroy(&attr);
  if (e) { /* no thread: the job ends at once, saying why */
    static const char msg[] = "{\"error\":\"cannot start a thread for the job\"}\n";
    job_emit(j, msg, sizeof msg - 1);
    pthread_mutex_lock(&j->mu);
    j->done = true;
    pthread_mutex_unlock(&j->mu);
    pthread_mutex_lock(&s->mu);
    s->running--;
    pthread_cond_broadcast(&s->idle);
    pthread_mutex_unlock(&s->mu);
    job_release(j);
  }
  enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
  MHD_destroy_response(r);
  return ret;
nomem:
  pthread_mutex_lock(&s->mu);
  s->running--;
  pthread_cond_broadcast(&s->idle);
  pthread_mutex_unlock(&s->mu);
  if (free_arg) free_arg(arg);
  return serve_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
}

/* ------------------------------------------------------------------ requests */

typedef struct {
  char *body;
  size_t len, cap;
  bool too_large;
  bool refused; /* a response was queued at the headers */
} Request;

static bool host_ok(const Server *s, const char *host) {
  if (!host) return false;
  for (int i = 0; i < s->nhosts; i++)
    if (!strcasecmp(host, s->hosts[i])) return true;
  return false;
}

/* An Origin header, when present, must be this server's own ("http://" + a host). */
static bool origin_ok(const Server *s, const char *origin) {
  if (!origin) return true;
  if (strncmp(origin, "http://", 7) != 0) return false;
  return host_ok(s, origin + 7);
}

static const ServeAsset *asset_find(const char *url) {
  for (size_t i = 0; i < SERVE_ASSETS_N; i++)
    if (!strcmp(SERVE_ASSETS[i].path, url)) return &SERVE_ASSETS[i];
  return NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **req_cls) {
  (void)version;
  Server *s = cls;
  Request *rq = *req_cls;
  if (!rq) { /* the headers: every check that needs no body */
    rq = calloc(1, sizeof *rq);
    if (!rq) return MHD_NO;
    *req_cls = rq;
    const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    if (!host_ok(s, host)) {
      rq->refused = true;
      return serve_error(c, MHD_HTTP_FORBIDDEN, "the Host header is not this server's address (%s)", s->hosts[0]);
    }
    const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
    const char *site = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-Fetch-Site");
    if (!origin_ok(s, origin) || (site && !get && strcmp(site, "same-origin") && strcmp(site, "none"))) {
      rq->refused = true;
      return serve_error(c, MHD_HTTP_FORBIDDEN, "a request from another site is refused");
    }
    if (!get && strcmp(method, "POST")) {
      rq->refused = true;
      return serve_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method %s is not served (GET, HEAD, POST)", method);
    }
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl && strtoull(cl, NULL, 10) > SERVE_BODY_MAX) {
      rq->refused = true;
      return serve_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "a request body of more than %zu bytes is refused",
                         SERVE_BODY_MAX);
    }
    return MHD_YES;
  }
  if (rq->refused) { /* the rest of a refused request's body */
    *upload_size = 0;
    return MHD_YES;
  }
  if (*upload_size) {
    size_t n = *upload_size;
    *upload_size = 0;
    if (rq->too_large || rq->len + n > SERVE_BODY_MAX) {
      rq->too_large = true;
      return MHD_YES;
    }
    if (rq->len + n + 1 > rq->cap) {
      size_t cap = rq->cap ? rq->cap : 4096;
      while (cap < rq->len + n + 1) cap *= 2;
      char *b = realloc(rq->body, cap);
      if (!b) return MHD_NO;
      rq->body = b, rq->cap = cap;
    }
    memcpy(rq->body + rq->len, upload, n);
    rq->len += n;
    rq->body[rq->len] = 0;
    return MHD_YES;
  }
  if (rq->too_large)
    return serve_error(c, MHD_HTTP_CONTENT_TOO_LARGE, "a request body of more than %zu bytes is refused",
                       SERVE_BODY_MAX);
  if (!strncmp(url, "/api/", 5)) return api_dispatch(s, c, method, url, rq->body ? rq->body : "", rq->len);
  const ServeAsset *a = asset_find(url);
  if (!a) return serve_error(c, MHD_HTTP_NOT_FOUND, "no such page");
  if (strcmp(method, "GET") && strcmp(method, "HEAD"))
    return serve_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "%s takes GET", url);
  struct MHD_Response *r = MHD_create_response_from_buffer(a->size, (void *)a->data, MHD_RESPMEM_PERSISTENT);
  if (!r) return MHD_NO;
  common_headers(r, a->content_type);
  enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
  MHD_destroy_response(r);
  return ret;
}

static void request_done(void *cls, struct MHD_Connection *c, void **req_cls, enum MHD_RequestTerminationCode toe) {
  (void)cls, (void)c, (void)toe;
  Request *rq = *req_cls;
  if (rq) {
    free(rq->body);
    free(rq);
  }
  *req_cls = NULL;
}

static void log_mhd(void *cls, const char *fmt, va_list ap) {
  (void)cls, (void)fmt, (void)ap; /* a client's bad request is answered, not logged */
}

/* ------------------------------------------------------------------ start, stop */

static struct MHD_Daemon *start_daemon(Server *s, const struct sockaddr *sa, bool v6) {
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;
  if (v6) flags |= MHD_USE_IPv6;
  return MHD_start_daemon(flags, 0, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR, sa, MHD_OPTION_NOTIFY_COMPLETED,
                          request_done, s, MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_CONNECTION_TIMEOUT,
                          (unsigned)120, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024,
                          MHD_OPTION_THREAD_STACK_SIZE, (size_t)8 << 20, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,
                          MHD_OPTION_END);
}

static void host_add(Server *s, const char *name) {
  if (s->nhosts < SERVE_HOSTS_MAX)
    snprintf(s->hosts[s->nhosts++], sizeof s->hosts[0], "%s:%u", name, s->port);
  if (s->port == 80 && s->nhosts < SERVE_HOSTS_MAX) snprintf(s->hosts[s->nhosts++], sizeof s->hosts[0], "%s", name);
}

int serve_start(const ServeOptions *o, Server **out, TsError *err) {
  *out = NULL;
  Server *s = calloc(1, sizeof *s);
  if (!s) return ts_error_set(err, TS_ERR_NOMEM, "serve", 0, 0, "out of memory");
  s->opt = *o;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->idle, NULL);
  if (o->db_path) { /* opened once here to say at the start whether it can be read */
    snprintf(s->db_path, sizeof s->db_path, "%s", o->db_path);
    TsDb *db = NULL;
    int rc = tsdb_open(o->db_path, TSDB_RDONLY, NULL, &db, err);
    if (rc) {
      serve_stop(s);
      return rc;
    }
    tsdb_close(db);
    s->have_db = true;
  }
  struct sockaddr_in a4;
  struct sockaddr_in6 a6;
  memset(&a4, 0, sizeof a4);
  memset(&a6, 0, sizeof a6);
  a4.sin_family = AF_INET;
  a4.sin_port = htons((uint16_t)o->port);
  a6.sin6_family = AF_INET6;
  a6.sin6_port = htons((uint16_t)o->port);
  const char *where = o->listen ? o->listen : "127.0.0.1";
  bool v6 = false;
  if (!o->listen) {
    a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  } else if (inet_pton(AF_INET, o->listen, &a4.sin_addr) == 1) {
  } else if (inet_pton(AF_INET6, o->listen, &a6.sin6_addr) == 1) {
    v6 = true;
  } else {
    serve_stop(s);
    return ts_error_set(err, TS_ERR_USAGE, "--listen", 0, 0, "'%s' is not an IPv4 or IPv6 address", o->listen);
  }
  if (v6)
    s->d6 = start_daemon(s, (const struct sockaddr *)&a6, true);
  else
    s->d4 = start_daemon(s, (const struct sockaddr *)&a4, false);
  struct MHD_Daemon *d = v6 ? s->d6 : s->d4;
  if (!d) {
    int e = errno;
    serve_stop(s);
    return ts_error_set(err, TS_ERR_IO, where, 0, 0, "cannot listen on port %u: %s", o->port,
                        e ? strerror(e) : "the address is taken or not this machine's");
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  s->port = info ? info->port : o->port;
  if (!o->listen) { /* ::1 too, on the same port, when the machine has IPv6 */
    a6.sin6_addr = in6addr_loopback;
    a6.sin6_port = htons((uint16_t)s->port);
    s->d6 = start_daemon(s, (const struct sockaddr *)&a6, true);
    host_add(s, "127.0.0.1");
    host_add(s, "localhost");
    host_add(s, "[::1]");
    snprintf(s->url, sizeof s->url, "http://127.0.0.1:%u/", s->port);
  } else if (v6) {
    char name[80];
    snprintf(name, sizeof name, "[%s]", o->listen);
    host_add(s, name);
    snprintf(s->url, sizeof s->url, "http://%s:%u/", name, s->port);
  } else {
    host_add(s, o->listen);
    snprintf(s->url, sizeof s->url, "http://%s:%u/", o->listen, s->port);
  }
  *out = s;
  return TS_OK;
}

unsigned serve_port(const Server *s) { return s->port; }
const char *serve_url(const Server *s) { return s->url; }

void serve_stop(Server *s) {
  if (!s) return;
  pthread_mutex_lock(&s->mu);
  s->stopping = true;
  for (Job *j = s->jobs; j; j = j->next) {
    j->stop = 1;
    if (j->linked_stop) *j->linked_stop = 1;
  }
  pthread_mutex_unlock(&s->mu);
  if (s->d4) MHD_stop_daemon(s->d4);
  if (s->d6) MHD_stop_daemon(s->d6);
  pthread_mutex_lock(&s->mu);
  while (s->running > 0) pthread_cond_wait(&s->idle, &s->mu);
  pthread_mutex_unlock(&s->mu);
  for (int i = 0; i < 64; i++) check_free(s->slots[i].checker);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->idle);
  free(s);
}
