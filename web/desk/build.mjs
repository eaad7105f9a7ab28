// Bundles the desk into exactly three files, index.html, desk.js and desk.css,
// with shogiground and shogiops inside desk.js and every style inside desk.css,
// then checks that the page loads nothing from another origin.
//
//   node build.mjs --out DIR [--modules DIR/node_modules]
//
// --modules names the node_modules holding esbuild, shogiground and shogiops
// (the build tree's `npm ci`); by default the one beside this file.
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? path.resolve(process.argv[i + 1]) : fallback;
}

const out = arg('--out', null);
const modules = arg('--modules', path.join(here, 'node_modules'));
if (!out) {
  console.error('usage: node build.mjs --out DIR [--modules DIR]');
  process.exit(2);
}

const require = createRequire(path.join(modules, 'noop.js'));
let esbuild;
try {
  esbuild = await import(pathToFileURL(require.resolve('esbuild')).href);
} catch (e) {
  console.error(`build.mjs: esbuild not found under ${modules} (run npm ci there): ${e.message}`);
  process.exit(1);
}

const banner =
  '/* tsume desk, the page of `tsume serve`. Bundles shogiground and shogiops ' +
  '(GPL-3.0-or-later, by WandererXII, after chessground and chessops) and ' +
  '@badrap/result (MIT). */';

mkdirSync(out, { recursive: true });
const common = {
  bundle: true,
  minify: true,
  nodePaths: [modules],
  logLevel: 'warning',
  legalComments: 'none',
  absWorkingDir: here,
};
await esbuild.build({
  ...common,
  entryPoints: [path.join(here, 'desk.js')],
  outfile: path.join(out, 'desk.js'),
  format: 'esm',
  target: ['es2020'],
  banner: { js: banner },
});
await esbuild.build({
  ...common,
  entryPoints: [path.join(here, 'desk.css')],
  outfile: path.join(out, 'desk.css'),
  target: ['chrome100', 'firefox100', 'safari15'],
});
copyFileSync(path.join(here, 'index.html'), path.join(out, 'index.html'));

// The checks: three non-empty files; the page names only desk.js and desk.css;
// no style or script reaches another origin (the SVG namespace is a name, not a
// request).
const fail = (msg) => {
  console.error(`build.mjs: ${msg}`);
  process.exit(1);
};
const read = (f) => readFileSync(path.join(out, f), 'utf8');
for (const f of ['index.html', 'desk.js', 'desk.css'])
  if (!statSync(path.join(out, f)).size) fail(`${f} is empty`);
const html = read('index.html');
const refs = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
for (const r of refs) if (!['desk.js', 'desk.css'].includes(r) && !r.startsWith('data:')) fail(`index.html refers to ${r}`);
if (!refs.includes('desk.js') || !refs.includes('desk.css')) fail('index.html must load desk.js and desk.css');
const css = read('desk.css');
for (const m of css.matchAll(/url\(\s*['"]?([^'")]*)/g)) if (!m[1].startsWith('data:')) fail(`desk.css loads ${m[1]}`);
if (/@import/.test(css)) fail('desk.css still has an @import');
const js = read('desk.js');
for (const m of js.matchAll(/https?:\/\/[^\s'"`)]*/g))
  if (!m[0].startsWith('http://www.w3.org/')) fail(`desk.js names ${m[0]}`);
if (!/shogiground|sg-board|sg-hand/.test(js)) fail('desk.js does not hold shogiground');
const kb = (f) => `${(statSync(path.join(out, f)).size / 1024).toFixed(1)} KiB`;
console.log(`desk: index.html ${kb('index.html')}, desk.js ${kb('desk.js')}, desk.css ${kb('desk.css')} in ${out}`);
