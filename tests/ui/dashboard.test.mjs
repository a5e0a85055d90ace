// ui.dashboard: the live dashboard at /ui against a running `frugal serve --backend dry-run`
// (8 L4 GPUs in 2 nodes, policy fifo, teams alpha and beta), in Chromium:
//   - log in with team alpha's token (kept in sessionStorage, never in a URL); a job
//     submitted through the API appears and goes queued → running; the page's cancel button
//     cancels it;
//   - team beta, in a fresh browser context, does not see alpha's jobs;
//   - a keyboard-only walk: Tab reaches the token input and the login button, and after login
//     a cancel button, each with a visible focus indicator; axe-core finds no serious or
//     critical violation on the login page or after login;
//   - the cost chart draws GET /v1/usage's points (the service samples every 0.5 s here:
//     usage_interval_s), history from before the page opened included, each point where the
//     API's figure puts it;
//   - above ?groups_above=N nodes the node section is a table of groups equal to GET
//     /v1/nodes?summary=1, and "Show every node" brings the grid back;
//   - with 5,000 more jobs the page still loads and shows rows (the time is printed).
// The page polls every 200 ms (?poll=200). Every request the page makes must stay on the
// service's own origin (no CDN).
//
// DOM contract (ui/): #login-form, #token, #login, #logout; <table id="jobs"> rows
// tr[data-job-id], cells td[data-field="state|name|gpus|runtime|cost|tier|priority"], buttons
// button[data-action="cancel|hold|release"]; #nodes, #alerts, #shadows; the chart's
// polyline#cost-line / #idle-line (points "x,y ...", data-as-of: the usage answer drawn);
// #node-groups rows tr[data-group="pool/model/state"] with td[data-field="nodes|gpus|..."],
// #nodes-toggle.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import {
  args, describeViolations, guardNetwork, launch, loadChromium, screenshot, SCREENSHOTS, seriousViolations,
  until,
} from './lib/browser.mjs';
import { ALPHA, BETA, Serve } from './lib/serve.mjs';

const a = args();
await loadChromium(); // skips or fails the file without Chromium or node_modules

const POLL = 200;
const BULK = Number(process.env.FRUGAL_UI_BULK_JOBS ?? 5000);
let serve; let browser;
const contexts = [];

before(async () => {
  serve = await new Serve(a.frugal, { nodes: 2, gpusPerNode: 4, policy: 'fifo',
                                      extra: 'usage_interval_s: 0.5' }).start();
  browser = await launch();
});

after(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  await serve?.stop();
});

/** A fresh context (no sessionStorage shared) and page at /ui; requests off-origin fail. */
async function openPage(query = '') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const outside = await guardNetwork(context, serve.url + '/');
  const page = await context.newPage();
  page.errors = [];
  page.requests = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('request', (r) => page.requests.push(r.url()));
  page.on('dialog', (d) => d.accept()); // a confirm() before cancelling, if the page asks
  page.outside = outside;
  const response = await page.goto(`${serve.url}/ui?poll=${POLL}${query}`, { waitUntil: 'load' });
  assert.equal(response?.status(), 200, `/ui answered ${response?.status()}`);
  return page;
}

async function login(page, token) {
  await page.fill('#token', token);
  await page.click('#login');
  await page.waitForSelector('#logout', { state: 'visible', timeout: 20000 });
}

const row = (page, id) => page.locator(`tr[data-job-id="${id}"]`);
const stateOf = async (page, id) => {
  const td = row(page, id).locator('td[data-field="state"]');
  return (await td.count()) ? (await td.textContent()).trim() : null;
};

/** Waits until job `id`'s state cell on the page starts with `want`. */
async function seeState(page, id, want, timeoutMs = 20000) {
  await until(`job ${id} shown ${want}`, async () => {
    const s = await stateOf(page, id);
    return s !== null && s.startsWith(want) ? s : false;
  }, timeoutMs);
}

/** Where the keyboard focus is: the element's id/action and whether its focus is visible. */
async function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { id: null };
    const cs = getComputedStyle(el);
    const ring = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) ||
                 (cs.boxShadow && cs.boxShadow !== 'none');
    const r = el.getBoundingClientRect();
    return {
      id: el.id || null, tag: el.tagName.toLowerCase(), action: el.getAttribute('data-action'),
      job: el.closest('tr[data-job-id]')?.getAttribute('data-job-id') ?? null,
      visible: ring && r.width > 0 && r.height > 0, focusVisible: el.matches(':focus-visible'),
      outline: `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor}`,
    };
  });
}

/** Presses Tab until pred(focus) holds (at most `max` times); the focus it stopped on. */
async function tabTo(page, what, pred, max = 80) {
  const path = [];
  for (let i = 0; i < max; i++) {
    const f = await focused(page);
    if (pred(f)) {
      console.log(`# Tab → ${what}: ${path.length} press(es)${path.length ? ` via ${path.join(' → ')}` : ''}`);
      return f;
    }
    path.push(f.id ?? (f.action ? `${f.action}(${f.job})` : (f.tag ?? 'body')));
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab did not reach ${what} in ${max} presses: ${path.slice(0, 30).join(' → ')}`);
}

let alphaJob; let blocker;

test('log in, a job appears, goes queued → running, and is cancelled from the page', { timeout: 90000 }, async () => {
  const page = await openPage();
  const before = await seriousViolations(page);
  assert.equal(before.length, 0, `the login page:\n${describeViolations(before)}`);
  await login(page, ALPHA);
  // The token: in sessionStorage, in no URL (the page's, or any request's), not in localStorage.
  assert.ok(!page.url().includes(ALPHA), `token in the page URL ${page.url()}`);
  const stored = await page.evaluate(() => ({
    session: Object.keys(sessionStorage).map((k) => sessionStorage.getItem(k)),
    local: Object.keys(localStorage).map((k) => localStorage.getItem(k)),
  }));
  assert.ok(stored.session.some((v) => v && v.includes(ALPHA)), 'token not in sessionStorage');
  assert.ok(!stored.local.some((v) => v && v.includes(ALPHA)), 'token in localStorage');
  const cookies = await page.context().cookies();
  assert.ok(!cookies.some((c) => c.value.includes(ALPHA)), 'token in a cookie');

  // A job that fills the cluster, then ours: queued behind it until it is cancelled.
  blocker = await serve.submit({ name: 'blocker', command: 'sleep 1000', gpus: serve.gpus });
  alphaJob = await serve.submit({ name: 'ui-job', command: 'sleep 1000', gpus: 1 });
  await seeState(page, blocker, 'running');
  await seeState(page, alphaJob, 'queued');
  assert.equal((await row(page, alphaJob).locator('td[data-field="name"]').textContent()).trim(), 'ui-job');
  assert.equal((await row(page, alphaJob).locator('td[data-field="gpus"]').textContent()).trim(), '1');
  // The node grid is drawn (the cluster's 2 nodes), and the alerts list is there.
  await until('#nodes drawn', () => page.$eval('#nodes', (el) => el.querySelectorAll('*').length > 0));
  assert.equal(await page.locator('#alerts').count(), 1, 'no #alerts');
  await serve.cancel(blocker);
  await seeState(page, alphaJob, 'running');
  await seeState(page, blocker, 'cancelled');
  assert.equal((await serve.job(alphaJob)).state, 'running');

  // Cancel from the page.
  await row(page, alphaJob).locator('button[data-action="cancel"]').click();
  await seeState(page, alphaJob, 'cancelled');
  await until('the service says cancelled', async () => (await serve.job(alphaJob)).state === 'cancelled');
  assert.equal(await row(page, alphaJob).locator('button[data-action="cancel"]').count(), 0,
    'a cancelled job still has a cancel button');

  assert.ok(!page.requests.some((u) => u.includes(ALPHA)), 'token in a request URL');
  assert.deepEqual(page.outside, [], 'requests off the service');
  assert.deepEqual(page.errors, [], 'script errors in the page');
});

test('team beta does not see team alpha\'s jobs', { timeout: 60000 }, async () => {
  const alphaLive = await serve.submit({ name: 'alpha-secret', command: 'sleep 1000', gpus: 1 });
  const betaJob = await serve.submit({ name: 'beta-job', command: 'sleep 1000', gpus: 1 }, BETA);
  const page = await openPage();
  // A fresh context: no session left from alpha's page.
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  await login(page, BETA);
  await seeState(page, betaJob, 'running');
  await page.waitForTimeout(3 * POLL);
  for (const id of [alphaJob, blocker, alphaLive]) {
    assert.equal(await row(page, id).count(), 0, `beta's page shows alpha's job ${id}`);
  }
  const text = await page.locator('#jobs').textContent();
  assert.ok(!text.includes('alpha-secret') && !text.includes('ui-job'), 'alpha\'s job names on beta\'s page');
  await serve.cancel(betaJob, BETA);
  await serve.cancel(alphaLive);
  assert.deepEqual(page.errors, [], 'script errors in the page');
});

test('keyboard only: Tab reaches the token, login and a cancel button, focus visible', { timeout: 90000 }, async () => {
  const queued = [];
  // One running, one queued behind a full cluster: a cancel button on each row.
  queued.push(await serve.submit({ name: 'kbd-big', command: 'sleep 1000', gpus: serve.gpus }));
  queued.push(await serve.submit({ name: 'kbd-small', command: 'sleep 1000', gpus: 1 }));
  const page = await openPage();
  // From the top of the page: nothing focused, the focus navigation starting point at the
  // page's top left corner (a click there), then Tab.
  await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
  await page.mouse.click(1, 1);
  const token = await tabTo(page, '#token', (f) => f.id === 'token');
  assert.ok(token.visible, `#token focus not visible (${token.outline})`);
  await page.keyboard.type(ALPHA);
  const button = await tabTo(page, '#login', (f) => f.id === 'login');
  assert.ok(button.visible && button.focusVisible, `#login focus not visible (${button.outline})`);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#logout', { state: 'visible', timeout: 20000 });
  await seeState(page, queued[1], 'queued');
  const cancel = await tabTo(page, 'a cancel button', (f) => f.action === 'cancel', 200);
  assert.ok(cancel.visible && cancel.focusVisible, `cancel focus not visible (${cancel.outline})`);
  // Its focus survives the page's polling.
  await page.waitForTimeout(4 * POLL);
  const still = await focused(page);
  assert.equal(still.action, 'cancel', `focus moved by a refresh to ${JSON.stringify(still)}`);
  console.log(`# keyboard: cancel button of job ${cancel.job} reached`);

  const vs = await seriousViolations(page);
  assert.equal(vs.length, 0, describeViolations(vs));

  for (const id of queued) await serve.cancel(id).catch(() => {});
  assert.deepEqual(page.errors, [], 'script errors in the page');
});

/** The chart as drawn, read at once: the usage answer's as_of and each line's [[x, y], ...]. */
async function chart(page) {
  const c = await page.evaluate(() => ({
    asOf: Number(document.getElementById('cost-line').dataset.asOf),
    cost: document.getElementById('cost-line').getAttribute('points') || '',
    idle: document.getElementById('idle-line').getAttribute('points') || '',
  }));
  const parse = (t) => (t.trim() ? t.trim().split(/\s+/).map((p) => p.split(',').map(Number)) : []);
  return { asOf: c.asOf, cost: parse(c.cost), idle: parse(c.idle) };
}

/** Where the page draws usage answer `u` (ui/app.js showUsage): x over the window (from the
 *  first point when the service has less history), y on one scale. */
function expectedLines(u, team) {
  const burn = (p) => (p.burn_usd_h !== undefined ? p.burn_usd_h : (p.teams?.[team] ?? null));
  let max = 0;
  for (const p of u.points) max = Math.max(max, burn(p) || 0, p.idle_usd_h || 0);
  const t0 = Math.max(u.as_of - u.window_s, u.points.length ? u.points[0].at : u.as_of);
  const at = (p, v) => [(600 * (p.at + p.span_s / 2 - t0)) / Math.max(1, u.as_of - t0),
                        118 - (116 * v) / (max || 1)];
  return { cost: u.points.filter((p) => burn(p) !== null).map((p) => at(p, burn(p))),
           idle: u.points.map((p) => at(p, p.idle_usd_h)) };
}

function sameLine(drawn, want, what) {
  assert.equal(drawn.length, want.length, `${what}: ${drawn.length} points drawn, the API has ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    assert.ok(Math.abs(drawn[i][0] - want[i][0]) <= 0.06 && Math.abs(drawn[i][1] - want[i][1]) <= 0.06,
      `${what} point ${i}: drawn ${drawn[i]}, the API's figure puts it at ${want[i]}`);
  }
}

test('the cost chart draws the 24-h usage series from the API, history included', { timeout: 60000 }, async () => {
  // A running job of alpha's, and time for some buckets before the page opens.
  const burner = await serve.submit({ name: 'burner', command: 'sleep 1000', gpus: 2 });
  await until('the service has 3 usage buckets', async () => {
    const [, u] = await serve.request('GET', '/v1/usage?window=24h', { token: ALPHA });
    return u.points.filter((p) => !p.partial && p.teams.alpha > 0).length >= 3;
  });
  const page = await openPage();
  const answers = [];
  page.on('response', async (r) => {
    if (r.url().includes('/v1/usage')) answers.push(await r.json().catch(() => null));
  });
  await login(page, ALPHA);
  await until('the chart drawn', async () => (await page.$eval('#cost-line', (el) => el.dataset.asOf ?? null)));
  // The first drawing already has the buckets from before the page opened.
  await until('a drawn usage answer', () => answers.length > 0);
  const first = answers[0];
  assert.ok(first.points.length >= 3, `the first usage answer has ${first.points.length} points`);
  // What is drawn is the answer it names, point by point.
  const { asOf, cost, idle } = await chart(page);
  await until(`the usage answer as of ${asOf} seen`, () => answers.some((u) => u && u.as_of === asOf));
  const drawnFrom = answers.find((u) => u && u.as_of === asOf);
  const want = expectedLines(drawnFrom, 'alpha');
  assert.ok(cost.length >= 3, `the burn line has ${cost.length} points`);
  assert.ok(drawnFrom.points.some((p) => p.teams.alpha > 0), 'alpha burned nothing');
  sameLine(cost, want.cost, 'burn line');
  sameLine(idle, want.idle, 'idle line');
  // The checker itself: a wrong figure is caught.
  const wrong = structuredClone(drawnFrom);
  wrong.points.findLast((p) => p.teams.alpha > 0).teams.alpha *= 1.5;
  assert.throws(() => sameLine(cost, expectedLines(wrong, 'alpha').cost, 'burn line'), /point/);
  const desc = await page.$eval('#cost-chart-desc', (el) => el.textContent);
  assert.match(desc, /Cost burn \$[0-9.]+ per hour/);
  const vs = await seriousViolations(page);
  assert.equal(vs.length, 0, describeViolations(vs));
  await serve.cancel(burner);
  assert.deepEqual(page.errors, [], 'script errors in the page');
});

test('above groups_above nodes the page shows groups equal to the summary', { timeout: 60000 }, async () => {
  const page = await openPage('&groups_above=1');
  await login(page, BETA);
  await page.waitForSelector('#node-groups tbody tr[data-group]', { timeout: 20000 });
  const [, summary] = await serve.request('GET', '/v1/nodes?summary=1', { token: BETA });
  assert.equal(summary.nodes, 2);
  const rows = await page.$$eval('#node-groups tbody tr[data-group]', (trs) => trs.map((tr) => ({
    group: tr.dataset.group,
    nodes: tr.querySelector('td[data-field="nodes"]').textContent,
    gpus: tr.querySelector('td[data-field="gpus"]').textContent,
  })));
  assert.deepEqual(rows, summary.groups.map((g) => ({
    group: `${g.pool}/${g.gpu_model}/${g.state}`, nodes: String(g.nodes), gpus: String(g.gpus),
  })));
  assert.equal(await page.locator('#nodes').isVisible(), false, 'the per-GPU grid shown above the threshold');
  assert.ok((await page.textContent('#nodes-summary')).startsWith('2 node(s), 8 GPU(s)'));
  const vs = await seriousViolations(page);
  assert.equal(vs.length, 0, describeViolations(vs));
  // The full list is still reachable.
  await page.click('#nodes-toggle');
  await until('the grid of every GPU', () => page.$$eval('#nodes .cell', (c) => c.length === 8));
  assert.equal(await page.locator('#node-groups').isVisible(), false);
  assert.equal((await page.textContent('#nodes-toggle')).trim(), 'Show groups');
  assert.deepEqual(page.errors, [], 'script errors in the page');
});

test(`with ${BULK} more jobs the page loads and shows rows`, { timeout: 420000 }, async () => {
  const t0 = Date.now();
  const ids = await serve.submitMany(BULK, (i) => ({ name: `bulk-${i}`, command: 'sleep 1000', gpus: 1 }), ALPHA, 16);
  const submitS = (Date.now() - t0) / 1000;
  const newest = Math.max(...ids);
  const page = await openPage();
  const t1 = Date.now();
  await login(page, ALPHA);
  await page.waitForSelector(`tr[data-job-id="${newest}"]`, { timeout: 60000 });
  const shownMs = Date.now() - t1;
  const rows = await page.locator('tr[data-job-id]').count();
  // A reload with the token in sessionStorage: the rows again, without the login form.
  const t2 = Date.now();
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector(`tr[data-job-id="${newest}"]`, { timeout: 60000 });
  const reloadMs = Date.now() - t2;
  console.log(`# ${BULK} jobs submitted in ${submitS.toFixed(1)} s (16 at a time); login → newest ` +
              `row shown in ${shownMs} ms, ${rows} rows on the page; reload → rows in ${reloadMs} ms`);
  assert.ok(rows > 0);
  assert.ok(await row(page, newest).locator('button[data-action="cancel"]').count() === 1);
  assert.deepEqual(page.errors, [], 'script errors in the page');
  assert.deepEqual(page.outside, [], 'requests off the service');
});

test('screenshot (FRUGAL_UI_SCREENSHOTS=1)', { timeout: 90000, skip: !SCREENSHOTS }, async () => {
  // Its own daemon, 4 nodes × 8 L4, with a few jobs of each kind running, queued and held.
  const demo = await new Serve(a.frugal, { nodes: 4, gpusPerNode: 8, policy: 'fifo',
                                         extra: 'usage_interval_s: 0.25' }).start();
  try {
    const jobs = [
      { name: 'llama-70b-pretrain', command: 'sleep 1000', gpus: 16, tier: 'important' },
      { name: 'finetune-7b', command: 'sleep 1000', gpus: 4, class: 'finetune', tier: 'core' },
      { name: 'eval-sweep', command: 'sleep 1000', gpus: 1, class: 'eval' },
      { name: 'tokenize-corpus', command: 'sleep 1000', gpus: 2, class: 'preprocess' },
      { name: 'rlhf-reward-model', command: 'sleep 1000', gpus: 8, class: 'finetune' },
      { name: 'ablation-lr-3e-4', command: 'sleep 1000', gpus: 8 },
      { name: 'ablation-lr-1e-4', command: 'sleep 1000', gpus: 8 },
    ];
    const ids = [];
    for (const j of jobs) ids.push(await demo.submit(j));
    await demo.request('POST', `/v1/jobs/${ids.at(-1)}/hold`, { token: ALPHA });
    await demo.submit({ name: 'beta-pretrain', command: 'sleep 1000', gpus: 1 }, BETA);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${demo.url}/ui?poll=500`, { waitUntil: 'load' });
    await page.fill('#token', ALPHA);
    await page.click('#login');
    await page.waitForSelector(`tr[data-job-id="${ids[0]}"]`);
    await page.waitForTimeout(3000); // a few usage buckets for the cost chart
    await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
    await screenshot(page, a.source, 'dashboard.png');
  } finally {
    await demo.stop();
  }
});
