/*
 * book.js - the script of the HTML book (tsume export --html). The 詰将棋
 * diagram (図面) of a SFEN as SVG text, the same markup as core/svg.c writes
 * (tsume show --svg), so that a page carries a SFEN instead of a drawing: in a
 * page it draws every element with a data-sfen attribute (data-title,
 * data-length, data-last = the shaded square as "2c", data-attacker = "b" or
 * "w"). It also hands the page's KIF text (the element named by a player's
 * data-kif) to the move player as its script, so the KIF is written once.
 * Under node it is a module: draw(sfen, {title, length, last, attacker}) -> SVG
 * text or null.
 */
(function () {
  'use strict';
  var SQ = 40, LEFT = 44, BX = LEFT + 8, BY = 36, BW = 9 * SQ, RANK_X = BX + BW + 16, HAND_X = BX + BW + 46;
  var WIDTH = HAND_X + 24, CAPTION = 44;
  var FONT = "'Noto Serif CJK JP','Noto Sans CJK JP','Source Han Serif JP','Hiragino Mincho ProN','Yu Mincho',serif";
  var FILE_DIGIT = ['', '１', '２', '３', '４', '５', '６', '７', '８', '９'];
  var NUMERAL = ['', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
  var CHAR = {P: '歩', L: '香', N: '桂', S: '銀', B: '角', R: '飛', G: '金', K: '玉',
              '+P': 'と', '+L': '杏', '+N': '圭', '+S': '全', '+B': '馬', '+R': '龍'};
  var HAND_ORDER = 'RBGSNLP';
  var TOTAL = {R: 2, B: 2, G: 4, S: 4, N: 4, L: 4, P: 18};

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c];
    });
  }

  /* board[rank 1..9][file 1..9] = {t: 'P' or '+P'..., b: true for sente}; hands[b|w][kind] = count */
  function parse(sfen) {
    var w = String(sfen).trim().split(/\s+/);
    if (w.length < 3) return null;
    var rows = w[0].split('/');
    if (rows.length !== 9) return null;
    var board = [];
    for (var r = 1; r <= 9; r++) {
      board[r] = [];
      var f = 9, row = rows[r - 1];
      for (var i = 0; i < row.length; i++) {
        var c = row[i], promo = false;
        if (c >= '1' && c <= '9') { f -= c.charCodeAt(0) - 48; continue; }
        if (c === '+') { promo = true; c = row[++i]; if (!c) return null; }
        var up = c.toUpperCase();
        if ('PLNSBRGK'.indexOf(up) < 0 || f < 1) return null;
        board[r][f--] = {t: (promo ? '+' : '') + up, b: c === up};
      }
      if (f !== 0) return null;
    }
    if (w[1] !== 'b' && w[1] !== 'w') return null;
    var hands = {b: {}, w: {}};
    if (w[2] !== '-') {
      var n = 0;
      for (var j = 0; j < w[2].length; j++) {
        var h = w[2][j];
        if (h >= '0' && h <= '9') { n = n * 10 + h.charCodeAt(0) - 48; continue; }
        var k = h.toUpperCase();
        if (HAND_ORDER.indexOf(k) < 0) return null;
        var side = h === k ? 'b' : 'w';
        hands[side][k] = (hands[side][k] || 0) + (n || 1);
        n = 0;
      }
    }
    return {board: board, side: w[1], hands: hands};
  }

  function count(hand) {
    var n = 0;
    for (var k in hand) n += hand[k];
    return n;
  }

  function numberText(n) { /* 1..99 in kanji: 十八 */
    if (n < 1 || n > 99) return '';
    var t = Math.floor(n / 10), u = n % 10;
    return (t > 1 ? NUMERAL[t] : '') + (t > 0 ? '十' : '') + (u > 0 ? NUMERAL[u] : '');
  }

  /* Does the hand of side hold every piece neither on the board nor in the other hand? */
  function handIsRest(p, side) {
    var other = side === 'b' ? 'w' : 'b', on = {};
    for (var r = 1; r <= 9; r++)
      for (var f = 1; f <= 9; f++) {
        var q = p.board[r][f];
        if (q && q.t !== 'K') on[q.t.replace('+', '')] = (on[q.t.replace('+', '')] || 0) + 1;
      }
    if (!count(p.hands[side])) return false;
    for (var i = 0; i < HAND_ORDER.length; i++) {
      var k = HAND_ORDER[i];
      if ((p.hands[side][k] || 0) !== TOTAL[k] - (on[k] || 0) - (p.hands[other][k] || 0)) return false;
    }
    return true;
  }

  function column(out, cls, extra, x, y, step, chars) {
    out.push('<text class="' + cls + '"' + extra + ' text-anchor="middle" dominant-baseline="central">');
    for (var i = 0; i < chars.length; i++, y += step) out.push('<tspan x="' + x + '" y="' + y + '">' + chars[i] + '</tspan>');
    out.push('</text>\n');
    return y;
  }

  function hand(out, p, side, defender, label, x) {
    var h = p.hands[side], rest = defender && handIsRest(p, side);
    var lab = Array.from(label), total = lab.length + 1, items = [];
    for (var i = 0; i < HAND_ORDER.length; i++) {
      var k = HAND_ORDER[i], n = h[k] || 0;
      if (!n || rest) continue;
      var chars = [CHAR[k]].concat(n > 1 ? Array.from(numberText(n)) : []).slice(0, 4);
      items.push({k: k, n: n, chars: chars});
      total += chars.length;
    }
    var all = count(h);
    if (rest) total += 4;
    else if (!all) total += 2;
    var step = Math.floor((BW - 8) / total);
    if (step > 24) step = 24;
    var fs = step < 20 ? step : 20, y = BY + Math.floor(step / 2) + 2;
    out.push('<g class="hand" data-side="' + side + '" data-count="' + all + '" font-size="' + fs + '">\n');
    y = column(out, 'hl', '', x, y, step, lab) + step;
    if (rest || !all) y = column(out, 'hn', '', x, y, step, Array.from(rest ? '残り全部' : 'なし'));
    for (var j = 0; j < items.length; j++)
      y = column(out, 'hp', ' data-piece="' + items[j].k + '" data-n="' + items[j].n + '"', x, y, step, items[j].chars);
    out.push('</g>\n');
  }

  function draw(sfen, o) {
    var p = parse(sfen);
    if (!p) return null;
    o = o || {};
    var length = parseInt(o.length, 10) || 0, title = o.title || '';
    var caption = title !== '' || length > 0, height = BY + BW + (caption ? CAPTION : 12);
    var out = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + WIDTH + ' ' + height + '" font-family="' + FONT +
               '" class="tsume-diagram">\n'];
    out.push('<rect x="0" y="0" width="' + WIDTH + '" height="' + height + '" fill="#fff"/>\n');
    var mf = 0, mr = 0;
    if (o.last && /^[1-9][a-i]$/.test(o.last)) { mf = +o.last[0]; mr = o.last.charCodeAt(1) - 96; }
    out.push('<g stroke="#000" stroke-width="1" fill="#fff">\n');
    for (var r = 1; r <= 9; r++)
      for (var f = 9; f >= 1; f--)
        out.push('<rect class="sq" x="' + (BX + (9 - f) * SQ) + '" y="' + (BY + (r - 1) * SQ) + '" width="' + SQ +
                 '" height="' + SQ + '"' + (f === mf && r === mr ? ' fill="#d9d9d9"' : '') + '/>\n');
    out.push('</g>\n');
    out.push('<rect x="' + BX + '" y="' + BY + '" width="' + BW + '" height="' + BW +
             '" fill="none" stroke="#000" stroke-width="3"/>\n');
    for (var i = 0; i < 4; i++)
      out.push('<circle cx="' + (BX + (i & 1 ? 6 : 3) * SQ) + '" cy="' + (BY + (i & 2 ? 6 : 3) * SQ) + '" r="3" fill="#000"/>\n');
    out.push('<g font-size="16" text-anchor="middle" dominant-baseline="central">\n');
    for (f = 9; f >= 1; f--)
      out.push('<text x="' + (BX + (9 - f) * SQ + SQ / 2) + '" y="' + (BY - 14) + '">' + FILE_DIGIT[f] + '</text>\n');
    for (r = 1; r <= 9; r++)
      out.push('<text x="' + RANK_X + '" y="' + (BY + (r - 1) * SQ + SQ / 2) + '">' + NUMERAL[r] + '</text>\n');
    out.push('</g>\n');
    out.push('<g font-size="30" text-anchor="middle" dominant-baseline="central">\n');
    for (r = 1; r <= 9; r++)
      for (f = 9; f >= 1; f--) {
        var q = p.board[r][f];
        if (!q) continue;
        var cx = BX + (9 - f) * SQ + SQ / 2, cy = BY + (r - 1) * SQ + SQ / 2;
        out.push('<text class="pc ' + (q.b ? 'b' : 'w') + '" x="' + cx + '" y="' + cy + '"' +
                 (q.b ? '' : ' transform="rotate(180 ' + cx + ' ' + cy + ')"') + '>' + CHAR[q.t] + '</text>\n');
      }
    out.push('</g>\n');
    var att = o.attacker === 'b' || o.attacker === 'w' ? o.attacker : p.side, def = att === 'b' ? 'w' : 'b';
    hand(out, p, att, false, att === 'b' ? '持駒' : '攻方持駒', att === 'b' ? HAND_X : LEFT / 2);
    hand(out, p, def, true, '玉方持駒', att === 'b' ? LEFT / 2 : HAND_X);
    if (caption) {
      out.push('<text class="caption" x="' + (BX + BW / 2) + '" y="' + (BY + BW + 32) +
               '" font-size="20" text-anchor="middle">' + esc(title) + (title !== '' && length > 0 ? '　' : '') +
               (length > 0 ? length + '手詰' : '') + '</text>\n');
    }
    out.push('</svg>\n');
    return out.join('');
  }

  if (typeof module !== 'undefined' && module.exports) {
    module.exports = draw;
    return;
  }
  function drawAll() {
    var els = document.querySelectorAll('[data-sfen]');
    for (var i = 0; i < els.length; i++) {
      var e = els[i], svg = draw(e.getAttribute('data-sfen'), {
        title: e.getAttribute('data-title'), length: e.getAttribute('data-length'),
        last: e.getAttribute('data-last'), attacker: e.getAttribute('data-attacker')});
      if (svg) e.insertAdjacentHTML('afterbegin', svg);
    }
  }
  /* the player (kifu-for-js) reads script elements of type text/kifu when the page has loaded:
   * this script runs before that, at the end of the page */
  function players() {
    var els = document.querySelectorAll('[data-kif]');
    for (var i = 0; i < els.length; i++) {
      var src = document.getElementById(els[i].getAttribute('data-kif'));
      if (!src) continue;
      var s = document.createElement('script');
      s.type = 'text/kifu';
      s.textContent = src.textContent;
      els[i].appendChild(s);
    }
  }
  players();
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', drawAll);
  else drawAll();
})();
