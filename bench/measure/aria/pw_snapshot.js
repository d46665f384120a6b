// Takes Playwright's ARIA snapshots of the pages named on stdin (a JSON
// list of URLs) with the Chromium at $ARIA_BENCH_CHROMIUM and prints a
// JSON object {url: {body, ai}}: body is locator('body').ariaSnapshot(),
// ai is page.ariaSnapshot({mode: 'ai'}) where this playwright-core has it.
// Run by run.sh from a directory where playwright-core is installed.
'use strict';

const { chromium } = require('playwright-core');

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin)
    chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function main() {
  const urls = JSON.parse(await readStdin());
  const executablePath = process.env.ARIA_BENCH_CHROMIUM;
  if (!executablePath)
    throw new Error('ARIA_BENCH_CHROMIUM is not set');
  const browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const out = {};
  try {
    const context = await browser.newContext();
    for (const url of urls) {
      const page = await context.newPage();
      await page.goto(url, { waitUntil: 'load' });
      const body = await page.locator('body').ariaSnapshot();
      let ai = null;
      try {
        ai = await page.ariaSnapshot({ mode: 'ai' });
      } catch (e) {
        ai = null; // older playwright-core: no AI mode
      }
      out[url] = { body, ai };
      await page.close();
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch(e => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
