// Times opening HTML reports in Debian's Chromium (playwright-core from tests/ui, installed by
// scripts/ui-deps.sh): for each file, RUNS fresh pages, from navigation to the load event with
// every chart (svg[data-chart]) laid out with a non-zero size. Prints one JSON line per file:
// {file, bytes, runs_ms: [...], median_ms}. Used by bench/report_1m.sh.
//   node bench/report_open.mjs [--runs N] FILE...
import { statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { launch } from '../tests/ui/lib/browser.mjs';

const argv = process.argv.slice(2);
let runs = 3;
const files = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = Number(argv[++i]);
  else files.push(path.resolve(argv[i]));
}
if (files.length === 0 || !(runs >= 1)) {
  console.error('usage: node bench/report_open.mjs [--runs N] FILE...');
  process.exit(2);
}

const browser = await launch();
try {
  for (const file of files) {
    const times = [];
    for (let r = 0; r < runs; r++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const t0 = performance.now();
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 120000 });
      const charts = await page.evaluate(() => {
        const svgs = [...document.querySelectorAll('svg[data-chart]')];
        return svgs.filter((s) => s.getBoundingClientRect().width > 0).length;
      });
      times.push(performance.now() - t0);
      if (charts === 0) throw new Error(`${file}: no chart laid out`);
      await context.close();
    }
    const sorted = [...times].sort((a, b) => a - b);
    console.log(JSON.stringify({
      file, bytes: statSync(file).size, runs_ms: times.map((t) => Math.round(t)),
      median_ms: Math.round(sorted[Math.floor(sorted.length / 2)]),
    }));
  }
} finally {
  await browser.close();
}
