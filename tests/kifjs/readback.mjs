#!/usr/bin/env node
// Reads KIF / KIFU files written by `tsume export` with tsshogi (the KIF reader
// of ShogiHome), an implementation independent of ours, and checks each record:
//   - the file decodes (.kif as Shift_JIS/CP932, .kifu as UTF-8) and tsshogi imports it;
//   - the start position tsshogi reads from the diagram and hands equals the
//     file's own `SFEN：` header line;
//   - the main line has exactly `手数：` moves, every move is legal, every
//     attacker move gives check, and it ends in 詰み on a position that is mate;
//   - every 変化 branch likewise consists of legal moves, checks on attacker
//     moves, and ends in 詰み on a mate;
//   - every move line of the file is one of the moves tsshogi read, written the
//     way tsshogi writes it (so a wrong piece name or a line tsshogi skipped is
//     caught: tsshogi takes the moving piece from the board, not from the text).
// Usage: node readback.mjs FILE_OR_DIR...
// Prints "ok <file>" or "FAIL <file>: reason" per file, then "N passed, M failed";
// exits 1 if any file failed (or none was given).

import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  importKIF,
  formatKIFMove,
  Move,
  Position,
  Square,
  SpecialMoveType,
  RecordMetadataKey,
  Color,
} from "tsshogi";

class CheckError extends Error {}
function fail(msg) {
  throw new CheckError(msg);
}

function collectFiles(args) {
  const files = [];
  const visit = (p, explicit) => {
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) visit(join(p, name), false);
    } else if (explicit || /\.kifu?$/i.test(p)) {
      files.push(p);
    }
  };
  for (const a of args) visit(a, true);
  return files;
}

function decode(file) {
  const bytes = readFileSync(file);
  const utf8 = /\.kifu$/i.test(file);
  const enc = utf8 ? "utf-8" : "shift_jis";
  let text;
  try {
    text = new TextDecoder(enc, { fatal: true }).decode(bytes);
  } catch (e) {
    fail(`not valid ${enc}: ${e.message}`);
  }
  // The exporter declares the encoding on its first line; it must agree with
  // the extension (a UTF-8 .kif would be mis-read by 柿木将棋 and ShogiGUI).
  const decl = /^#KIF version=[0-9.]+ encoding=(\S+)/m.exec(text);
  if (decl) {
    const declared = decl[1].toLowerCase().replace(/[-_]/g, "");
    const want = utf8 ? ["utf8"] : ["shiftjis", "cp932", "windows31j"];
    if (!want.includes(declared)) fail(`encoding=${decl[1]} declared in a .${utf8 ? "kifu" : "kif"} file`);
  }
  return text;
}

function header(text, key) {
  const m = new RegExp(`^${key}[：:](.*)$`, "m").exec(text);
  return m ? m[1].trim() : undefined;
}

// Pseudo-moves filtered by tsshogi's own legality test (Position.isValidMove
// covers king safety, 二歩, 打ち歩詰め, dead pieces and promotion zones).
function hasLegalMove(pos) {
  return hasLegalBoardMove(pos) || hasLegalDrop(pos);
}

function hasLegalDrop(pos) {
  const hand = pos.hand(pos.color);
  for (const { type, count } of hand.counts) {
    if (count === 0) continue;
    for (const to of Square.all) {
      if (pos.board.at(to)) continue;
      const m = pos.createMove(type, to);
      if (m && pos.isValidMove(m)) return true;
    }
  }
  return false;
}

// Legal board moves only (drops left out).
function hasLegalBoardMove(pos) {
  const color = pos.color;
  for (const from of pos.board.listSquaresByColor(color)) {
    for (const to of Square.all) {
      const m = pos.createMove(from, to);
      if (!m) continue;
      if (pos.isValidMove(m) || pos.isValidMove(m.withPromote())) return true;
    }
  }
  return false;
}

function isMate(pos) {
  return pos.checked && !hasLegalMove(pos);
}

// Counted as mate under the 無駄合 rule: in check, no legal board move, and
// at least one legal drop (an interposition: the king cannot move and the
// checker cannot be taken, so every drop goes between a distant checker and
// the king). Whether each drop is futile is the solver's judgement, which
// `tsume export` checked before writing; this reader checks the shape.
let futileMates = 0;
function isFutileMate(pos) {
  return pos.checked && !hasLegalBoardMove(pos) && hasLegalDrop(pos);
}

function children(node) {
  const out = [];
  for (let c = node.next; c; c = c.branch) out.push(c);
  return out;
}

function lineName(path) {
  return path.length ? path.map((m) => m.usi).join(" ") : "(start)";
}

// Walks the subtree below `node` (whose position is `pos`, reached by `path`),
// checking every move; returns the number of lines (leaves) checked and
// collects each regular move, as tsshogi formats it, with its ply in `seen`.
function walk(node, pos, path, seen) {
  const kids = children(node);
  if (kids.length === 0) fail(`line ${lineName(path)} stops without 詰み`);
  let leaves = 0;
  for (const child of kids) {
    const mv = child.move;
    if (!(mv instanceof Move)) {
      if (mv.type !== SpecialMoveType.MATE) {
        fail(`line ${lineName(path)} ends in ${mv.type === "any" ? mv.name : mv.type}, not 詰み`);
      }
      if (child.next) fail(`moves after 詰み on line ${lineName(path)}`);
      if (isFutileMate(pos)) {
        futileMates++;
      } else if (!isMate(pos)) {
        fail(`詰み after ${lineName(path)} but ${pos.checked ? "the king can escape" : "no check"} (sfen ${pos.sfen})`);
      }
      leaves++;
      continue;
    }
    const ply = path.length + 1;
    if (!pos.isValidMove(mv)) fail(`illegal move ${ply}.${mv.usi} after ${lineName(path)} (sfen ${pos.sfen})`);
    const prev = path.length ? path[path.length - 1] : undefined;
    seen.push(`${ply} ${formatKIFMove(mv, { prev })}`);
    const next = pos.clone();
    next.doMove(mv);
    if (ply % 2 === 1 && !next.checked) fail(`attacker move ${ply}.${mv.usi} after ${lineName(path)} is not check`);
    leaves += walk(child, next, [...path, mv], seen);
  }
  return leaves;
}

function checkFile(file) {
  const text = decode(file);
  const record = importKIF(text);
  if (record instanceof Error) fail(`tsshogi: ${record.message}`);

  const sfenHeader = header(text, "SFEN");
  if (!sfenHeader) fail("no SFEN： header line");
  const start = record.initialPosition.sfen;
  if (start !== sfenHeader) fail(`start position ${start} != SFEN： header ${sfenHeader}`);
  if (record.initialPosition.color !== Color.BLACK) fail("attacker (先手) is not to move");
  if (record.initialPosition.checked) fail("defender already in check at the start");

  const lenHeader = header(text, "手数");
  const lenMeta = record.metadata.getStandardMetadata(RecordMetadataKey.LENGTH);
  if (!lenHeader || !/^[0-9]+$/.test(lenHeader)) fail(`bad 手数： header ${lenHeader}`);
  if (lenMeta !== lenHeader) fail(`tsshogi read 手数 ${lenMeta}, file says ${lenHeader}`);
  const length = Number(lenHeader);

  // Main line: the first child at every node, up to the special move.
  let mainMoves = 0;
  let node = record.first;
  while (node.next && node.next.move instanceof Move) {
    node = node.next;
    mainMoves++;
  }
  if (!node.next) fail(`main line stops after ${mainMoves} moves without 詰み`);
  if (node.next.move.type !== SpecialMoveType.MATE) fail(`main line ends in ${node.next.move.type}, not 詰み`);
  if (mainMoves !== length) fail(`main line has ${mainMoves} moves, 手数： says ${length}`);

  // Every line (main and 変化), replayed on a fresh position from the header SFEN.
  const pos = Position.newBySFEN(sfenHeader);
  if (!pos) fail(`tsshogi rejects SFEN ${sfenHeader}`);
  const seen = [];
  const lines = walk(record.first, pos, [], seen);

  // Every move line in the file must be one tsshogi read, spelt as tsshogi spells it.
  const written = [];
  let mates = 0;
  for (const line of text.split(/\r?\n/)) {
    const m = /^ *([0-9]+) +([^ ]+)/.exec(line); // ASCII spaces only: 同　玉 holds U+3000
    if (!m) continue;
    if (m[2] === "詰み" || m[2] === "詰") mates++;
    else written.push(`${Number(m[1])} ${m[2]}`);
  }
  const key = (a) => [...a].sort().join("\n");
  if (key(written) !== key(seen)) {
    const missing = written.filter((w) => !seen.includes(w));
    const extra = seen.filter((s) => !written.includes(s));
    fail(`move lines differ from what tsshogi read: file-only [${missing.join(", ")}], tsshogi-only [${extra.join(", ")}]`);
  }
  if (mates !== lines) fail(`${mates} 詰み lines in the file, ${lines} lines in the tree`);
  return { lines };
}

const args = process.argv.slice(2);
if (args.length === 0) {
  console.error("usage: node readback.mjs FILE_OR_DIR...");
  process.exit(2);
}
let files;
try {
  files = collectFiles(args);
} catch (e) {
  console.error(`readback: ${e.message}`);
  process.exit(2);
}
let passed = 0;
let failed = 0;
let lines = 0;
for (const f of files) {
  try {
    const r = checkFile(f);
    lines += r.lines;
    passed++;
    console.log(`ok ${f}`);
  } catch (e) {
    failed++;
    const msg = e instanceof CheckError ? e.message : `exception: ${e && e.stack ? e.stack : e}`;
    console.log(`FAIL ${f}: ${msg}`);
  }
}
if (files.length === 0) {
  console.log("FAIL: no .kif or .kifu file found");
  failed++;
}
console.log(`${lines} lines to mate replayed (main lines and 変化)`);
console.log(`${passed} passed, ${failed} failed (${futileMates} lines end with only futile drops left)`);
process.exit(failed ? 1 : 0);
