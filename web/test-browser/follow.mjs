// follow.mjs — a `memlens serve LOGDIR` page beside a training run, in
// headless Chromium.
//
//   node web/test-browser/follow.mjs URL NEW_TRACE LOGDIR SHOT_DIR [REPORT [ONE...]]
//
// LOGDIR holds run_a (two spans) and run_b: the page shows a run picker
// beside the rank picker, the rank picker shows the chosen run's ranks with
// their span, and the notice says the folder is followed.  Then this script
// writes NEW_TRACE into LOGDIR/run_c (a new run, written while the page is
// open): it appears in the run picker without a reload, the notice counts it,
// and choosing it opens its rank.  REPORT (`memlens report LOGDIR -o` of the
// same two runs): its page has the run picker too.  ONE: reports of a single
// run (a trace, a logdir of one run): no run picker shown.  Prints "ok NAME" or "FAIL NAME: why"
// (tests/cli_serve_follow_browser.sh counts them); screenshots into SHOT_DIR.
import { checks, launch, ok } from "./lib.mjs";
import path from "node:path";
import fs from "node:fs";

const [url, newTrace, logdir, shots = "build/screenshots/follow", report, ...single] = process.argv.slice(2);
fs.mkdirSync(shots, { recursive: true });

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 60000 });
  const err = await page.evaluate(() => window.__memlens.error || "");
  ok("page starts without errors", !err && errors.length === 0, err || errors.join("; "));
  const runs = () => page.$$eval("#sel-run option", (os) => os.map((o) => o.value));
  const shownRanks = () => page.$$eval("#sel-rank option", (os) => os.filter((o) => !o.hidden).map((o) => o.textContent));
  ok("a run picker beside the rank picker", await page.isVisible("#sel-run") && JSON.stringify(await runs()) === '["run_a","run_b"]',
    JSON.stringify(await runs()));
  const note = () => page.textContent("#follow-note");
  ok("the notice says the folder is followed", (await note()).startsWith("following the served folder (inotify)"), await note());
  await page.selectOption("#sel-run", "run_a");
  await page.waitForFunction(() => window.__memlens.app.tabs.rank === 0, null, { timeout: 30000 });
  const a = await shownRanks();
  ok("run_a: its two spans in the rank picker", a.length === 2 && a[0].startsWith("span 1 · ") && a[1].startsWith("span 2 · "), JSON.stringify(a));
  await page.screenshot({ path: path.join(shots, "follow-logdir.png") });

  // a new run written while the page is open
  fs.mkdirSync(path.join(logdir, "run_c"));
  fs.copyFileSync(newTrace, path.join(logdir, "run_c", "host_5.1700000000900.pt.trace.json"));
  await page.waitForFunction(() => [...document.querySelectorAll("#sel-run option")].some((o) => o.value === "run_c"), null, { timeout: 30000 })
    .catch(() => {});
  ok("the new run appears without a reload", JSON.stringify(await runs()) === '["run_a","run_b","run_c"]', JSON.stringify(await runs()));
  ok("the notice counts it", (await note()).includes("1 new trace since this page opened"), await note());
  await page.selectOption("#sel-run", "run_c");
  await page.waitForFunction(() => window.__memlens.app.tabs.rank === 3, null, { timeout: 30000 }).catch(() => {});
  ok("choosing it opens its rank", await page.evaluate(() => window.__memlens.app.tabs.rank) === 3);
  // the picker is redrawn once the rank has opened (after tabs.rank is set): wait for it
  await page.waitForFunction(() => [...document.querySelectorAll("#sel-rank option")].filter((o) => !o.hidden).length === 1,
    null, { timeout: 15000 }).catch(() => {});
  const c = await shownRanks();
  ok("the rank picker shows run_c's rank only", c.length === 1 && c[0].includes("host_5.1700000000900"), JSON.stringify(c));
  await page.screenshot({ path: path.join(shots, "follow-new-run.png") });
  ok("no page errors", errors.length === 0, errors.join("; "));

  if (report) { // the report file of the logdir: the same pickers, from the ranks' run and span
    const rp = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await rp.goto("file://" + path.resolve(report));
    await rp.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 60000 });
    ok("report: a run picker", JSON.stringify(await rp.$$eval("#sel-run option", (os) => os.map((o) => o.value))) === '["run_a","run_b"]');
    ok("report: no follow notice", await rp.isHidden("#follow-note"));
    await rp.selectOption("#sel-run", "run_b");
    await rp.waitForFunction(() => window.__memlens.app.tabs.rank === 2, null, { timeout: 30000 }).catch(() => {});
    const b = await rp.$$eval("#sel-rank option", (os) => os.filter((o) => !o.hidden).map((o) => o.textContent));
    ok("report: run_b's rank shown when chosen", b.length === 1 && b[0].includes("host_9.1700000000300"), JSON.stringify(b));
    await rp.screenshot({ path: path.join(shots, "follow-report.png") });
  }
  for (const one of single) { // one run: the picker would hold one choice, or none (it once showed empty)
    const sp = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await sp.goto("file://" + path.resolve(one));
    await sp.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 60000 });
    const name = path.basename(one);
    ok(`${name}: no run picker`, await sp.isHidden("#lab-run"), `${await sp.$$eval("#sel-run option", (os) => os.length)} options`);
    ok(`${name}: the rank picker shown`, await sp.isVisible("#sel-rank"));
    await sp.screenshot({ path: path.join(shots, `follow-${name}.png`) });
  }
} catch (e) {
  checks.failed++;
  console.log("FAIL " + String(e).split("\n")[0]);
} finally {
  await browser.close();
}
process.exit(checks.failed ? 1 : 0);
