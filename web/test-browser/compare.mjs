// compare.mjs — drives the Compare view (key 8) of memlens pages in headless
// Chromium, one browser for them all (a page each, one after the other).
//
//   node web/test-browser/compare.mjs SHOT_ROOT PAGE...
//   PAGE: NAME|MODE|SCHEME|EXPECT|REPORT.html-or-URL
//
// MODE "trace": two traces with memory and time; "time": two traces without
// memory events; "snapshot": two allocator snapshots; "ascend": two Ascend
// exports.  SCHEME: light or dark.  EXPECT (may be empty): `memlens diff
// --json` of the same runs, whose figures the page must show.  A URL is a
// served page: it opens #view=compare and compares its first two runs
// (/api/compare).  Prints "ok NAME SCHEME: CHECK" / "FAIL NAME SCHEME: CHECK:
// why"; a screenshot of the whole view goes to
// SHOT_ROOT/compare-NAME/compare-SCHEME.png.
import { checks, launch, ok as okLine } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

const [shotRoot = "build/screenshots", ...pages] = process.argv.slice(2);

// checkPage: every check of one page, in a context of its own (its colour
// scheme, no storage left by the page before).
async function checkPage(browser, arg) {
  const [name, mode, scheme, expectFile, ...rest] = arg.split("|");
  const file = rest.join("|");
  const ok = (what, cond, why) => okLine(`${name} ${scheme}: ${what}`, cond, why);
  const shots = path.join(shotRoot, "compare-" + name);
  fs.mkdirSync(shots, { recursive: true });
  const served = /^http:\/\//.test(file);
  const expect = expectFile ? JSON.parse(fs.readFileSync(expectFile, "utf8")).pairs[0] : null;
  const errors = [];
  const context = await browser.newContext({ viewport: { width: 1500, height: 1000 }, colorScheme: scheme });
  try {
    const page = await context.newPage();
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    const url = served ? file + "#view=compare" : pathToFileURL(path.resolve(file)).href;
    await page.goto(url, { timeout: 90000 });
    await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 60000 });
    const err = await page.evaluate(() => window.__memlens.error || "");
    ok("page starts without errors", !err && errors.length === 0, err || errors.join("; "));
    if (err) throw new Error(err);
    const current = () => page.evaluate(() => window.__memlens.app.tabs.current);
    // until(FN, ARG): waits (10 s at most) for the state an action sets, not a
    // fixed time; the check after it says what came of it
    const until = (fn, arg) => page.waitForFunction(fn, arg, { timeout: 10000 }).catch(() => {});
    await page.waitForFunction(() => { const v = window.__memlens.app.views.compare; return v.pair || document.querySelector("#v-compare .pv-why"); }, null, { timeout: 60000 });
    ok("the page opens on Compare", (await current()) === "compare", await current());
    ok("key 8 is Compare", await page.$eval("#tab-compare .k", (e) => e.textContent) === "8");
    const head = await page.textContent("#v-compare .cmp-head");
    ok("the header names both runs", /base/.test(head) && /new/.test(head) && /vs/.test(head), head.slice(0, 200));
    if (!served) {
      const opts = await page.$$eval("#sel-rank option", (os) => os.map((o) => o.textContent));
      ok("the rank switcher names each run base or new", opts.length >= 2 && /^base /.test(opts[0]) && /^new /.test(opts[1]), JSON.stringify(opts));
    }

    // memory
    const memText = await page.textContent("#v-compare .cmp-mem");
    if (mode === "time") ok("no memory in common: the panel says why", /Not compared/.test(memText), memText.slice(0, 200));
    else {
      await page.waitForFunction(() => document.querySelectorAll("#v-compare .cmp-chart canvas").length > 0 && document.querySelector("#v-compare .cmp-fig"), null, { timeout: 20000 });
      const series = await page.evaluate(() => window.__memlens.app.views.compare.u.series.map((s) => s.label));
      ok("the chart has both runs' curves", series.some((s) => /^base/.test(s)) && series.some((s) => /^new/.test(s)), series.join(", "));
      // the chart is made empty and filled when the curves come (served: an /api/curve each)
      await until(() => { const u = window.__memlens.app.views.compare.u; return u.data.length >= 3 && u.data.slice(1).every((d) => d && d.some((v) => v != null)); });
      const drawn = await page.evaluate(() => { const u = window.__memlens.app.views.compare.u; return u.data.slice(1).map((d) => (d || []).filter((v) => v != null).length); });
      ok("both curves hold points", drawn.length >= 2 && drawn.every((n) => n > 0), JSON.stringify(drawn));
      const figs = await page.$$eval("#v-compare .cmp-mem table.cmp-fig tbody tr", (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
      if (expect) {
        const dd = expect.devices[0];
        const peak = figs.find((r) => r[0] === "peak allocated");
        ok("the peak row shows both runs", peak && peak.length === 5 && peak[1] !== "–" && peak[2] !== "–", JSON.stringify(peak));
        const bytes = await page.evaluate(() => window.__memlens.app.views.compare.pair.diff.devices[0].peak_allocated_bytes);
        ok("the page's figures are memlens diff --json's", bytes.base === dd.peak_allocated_bytes.base && bytes.new === dd.peak_allocated_bytes.new,
          JSON.stringify([bytes, dd.peak_allocated_bytes]));
      }
      // the two peaks are marked (label text drawn in the canvas is not in the DOM: check the marks' positions)
      const peaks = await page.evaluate(() => window.__memlens.app.views.compare.peaks);
      ok("both peaks are known to the chart", peaks.filter(Boolean).length === 2, JSON.stringify(peaks));
      // align at each trace's start, then back; zoom by dragging
      const aligns = await page.$$eval("#v-compare .cmp-align option", (os) => os.map((o) => o.value));
      await page.selectOption("#v-compare .cmp-align", "-1");
      await until(() => window.__memlens.app.views.compare.align === -1);
      const off = await page.evaluate(() => { const v = window.__memlens.app.views.compare; return [v.side(0).off, v.side(1).off]; });
      ok("aligning at the traces' start uses each device's first time", off.every((x) => Number.isFinite(x)), JSON.stringify(off));
      if (aligns.includes("1")) {
        await page.selectOption("#v-compare .cmp-align", "1");
        await until(() => window.__memlens.app.views.compare.align === 1);
        ok("aligning at step 2 moves the runs", await page.evaluate(() => { const v = window.__memlens.app.views.compare; return v.align === 1; }));
      }
      const box = await page.$eval("#v-compare .cmp-chart .u-over", (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; });
      await page.mouse.move(box[0] + box[2] * 0.3, box[1] + box[3] / 2);
      await page.mouse.down();
      await page.mouse.move(box[0] + box[2] * 0.6, box[1] + box[3] / 2, { steps: 5 });
      await page.mouse.up();
      await until(() => window.__memlens.app.views.compare.window !== null);
      const win = await page.evaluate(() => window.__memlens.app.views.compare.window);
      ok("dragging zooms the chart", Array.isArray(win) && win[1] > win[0], JSON.stringify(win));
      await page.dblclick("#v-compare .cmp-chart .u-over");
      await until(() => window.__memlens.app.views.compare.window === null);
      ok("a double-click resets the zoom", (await page.evaluate(() => window.__memlens.app.views.compare.window)) === null);
    }

    // step time
    const timeText = await page.textContent("#v-compare .cmp-time");
    if (mode === "trace" || mode === "time") {
      ok("the step breakdowns side by side", /step time/.test(timeText) && (await page.$$("#v-compare .cmp-barrow svg")).length === 2, timeText.slice(0, 200));
      if (expect) {
        const avg = await page.$eval("#v-compare .cmp-time tr.cmp-total", (tr) => [...tr.cells].map((c) => c.textContent));
        ok("the average step time row", avg[0] === "step time" && avg[1] !== "–" && avg[2] !== "–", JSON.stringify(avg));
      }
    } else ok("no time side: the panel says why", /Not compared/.test(timeText), timeText.slice(0, 200));

    // the delta tables
    const tabs = await page.$$eval("#v-compare .cmp-tabs button", (bs) => bs.map((b) => b.dataset.t));
    const want = { trace: ["groups", "ops"], time: ["ops"], snapshot: ["groups", "segments", "settings"], ascend: ["groups"] }[mode];
    ok("the delta tables the runs have", want.every((t) => tabs.includes(t)), tabs.join(","));
    for (const t of tabs) {
      await page.click(`#v-compare .cmp-tabs button[data-t="${t}"]`);
      await until((t) => window.__memlens.app.views.compare.tab === t, t);
      const n = await page.evaluate(() => window.__memlens.app.views.compare.table.rows.length);
      const shown = await page.$$eval("#v-compare .cmp-table tbody tr[data-r]", (trs) => trs.length);
      const empty = await page.$eval("#v-compare .cmp-table .pt-empty", (e) => (e.hidden ? "" : e.textContent));
      ok(`table ${t}: rows or an empty state`, (n > 0 && shown > 0) || (n === 0 && empty.length > 10), `${n} rows, ${shown} shown, “${empty}”`);
      if (expect && t === "ops") ok("table ops: every row of --json", n === expect.operators.length, `${n} vs ${expect.operators.length}`);
      if (expect && t === "groups") ok("table groups: every group of --json", n === expect.devices[0].groups.length, `${n} vs ${expect.devices[0].groups.length}`);
      if (n > 1) {
        // sort by a numeric header, both ways
        const th = await page.$$("#v-compare .cmp-table thead th.n");
        await th[0].click();
        const a = await page.evaluate(() => { const t = window.__memlens.app.views.compare.table; return [t.sort, t.dir]; });
        ok(`table ${t}: a header sorts`, a[0] != null, JSON.stringify(a));
        // CSV of the rows shown
        const csv = await page.evaluate(() => window.__memlens.app.views.compare.table.exportText("csv"));
        ok(`table ${t}: CSV holds every row`, csv.trim().split("\n").length === n + 1, `${csv.trim().split("\n").length} lines for ${n} rows`);
        // the search filters as you type
        const name = await page.evaluate(() => { const t = window.__memlens.app.views.compare.table; const r = t.rows[0]; return String(r.name || r.group || r.address || r.key); });
        await page.fill("#v-compare .cmp-search", name.slice(0, 12));
        await until((s) => window.__memlens.app.views.compare.table.text === s, name.slice(0, 12));
        const m = await page.evaluate(() => window.__memlens.app.views.compare.table.idx.length);
        ok(`table ${t}: the search filters`, m >= 1 && m <= n, `${m} of ${n} for “${name.slice(0, 12)}”`);
        await page.fill("#v-compare .cmp-search", "");
        await until(() => window.__memlens.app.views.compare.table.text === "");
        ok(`table ${t}: clearing the search shows every row`, (await page.evaluate(() => window.__memlens.app.views.compare.table.idx.length)) === n);
      }
    }

    // the operator tree
    const treeText = await page.textContent("#v-compare .cmp-tree");
    if (mode === "trace" || mode === "time") {
      const rows = await page.$$eval("#v-compare .cmp-treetab tbody tr[data-p]", (trs) => trs.length);
      ok("the tree diff shows the top-level pairs", rows > 0 || /no step, module/.test(treeText), `${rows} rows`);
      if (rows > 0) {
        await page.click("#v-compare .cmp-treetab tbody tr[data-p] td.name");
        await until(() => !document.querySelector("#v-compare .cmp-detail").hidden);
        const det = await page.$eval("#v-compare .cmp-detail", (e) => !e.hidden);
        ok("a node opens its detail (its operators)", det && (await page.$$("#v-compare .cmp-nodeops")).length === 1);
        ok("the address keeps the node", new URL(page.url()).hash.includes("sel="), page.url());
        await page.keyboard.press("Escape");
        await until(() => document.querySelector("#v-compare .cmp-detail").hidden);
        ok("Esc closes it", await page.$eval("#v-compare .cmp-detail", (e) => e.hidden));
        const expandable = await page.$$("#v-compare .cmp-treetab .cmp-tog:not(.none)");
        if (expandable.length) {
          const before = rows;
          await expandable[0].click();
          await until((n) => document.querySelectorAll("#v-compare .cmp-treetab tbody tr[data-p]").length > n, before);
          const after = await page.$$eval("#v-compare .cmp-treetab tbody tr[data-p]", (trs) => trs.length);
          ok("a node expands to its children", after > before, `${before} -> ${after}`);
        }
      }
    } else ok("no time side: the tree says why", /Not compared/.test(treeText), treeText.slice(0, 200));

    // another view, then key 8 back (out of any field first: there the keys type)
    await page.evaluate(() => document.activeElement && document.activeElement.blur && document.activeElement.blur());
    await page.keyboard.press("5");
    await page.waitForFunction(() => window.__memlens.app.tabs.current === "memory", null, { timeout: 5000 }).catch(() => {});
    await page.keyboard.press("8");
    await page.waitForFunction(() => window.__memlens.app.tabs.current === "compare", null, { timeout: 5000 }).catch(() => {});
    ok("key 8 comes back to Compare", (await current()) === "compare", await current());
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shots, `compare-${scheme}.png`), fullPage: true });
    if (served && expect) {
      // "compare with…": the second run as the base, the first compared with it (/api/compare?base=1&new=0)
      await page.selectOption("#v-compare .cmp-base", "1");
      await page.selectOption("#v-compare .cmp-new", "0");
      await until(() => { const p = window.__memlens.app.views.compare.pair; return p && p.base_rank === 1 && p.new_rank === 0; });
      const sw = await page.evaluate(() => { const p = window.__memlens.app.views.compare.pair; return [p.base_rank, p.new_rank, p.diff.devices[0].peak_allocated_bytes]; });
      const want = expect.devices[0].peak_allocated_bytes;
      ok("compare with…: the runs swapped, their peaks too", sw[0] === 1 && sw[1] === 0 && sw[2].base === want.new && sw[2].new === want.base && sw[2].delta === -want.delta,
        JSON.stringify([sw, want]));
      await until(() => { const u = window.__memlens.app.views.compare.u; return u && document.querySelector("#v-compare .cmp-chart canvas") && u.data.slice(1).every((d) => d.some((v) => v != null)); });
      const drawn = await page.evaluate(() => { const v = window.__memlens.app.views.compare, u = v.u; return [!!document.querySelector("#v-compare .cmp-chart canvas"), u ? u.data.slice(1).map((d) => d.filter((x) => x != null).length) : null, v.peaks]; });
      ok("compare with…: both curves drawn again, both peaks marked", drawn[0] && drawn[1] && drawn[1].length >= 2 && drawn[1].every((n) => n > 0) && drawn[2].filter(Boolean).length === 2, JSON.stringify(drawn));
      const head = await page.textContent("#v-compare .cmp-head");
      ok("compare with…: the header names g2 the base", /base\s*g2\.json/.test(head) && /new\s*g1\.json/.test(head), head.slice(0, 200));
      await page.screenshot({ path: path.join(shots, `compare-with-${scheme}.png`), fullPage: true });
    }
    ok("no errors while using the page", errors.length === 0, errors.join("; "));
  } catch (e) {
    ok("the script ran to its end", false, String(e && e.stack || e));
  }
  await context.close();
}

const t0 = Date.now();
const browser = await launch();
console.log(`# chromium started in ${Date.now() - t0} ms`);
for (const arg of pages) {
  const t = Date.now();
  await checkPage(browser, arg);
  console.log(`# ${arg.split("|").slice(0, 3).join(" ")}: ${Date.now() - t} ms`);
}
await browser.close();
process.exit(checks.failed ? 1 : 0);
