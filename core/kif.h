/*
 * kif.h - KIF / KIFU records (Kakinoki format) of tsume problems: reader,
 * writer and the move text used by every tool that prints moves.
 * Reference: shared/reference/formats.md §1 (the writer follows the §1.12
 * checklist and reproduces the §1.11 example byte for byte).
 *
 * A record is a start position, header entries ("キー：値" lines, in file
 * order) and a move tree:
 *
 *   root (ply 0, no move; its comment is the comment on the start position)
 *    └ child = main line ─ child ─ child ─ special (詰み)
 *         └ sibling = an alternative at the same ply (a 変化), and so on
 *
 * Every node has at most one `child` pointer (its first child: the main
 * continuation); the other children hang from that child's `sibling` chain.
 * Nodes are owned by the record; kif_record_free releases all of them.
 *
 * Reading (kif_parse):
 *   encoding: "#KIF ... encoding=UTF-8|Shift_JIS|CP932" on the first line, else a UTF-8 BOM,
 *   else the caller's hint, else "valid UTF-8 ? UTF-8 : CP932" (CP932 via iconv);
 *   lines end in LF, CRLF or CR (old Mac files), in any mix;
 *   lines: '#' comments; 手合割 (平手 or absent = initial position when there is no
 *   diagram but there are moves or a 手合割 line; any value is ignored when a diagram
 *   is present); the diagram (後手/上手の持駒,
 *   '|' rows read by character index, 先手/下手の持駒, 先手番/後手番; 王 竜 accepted; hands
 *   with なし, kanji counts, with or without U+3000 between pieces, 残り全部/残り全て = every
 *   piece not placed elsewhere); move lines "N <move>" (同　, 打, 成, 不成, 打(00),
 *   ▲△, time field optional) and special moves (詰み 詰 投了 不詰 中断 千日手 持将棋
 *   切れ負け 反則勝ち 反則負け 入玉勝ち 不戦勝 不戦敗): move N is attached at ply N-1
 *   of the current line, so 変化：N手 sections become siblings; '*' lines are comments
 *   on the last move read (on the root before move 1); '&' bookmarks and まで lines
 *   are skipped; other "key：value" / "key:value" lines are headers, except empty
 *   先手：/後手： which are not stored (the writer always emits them).
 *   Every move is checked to be legal in the position it is played from.
 *
 * Writing (kif_write): "#KIF version=2.0 encoding=UTF-8|Shift_JIS", an optional
 * "# ---- <program> 棋譜ファイル ----" line, the headers (except 先手/後手/手合割),
 * the diagram (defender's hand enumerated in 柿木 order), 後手番 when gote moves
 * first, 先手：/後手： lines, "手数----指手---------消費時間--", the root comment,
 * the main line with "まで{N-1}手で詰み" after a final 詰み, then the 変化 sections
 * depth first, deepest branch point first. UTF-8 output has LF line ends; CP932
 * output (for .kif) has CRLF.
 */
#ifndef TSUME_KIF_H
#define TSUME_KIF_H

#include <stddef.h>

#include "position.h"

typedef enum {
  KIF_ENC_AUTO = 0, /* reading only: detect */
  KIF_ENC_UTF8 = 1, /* .kifu */
  KIF_ENC_CP932 = 2 /* .kif (Shift_JIS as Windows writes it) */
} KifEncoding;

typedef enum {
  KIF_SPECIAL_NONE = 0, /* an ordinary move */
  KIF_SPECIAL_MATE,     /* 詰み (also read from 詰) */
  KIF_SPECIAL_NOMATE,   /* 不詰 */
  KIF_SPECIAL_RESIGN,   /* 投了 */
  KIF_SPECIAL_ABORT,    /* 中断 */
  KIF_SPECIAL_REPETITION, /* 千日手 */
  KIF_SPECIAL_IMPASSE,  /* 持将棋 */
  KIF_SPECIAL_TIMEOUT,  /* 切れ負け */
  KIF_SPECIAL_FOUL_WIN, /* 反則勝ち */
  KIF_SPECIAL_FOUL_LOSS, /* 反則負け */
  KIF_SPECIAL_ENTERING_KING, /* 入玉勝ち */
  KIF_SPECIAL_DEFAULT_WIN,   /* 不戦勝 */
  KIF_SPECIAL_DEFAULT_LOSS,  /* 不戦敗 */
  KIF_SPECIAL_NB
} KifSpecial;

typedef struct KifNode {
  Move move;          /* the move played; MOVE_NONE at the root and for a special move */
  KifSpecial special; /* KIF_SPECIAL_NONE for a move (and the root) */
  int ply;            /* 0 at the root, N for the N-th move */
  char *comment;      /* UTF-8, lines separated by '\n', without the leading '*'; NULL if none */
  struct KifNode *parent, *child, *sibling;
} KifNode;

typedef struct {
  char *key, *value; /* UTF-8 */
} KifHeader;

typedef struct {
  Position start;
  /* the diagram had no 持駒 line for the side not to move (後手の持駒 in a tsume):
   * it was given every piece not on the board or in the other hand (残り全部) */
  bool hand_assumed;
  KifHeader *headers;
  int n_headers;
  KifNode *root;
  /* private */
  int cap_headers_;
  KifNode **nodes_;
  int n_nodes_, cap_nodes_;
} KifRecord;

/* Longest text of kif_move_write (incl. the NUL). */
#define KIF_MOVE_MAX 32

/* ---- record ---- */
/* Makes an empty record (root only) for start. TS_OK or TS_ERR_NOMEM. */
int kif_record_init(KifRecord *rec, const Position *start);
/* Frees everything the record owns; rec may then be initialised again. */
void kif_record_free(KifRecord *rec);
/* Appends a header entry (copies both strings). TS_OK or TS_ERR_NOMEM. */
int kif_header_add(KifRecord *rec, const char *key, const char *value);
/* Value of the first entry with this key, or NULL. */
const char *kif_header_get(const KifRecord *rec, const char *key);
/*
 * Appends a move (special = KIF_SPECIAL_NONE) or a special move (m ignored) as
 * the last child of parent; *out (may be NULL) receives the node. The move is
 * not checked here (kif_write checks every move). TS_ERR_USAGE if parent is a
 * special move; TS_ERR_NOMEM.
 */
int kif_node_add(KifRecord *rec, KifNode *parent, Move m, KifSpecial special, KifNode **out);
/* Replaces the comment of node (copied; NULL removes it). TS_OK or TS_ERR_NOMEM. */
int kif_node_set_comment(KifNode *node, const char *text);
/* Convenience: appends moves[0..n) as a chain under parent (the main line when parent
 * has no child yet), then a special move when special != KIF_SPECIAL_NONE. */
int kif_line_add(KifRecord *rec, KifNode *parent, const Move *moves, int n, KifSpecial special, KifNode **last);

/* ---- reading ---- */
/*
 * Parses bytes[0..len) into rec (which must not be initialised; on success the
 * caller frees it with kif_record_free, on failure nothing is left to free).
 * hint: the encoding the file name implies (.kif = KIF_ENC_CP932, .kifu =
 * KIF_ENC_UTF8) or KIF_ENC_AUTO. `where` names the source in messages.
 * Returns TS_OK, or with err filled (line 1-based; column 1-based in characters):
 *   TS_ERR_PARSE    bytes invalid in the encoding, NUL byte, empty text, malformed
 *                   diagram row / hand / numeral / move line, diagram after moves,
 *                   a move number that does not follow its line, 手合割 other than 平手
 *                   without a diagram, no diagram, 手合割 or move at all (not a KIF record);
 *   TS_ERR_ILLEGAL  impossible position (at the offending piece when there is one)
 *                   or a move that is not legal where it is played (at the move);
 *   TS_ERR_NOMEM.
 */
int kif_parse(const char *bytes, size_t len, KifEncoding hint, const char *where, KifRecord *rec, TsError *err);

/* ---- writing ---- */
/*
 * Writes rec as KIF in enc (KIF_ENC_UTF8 or KIF_ENC_CP932). program (may be
 * NULL) gives the "# ---- <program> 棋譜ファイル ----" line. On success *out is a
 * malloc'd, NUL-terminated buffer of *len bytes (caller frees).
 * Errors: TS_ERR_ILLEGAL (a move of the tree is not legal: no line number),
 * TS_ERR_PARSE (text that CP932 cannot represent: line and column of the UTF-8 text),
 * TS_ERR_USAGE (bad enc), TS_ERR_NOMEM.
 */
int kif_write(const KifRecord *rec, KifEncoding enc, const char *program, char **out, size_t *len, TsError *err);

/*
 * The KIF text of one move played from `before`: "２一歩成(22)", "同　玉(11)",
 * "２二金打". prev is the move before it (MOVE_NONE if none): 同 is written when
 * m goes to prev's destination. Writes at most n bytes (NUL included, KIF_MOVE_MAX
 * is enough) and returns the full length in bytes, like snprintf.
 */
int kif_move_write(const Position *before, Move m, Move prev, char *out, size_t n);

/* Japanese word of a special move ("詰み"), "" for KIF_SPECIAL_NONE. */
const char *kif_special_name(KifSpecial s);

#endif
