/*
 * cmd_serve.c - `tsume serve`: the desk, a local web page over the checker,
 * the roles, the composer and a database (serve/serve.h, docs/serve.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "serve.h"

static const char SERVE_HELP[] =
    "usage: tsume serve [--db PATH] [--port N] [--open] [options]\n"
    "Starts the desk: a local web server whose page sets up a diagram with the mouse,\n"
    "checks it live (every flaw drawn on the board), shows the pieces' roles, composes,\n"
    "and browses a database. It prints its address, e.g. http://127.0.0.1:8719/, and\n"
    "runs until interrupted (Ctrl-C). The page and its JSON API: docs/serve.md.\n"
    "  --db PATH        a database to browse and export from (opened read-only)\n"
    "  --port N         the port (default 8719; 0: any free port, printed)\n"
    "  --listen ADDR    listen on ADDR instead of 127.0.0.1 and ::1 (a warning is\n"
    "                   printed: every machine that reaches ADDR can use the desk)\n"
    "  --open           open the address in the desktop's browser (xdg-open)\n"
    "  --jobs N         checks and compose runs at once (default 4, 1-64)\n"
    "  --max-time-ms N  the most time one check or compose may ask (default 600000)\n"
    "  --hash MB        the solver table of each job (default 64; a check asks its\n"
    "                   hard questions on two processors, with a table each)\n"
    "Only requests for this server's own address (Host) from its own page (Origin)\n"
    "are served; bodies are at most 1 MiB.\n"
    "Exit status: 0 after an interrupt, 2 bad usage, 3 cannot listen or open the database.\n";

static void *reap(void *arg) {
  pid_t pid = (pid_t)(intptr_t)arg;
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return NULL;
}

/* Opens url with xdg-open (the desktop's browser); says so when it cannot. */
static void open_browser(const char *url) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  char *argv[] = {"xdg-open", (char *)url, NULL};
  extern char **environ;
  pid_t pid;
  int e = posix_spawnp(&pid, "xdg-open", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (e) {
    cli_message("serve", "--open: cannot run xdg-open (%s); open %s in a browser", strerror(e), url);
    return;
  }
  pthread_t t;
  if (pthread_create(&t, NULL, reap, (void *)(intptr_t)pid) == 0) pthread_detach(t);
}

int cmd_serve(int argc, char **argv) {
  ServeOptions o;
  serve_options_default(&o);
  bool open_it = false;
  static const struct option LONG[] = {{"help", no_argument, NULL, 'h'},     {"db", required_argument, NULL, 'd'},
                                       {"port", required_argument, NULL, 'p'}, {"listen", required_argument, NULL, 'l'},
                                       {"open", no_argument, NULL, 'o'},     {"jobs", required_argument, NULL, 'j'},
                                       {"max-time-ms", required_argument, NULL, 'T'},
                                       {"hash", required_argument, NULL, 'H'}, {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1;) {
    uint64_t v = 0;
    static const CliRange RANGE[] = {{'p', "--port", 0, 65535},
                                     {'j', "--jobs", 1, 64},
                                     {'T', "--max-time-ms", 1, CLI_TIME_MS_MAX},
                                     {'H', "--hash", 1, CLI_HASH_MB_MAX}};
    if (cli_option_ranged("serve", c, optarg, RANGE, sizeof RANGE / sizeof RANGE[0], &v)) return 2;
    switch (c) {
    case 'h': fputs(SERVE_HELP, stdout); return 0;
    case 'd': o.db_path = optarg; break;
    case 'p': o.port = (unsigned)v; break;
    case 'l': o.listen = optarg; break;
    case 'o': open_it = true; break;
    case 'j': o.max_jobs = (int)v; break;
    case 'T': o.max_time_ms = v; break;
    case 'H': o.hash_mb = (size_t)v; break;
    default: return cli_getopt_error("serve", c, argv);
    }
  }
  if (optind < argc) return cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
  /* the signals that end the server are taken by sigwait below, in this thread only */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  signal(SIGPIPE, SIG_IGN); /* a client that goes away is an error of its write, not a kill */
  Server *s = NULL;
  TsError err;
  int rc = serve_start(&o, &s, &err);
  if (rc) return cli_fail("serve", &err);
  if (o.listen)
    cli_message("serve", "warning: listening on %s: every machine that reaches this address can use the desk",
                o.listen);
  printf("tsume serve: %s\n", serve_url(s));
  fflush(stdout);
  if (open_it) open_browser(serve_url(s));
  int sig = 0;
  sigwait(&set, &sig);
  fprintf(stderr, "tsume serve: stopping (%s)\n", strsignal(sig));
  serve_stop(s);
  return 0;
}
