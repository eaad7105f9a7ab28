/*
 * retro_enum.h - retrograde enumeration of every tsume problem of a material.
 *
 * Phases, announced in order through the progress callback:
 *   "mates"   every mate position (defender to move, in check, no reply) of
 *             the material and of every sub-material reached by captures;
 *   "layers"  layer n: un-move the attacker from the mates-in-(n-1) to get the
 *             attacker-to-move positions with mate in exactly n; un-move the
 *             defender from those and keep the positions all of whose replies
 *             reach known mates (value 1 + the longest);
 *   "classify" main line (shortest attack, longest defence, 駒余り tie-break),
 *             yozume / 最終手余詰 / 駒余り / 変同 flags, minimality.
 *
 * Positions are held in memory as exact 128-bit keys of the canonical
 * orientation (the smaller key of a position and its mirror), so each mirror
 * pair is one entry. Mates longer than max_moves are not searched: a yozume
 * whose alternative mate is longer than max_moves is not seen (documented in
 * `tsume enumerate --help`).
 *
 * Use:
 *   Retro *r; retro_create(&material, &opts, &r, &err);
 *   retro_run(r, &err);
 *   retro_foreach_problem(r, cb, ctx);   // every problem of the exact material
 *   retro_free(r);
 */
#ifndef TSUME_RETRO_ENUM_H
#define TSUME_RETRO_ENUM_H

#include <stdbool.h>
#include <stdint.h>

#include "encode.h"
#include "material.h"
#include "position.h"

#define RETRO_LINE_MAX 255
#define RETRO_MAX_LEN 255

/* Problem flags: the same bits as the database's TSDB_F_* (db/tsdb.h). */
#define RETRO_F_COMPLETE (1u << 0)
#define RETRO_F_YOZUME (1u << 1)
#define RETRO_F_LAST_MOVE_ALT (1u << 2)
#define RETRO_F_KOMAAMARI (1u << 3)
#define RETRO_F_HENDOU (1u << 4)
/* 変長: the main line ends with 駒余り and a defence 2 or 4 plies shorter ends clean */
#define RETRO_F_HENCHOU (1u << 5)
#define RETRO_F_MINIMAL (1u << 7)
/* alternatives that mate within the remaining length but are not 余詰 (rules.md's
 * classifier; the composition paper tolerates them as キズ): the alternative's line rejoins
 * the main line with the same attacker moves in another order (手順前後) or
 * with other moves (迂回), or it differs only by promotion or by the drop
 * square on the same line to the king (非限定) */
#define RETRO_F_TEJUN_ZENGO (1u << 13)
#define RETRO_F_UKAI (1u << 14)
#define RETRO_F_HIGENTEI (1u << 15)
/* the main line reaches a defender position, remaining length > 0, whose only
 * replies are futile interpositions: no line can be shown there, so not complete */
#define RETRO_F_FUTILE_CUT (1u << 16)
/* no flaw within the table's reach, but the layers were cut at max_moves
 * (RetroStats.layers_cut): another check may mate at a greater length, so the
 * problem is not certified complete */
#define RETRO_F_UNSETTLED (1u << 17)

typedef struct {
  const char *phase;
  int layer;              /* plies of the layer being built */
  uint64_t positions;     /* entries in the table */
  uint64_t layer_new;     /* positions added by this layer so far */
  uint64_t work_done, work_total; /* for rate and ETA within the phase */
} RetroProgress;

/* Default table of each solver valuing drop positions (ranging materials), MiB:
 * the bounded searches re-search much in a small one (R1G1S1's layers: 54 s with
 * 32, 44 s with 64, 38 s with 128 and with 256). */
#define RETRO_SOLVER_HASH_MB 128

typedef struct {
  int max_moves;          /* longest mate searched, in plies (odd); default 31 */
  bool strict_last_move;  /* 最終手余詰 makes a problem incomplete */
  bool strict_alternatives; /* 手順前後 / 迂回 / 非限定 make a problem incomplete */
  int threads;            /* worker threads for mates, layers and classification (default 1) */
  int solver_hash_mb;     /* ranging materials: table of each thread's solver, MiB (0: RETRO_SOLVER_HASH_MB) */
  uint64_t table_limit;   /* bytes the table may take (it doubles in place; 0: no limit);
                             beyond it retro_run fails with TS_ERR_NOMEM saying so */
  uint64_t list_mem;      /* bytes for the positions a phase gathers before inserting them, all
                             threads together; beyond it they go to files (0: no limit) */
  const char *spill_prefix; /* those files are "<spill_prefix>.spill-XXXXXX", unlinked at once
                               (NULL: never spill) */
  bool concrete_unmoves;  /* un-move each concrete position of a record (the reference path) rather
                             than the record itself (materials without ranging pieces) */
  void (*progress)(const RetroProgress *p, void *ctx); /* may be NULL; called often */
  void *progress_ctx;
} RetroOptions;

typedef struct {
  Position pos;           /* attacker (sente) to move, defender hand = the rest */
  int length;             /* mate length in plies */
  uint32_t flags;         /* RETRO_F_* */
  int root_mates;         /* attacker moves at the root that lead to a known mate */
  Move line[RETRO_LINE_MAX];
  int line_len;
  /* pos_canonical of pos (made by the classifying thread, outside the callback's lock) */
  uint8_t code[POS_CODE_MAX];
  int code_len;
  bool mirrored;  /* the canonical code is of the mirror image */
  bool symmetric; /* pos equals its mirror image */
} RetroProblem;

typedef struct {
  uint64_t mates;                         /* mate positions (all sub-materials) */
  uint64_t attacker_by_len[RETRO_MAX_LEN + 1]; /* attacker-to-move entries by length, all sub-materials */
  uint64_t defender_by_len[RETRO_MAX_LEN + 1];
  uint64_t entries;     /* concrete positions in the table */
  uint64_t records;     /* extended positions holding them */
  uint64_t table_bytes;
  int table_dense;      /* the memory ceiling refused a doubling: the table filled past 60 % (to 90 % at most) */
  int table_file;       /* and refused one again: the table went on in a file beside the database */
  uint64_t ms_mates, ms_layers;
  int last_layer;
  /* the layers stopped at max_moves while positions were still being added: a
   * check the table has no value for may mate at a greater length, so no
   * problem can be certified complete (RETRO_F_UNSETTLED) */
  int layers_cut;
  /* ranging pieces: positions in check whose only replies are drops (valued by
   * the solver), solver calls, and values found below their layer or cut short
   * by a limit (0 unless something is wrong) */
  uint64_t seeds, solver_calls, anomalies;
  /* the enumeration paper's tests during generation, per layer: 余詰め判定, an attacker
   * position reached again by un-moving (another check mates within n, or the
   * same layer reached it twice); 不詰め判定, a defender candidate with a reply
   * not known to mate within n-1 (it may still get a longer value later) */
  uint64_t yozume_hits[RETRO_MAX_LEN + 1];
  uint64_t spilled_bytes; /* mates and new positions that went to files under opt.list_mem */
  uint64_t fuzume_hits[RETRO_MAX_LEN + 2];
  /* a distributed classification over the ranks' shares, summed over the ranks:
   * look-ups of records another machine holds, those a thread's cache answered,
   * the one-sided reads made for the rest, and their round trips */
  uint64_t remote_reads, remote_cached, remote_gets, remote_trips;
  uint64_t share_bytes_max; /* the largest rank's share of the table then (0: the table was whole) */
  /* the same four counts of the layers' reads of other ranks' tables (a distributed run on records) */
  uint64_t layer_reads[4];
} RetroStats;

/* Where a distributed run's classification finds the records (enumerate --mpi-table). */
typedef enum {
  RETRO_TABLE_SHARES, /* each with its owner; read in memory on its machine, one-sided from the others */
  RETRO_TABLE_WHOLE,  /* the whole table on every machine, shared by its ranks */
  RETRO_TABLE_REMOTE  /* as SHARES, every other rank's share read one-sided as if on another machine */
} RetroTableMode;

typedef struct Retro Retro;

int retro_create(const Material *m, const RetroOptions *o, Retro **out, TsError *err);
void retro_free(Retro *r);
/* Runs the mates and layers phases. */
int retro_run(Retro *r, TsError *err);
const RetroStats *retro_stats(const Retro *r);
/*
 * The table after retro_run, kept in a file so that a resumed run goes
 * straight to the classification (retro_checkpoint.c). _save writes path
 * (through path.tmp, renamed when whole; TS_ERR_IO, nothing left behind).
 * _load stands for retro_run: TS_OK; TS_ERR_NOTFOUND without a file;
 * TS_ERR_DB (err says why) for a file of another material, other rules or
 * another format, cut short or damaged, and TS_ERR_NOMEM: the Retro is then
 * as retro_create left it.
 */
int retro_checkpoint_save(const Retro *r, const char *path, TsError *err);
int retro_checkpoint_load(Retro *r, const char *path, TsError *err);
/* Undoes a load (an empty table, as retro_create leaves it): for a rank whose
 * share was read when another rank's could not be. */
void retro_checkpoint_unload(Retro *r);
/*
 * Calls cb for every attacker-to-move position with a mate whose material is
 * exactly `count` (pieces of each kind on the board or in the attacker's hand),
 * classified. With several threads the order varies; cb is never called by two
 * threads at once. cb returns non-zero to stop (that value is returned).
 */
int retro_foreach_problem(Retro *r, const int count[HAND_PT_NB],
                          int (*cb)(const RetroProblem *p, void *ctx), void *ctx);
/* Looks a position up: attacker to move -> mate length (odd), defender to move ->
 * plies to mate (even); -1 when not a known mate. */
int retro_lookup(Retro *r, const Position *pos);

/*
 * Distributed runs over MPI (when the build found MPI: TSUME_HAVE_MPI). Every
 * rank calls the same functions in the same order. retro_run_distributed
 * replaces retro_run: the table is partitioned over the ranks by a hash of
 * the record key for the mates and the layers (each rank then holds its
 * share, which retro_checkpoint_save keeps and _load reads back after
 * retro_mpi_attach); retro_gather_distributed then makes the shares readable
 * by every rank (mode: left with their owners, or gathered whole on every
 * machine), and retro_foreach_problem gives only the problems this rank
 * owns, so the ranks' problems together are those of a single-process run
 * (and the stats are the same on every rank). retro_mpi_sum_reads sums the
 * remote reads of the layers and the classification over the ranks into
 * the stats. Materials with a ranging piece: TS_ERR_USAGE.
 */
#ifdef TSUME_HAVE_MPI
int retro_mpi_init(int *argc, char ***argv, int *rank, int *nranks);
void retro_mpi_finalize(void);
void retro_mpi_barrier(void);
/* Stops every rank (MPI_Abort) with this exit status. */
void retro_mpi_abort(int status);
/* Whether ok holds on every rank (a collective call). */
bool retro_mpi_all_ok(bool ok);
/* x summed over the ranks (a collective call). */
uint64_t retro_mpi_sum(uint64_t x);
/* The ranks on this rank's machine (a collective call). */
int retro_mpi_machine_ranks(void);
/* The rank and number of ranks of this process into r (retro_run_distributed does it too). */
void retro_mpi_attach(Retro *r);
int retro_run_distributed(Retro *r, TsError *err);
int retro_gather_distributed(Retro *r, RetroTableMode mode, TsError *err);
void retro_mpi_sum_reads(Retro *r);
#endif

#endif
