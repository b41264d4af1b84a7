// hostile.mjs — what a page shows of a hostile trace (tests/cli_hostile_browser.sh):
// the Overview lists the notes of what the analyses adjusted (steps dropped,
// ranges cut), the Operators table lists the top rows and says what the rest
// add up to, and a served page lists more on request.
//
//   node web/test-browser/hostile.mjs REPORT.html|URL SHOT_DIR NOTE ROWS SHOWN
//
// NOTE: a note the Overview must show; ROWS: the operators in the trace;
// SHOWN: the rows the table lists at first.  Prints "ok NAME" / "FAIL NAME: why".
import { eachPage, ok } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

await eachPage(async (browser, [file, shots, note, rowsText, shownText]) => {
  const rows = +rowsText, shown = +shownText;
  fs.mkdirSync(shots, { recursive: true });
  const served = /^http:\/\//.test(file);
  const errors = [];
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(served ? file : pathToFileURL(path.resolve(file)).href, { timeout: 90000 });
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 30000 });
  ok("page starts", !(await page.evaluate(() => window.__memlens.error || "")) && !errors.length, errors.join("; "));
  const notes = await page.$eval("#v-overview", (e) => (e.querySelector("#ov-notes") || {}).textContent || "");
  ok("the Overview shows the analyses' notes", notes.includes(note), notes.slice(0, 300));
  await page.screenshot({ path: path.join(shots, "overview.png") });
  await page.keyboard.press("2");
  await page.waitForFunction(() => window.__memlens.app.tabs.current === "operators", null, { timeout: 5000 });
  const state = () => page.$eval("#v-operators", (e) => ({
    others: e.querySelector(".pv-others").hidden ? "" : e.querySelector(".pv-others").textContent,
    count: e.querySelector(".pv-count").textContent,
  }));
  let s = await state();
  const fmt = (n) => n.toLocaleString("en-US");
  ok("the table lists the top rows", s.count === `${fmt(shown)} rows`, s.count);
  ok("and says what the rest add up to", s.others.startsWith(`The top ${fmt(shown)} of ${fmt(rows)} rows are listed; the other ${fmt(rows - shown)} add up to ${fmt(rows - shown)} calls`), s.others);
  await page.screenshot({ path: path.join(shots, "operators.png") });
  if (served) {
    await page.click("#v-operators .pv-more");
    await page.waitForFunction((n) => document.querySelector("#v-operators .pv-count").textContent === `${n.toLocaleString("en-US")} rows`, rows, { timeout: 10000 }).catch(() => {});
    s = await state();
    ok("served: more rows on request, all of them here", s.count === `${fmt(rows)} rows` && !s.others, JSON.stringify(s));
    await page.screenshot({ path: path.join(shots, "operators-more.png") });
  } else {
    ok("a report says how to list more", s.others.includes("memlens report --top N"), s.others);
  }
  ok("no errors while using the page", errors.length === 0, errors.join("; "));
});
