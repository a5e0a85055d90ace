// ui.smoke: Debian's Chromium starts through playwright-core and renders a data: URL, and
// axe-core runs in it. Tells "the browser is broken" apart from "a page is broken" when
// ui.report or ui.dashboard fails.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { launch, loadChromium, seriousViolations } from './lib/browser.mjs';

await loadChromium(); // skips or fails the file without Chromium or node_modules
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('chromium renders a data: URL', { timeout: 60000 }, async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const html = '<!doctype html><html lang="en"><head><title>smoke</title></head><body><main>' +
    '<h1 id="h">frugal</h1><svg width="200" height="100" aria-label="box"><rect data-value="1" ' +
    'width="120" height="60" fill="#357"/></svg></main></body></html>';
  await page.goto('data:text/html,' + encodeURIComponent(html));
  assert.equal(await page.textContent('#h'), 'frugal');
  const box = await page.locator('rect').boundingBox();
  assert.ok(box && box.width === 120 && box.height === 60, `rect box ${JSON.stringify(box)}`);
  const png = await page.screenshot();
  assert.ok(png.length > 1000, `screenshot of ${png.length} bytes`);
  console.log(`# chromium ${browser.version()}, node ${process.version}`);
  await page.close();
});

test('axe-core runs in the page', { timeout: 60000 }, async () => {
  const page = await browser.newPage();
  await page.goto('data:text/html,' + encodeURIComponent(
    '<!doctype html><html lang="en"><head><title>a</title></head><body><main><img src="x.png"></main></body></html>'));
  const vs = await seriousViolations(page);
  // An image without alt text is a critical violation: axe must see it.
  assert.ok(vs.some((v) => v.id === 'image-alt'), `axe found ${JSON.stringify(vs)}`);
  await page.close();
});
