// The desk: a tsume-shogi diagram editor on shogiground, its line played with
// shogiops, checked live by `tsume serve` (/api/check), with roles, compose and
// the database panel. Every request goes to the page's own origin.
import { Shogiground } from 'shogiground';
import * as P from './position.js';
import * as api from './api.js';
import { VERDICT_JA, ROLE_JA, ROLE_MARK, flawJa } from './names.js';

const $ = (id) => document.getElementById(id);
const DEFAULT_SFEN = '9/8k/8g/7GP/9/9/9/9/9 b 2r2b2g4s4n4l17p 1';
const SPARE_ROLES = ['king', 'rook', 'bishop', 'gold', 'silver', 'knight', 'lance', 'pawn',
  'dragon', 'horse', 'promotedsilver', 'promotedknight', 'promotedlance', 'tokin'];
const RANKS = 'abcdefghi';
const CHECK_DELAY_MS = 120;

const S = {
  sfen: DEFAULT_SFEN,
  goteRest: true,
  line: [], // the 作意 (USI), empty when none is given
  cursor: 0, // plies shown from the diagram
  mode: 'edit', // 'edit': the diagram; 'play': the line
  view: null, // a variation being looked at: {moves, cursor, label}
  tool: 'move',
  armed: null, // palette piece picked for placing: {color, role}
  legal: new Set(), // legal USI moves of the shown position (play)
  check: null, // {key, result}: the last finished check
  checking: false,
  checkState: 'idle',
  checkStarted: 0,
  checkNodes: 0, // a node budget from the address (?nodes=N), 0: none
  progress: null,
  found: [], // flaws the running check has proven so far: {flaw, line}
  diagramError: null,
  showRoles: false,
  roles: null, // {key, data} or {key, error}
  kif: null, // {key, text}
  compose: null, // the running compose job
  composeUndo: null, // the diagram before the last compose
  history: [], // undo stack of {sfen, line, goteRest}
  playTimer: null,
  focusFlaw: -1, // the flaw under the pointer in the list, drawn in its own colour
};

const keyOf = (sfen, line) => `${sfen}|${line.join(' ')}`;

// ---- lines and positions -------------------------------------------------

const replayCache = new Map();
function replayOf(sfen, moves) {
  const k = keyOf(sfen, moves);
  let r = replayCache.get(k);
  if (!r) {
    r = P.replay(sfen, moves);
    if (replayCache.size > 200) replayCache.clear();
    replayCache.set(k, r);
  }
  return r;
}

function currentCheck() {
  return S.check && S.check.key === keyOf(S.sfen, S.line) ? S.check.result : null;
}

// The line the board steps through: the given one, else the solver's main line
// of the last check.
function effLine() {
  if (S.line.length) return { moves: S.line, solver: false };
  const r = currentCheck();
  if (r && Array.isArray(r.line) && r.line.length && !r.line_given) return { moves: r.line, solver: true };
  return { moves: [], solver: false };
}

function shown() {
  if (S.view) return { moves: S.view.moves, cursor: S.view.cursor, view: true };
  const e = effLine();
  return { moves: e.moves, cursor: Math.min(S.cursor, e.moves.length), solver: e.solver };
}

const isEditing = () => S.mode === 'edit' && !S.view && !S.compose;

// The longest prefix of `line` that is still legal from `sfen`.
function trimLine(sfen, line) {
  if (!line.length) return line;
  return replayOf(sfen, line).moves.slice();
}

// Reads a line given as text: USI moves separated by spaces or '+'. A move
// written without its '+' is promoted when only the promotion is legal.
function lineFromText(sfen, text) {
  const tokens = (text || '').match(/[PLNSGBR]\*\d[a-i]|\d[a-i]\d[a-i]\+?/g) || [];
  const out = [];
  for (const t of tokens) {
    let r = replayOf(sfen, out.concat(t));
    if (r.error && !t.endsWith('+') && !t.includes('*')) {
      const r2 = replayOf(sfen, out.concat(t + '+'));
      if (!r2.error) {
        out.push(t + '+');
        continue;
      }
    }
    if (r.error) break;
    out.push(t);
  }
  return out;
}

// ---- the board --------------------------------------------------------------

const no = () => false;
const ground = Shogiground(
  {
    orientation: 'sente',
    coordinates: { enabled: true, files: 'numeric', ranks: 'japanese' },
    scaleDownPieces: false,
    hands: { inlined: false },
    animation: { enabled: true, duration: 140 },
    drawable: { enabled: false, visible: true, eraseOnClick: false },
    premovable: { enabled: false },
    predroppable: { enabled: false },
    highlight: { lastDests: true, check: true },
    promotion: {
      promotesTo: (r) => P.promoteRole(r),
      unpromotesTo: (r) => P.unpromoteRole(r),
    },
    events: { change: onGroundChange },
    movable: { events: { after: onGroundMove } },
    droppable: { events: { after: onGroundDrop } },
  },
  { board: $('board'), hands: { top: $('hand-top'), bottom: $('hand-bottom') } },
);

function renderBoard() {
  const editing = isEditing();
  document.body.classList.toggle('editing', editing);
  document.body.classList.toggle('play', !editing);
  if (editing) {
    const p = P.sfenParts(S.sfen);
    S.legal = new Set();
    ground.set({
      sfen: { board: p.board, hands: p.hands },
      hovered: undefined,
      turnColor: 'sente',
      activeColor: 'both',
      lastDests: undefined,
      lastPiece: undefined,
      checks: false,
      movable: { free: true, dests: new Map(), showDests: false },
      droppable: { free: true, dests: new Map(), showDests: false },
      draggable: { deleteOnDropOff: true, addToHandOnDropOff: true },
      selectable: { addSparesToHand: true },
      promotion: { movePromotionDialog: no, forceMovePromotion: no, dropPromotionDialog: no, forceDropPromotion: no },
    });
  } else {
    const sh = shown();
    const rp = replayOf(S.sfen, sh.moves);
    const cur = Math.min(sh.cursor, rp.positions.length - 1);
    const pos = rp.positions[cur];
    if (!pos) {
      const p = P.sfenParts(S.sfen);
      ground.set({ sfen: { board: p.board, hands: p.hands }, activeColor: undefined, lastDests: undefined, checks: false });
    } else {
      const f = P.sfenParts(P.makeSfen(pos));
      const legal = S.compose ? [] : P.legalMoves(pos);
      S.legal = new Set(legal);
      const { moveDests, dropDests } = P.groundDests(legal, pos.turn);
      const last = cur > 0 ? P.usiSquares(sh.moves[cur - 1]) : null;
      ground.set({
        sfen: { board: f.board, hands: f.hands },
        hovered: undefined,
        turnColor: pos.turn,
        activeColor: S.compose ? undefined : pos.turn,
        lastDests: last ? (last.from ? [last.from, last.to] : [last.to]) : undefined,
        lastPiece: last && last.drop ? { role: last.drop, color: P.opposite(pos.turn) } : undefined,
        checks: pos.isCheck(pos.turn) ? pos.turn : false,
        movable: { free: false, dests: moveDests, showDests: true },
        droppable: { free: false, dests: dropDests, showDests: true },
        draggable: { deleteOnDropOff: false, addToHandOnDropOff: false },
        selectable: { addSparesToHand: false },
        promotion: {
          movePromotionDialog: (o, d) => S.legal.has(o + d) && S.legal.has(o + d + '+'),
          forceMovePromotion: (o, d) => !S.legal.has(o + d) && S.legal.has(o + d + '+'),
          dropPromotionDialog: no,
          forceDropPromotion: no,
        },
      });
    }
  }
  ground.setAutoShapes(shapes());
  renderRoleMarks();
}

// An arrow for a USI move: from its square, or from the hand piece for a drop.
function moveShape(usi, color, brush, description) {
  const q = P.usiSquares(usi);
  if (!q) return null;
  if (q.drop) return { orig: { role: q.drop, color }, dest: q.to, brush, description };
  return { orig: q.from, dest: q.to, brush, description };
}

// The shapes of the shown ply: the line's next move, and each flaw found at this
// ply (its alternative as an arrow; 駒余り as circles on the pieces left in hand).
function shapes() {
  const out = [];
  const sh = shown();
  const rp = replayOf(S.sfen, sh.moves);
  const pos = rp.positions[Math.min(sh.cursor, rp.positions.length - 1)];
  if (!pos) return out;
  if (sh.cursor < sh.moves.length) {
    const s = moveShape(sh.moves[sh.cursor], pos.turn, 'line');
    if (s) out.push(s);
  }
  const r = !S.view && currentCheck();
  if (r && Array.isArray(r.flaws)) {
    r.flaws.forEach((f, i) => {
      const brush = i === S.focusFlaw ? 'focus' : f.tolerated ? 'kizu' : 'flaw';
      const label = flawJa(f);
      if (f.kind === 'komaamari') {
        if (sh.cursor !== sh.moves.length) return;
        for (const role of P.HAND_ROLES)
          if (pos.hands.sente.get(role) > 0) {
            const piece = { role, color: 'sente' };
            out.push({ orig: piece, dest: piece, brush });
          }
        return;
      }
      if (f.ply - 1 !== sh.cursor) return;
      if (f.alt) {
        const s = moveShape(f.alt, pos.turn, brush, label);
        if (s) out.push(s);
      } else if (f.move) {
        const q = P.usiSquares(f.move);
        if (q) out.push({ orig: q.to, dest: q.to, brush, description: label });
      }
    });
  }
  return out.filter(Boolean);
}

function keyAt(e) {
  const rect = $('board').getBoundingClientRect();
  const fx = Math.floor(((e.clientX - rect.left) / rect.width) * 9);
  const ry = Math.floor(((e.clientY - rect.top) / rect.height) * 9);
  if (fx < 0 || fx > 8 || ry < 0 || ry > 8) return null;
  return `${9 - fx}${RANKS[ry]}`;
}

// ---- editing the diagram ------------------------------------------------------

function pushHistory() {
  S.history.push({ sfen: S.sfen, line: S.line.slice(), goteRest: S.goteRest });
  if (S.history.length > 200) S.history.shift();
}

function undo() {
  const h = S.history.pop();
  if (!h) return toast('戻せる変更はありません nothing to undo');
  S.sfen = h.sfen;
  S.line = h.line;
  S.goteRest = h.goteRest;
  $('gote-rest').checked = S.goteRest;
  S.cursor = 0;
  S.view = null;
  changed();
}

// A new diagram from the board and the attacker's hand (the defender's hand too
// unless it is 残り全部).
function applyEdit(board, sente, gote) {
  if (S.goteRest) gote = P.restHand(board, sente).gote;
  const sfen = P.diagramSfen(board, sente, gote);
  if (sfen === S.sfen) {
    renderBoard();
    rearm();
    return;
  }
  pushHistory();
  S.sfen = sfen;
  S.line = trimLine(sfen, S.line);
  S.cursor = 0;
  changed();
  rearm();
}

function onGroundChange() {
  if (!isEditing()) return;
  const hands = ground.getHandsSfen();
  applyEdit(ground.getBoardSfen(), P.handCounts(hands, 'sente'), P.handCounts(hands, 'gote'));
}

function currentHands() {
  const p = P.sfenParts(S.sfen);
  return { sente: P.handCounts(p.hands, 'sente'), gote: P.handCounts(p.hands, 'gote'), board: p.board };
}

// A tool applied to the piece on `key`: promote or unpromote, give it to the
// other side, or remove it.
function editPiece(key, tool) {
  const piece = ground.state.pieces.get(key);
  if (!piece) return;
  let next = piece;
  if (tool === 'delete') next = undefined;
  else if (tool === 'turn') next = { role: piece.role, color: P.opposite(piece.color) };
  else if (tool === 'promote') {
    const up = P.promoteRole(piece.role);
    const down = P.unpromoteRole(piece.role);
    if (up) next = { role: up, color: piece.color };
    else if (down !== piece.role) next = { role: down, color: piece.color };
    else return;
  }
  ground.cancelMoveOrDrop();
  ground.setPieces(new Map([[key, next]]));
  const h = currentHands();
  applyEdit(ground.getBoardSfen(), h.sente, h.gote);
}

// A tool applied to a hand piece: remove one, or pass one to the other side.
// Removing from a 残り全部 hand makes the defender's hand an explicit one.
function editHand(color, role, tool) {
  const h = currentHands();
  const mine = color === 'sente' ? h.sente : h.gote;
  const other = color === 'sente' ? h.gote : h.sente;
  if (!mine[role] || (tool !== 'delete' && tool !== 'turn')) return;
  mine[role]--;
  if (tool === 'turn') other[role]++;
  else if (color === 'gote' && S.goteRest) S.goteRest = false;
  applyEdit(h.board, h.sente, h.gote);
}

function clearBoard() {
  const h = currentHands();
  const kingOnly = h.board.includes('k') ? keepKing(h.board) : '8k/9/9/9/9/9/9/9/9';
  const none = Object.fromEntries(P.HAND_ROLES.map((r) => [r, 0]));
  S.mode = 'edit';
  S.view = null;
  applyEdit(kingOnly, none, none);
  renderAll();
}

// The board field with only the defender's king left on it.
function keepKing(board) {
  return board
    .split('/')
    .map((rank) => {
      let out = '';
      let empty = 0;
      for (let i = 0; i < rank.length; i++) {
        const c = rank[i];
        if (c >= '0' && c <= '9') {
          empty += Number(c);
          continue;
        }
        if (c === '+') {
          i++;
          empty++;
          continue;
        }
        if (c === 'k') {
          if (empty) out += empty;
          out += 'k';
          empty = 0;
        } else empty++;
      }
      return out + (empty ? empty : '');
    })
    .join('/');
}

// ---- the palette --------------------------------------------------------------

function buildPalette() {
  for (const color of ['sente', 'gote']) {
    const row = $(`spares-${color}`);
    for (const role of SPARE_ROLES) {
      const cell = document.createElement('div');
      cell.className = 'spare';
      cell.dataset.color = color;
      cell.dataset.role = role;
      cell.dataset.piece = `${color} ${role}`;
      cell.title = `${color === 'sente' ? '先手 attacker' : '後手 defender'} ${role}`;
      const pc = document.createElement('piece');
      pc.className = `${color} ${role}`;
      cell.appendChild(pc);
      cell.addEventListener('mousedown', (e) => onSpareDown(e, { color, role }));
      row.appendChild(cell);
    }
  }
  for (const b of document.querySelectorAll('.tool')) b.addEventListener('click', () => setTool(b.dataset.tool));
  setTool('move');
}

function enterEdit() {
  if (S.compose) return false;
  if (!isEditing()) {
    stopAutoPlay();
    S.mode = 'edit';
    S.view = null;
    S.cursor = 0;
    renderAll();
  }
  return true;
}

function onSpareDown(e, piece) {
  if (e.button !== 0) return;
  e.preventDefault();
  if (!enterEdit()) return;
  const same = S.armed && S.armed.color === piece.color && S.armed.role === piece.role;
  ground.selectPiece(null);
  if (same) {
    disarm();
    return;
  }
  S.armed = piece;
  S.tool = 'move';
  renderPalette();
  ground.dragNewPiece(piece, e, true);
}

function rearm() {
  if (S.armed && isEditing()) ground.selectPiece(S.armed, true);
}

function disarm() {
  S.armed = null;
  ground.selectPiece(null);
  ground.set({ hovered: undefined });
  renderPalette();
}

function setTool(tool) {
  S.tool = tool;
  if (tool !== 'move') S.armed = null;
  ground.selectPiece(null);
  ground.cancelMoveOrDrop();
  if (tool !== 'move') enterEdit();
  renderPalette();
}

function renderPalette() {
  for (const b of document.querySelectorAll('.tool')) b.classList.toggle('on', b.dataset.tool === S.tool);
  for (const c of document.querySelectorAll('.spare'))
    c.classList.toggle('on', !!S.armed && c.dataset.color === S.armed.color && c.dataset.role === S.armed.role);
}

// ---- playing the line -----------------------------------------------------------

function onGroundMove(orig, dest, prom) {
  if (isEditing()) return;
  let usi = orig + dest + (prom ? '+' : '');
  if (!S.legal.has(usi) && S.legal.has(orig + dest + '+')) usi = orig + dest + '+';
  if (!S.legal.has(usi)) return renderBoard();
  playUsi(usi);
}

function onGroundDrop(piece, key) {
  if (isEditing()) return;
  const usi = P.dropUsi(piece.role, key);
  if (!S.legal.has(usi)) return renderBoard();
  playUsi(usi);
}

function playUsi(usi) {
  stopAutoPlay();
  if (S.compose) return renderBoard();
  if (S.view) {
    S.view.moves = S.view.moves.slice(0, S.view.cursor).concat(usi);
    S.view.cursor++;
    return renderAll();
  }
  const e = effLine();
  const c = Math.min(S.cursor, e.moves.length);
  if (e.moves[c] === usi) {
    S.cursor = c + 1;
    return renderAll();
  }
  pushHistory();
  S.line = e.moves.slice(0, c).concat(usi);
  S.cursor = c + 1;
  changed();
}

function go(cursor) {
  stopAutoPlay();
  const sh = shown();
  const c = Math.max(0, Math.min(cursor, sh.moves.length));
  if (S.view) S.view.cursor = c;
  else S.cursor = c;
  if (S.mode === 'edit' && !S.view && c > 0) S.mode = 'play';
  renderAll();
}

function stopAutoPlay() {
  if (S.playTimer) clearInterval(S.playTimer);
  S.playTimer = null;
}

// Shows a variation: the line up to `ply`, then `tail` (another move and what
// follows), played on the board one ply at a time.
function openVariation(ply, tail, label) {
  stopAutoPlay();
  const start = Math.max(0, ply - 1);
  const rp = replayOf(S.sfen, effLine().moves.slice(0, start).concat(tail));
  S.view = { moves: rp.moves.slice(), cursor: start, label };
  S.mode = 'play';
  renderAll();
  S.playTimer = setInterval(() => {
    if (!S.view || S.view.cursor >= S.view.moves.length) return stopAutoPlay();
    S.view.cursor++;
    renderAll();
  }, 650);
}

// The name of the move `usi` at ply `ply` of `moves` ("▲２三飛引成"); the USI itself
// where the line does not reach that ply.
function moveNameAt(moves, ply, usi) {
  if (!usi) return '';
  const pos = replayOf(S.sfen, moves).positions[ply - 1];
  return pos ? P.moveName(pos, usi) : usi;
}

// A flaw's line: its alternative and the alternative's mating line.
function openFlaw(i) {
  const r = currentCheck();
  const f = r && r.flaws && r.flaws[i];
  if (!f) return;
  if (!f.alt_line || !f.alt_line.length) {
    const base = effLine().moves;
    stopAutoPlay();
    S.view = null;
    S.mode = 'play';
    S.cursor = f.kind === 'komaamari' ? base.length : Math.max(0, f.ply - 1);
    return renderAll();
  }
  openVariation(f.ply, f.alt_line, `${f.ply}手目 ${flawJa(f)} ${f.kind}`);
}

function closeView(adopt) {
  stopAutoPlay();
  if (!S.view) return;
  const v = S.view;
  S.view = null;
  if (adopt) {
    pushHistory();
    S.line = v.moves.slice();
    S.cursor = v.cursor;
    changed();
  } else renderAll();
}

// ---- checking -------------------------------------------------------------------

let checkTimer = null;
let checkCtl = null;
let checkSeq = 0;

function cancelCheck() {
  clearTimeout(checkTimer);
  if (checkCtl) checkCtl.abort();
  checkCtl = null;
  S.checking = false;
}

function scheduleCheck() {
  cancelCheck();
  S.checking = true;
  S.checkState = 'pending';
  S.progress = null;
  S.found = [];
  renderCheck();
  checkTimer = setTimeout(runCheck, CHECK_DELAY_MS);
}

async function runCheck() {
  const seq = ++checkSeq;
  const ctl = new AbortController();
  checkCtl = ctl;
  const sfen = S.sfen;
  const line = S.line.slice();
  const key = keyOf(sfen, line);
  try {
    await api.parseDiagram(sfen, ctl.signal);
    if (seq !== checkSeq) return;
    S.diagramError = null;
  } catch (e) {
    if (api.isAbort(e) || seq !== checkSeq) return;
    S.diagramError = e.message;
    S.checking = false;
    S.checkState = 'illegal';
    renderAll();
    return;
  }
  S.checkState = 'checking';
  S.checkStarted = Date.now();
  renderDiagramError();
  renderCheck();
  const budget = Math.max(1, Number($('check-budget').value) || 30);
  const body = { sfen, time_ms: Math.round(budget * 1000) };
  if (line.length) body.line = line.join(' ');
  // a node budget from the address (?nodes=N): the same answer on any machine
  if (S.checkNodes) body.nodes = S.checkNodes;
  try {
    const last = await busyRetry(ctl.signal, () =>
      api.stream('/api/check', body, ctl.signal, (o) => {
        if (seq !== checkSeq) return;
        if (o.progress) {
          S.progress = o.progress;
          renderCheckStatus();
        } else if (o.flaw) {
          S.found.push({ flaw: o.flaw, line: o.line || [] });
          renderCheckStatus();
        }
      }),
    );
    if (seq !== checkSeq) return;
    S.checking = false;
    if (last && last.error) throw new Error(last.error);
    if (!last || !last.verdict) throw new Error('the check ended without a result');
    S.check = { key, result: last };
    S.checkState = 'done';
    if (!S.line.length && S.cursor > effLine().moves.length) S.cursor = 0;
    renderAll();
    fetchKif();
    if (S.showRoles) fetchRoles();
  } catch (e) {
    if (api.isAbort(e) || seq !== checkSeq) return;
    S.checking = false;
    S.checkState = 'error';
    S.check = { key, result: { verdict: 'error', message: e.message, flaws: [] } };
    renderAll();
  }
}

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    if (signal)
      signal.addEventListener('abort', () => {
        clearTimeout(t);
        reject(new DOMException('aborted', 'AbortError'));
      });
  });

// Runs a job request again while the server answers 503 (every job slot busy,
// as when the check just aborted has not yet ended there).
async function busyRetry(signal, fn) {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (e.status !== 503 || i >= 40) throw e;
      await sleep(250, signal);
    }
  }
}

// The flaws proven so far by the running check, the fatal ones first: "余詰 1手目 ▲２三飛引成".
function foundText() {
  if (!S.found.length) return '';
  const fatal = S.found.filter((x) => !x.flaw.tolerated);
  const list = fatal.length ? fatal : S.found;
  const shown = list.slice(0, 3).map(({ flaw: f, line }) => `${flawJa(f)} ${f.ply}手目 ${moveNameAt(line, f.ply, f.alt)}`);
  const more = list.length - shown.length;
  return ` · ${fatal.length ? '' : 'キズ '}${shown.join(', ')}${more > 0 ? ` +${more}` : ''}`;
}

function renderCheckStatus() {
  const el = $('check-status');
  el.dataset.state = S.checkState;
  const p = S.progress;
  const t = {
    idle: '',
    pending: '検討待ち waiting…',
    checking: `検討中 checking… ${((p ? p.elapsed_ms : Date.now() - S.checkStarted) / 1000).toFixed(1)} s${p && p.nodes != null ? `, ${fmtNodes(p.nodes)} nodes` : ''}${foundText()}`,
    done: '',
    error: '検討失敗 check failed',
    illegal: '図面不正 illegal diagram',
  }[S.checkState];
  el.textContent = t || '';
  clearTimeout(statusTimer);
  if (S.checkState === 'checking') statusTimer = setTimeout(renderCheckStatus, 500);
}
let statusTimer = null;

const fmtNodes = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(0)}k` : `${n || 0}`);

// What an open question of a check asks (its "question" in the report).
const OPEN_QUESTION = {
  'within-line': '手数内に詰むか mate within the line?',
  'any-length': '詰むか mate at all?',
  defence: '何手で詰むか how long after this reply?',
};
const OPEN_SHOWN = 20;

function renderCheck() {
  renderCheckStatus();
  const r = S.diagramError ? null : currentCheck();
  const box = $('verdict-box');
  const list = $('flaws');
  list.textContent = '';
  const openList = $('open-questions');
  openList.textContent = '';
  S.focusFlaw = -1;
  if (!r) {
    $('verdict').textContent = '';
    $('verdict-ja').textContent = S.diagramError ? '図面不正' : S.checking ? '検討中' : '—';
    box.dataset.verdict = S.diagramError ? 'error' : '';
    $('check-summary').textContent = '';
    return;
  }
  $('verdict').textContent = r.verdict;
  $('verdict-ja').textContent = r.verdict_ja || VERDICT_JA[r.verdict] || '';
  box.dataset.verdict = r.verdict;
  const bits = [];
  if (r.length > 0) bits.push(`${r.length}手詰 mate in ${r.length}${r.length_exact === false ? '+' : ''}`);
  if (r.line_length > 0) bits.push(`${r.line_given ? '作意 line' : '解図 solver line'} ${r.line_length}手`);
  if (r.unproven) bits.push(`未解決 unproven ${r.unproven}${r.unproven_ply ? ` (${r.unproven_ply}手目~)` : ''}`);
  if (typeof r.time_ms === 'number') bits.push(`${r.time_ms} ms`);
  if (r.message) bits.push(r.message);
  $('check-summary').textContent = bits.join(' · ');
  const base = effLine().moves;
  (r.flaws || []).forEach((f, i) => {
    const li = document.createElement('li');
    li.dataset.kind = f.kind;
    li.dataset.ply = String(f.ply);
    li.dataset.index = String(i);
    li.dataset.tolerated = f.tolerated ? '1' : '0';
    if (f.tolerated) li.classList.add('tolerated');
    const alt = moveNameAt(base, f.ply, f.alt);
    const kind = document.createElement('span');
    kind.className = 'kind';
    kind.textContent = `${flawJa(f)} ${f.kind}`;
    li.append(`${f.ply}手目 `, kind);
    if (f.tolerated) li.append(' (キズ tolerated)');
    if (alt) {
      const a = document.createElement('span');
      a.className = 'alt';
      a.textContent = ` ${alt} (${f.alt})`;
      li.append(a);
    }
    if (f.alt_length > 0) li.append(` ${f.alt_length}手${f.longer ? ' 長手数 longer' : ''}`);
    else if (f.alt_length_min > 0) li.append(` ${f.alt_length_min}手以上 (length not settled)`);
    else if (f.alt_length_max > 0) li.append(` ${f.alt_length_max}手以内 (length not settled)`);
    if (f.alt_komaamari) li.append(' 駒余り');
    li.title = '盤上で再生 play this line on the board';
    li.addEventListener('click', () => openFlaw(i));
    li.addEventListener('mouseenter', () => {
      S.focusFlaw = i;
      ground.setAutoShapes(shapes());
    });
    li.addEventListener('mouseleave', () => {
      S.focusFlaw = -1;
      ground.setAutoShapes(shapes());
    });
    list.appendChild(li);
  });
  // the questions the budget left open: any of them may hide a flaw
  (r.open || []).slice(0, OPEN_SHOWN).forEach((o) => {
    const li = document.createElement('li');
    li.dataset.ply = String(o.ply);
    const alt = moveNameAt(base, o.ply, o.alt);
    // proven to mate, only its length or kind open: a likely flaw
    const mates = !o.mates ? '' : o.mate_length_max > 0 ? ` 詰みあり (${o.mate_length_max}手以内) mates` : ' 詰みあり mates';
    // limit null: the budget ran out before the question's turn
    const spent = o.limit === null ? '未着手 not asked' : `${fmtNodes(o.nodes)} nodes`;
    li.textContent = `${o.ply}手目 ${alt} (${o.alt}) 未解決 open: ${OPEN_QUESTION[o.question] || o.question}${mates} ${spent}`;
    if (o.mates) li.classList.add('mates');
    li.title = '盤上で表示 show this move on the board';
    li.addEventListener('click', () => openVariation(o.ply, [o.alt], `${o.ply}手目 未解決 open`));
    openList.appendChild(li);
  });
  if (r.open && r.open.length > OPEN_SHOWN) {
    const li = document.createElement('li');
    li.textContent = `… +${r.open.length - OPEN_SHOWN}`;
    openList.appendChild(li);
  }
}

function renderDiagramError() {
  const el = $('diagram-error');
  el.hidden = !S.diagramError;
  el.textContent = S.diagramError ? `図面不正 illegal diagram: ${S.diagramError}` : '';
}

// ---- the line, KIF and roles ------------------------------------------------------

function renderMoves() {
  const sh = shown();
  const list = $('moves');
  list.textContent = '';
  const rp = replayOf(S.sfen, sh.moves);
  const r = !S.view && currentCheck();
  const flawAt = new Map();
  if (r && r.flaws) for (const f of r.flaws) if (!f.tolerated || !flawAt.has(f.ply)) flawAt.set(f.ply, f.tolerated ? 'kizu' : 'flawed');
  sh.moves.forEach((usi, i) => {
    const li = document.createElement('li');
    const pos = rp.positions[i];
    li.textContent = pos ? P.moveName(pos, usi) : usi;
    li.title = usi;
    li.dataset.usi = usi;
    if (i + 1 === sh.cursor) li.classList.add('cur');
    if (sh.solver) li.classList.add('from-solver');
    const fl = flawAt.get(i + 1);
    if (fl) li.classList.add(fl);
    li.addEventListener('click', () => go(i + 1));
    list.appendChild(li);
  });
  let src = '';
  if (S.view) src = '変化 variation';
  else if (sh.solver) src = '解図の手順 solver’s main line';
  else if (S.line.length) src = `${S.line.length}手`;
  else src = 'なし none';
  $('line-source').textContent = src;
  $('take-line').disabled = !sh.solver || !!S.view;
  $('clear-line').disabled = !S.line.length || !!S.view;
}

function renderNav() {
  const sh = shown();
  const rp = replayOf(S.sfen, sh.moves);
  const pos = rp.positions[Math.min(sh.cursor, rp.positions.length - 1)];
  const mated = !!pos && sh.cursor > 0 && pos.turn === 'gote' && pos.isCheckmate();
  $('ply-label').textContent = `${sh.cursor} / ${sh.moves.length}手${mated ? ' 詰み mate' : ''}`;
  $('nav-first').disabled = sh.cursor === 0;
  $('nav-prev').disabled = sh.cursor === 0;
  $('nav-next').disabled = sh.cursor >= sh.moves.length;
  $('nav-last').disabled = sh.cursor >= sh.moves.length;
  $('view-banner').hidden = !S.view;
  $('view-label').textContent = S.view ? `変化 ${S.view.label}` : '';
  $('mode-edit').classList.toggle('on', isEditing());
  $('mode-play').classList.toggle('on', !isEditing());
  $('gote-rest').checked = S.goteRest;
  $('gote-rest').disabled = !!S.compose;
}

async function fetchKif() {
  const e = effLine();
  const key = keyOf(S.sfen, e.moves);
  if (S.kif && S.kif.key === key) return;
  const body = { sfen: S.sfen };
  if (e.moves.length) body.line = e.moves.join(' ');
  try {
    const text = await api.postText('/api/kif', body);
    S.kif = { key, text };
  } catch (err) {
    S.kif = { key, text: `KIF: ${err.message}` };
  }
  if (keyOf(S.sfen, effLine().moves) === key) $('kif').textContent = S.kif.text;
}

async function fetchRoles() {
  const e = effLine();
  const key = keyOf(S.sfen, e.moves);
  if (S.roles && S.roles.key === key) return renderRoles();
  if (!e.moves.length && S.checking) return renderRoles(); // the solver's line comes with the check
  const r = currentCheck();
  if (!e.moves.length || (r && ['nomate', 'error', 'bad-line'].includes(r.verdict))) {
    S.roles = { key, error: '詰む手順がありません no mating line' };
    return renderRoles();
  }
  try {
    const data = await busyRetry(null, () => api.postJson('/api/roles', { sfen: S.sfen, line: e.moves.join(' ') }));
    S.roles = data && data.error ? { key, error: data.error } : { key, data };
  } catch (err) {
    S.roles = { key, error: err.message };
  }
  renderRoles();
}

function currentRoles() {
  return S.roles && S.roles.key === keyOf(S.sfen, effLine().moves) ? S.roles : null;
}

function roleTitle(roles) {
  return roles.map((r) => `${ROLE_JA[r] || r} ${r}`).join('\n');
}

function renderRoleMarks() {
  const layer = $('roles-layer');
  layer.textContent = '';
  const R = S.showRoles && !S.view && currentRoles();
  if (!R || !R.data || !Array.isArray(R.data.plies)) return;
  const sh = shown();
  const ply = R.data.plies.find((p) => p.ply === sh.cursor);
  if (!ply) return;
  for (const sq of ply.squares || []) {
    if (!sq.roles || !sq.roles.length) continue;
    const file = Number(sq.sq[0]);
    const rank = RANKS.indexOf(sq.sq[1]);
    const mark = document.createElement('span');
    mark.className = 'role-mark';
    mark.dataset.sq = sq.sq;
    mark.dataset.roles = sq.roles.join(' ');
    mark.textContent = sq.roles.map((r) => ROLE_MARK[r] || '?').join('');
    mark.title = `#${sq.id} ${sq.sq}\n${roleTitle(sq.roles)}`;
    mark.style.left = `${((9 - file) / 9) * 100}%`;
    mark.style.top = `${(rank / 9) * 100}%`;
    layer.appendChild(mark);
  }
}

function renderRoles() {
  renderRoleMarks();
  const box = $('roles-summary');
  const R = S.showRoles && currentRoles();
  box.hidden = !S.showRoles;
  box.textContent = '';
  if (!S.showRoles) return;
  if (!R) {
    box.textContent = '役割を計算中 finding roles…';
    return;
  }
  if (R.error) {
    box.textContent = `役割 roles: ${R.error}`;
    return;
  }
  const ul = document.createElement('ul');
  for (const p of R.data.pieces || []) {
    const li = document.createElement('li');
    li.textContent = `#${p.id} ${p.start} ${p.piece}: ${(p.roles || []).map((r) => `${ROLE_JA[r] || r}`).join('、') || '—'}`;
    li.title = roleTitle(p.roles || []);
    ul.appendChild(li);
  }
  const legend = document.createElement('div');
  legend.className = 'muted';
  legend.textContent = Object.keys(ROLE_MARK).map((r) => `${ROLE_MARK[r]}=${ROLE_JA[r]} ${r}`).join('  ');
  box.append(legend, ul);
}

// ---- the whole page -------------------------------------------------------------

function renderAll() {
  renderBoard();
  renderMoves();
  renderNav();
  renderCheck();
  renderDiagramError();
  renderPalette();
  if (S.showRoles) renderRoles();
  $('sfen-text').textContent = S.sfen;
  const e = effLine();
  if (S.kif && S.kif.key === keyOf(S.sfen, e.moves)) $('kif').textContent = S.kif.text;
}

// A query value as URLSearchParams reads it back: '+' for a space, '/' and '*'
// kept for a readable address, '+' itself escaped.
const queryValue = (v) => encodeURIComponent(v).replace(/%2F/g, '/').replace(/%20/g, '+');

function syncUrl() {
  let q = `?sfen=${queryValue(S.sfen)}`;
  if (S.line.length) q += `&line=${queryValue(S.line.join(' '))}`;
  history.replaceState(null, '', location.pathname + q);
}

// The diagram or the line changed: new URL, new board, a new check.
function changed() {
  S.diagramError = null;
  syncUrl();
  renderAll();
  if (!S.compose) scheduleCheck();
}

function loadDiagram(sfen, line, opts = {}) {
  if (opts.record !== false) pushHistory();
  stopAutoPlay();
  S.sfen = P.asDiagram(sfen);
  S.goteRest = P.goteIsRest(sfen);
  S.line = trimLine(sfen, line || []);
  S.cursor = 0;
  S.view = null;
  S.mode = S.line.length ? 'play' : 'edit';
  S.armed = null;
  changed();
}

// ---- in and out -------------------------------------------------------------------

let toastTimer = null;
function toast(msg) {
  const el = $('toast');
  el.textContent = msg;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.textContent = ''), 4000);
}

async function loadData(data, what) {
  try {
    const res = await api.parseDiagram(data);
    const line = Array.isArray(res.line) ? res.line : [];
    loadDiagram(res.sfen, line);
    toast(`読込 loaded ${what} (${res.format || '?'})`);
  } catch (e) {
    S.diagramError = `${what}: ${e.message}`;
    renderDiagramError();
    toast('読込失敗 could not read it');
  }
}

async function copyText(text, what) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    document.execCommand('copy');
    ta.remove();
  }
  toast(`コピーしました copied ${what}`);
}

function download(text, name, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const outLine = () => effLine().moves;
const sfenWithMoves = () => (outLine().length ? `${S.sfen} moves ${outLine().join(' ')}` : S.sfen);

async function exportAs(kind) {
  const line = outLine();
  if (kind === 'sfen') return sfenWithMoves();
  if (kind === 'kif') return api.postText('/api/kif', line.length ? { sfen: S.sfen, line: line.join(' ') } : { sfen: S.sfen });
  if (kind === 'bod') return api.postText('/api/bod', { sfen: S.sfen });
  if (kind === 'svg') return api.postText('/api/svg', { sfen: S.sfen });
  throw new Error(kind);
}

const MIME = { sfen: 'text/plain', kif: 'text/plain', bod: 'text/plain', svg: 'image/svg+xml' };

function bindIo() {
  $('load-text').addEventListener('click', () => {
    const t = $('paste').value;
    if (t.trim()) loadData(t, '貼り付け pasted text');
  });
  $('open-file').addEventListener('change', async (e) => {
    const f = e.target.files && e.target.files[0];
    if (!f) return;
    loadData(new Uint8Array(await f.arrayBuffer()), f.name);
    e.target.value = '';
  });
  document.addEventListener('dragover', (e) => e.preventDefault());
  document.addEventListener('drop', async (e) => {
    const f = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
    if (!f) return;
    e.preventDefault();
    loadData(new Uint8Array(await f.arrayBuffer()), f.name);
  });
  for (const kind of ['sfen', 'kif', 'bod', 'svg']) {
    $(`copy-${kind}`).addEventListener('click', async () => {
      try {
        copyText(kind === 'sfen' ? S.sfen : await exportAs(kind), kind.toUpperCase());
      } catch (e) {
        toast(`${kind}: ${e.message}`);
      }
    });
    $(`dl-${kind}`).addEventListener('click', async () => {
      try {
        download(await exportAs(kind), `tsume.${kind}`, MIME[kind]);
      } catch (e) {
        toast(`${kind}: ${e.message}`);
      }
    });
  }
  $('copy-link').addEventListener('click', () => {
    syncUrl();
    copyText(location.href, 'link');
  });
}

// ---- compose ----------------------------------------------------------------------

function composeButtons() {
  const running = !!S.compose;
  $('compose-start').disabled = running;
  $('compose-stop').disabled = !running || !S.compose.job;
  $('compose-cancel').disabled = !running;
  $('compose-undo').disabled = running || !S.composeUndo;
}

function composeStatus(state, text) {
  const el = $('compose-status');
  el.dataset.state = state;
  el.textContent = text;
}

// The mate picture for --from-mate: the shown position when the defender is to
// move there, else the diagram with the defender to move.
function matePicture() {
  const sh = shown();
  const rp = replayOf(S.sfen, sh.moves);
  const pos = rp.positions[Math.min(sh.cursor, rp.positions.length - 1)];
  if (pos && pos.turn === 'gote') return P.makeSfen(pos);
  const p = P.sfenParts(S.sfen);
  return `${p.board} w ${p.hands} 1`;
}

function showComposed(work, text) {
  if (!work || !work.sfen) return;
  S.sfen = P.asDiagram(work.sfen);
  S.goteRest = P.goteIsRest(work.sfen);
  S.line = Array.isArray(work.line) ? trimLine(work.sfen, work.line) : [];
  S.cursor = 0;
  S.view = null;
  S.mode = 'play';
  if (work.verdict) S.check = { key: keyOf(S.sfen, S.line), result: { ...work, line_given: true } };
  $('compose-result').textContent = text;
  syncUrl();
  renderAll();
}

function describeWork(w, complete) {
  const n = (w.flaws || []).filter((f) => !f.tolerated).length;
  const verdict = w.verdict || (complete === true ? 'complete' : complete === false ? 'flawed' : '');
  return `${VERDICT_JA[verdict] || verdict} ${verdict} · ${w.length > 0 ? `${w.length}手` : '—'} · 余詰等 flaws ${n}${w.pieces ? ` · ${w.pieces}枚 pieces` : ''}`;
}

function addWork(w) {
  const li = document.createElement('li');
  li.textContent = `${w.length}手 ${w.sfen}${w.line ? `  ${[].concat(w.line).join(' ')}` : ''}`;
  li.addEventListener('click', () => loadDiagram(w.sfen, Array.isArray(w.line) ? w.line : String(w.line || '').split(/\s+/).filter(Boolean)));
  $('compose-works').appendChild(li);
}

function onComposeLine(o) {
  const c = S.compose;
  if (!c) return;
  if (o.job) {
    c.job = o.job;
    composeButtons();
  } else if (o.progress) {
    const p = o.progress;
    const bits = [];
    if (p.elapsed_ms != null) bits.push(`${(p.elapsed_ms / 1000).toFixed(1)} s`);
    if (p.iterations != null) bits.push(`${p.iterations} it`);
    if (p.checks != null) bits.push(`${p.checks} checks`);
    if (p.plies != null) bits.push(`${p.plies}手`);
    if (p.candidates != null) bits.push(`${p.candidates} candidates`);
    if (p.works != null) bits.push(`${p.works} works`);
    if (p.nodes != null) bits.push(`${fmtNodes(p.nodes)} nodes`);
    composeStatus('running', `創作中 composing… ${bits.join(', ')}`);
  } else if (o.best) {
    const work = o.best.check || o.best;
    c.best = { work, complete: o.best.complete };
    showComposed(work, `最良 best so far: ${describeWork(work, o.best.complete)}`);
  } else if (o.work) {
    c.works++;
    addWork(o.work);
    if (!c.best || (o.work.length || 0) > (c.best.work.length || 0)) {
      c.best = { work: o.work, complete: o.work.verdict === 'complete' };
      showComposed(o.work, `最長 longest so far: ${describeWork(o.work)}`);
    }
  } else if (o.error) {
    c.error = o.error;
  }
}

async function composeStart() {
  if (S.compose) return;
  stopAutoPlay();
  const fromMate = $('compose-from-mate').checked;
  const budget = Math.max(1, Number($('compose-budget').value) || 20);
  const body = { sfen: S.sfen, time_ms: Math.round(budget * 1000), seed: Number($('compose-seed').value) || 0, from_mate: fromMate };
  if (fromMate) {
    body.sfen = matePicture();
    body.max_moves = Math.max(1, Number($('compose-max-moves').value) || 7);
  } else if (S.line.length && $('compose-keep-line').checked) body.line = S.line.join(' ');
  cancelCheck();
  S.checkState = 'idle';
  S.composeUndo = { sfen: S.sfen, line: S.line.slice(), goteRest: S.goteRest };
  const ctl = new AbortController();
  S.compose = { ctl, job: null, best: null, works: 0, error: null };
  $('compose-result').textContent = '';
  $('compose-works').textContent = '';
  composeStatus('running', '創作中 composing…');
  composeButtons();
  renderAll();
  let final = null;
  try {
    final = await api.stream('/api/compose', body, ctl.signal, onComposeLine);
  } catch (e) {
    const aborted = api.isAbort(e);
    S.compose = null;
    composeStatus(aborted ? 'cancelled' : 'error', aborted ? '中止しました cancelled' : `創作失敗 compose failed: ${e.message}`);
    composeButtons();
    changed();
    return;
  }
  const { best, error } = S.compose;
  S.compose = null;
  composeButtons();
  if (error || (final && final.error)) {
    composeStatus('error', `創作失敗 compose failed: ${error || final.error}`);
    changed();
    return;
  }
  if (final && final.sfen) {
    showComposed(final, `結果 result: ${describeWork(final)}${final.result ? ` (${final.result})` : ''}`);
  } else if (best) {
    showComposed(best.work, `結果 result: ${describeWork(best.work, best.complete)}`);
  }
  const stats = [];
  if (final) {
    if (final.result) stats.push(final.result);
    if (final.works != null) stats.push(`${final.works} works`);
    if (final.longest != null) stats.push(`longest ${final.longest}手`);
    if (final.iterations != null) stats.push(`${final.iterations} iterations`);
    if (final.time_ms != null) stats.push(`${(final.time_ms / 1000).toFixed(1)} s`);
    if (final.stop_reason) stats.push(`stopped by ${final.stop_reason}`);
  }
  composeStatus('done', `完了 done: ${stats.join(', ')}`);
  if (final && final.message && !final.sfen) $('compose-result').textContent = final.message;
  changed();
}

async function composeStop() {
  const c = S.compose;
  if (!c || !c.job) return;
  composeStatus('running', '停止中 stopping…');
  try {
    await api.stopJob(c.job);
  } catch (e) {
    toast(`stop: ${e.message}`);
  }
}

function composeCancel() {
  if (S.compose) S.compose.ctl.abort();
}

function composeUndo() {
  const u = S.composeUndo;
  if (!u || S.compose) return;
  S.composeUndo = null;
  pushHistory();
  S.sfen = u.sfen;
  S.line = u.line;
  S.goteRest = u.goteRest;
  S.cursor = 0;
  S.view = null;
  S.mode = S.line.length ? 'play' : 'edit';
  $('compose-result').textContent = '';
  composeStatus('idle', '');
  composeButtons();
  changed();
}

// ---- the database -------------------------------------------------------------------

const DB = { offset: 0, ctl: null };

function dbParams(withPage) {
  const q = new URLSearchParams();
  const moves = $('db-moves').value.trim();
  if (moves) q.set('moves', moves);
  const flag = $('db-flag').value;
  if (flag) q.set('flag', flag);
  if ($('db-complete').checked) q.set('complete', '1');
  if (withPage) {
    q.set('limit', String(Math.max(1, Number($('db-limit').value) || 50)));
    q.set('offset', String(DB.offset));
  }
  return q;
}

async function dbSearch() {
  if (DB.ctl) DB.ctl.abort();
  const ctl = new AbortController();
  DB.ctl = ctl;
  const q = dbParams(true);
  // an export is `tsume export` of the same selection: each work confirmed by the checker, with 変化
  const e = new URLSearchParams();
  for (const k of ['moves', 'complete', 'flag']) if (q.has(k)) e.set(k, q.get(k));
  $('db-export').href = `/api/export.kif?${e}&limit=1000`;
  $('db-book').href = `/api/export.tar?${e}&limit=500`;
  $('db-export-note').textContent = '書き出しは詰将棋検査で確認 (each work confirmed by the checker)';
  const list = $('db-list');
  list.textContent = '';
  list.start = DB.offset + 1;
  let n = 0;
  $('db-page').textContent = '検索中 searching…';
  try {
    await api.getLines(`/api/query?${q.toString()}`, ctl.signal, (w) => {
      if (!w || !w.sfen) return;
      n++;
      const li = document.createElement('li');
      const len = document.createElement('span');
      len.className = 'len';
      len.textContent = `${w.length}手`;
      const flags = document.createElement('span');
      flags.className = 'flags';
      flags.textContent = ` ${[].concat(w.flags || []).join(',')}`;
      li.append(len, w.sfen, flags);
      li.title = '机で開く open on the desk';
      li.addEventListener('click', () => {
        const line = Array.isArray(w.line) ? w.line : String(w.line || '').split(/\s+/).filter(Boolean);
        loadDiagram(w.sfen, line);
        window.scrollTo({ top: 0, behavior: 'smooth' });
      });
      list.appendChild(li);
    });
    const limit = Number(q.get('limit'));
    $('db-page').textContent = n ? `${DB.offset + 1}–${DB.offset + n}` : 'なし none';
    $('db-next').disabled = n < limit;
    $('db-prev').disabled = DB.offset === 0;
  } catch (e) {
    if (api.isAbort(e)) return;
    $('db-page').textContent = `エラー error: ${e.message}`;
  }
}

function bindDb() {
  $('db-search').addEventListener('click', () => {
    DB.offset = 0;
    dbSearch();
  });
  for (const id of ['db-moves', 'db-limit'])
    $(id).addEventListener('keydown', (e) => {
      if (e.key !== 'Enter') return;
      DB.offset = 0;
      dbSearch();
    });
  $('db-next').addEventListener('click', () => {
    DB.offset += Math.max(1, Number($('db-limit').value) || 50);
    dbSearch();
  });
  $('db-prev').addEventListener('click', () => {
    DB.offset = Math.max(0, DB.offset - (Math.max(1, Number($('db-limit').value) || 50)));
    dbSearch();
  });
}

async function loadInfo() {
  try {
    const info = await api.getJson('/api/info');
    $('version').textContent = info.version ? `v${info.version}` : '';
    if (info.max_time_ms) {
      const max = Math.floor(info.max_time_ms / 1000);
      $('check-budget').max = String(max);
      $('compose-budget').max = String(max);
      if (Number($('check-budget').value) > max) $('check-budget').value = String(max);
      if (Number($('compose-budget').value) > max) $('compose-budget').value = String(max);
    }
    if (info.db) {
      const d = info.db;
      const name = d.name || d.path || '';
      const what = [d.material, d.problems != null ? `${d.problems} problems` : ''].filter(Boolean).join(', ');
      $('db-status').textContent = `DB: ${name}${what ? ` (${what})` : ''}`;
      $('db-path').textContent = `${name}${what ? ` · ${what}` : ''}`;
      if (Array.isArray(d.flags) && d.flags.length) {
        const sel = $('db-flag');
        const known = new Map([...sel.options].map((o) => [o.value, o.textContent]));
        sel.textContent = '';
        for (const f of [''].concat(d.flags)) {
          const opt = document.createElement('option');
          opt.value = f;
          opt.textContent = f ? known.get(f) || f : '—';
          sel.appendChild(opt);
        }
      }
      $('db-panel').hidden = false;
      dbSearch();
    }
  } catch (e) {
    $('version').textContent = `info: ${e.message}`;
  }
}

// ---- wiring -------------------------------------------------------------------------

function bindBoard() {
  const box = $('board-box');
  box.addEventListener(
    'mousedown',
    (e) => {
      if (!isEditing()) return;
      const key = keyAt(e);
      if (!key) return;
      if (e.button === 2) {
        e.stopPropagation();
        e.preventDefault();
        editPiece(key, 'turn');
        return;
      }
      if (e.button !== 0 || S.tool === 'move') return;
      e.stopPropagation();
      e.preventDefault();
      editPiece(key, S.tool);
    },
    true,
  );
  box.addEventListener('contextmenu', (e) => e.preventDefault());
  box.addEventListener('dblclick', (e) => {
    if (!isEditing() || S.tool !== 'move' || S.armed) return;
    const key = keyAt(e);
    if (key) editPiece(key, 'promote');
  });
  for (const [id, color] of [
    ['hand-top', 'gote'],
    ['hand-bottom', 'sente'],
  ]) {
    $(id).addEventListener(
      'mousedown',
      (e) => {
        if (!isEditing()) return;
        const wrap = e.target.closest && e.target.closest('sg-hp-wrap');
        if (!wrap) return;
        const pc = wrap.firstElementChild;
        const role = pc && pc.sgRole;
        if (!role) return;
        const tool = e.button === 2 ? 'turn' : S.tool;
        if (tool !== 'delete' && tool !== 'turn') return;
        e.stopPropagation();
        e.preventDefault();
        editHand(color, role, tool);
      },
      true,
    );
    $(id).addEventListener('contextmenu', (e) => e.preventDefault());
  }
}

function bindUi() {
  $('mode-edit').addEventListener('click', () => enterEdit());
  $('mode-play').addEventListener('click', () => {
    if (S.armed) disarm();
    S.mode = 'play';
    renderAll();
  });
  $('clear-board').addEventListener('click', () => {
    if (!S.compose) clearBoard();
  });
  $('undo-edit').addEventListener('click', () => {
    if (!S.compose) undo();
  });
  $('gote-rest').addEventListener('change', (e) => {
    S.goteRest = e.target.checked;
    if (S.goteRest) {
      const h = currentHands();
      applyEdit(h.board, h.sente, h.gote);
    }
  });
  $('nav-first').addEventListener('click', () => go(0));
  $('nav-prev').addEventListener('click', () => go(shown().cursor - 1));
  $('nav-next').addEventListener('click', () => go(shown().cursor + 1));
  $('nav-last').addEventListener('click', () => go(shown().moves.length));
  $('view-back').addEventListener('click', () => closeView(false));
  $('view-adopt').addEventListener('click', () => closeView(true));
  $('take-line').addEventListener('click', () => {
    const e = effLine();
    if (!e.solver) return;
    pushHistory();
    S.line = e.moves.slice();
    changed();
  });
  $('clear-line').addEventListener('click', () => {
    if (!S.line.length) return;
    pushHistory();
    S.line = [];
    S.cursor = 0;
    changed();
  });
  $('roles-toggle').addEventListener('change', (e) => {
    S.showRoles = e.target.checked;
    renderRoles();
    if (S.showRoles) fetchRoles();
  });
  $('check-budget').addEventListener('change', () => scheduleCheck());
  $('compose-start').addEventListener('click', composeStart);
  $('compose-stop').addEventListener('click', composeStop);
  $('compose-cancel').addEventListener('click', composeCancel);
  $('compose-undo').addEventListener('click', composeUndo);
  document.addEventListener('keydown', (e) => {
    const t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
    const sh = shown();
    if (e.key === 'ArrowLeft') go(sh.cursor - 1);
    else if (e.key === 'ArrowRight') go(sh.cursor + 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(sh.moves.length);
    else if (e.key === 'Escape') {
      if (S.armed) disarm();
      else if (S.view) closeView(false);
      else return;
    } else if ((e.ctrlKey || e.metaKey) && e.key === 'z') {
      if (!S.compose) undo();
    } else return;
    e.preventDefault();
  });
}

async function start() {
  buildPalette();
  bindBoard();
  bindUi();
  bindIo();
  bindDb();
  composeButtons();
  const url = new URL(location.href);
  const sfenParam = url.searchParams.get('sfen');
  const lineParam = url.searchParams.get('line') || '';
  const nodesParam = Number(url.searchParams.get('nodes'));
  if (Number.isSafeInteger(nodesParam) && nodesParam > 0) S.checkNodes = nodesParam;
  loadInfo();
  if (!sfenParam) return loadDiagram(DEFAULT_SFEN, [], { record: false });
  // The SFEN as URLSearchParams reads it ('+' as a space), else with '+' kept
  // (a promoted piece typed into the address).
  const raw = (location.search.match(/[?&]sfen=([^&]*)/) || [])[1] || '';
  const tries = [sfenParam];
  try {
    const kept = decodeURIComponent(raw);
    if (kept !== sfenParam) tries.push(kept);
  } catch {
    /* a malformed escape: the first reading only */
  }
  let lastError = null;
  for (const s of tries) {
    try {
      const res = await api.parseDiagram(s);
      const line = lineParam ? lineFromText(res.sfen, lineParam) : Array.isArray(res.line) ? res.line : [];
      return loadDiagram(res.sfen, line, { record: false });
    } catch (e) {
      lastError = e;
    }
  }
  // Not a diagram the server takes: show it when its fields can be drawn, with the reason.
  const p = P.sfenParts(sfenParam);
  const drawable = /^[1-9+plnsgbrkPLNSGBRK/]+$/.test(p.board) && p.board.split('/').length === 9;
  loadDiagram(drawable ? `${p.board} b ${p.hands} 1` : P.EMPTY_SFEN, [], { record: false });
  S.diagramError = `URL: ${lastError ? lastError.message : 'no diagram'}`;
  renderDiagramError();
}

start();
