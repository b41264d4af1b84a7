// report.mjs — drives memlens HTML reports and served pages in headless Chromium.
//
//   node web/test-browser/report.mjs PAGE EXPECTED_PEAK_BYTES SHOT_DIR [light|dark]
//   node web/test-browser/report.mjs --pages LIST   (one browser, many pages: lib.mjs's eachPage)
//
// PAGE: a report file or a `memlens serve` URL (http://127.0.0.1:PORT/);
// EXPECTED_PEAK_BYTES may be empty.  Prints "ok NAME" or "FAIL NAME: why"
// per check (tests/cli_report_browser.sh counts them), saves screenshots
// into SHOT_DIR, and prints timing lines "time NAME MS" for the benchmark.
import { eachPage, ok, settle, newPage } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

await eachPage((browser, [file, expectPeak, shots = "build/screenshots", scheme = "light"]) => runPage(browser, file, expectPeak, shots, scheme));

async function runPage(browser, file, expectPeak, shots, scheme) {
  fs.mkdirSync(shots, { recursive: true });
  const page = await newPage(browser, { viewport: { width: 1500, height: 1000 }, colorScheme: scheme });
  const errors = page.errors;
  const served = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+\//.test(file);
  const origin = served ? new URL(file).origin : "";
  // A report makes no request at all; a served page only to its own server.
  page.on("request", (r) => { if (!/^(file|data|blob):/.test(r.url()) && !(served && r.url().startsWith(origin + "/"))) errors.push("network request: " + r.url()); });
  const t0 = Date.now();
  // (a loaded machine can take a while to serve the first page: more than the default 30 s)
  await page.goto(served ? file : pathToFileURL(path.resolve(file)).href, { timeout: 90000 });
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 30000 });
  const loadMs = Date.now() - t0;
  console.log("time interactive_ms " + loadMs);
  const err = await page.evaluate(() => window.__memlens.error || "");
  ok("page starts without errors", !err && errors.length === 0, err || errors.join("; "));
  if (err) throw new Error(err);

  // An input without memory data: the page says so, with the importer's notes, and is ready.
  // The memory views are the Memory tab (key 5); a trace with a time side opens on Overview.
  if (await page.evaluate(() => window.__memlens.app.tabs.current !== "memory")) {
    await page.keyboard.press("5");
    await page.waitForFunction(() => window.__memlens.app.tabs.current === "memory", null, { timeout: 10000 });
    await settle(page);
  }
  if (await page.evaluate(() => document.querySelector("main.grid").hidden)) {
    const text = await page.textContent("#mem-why");
    ok("an input without memory data shows no device picker (nothing to pick)", await page.isHidden("#lab-dev"), `${await page.$$eval("#sel-dev option", (os) => os.length)} options`);
    if (/memory profiling was on/.test(text)) // recorded with profile_memory on, nothing allocated: no advice to turn it on
    { // (and the Overview's peak card, key 1)
      ok("an input recorded with memory profiling on but no allocation says so, not to turn it on", /Nothing to show/.test(text) && !/Record the memory with/.test(text) && /recorded no allocations/.test(text), text);
      await page.keyboard.press("1");
      await page.waitForFunction(() => window.__memlens.app.tabs.current === "overview", null, { timeout: 10000 });
      await page.waitForSelector("#ov-peak", { timeout: 10000 });
      const card = await page.textContent("#ov-peak");
      ok("its Overview's peak card says memory profiling was on", /memory profiling was on/.test(card) && !/record with/.test(card), card);
    }
    else
      ok("an input without memory data says so, how to record it, with its notes", /Nothing to show/.test(text) && /profile_memory=True/.test(text) && (await page.$$("#mem-why .why")).length > 1, text);
    await page.screenshot({ path: path.join(shots, `report-${scheme}.png`), fullPage: true });
    ok("no errors while using the page", errors.length === 0, errors.join("; "));
    await page.context().close();
    return;
  }
  // The header states the device's name and capacity, or that they are unknown.
  const hdr = await page.textContent("#hdr-meta");
  ok("the header names the device's capacity (or says it is unknown)", /capacity (\d|unknown)/.test(hdr), hdr);
  ok("the page's title names the input", /^memlens — \S/.test(await page.title()), await page.title());

  // The peak label states the summary's exact peak.
  const peakBytes = (await page.textContent("#peak-bytes")).replace(/,/g, "");
  if (expectPeak) ok("peak label equals the summary's peak", peakBytes === expectPeak, `label ${peakBytes}, summary ${expectPeak}`);
  const peakText = await page.textContent("#peak-label");
  ok("peak label has value and wall-clock time", /GiB|MiB|KiB|B/.test(peakText) && /\d\d:\d\d:\d\d\.\d{6}/.test(peakText), peakText);
  await page.screenshot({ path: path.join(shots, `report-${scheme}.png`), fullPage: true });

  // Click on the curve (no drag): the live set at that time.
  {
    const over = await page.$("#curve .u-over");
    const b = await over.boundingBox();
    await page.mouse.click(b.x + b.width * 0.5, b.y + b.height / 2);
    await page.waitForFunction(() => document.getElementById("live-value"), null, { timeout: 10000 }).catch(() => {});
    const live = await page.evaluate(() => [document.getElementById("live-value")?.textContent || "", document.getElementById("live-time")?.textContent || "", document.querySelectorAll("#live-list .row").length]);
    ok("a click on the curve shows the live set at that time", /iB|\bB\b/.test(live[0]) && /\d\d:\d\d/.test(live[1]), JSON.stringify(live));
  }

  // The live set by category at the peak: the categories add up to the peak,
  // memory from before the trace as at the peak (src/analysis/beforetrace.h).
  {
    const lc = await page.evaluate(async () => {
      const app = window.__memlens.app, st = app.state;
      const pk = await app.source.getPeak(st.rank, st.dev);
      if (!pk) return null;
      const r = await app.source.getLiveAt(st.rank, st.dev, pk.t, "category");
      const row = (rows) => (rows.find((x) => x[0] === "(allocated before trace)") || [0, 0])[1];
      return { peak: pk.v, sum: r.rows.reduce((a, x) => a + x[1], 0), tracked: r.tracked, before: r.before,
        beforeRow: row(r.rows), peakBeforeRow: row(pk.by_category || []) };
    });
    // memory from before the trace has one name: "(allocated before trace)" here as at the peak
    if (lc && lc.tracked + lc.before === lc.peak)
      ok("live by category at the peak adds up to the peak, before-trace memory named as at the peak", lc.sum === lc.peak && lc.beforeRow === lc.peakBeforeRow, JSON.stringify(lc));
  }

  // Drag-zoom on the curve: the x range shrinks and the table follows.
  const xr = () => page.evaluate(() => { const u = window.__memlens.app.curve.u; return [u.scales.x.min, u.scales.x.max]; });
  const count = () => page.evaluate(() => document.getElementById("t-count").textContent);
  const before = await xr(), countBefore = await count();
  const over = await page.$("#curve .u-over");
  const box = await over.boundingBox();
  await page.mouse.move(box.x + box.width * 0.30, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.40, box.y + box.height / 2, { steps: 5 });
  await page.mouse.up();
  await settle(page);
  const after = await xr();
  ok("drag-zoom changes the x range", after[1] - after[0] < (before[1] - before[0]) * 0.2, JSON.stringify([before, after]));
  // (an input without addresses has no allocations: nothing to filter, click or stack)
  const hasAllocs = await page.evaluate(() => window.__memlens.app.allocs.total > 0);
  // the table follows the zoom once it settles (served: after the server answers; a loaded machine is slow)
  // (without allocations its count cannot change: no 5 s wait for that)
  if (hasAllocs) await page.waitForFunction((c) => document.getElementById("t-count").textContent !== c, countBefore, { timeout: 5000 }).catch(() => {});
  const countAfter = await count();
  if (hasAllocs) ok("zoom filters the allocations table", countAfter !== countBefore, `${countBefore} -> ${countAfter}`);
  const axis = await page.evaluate(() => window.__memlens.app.curve.u.axes.map((a) => (a.label || "") + ": " + (a._values || []).join(", ")).join(" | "));
  ok("axes are labelled with units", /\d\d:\d\d/.test(axis) && /iB/.test(axis) && /bytes/.test(axis), axis.slice(0, 300));

  // Group-by: every choice offered draws its curves (at most 16); choices the input lacks are disabled.
  {
    const opts = await page.$$eval("#sel-group option", (o) => o.map((x) => [x.value, x.disabled]));
    const has = await page.evaluate(() => { const d = window.__memlens.app.dev(); return { stream: d.curves.some((c) => c.group === "stream"), component: d.curves.some((c) => c.group === "component"), op: (d.op_curves || []).length > 0 }; });
    for (const [g, disabled] of opts) {
      if (g === "overall") continue;
      ok(`group-by ${g} offered only when the input has such curves`, disabled === !has[g], JSON.stringify({ g, disabled, has: has[g] }));
      if (disabled) continue;
      await page.selectOption("#sel-group", g);
      await settle(page);
      const n = await page.$$eval("#curve .u-legend .u-series", (l) => l.length - 1);
      ok(`group-by ${g} draws its curves`, n >= 1 && n <= 16 && errors.length === 0, `${n} curves; ${errors.join("; ")}`);
    }
    await page.selectOption("#sel-group", "overall");
    await settle(page);
  }

  // Panning past the start keeps the window's span (it is shifted, not cut).
  {
    const r = await page.evaluate(async () => {
      const app = window.__memlens.app, st = app.state, span = st.t1 - st.t0, d = app.dev();
      await app.setWindow(d.t0 - span / 2, d.t0 + span / 2);
      return [st.t0 - d.t0, st.t1 - st.t0, span];
    });
    ok("panning at the edge keeps the span", r[0] === 0 && Math.abs(r[1] - r[2]) < 1e-6 * r[2], JSON.stringify(r));
  }

  // Zoom redraw time, measured in the page.
  const redraw = await page.evaluate(async () => {
    const app = window.__memlens.app, d = app.dev(), times = [];
    for (let k = 0; k < 10; k++) {
      const span = (d.t1 - d.t0) / (2 + k), a = d.t0 + (d.t1 - d.t0 - span) * (k / 10);
      const t = performance.now();
      await app.setWindow(a, a + span);
      times.push(performance.now() - t);
    }
    times.sort((x, y) => x - y);
    return { median: times[5], max: times[9] };
  });
  console.log("time zoom_redraw_median_ms " + redraw.median.toFixed(1));
  console.log("time zoom_redraw_max_ms " + redraw.max.toFixed(1));

  // Zoom to the peak, click a bar: the detail panel shows its size and stack.
  await page.click("#btn-peak");
  await settle(page);
  await page.$eval("#p-timeline", (e) => e.scrollIntoView({ block: "center" })); // mouse events need it in the viewport
  const target = await page.evaluate(() => {
    // The largest bar whose centre shows that bar (not one drawn over it).
    const tl = window.__memlens.app.timeline, a = tl.allocs, L = tl.layout, v = tl.vis;
    const st = window.__memlens.app.state, x0 = tl.x0(), W = tl.W();
    if (!v) return null; // nothing drawn: no lifetimes (a trace without addresses)
    const bars = Array.from(v.bars).sort((p, q) => a.size[q] - a.size[p]);
    for (const i of bars) {
      const xa = Math.max(0, (a.ta[i] - st.t0) * v.k), xb = Math.min(W, (a.tf[i] - st.t0) * v.k);
      const ln = L.lanes[L.lane[i]];
      const x = x0 + (xa + xb) / 2, y = ln.y + L.row[i] * L.rowH + L.rowH / 2;
      if (tl.pick(x, y) !== i) continue;
      const r = tl.over.getBoundingClientRect();
      return { i, x: r.left + x, y: r.top + y, size: a.size[i] };
    }
    return null;
  });
  if (hasAllocs) ok("a bar is visible at the peak", !!target);
  if (target) {
    await page.mouse.click(target.x, target.y);
    await settle(page);
    const sel = await page.evaluate(() => window.__memlens.app.state.selected);
    const size = await page.textContent("#detail-size").catch(() => "");
    const stack = await page.textContent("#detail-stack").catch(() => "");
    const expect = await page.evaluate((i) => i >= 0 ? window.__memlens.app.allocs.size[i] : -1, sel);
    // binary units, the next unit from 1000 of one (1000 MiB is "0.98 GiB"), three digits
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let human = expect, k = 0;
    while (human >= 1000 && k < 4) { human /= 1024; k++; }
    const want = (k === 0 ? String(Math.round(human)) : human >= 99.95 ? human.toFixed(0) : human >= 9.995 ? human.toFixed(1) : human.toFixed(2)) + " " + units[k];
    ok("clicking a bar selects it", sel === target.i, "selected " + sel + ", bar " + target.i);
    ok("detail panel shows its size", size === want, size + " for " + expect + ", expected " + want);
    ok("detail panel shows its stack (or says none was recorded)", stack.length > 0, stack);
    await page.screenshot({ path: path.join(shots, `report-peak-${scheme}.png`), fullPage: true });
    // Layout with the detail open: no gap above the table, the table no wider than its panel.
    const lay = await page.evaluate(() => {
      const r = (s) => document.querySelector(s).getBoundingClientRect(), w = document.querySelector(".table-wrap");
      return { gap: r("#p-tables").top - r(".left").bottom, over: w.scrollWidth - w.clientWidth };
    });
    ok("no gap above the table with the detail panel open", lay.gap >= 0 && lay.gap <= 16, JSON.stringify(lay));
    ok("the table fits its panel", lay.over <= 1, JSON.stringify(lay));
  }

  // The category chart (zoomed to the peak): the stack's total at the peak is the peak.
  const cat = await page.evaluate(() => {
    const app = window.__memlens.app, pk = app.dev().peak, panel = document.getElementById("p-categories");
    return { shown: !panel.hidden, has: (app.dev().category_curves || []).length, total: app.cats.data ? app.cats.totalAt(pk.t) : null,
      peak: pk ? pk.v : null, kind: pk ? pk.kind : "", label: document.getElementById("cat-peak-total")?.textContent || "", served: !!app.source.windowed };
  });
  if (cat.has) {
    ok("the category chart is shown", cat.shown);
    // the bands add up to the allocated curve: the memory from before the trace is its own, time-varying band
    if (cat.kind === "allocated") ok("the category chart's total at the peak equals the peak", cat.total === cat.peak, JSON.stringify(cat));
    ok("the category chart states its total at the peak", cat.label.length > 0, cat.label);
  }

  // The allocations table filtered by a category: fewer rows, all of it.
  // (A trace without addresses has categories but no allocations table.)
  const table = await page.isVisible("#f-win");
  if (cat.has && table) {
    await page.uncheck("#f-win");
    await settle(page);
    const all = await page.evaluate(() => window.__memlens.app.tables.last.total);
    const opts = await page.$$eval("#f-cat option", (o) => o.map((x) => [x.value, x.textContent]).filter((x) => x[0] !== ""));
    let narrowed = false, why = "", nonEmpty = 0;
    for (const [v, name] of opts) {
      await page.selectOption("#f-cat", v);
      await settle(page);
      const r = await page.evaluate(() => ({ total: window.__memlens.app.tables.last.total,
        cats: [...document.querySelectorAll("#table tbody td.cat")].map((td) => td.textContent) }));
      why += `${name}: ${r.total} of ${all}; `;
      if (r.total > 0) nonEmpty++;
      if (r.total > 0 && r.total < all && r.cats.every((c) => c === name)) { narrowed = true; break; }
    }
    // (when allocations of more than one category exist)
    if (narrowed || nonEmpty > 1) ok("filtering by a category narrows the table to it", narrowed, why);
    else console.log("note category filter: one category only: " + why);
    await page.selectOption("#f-cat", "");
    await page.check("#f-win");
    await settle(page);
  }

  // A size filter that is not a size marks its field, and filters nothing.
  if (table) {
    await page.fill("#f-min", "garbage");
    await settle(page);
    const bad = await page.evaluate(() => [document.getElementById("f-min").classList.contains("invalid"), window.__memlens.app.tables.q.minSize]);
    ok("an unparsable size filter is marked invalid", bad[0] && bad[1] === null, JSON.stringify(bad));
    await page.fill("#f-min", "1 KiB");
    await settle(page);
    ok("a size filter clears the mark", !(await page.evaluate(() => document.getElementById("f-min").classList.contains("invalid"))));
    await page.fill("#f-min", "");
    await settle(page);
  }

  // The exports hold every row the filter keeps (not the page): the same text
  // for the report and the server (tests/cli_report_browser.sh compares them).
  if (table) {
    await page.uncheck("#f-win");
    await settle(page);
    const e = await page.evaluate(async () => ({ csv: await window.__memlens.app.tables.exportText("csv"), total: window.__memlens.app.tables.last.total }));
    ok("the CSV export holds every filtered row", e.csv.split("\n").length === e.total + 2, `${e.csv.split("\n").length - 2} rows, table ${e.total}`);
    fs.writeFileSync(path.join(shots, "export.csv"), e.csv);
    await page.check("#f-win");
    await settle(page);
  }

  // Stacked mode draws, its outline at the peak is the peak (the memory
  // allocated before the trace is the base band).
  await page.click('#seg-mode button[data-mode="stacked"]');
  await settle(page);
  const note = await page.textContent("#tl-note");
  if (hasAllocs) ok("stacked mode draws bands", /bands/.test(note) && (await page.evaluate(() => window.__memlens.app.timeline.stack.drawn)) > 0, note);
  const stk = await page.evaluate(() => {
    const app = window.__memlens.app, st = app.state, s = app.timeline.stack, pk = app.dev().peak, W = app.timeline.W();
    if (!s || !pk || pk.kind !== "allocated") return null;
    const x = Math.min(W - 1, Math.floor(((pk.t - st.t0) / (st.t1 - st.t0)) * W));
    return { x, outline: s.outline[x], max: Math.max(...s.outline), peak: pk.v, base: s.base ? s.base[x] : 0, rest: s.rest[x],
      live: s.total[x], summarised: app.allocs.summarised, windowed: !!app.source.windowed };
  });
  if (stk) {
    ok("stacked outline at the peak equals the peak", stk.outline === stk.peak && stk.max === stk.peak, JSON.stringify(stk));
    if (!stk.windowed && !stk.summarised)
      ok("stacked: before-trace base + live allocations = the peak", stk.base + stk.live === stk.peak && stk.rest === 0, JSON.stringify(stk));
  }
  await page.screenshot({ path: path.join(shots, `report-stacked-${scheme}.png`), fullPage: true });

  // Colour by category: bars take the category colours, with a legend.
  await page.click('#seg-colour button[data-colour="category"]');
  await settle(page);
  const legend = await page.$$eval("#tl-legend .lg", (l) => l.map((x) => x.textContent));
  if (cat.has && hasAllocs) ok("colour by category shows the category legend", legend.length >= 1 && !/\(allocated before trace\)/.test(legend[0]), legend.join(", "));
  await page.screenshot({ path: path.join(shots, `report-categories-${scheme}.png`), fullPage: true });
  await page.click('#seg-mode button[data-mode="lanes"]');
  await settle(page);
  await page.screenshot({ path: path.join(shots, `report-lanes-category-${scheme}.png`), fullPage: true });

  // Switch device (and rank when there are several).
  const devs = await page.$$eval("#sel-dev option", (o) => o.map((x) => x.value));
  if (devs.length > 1) {
    const cur = await page.$eval("#sel-dev", (s) => s.value);
    const other = devs.find((v) => v !== cur);
    await page.selectOption("#sel-dev", other);
    await settle(page);
    const st = await page.evaluate(() => [window.__memlens.app.state.dev, document.getElementById("peak-label").textContent]);
    ok("switching device shows the other device", String(st[0]) === other && st[1].length > 0, JSON.stringify(st));
  }
  const ranks = await page.$$eval("#sel-rank option", (o) => o.map((x) => x.value));
  if (ranks.length > 1) {
    await page.selectOption("#sel-rank", ranks[1]);
    await settle(page);
    const r = await page.evaluate(() => window.__memlens.app.state.rank);
    ok("switching rank shows the other rank", String(r) === ranks[1], "rank " + r);
  }
  // Narrow windows: one column, the charts keep their width.
  await page.setViewportSize({ width: 1024, height: 900 });
  await settle(page);
  const narrow = await page.evaluate(() => {
    const r = (s) => document.querySelector(s).getBoundingClientRect();
    return { below: r(".right").top >= r(".left").bottom - 1, plot: window.__memlens.app.curve.plotWidth() };
  });
  ok("below 1200 px the side panels go under the charts", narrow.below && narrow.plot > 650, JSON.stringify(narrow));
  await page.screenshot({ path: path.join(shots, `report-narrow-${scheme}.png`), fullPage: true });
  ok("no errors while using the page", errors.length === 0, errors.join("; "));
  await page.context().close();
}
