// Playwright's side of bench/measure/perf: for each page, the mean time of an ARIA
// snapshot (ai mode, with refs), a viewport screenshot and a click, and the
// snapshot itself (for its size and its role/name pairs). One JSON line per
// page. usage: node pw.mjs REPS PAGE::SELECTOR...   (PERF_PEER_DIR set)
import { createRequire } from 'module';
import { execSync } from 'child_process';

const require = createRequire(process.env.PERF_PEER_DIR + '/package.json');
const { chromium } = require('playwright-core');
const [repsArg, ...pages] = process.argv.slice(2);
const reps = Number(repsArg);
const exe = process.env.PERF_CHROMIUM || execSync('command -v chromium').toString().trim();
const flags = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];
const browser = await chromium.launch({ executablePath: exe, headless: true, args: flags });
const context = await browser.newContext({ viewport: { width: 1280, height: 1800 } });
const page = await context.newPage();

async function timed(fn) {
  const t = performance.now();
  const v = await fn();
  return [performance.now() - t, v];
}

for (const item of pages) {
  const [url, selector] = item.split('::');
  await page.goto(url, { waitUntil: 'load' });
  const sum = { aria: 0, shot: 0, click: 0 };
  let snap = '';
  for (let i = 0; i < reps; i++) {
    let d;
    // A change first (untimed, on both sides): wright would otherwise
    // answer an unchanged page from its last snapshot.
    await page.evaluate(i => { document.body.dataset.perf = String(i); }, i);
    [d, snap] = await timed(() => page.ariaSnapshot({ mode: 'ai' }));
    sum.aria += d;
    [d] = await timed(() => page.screenshot());
    sum.shot += d;
    if (selector) {
      [d] = await timed(() => page.locator(selector).first().click());
      sum.click += d;
    }
  }
  const row = { side: 'playwright', url, snapshot: snap };
  for (const k of Object.keys(sum)) row[k + '_ms'] = sum[k] / reps;
  console.log(JSON.stringify(row));
}
await browser.close();
