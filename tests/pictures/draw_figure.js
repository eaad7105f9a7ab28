// draw_figure.js PAGE ID - prints the SVG that the book's script (book.js) draws for
// the figure ID (diagram or final) of the work page PAGE, from its data-* attributes.
const fs = require('fs');
const path = require('path');
const [page, id] = process.argv.slice(2);
const html = fs.readFileSync(page, 'utf8');
const m = html.match(new RegExp('<figure id="' + id + '"([^>]*)>'));
if (!m) { console.error('no figure ' + id); process.exit(1); }
const attr = {};
for (const a of m[1].matchAll(/data-([a-z]+)="([^"]*)"/g)) attr[a[1]] = a[2];
const draw = require(path.join(path.dirname(page), '../../book.js'));
const svg = draw(attr.sfen, attr);
if (!svg) { console.error('book.js could not read ' + attr.sfen); process.exit(1); }
process.stdout.write(svg);
