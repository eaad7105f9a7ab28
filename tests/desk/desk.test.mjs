// desk.test.mjs - the desk of `tsume serve` in headless Chromium (playwright-core).
//
//   node desk.test.mjs <server URL> <outdir>
//
// Against a running server: (a) a flawed diagram opened by its link reads
// "flawed", lists its flaw and draws the flaw's arrow, and a click on the flaw
// plays its line; (b) a piece placed from the palette by two clicks changes the
// diagram, the address and the verdict; (c) a compose run is started, stopped,
// shows its result, and Undo brings back the diagram; (d) a screenshot of the
// desk is saved as <outdir>/desk.png; (e) a 余詰 found early in a long check
// shows while the check goes on, and the questions its budget left open are
// listed at its end. Every wait is on a condition of the page;
// every request must go to the server (the page works offline).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const [base, outdir] = process.argv.slice(2);
if (!base || !outdir) {
  console.error('usage: node desk.test.mjs <server URL> <outdir>');
  process.exit(2);
}
mkdirSync(outdir, { recursive: true });
const origin = new URL(base).origin;
const WAIT = { timeout: 60000 };

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}${detail !== undefined ? `: ${detail}` : ''}`);
  }
}

// 1-ply: G*1b and G*2b both mate, a 最終手余詰 that a 1-ply work may not have.
const FLAWED = '8k/9/7G1/9/9/9/9/9/9 b G2r2b2g4s4n4l18p 1';
// The same with a defender's gold on 3a: only G*1b mates, a complete work.
const MENDED = '6g1k/9/7G1/9/9/9/9/9/9 b G2r2bg4s4n4l18p 1';
// docs/checking.md's example: a 3-ply idea with a 余詰 at its first move.
const IDEA = '9/8k/8g/7GP/9/9/9/9/9 b 2r2b2g4s4n4l17p 1';
// Two rooks and a silver: the 余詰 2a2c+ is proven at once, whether the other
// checks mate at all takes the whole budget.
const EARLY = '7R1/6k2/9/9/9/7R1/9/9/9 b S2b4g3s4n4l18p 1';
// 将棋図巧 第23番 and its recorded line: the reply 7b7d at ply 2 is mated later than the line,
// and 3,000,000 nodes do not settle its length (tests/check/budget_test.sh)
const Z23 = '4g4/1Slg1+P3/+rs1kp4/1L2s4/p+R1s5/2N6/9/9/9 b 2BN2g2n2l15p 1';
const L23 = 'B*7d 6e7d 8e6e 7d6e B*8e 7b7d N*7e 6c7b 7e8c+ 7b6a S*7b 6b7b 8c7b 6a7b 8e9d 9c9d G*7c 7b6a 8b7a+ 6a7a 8d8b+ 7a6a 8b7b';

const browser = await chromium.launch({
  executablePath: process.env.TSUME_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  headless: true,
});
const page = await browser.newPage({ viewport: { width: 1280, height: 960 } });
const problems = [];
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
page.on('console', (m) => {
  if (m.type() === 'error') problems.push(`console: ${m.text()}`);
});
page.on('request', (r) => {
  const u = r.url();
  if (!u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:')) problems.push(`request elsewhere: ${u}`);
});

const text = (sel) => page.textContent(sel);

// A check on what the board shows: shogiground draws on the next animation
// frame, so the condition is waited for (up to WAIT) rather than read at once.
async function checkSoon(name, fn, arg, detail) {
  try {
    await page.waitForFunction(fn, arg, WAIT);
    check(name, true);
  } catch {
    check(name, false, detail ? await detail() : 'not seen in time');
  }
}
const checkDone = () =>
  page.waitForFunction(() => document.getElementById('check-status').dataset.state === 'done', null, WAIT);

// The centre of a square (USI name, e.g. '3a') on the screen.
async function square(key) {
  const b = await page.locator('#board').boundingBox();
  const file = Number(key[0]);
  const rank = 'abcdefghi'.indexOf(key[1]);
  return [b.x + ((9 - file + 0.5) * b.width) / 9, b.y + ((rank + 0.5) * b.height) / 9];
}

try {
  // ---- (a) a flawed diagram by its link -----------------------------------------
  await page.goto(`${base}?sfen=${encodeURIComponent(FLAWED)}`);
  check('the page is the desk (built with npm)', (await page.locator('#board').count()) === 1);
  await page.waitForFunction(() => document.getElementById('verdict').textContent === 'flawed', null, WAIT);
  check('(a) #verdict reads exactly "flawed"', (await text('#verdict')) === 'flawed');
  check('(a) the Japanese verdict beside it', (await text('#verdict-ja')) === '不完全作', await text('#verdict-ja'));
  const flaws = await page.$$eval('#flaws > li', (l) => l.map((x) => ({ kind: x.dataset.kind, ply: x.dataset.ply, text: x.textContent })));
  check('(a) one flaw listed: last-move-alt at ply 1', flaws.length === 1 && flaws[0].kind === 'last-move-alt' && flaws[0].ply === '1', JSON.stringify(flaws));
  check('(a) the flaw named in Japanese and English', /最終手余詰/.test(flaws[0]?.text || '') && /last-move-alt/.test(flaws[0]?.text || ''), flaws[0]?.text);
  await page.waitForSelector('svg.sg-shapes g.flaw line', WAIT);
  const arrow = await page.$eval('svg.sg-shapes g.flaw line', (l) => ({
    x1: Number(l.getAttribute('x1')),
    y1: Number(l.getAttribute('y1')),
    x2: Number(l.getAttribute('x2')),
    y2: Number(l.getAttribute('y2')),
    marker: l.getAttribute('marker-end'),
  }));
  // shogiground's user units: a square is 11 x 12, 2b's centre is (77, 12); the
  // arrow stops a little short of it and starts at the attacker's hand, right
  // of the board (x beyond 9 squares).
  const d = Math.hypot(arrow.x2 - 77, arrow.y2 - 12);
  check('(a) the flaw is an arrow to 2b (G*2b)', d < 4 && arrow.marker === 'url(#arrowhead-flaw)', JSON.stringify(arrow));
  check('(a) the arrow starts at the gold in the attacker\'s hand', arrow.x1 > 9 * 11 - 5.5, JSON.stringify(arrow));
  check('(a) the line\'s own move drawn beside it', (await page.locator('svg.sg-shapes g.line line').count()) === 1);

  await page.click('#flaws > li');
  await page.waitForFunction(() => document.getElementById('ply-label').textContent.startsWith('1 /'), null, WAIT);
  check('(a) a click on the flaw shows its line', !(await page.locator('#view-banner').isHidden()));
  // the square index of 2b seen from the attacker: (9 - 2) + 9 * 1
  const lastDests = () =>
    page.$$eval('sg-squares > sq', (l) => JSON.stringify(l.map((s, i) => (s.classList.contains('last-dest') ? i : -1)).filter((i) => i >= 0)));
  await checkSoon(
    '(a) the board shows G*2b played',
    () => {
      const l = [...document.querySelectorAll('sg-squares > sq')];
      const marked = l.map((s, i) => (s.classList.contains('last-dest') ? i : -1)).filter((i) => i >= 0);
      // and a gold on 2b: shogiground places a piece by translate(file, rank) in
      // hundreds of percent, 2b being 7 files from the left, 1 rank down
      const gold = [...document.querySelectorAll('sg-pieces piece.sente.gold')].some((p) => /translate\(700%, 100%\)/.test(p.style.transform));
      return marked.length === 1 && marked[0] === 16 && gold;
    },
    null,
    lastDests,
  );
  await page.click('#view-back');
  check('(a) back to the line', await page.locator('#view-banner').isHidden());

  // ---- (b) a piece placed from the palette --------------------------------------
  await page.click('.spare[data-piece="gote gold"]');
  const armed = await page.$eval('.spare.on', (e) => e.dataset.piece).catch(() => 'none');
  await page.mouse.click(...(await square('3a')));
  // on a timeout the checks below say what the page shows instead
  await page.waitForFunction((s) => document.getElementById('sfen-text').textContent === s, MENDED, WAIT).catch(() => {});
  check(
    '(b) the gold stands on 3a, the defender\'s hand one gold less (残り全部)',
    (await text('#sfen-text')) === MENDED,
    `${await text('#sfen-text')} (the palette's pick before the click on 3a: ${armed}; editing: ${await page.evaluate(() => document.body.classList.contains('editing'))})`,
  );
  check('(b) the address follows the diagram', new URL(page.url()).searchParams.get('sfen') === MENDED, page.url());
  await checkDone();
  check('(b) the verdict changed to "complete"', (await text('#verdict')) === 'complete', await text('#verdict'));
  check('(b) no flaw left', (await page.locator('#flaws > li').count()) === 0);
  await checkSoon('(b) no flaw arrow left', () => document.querySelector('svg.sg-shapes g.flaw') === null);
  await page.keyboard.press('Escape');

  // ---- (d) the screenshot: the docs' idea with its 余詰 and the pieces' roles ----
  await page.goto(`${base}?sfen=${encodeURIComponent(IDEA)}`);
  await page.waitForFunction(() => document.getElementById('verdict').textContent === 'flawed', null, WAIT);
  const kinds = await page.$$eval('#flaws > li', (l) => l.map((x) => x.dataset.kind));
  check('(d) the idea: a 余詰 (yozume) and a tolerated last-move-alt', kinds.includes('yozume') && kinds.includes('last-move-alt'), JSON.stringify(kinds));
  await page.check('#roles-toggle');
  await page.waitForSelector('#roles-layer .role-mark', WAIT);
  const marks = await page.$$eval('#roles-layer .role-mark', (l) => l.map((m) => `${m.dataset.sq} ${m.title}`));
  check('(d) roles marked on the pieces with their names on hover', marks.some((m) => m.startsWith('1d') && /movable/.test(m)), JSON.stringify(marks));
  await page.waitForFunction(() => document.getElementById('kif').textContent.includes('手数----指手'), null, WAIT);
  const shot = path.join(outdir, 'desk.png');
  await page.screenshot({ path: shot });
  check('(d) screenshot saved', true, shot);
  console.log(`screenshot: ${shot}`);

  // ---- (c) compose, stopped, then undone ------------------------------------------
  await page.uncheck('#roles-toggle');
  await page.fill('#compose-budget', '60');
  await page.click('#compose-start');
  await page.waitForFunction(() => !document.getElementById('compose-stop').disabled, null, WAIT);
  // a progress line or a best work has come: the run is under way
  await page.waitForFunction(
    () => /\d+ it|\d+ checks/.test(document.getElementById('compose-status').textContent) || document.getElementById('compose-result').textContent !== '',
    null,
    WAIT,
  );
  await page.click('#compose-stop');
  await page.waitForFunction(() => document.getElementById('compose-status').dataset.state === 'done', null, WAIT);
  const status = await text('#compose-status');
  check('(c) the run stopped by the Stop button', /stopped by stop/.test(status), status);
  const result = await text('#compose-result');
  check('(c) the result shown with its verdict and length', /(完全作|不完全作|未確定).*\d+手/.test(result), result);
  await checkDone();
  const verdict = await text('#verdict');
  check('(c) the composed diagram checked again', ['complete', 'flawed', 'unknown'].includes(verdict), verdict);
  check('(c) Undo is offered', await page.isEnabled('#compose-undo'));
  await page.click('#compose-undo');
  await page.waitForFunction((s) => document.getElementById('sfen-text').textContent === s, IDEA, WAIT);
  check('(c) Undo brings back the diagram before composing', (await text('#sfen-text')) === IDEA);
  await checkDone();
  check('(c) and its verdict', (await text('#verdict')) === 'flawed', await text('#verdict'));

  // ---- (e) a flaw shown as soon as it is proven -----------------------------------
  await page.goto(`${base}?sfen=${encodeURIComponent(EARLY)}`);
  await checkSoon(
    '(e) the 余詰 ▲２三飛引成 in the status while the check goes on',
    () => {
      const el = document.getElementById('check-status');
      return el.dataset.state === 'checking' && /余詰 1手目 ▲２三飛引成/.test(el.textContent);
    },
    null,
    () => text('#check-status'),
  );
  // a budget of 2 s (a change of the budget checks again) leaves the other checks' questions open
  await page.fill('#check-budget', '2');
  await page.locator('#check-budget').blur();
  await checkDone();
  check('(e) then the verdict: flawed', (await text('#verdict')) === 'flawed', await text('#verdict'));
  const open = await page.$$eval('#open-questions > li', (l) => l.map((x) => x.textContent));
  check(
    '(e) the questions the budget left open listed: other checks at ply 1, "mate at all?"',
    open.length > 0 && open.every((t) => /^1手目 .*未解決 open: 詰むか mate at all\?/.test(t)),
    JSON.stringify(open),
  );
  await page.click('#open-questions > li');
  await page.waitForFunction(() => document.getElementById('ply-label').textContent.startsWith('1 /'), null, WAIT);
  check('(e) a click on an open question shows its move on the board', !(await page.locator('#view-banner').isHidden()), await text('#ply-label'));

  // ---- (f) a node budget from the address: the same answer on any machine ------------
  await page.goto(`${base}?sfen=${encodeURIComponent(Z23)}&line=${encodeURIComponent(L23)}&nodes=3000000`);
  await checkDone();
  check('(f) zukou-023 within 3,000,000 nodes: flawed', (await text('#verdict')) === 'flawed', await text('#verdict'));
  const fl = await page.$$eval('#flaws > li', (l) => l.map((x) => x.textContent));
  check(
    '(f) the longer defence at ply 2 shown before its length is settled: 24手以上',
    fl.some((t) => /^2手目 .*△同　?香.*\(7b7d\) 24手以上 \(length not settled\)/.test(t)),
    JSON.stringify(fl),
  );
  const op = await page.$$eval('#open-questions > li', (l) => l.map((x) => ({ text: x.textContent, mates: x.classList.contains('mates') })));
  check(
    '(f) its question left open, the reply marked mated: 詰みあり (N手以内)',
    op.some((o) => /^2手目 .*\(7b7d\) 未解決 open: .*詰みあり \(\d+手以内\)/.test(o.text) && o.mates),
    JSON.stringify(op),
  );
} catch (e) {
  check('the run went to its end', false, e.message);
  await page.screenshot({ path: path.join(outdir, 'desk-failure.png') }).catch(() => {});
}

check('no page error, no console error, nothing fetched elsewhere', problems.length === 0, problems.join('; '));
await browser.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
