// The dashboard at scale (issue 24's target: /ui loads in under 1 s with 10,000 nodes and
// 50,000 jobs, on loopback). A dry-run `frugal serve` (tests/ui/lib/serve.mjs) with NODES
// nodes of 8 GPUs gets JOBS one-GPU jobs of team alpha; then RUNS fresh Chromium pages each
// open /ui with alpha's token in sessionStorage and are timed from navigation until the
// newest job's row and the nodes grid (above 1,000 nodes: the table of node groups) are drawn. The same is measured first on a baseline
// service of 4 nodes and 100 jobs (same browser session), and the ratio printed. Also the
// time and size of each API answer the page asks for (medians of RUNS, curl-like fetches).
//   node bench/dashboard_load.mjs [--frugal build/frugal]   env NODES (10000), JOBS (50000), RUNS (3)
import path from 'node:path';

import { args, launch } from '../tests/ui/lib/browser.mjs';
import { ALPHA, Serve } from '../tests/ui/lib/serve.mjs';

const a = args();
const NODES = Number(process.env.NODES ?? 10000);
const JOBS = Number(process.env.JOBS ?? 50000);
const RUNS = Number(process.env.RUNS ?? 3);
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

async function measure(browser, nodes, jobs) {
  const serve = await new Serve(a.frugal, { nodes, gpusPerNode: 8, policy: 'fifo' }).start();
  try {
    const t0 = Date.now();
    const ids = await serve.submitMany(jobs, (i) => ({ name: `load-${i}`, command: 'sleep 1', gpus: 1 }),
      ALPHA, 32);
    const submitS = (Date.now() - t0) / 1000;
    const newest = Math.max(...ids);
    const api = {};
    for (const p of ['/ui', '/ui/app.js', '/v1/jobs?limit=50', '/v1/nodes', '/v1/nodes?summary=1',
                     '/v1/ledger', '/v1/ledger?jobs=1,2,3', '/v1/usage?window=24h', '/v1/alerts']) {
      const ms = [];
      let bytes = 0;
      for (let r = 0; r < RUNS; r++) {
        const s = performance.now();
        const res = await fetch(serve.url + p, { headers: { Authorization: `Bearer ${ALPHA}` } });
        bytes = (await res.arrayBuffer()).byteLength;
        ms.push(performance.now() - s);
      }
      api[p] = { median_ms: Math.round(median(ms)), bytes };
    }
    const page_ms = [];
    for (let r = 0; r < RUNS; r++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript((t) => sessionStorage.setItem('frugal.token', t), ALPHA);
      const page = await context.newPage();
      const s = performance.now();
      await page.goto(`${serve.url}/ui`, { waitUntil: 'load' });
      await page.waitForSelector(`tr[data-job-id="${newest}"]`, { timeout: 60000 });
      // The grid of cells, or above 1,000 nodes the table of groups (ui/app.js).
      await page.waitForFunction(
        () => document.querySelectorAll('#nodes .cell, #node-groups tr[data-group]').length > 0,
        null, { timeout: 60000 });
      page_ms.push(performance.now() - s);
      await context.close();
    }
    return { nodes, jobs, submit_s: submitS, api, page_ms: page_ms.map(Math.round),
             page_median_ms: Math.round(median(page_ms)) };
  } finally {
    await serve.stop();
  }
}

const browser = await launch();
try {
  const base = await measure(browser, 4, 100);
  const big = await measure(browser, NODES, JOBS);
  for (const r of [base, big]) console.log(JSON.stringify(r));
  console.log(`page load: ${base.page_median_ms} ms (4 nodes, 100 jobs) vs ${big.page_median_ms} ms ` +
              `(${NODES} nodes, ${JOBS} jobs): ${(big.page_median_ms / base.page_median_ms).toFixed(2)}x; ` +
              `target < 1000 ms: ${big.page_median_ms < 1000 ? 'PASS' : 'FAIL'}`);
} finally {
  await browser.close();
}
