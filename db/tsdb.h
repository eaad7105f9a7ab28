/*
 * tsdb.h - the problem database: one LMDB file that maps canonical position
 * keys (core/encode.h) to compact, zstd-compressed problem records.
 *
 * How to use:
 *
 *   TsDbMeta meta = {.material = "N4", .rule_options = opts};
 *   TsDb *db; TsError err;
 *   if (tsdb_open("keima.mdb", TSDB_CREATE | TSDB_NOSYNC, &meta, &db, &err)) fail(&err);
 *   ...fill TsRecord recs[n] (key, length, flags, line...)...
 *   if (tsdb_put_batch(db, recs, n, ckpt, ckpt_len, &err)) fail(&err);  // one atomic txn
 *   tsdb_sync(db, &err);                                                // at checkpoints
 *   tsdb_close(db);
 *
 *   Reading (also from other processes while one process writes):
 *   tsdb_open("keima.mdb", TSDB_RDONLY, NULL, &db, &err);
 *   tsdb_foreach(db, 9, print_one, ctx, &err);       // every 9-ply record, key order
 *
 * Files: path is the data file itself (keima.mdb) plus the LMDB lock file
 * "<path>-lock" beside it. Inside are three named databases:
 *
 *   prob    canonical key (1..96 bytes)       -> record value (see below)
 *   by_len  mate length, 2 bytes big-endian   -> canonical keys (sorted duplicates);
 *           every length but TSDB_UNLISTED_LENGTH (format version 1: every length)
 *   meta    name -> value: "tsdb.magic" = "tsume-db", "tsdb.version" (u32 BE),
 *           "tsdb.material", "tsdb.rules" (u32 BE), "tsdb.zdict" (zstd dictionary;
 *           empty = a trained dictionary did not pay, records stay raw),
 *           "tsdb.checkpoint", "tsdb.batches" and "tsdb.puts" (u64 BE counters);
 *           names not starting with "tsdb." belong to callers (tsdb_meta_put_raw).
 *
 * Record value in prob (all integers unsigned; uvarint = LEB128, 7 bits per
 * byte, low group first, shortest form only):
 *
 *   +-----+-----------+--------------------------------------------------+
 *   | tag | length    | body, as is (tag 0x01 RAW) or as one magicless    |
 *   | 1 B | uvarint   | zstd frame made with the meta dictionary (0x02)  |
 *   +-----+-----------+--------------------------------------------------+
 *   body:
 *   +---------+------------+----------------+---------+---------------+---------+
 *   | flags   | root_mates | n_moves<<1     | ext_len | line          | ext     |
 *   | uvarint | 1 B        |  | has_ext     | 1 B,    | n_moves x 2 B | ext_len |
 *   | 1..5 B  |            | uvarint 1..2 B | if ext  | little-endian | bytes   |
 *   +---------+------------+----------------+---------+---------------+---------+
 *
 * The mate length stays outside the compressed part so that an overwrite can
 * fix by_len without decompressing the old record.
 *
 * Durability: every tsdb_put_batch is one LMDB write transaction (records,
 * by_len entries, checkpoint and counters together), so a killed process
 * loses at most the batch in flight and the file always opens. Without
 * TSDB_NOSYNC each commit is flushed to disk (survives power loss); with
 * TSDB_NOSYNC commits survive a killed process but an OS crash or power loss
 * may lose the batches since the last tsdb_sync (and, on file systems that
 * reorder writes, damage the file) - call tsdb_sync at checkpoints.
 *
 * Concurrency: one TsDb per process per file (LMDB forbids opening the same
 * file twice in one process, and an environment must not be used after
 * fork()). A TsDb is not thread-safe: use it from one thread at a time (any
 * thread; the environment is opened with MDB_NOTLS). Any number of processes
 * may read while one writes; writers in different processes are serialized.
 *
 * Errors: every function returns TS_OK or a TS_ERR_* code and, when err is
 * not NULL, fills it with a message naming the file: TS_ERR_DB for LMDB
 * failures and corrupt or foreign databases, TS_ERR_IO for file-system
 * failures (full disk), TS_ERR_USAGE for bad arguments, TS_ERR_NOMEM,
 * TS_ERR_NOTFOUND for absent keys.
 */
#ifndef TSUME_TSDB_H
#define TSUME_TSDB_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define TSDB_FORMAT_VERSION 2u
/* From format version 2 on, by_len does not list the records of this length:
 * they are most of every set (83 % of G2S2's, 77 % of G4S1's), so a scan of
 * prob finds them as fast as the index would, and listing them took most of
 * the time of a bulk write. Version 1 files list every length and are read
 * and written as they are. */
#define TSDB_UNLISTED_LENGTH 1u
#define TSDB_KEY_MAX 96     /* = POS_CODE_MAX of core/encode.h */
#define TSDB_LINE_MAX 1024  /* moves in a stored main line */
#define TSDB_EXT_MAX 255    /* bytes of the extension blob */
#define TSDB_MATERIAL_MAX 64 /* material string incl. the terminating NUL */
#define TSDB_META_NAME_MAX 255
#define TSDB_MAP_SIZE_DEFAULT ((size_t)1 << 30) /* 1 GiB, sparse; doubles when full */
#define TSDB_DICT_MIN_RECORDS_DEFAULT 10000u

/* tsdb_open flags */
#define TSDB_CREATE 0x1u /* create the file (and the schema) when absent */
#define TSDB_RDONLY 0x2u /* read only; works while another process writes */
#define TSDB_NOSYNC 0x4u /* do not flush at commit; see Durability above */

/*
 * Record flags. Bits 0..17 are assigned, 18..31 are free for later use and
 * are stored as they are.
 */
#define TSDB_F_COMPLETE (1u << 0)      /* 完全作: mate, no flaw below */
#define TSDB_F_YOZUME (1u << 1)        /* 余詰 before the last move */
#define TSDB_F_LAST_MOVE_ALT (1u << 2) /* 最終手余詰 (tolerated) */
#define TSDB_F_KOMAAMARI (1u << 3)     /* 駒余り: attacker hand not empty at mate */
#define TSDB_F_HENDOU (1u << 4)        /* 変同: defender alternative as long */
#define TSDB_F_HENCHOU (1u << 5)       /* 変長: defender alternative longer */
#define TSDB_F_FUZUME (1u << 6)        /* 不詰: no mate */
#define TSDB_F_MINIMAL (1u << 7)       /* no piece can be sent to the defender's hand */
#define TSDB_F_MIRRORED (1u << 8)      /* key is the mirror of the stored orientation:
                                          line and ext are in the unmirrored one */
#define TSDB_F_EXACT (1u << 9)         /* length proven exact by the forward solver */
#define TSDB_F_EXTENDED (1u << 10)     /* 拡張局面: ext holds square sets */
#define TSDB_F_HAYAZUME (1u << 11)     /* 早詰: a shorter mate exists (with YOZUME) */
#define TSDB_F_GOURYU (1u << 12)       /* 合流余詰 (with YOZUME) */
#define TSDB_F_TEJUN_ZENGO (1u << 13)  /* 手順前後 */
#define TSDB_F_UKAI (1u << 14)         /* 迂回 */
#define TSDB_F_HIGENTEI (1u << 15)     /* 非限定 */
#define TSDB_F_FUTILE_CUT (1u << 16)   /* the main line reaches a position whose only defences
                                          are drops futile at a remaining length > 0 (無駄合
                                          there leaves no line to show): not complete */
#define TSDB_F_UNSETTLED (1u << 17)    /* no flaw within the enumeration's reach, but its layers were
                                          cut by --max-moves: a longer 余詰 cannot be ruled out */

/*
 * One problem. Plain value type (about 2.4 KB); a batch of n records is an
 * array. line holds compact moves (move_compact() of core/types.h): bit 15
 * clear, "to" < 81, "from" < 81 or 82..88 for a drop, no promotion on drops.
 */
typedef struct {
  uint8_t key[TSDB_KEY_MAX]; /* canonical key bytes */
  uint8_t key_len;           /* 1..TSDB_KEY_MAX */
  uint8_t root_mates;        /* attacker moves that mate at the root */
  uint8_t ext_len;           /* 0..TSDB_EXT_MAX */
  uint16_t length;           /* mate length in plies; 0 = no mate known */
  uint16_t line_len;         /* 0..TSDB_LINE_MAX */
  uint32_t flags;            /* TSDB_F_* */
  uint16_t line[TSDB_LINE_MAX];
  uint8_t ext[TSDB_EXT_MAX]; /* enumerator data, opaque to the database */
} TsRecord;

/*
 * What a database is about. material and rule_options are stored at creation
 * and compared at every later open; the other fields only tune this open.
 */
typedef struct {
  char material[TSDB_MATERIAL_MAX]; /* material spec, e.g. "N4" (design.md §4) */
  uint32_t rule_options;            /* counting/rule switches; opaque bits owned by
                                       the enumerator (e.g. --no-futile-rule) */
  size_t map_size;                  /* initial map; 0 = TSDB_MAP_SIZE_DEFAULT */
  uint32_t dict_min_records;        /* batch size that trains the zstd dictionary;
                                       0 = TSDB_DICT_MIN_RECORDS_DEFAULT,
                                       UINT32_MAX = never (records stay raw) */
  int zstd_level;                   /* 0 = 3 */
} TsDbMeta;

typedef struct {
  uint64_t entries;        /* records in prob */
  uint64_t by_len_entries; /* (length, key) pairs; equals entries less the unlisted ones when sound */
  uint64_t batches;        /* tsdb_put_batch commits over the file's life */
  uint64_t puts;           /* records written over the file's life (incl. overwrites) */
  uint64_t file_bytes;     /* apparent size of the data file */
  uint64_t disk_bytes;     /* blocks actually allocated to it */
  uint64_t used_bytes;     /* pages in use (last page + 1) x page size */
  uint64_t map_size;       /* current map size */
  uint32_t page_size;
  uint32_t dict_bytes;     /* size of the zstd dictionary, 0 if none yet */
  uint32_t format_version;
} TsDbStats;

typedef struct TsDb TsDb;

/*
 * Called once per record by tsdb_foreach; rec is valid during the call only.
 * Return 0 to go on; any other value stops the walk and becomes the return
 * value of tsdb_foreach (so a TS_ERR_* code passes through).
 */
typedef int (*TsDbForeachFn)(const TsRecord *rec, void *ctx);

/*
 * Opens (TSDB_CREATE: creates when absent) the database file path.
 * meta: required when creating; when the file exists and meta is not NULL,
 * its material and rule options must equal the stored ones (TS_ERR_DB naming
 * both otherwise); NULL accepts whatever is stored (tsdb_meta_get tells).
 * Errors: TS_ERR_IO (missing file without TSDB_CREATE, permissions),
 * TS_ERR_DB (not an LMDB file, an LMDB file that is not ours, a newer format
 * version, meta mismatch), TS_ERR_USAGE (bad flags or meta), TS_ERR_NOMEM.
 * On success *out owns the environment; release it with tsdb_close.
 */
int tsdb_open(const char *path, unsigned flags, const TsDbMeta *meta, TsDb **out, TsError *err);
/* Closes db (NULL is fine). Commits are already on disk (or in the page
 * cache with TSDB_NOSYNC; closing does not flush - call tsdb_sync). */
void tsdb_close(TsDb *db);
/* Flushes committed batches to disk (needed only with TSDB_NOSYNC). TS_ERR_IO. */
int tsdb_sync(TsDb *db, TsError *err);
/* Bytes a writer may still use on the file system that holds path, as df
 * shows them (statvfs's available blocks: the free blocks may be far more, a
 * reserve or a volume's share of a larger pool); UINT64_MAX if unreadable. */
uint64_t tsdb_disk_available(const char *path);
/* Copies the stored material and rule options into *meta (tuning fields 0). */
int tsdb_meta_get(TsDb *db, TsDbMeta *meta, TsError *err);

/*
 * Writes n records in ONE write transaction, together with the checkpoint
 * blob (when checkpoint is not NULL; blob_len may be 0) and the counters.
 * The batch is sorted by key internally (records itself is not modified);
 * when a key occurs twice in the batch the later record wins. Existing keys
 * are overwritten and their by_len entry moved when the length changed.
 * The first batch of at least dict_min_records records trains the zstd
 * dictionary, kept only when it makes that batch's values >= 5% smaller
 * (either way the decision is stored). A full map is doubled and the batch
 * redone. A batch whose keys all lie beyond the last stored key is appended
 * (MDB_APPEND: full pages, no lookups) - write key-ordered when you can.
 * Errors: TS_ERR_USAGE (a record out of range: message names its index),
 * TS_ERR_IO (write failure, e.g. disk full: nothing of the batch is
 * committed, earlier batches are intact; reopen the database afterwards),
 * TS_ERR_DB (corrupt old record, LMDB failure, batch too large for one
 * transaction), TS_ERR_NOMEM.
 */
int tsdb_put_batch(TsDb *db, const TsRecord *records, size_t n, const void *checkpoint,
                   size_t blob_len, TsError *err);

/* Reads the record of key (1..TSDB_KEY_MAX bytes) into *rec (rec->key set too).
 * TS_ERR_NOTFOUND when absent; TS_ERR_DB when the stored bytes are corrupt. */
int tsdb_get(TsDb *db, const uint8_t *key, size_t key_len, TsRecord *rec, TsError *err);

/*
 * Calls fn for every record of mate length `length` (0..65535) in key order,
 * or for every record in key order when length < 0. All calls see one
 * snapshot (a long walk keeps a read transaction open, which stops a
 * concurrent writer from reusing freed pages). fn may call tsdb_get on the
 * same db but must not write through it (TS_ERR_USAGE).
 */
int tsdb_foreach(TsDb *db, int length, TsDbForeachFn fn, void *ctx, TsError *err);

/* Number of records. */
int tsdb_count(TsDb *db, uint64_t *total, TsError *err);
/* Number of records of one mate length (a by_len lookup, no scan; for
 * TSDB_UNLISTED_LENGTH, prob's count less by_len's). */
int tsdb_count_length(TsDb *db, unsigned length, uint64_t *n, TsError *err);

/*
 * Copies the checkpoint blob of the last batch into buf (capacity cap) and
 * its size into *len. buf may be NULL with cap 0 to ask for the size.
 * TS_ERR_NOTFOUND when no batch stored one; TS_ERR_USAGE when cap < size.
 */
int tsdb_checkpoint_get(TsDb *db, void *buf, size_t cap, size_t *len, TsError *err);

/* Named meta values for callers; name is a NUL-terminated string of
 * 1..TSDB_META_NAME_MAX bytes. get: same buffer rules as tsdb_checkpoint_get
 * (reads "tsdb." names too). put: its own write transaction; names
 * beginning with "tsdb." are reserved (TS_ERR_USAGE). */
int tsdb_meta_get_raw(TsDb *db, const char *name, void *buf, size_t cap, size_t *len,
                      TsError *err);
int tsdb_meta_put_raw(TsDb *db, const char *name, const void *data, size_t len, TsError *err);

/*
 * Writes a compacted copy of the database (live pages only, renumbered) to
 * the new file dest, e.g. after a generation run whose large random-key
 * batches left many free pages behind. Readers and a writer may go on
 * meanwhile (the copy is one snapshot). dest must not exist (TS_ERR_IO).
 */
int tsdb_copy(TsDb *db, const char *dest, TsError *err);

/* Sizes and counters of the open database. */
int tsdb_stats(TsDb *db, TsDbStats *st, TsError *err);

#endif
