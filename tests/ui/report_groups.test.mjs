// ui.report_groups: a grouped HTML report (`frugal report` of {"groups": [...]}, as
// bench/evaluate --html writes one) opened from file:// in Chromium. Two small runs, the demo
// trace under backfill and frugal on two clusters, are written with --report-json and joined
// into two groups. In each group's section every chart has a size on screen and a line of
// two points or a bar, the gpus and queue charts have a line per policy, every card number
// and bar equals that group's run in the JSON, and the nav links lead to the sections; the
// job table's rows carry their group (also the rows the page's script renders). No request
// leaves file://, axe-core finds no serious or critical violation. The checker is then shown
// an emptied chart in one group and a changed number in the other, and must name each.
//
// DOM contract (src/io/html_report.h, "Grouped documents"): <nav aria-label="Groups"> with
// <a href="#ID"> per group; <section class="group" data-group="NAME" id="ID"> holding the
// group's <section class="card" data-policy> and <svg data-chart>; <table id="jobs"> rows
// <tr data-group data-policy data-job>, first column "group".
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import {
  args, describeViolations, guardNetwork, launch, loadChromium, seriousViolations,
} from './lib/browser.mjs';

const a = args();
await loadChromium(); // skips or fails the file without Chromium or node_modules

const TRACE = 'data/demo/itp-cluster04-first3000.csv';
const POLICIES = ['backfill', 'frugal'];
// Group name → the cluster options of its runs.
const GROUPS = {
  'two-region': ['--cluster', 'examples/clusters/two-region.yaml'],
  'hetero-small': ['--cluster', 'examples/clusters/hetero-small.yaml'],
};
const REQUIRED_CHARTS = ['gpus', 'queue', 'waste', 'cost-by-team'];
const REL_TOL = 1e-6;

const METRIC_JSON = {
  total_usd: (r) => r.cost.total_usd,
  jct_mean_s: (r) => r.jct_s?.mean,
  jct_p99_s: (r) => r.jct_s?.p99,
  wait_mean_s: (r) => r.wait_s?.mean,
  gpu_utilization: (r) => r.gpu_utilization,
  co2_kg: (r) => r.cost?.co2_kg,
  deadline_misses: (r) => r.deadline_misses,
};
const BAR_JSON = {
  waste: (r, label) => r.waste?.[label],
  'cost-by-team': (r, label) => r.by_team?.[label]?.total_usd,
  'cost-by-class': (r, label) => r.by_class?.[label]?.total_usd,
  'cost-by-region': (r, label) => r.by_region?.[label]?.total_usd,
  'cost-by-pool': (r, label) => r.cost_by_pool?.[label],
};

const tmp = mkdtempSync(path.join(os.tmpdir(), 'frugal-ui-report-groups-'));
const html = path.join(tmp, 'groups.html');
let browser; let context; let page; let doc; let outside;

function frugal(...words) {
  return execFileSync(a.frugal, words, { cwd: a.source, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 256 << 20, timeout: 120000 });
}

function close(x, y) {
  return Math.abs(x - y) <= REL_TOL * Math.max(1, Math.abs(x), Math.abs(y));
}

/** Everything wrong with the grouped report in `pg` against the document `d`: a list. */
async function problems(pg, d) {
  const seen = await pg.evaluate(() => {
    const links = [...document.querySelectorAll('nav[aria-label="Groups"] a[href^="#"]')]
      .map((l) => ({ text: l.textContent, target: document.getElementById(l.getAttribute('href').slice(1))
        ?.getAttribute('data-group') ?? null }));
    const groups = [...document.querySelectorAll('section.group[data-group]')].map((g) => ({
      name: g.getAttribute('data-group'),
      charts: [...g.querySelectorAll('svg[data-chart]')].map((svg) => {
        const r = svg.getBoundingClientRect();
        return {
          name: svg.getAttribute('data-chart'), width: r.width, height: r.height,
          series: [...svg.querySelectorAll('path[data-series]')].map((p) => ({
            name: p.getAttribute('data-series'), d: p.getAttribute('d') ?? '' })),
          bars: [...svg.querySelectorAll('rect[data-value]')].map((b) => ({
            label: b.getAttribute('data-label'), value: b.getAttribute('data-value'),
            policy: b.getAttribute('data-policy') })),
        };
      }),
      cards: [...g.querySelectorAll('section.card[data-policy]')].map((c) => ({
        policy: c.getAttribute('data-policy'),
        metrics: [...c.querySelectorAll('[data-metric]')].map((m) => ({
          key: m.getAttribute('data-metric'), value: m.getAttribute('data-value') })),
      })),
    }));
    const rows = [...document.querySelectorAll('table#jobs tbody tr')].map((tr) => ({
      group: tr.getAttribute('data-group'), first: tr.cells[0]?.textContent }));
    return { links, groups, rows };
  });
  const bad = [];
  const names = d.groups.map((g) => g.name);
  if (JSON.stringify(seen.groups.map((g) => g.name)) !== JSON.stringify(names)) {
    bad.push(`sections ${seen.groups.map((g) => g.name)} != groups ${names}`);
  }
  for (const l of seen.links) if (l.target !== l.text) bad.push(`nav link ${l.text} leads to ${l.target}`);
  if (seen.links.length !== names.length) bad.push(`${seen.links.length} nav links for ${names.length} groups`);
  for (const g of seen.groups) {
    const runs = d.groups.find((x) => x.name === g.name)?.runs ?? [];
    const have = new Set(g.charts.map((c) => c.name));
    for (const want of REQUIRED_CHARTS) if (!have.has(want)) bad.push(`${g.name}: no chart ${want}`);
    for (const c of g.charts) {
      if (!(c.width > 0 && c.height > 0)) bad.push(`${g.name}: chart ${c.name} is ${c.width}×${c.height} on screen`);
      const lines = c.series.filter((s) => (s.d.match(/-?\d*\.?\d+(e[-+]?\d+)?/gi) ?? []).length >= 4);
      const bars = c.bars.filter((b) => b.value !== '' && Number.isFinite(Number(b.value)));
      if (lines.length === 0 && bars.length === 0) bad.push(`${g.name}: chart ${c.name} is empty`);
      for (const b of c.bars) {
        const run = runs.find((r) => r.policy === b.policy);
        const want = run && BAR_JSON[c.name]?.(run, b.label);
        if (BAR_JSON[c.name] && !run) bad.push(`${g.name}: chart ${c.name}: bar of unknown policy ${b.policy}`);
        if (typeof want === 'number' && !close(Number(b.value), want)) {
          bad.push(`${g.name}: chart ${c.name}: bar ${b.policy} ${b.label} ${b.value} != ${want}`);
        }
      }
    }
    for (const chart of ['gpus', 'queue']) {
      const c = g.charts.find((x) => x.name === chart);
      for (const p of POLICIES) {
        if (c && !c.series.some((s) => s.name.startsWith(p + ':') && s.d.trim())) bad.push(`${g.name}: chart ${chart}: no line of ${p}`);
      }
    }
    for (const r of runs) {
      const card = g.cards.find((c) => c.policy === r.policy);
      if (!card) { bad.push(`${g.name}: no card for ${r.policy}`); continue; }
      for (const m of card.metrics) {
        const want = METRIC_JSON[m.key]?.(r);
        if (typeof want === 'number' && !close(Number(m.value), want)) {
          bad.push(`${g.name}: card ${r.policy}: ${m.key} ${m.value} != ${want} in the JSON`);
        }
      }
    }
  }
  if (seen.rows.length === 0) bad.push('the jobs table has no rows');
  for (const r of seen.rows) {
    if (!names.includes(r.group) || r.first !== r.group) { bad.push(`job row of group "${r.group}" (cell "${r.first}")`); break; }
  }
  return { bad, seen };
}

before(async () => {
  const groups = [];
  for (const [name, cluster] of Object.entries(GROUPS)) {
    const out = path.join(tmp, `${name}.json`);
    frugal('compare', '--trace', TRACE, ...cluster, '--policies', POLICIES.join(','), '--report-json', out,
           '--report-jobs', '300');
    groups.push({ name, runs: JSON.parse(readFileSync(out, 'utf8')).runs });
  }
  doc = { groups };
  const docPath = path.join(tmp, 'groups.json');
  writeFileSync(docPath, JSON.stringify(doc));
  frugal('report', '--json', docPath, '--html', html, '--title', 'grouped');
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  outside = await guardNetwork(context);
  page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.errors = errors;
  const t0 = Date.now();
  await page.goto(pathToFileURL(html).href, { waitUntil: 'load', timeout: 60000 });
  console.log(`# grouped report: ${statSync(html).size} bytes, loaded in ${Date.now() - t0} ms`);
});

after(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('each group\'s charts are drawn and its cards hold its runs\' numbers', { timeout: 120000 }, async () => {
  const { bad, seen } = await problems(page, doc);
  console.log(`# ${seen.groups.length} groups: ${seen.groups.map((g) => `${g.name} ` +
              `(${g.charts.length} charts, ${g.cards.length} cards)`).join(', ')}`);
  assert.deepEqual(bad, []);
  // The two clusters differ, so the groups' numbers do too: a card of one group shown in the
  // other would be caught.
  const totals = doc.groups.map((g) => g.runs[0].cost.total_usd);
  assert.notEqual(totals[0], totals[1]);
  assert.deepEqual(page.errors, [], 'script errors in the page');
});

test('the job table carries the group of every row, also on the pages the script renders', { timeout: 60000 }, async () => {
  const total = doc.groups.reduce((n, g) => n + g.runs.reduce((m, r) => m + r.jobs.length, 0), 0);
  assert.match(await page.textContent('#job-range'), new RegExp(`^Rows 1.100 of ${total}$`));
  const header = await page.$$eval('table#jobs thead button', (bs) => bs.map((b) => b.textContent));
  assert.deepEqual(header.slice(0, 2), ['group', 'policy']);
  const last = doc.groups.at(-1).name;
  await page.fill('#job-filter', last);
  const rows = await page.$$eval('table#jobs tbody tr', (trs) => trs.map((tr) => ({
    group: tr.dataset.group, policy: tr.dataset.policy, first: tr.cells[0].textContent })));
  const want = doc.groups.at(-1).runs.reduce((m, r) => m + r.jobs.length, 0);
  assert.match(await page.textContent('#job-range'), new RegExp(`of ${want}$`));
  assert.ok(rows.length > 0 && rows.every((r) => r.group === last && r.first === last), JSON.stringify(rows[0]));
  await page.fill('#job-filter', '');
  assert.deepEqual(page.errors, [], 'script errors in the page');
});

test('nothing leaves file://; axe-core: no serious or critical violations', { timeout: 240000 }, async () => {
  assert.deepEqual(outside, [], 'requests to the network');
  const p = await context.newPage();
  await p.goto(pathToFileURL(html).href, { waitUntil: 'load', timeout: 60000 });
  await p.evaluate(() => document.querySelectorAll('table tbody tr:nth-child(n+51)').forEach((tr) => tr.remove()));
  const vs = await seriousViolations(p);
  assert.equal(vs.length, 0, describeViolations(vs));
  await p.close();
});

test('the checker sees an emptied chart in one group and a changed number in the other', { timeout: 60000 }, async () => {
  const broken = await context.newPage();
  await broken.goto(pathToFileURL(html).href, { waitUntil: 'load', timeout: 60000 });
  const [first, second] = doc.groups.map((g) => g.name);
  await broken.evaluate(([g1, g2]) => {
    const svg = document.querySelector(`section.group[data-group="${g1}"] svg[data-chart="gpus"]`);
    svg.querySelectorAll('path[data-series]').forEach((p) => p.setAttribute('d', ''));
    const total = document.querySelector(`section.group[data-group="${g2}"] section.card [data-metric="total_usd"]`);
    total.setAttribute('data-value', String(Number(total.getAttribute('data-value')) * 1.01));
  }, [first, second]);
  const { bad } = await problems(broken, doc);
  assert.ok(bad.some((b) => b === `${first}: chart gpus is empty`), `not seen: empty chart\n${bad.join('\n')}`);
  assert.ok(bad.some((b) => b.startsWith(`${second}: card `) && / total_usd .* != /.test(b)),
            `not seen: changed total\n${bad.join('\n')}`);
  // Each group's cards are checked against its own runs: the other group's card is wrong there.
  const swapped = await context.newPage();
  await swapped.goto(pathToFileURL(html).href, { waitUntil: 'load', timeout: 60000 });
  await swapped.evaluate(([g1, g2]) => {
    const a = document.querySelector(`section.group[data-group="${g1}"] section.card`);
    const b = document.querySelector(`section.group[data-group="${g2}"] section.card`);
    const copy = b.cloneNode(true);
    a.replaceWith(copy);
  }, [first, second]);
  const { bad: bad2 } = await problems(swapped, doc);
  assert.ok(bad2.some((b) => b.startsWith(`${first}: card `)), `not seen: another group's card\n${bad2.join('\n')}`);
  await broken.close();
  await swapped.close();
});
