/*
 * diagram.h - the BOD text diagram of a position (UTF-8, LF line ends), the
 * same block the KIF writer emits, for `tsume show` and messages:
 *
 *   後手の持駒：飛二　角　金三　銀四　桂四　香四　歩十七　
 *     ９ ８ ７ ６ ５ ４ ３ ２ １
 *   +---------------------------+
 *   | ・ ・ ・ ・ ・ ・ ・ ・v玉|一
 *   ...
 *   +---------------------------+
 *   先手の持駒：金　
 *   後手番                         (only when gote is to move)
 *
 * Hands list 飛 角 金 銀 桂 香 歩 with kanji counts, each followed by U+3000;
 * "なし" when empty.
 */
#ifndef TSUME_DIAGRAM_H
#define TSUME_DIAGRAM_H

#include <stddef.h>

#include "position.h"

/* Bytes always enough for diagram_write. */
#define DIAGRAM_MAX 1024

/* Writes the diagram of pos into out[0..n) (NUL-terminated when n > 0); returns
 * the full length like snprintf. */
size_t diagram_write(const Position *pos, char *out, size_t n);

#endif
