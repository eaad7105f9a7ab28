/*
 * tsume - the command-line front end. One subcommand per file (cmd_*.c).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "bitboard.h"
#include "cli.h"

int cmd_perft(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_usi(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_enumerate(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_dbcheck(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_roles(int argc, char **argv);
int cmd_compose(int argc, char **argv);
int cmd_serve(int argc, char **argv);

static const CliCommand COMMANDS[] = {
    {"show", cmd_show, "print a position as a diagram and SFEN (--mirror, --canonical)"},
    {"enumerate", cmd_enumerate, "build the database of every problem of a material (retrograde)"},
    {"solve", cmd_solve, "solve a tsume problem: mate length, main line (df-pn, PDS, multi-path)"},
    {"usi", cmd_usi, "USI mate engine for GUIs (go mate)"},
    {"bench", cmd_bench, "solver speed on a fixed problem list (Nodes searched, Nodes/second)"},
    {"query", cmd_query, "list or count the problems of a database (by length, flag)"},
    {"export", cmd_export, "write problems of a database as KIF (with 変化) or SFEN"},
    {"check", cmd_check, "is a problem sound? every flaw of its line (余詰, 変同, 不詰...)"},
    {"verify", cmd_verify, "check every complete work of a database with the flaw checker"},
    {"db-check", cmd_dbcheck, "read every page and record of a database and report damage"},
    {"roles", cmd_roles, "what each piece does along the main line (eight roles)"},
    {"compose", cmd_compose, "make a diagram a complete work (roles, the checker), or works from a mate picture"},
    {"serve", cmd_serve, "the desk: a local web page to set up, check and compose problems"},
    {"perft", cmd_perft, "count legal-move tree leaves (move generator check and speed)"},
};

static void usage(FILE *f) {
  fprintf(f, "tsume %s - a workbench for tsume-shogi (詰将棋)\n\nusage: tsume <command> [options]\n\ncommands:\n",
          TSUME_VERSION);
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    fprintf(f, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
  fprintf(f, "\n'tsume <command> --help' describes each command. Options may come before or after the\n"
             "operands (files, SFENs); '--' ends the options.\n"
             "Exit status: 0 ok, 1 a check failed or nothing found, 2 bad usage or input, 3 I/O or database error.\n");
}

int main(int argc, char **argv) {
  core_init();
  /* past the file-size limit (ulimit -f) a write fails with EFBIG, reported and exit 3, instead of a kill */
  signal(SIGXFSZ, SIG_IGN);
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return cli_stdout_close("help");
  }
  if (!strcmp(argv[1], "--version")) {
    printf("tsume %s\n", TSUME_VERSION);
    return cli_stdout_close("--version");
  }
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    if (!strcmp(argv[1], COMMANDS[i].name)) {
      int rc = COMMANDS[i].run(argc - 1, argv + 1);
      /* what a command printed is only delivered once standard output is flushed */
      return cli_stdout_close(COMMANDS[i].name) ? 3 : rc;
    }
  char name[256];
  cli_escape(argv[1], name, sizeof name);
  fprintf(stderr, "tsume: unknown command '%s'\n\n", name);
  usage(stderr);
  return 2;
}
