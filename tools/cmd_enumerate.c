#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "dbutil.h"
#include "encode.h"
#include "material.h"
#include "retro_enum.h"
#include "tsdb.h"
#include "tsdb_bulk.h"
#include "tsdb_counts.h"
#include "tsdb_lock.h"

static const char ENUM_HELP[] =
    "usage: tsume enumerate --pieces SPEC --db PATH [--max-moves N] [--threads N]\n"
    "                       [--strict-last-move] [--strict-alternatives]\n"
    "                       [--resume | --force] [--stats] [--batch N] [--sort-mem MB]\n"
    "                       [--solver-hash MB] [--store all|complete|minimal] [--mpi]\n"
    "                       [--mpi-table shares|whole|remote] [--mem MB] [--concrete]\n"
    "Enumerates every tsume problem of a material by retrograde analysis and stores\n"
    "each one (canonical key, length, flags, main line) in the LMDB file PATH.\n"
    "\n"
    "SPEC names the attacker-side pieces: N4 (桂図式), L4 (香図式), G2P1, S2P1, S1N2,\n"
    "S1N1P1, G4S4 (金銀図式), or a range on one kind such as N1-4 (each count stored).\n"
    "Each piece of the spec is on the board (either side, promoted or not where\n"
    "legal) or in the attacker's hand; every other piece (kings excepted) is in the\n"
    "defender's hand; the defender's king is on the board and the attacker has none.\n"
    "A problem is an attacker-to-move position, defender not in check, with a mate;\n"
    "each mirror pair is stored once. Kinds: P L N S G B R; with a ranging piece\n"
    "(R B L) at most 4 pieces. Interpositions (a drop from the defender's hand, or\n"
    "a dropped piece moving in between later) are replies like any other, except\n"
    "futile ones (無駄合, see `tsume solve --help`), which are not counted; positions\n"
    "after a drop of a piece outside the material are valued by the solver.\n"
    "A problem has 余詰 (yozume) when at some attacker move of its main line but the\n"
    "last another check also mates within the remaining length, unless that check\n"
    "is 非限定 (higentei: the same move but for promotion, or the same piece dropped\n"
    "on another square of the same line to the king), or its line rejoins the main\n"
    "line at the same ply: 手順前後 (tejun-zengo: the same attacker moves in another\n"
    "order) or 迂回 (ukai: other moves). These three are flagged and tolerated as\n"
    "キズ, as the composition paper counts them (docs/design.md). A problem whose main line ends with 駒余り is also flagged\n"
    "henchou (変長) when a defence 2 or 4 plies shorter ends with the hand empty.\n"
    "(The flag futile-cut of earlier databases is no longer given: futility does not\n"
    "depend on the remaining length.) A drop's futility is valued within --max-moves.\n"
    "\n"
    "  --max-moves N       longest mate searched, in plies (default 31). A yozume whose\n"
    "                      alternative mate is longer than N is not seen.\n"
    "  --strict-last-move  alternatives at the last move (最終手余詰) make a problem\n"
    "                      incomplete (1-move problems always need a unique mate)\n"
    "  --strict-alternatives  非限定, 手順前後 and 迂回 make a problem incomplete too\n"
    "  --force             replace an existing database of this program at PATH\n"
    "  --resume            continue a run that was interrupted: the records already\n"
    "                      committed are kept and the rest is written; once its layers\n"
    "                      are done a run keeps its table in PATH-table (removed at\n"
    "                      the end, or before the write when the disk lacks room\n"
    "                      for the database), and a resumed run reads it instead\n"
    "                      of making the mates and layers again\n"
    "  --stats             print time per phase, positions per layer, peak memory and\n"
    "                      database size\n"
    "  --threads N         worker threads (default: the number of processors); the\n"
    "                      database is the same whatever the number\n"
    "  --batch N           records per write transaction (default 5000)\n"
    "  --sort-mem MB       memory for sorting the records before they are written\n"
    "                      (default 1024); beyond it sorted runs go to unlinked\n"
    "                      files beside PATH and are merged at the end\n"
    "  --solver-hash MB    with a ranging piece: the table of each thread's solver,\n"
    "                      which values the positions after drops (default 128, or\n"
    "                      less under a small --mem: an eighth of it over the threads)\n"
    "  --store MODE        which problems are written: all, complete (the complete\n"
    "                      works) or minimal (the minimal complete works). Default:\n"
    "                      all up to four pieces (at most 18 million problems, some\n"
    "                      1.2 GB), complete from five (G4S1: 295 million problems,\n"
    "                      19 GB with all; 144 million complete). The counts of\n"
    "                      every problem by length and flags are kept in the\n"
    "                      database either way: `query --count` answers for all of\n"
    "                      them; listings, export and verify see the stored ones\n"
    "  --mpi               a distributed run, under mpirun (builds with MPI only):\n"
    "                      `mpirun -np N tsume enumerate --mpi --pieces G2S2 --db PATH`.\n"
    "                      The table is split over the ranks for every phase (the\n"
    "                      layers made on records; see --mpi-table);\n"
    "                      each rank writes PATH.shard-RANK, which rank 0 merges into\n"
    "                      PATH (the same database as one process): the shards must\n"
    "                      be on a folder every rank sees. --threads and --mem are\n"
    "                      per rank (--mem's default: half of the machine's memory\n"
    "                      over its ranks).\n"
    "                      Each rank keeps its share of the table in\n"
    "                      PATH.shard-RANK-table (removed at the end, or before the\n"
    "                      shards are written when the disk lacks room for them and\n"
    "                      the database); --resume reads them when every rank (the\n"
    "                      same number of ranks) has its own.\n"
    "                      Not for materials with R, B or L\n"
    "  --mpi-table MODE    where --mpi's classification reads the records:\n"
    "                      shares (default) each rank keeps its share, which the\n"
    "                      ranks of its machine read in memory and the others by\n"
    "                      one-sided MPI reads (memory divided by the ranks); whole\n"
    "                      every machine holds the whole table once (no reads over\n"
    "                      the network; memory divided by a machine's ranks only);\n"
    "                      remote as shares, every other rank's share read one-sided\n"
    "                      as if on another machine (to measure that on one)\n"
    "  --mem MB            memory ceiling (default: half of the machine's memory). The\n"
    "                      table of positions takes up to 7/8 of it, then fills its\n"
    "                      slots to 90 %, then goes on in an unlinked file beside PATH\n"
    "                      that the system pages (slower; a disk that cannot take it\n"
    "                      stops the run with exit 3); the positions a phase gathers\n"
    "                      before inserting them keep 1/8 in memory and spill the rest\n"
    "                      to unlinked files beside PATH; the sort of the records gets\n"
    "                      what the table leaves (at most --sort-mem) and spills too;\n"
    "                      the working buffers (insertion chunks, caches, write\n"
    "                      batches) shrink with it. Peak RSS stays under it from\n"
    "                      about 32 MB up while the table fits in memory\n"
    "  --concrete          un-move and classify every concrete position of a record\n"
    "                      on its own, not through the record that stands for all\n"
    "                      the squares of its free piece (an extended position,\n"
    "                      docs/enumerator.md): the reference path, slower, with the\n"
    "                      same database and figures\n";

#define RULE_STRICT_LAST 1u
#define RULE_STRICT_ALT 2u
/* materials with a rook, bishop or lance: values under the 無駄合 rule with its second
 * part, the same mate (a database made under the first part alone is another one) */
#define RULE_FUTILE_SAME 4u
/* --store, bits 16-17 of the rule options (0: all), so a resumed run keeps it */
#define RULE_STORE_SHIFT 16

enum { STORE_ALL, STORE_COMPLETE, STORE_MINIMAL };
/* Without --store, sets of this many pieces and more store the complete works only. */
#define STORE_COMPLETE_PIECES 5
static const char *const STORE_NAMES[] = {"all", "complete", "minimal"};

typedef struct {
  uint64_t t0, last;
  bool tty;
  char phase[16]; /* the phase and layer the ETA is for */
  int layer;
  uint64_t phase_t0;
} Progress;

static void on_progress(const RetroProgress *p, void *ctx) {
  Progress *pr = ctx;
  uint64_t now = cli_now_ms();
  if (now - pr->last < (pr->tty ? 250u : 2000u)) return;
  pr->last = now;
  double el = (double)(now - pr->t0) / 1000.0;
  double frac = p->work_total ? (double)p->work_done / (double)p->work_total : 0;
  double phase_el = (double)(now - pr->phase_t0) / 1000.0;
  if (strcmp(pr->phase, p->phase) != 0 || pr->layer != p->layer) {
    snprintf(pr->phase, sizeof pr->phase, "%s", p->phase);
    pr->layer = p->layer;
    pr->phase_t0 = now;
    phase_el = 0;
  }
  double eta = frac > 0.01 ? phase_el / frac - phase_el : -1;
  char etas[32] = "?";
  if (eta >= 0) snprintf(etas, sizeof etas, "%.0fs", eta);
  /* rate: the phase's new positions per second */
  fprintf(stderr, "%s%-8s layer %3d  positions %12llu  new %10llu  %5.1f%%  %.0f new/s  elapsed %.1fs  eta %s  rss %ld MB%s",
          pr->tty ? "\r" : "", p->phase, p->layer, (unsigned long long)p->positions,
          (unsigned long long)p->layer_new, 100.0 * frac, phase_el > 0 ? (double)p->layer_new / phase_el : 0.0, el,
          etas, cli_peak_rss_kb() / 1024, pr->tty ? "" : "\n");
  fflush(stderr);
}

/* The problems of the run: counted per length, and handed to the sorted bulk
 * writer (db/tsdb_bulk.h) as database records. */
typedef struct {
  TsDbBulk *bulk;
  TsDbCounts *counts;
  uint32_t need;   /* flags a problem needs to be stored */
  uint64_t seen, stored;
  uint64_t by_len[RETRO_MAX_LEN + 1][4]; /* all, complete, minimal complete, yozume */
  uint64_t komaamari[RETRO_MAX_LEN + 1];
  TsRecord rec;
  TsError err;
} Sink;

static int on_problem(const RetroProblem *p, void *ctx) {
  Sink *w = ctx;
  int len = p->length;
  w->by_len[len][0]++;
  if (p->flags & RETRO_F_COMPLETE) w->by_len[len][1]++;
  if ((p->flags & RETRO_F_COMPLETE) && (p->flags & RETRO_F_MINIMAL)) w->by_len[len][2]++;
  if (p->flags & RETRO_F_YOZUME) w->by_len[len][3]++;
  if (p->flags & RETRO_F_KOMAAMARI) w->komaamari[len]++;
  w->seen++;
  if (tsdb_counts_add(w->counts, (unsigned)len, p->flags, p->symmetric))
    return ts_error_set(&w->err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
  if ((p->flags & w->need) != w->need) return 0;
  w->stored++;
  TsRecord *r = &w->rec;
  bool mirrored = p->mirrored;
  r->key_len = (uint8_t)p->code_len;
  memcpy(r->key, p->code, (size_t)p->code_len);
  r->length = (uint16_t)len;
  r->flags = p->flags;
  r->root_mates = (uint8_t)(p->root_mates > 255 ? 255 : p->root_mates);
  r->line_len = (uint16_t)p->line_len;
  for (int i = 0; i < p->line_len; i++) r->line[i] = move_compact(mirrored ? move_mirror(p->line[i]) : p->line[i]);
  return tsdb_bulk_add(w->bulk, r, &w->err);
}

/* The sorted write's progress line. */
static void on_write_progress(uint64_t done, uint64_t total, void *ctx) {
  Progress *pr = ctx;
  double el = (double)(cli_now_ms() - pr->phase_t0) / 1000.0;
  fprintf(stderr, "%swrite  %llu of %llu records  %.1f%%  elapsed %.1fs%s", pr->tty ? "\r" : "",
          (unsigned long long)done, (unsigned long long)total, 100.0 * (double)done / (double)total, el,
          pr->tty ? "" : "\n");
  fflush(stderr);
}

/* Positions of value L in the retrograde table: attacker to move when L is odd. */
static unsigned long long layer_positions(const RetroStats *st, int L) {
  return (unsigned long long)((L & 1) ? st->attacker_by_len[L] : st->defender_by_len[L]);
}

/* The generation figures (dbutil.h DB_META_GENERATION) into the database's meta. */
static int store_generation(TsDb *db, const RetroStats *st, const char *spec, int max_moves, TsError *err) {
  size_t cap = 4096 + 96 * (RETRO_MAX_LEN + 2), n = 0;
  char *t = malloc(cap);
  if (!t) return ts_error_set(err, TS_ERR_NOMEM, "", 0, 0, "out of memory");
  n += (size_t)snprintf(t + n, cap - n, "material\t%s\nmax_moves\t%d\nlayers_cut\t%d\nmate_positions\t%llu\n", spec,
                        max_moves, st->layers_cut, (unsigned long long)st->mates);
  n += (size_t)snprintf(t + n, cap - n, "table_positions\t%llu\nextended_positions\t%llu\n",
                        (unsigned long long)st->entries, (unsigned long long)st->records);
  n += (size_t)snprintf(t + n, cap - n, "drop_only_checks\t%llu\nsolver_valued\t%llu\n",
                        (unsigned long long)st->seeds, (unsigned long long)st->solver_calls);
  n += (size_t)snprintf(t + n, cap - n, "layer\tside\tpositions\tyozume\tfuzume\n");
  for (int L = 1; L <= st->last_layer + 1 && L <= RETRO_MAX_LEN; L++) {
    unsigned long long test = (L & 1) ? st->yozume_hits[L] : st->fuzume_hits[L];
    n += (size_t)snprintf(t + n, cap - n, (L & 1) ? "%d\tattacker\t%llu\t%llu\t-\n" : "%d\tdefender\t%llu\t-\t%llu\n",
                          L, layer_positions(st, L), test);
  }
  int rc = tsdb_meta_put_raw(db, DB_META_GENERATION, t, n, err);
  free(t);
  return rc;
}

/* enumerate --stats: time per phase, the table, the enumeration paper's tests per layer, memory and disk; resumed: the
 * table was read from the checkpoint (its mates and layers times are the run's before). */
static void print_stats(TsDb *db, const RetroStats *st, const TsDbBulkStats *bs, uint64_t t0, uint64_t t1,
                        uint64_t t2, bool resumed) {
  TsDbStats ds;
  memset(&ds, 0, sizeof ds);
  tsdb_stats(db, &ds, NULL);
  printf("time: mates %.2f s, layers %.2f s%s, classify+store %.2f s, total %.2f s\n", st->ms_mates / 1000.0,
         st->ms_layers / 1000.0, resumed ? " (the run before: the table read from its checkpoint)" : "",
         (t2 - t1) / 1000.0, (t2 - t0) / 1000.0);
  printf("mate positions %llu; table: %llu positions in %llu extended positions (%.1f MB%s)\n",
         (unsigned long long)st->mates, (unsigned long long)st->entries, (unsigned long long)st->records,
         st->table_bytes / 1048576.0,
         st->table_file    ? ", past --mem: in a file beside the database"
         : st->table_dense ? ", filled past 60 % under --mem"
                           : "");
  printf("positions per layer (all sub-materials): ");
  for (int n = 1; n <= st->last_layer + 1 && n <= RETRO_MAX_LEN; n++)
    printf("%s%d:%llu", n > 1 ? " " : "", n, layer_positions(st, n));
  printf("\n余詰め判定 per attacker layer (positions reached again: another check mates): ");
  for (int n = 1; n <= st->last_layer && n <= RETRO_MAX_LEN; n += 2)
    printf("%s%d:%llu", n > 1 ? " " : "", n, (unsigned long long)st->yozume_hits[n]);
  printf("\n不詰め判定 per defender layer (candidates with a reply not known to mate): ");
  for (int n = 2; n <= st->last_layer + 1 && n <= RETRO_MAX_LEN; n += 2)
    printf("%s%d:%llu", n > 2 ? " " : "", n, (unsigned long long)st->fuzume_hits[n]);
  if (st->seeds || st->solver_calls)
    printf("\nranging pieces: %llu checks answered only by drops, %llu positions valued by the solver",
           (unsigned long long)st->seeds, (unsigned long long)st->solver_calls);
  if (bs->runs)
    printf("\nsort: %d runs, %.1f MB spilled (%.1f MB on disk, zstd) and merged", bs->runs, bs->run_bytes / 1048576.0,
           bs->run_disk / 1048576.0);
  if (bs->merges)
    printf(" (a merge reads at most %d runs at once under the sort's memory: %d merges of runs into runs "
           "before the last)",
           bs->merge_width, bs->merges);
  if (st->spilled_bytes)
    printf("\nspilled: %.1f MB of mates and new positions went to files beside the database (--mem)",
           st->spilled_bytes / 1048576.0);
  printf("\npeak RSS %ld MB; database %.2f MB on disk (%llu records; the write was estimated at up to %.1f MB",
         cli_peak_rss_kb() / 1024, ds.disk_bytes / 1048576.0, (unsigned long long)ds.entries,
         bs->db_need / 1048576.0);
  if (bs->released)
    printf("; %.1f MB of the file dropped from the page cache once written back", bs->released / 1048576.0);
  printf(")\n");
}

typedef struct {
  const char *spec, *path;
  uint64_t max_moves, batch, sort_mb, solver_mb, threads, mem_mb;
  bool resume, stats, strict, strict_alt, force, mpi, concrete, solver_given, mem_given;
  int store;
  RetroTableMode mpi_table;
  Material mat;
  TsDbMeta meta;
} EnumOpts;

/* -1 when the options are good, else the exit status (help printed: 0). */
static int parse_options(int argc, char **argv, EnumOpts *o) {
  memset(o, 0, sizeof *o);
  o->max_moves = 31;
  o->batch = 5000;
  o->sort_mb = 1024;
  o->solver_mb = RETRO_SOLVER_HASH_MB;
  o->threads = (uint64_t)cli_default_threads();
  o->store = -1; /* by the size of the set, once it is known */
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
  o->mem_mb = pages > 0 && psize > 0 ? ((uint64_t)pages * (uint64_t)psize >> 20) / 2 : 4096;
  static const struct option LONG[] = {
      {"help", no_argument, NULL, 'h'},           {"pieces", required_argument, NULL, 'p'},
      {"db", required_argument, NULL, 'd'},       {"max-moves", required_argument, NULL, 'm'},
      {"threads", required_argument, NULL, 't'},  {"batch", required_argument, NULL, 'b'},
      {"solver-hash", required_argument, NULL, 'H'}, {"sort-mem", required_argument, NULL, 's'},
      {"resume", no_argument, NULL, 'r'},         {"stats", no_argument, NULL, 'S'},
      {"force", no_argument, NULL, 'f'},          {"strict-last-move", no_argument, NULL, 'L'},
      {"strict-alternatives", no_argument, NULL, 'A'}, {"store", required_argument, NULL, 'T'},
      {"mpi", no_argument, NULL, 'M'},            {"mem", required_argument, NULL, 'G'},
      {"concrete", no_argument, NULL, 'C'},       {"mpi-table", required_argument, NULL, 'X'},
      {NULL, 0, NULL, 0}};
  optind = 1;
  opterr = 0;
  for (int c; (c = getopt_long(argc, argv, ":h", LONG, NULL)) != -1;) {
    switch (c) {
    case 'h': fputs(ENUM_HELP, stdout); return 0;
    case 'p': o->spec = optarg; break;
    case 'd': o->path = optarg; break;
    case 'm':
      if (!cli_parse_u64(optarg, &o->max_moves) || o->max_moves < 1 || o->max_moves > RETRO_MAX_LEN)
        return cli_usage_error("enumerate", "--max-moves needs a number from 1 to %d", RETRO_MAX_LEN);
      break;
    case 't':
      if (!cli_parse_u64(optarg, &o->threads) || o->threads < 1 || o->threads > 256)
        return cli_usage_error("enumerate", "--threads needs a number from 1 to 256");
      break;
    case 'b':
      if (!cli_parse_u64(optarg, &o->batch) || o->batch < 1 || o->batch > 1000000)
        return cli_usage_error("enumerate", "--batch needs a number from 1 to 1000000");
      break;
    case 'H':
      if (!cli_parse_u64(optarg, &o->solver_mb) || o->solver_mb < 1 || o->solver_mb > 65536)
        return cli_usage_error("enumerate", "--solver-hash needs a number of megabytes from 1 to 65536");
      o->solver_given = true;
      break;
    case 's':
      if (!cli_parse_u64(optarg, &o->sort_mb) || o->sort_mb < 1 || o->sort_mb > ((uint64_t)1 << 20))
        return cli_usage_error("enumerate", "--sort-mem needs a number of megabytes from 1 to 1048576");
      break;
    case 'r': o->resume = true; break;
    case 'S': o->stats = true; break;
    case 'f': o->force = true; break;
    case 'L': o->strict = true; break;
    case 'A': o->strict_alt = true; break;
    case 'T':
      for (o->store = STORE_MINIMAL; o->store >= 0 && strcmp(optarg, STORE_NAMES[o->store]); o->store--) continue;
      if (o->store < 0) return cli_usage_error("enumerate", "--store needs all, complete or minimal (got '%s')", optarg);
      break;
    case 'M': o->mpi = true; break;
    case 'X':
      if (!strcmp(optarg, "shares"))
        o->mpi_table = RETRO_TABLE_SHARES;
      else if (!strcmp(optarg, "whole"))
        o->mpi_table = RETRO_TABLE_WHOLE;
      else if (!strcmp(optarg, "remote"))
        o->mpi_table = RETRO_TABLE_REMOTE;
      else
        return cli_usage_error("enumerate", "--mpi-table needs shares, whole or remote (got '%s')", optarg);
      break;
    case 'C': o->concrete = true; break;
    case 'G':
      if (!cli_parse_u64(optarg, &o->mem_mb) || o->mem_mb < 1 || o->mem_mb > ((uint64_t)1 << 30))
        return cli_usage_error("enumerate", "--mem needs a number of megabytes from 1 to 1073741824");
      o->mem_given = true;
      break;
    default: return cli_getopt_error("enumerate", c, argv);
    }
  }
  if (optind < argc) return cli_usage_error("enumerate", "unexpected argument '%s'", argv[optind]);
  if (o->resume && o->force)
    return cli_usage_error("enumerate", "--resume and --force contradict each other: continue the database or replace it");
  if (!o->spec) return cli_usage_error("enumerate", "missing --pieces SPEC");
  if (!o->path) return cli_usage_error("enumerate", "missing --db PATH");
#ifndef TSUME_HAVE_MPI
  if (o->mpi) return cli_usage_error("enumerate", "--mpi: this tsume was built without MPI (install libopenmpi-dev and build again)");
#endif
  TsError err;
  if (material_parse(o->spec, &o->mat, &err)) return cli_fail("enumerate", &err);
  if (o->store < 0) o->store = material_total(&o->mat) >= STORE_COMPLETE_PIECES ? STORE_COMPLETE : STORE_ALL;
  /* the solvers' tables (ranging pieces): an eighth of --mem over the threads, unless given */
  uint64_t solver_fit = (o->mem_mb / 8) / (o->threads ? o->threads : 1);
  if (!o->solver_given && o->solver_mb > solver_fit) o->solver_mb = solver_fit ? solver_fit : 1;
  snprintf(o->meta.material, sizeof o->meta.material, "%s", o->spec);
  bool ranging = o->mat.count[ROOK] + o->mat.count[BISHOP] + o->mat.count[LANCE] > 0;
  o->meta.rule_options = (o->strict ? RULE_STRICT_LAST : 0) | (o->strict_alt ? RULE_STRICT_ALT : 0) |
                         (ranging ? RULE_FUTILE_SAME : 0) | ((uint32_t)o->max_moves << 8) |
                         ((uint32_t)o->store << RULE_STORE_SHIFT);
  return -1;
}

/*
 * Takes the writer lock of path (before --force removes anything: a second
 * writer stops here, exit 3), applies --force / --resume and opens the
 * database; replace: any old file goes (the MPI shards). 0 or the exit status.
 */
static int open_target(const EnumOpts *o, const char *path, bool replace, TsDbWriterLock **lockp, TsDb **db) {
  TsError err;
  if (tsdb_writer_lock(path, lockp, &err)) return cli_fail("enumerate", &err);
  bool exists = access(path, F_OK) == 0;
  char lock[4096];
  snprintf(lock, sizeof lock, "%s-lock", path);
  if (exists && replace) {
    unlink(path);
    unlink(lock);
    exists = false;
  }
  if (exists && o->force && !o->resume) {
    TsDb *old;
    TsError oerr;
    /* only a database of ours is replaced */
    if (tsdb_open(path, TSDB_RDONLY, NULL, &old, &oerr) != TS_OK) return cli_fail("enumerate", &oerr);
    tsdb_close(old);
    if (unlink(path) != 0) {
      cli_message("enumerate", "cannot remove %s: %s", path, strerror(errno));
      return 3;
    }
    unlink(lock);
    exists = false;
  }
  if (exists && !o->resume) {
    cli_message("enumerate", "%s already exists; use --resume to continue it, --force to replace it", path);
    return 2;
  }
  if (tsdb_open(path, TSDB_CREATE | TSDB_NOSYNC, &o->meta, db, &err)) return cli_fail("enumerate", &err);
  return 0;
}

/* The sort's memory: --sort-mem, or less when the table leaves less of --mem
 * (a quarter of --mem and 8 MB, at most 64 MB, kept for the rest: the
 * program, the threads' caches, the write batches; at least 2 MB). */
static size_t sort_memory(const EnumOpts *o, const RetroStats *st) {
  uint64_t mem = o->mem_mb << 20, want = o->sort_mb << 20, rest = mem / 4 + ((uint64_t)8 << 20);
  if (rest > ((uint64_t)64 << 20)) rest = (uint64_t)64 << 20;
  uint64_t keep = st->table_bytes + rest;
  uint64_t room = mem > keep ? mem - keep : 0;
  if (room < ((uint64_t)2 << 20)) room = (uint64_t)2 << 20;
  return (size_t)(want < room ? want : room);
}

/* Classifies every problem of the material (each count of a range, smallest first) into w. */
static int classify_into(Retro *r, const Material *mat, Sink *w) {
  int count[HAND_PT_NB], rc = 0;
  memcpy(count, mat->count, sizeof count);
  PieceType rk = PT_NONE;
  for (int t = PAWN; t <= GOLD; t++)
    if (mat->min_count[t] != mat->count[t]) rk = (PieceType)t;
  int lo = rk ? mat->min_count[rk] : 0, hi = rk ? mat->count[rk] : 0;
  for (int c = lo; c <= hi && !rc; c++) {
    if (rk) count[rk] = c;
    rc = retro_foreach_problem(r, count, on_problem, w);
  }
  if (rc == TS_ERR_NOMEM && !w->err.code) ts_error_set(&w->err, rc, "enumerate", 0, 0, "out of memory");
  return rc;
}

static int sink_init(Sink *w, int store) {
  memset(w, 0, sizeof *w);
  w->need = store == STORE_ALL ? 0 : store == STORE_COMPLETE ? RETRO_F_COMPLETE : RETRO_F_COMPLETE | RETRO_F_MINIMAL;
  w->counts = tsdb_counts_new();
  return w->counts ? TS_OK : ts_error_set(&w->err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory");
}

static void sink_free(Sink *w) {
  tsdb_bulk_free(w->bulk);
  tsdb_counts_free(w->counts);
  w->bulk = NULL;
  w->counts = NULL;
}

/* The first line and the per-length table of a finished run; a warning when the
 * layers were cut at --max-moves. */
static void print_summary(const EnumOpts *o, const Sink *w, const RetroStats *st) {
  if (st->layers_cut)
    cli_message("enumerate",
                "warning: positions were still being added at --max-moves %d: another check may mate at a "
                "greater length, so no problem is certified complete (those without a flaw within %d plies are "
                "flagged 'unsettled'); a larger --max-moves lets the layers run out",
                (int)o->max_moves, (int)o->max_moves);
  /* the longest mate found, and the bound the search had (--max-moves) */
  int longest = 0;
  for (int len = 1; len <= RETRO_MAX_LEN; len++)
    if (w->by_len[len][0]) longest = len;
  if (o->store == STORE_ALL)
    printf("material %s: %llu problems stored in %s (longest %d plies; searched to %d)\n", o->spec,
           (unsigned long long)w->seen, o->path, longest, (int)o->max_moves);
  else
    printf("material %s: %llu problems, %llu of them (--store %s) stored in %s (longest %d plies; searched to %d)\n",
           o->spec, (unsigned long long)w->seen, (unsigned long long)w->stored, STORE_NAMES[o->store], o->path, longest,
           (int)o->max_moves);
  printf("%6s %10s %10s %10s %10s %10s\n", "length", "problems", "complete", "minimal", "yozume", "komaamari");
  for (int len = 1; len <= RETRO_MAX_LEN; len++)
    if (w->by_len[len][0])
      printf("%6d %10llu %10llu %10llu %10llu %10llu\n", len, (unsigned long long)w->by_len[len][0],
             (unsigned long long)w->by_len[len][1], (unsigned long long)w->by_len[len][2],
             (unsigned long long)w->by_len[len][3], (unsigned long long)w->komaamari[len]);
}

static int report_anomalies(const RetroStats *st) {
  if (!st->anomalies) return 0;
  fprintf(stderr,
          "tsume enumerate: %llu positions were valued out of layer order or cut short by a solver limit; "
          "the counts may be wrong\n",
          (unsigned long long)st->anomalies);
  return 1;
}

/* The table's checkpoint and what a run killed while writing it left; true if the checkpoint was there. */
static bool ckpt_remove(const char *ckpt) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", ckpt);
  unlink(tmp);
  return unlink(ckpt) == 0;
}

/*
 * The table of the run: with --resume, the one a run before kept in ckpt (the
 * table's checkpoint, PATH-table) when it is of this material and these
 * rules; else made (retro_run) and kept there for a run that resumes this
 * one. A checkpoint that cannot be used or written is said and passed over.
 */
static int table_of_run(const EnumOpts *o, Retro *r, const char *ckpt, bool *loaded, TsError *err) {
  uint64_t t0 = cli_now_ms();
  *loaded = false;
  if (o->resume) {
    TsError cerr;
    int rc = retro_checkpoint_load(r, ckpt, &cerr);
    if (rc == TS_OK) {
      const RetroStats *st = retro_stats(r);
      fprintf(stderr, "resuming: the table (%llu positions, %llu MB) read from %s in %.1f s\n",
              (unsigned long long)st->entries, (unsigned long long)(st->table_bytes >> 20), ckpt,
              (cli_now_ms() - t0) / 1000.0);
      *loaded = true;
      return TS_OK;
    }
    if (rc != TS_ERR_NOTFOUND) fprintf(stderr, "tsume enumerate: %s: %s; the table is made again\n", ckpt, cerr.msg);
  } else {
    ckpt_remove(ckpt); /* of a database replaced or removed */
  }
  int rc = retro_run(r, err);
  if (rc) return rc;
  TsError cerr;
  if (retro_checkpoint_save(r, ckpt, &cerr))
    fprintf(stderr, "tsume enumerate: %s: %s; a resumed run will make the table again\n", ckpt, cerr.msg);
  return TS_OK;
}

/*
 * Before the sorted write: when the disk lacks room for what the database
 * will grow by (tsdb_bulk_db_need) with a margin, the table's checkpoint is
 * removed to make room (a resumed run then makes the table again; the records
 * written stay written); if there is still too little, it is said, and the
 * write goes on (the estimate is on the high side; a write that fails for
 * room is an error of its own and leaves the database as its last commit).
 */
/* Whether the disk of path has room for need bytes with a margin (2 % and 256 MB); *avail: what it has. */
static bool room_for(const char *path, uint64_t need, uint64_t *avail) {
  *avail = tsdb_disk_available(path);
  return *avail == UINT64_MAX || *avail >= need + need / 50 + ((uint64_t)256 << 20);
}

static void make_room(const char *path, const char *ckpt, const TsDbBulk *bulk) {
  uint64_t need = tsdb_bulk_db_need(bulk), avail;
  if (room_for(path, need, &avail)) return;
  if (ckpt_remove(ckpt)) {
    fprintf(stderr,
            "tsume enumerate: %s removed to make room: the database may grow by %llu MB and the disk had %llu MB "
            "free; a resumed run makes the table again\n",
            ckpt, (unsigned long long)(need >> 20), (unsigned long long)(avail >> 20));
    if (room_for(path, need, &avail)) return;
  }
  fprintf(stderr, "tsume enumerate: %s: the database may grow by %llu MB and the disk has %llu MB free\n", path,
          (unsigned long long)(need >> 20), (unsigned long long)(avail >> 20));
}

static int enumerate_single(const EnumOpts *o, TsDbWriterLock **lockp) {
  TsDb *db;
  int rc = open_target(o, o->path, false, lockp, &db);
  if (rc) return rc;
  TsError err;
  TsDbBulkOptions bo = {.mem_limit = (size_t)o->sort_mb << 20, .batch = (size_t)o->batch};
  if (o->resume) {
    if ((rc = tsdb_bulk_resume_point(db, &bo.skip, &err))) {
      tsdb_close(db);
      return cli_fail("enumerate", &err);
    }
    if (bo.skip) fprintf(stderr, "resuming: %llu records already committed\n", (unsigned long long)bo.skip);
  }
  Progress pr = {cli_now_ms(), 0, isatty(2), "", -1, cli_now_ms()};
  RetroOptions ro = {.max_moves = (int)o->max_moves, .strict_last_move = o->strict,
                      .strict_alternatives = o->strict_alt, .threads = (int)o->threads,
                      .solver_hash_mb = (int)o->solver_mb, .progress = on_progress, .progress_ctx = &pr,
                      .table_limit = (o->mem_mb << 20) / 8 * 7, .list_mem = (o->mem_mb << 20) / 8,
                      .spill_prefix = o->path, .concrete_unmoves = o->concrete};
  bo.progress = on_write_progress;
  bo.progress_ctx = &pr;
  Retro *r = NULL;
  Sink w;
  if (sink_init(&w, o->store)) {
    tsdb_close(db);
    return cli_fail("enumerate", &w.err);
  }
  uint64_t t0 = cli_now_ms(), t1 = t0;
  char ckpt[4096];
  snprintf(ckpt, sizeof ckpt, "%s-table", o->path);
  bool loaded = false;
  if (!(rc = retro_create(&o->mat, &ro, &r, &err)) && !(rc = table_of_run(o, r, ckpt, &loaded, &err))) {
    bo.mem_limit = sort_memory(o, retro_stats(r));
    rc = tsdb_bulk_create(db, o->path, &bo, &w.bulk, &err);
  }
  if (rc) {
    retro_free(r);
    sink_free(&w);
    tsdb_close(db);
    return cli_fail("enumerate", &err);
  }
  t1 = cli_now_ms();
  rc = classify_into(r, &o->mat, &w);
  const RetroStats *st = retro_stats(r);
  pr.phase_t0 = cli_now_ms();
  if (!rc) make_room(o->path, ckpt, w.bulk);
  if (!rc) rc = tsdb_bulk_finish(w.bulk, &w.err);
  if (!rc) rc = tsdb_counts_store(db, w.counts, STORE_NAMES[o->store], &w.err);
  /* written last, so a database that holds them is a finished one */
  if (!rc) rc = store_generation(db, st, o->spec, (int)o->max_moves, &w.err);
  if (!rc) rc = tsdb_sync(db, &w.err);
  if (!rc) ckpt_remove(ckpt); /* the run is whole: nothing to resume */
  uint64_t t2 = cli_now_ms();
  if (pr.tty) fprintf(stderr, "\n");
  if (rc) {
    sink_free(&w);
    retro_free(r);
    tsdb_close(db);
    return cli_fail("enumerate", &w.err);
  }
  print_summary(o, &w, st);
  if (o->stats) {
    TsDbBulkStats bs;
    tsdb_bulk_stats(w.bulk, &bs);
    print_stats(db, st, &bs, t0, t1, t2, loaded);
  }
  rc = report_anomalies(st);
  sink_free(&w);
  retro_free(r);
  tsdb_close(db);
  return rc;
}

#ifdef TSUME_HAVE_MPI
/* The per-length table of a run from its count table (the MPI mode, where the
 * problems were counted by the ranks). */
static void sink_from_counts(Sink *w, const TsDbCounts *c) {
  memset(w->by_len, 0, sizeof w->by_len);
  memset(w->komaamari, 0, sizeof w->komaamari);
  w->seen = 0;
  for (size_t i = 0; i < tsdb_counts_size(c); i++) {
    TsDbCountRow row;
    tsdb_counts_at(c, i, &row);
    unsigned len = row.length <= RETRO_MAX_LEN ? row.length : RETRO_MAX_LEN;
    w->seen += row.count;
    w->by_len[len][0] += row.count;
    if (row.flags & RETRO_F_COMPLETE) w->by_len[len][1] += row.count;
    if ((row.flags & RETRO_F_COMPLETE) && (row.flags & RETRO_F_MINIMAL)) w->by_len[len][2] += row.count;
    if (row.flags & RETRO_F_YOZUME) w->by_len[len][3] += row.count;
    if (row.flags & RETRO_F_KOMAAMARI) w->komaamari[len] += row.count;
  }
}

/* Rank 0: the shards (their records and count tables) into the database. */
static int merge_shards(const EnumOpts *o, int nranks, Sink *w, TsError *err) {
  for (int k = 0; k < nranks; k++) {
    char shard[4096];
    snprintf(shard, sizeof shard, "%s.shard-%d", o->path, k);
    TsDb *sdb;
    int rc = tsdb_open(shard, TSDB_RDONLY, NULL, &sdb, err);
    if (rc) return rc;
    uint64_t added = 0;
    rc = tsdb_bulk_add_db(w->bulk, sdb, &added, err);
    w->stored += added;
    TsDbCounts *c = NULL;
    char store[16];
    if (!rc) rc = tsdb_counts_load(sdb, &c, store, sizeof store, err);
    if (!rc) rc = tsdb_counts_merge(w->counts, c) ? ts_error_set(err, TS_ERR_NOMEM, "enumerate", 0, 0, "out of memory") : 0;
    tsdb_counts_free(c);
    tsdb_close(sdb);
    if (rc) return rc;
  }
  return TS_OK;
}

/*
 * enumerate --mpi's room, before the shards are written (every rank calls
 * it): the shards and then rank 0's merge into the database take about twice
 * the ranks' estimates together, on the folder every rank sees (PATH's); when
 * the disk lacks that with a margin, every rank's checkpoint of the table is
 * removed, as make_room does in one process.
 */
static void make_room_mpi(const EnumOpts *o, const char *ckpt, const TsDbBulk *bulk, int rank) {
  uint64_t need = 2 * retro_mpi_sum(tsdb_bulk_db_need(bulk)), avail = 0;
  if (retro_mpi_all_ok(rank != 0 || room_for(o->path, need, &avail))) return;
  bool had = retro_mpi_sum(ckpt_remove(ckpt)) > 0;
  if (rank != 0) return;
  if (had) {
    fprintf(stderr,
            "tsume enumerate: %s.shard-*-table removed to make room: the shards and the database may take %llu MB and "
            "the disk had %llu MB free; a resumed run makes the table again\n",
            o->path, (unsigned long long)(need >> 20), (unsigned long long)(avail >> 20));
    if (room_for(o->path, need, &avail)) return;
  }
  fprintf(stderr, "tsume enumerate: %s: the shards and the database may take %llu MB and the disk has %llu MB free\n",
          o->path, (unsigned long long)(need >> 20), (unsigned long long)(avail >> 20));
}

/*
 * enumerate --mpi, every rank: the mates and layers over the ranks
 * (retro_run_distributed), each rank's problems into its shard PATH.shard-RANK
 * (its own writer lock), then rank 0 merges the shards into PATH in key order
 * and the shards are removed. The shards must be on a file system every rank
 * and rank 0 see (one machine, or a shared folder on a cluster). A failure on
 * any rank stops them all (exit 3).
 */
/* Removes path and its LMDB lock file when yes (a file this run made and has no use for). */
static void remove_made(const char *path, bool yes) {
  if (!yes) return;
  char lk[4096];
  unlink(path);
  if (snprintf(lk, sizeof lk, "%s-lock", path) < (int)sizeof lk) unlink(lk);
}

static int enumerate_mpi(const EnumOpts *opts) {
  int rank = 0, nranks = 1;
  if (retro_mpi_init(NULL, NULL, &rank, &nranks)) {
    cli_message("enumerate", "cannot start MPI");
    return 3;
  }
  /* --mem is per rank: by default half of the machine's memory shared by its ranks */
  EnumOpts mo = *opts;
  int here = retro_mpi_machine_ranks();
  if (!mo.mem_given && here > 1) mo.mem_mb = mo.mem_mb / (uint64_t)here > 64 ? mo.mem_mb / (uint64_t)here : 64;
  const EnumOpts *o = &mo;
  /* refused before a file is made: a refused run leaves nothing */
  if (o->mat.count[ROOK] || o->mat.count[BISHOP] || o->mat.count[LANCE]) {
    int st = 2;
    if (rank == 0)
      st = cli_usage_error("enumerate", "--mpi takes a material without ranging pieces (R, B, L); %s has one: run it "
                                        "without --mpi",
                           o->spec);
    retro_mpi_finalize();
    return st;
  }
  char shard[4096];
  snprintf(shard, sizeof shard, "%s.shard-%d", o->path, rank);
  TsDbWriterLock *lock = NULL, *slock = NULL;
  TsDb *db = NULL, *sdb = NULL;
  int st = 0;
  /* a database this run makes is removed again when the run fails before its table is kept */
  bool db_made = rank == 0 && access(o->path, F_OK) != 0, table_kept = false;
  if (rank == 0) st = open_target(o, o->path, false, &lock, &db);
  if (!st) st = open_target(o, shard, true, &slock, &sdb);
  if (!retro_mpi_all_ok(st == 0)) {
    tsdb_close(sdb);
    tsdb_close(db);
    remove_made(shard, true);
    remove_made(o->path, db_made && st != 0 && db); /* not another writer's file */
    tsdb_writer_unlock(slock);
    tsdb_writer_unlock(lock);
    retro_mpi_finalize();
    return st ? st : 3;
  }
  Progress pr = {cli_now_ms(), 0, isatty(2), "", -1, cli_now_ms()};
  RetroOptions ro = {.max_moves = (int)o->max_moves, .strict_last_move = o->strict,
                      .strict_alternatives = o->strict_alt, .threads = (int)o->threads,
                      .solver_hash_mb = (int)o->solver_mb, .progress = rank == 0 ? on_progress : NULL,
                      .progress_ctx = &pr, .table_limit = (o->mem_mb << 20) / 8 * 7,
                      .list_mem = (o->mem_mb << 20) / 8, .spill_prefix = shard, .concrete_unmoves = o->concrete};
  TsDbBulkOptions bo = {.mem_limit = (size_t)o->sort_mb << 20, .batch = (size_t)o->batch};
  TsError err;
  ts_error_clear(&err);
  Retro *r = NULL;
  Sink w;
  uint64_t t0 = cli_now_ms(), t1 = t0, t2 = t0;
  int rc = sink_init(&w, o->store);
  if (rc) err = w.err;
  if (!rc) rc = retro_create(&o->mat, &ro, &r, &err);
  if (!retro_mpi_all_ok(rc == 0)) goto fail;
  /* each rank's share of the table after the layers: PATH.shard-RANK-table */
  char ckpt[sizeof shard + 8];
  snprintf(ckpt, sizeof ckpt, "%s-table", shard);
  bool loaded = false;
  if (o->resume) {
    retro_mpi_attach(r);
    TsError cerr;
    int lrc = retro_checkpoint_load(r, ckpt, &cerr);
    if (lrc != TS_OK && lrc != TS_ERR_NOTFOUND)
      fprintf(stderr, "tsume enumerate: rank %d: %s: %s\n", rank, ckpt, cerr.msg);
    /* all or none: the shares are one table */
    loaded = table_kept = retro_mpi_all_ok(lrc == TS_OK);
    if (!loaded && lrc == TS_OK) retro_checkpoint_unload(r);
    if (rank == 0)
      fprintf(stderr, loaded ? "resuming: the table read from the %d ranks' checkpoints (%s, ...) in %.1f s\n"
                             : "resuming: the table is made again (not every one of the %d ranks has a checkpoint)\n",
              nranks, ckpt, (cli_now_ms() - t0) / 1000.0);
  } else {
    ckpt_remove(ckpt); /* of a database replaced or removed */
  }
  if (!loaded) {
    rc = retro_run_distributed(r, &err);
    if (!retro_mpi_all_ok(rc == 0)) goto fail;
    TsError cerr;
    if (retro_checkpoint_save(r, ckpt, &cerr))
      fprintf(stderr, "tsume enumerate: rank %d: %s: %s; a resumed run will make the table again\n", rank, ckpt,
              cerr.msg);
    table_kept = true;
  }
  rc = retro_gather_distributed(r, o->mpi_table, &err);
  if (!retro_mpi_all_ok(rc == 0)) goto fail;
  t1 = cli_now_ms();
  /* this rank's problems into its shard */
  bo.mem_limit = sort_memory(o, retro_stats(r));
  rc = tsdb_bulk_create(sdb, shard, &bo, &w.bulk, &err);
  if (!rc && (rc = classify_into(r, &o->mat, &w))) err = w.err;
  if (!retro_mpi_all_ok(rc == 0)) goto fail;
  make_room_mpi(o, ckpt, w.bulk, rank);
  if (!rc && (rc = tsdb_bulk_finish(w.bulk, &w.err))) err = w.err;
  if (!rc && (rc = tsdb_counts_store(sdb, w.counts, STORE_NAMES[o->store], &err))) (void)0;
  if (!rc) rc = tsdb_sync(sdb, &err);
  tsdb_close(sdb);
  sdb = NULL;
  if (!retro_mpi_all_ok(rc == 0)) goto fail;
  retro_mpi_sum_reads(r);
  /* rank 0: the shards into the database, in key order */
  if (rank == 0) {
    sink_free(&w);
    rc = sink_init(&w, o->store);
    if (!rc && o->resume) rc = tsdb_bulk_resume_point(db, &bo.skip, &err);
    if (!rc && bo.skip) fprintf(stderr, "resuming: %llu records already committed\n", (unsigned long long)bo.skip);
    bo.progress = on_write_progress;
    bo.progress_ctx = &pr;
    pr.phase_t0 = cli_now_ms();
    if (!rc) rc = tsdb_bulk_create(db, o->path, &bo, &w.bulk, &err);
    if (!rc) rc = merge_shards(o, nranks, &w, &err);
    if (!rc && (rc = tsdb_bulk_finish(w.bulk, &w.err))) err = w.err;
    if (!rc) rc = tsdb_counts_store(db, w.counts, STORE_NAMES[o->store], &err);
    if (!rc) rc = store_generation(db, retro_stats(r), o->spec, (int)o->max_moves, &err);
    if (!rc) rc = tsdb_sync(db, &err);
    t2 = cli_now_ms();
    if (pr.tty) fprintf(stderr, "\n");
  }
  if (!retro_mpi_all_ok(rc == 0)) goto fail;
  unlink(shard);
  ckpt_remove(ckpt); /* the run is whole: nothing to resume */
  /* and what a run before over more ranks left: their shards and shares of the table */
  for (int k = nranks; rank == 0; k++) {
    char old[sizeof ckpt + 16], tab[sizeof old + 8], side[sizeof old + 8];
    snprintf(old, sizeof old, "%s.shard-%d", o->path, k);
    snprintf(tab, sizeof tab, "%s-table", old);
    if (access(old, F_OK) != 0 && access(tab, F_OK) != 0) break;
    unlink(old);
    ckpt_remove(tab);
    snprintf(side, sizeof side, "%s-lock", old);
    unlink(side);
    snprintf(side, sizeof side, "%s-writer", old);
    unlink(side);
  }
  {
    char slk[sizeof shard + 8];
    snprintf(slk, sizeof slk, "%s-lock", shard);
    unlink(slk);
  }
  if (rank == 0) {
    sink_from_counts(&w, w.counts);
    print_summary(o, &w, retro_stats(r));
    if (o->stats) {
      TsDbBulkStats bs;
      tsdb_bulk_stats(w.bulk, &bs);
      print_stats(db, retro_stats(r), &bs, t0, t1, t2, loaded);
      const RetroStats *rs = retro_stats(r);
      printf("mpi: %d ranks; the classification read %s", nranks,
             o->mpi_table == RETRO_TABLE_WHOLE ? "the whole table on every machine" : "the ranks' shares");
      if (o->mpi_table == RETRO_TABLE_WHOLE)
        printf(" (%.1f MB)\n", rs->table_bytes / 1048576.0);
      else
        printf(" (the largest %.1f MB of %.1f MB), %llu look-ups of another machine's share (%llu from a thread's cache, %llu one-sided reads in "
               "%llu round trips)\n",
               rs->share_bytes_max / 1048576.0, rs->table_bytes / 1048576.0, (unsigned long long)rs->remote_reads, (unsigned long long)rs->remote_cached,
               (unsigned long long)rs->remote_gets, (unsigned long long)rs->remote_trips);
      if (!o->concrete)
        printf("mpi: the layers made on records read %llu positions of other ranks' tables (%llu from a thread's "
               "cache, %llu one-sided reads in %llu round trips)\n",
               (unsigned long long)rs->layer_reads[0], (unsigned long long)rs->layer_reads[1],
               (unsigned long long)rs->layer_reads[2], (unsigned long long)rs->layer_reads[3]);
    }
    st = report_anomalies(retro_stats(r));
  }
  sink_free(&w);
  retro_free(r);
  tsdb_close(db);
  tsdb_writer_unlock(slock);
  tsdb_writer_unlock(lock);
  retro_mpi_barrier();
  retro_mpi_finalize();
  return st;
fail:
  if (rc) {
    char buf[1024];
    ts_error_format(&err, buf, sizeof buf);
    cli_message("enumerate", "rank %d: %s: %s", rank, ts_strerror(rc), buf);
  }
  st = rc ? ts_error_exit_status(rc) : 3;
  sink_free(&w);
  retro_free(r);
  tsdb_close(sdb);
  tsdb_close(db);
  remove_made(shard, true); /* made again by every run */
  remove_made(o->path, db_made && !table_kept);
  tsdb_writer_unlock(slock);
  tsdb_writer_unlock(lock);
  retro_mpi_finalize();
  return st;
}
#endif

/*
 * One writer per database: the writer lock (tsdb_lock.h) is taken once the
 * options are read, before --force removes the old file, and held until the
 * run ends, so a second enumerate on the same file stops at once with exit 3
 * instead of replacing the database under the first one. Readers do not take it.
 */
int cmd_enumerate(int argc, char **argv) {
  EnumOpts o;
  int rc = parse_options(argc, argv, &o);
  if (rc >= 0) return rc;
  /* buffers of a megabyte and more are mapped apart and go back to the system
   * when freed (glibc would otherwise raise the threshold after such a free and
   * keep later ones in its heap), so a phase's freed buffers leave the RSS */
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#ifdef TSUME_HAVE_MPI
  if (o.mpi) return enumerate_mpi(&o);
#endif
  TsDbWriterLock *lock = NULL;
  rc = enumerate_single(&o, &lock);
  tsdb_writer_unlock(lock);
  return rc;
}
