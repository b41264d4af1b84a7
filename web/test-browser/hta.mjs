// hta.mjs — the panels and the overlay of HolisticTraceAnalysis's analyses
// in headless Chromium (tests/cli_hta_browser.sh).
//
//   node web/test-browser/hta.mjs REPORT.html|URL SHOT_DIR MODE [light|dark] [EXPECT]
//
// MODE "critpath": the Trace view's "Critical path" button draws the path
// (pixels of its colours appear on the canvas, a legend and the step's
// figures show; off again, they go) and the Kernels view lists the frequent
// kernel sequences, whose "first call" link opens the Trace view.  EXPECT:
// the first sequence's "count|operator".
// MODE "cupti": a trace recorded in CUPTI profiler mode: the kernel table
// says why it is empty, the counters table has a row per kernel (EXPECT: the
// number of rows and the largest FLOPs, "n|text"), and sorts by FLOPs.
// MODE "stragglers": the Distributed view names the stragglers (EXPECT:
// "rank 1, rank 2|bars|late bars").
// Prints "ok NAME" / "FAIL NAME: why"; screenshots into SHOT_DIR.
import { eachPage, ok, settle, track } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

await eachPage(async (browser, [file, shots = "build/screenshots/hta", mode = "critpath", scheme = "light", expect = ""]) => {
  fs.mkdirSync(shots, { recursive: true });
  const served = /^http:\/\//.test(file);

  const errors = [];
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 }, colorScheme: scheme });
  await track(page.context()); // settle(page): done when its fetches, short timers and frames are
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(served ? file : pathToFileURL(path.resolve(file)).href, { timeout: 90000 });
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 30000 });
  const err = await page.evaluate(() => window.__memlens.error || "");
  ok("page starts without errors", !err && errors.length === 0, err || errors.join("; "));
  if (err) throw new Error(err);
  const go = async (view) => {
    await page.evaluate((v) => window.__memlens.app.tabs.go(v), view);
    await page.waitForFunction((v) => window.__memlens.app.tabs.current === v, view, { timeout: 5000 }).catch(() => {});
  };
  const shot = (name, full = false) => page.screenshot({ path: path.join(shots, `${mode}-${name}-${scheme}.png`), fullPage: full });

  if (mode === "critpath") {
    await go("trace");
    await page.waitForSelector(".tr-cp:not([hidden])", { timeout: 20000 }).catch(() => {});
    ok("the Trace view offers the critical path", await page.$eval(".tr-cp", (b) => !b.hidden).catch(() => false));
    // pixels of the overlay's colours (drawn opaque): CPU, GPU compute, launch delay
    const count = () => page.evaluate(() => {
      const c = document.querySelector(".tr-canvas"), x = c.getContext("2d"), d = x.getImageData(0, 0, c.width, c.height).data;
      const cols = [[0, 114, 178], [0, 158, 115], [230, 159, 0]];
      let n = 0;
      for (let i = 0; i < d.length; i += 4) for (const [r, g, b] of cols) if (d[i] === r && d[i + 1] === g && d[i + 2] === b) { n++; break; }
      return n;
    });
    await settle(page);
    const before = await count();
    await page.click(".tr-cp");
    await settle(page);
    const after = await count();
    ok("the path is drawn over the slices", after > before + 200, `${before} -> ${after} overlay pixels`);
    const note = await page.$eval(".tr-cpnote", (e) => (e.hidden ? "" : e.textContent));
    ok("its legend and the step's figures show", /CPU/.test(note) && /critical path \S+/.test(note) && /GPU compute/.test(note), note.slice(0, 200));
    ok("the button says it is on", (await page.$eval(".tr-cp", (b) => b.getAttribute("aria-pressed"))) === "true");
    await shot("trace");
    // zoomed in, the path still draws (legs are cut to the window, not dropped)
    await page.evaluate(() => { const v = window.__memlens.app.traceHandle.view; v.setWindow(v.lo + (v.hi - v.lo) * 0.9, v.hi); });
    await settle(page);
    await shot("trace-zoom");
    await page.click(".tr-cp");
    await settle(page);
    ok("off again, the legend goes", await page.$eval(".tr-cpnote", (e) => e.hidden));
    await go("kernels");
    await page.waitForSelector(".hk-seqs", { timeout: 10000 }).catch(() => {});
    const rows = await page.$$eval(".hk-seqs tbody tr", (rs) => rs.map((r) => r.querySelector("td").textContent.trim() + "|" + r.querySelector("td b").textContent.trim()));
    ok("the Kernels view lists the frequent sequences", rows.length >= 1 && rows.length <= 5, rows.join(", "));
    if (expect) ok("the most frequent one", rows[0] === expect, `${rows[0]} (expected ${expect})`);
    await shot("kernels", true);
    const link = await page.$(".hk-seqs a.hk-call");
    if (link) {
      await link.click();
      await page.waitForFunction(() => window.__memlens.app.tabs.current === "trace", null, { timeout: 5000 }).catch(() => {});
      ok("a sequence's first call opens the Trace view", (await page.evaluate(() => window.__memlens.app.tabs.current)) === "trace");
    } else ok("a sequence links to its first call", false);
  } else if (mode === "cupti") {
    await go("kernels");
    await page.waitForSelector(".hk-cupti", { timeout: 10000 }).catch(() => {});
    const empty = await page.$eval("#v-kernels .pv-main .pt-empty", (e) => e.textContent).catch(() => "");
    ok("the kernel table says why it has no times", /CUPTI profiler mode/.test(empty), empty);
    const [n, top] = expect.split("|");
    const head = await page.$eval(".hk-cupti h2 + span", (e) => e.textContent).catch(() => "");
    ok("the counters panel counts the kernels", head.startsWith(`${n} kernels measured`), head);
    // sort by FLOPs (twice: descending), the largest first
    const hdr = await page.$$(".hk-cupti th");
    let flopsTh = null;
    for (const th of hdr) if ((await th.textContent()).trim().startsWith("FLOPs")) flopsTh = th;
    ok("the table has a FLOPs column", !!flopsTh);
    if (flopsTh) {
      await flopsTh.click();
      await settle(page);
      let first = await page.$eval(".hk-cupti tbody tr td:nth-child(5)", (e) => e.textContent.trim()).catch(() => "");
      if (first !== top) { await flopsTh.click(); await settle(page); first = await page.$eval(".hk-cupti tbody tr td:nth-child(5)", (e) => e.textContent.trim()).catch(() => ""); }
      ok("sorted by FLOPs, the largest comes first", first === top, `${first} (expected ${top})`);
    }
    await shot("kernels", true);
  } else if (mode === "stragglers") {
    await go("distributed");
    await page.waitForSelector(".sg-panel", { timeout: 10000 }).catch(() => {});
    const [named, bars, late] = expect.split("|");
    const text = await page.$eval(".sg-named", (e) => e.textContent).catch(() => "");
    ok("the Distributed view names the stragglers", text.includes(`Potential stragglers: ${named}`), text);
    ok("a bar per rank and step", (await page.$$(".sg-panel .sg-bar")).length === +bars);
    ok("the latest ones marked", (await page.$$(".sg-panel .sg-bar.late")).length === +late);
    await shot("distributed", true);
  }
  ok("no errors while using the page", errors.length === 0, errors.join("; "));
});
