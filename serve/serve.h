/*
 * serve.h - `tsume serve`: the desk, a local HTTP server (GNU libmicrohttpd)
 * that serves the page built at build time and a JSON API over the checker,
 * the roles, the composer and a database opened read-only (docs/serve.md).
 *
 * Every request is hostile input: the Host must be the server's own address
 * (DNS rebinding), a request that changes state (POST) from a page of another
 * origin is refused (403), bodies are at most SERVE_BODY_MAX bytes (413), the
 * static files are a fixed list compiled in, no path is taken from a request,
 * and solver work runs as jobs (at most max_jobs at once, each under a time
 * cap) that end when their client goes away.
 */
#ifndef TSUME_SERVE_H
#define TSUME_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define SERVE_BODY_MAX ((size_t)1 << 20) /* bytes of a request body */
#define SERVE_JOBS_DEFAULT 4
#define SERVE_CHECK_MS_DEFAULT 10000u     /* a check without time_ms */
#define SERVE_COMPOSE_MS_DEFAULT 30000u   /* a compose without time_ms */
#define SERVE_TIME_MS_MAX_DEFAULT 600000u /* the most time_ms a request may ask */
#define SERVE_CHECK_WORKERS 2             /* workers of a check (with two processors or more) */
#define SERVE_NODES_MAX 100000000000ull   /* the most nodes a check may ask (within its time) */

typedef struct {
  const char *listen;   /* address to listen on; NULL: 127.0.0.1 and ::1 */
  unsigned port;        /* 0: a free port */
  const char *db_path;  /* database to browse (opened read-only); NULL: none */
  int max_jobs;         /* solver jobs running at once */
  uint64_t max_time_ms; /* cap of a request's time_ms */
  size_t hash_mb;       /* solver table of each job */
} ServeOptions;

void serve_options_default(ServeOptions *o);

typedef struct Server Server;

/* Starts the server threads. TS_OK, or TS_ERR_IO (cannot listen: err says
 * where), TS_ERR_DB (the database cannot be opened), TS_ERR_USAGE (a bad
 * --listen address), TS_ERR_NOMEM. */
int serve_start(const ServeOptions *o, Server **out, TsError *err);
/* The port listened on (the one chosen when o->port was 0). */
unsigned serve_port(const Server *s);
/* The address to print: "http://127.0.0.1:8080/". */
const char *serve_url(const Server *s);
/* Stops every job and the server, and frees it. */
void serve_stop(Server *s);

/* The desk's files, compiled in (serve_assets.c, made at build time). */
typedef struct {
  const char *path;         /* "/", "/desk.js", ... */
  const char *content_type;
  const unsigned char *data;
  size_t size;
} ServeAsset;
extern const ServeAsset SERVE_ASSETS[];
extern const size_t SERVE_ASSETS_N;

#endif
