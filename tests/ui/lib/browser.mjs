// Shared by the browser tests (CTest label `ui`): arguments, Debian's Chromium driven through
// playwright-core, axe-core, the network guard and screenshots. Node's standard library and
// the two npm packages of package.json only (scripts/ui-deps.sh installs them).
//
// Without Chromium or tests/ui/node_modules a test prints "[  SKIPPED ]" and passes, unless
// FRUGAL_UI_REQUIRED or CI is set (.ci/run sets both): then it fails.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const UI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** --frugal BINARY --source DIR (CTest passes both), with defaults for a hand run. */
export function args() {
  const out = { frugal: null, source: path.resolve(UI_DIR, '..', '..') };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--frugal') out.frugal = argv[++i];
    else if (argv[i] === '--source') out.source = argv[++i];
  }
  out.frugal = path.resolve(out.frugal ?? path.join(out.source, 'build', 'frugal'));
  out.source = path.resolve(out.source);
  return out;
}

/** Fails (exit 1) or skips (exit 0 after "[  SKIPPED ]") the whole test file. */
export function unavailable(why) {
  if (process.env.FRUGAL_UI_REQUIRED || process.env.CI) {
    console.log(`FAIL: ${why}, and FRUGAL_UI_REQUIRED or CI is set (run scripts/ui-deps.sh)`);
    process.exit(1);
  }
  console.log(`[  SKIPPED ] ${why} (scripts/ui-deps.sh installs it)`);
  process.exit(0);
}

export function chromiumPath() {
  const candidates = [process.env.FRUGAL_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p) => p && existsSync(p)) ?? null;
}

/** playwright-core's chromium, or the file skipped/failed when it or Chromium is missing. */
export async function loadChromium() {
  const exe = chromiumPath();
  if (!exe) unavailable('Chromium not found (Debian package chromium)');
  let pw;
  try {
    pw = await import('playwright-core');
  } catch (e) {
    unavailable(`playwright-core not installed in tests/ui/node_modules (${e.code ?? e.message})`);
  }
  if (!existsSync(axePath())) unavailable('axe-core not installed in tests/ui/node_modules');
  return { chromium: pw.chromium, executablePath: exe };
}

/** Debian's Chromium, headless. Root needs --no-sandbox; a chroot may lack /dev/shm. */
export async function launch() {
  const { chromium, executablePath } = await loadChromium();
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run',
           '--disable-background-networking', '--disable-component-update'],
  });
}

export function axePath() {
  return path.join(UI_DIR, 'node_modules', 'axe-core', 'axe.min.js');
}

/** axe-core's violations (its default rules) of impact serious or critical on the page. */
export async function seriousViolations(page, options = {}) {
  if (!(await page.evaluate(() => typeof window.axe !== 'undefined'))) {
    try {
      await page.addScriptTag({ path: axePath() });
    } catch (e) {
      // A page whose Content-Security-Policy forbids inline scripts (the dashboard's
      // script-src 'self'): evaluated through the DevTools protocol instead, which the
      // policy does not govern, so the page's own policy stays as served.
      if (!/Content Security Policy/i.test(e.message)) throw e;
      await page.evaluate(readFileSync(axePath(), 'utf8'));
    }
  }
  const result = await page.evaluate(async (opts) => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'], ...opts });
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary}`),
      count: v.nodes.length,
    }));
  }, options);
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export function describeViolations(vs) {
  return vs.map((v) => `${v.impact} ${v.id} (${v.count}×): ${v.help}\n    ${v.nodes.join('\n    ')}`)
    .join('\n');
}

/**
 * Records every request of `context` that is not file:, data:, blob: or about: and aborts
 * it. Returns the list (the test asserts it stays empty).
 */
export async function guardNetwork(context, allowOrigin = null) {
  const outside = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    const local = /^(file|data|blob|about):/.test(url) ||
      (allowOrigin !== null && url.startsWith(allowOrigin));
    if (local) return route.continue();
    outside.push(url);
    return route.abort();
  });
  context.on('request', (req) => {
    const url = req.url();
    if (/^(https?|wss?|ftp):/.test(url) && !(allowOrigin !== null && url.startsWith(allowOrigin)) &&
        !outside.includes(url)) outside.push(url);
  });
  return outside;
}

export const SCREENSHOTS = process.env.FRUGAL_UI_SCREENSHOTS === '1';

/**
 * With FRUGAL_UI_SCREENSHOTS=1: a full-page PNG of `page` (1280 wide) into docs/img/NAME.
 * Tables longer than `maxRows` rows are cut to their first rows for the picture only.
 */
export async function screenshot(page, source, name, maxRows = 15) {
  if (!SCREENSHOTS) return null;
  const dir = path.join(source, 'docs', 'img');
  mkdirSync(dir, { recursive: true });
  await page.setViewportSize({ width: 1280, height: page.viewportSize()?.height ?? 800 });
  // Through the CSSOM, which a Content-Security-Policy without 'unsafe-inline' allows.
  await page.evaluate((keep) => {
    for (const body of document.querySelectorAll('table tbody')) {
      for (const tr of [...body.rows].slice(keep)) tr.style.setProperty('display', 'none', 'important');
    }
  }, maxRows);
  const file = path.join(dir, name);
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
  console.log(`# screenshot: ${file}`);
  return file;
}

/** Polls fn() (a promise or value) until truthy; throws with `what` and the last value. */
export async function until(what, fn, timeoutMs = 15000, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
}
