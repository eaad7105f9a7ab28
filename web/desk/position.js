// Shogi rules for the desk, through shogiops: SFEN of a diagram, a line replayed
// from it, the legal moves of a ply (attacker moves restricted to checks), the
// defender's hand as "everything else" (残り全部), and move names.
import { parseSfen, makeSfen } from 'shogiops/sfen';
import { parseUsi, makeUsi, makeSquareName, parseSquareName, isDrop, opposite } from 'shogiops/util';
import { pieceCanPromote, pieceForcePromote, promote, unpromote } from 'shogiops/variant/util';
import { makeJapaneseMoveOrDrop } from 'shogiops/notation/japanese';

export const HAND_ROLES = ['rook', 'bishop', 'gold', 'silver', 'knight', 'lance', 'pawn'];
// Every piece of a shogi set but the kings.
export const TOTALS = { rook: 2, bishop: 2, gold: 4, silver: 4, knight: 4, lance: 4, pawn: 18 };
export const EMPTY_SFEN = '9/9/9/9/9/9/9/9/9 b - 1';

const LETTER = { rook: 'R', bishop: 'B', gold: 'G', silver: 'S', knight: 'N', lance: 'L', pawn: 'P' };
const FROM_LETTER = { R: 'rook', B: 'bishop', G: 'gold', S: 'silver', N: 'knight', L: 'lance', P: 'pawn' };

export const promoteRole = (role) => promote('standard')(role);
export const unpromoteRole = (role) => unpromote('standard')(role) || role;
export const baseRole = (role) => (HAND_ROLES.includes(role) || role === 'king' ? role : unpromoteRole(role));

// The position of a SFEN (non-strict: a tsume diagram has no attacker king), or
// an Error naming why shogiops refuses it.
export function positionOf(sfen) {
  const r = parseSfen('standard', sfen, false);
  return r.isOk ? r.value : new Error(String(r.error.message || r.error));
}

// Splits 'board turn hands n' into its fields, with defaults for missing ones.
export function sfenParts(sfen) {
  const w = sfen.trim().split(/\s+/);
  return { board: w[0] || '9/9/9/9/9/9/9/9/9', turn: w[1] || 'b', hands: w[2] || '-', move: w[3] || '1' };
}

// Hand counts of one side, from the hands field of a SFEN ('-' or e.g. 'G2r2b').
export function handCounts(hands, color) {
  const out = Object.fromEntries(HAND_ROLES.map((r) => [r, 0]));
  if (!hands || hands === '-') return out;
  let n = 0;
  for (const c of hands) {
    if (c >= '0' && c <= '9') {
      n = n * 10 + (c.charCodeAt(0) - 48);
      continue;
    }
    const role = FROM_LETTER[c.toUpperCase()];
    const side = c === c.toUpperCase() ? 'sente' : 'gote';
    if (role && side === color) out[role] += n || 1;
    n = 0;
  }
  return out;
}

// The hands field from the two sides' counts, in the usual order.
export function handsField(sente, gote) {
  let s = '';
  for (const r of HAND_ROLES) if (sente[r]) s += (sente[r] > 1 ? sente[r] : '') + LETTER[r];
  for (const r of HAND_ROLES) if (gote[r]) s += (gote[r] > 1 ? gote[r] : '') + LETTER[r].toLowerCase();
  return s || '-';
}

// Counts by base role of the pieces on a board field (kings left out).
export function boardCounts(board) {
  const out = Object.fromEntries(HAND_ROLES.map((r) => [r, 0]));
  const map = { p: 'pawn', l: 'lance', n: 'knight', s: 'silver', g: 'gold', b: 'bishop', r: 'rook' };
  for (const c of board) {
    const role = map[c.toLowerCase()];
    if (role) out[role]++;
  }
  return out;
}

// The defender's hand as everything not on the board nor in the attacker's hand;
// `over` lists the roles of which there are more than a set holds.
export function restHand(board, senteHand) {
  const on = boardCounts(board);
  const gote = {};
  const over = [];
  for (const r of HAND_ROLES) {
    const left = TOTALS[r] - on[r] - senteHand[r];
    if (left < 0) over.push(r);
    gote[r] = Math.max(0, left);
  }
  return { gote, over };
}

// A SFEN with the move number 1, as the desk keeps its diagrams.
export function asDiagram(sfen) {
  const p = sfenParts(sfen);
  return `${p.board} ${p.turn} ${p.hands} 1`;
}

// A diagram SFEN: attacker (sente, 'b') to move, move number 1.
export function diagramSfen(board, sente, gote) {
  return `${board} b ${handsField(sente, gote)} 1`;
}

// True when the defender's hand of the SFEN is exactly 残り全部.
export function goteIsRest(sfen) {
  const p = sfenParts(sfen);
  const { gote } = restHand(p.board, handCounts(p.hands, 'sente'));
  const have = handCounts(p.hands, 'gote');
  return HAND_ROLES.every((r) => gote[r] === have[r]);
}

// Replays `moves` (USI) from the diagram. Returns the positions after each ply
// (positions[0] is the diagram), the moves kept, and the first refused move with
// the reason: illegal, or an attacker move that is not a check.
export function replay(sfen, moves) {
  const start = positionOf(sfen);
  if (start instanceof Error) return { positions: [], moves: [], error: start.message, at: 0 };
  const positions = [start];
  const kept = [];
  for (let i = 0; i < moves.length; i++) {
    const pos = positions[i];
    const md = parseUsi(moves[i]);
    if (!md || !pos.isLegal(md)) return { positions, moves: kept, error: `ply ${i + 1}: ${moves[i]} is not legal`, at: i };
    const next = pos.clone();
    next.play(md);
    if (pos.turn === 'sente' && !next.isCheck('gote'))
      return { positions, moves: kept, error: `ply ${i + 1}: ${moves[i]} is not a check`, at: i };
    positions.push(next);
    kept.push(moves[i]);
  }
  return { positions, moves: kept, error: null, at: moves.length };
}

// Every legal USI move of the side to move; the attacker's only when it checks.
export function legalMoves(pos) {
  const out = [];
  const ctx = pos.ctx();
  const attacker = pos.turn === 'sente';
  const keep = (md) => {
    if (!pos.isLegal(md, ctx)) return;
    if (attacker) {
      const next = pos.clone();
      next.play(md);
      if (!next.isCheck('gote')) return;
    }
    out.push(makeUsi(md));
  };
  for (const [from, dests] of pos.allMoveDests(ctx)) {
    const piece = pos.board.get(from);
    for (const to of dests) {
      const capture = pos.board.get(to);
      if (!pieceForcePromote('standard')(piece, to)) keep({ from, to, promotion: false });
      if (pieceCanPromote('standard')(piece, from, to, capture)) keep({ from, to, promotion: true });
    }
  }
  for (const role of HAND_ROLES) {
    if (pos.hands[pos.turn].get(role) <= 0) continue;
    for (const to of pos.dropDests({ color: pos.turn, role }, ctx)) keep({ role, to });
  }
  return out;
}

// Shogiground's destination maps from a list of USI moves.
export function groundDests(moves, color) {
  const moveDests = new Map();
  const dropDests = new Map();
  for (const usi of moves) {
    const m = usi.match(/^([PLNSGBR])\*(\d[a-i])$/);
    if (m) {
      const name = `${color} ${FROM_LETTER[m[1]]}`;
      const list = dropDests.get(name) || [];
      list.push(m[2]);
      dropDests.set(name, list);
      continue;
    }
    const from = usi.slice(0, 2);
    const to = usi.slice(2, 4);
    const list = moveDests.get(from) || [];
    if (!list.includes(to)) list.push(to);
    moveDests.set(from, list);
  }
  return { moveDests, dropDests };
}

// The squares a USI move touches: [from, to] for a move, [to] for a drop, and
// the dropped piece's role.
export function usiSquares(usi) {
  const md = usi && parseUsi(usi);
  if (!md) return null;
  if (isDrop(md)) return { drop: md.role, to: makeSquareName(md.to) };
  return { from: makeSquareName(md.from), to: makeSquareName(md.to), promotion: !!md.promotion };
}

export const dropUsi = (role, key) => `${LETTER[role]}*${key}`;
export const squareOk = (key) => parseSquareName(key) !== undefined;

// The KIF-style name of a move (▲７六歩), from the position before it.
export function moveName(pos, usi, prevTo) {
  const md = parseUsi(usi);
  if (!md) return usi;
  const mark = pos.turn === 'sente' ? '▲' : '△';
  const name = makeJapaneseMoveOrDrop(pos, md, prevTo);
  return mark + (name || usi);
}

export { makeSfen, opposite, parseUsi };
