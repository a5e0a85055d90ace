// ui.report: the HTML report of `frugal compare --html` opened from file:// in Chromium.
// Every chart is drawn (a size on screen, a non-empty line or bar), the required charts are
// there, each policy's summary card holds the numbers of `compare --format json`, the page
// asks nothing of the network, and axe-core finds no serious or critical violation. The
// checker is then shown a page with an emptied chart and a changed number, and must say so.
//
// DOM contract (src/io/html_report.cpp): <svg data-chart="NAME">; line series
// <path data-series="POLICY:METRIC" d>; bars <rect data-label data-value>; cards
// <section class="card" data-policy="P"> with <span data-metric="KEY" data-value="NUMBER">;
// the input JSON in <script type="application/json" id="frugal-data">; <table id="jobs">
// rows <tr data-policy data-job>.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import {
  args, describeViolations, guardNetwork, launch, loadChromium, screenshot, seriousViolations,
} from './lib/browser.mjs';

const a = args();
await loadChromium(); // skips or fails the file without Chromium or node_modules

const TRACE = 'data/demo/itp-cluster04-first3000.csv';
const CLUSTER = 'examples/clusters/two-region.yaml';
const POLICIES = ['backfill', 'frugal'];
const REQUIRED_CHARTS = ['gpus', 'queue', 'cost-per-hour', 'waste', 'cost-by-team'];
const REL_TOL = 1e-6;

// Card metric → its number in one run of `compare --format json` (runs[i]). Only keys whose
// JSON figure is unambiguous (waste_share: the waste categories' sum over the total).
const METRIC_JSON = {
  total_usd: (r) => r.cost.total_usd,
  jct_mean_s: (r) => r.jct_s?.mean,
  jct_p99_s: (r) => r.jct_s?.p99,
  wait_mean_s: (r) => r.wait_s?.mean,
  gpu_utilization: (r) => r.gpu_utilization,
  co2_kg: (r) => r.cost?.co2_kg,
  deadline_misses: (r) => r.deadline_misses,
  waste_share: (r) => {
    const w = Object.values(r.waste ?? {}).reduce((x, v) => x + (typeof v === 'number' ? v : 0), 0);
    return r.cost.total_usd > 0 ? w / r.cost.total_usd : 0;
  },
};
// Bar chart → the figure of one bar (its data-policy's run, its data-label) in the JSON.
const BAR_JSON = {
  waste: (r, label) => r.waste?.[label],
  'cost-by-team': (r, label) => r.by_team?.[label]?.total_usd,
  'cost-by-class': (r, label) => r.by_class?.[label]?.total_usd,
  'cost-by-region': (r, label) => r.by_region?.[label]?.total_usd,
};

const tmp = mkdtempSync(path.join(os.tmpdir(), 'frugal-ui-report-'));
const html = path.join(tmp, 'report.html');
const jsonPath = path.join(tmp, 'report.json');
let browser; let context; let page; let runs; let outside;

function frugal(...words) {
  return execFileSync(a.frugal, words, { cwd: a.source, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 << 20, timeout: 120000 });
}

function close(x, y) {
  return Math.abs(x - y) <= REL_TOL * Math.max(1, Math.abs(x), Math.abs(y));
}

/** Everything wrong with the report in `page` against the compare JSON `runs`: a list. */
async function problems(pg, runsJson) {
  const seen = await pg.evaluate(() => {
    const charts = [...document.querySelectorAll('svg[data-chart]')].map((svg) => {
      const r = svg.getBoundingClientRect();
      return {
        name: svg.getAttribute('data-chart'),
        width: r.width,
        height: r.height,
        series: [...svg.querySelectorAll('path[data-series]')].map((p) => ({
          name: p.getAttribute('data-series'), d: p.getAttribute('d') ?? '',
        })),
        bars: [...svg.querySelectorAll('rect[data-value]')].map((b) => ({
          label: b.getAttribute('data-label'), value: b.getAttribute('data-value'),
          policy: b.getAttribute('data-policy'),
          width: Number(b.getAttribute('width')), height: Number(b.getAttribute('height')),
        })),
      };
    });
    const cards = [...document.querySelectorAll('section.card[data-policy]')].map((c) => ({
      policy: c.getAttribute('data-policy'),
      metrics: [...c.querySelectorAll('[data-metric]')].map((m) => ({
        key: m.getAttribute('data-metric'), value: m.getAttribute('data-value'),
      })),
    }));
    const data = document.getElementById('frugal-data');
    return { charts, cards, data: data ? data.textContent : null,
             jobRows: document.querySelectorAll('table#jobs tr[data-policy][data-job]').length };
  });
  const bad = [];
  const names = new Set(seen.charts.map((c) => c.name));
  for (const want of REQUIRED_CHARTS) if (!names.has(want)) bad.push(`no chart ${want}`);
  for (const c of seen.charts) {
    if (!(c.width > 0 && c.height > 0)) bad.push(`chart ${c.name} is ${c.width}×${c.height} on screen`);
    // A line needs at least two points: four numbers in its path.
    const lines = c.series.filter((s) => (s.d.match(/-?\d*\.?\d+(e[-+]?\d+)?/gi) ?? []).length >= 4);
    const bars = c.bars.filter((b) => b.value !== null && b.value !== '' && Number.isFinite(Number(b.value)));
    if (lines.length === 0 && bars.length === 0) bad.push(`chart ${c.name} is empty (no line with two points, no bar)`);
    for (const s of c.series) {
      if (!/^[^:]+:.+$/.test(s.name ?? '')) bad.push(`chart ${c.name}: series name "${s.name}" is not POLICY:METRIC`);
      if (!s.d.trim()) bad.push(`chart ${c.name}: series ${s.name} has an empty path`);
    }
    for (const b of c.bars) {
      if (!Number.isFinite(Number(b.value)) || b.value === '') {
        bad.push(`chart ${c.name}: bar ${b.label} value "${b.value}"`);
        continue;
      }
      // Bars of a known chart hold their figure of the JSON (when the JSON has that account).
      const run = runsJson.find((r) => r.policy === b.policy);
      const want = run && BAR_JSON[c.name]?.(run, b.label);
      if (BAR_JSON[c.name] && !run) bad.push(`chart ${c.name}: bar ${b.label} of unknown policy ${b.policy}`);
      if (typeof want === 'number' && !close(Number(b.value), want)) {
        bad.push(`chart ${c.name}: bar ${b.policy} ${b.label} ${b.value} != ${want} in the JSON`);
      }
    }
    if (BAR_JSON[c.name]) {
      c.checkedBars = c.bars.filter((b) => {
        const run = runsJson.find((r) => r.policy === b.policy);
        return run && typeof BAR_JSON[c.name](run, b.label) === 'number';
      }).length;
    }
  }
  // Time series: each policy draws its line in the GPUs and queue charts.
  for (const chart of ['gpus', 'queue']) {
    const c = seen.charts.find((x) => x.name === chart);
    if (!c) continue;
    for (const p of POLICIES) {
      if (!c.series.some((s) => s.name.startsWith(p + ':') && s.d.trim())) bad.push(`chart ${chart}: no line of ${p}`);
    }
  }
  // Summary cards against the JSON.
  for (const r of runsJson) {
    const card = seen.cards.find((c) => c.policy === r.policy);
    if (!card) { bad.push(`no card for policy ${r.policy}`); continue; }
    const total = card.metrics.filter((m) => m.key === 'total_usd');
    if (total.length === 0) bad.push(`card ${r.policy}: no total_usd`);
    for (const m of card.metrics) {
      const v = Number(m.value);
      if (m.value === null || m.value === '' || !Number.isFinite(v)) {
        bad.push(`card ${r.policy}: ${m.key} data-value "${m.value}"`);
        continue;
      }
      const want = METRIC_JSON[m.key]?.(r);
      if (want !== undefined && want !== null && !close(v, want)) {
        bad.push(`card ${r.policy}: ${m.key} ${v} != ${want} in the JSON`);
      }
      if (m.key === 'waste_share' && !(v >= 0 && v <= 1)) bad.push(`card ${r.policy}: waste_share ${v}`);
    }
  }
  // Every total_usd anywhere on the page (cards of the same policy elsewhere, too).
  const totals = await pg.$$eval('[data-metric="total_usd"]', (els) => els.map((e) => ({
    policy: e.closest('[data-policy]')?.getAttribute('data-policy') ?? null, value: e.getAttribute('data-value'),
  })));
  for (const t of totals) {
    const r = runsJson.find((x) => x.policy === t.policy);
    if (!r) { bad.push(`total_usd ${t.value} outside a known policy's card (${t.policy})`); continue; }
    if (!close(Number(t.value), r.cost.total_usd)) bad.push(`total_usd of ${t.policy}: ${t.value} != ${r.cost.total_usd}`);
  }
  if (seen.data === null) bad.push('no <script id="frugal-data">');
  else {
    try { JSON.parse(seen.data); } catch (e) { bad.push(`frugal-data is not JSON: ${e.message}`); }
  }
  if (seen.jobRows === 0) bad.push('the jobs table has no rows');
  // The team bars are the JSON's: every team of every run has its bar.
  const teams = seen.charts.find((c) => c.name === 'cost-by-team');
  for (const r of runsJson) {
    for (const team of Object.keys(r.by_team ?? {})) {
      if (teams && !teams.bars.some((b) => b.policy === r.policy && b.label === team)) {
        bad.push(`chart cost-by-team: no bar of ${r.policy} ${team}`);
      }
    }
  }
  return { bad, seen };
}

before(async () => {
  frugal('compare', '--trace', TRACE, '--cluster', CLUSTER, '--policies', POLICIES.join(','), '--html', html);
  frugal('compare', '--trace', TRACE, '--cluster', CLUSTER, '--policies', POLICIES.join(','),
         '--format', 'json', '--out', jsonPath);
  runs = JSON.parse(readFileSync(jsonPath, 'utf8')).runs;
  assert.deepEqual(runs.map((r) => r.policy), POLICIES);
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  outside = await guardNetwork(context);
  page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.errors = errors;
  const t0 = Date.now();
  await page.goto(pathToFileURL(html).href, { waitUntil: 'load', timeout: 60000 });
  console.log(`# report: ${statSync(html).size} bytes, loaded in ${Date.now() - t0} ms`);
});

after(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('the charts are drawn and the cards hold the JSON\'s numbers', { timeout: 120000 }, async () => {
  const { bad, seen } = await problems(page, runs);
  const bars = seen.charts.map((c) => c.checkedBars ?? 0).reduce((x, y) => x + y, 0);
  console.log(`# ${bars} bars checked against the JSON`);
  console.log(`# ${seen.charts.length} charts (${seen.charts.map((c) => c.name).join(', ')}), ` +
              `${seen.cards.length} cards, ${seen.jobRows} job rows`);
  assert.deepEqual(bad, []);
  assert.deepEqual(page.errors, [], 'script errors in the page');
});

test('the job table pages, sorts and filters every row of the JSON', { timeout: 60000 }, async () => {
  // The first page comes as HTML; the page's script renders the others from the embedded JSON.
  const total = runs.length === 0 ? 0 : JSON.parse(await page.$eval('#frugal-data', (e) => e.textContent))
    .runs.reduce((n, r) => n + (r.jobs ?? []).length, 0);
  assert.ok(total > 100, `only ${total} rows in the JSON`);
  const ids = () => page.$$eval('table#jobs tbody tr[data-job]', (trs) => trs.map((tr) => tr.dataset.job));
  const first = await ids();
  assert.equal(first.length, 100);
  assert.match(await page.textContent('#job-range'), new RegExp(`^Rows 1.100 of ${total}$`));
  await page.click('#job-next');
  const second = await ids();
  assert.equal(second.length, 100);
  assert.notDeepEqual(second, first);
  assert.match(await page.textContent('#job-range'), new RegExp(`^Rows 101.200 of ${total}$`));
  await page.click('#job-prev');
  assert.deepEqual(await ids(), first);
  // Sorted by cost, highest first: the first row holds the JSON's costliest job of any run.
  const costliest = Math.max(...JSON.parse(await page.$eval('#frugal-data', (e) => e.textContent))
    .runs.flatMap((r) => (r.jobs ?? []).map((j) => j.cost_usd ?? 0)));
  const costCol = await page.$$eval('table#jobs thead button', (bs) => bs.findIndex((b) => b.textContent === 'cost_usd'));
  assert.ok(costCol > 0, 'no cost_usd column');
  const header = page.locator('table#jobs thead button').nth(costCol);
  await header.click(); // ascending
  await header.click(); // descending
  const top = await page.$eval(`table#jobs tbody tr:first-child td:nth-child(${costCol + 1})`, (td) => td.textContent);
  assert.ok(close(Number(top), Math.round(costliest * 100) / 100), `top cost ${top} vs ${costliest}`);
  // Filtering by one job's id leaves that job's rows only (one per run it ran in).
  const one = first[0];
  await page.fill('#job-filter', one);
  const left = await ids();
  assert.ok(left.length >= 1 && left.every((id) => id.includes(one)), `filter left ${left}`);
  await page.fill('#job-filter', '');
  assert.match(await page.textContent('#job-range'), new RegExp(`of ${total}$`));
  assert.deepEqual(page.errors, [], 'script errors in the page');
});

test('nothing leaves file://', { timeout: 60000 }, async () => {
  // Let anything lazy (images, fonts, scripts added later) start before looking.
  await page.mouse.wheel(0, 100000);
  await page.waitForTimeout(500);
  assert.deepEqual(outside, [], 'requests to the network');
  const external = await page.$$eval('script[src], link[href], img[src], iframe[src]', (els) =>
    els.map((e) => e.getAttribute('src') ?? e.getAttribute('href')).filter((u) => /^(https?:)?\/\//.test(u)));
  assert.deepEqual(external, [], 'elements loading from the network');
});

test('axe-core: no serious or critical violations', { timeout: 240000 }, async () => {
  // The jobs table's rows all come from one template, and axe-core takes minutes over
  // thousands of them (203 s for the 6,000 rows here, with 2 cores): it checks the page with
  // each table cut to its first AXE_ROWS rows.
  const AXE_ROWS = 200;
  const p = await context.newPage();
  await p.goto(pathToFileURL(html).href, { waitUntil: 'load', timeout: 60000 });
  const cut = await p.evaluate((keep) => {
    let n = 0;
    for (const body of document.querySelectorAll('table tbody')) {
      for (const tr of [...body.rows].slice(keep)) { tr.remove(); n++; }
    }
    return n;
  }, AXE_ROWS);
  const t0 = Date.now();
  const vs = await seriousViolations(p);
  console.log(`# axe-core on the report (${cut} table rows past the first ${AXE_ROWS} left out): ` +
              `${Date.now() - t0} ms`);
  assert.equal(vs.length, 0, describeViolations(vs));
  await p.close();
});

test('the checker sees an emptied chart and a changed number', { timeout: 60000 }, async () => {
  const broken = await context.newPage();
  await broken.goto(pathToFileURL(html).href, { waitUntil: 'load', timeout: 60000 });
  await broken.evaluate(() => {
    const svg = document.querySelector('svg[data-chart="gpus"]');
    svg?.querySelectorAll('path[data-series]').forEach((p) => p.setAttribute('d', ''));
    svg?.querySelectorAll('rect[data-value]').forEach((r) => r.remove());
    const bar = document.querySelector('svg[data-chart="cost-by-team"] rect[data-value]');
    bar?.setAttribute('data-value', String(Number(bar.getAttribute('data-value')) * 1.01 + 1));
    const total = document.querySelector('section.card [data-metric="total_usd"]');
    total?.setAttribute('data-value', String(Number(total.getAttribute('data-value')) * 1.01));
  });
  const { bad } = await problems(broken, runs);
  assert.ok(bad.some((b) => b.startsWith('chart gpus is empty')), `not seen: empty chart\n${bad.join('\n')}`);
  assert.ok(bad.some((b) => /total_usd .* != /.test(b)), `not seen: changed total\n${bad.join('\n')}`);
  assert.ok(bad.some((b) => /^chart cost-by-team: bar .* != /.test(b)), `not seen: changed bar\n${bad.join('\n')}`);
  await broken.close();
});

test('screenshot (FRUGAL_UI_SCREENSHOTS=1)', { timeout: 60000 }, async () => {
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, a.source, 'report.png');
});
