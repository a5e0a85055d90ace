// ui.report_pack: the HTML report of a `frugal pack` run (`pack --html`) opened from file://
// in Chromium. A small openb-format cluster and pod list are generated here (seeded, no shared
// data needed), packed by fgd and frugal over 3 seeds with --format json and --html in the
// same run. The unallocated and fragmentation charts are drawn (a size on screen, a line per
// policy with a point per level the JSON holds, the bound's line), every cell of the levels
// table equals the JSON's summary, nothing leaves file://, axe-core finds no serious or
// critical violation. The checker is then shown an emptied line and a changed cell and must
// name each.
//
// DOM contract (src/io/html_pack.h): <svg data-chart="pack-unallocated"> with
// <path data-series="P:unallocated_pct"> and "bound:unallocated_pct"; <svg
// data-chart="pack-fragmentation"> with "P:fragmentation_pct"; <table id="pack-levels"> rows
// <tr data-arrived="X"> with <td data-policy="P|bound" data-value>.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import {
  args, describeViolations, guardNetwork, launch, loadChromium, seriousViolations,
} from './lib/browser.mjs';

const a = args();
await loadChromium(); // skips or fails the file without Chromium or node_modules

const POLICIES = ['fgd', 'frugal'];
const REL_TOL = 1e-9;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'frugal-ui-report-pack-'));
const html = path.join(tmp, 'pack.html');
let browser; let context; let page; let doc; let outside;

/** A seeded openb node list (24 nodes, 2-8 GPUs) and pod list (600 pods: whole cards, shares
 * of one card, a few gangs and CPU-only pods). */
function writeInputs() {
  let s = 7;
  const rnd = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  const nodes = ['sn,cpu_milli,memory_mib,gpu,model'];
  for (let i = 0; i < 24; i++) {
    const [gpu, model] = [[8, 'G2'], [2, 'T4'], [4, 'V100M16'], [8, 'G3']][i % 4];
    nodes.push(`node-${i},${gpu * 12000},${gpu * 49152},${gpu},${model}`);
  }
  const pods = ['name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time'];
  for (let i = 0; i < 600; i++) {
    const u = rnd();
    const [g, m] = u < 0.45 ? [1, 1000] : u < 0.85 ? [1, [250, 300, 460, 500, 700][Math.floor(rnd() * 5)]]
      : u < 0.93 ? [[2, 4][Math.floor(rnd() * 2)], 1000] : [0, 0];
    pods.push(`pod-${i},${[4000, 6000, 8000][Math.floor(rnd() * 3)]},16384,${g},${m},,LS,Running,${i},${600 + i},${i}`);
  }
  writeFileSync(path.join(tmp, 'nodes.csv'), nodes.join('\n') + '\n');
  writeFileSync(path.join(tmp, 'pods.csv'), pods.join('\n') + '\n');
}

function close(x, y) {
  return Math.abs(x - y) <= REL_TOL * Math.max(1, Math.abs(x), Math.abs(y));
}

/** Everything wrong with the pack report in `pg` against the document `d`: a list. */
async function problems(pg, d) {
  const seen = await pg.evaluate(() => ({
    charts: [...document.querySelectorAll('svg[data-chart]')].map((svg) => {
      const r = svg.getBoundingClientRect();
      return {
        name: svg.getAttribute('data-chart'), width: r.width, height: r.height,
        series: [...svg.querySelectorAll('path[data-series]')].map((p) => ({
          name: p.getAttribute('data-series'), points: ((p.getAttribute('d') ?? '').match(/[ML]/g) ?? []).length })),
      };
    }),
    cells: [...document.querySelectorAll('#pack-levels tr[data-arrived] td[data-policy]')].map((td) => ({
      arrived: Number(td.parentElement.getAttribute('data-arrived')), policy: td.getAttribute('data-policy'),
      value: td.getAttribute('data-value') })),
  }));
  const bad = [];
  // Points of a curve (indexed by arrived %) from level `from` on.
  const levels = (arr, from = 0) => (arr ?? []).filter((v, x) => x >= from && typeof v === 'number').length;
  for (const [chart, key, from] of [['pack-unallocated', 'alloc_pct', 0], ['pack-unallocated-high', 'alloc_pct', 90],
    ['pack-fragmentation', 'fragmentation_pct', 0]]) {
    const c = seen.charts.find((x) => x.name === chart);
    if (!c) { bad.push(`no chart ${chart}`); continue; }
    if (!(c.width > 0 && c.height > 0)) bad.push(`chart ${chart} is ${c.width}×${c.height} on screen`);
    const suffix = key === 'alloc_pct' ? 'unallocated_pct' : 'fragmentation_pct';
    for (const p of POLICIES) {
      const s = c.series.find((x) => x.name === `${p}:${suffix}`);
      const want = levels(d.curves[p][key], from);
      if (!s || s.points !== want) bad.push(`chart ${chart}: ${p} has ${s?.points ?? 0} points, the JSON ${want}`);
    }
    if (key === 'alloc_pct') {
      const b = c.series.find((x) => x.name === 'bound:unallocated_pct');
      if (!b || b.points !== levels(d.bound.alloc_pct, from)) bad.push(`chart ${chart}: bound has ${b?.points ?? 0} points`);
    }
  }
  if (seen.cells.length === 0) bad.push('the levels table has no cell');
  for (const cell of seen.cells) {
    const row = d.summary.find((r) => r.arrived_pct === cell.arrived && (cell.policy === 'bound' || r.policy === cell.policy));
    const want = cell.policy === 'bound' ? row?.bound_unallocated_pct : row?.unallocated_gpu_pct;
    if (typeof want !== 'number' || !close(Number(cell.value), want)) {
      bad.push(`levels ${cell.arrived} %: ${cell.policy} ${cell.value} != ${want} in the JSON`);
    }
  }
  const want = d.summary.length + d.summary.length / POLICIES.length;  // a cell per policy + the bound
  if (seen.cells.length !== want) bad.push(`${seen.cells.length} table cells, want ${want}`);
  return { bad, seen };
}

before(async () => {
  writeInputs();
  const json = path.join(tmp, 'pack.json');
  execFileSync(a.frugal, ['pack', '--nodes', path.join(tmp, 'nodes.csv'), '--pods', path.join(tmp, 'pods.csv'),
    '--policies', POLICIES.join(','), '--seeds', '3', '--rng', 'std', '--format', 'json', '--out', json,
    '--html', html], { cwd: a.source, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120000 });
  doc = JSON.parse(readFileSync(json, 'utf8'));
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  outside = await guardNetwork(context);
  page = await context.newPage();
  await page.goto(pathToFileURL(html).href, { waitUntil: 'load', timeout: 60000 });
});

after(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('the curves are drawn from the JSON and the levels table holds its numbers', { timeout: 60000 }, async () => {
  const { bad, seen } = await problems(page, doc);
  console.log(`# ${seen.charts.length} charts, ${seen.cells.length} table cells`);
  assert.deepEqual(bad, []);
});

test('nothing leaves file://; axe-core: no serious or critical violations', { timeout: 120000 }, async () => {
  assert.deepEqual(outside, [], 'requests to the network');
  const vs = await seriousViolations(page);
  assert.equal(vs.length, 0, describeViolations(vs));
});

test('the checker sees an emptied line and a changed cell', { timeout: 60000 }, async () => {
  const broken = await context.newPage();
  await broken.goto(pathToFileURL(html).href, { waitUntil: 'load', timeout: 60000 });
  await broken.evaluate(() => {
    document.querySelector('path[data-series="frugal:unallocated_pct"]').setAttribute('d', '');
    const td = document.querySelector('#pack-levels td[data-policy="fgd"]');
    td.setAttribute('data-value', String(Number(td.getAttribute('data-value')) + 0.01));
  });
  const { bad } = await problems(broken, doc);
  assert.ok(bad.some((b) => b.startsWith('chart pack-unallocated: frugal has 0 points')), bad.join('\n'));
  assert.ok(bad.some((b) => / fgd .* != /.test(b)), bad.join('\n'));
  await broken.close();
});
