// Renders a job summary (the markdown kube-sweep writes to GITHUB_STEP_SUMMARY) to HTML the
// way GitHub shows it (marked + github-markdown-css; the first finding's <details> opened so
// its evidence and remedy show) and screenshots it with headless Chromium.
//   node scripts/screenshot-summary.mjs <summary.md> <out.png> [width]
// Needs Chromium (Debian: apt-get install chromium; or set CHROMIUM=/path/to/chrome).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { marked } from 'marked';

const [input, output, widthArg] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node scripts/screenshot-summary.mjs <summary.md> <out.png> [width]');
  process.exit(2);
}
const width = Number(widthArg ?? 1100);
const css = readFileSync(
  createRequire(import.meta.url).resolve('github-markdown-css/github-markdown-light.css'),
  'utf8',
);
// Open the first <details> of the findings so the picture shows evidence and remedy.
const body = marked.parse(readFileSync(input, 'utf8')).replace('<details>', '<details open>');
const html = `<!doctype html><html><head><meta charset="utf-8"><style>${css}
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: border-box; max-width: ${width}px; padding: 24px 32px; }
</style></head><body><article class="markdown-body">${body}</article></body></html>`;
const dir = mkdtempSync(join(tmpdir(), 'kube-sweep-shot-'));
writeFileSync(join(dir, 'summary.html'), html);
// The page's height: a first pass prints the rendered height through the DOM dump.
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';
const flags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--hide-scrollbars',
  `--user-data-dir=${join(dir, 'profile')}`,
];
const height = Number(process.env.SHOT_HEIGHT ?? 1800);
execFileSync(
  chromium,
  [
    ...flags,
    `--window-size=${width},${height}`,
    `--screenshot=${resolve(output)}`,
    `file://${join(dir, 'summary.html')}`,
  ],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);
console.log(`${resolve(output)} (${width}x${height}) from ${input}`);
