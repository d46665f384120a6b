// The same five lines on Playwright's Node client (playwright-core from npm,
// PW_CORE), on the system Chromium (PW_CHROMIUM): never a downloaded browser.
const { chromium } = require(process.env.PW_CORE);

(async () => {
  const browser = await chromium.launch({ executablePath: process.env.PW_CHROMIUM });
  const page = await browser.newPage();
  await page.goto(process.argv[2]);
  console.log(await page.title());
  await browser.close();
})().catch((e) => { console.error(e); process.exit(1); });
