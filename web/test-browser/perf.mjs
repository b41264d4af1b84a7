// perf.mjs — drives the profiler views of a memlens page in headless Chromium.
//
//   node web/test-browser/perf.mjs REPORT.html|URL SHOT_DIR MODE [light|dark] [FIXTURE.json]
//
// MODE "memfirst": an input about memory that may have a time side too (an
// Ascend export): Memory first, every view shows something.
// MODE "trace": a trace (Overview first; keys switch tabs; Ctrl+F; the
// operators search filters and the sort works; the address round-trips; the
// 100k-row table stays smooth; HTA's GPU-time panels and counter tracks
// agree with the perf object).  MODE "snapshot": a snapshot or an input
// without a time side (Memory first; the other views say why).  FIXTURE:
// a perf object (web/test/perf_fixture.json) put into the page as rank 0's
// when the page has none (a report made before the C analyses).
// Prints "ok NAME" / "FAIL NAME: why" and "time NAME MS"; screenshots per tab.
import { eachPage, ok, scrollFrames, settle, track } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";
import os from "node:os";

await eachPage(async (browser, [file, shots = "build/screenshots/perf", mode = "trace", scheme = "light", fixture = ""]) => {
  fs.mkdirSync(shots, { recursive: true });

  const served = /^http:\/\//.test(file);
  let target = served ? file : path.resolve(file);
  if (!served && fixture) {
    // the fixture replaces rank 0's perf object (it has modules and a distributed split, which real traces may lack)
    const html = fs.readFileSync(target, "utf8").replace(/<script type="application\/json" id="ml-perf-0">[^]*?<\/script>\n?/, "");
    const tag = `<script type="application/json" id="ml-perf-0">${fs.readFileSync(fixture, "utf8").replace(/</g, "\\u003c")}</script>\n`;
    const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ml-perf-")), "page.html");
    fs.writeFileSync(tmp, html.replace('<script type="application/json" id="ml-meta">', tag + '<script type="application/json" id="ml-meta">')
      .replace(/"perf":false,"perfWhy":"[^"]*"/, '"perf":true,"perfWhy":null'));
    target = tmp;
    console.log("# rank 0's perf object: the fixture " + fixture);
  }

  const errors = [];
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 }, colorScheme: scheme });
  await track(page.context()); // settle(page): done when its fetches, short timers and frames are
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  const url = served ? file : pathToFileURL(target).href;
  await page.goto(url, { timeout: 90000 });
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 30000 });
  const err = await page.evaluate(() => window.__memlens.error || "");
  ok("page starts without errors", !err && errors.length === 0, err || errors.join("; "));
  if (err) throw new Error(err);
  const current = () => page.evaluate(() => window.__memlens.app.tabs.current);
  const shot = (name) => page.screenshot({ path: path.join(shots, `${name}-${scheme}.png`), fullPage: false });
  const tabs = await page.$$eval(".vtab", (bs) => bs.map((b) => b.dataset.view));

  if (mode === "snapshot" || mode === "memfirst") {
    ok("a memory-only input opens on Memory", (await current()) === "memory", await current());
    ok("the memory views are there", await page.evaluate(() => !document.querySelector("#v-memory main.grid").hidden));
    await shot("memory");
    for (const [key, id] of [["1", "overview"], ["2", "operators"], ["3", "kernels"], ["4", "trace"], ["6", "modules"]]) {
      if (mode === "snapshot") { // a snapshot can have no time side: no tab for those views, their keys do nothing (issue 33, item 15)
        await page.keyboard.press(key);
        ok(`no ${id} tab, key ${key} stays on Memory`, !tabs.includes(id) && (await current()) === "memory", tabs.join(",") + " -> " + (await current()));
        continue;
      }
      await page.keyboard.press(key);
      await page.waitForFunction((v) => window.__memlens.app.tabs.current === v, id, { timeout: 5000 }).catch(() => {});
      const text = await page.textContent("#v-" + id);
      if (mode === "snapshot") ok(`${id} says why it is empty`, (await current()) === id && /No .* in this input/.test(text) && text.length > 60, text.slice(0, 200));
      else ok(`${id} shows its data or why it has none`, (await current()) === id && text.trim().length > 60, text.slice(0, 200));
      if (id === "overview") await shot(id);
    }
    ok("no errors while using the page", errors.length === 0, errors.join("; "));
    return;
  }

  // ---- a trace ----
  ok("a trace opens on Overview", (await current()) === "overview", await current());
  ok("Overview shows the summary cards", (await page.$$("#v-overview .pv-card")).length >= 6);
  const hasMem = await page.evaluate(() => !document.querySelector("#v-memory main.grid").hidden || window.__memlens.app.meta.ranks.some((r) => r.devices.length));
  await shot("overview");
  const order = [["2", "operators"], ["3", "kernels"], ["4", "trace"], ["5", "memory"], ["6", "modules"], ["7", "distributed"], ["1", "overview"]];
  for (const [key, id] of order) {
    if (!tabs.includes(id)) continue;
    await page.keyboard.press(key);
    await page.waitForFunction((v) => window.__memlens.app.tabs.current === v, id, { timeout: 5000 }).catch(() => {});
    ok(`key ${key} opens ${id}`, (await current()) === id && !(await page.$eval("#v-" + id, (e) => e.hidden)), await current());
    ok(`the address names ${id}`, new URL(page.url()).hash.includes("view=" + id), page.url());
    if (id === "modules") {
      const m = await page.evaluate(() => ({ rows: document.querySelectorAll("#v-modules .pv-tree tbody tr[data-i]").length, why: !!document.querySelector("#v-modules .pv-why") }));
      ok("modules: a tree, or why there is none", m.rows > 0 || m.why, JSON.stringify(m));
      if (m.rows) {
        await page.click("#v-modules .pv-tree tbody tr .tw:not(.none)");
        const m2 = await page.evaluate(() => document.querySelectorAll("#v-modules .pv-tree tbody tr[data-i]").length);
        ok("modules: a click on a node's triangle folds or unfolds it", m2 !== m.rows, `${m.rows} -> ${m2}`);
        await page.click("#v-modules .pv-tree tbody tr .tw:not(.none)");   // back as it was, for the screenshot
      }
    }
    if (id === "distributed") {
      const d = await page.evaluate(() => ({ bars: document.querySelectorAll("#v-distributed .pv-dist rect").length, rows: document.querySelectorAll("#v-distributed tbody tr[data-r]").length, why: !!document.querySelector("#v-distributed .pv-why") }));
      ok("distributed: per-rank bars and the collectives, or why there are none", (d.bars > 0 && d.rows > 0) || d.why, JSON.stringify(d));
    }
    if (id === "memory" && !hasMem) {
      const t = await page.textContent("#mem-why");
      ok("Memory says how to record memory", /profile_memory=True/.test(t), t.slice(0, 200));
    }
    await settle(page);
    await shot(id);
  }

  // Operators: search filters as you type (debounced), sort by a column, select a row, Esc closes.
  await page.keyboard.press("2");
  const rowsAll = await page.evaluate(() => window.__memlens.app.views.operators.table.idx.length);
  ok("operators are listed", rowsAll > 0, String(rowsAll));
  await page.keyboard.press("Control+f");
  ok("Ctrl+F focuses the operators' search", await page.evaluate(() => document.activeElement === document.querySelector("#v-operators .pv-search")));
  const firstName = await page.evaluate(() => { const t = window.__memlens.app.views.operators.table; return t.rows[t.idx[0]].name; });
  const needle = firstName.replace(/^.*::/, "").slice(0, 6);
  await page.keyboard.type(needle, { delay: 30 });
  await page.waitForFunction((n) => window.__memlens.app.views.operators.table.text === n, needle, { timeout: 3000 }).catch(() => {});
  const filtered = await page.evaluate((n) => {
    const t = window.__memlens.app.views.operators.table;
    return { n: t.idx.length, all: Array.from(t.idx).every((i) => (t.rows[i].name + " " + (t.rows[i].input_shape || "")).toLowerCase().includes(n.toLowerCase())),
      dom: document.querySelectorAll("#v-operators tbody tr[data-r]").length };
  }, needle);
  ok("search filters the operators as you type", filtered.n > 0 && filtered.n <= rowsAll && filtered.all && filtered.dom === Math.min(filtered.n, filtered.dom), JSON.stringify(filtered));
  await page.keyboard.press("Escape");
  await page.fill("#v-operators .pv-search", "");
  await page.waitForFunction(() => window.__memlens.app.views.operators.table.text === "", null, { timeout: 3000 }).catch(() => {});
  // sort by calls, both ways
  await page.click('#v-operators th:has-text("Calls")');
  const sorted = await page.evaluate(() => {
    const t = window.__memlens.app.views.operators.table, v = Array.from(t.idx).map((i) => t.rows[i].calls);
    return { key: t.sort, dir: t.dir, desc: v.every((x, k) => !k || v[k - 1] >= x) };
  });
  ok("a click on a header sorts by it", sorted.key === "calls" && sorted.dir === -1 && sorted.desc, JSON.stringify(sorted));
  await page.click('#v-operators th:has-text("Calls")');
  const asc = await page.evaluate(() => {
    const t = window.__memlens.app.views.operators.table, v = Array.from(t.idx).map((i) => t.rows[i].calls);
    return t.dir === 1 && v.every((x, k) => !k || v[k - 1] <= x);
  });
  ok("a second click reverses the sort", asc);
  console.log("# rows in the DOM: " + await page.evaluate(() => document.querySelectorAll("#v-operators tbody tr[data-r]").length + " " + document.querySelector("#v-operators .pv-main").hidden + " " + window.__memlens.app.tabs.current));
  await page.click("#v-operators tbody tr[data-r] >> nth=2");
  const sel = await page.evaluate(() => window.__memlens.app.views.operators.sel);
  ok("a click on a row opens its detail", !!sel && !(await page.$eval("#v-operators .pv-detail", (e) => e.hidden)), sel);
  await shot("operators-detail");
  const hash = new URL(page.url()).hash;
  ok("the address keeps the view, rank and selection", /view=operators/.test(hash) && /rank=0/.test(hash) && hash.includes("sel=" + encodeURIComponent(sel)), hash);
  await page.keyboard.press("Escape");
  ok("Esc closes the detail panel", await page.$eval("#v-operators .pv-detail", (e) => e.hidden));
  // the address reopens the same state in a fresh page
  {
    const p2 = await browser.newPage({ viewport: { width: 1600, height: 1000 }, colorScheme: scheme });
    p2.on("pageerror", (e) => errors.push(String(e)));
    await p2.goto(url + hash);
    await p2.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 30000 });
    const st = await p2.evaluate(() => ({ view: window.__memlens.app.tabs.current, sel: window.__memlens.app.views.operators.sel,
      sort: window.__memlens.app.views.operators.table && window.__memlens.app.views.operators.table.sort, open: !document.querySelector("#v-operators .pv-detail").hidden }));
    ok("a copied address reopens the same view, sort and selection", st.view === "operators" && st.sel === sel && st.sort === "calls" && st.open, JSON.stringify(st));
    await p2.close();
  }
  // Kernels: the detail links to the operator it came from
  if (tabs.includes("kernels")) {
    await page.keyboard.press("3");
    const nk = await page.evaluate(() => window.__memlens.app.views.kernels.table ? window.__memlens.app.views.kernels.table.idx.length : 0);
    if (nk) {
      await page.click("#v-kernels tbody tr[data-r] >> nth=0");
      await shot("kernels-detail");
      // "Find in the Trace": the Trace view with its search set to the kernel's name
      if (await page.$("#v-kernels .pv-dbody a.pv-find")) {
        const kname = await page.evaluate(() => { const v = window.__memlens.app.views.kernels; return v.table.rows[v.table.selected].name; });
        await page.click("#v-kernels .pv-dbody a.pv-find");
        await page.waitForFunction(() => window.__memlens.app.tabs.current === "trace", null, { timeout: 5000 }).catch(() => {});
        await settle(page);
        const q = await page.evaluate(() => (document.querySelector("#trace-mount input[type=search], #trace-mount .tr-search") || {}).value);
        ok("a kernel's Find in the Trace opens the Trace searching for it", (await current()) === "trace" && q === kname, `${await current()} ${q}`);
        await shot("trace-find");
        await page.keyboard.press("3");
        await page.waitForFunction(() => window.__memlens.app.tabs.current === "kernels", null, { timeout: 5000 }).catch(() => {});
      }
      // per-call durations: a histogram whose counts sum to the kernel's calls; a slowest call's link
      // opens the Trace view zoomed on that call, selected
      if (!fixture) {
        const hs = await page.evaluate(() => {
          const v = window.__memlens.app.views.kernels, r = v.table.rows[v.table.selected];
          const bars = [...document.querySelectorAll("#v-kernels .pv-dbody svg.pv-hist .pv-hbar")];
          return { calls: r.calls, name: r.name, sum: bars.reduce((a, b) => a + +b.dataset.n, 0), bars: bars.length,
            links: document.querySelectorAll("#v-kernels .pv-dbody a.pv-call").length, slow: r.slowest || [] };
        });
        ok("a kernel's detail draws the histogram of its calls (counts sum to the calls)", hs.bars > 0 && hs.sum === hs.calls, JSON.stringify(hs));
        ok("a kernel's detail lists its slowest calls", hs.links > 0 && hs.links === Math.min(3, hs.calls), JSON.stringify(hs));
        await page.hover("#v-kernels .pv-dbody svg.pv-hist .pv-hbar");
        const cap = await page.textContent("#v-kernels .pv-dbody .pv-hist-cap");
        ok("hovering a histogram bar says its range and calls", /\d.*–.*: [\d,]+ calls? \(/.test(cap), cap);
        await shot("kernels-percall");
        if (hs.links) {
          const [ts, dur] = hs.slow[0];
          await page.click("#v-kernels .pv-dbody a.pv-call");
          // Wait for that call to be the selection: the Find above may have left another call of
          // the same kernel selected, which a loaded machine still shows when the wait begins.
          await page.waitForFunction(([ts, dur]) => {
            const v = window.__memlens.app.traceHandle && window.__memlens.app.traceHandle.view;
            return window.__memlens.app.tabs.current === "trace" && v && v.sel && v.sel.ts === v.rank.trace.begin + ts && v.sel.dur === dur;
          }, [ts, dur], { timeout: 10000 }).catch(() => {});
          const tv = await page.evaluate(() => { const v = window.__memlens.app.traceHandle.view; return { sel: v.sel && { name: v.sel.name, ts: v.sel.ts, dur: v.sel.dur }, t0: v.t0, t1: v.t1, begin: v.rank.trace.begin }; });
          ok("a slowest call's link opens the Trace tab on that call, selected", (await current()) === "trace" && tv.sel && tv.sel.name === hs.name &&
            tv.sel.ts === tv.begin + ts && tv.sel.dur === dur, JSON.stringify({ tv, ts, dur }));
          ok("the Trace view is zoomed on the call", tv.t0 <= tv.begin + ts && tv.t1 >= tv.begin + ts + dur && tv.t1 - tv.t0 < 5 * dur + 4000, JSON.stringify(tv));
          await settle(page);
          await shot("trace-call");
          await page.keyboard.press("3");
          await page.waitForFunction(() => window.__memlens.app.tabs.current === "kernels", null, { timeout: 5000 }).catch(() => {});
        }
      }
      const link = await page.$("#v-kernels .pv-dbody a[data-go=operators]");
      if (link) {
        const op = await link.getAttribute("data-sel");
        await link.click();
        await page.waitForFunction(() => window.__memlens.app.tabs.current === "operators", null, { timeout: 3000 }).catch(() => {});
        ok("a kernel's operator link opens it in Operators", (await current()) === "operators" && (await page.evaluate(() => window.__memlens.app.views.operators.sel)) === op, op);
      }
    }
  }
  // HTA's GPU time (perf.gputime): the Overview's panel, the Kernels view's panels (the
  // launch-delay histogram sums to the launches, an outlier opens the Trace on its kernel),
  // the Distributed view's overlap, the Trace view's counter tracks (their maximum over the
  // whole trace is the perf object's)
  const g = fixture ? null : await page.evaluate(async () => { const a = window.__memlens.app, p = await a.perfOf(a.tabs.rank); return p && p.gputime; });
  if (g) {
    await page.keyboard.press("1");
    await page.waitForFunction(() => window.__memlens.app.tabs.current === "overview", null, { timeout: 5000 }).catch(() => {});
    const ov = await page.evaluate(() => {
      const el = document.querySelector("#ov-gputime");
      if (!el) return null;
      const widths = [...el.querySelectorAll(".gt-temporal .gt-bar i")].map((i) => parseFloat(i.style.width));
      return { rows: [...el.querySelectorAll(".gt-tlegend tr[data-key]")].map((r) => [r.dataset.key, r.cells[1].textContent]),
        widths: widths.reduce((a, x) => a + x, 0), streams: [...el.querySelectorAll(".gt-row")].map((r) => +r.dataset.stream) };
    });
    // "75.2 ms" -> ns: the panel's figures are the perf object's, to the digits shown
    const ns = (text) => { const m = /([\d.,]+)\s*(ns|µs|ms|s)\b/.exec(text || ""); return m ? +m[1].replace(/,/g, "") * { ns: 1, "µs": 1e3, ms: 1e6, s: 1e9 }[m[2]] : NaN; };
    ok("gputime: the Overview's panel gives compute, non-compute and idle", ov && ov.rows.map((r) => r[0]).join() === "compute_ns,non_compute_ns,idle_ns" &&
      ov.rows.every(([k, text]) => Math.abs(ns(text) - g.temporal[k]) <= 0.005 * g.temporal[k] + 1), JSON.stringify({ ov, t: g.temporal }));
    ok("gputime: its bar splits the whole span", ov && Math.abs(ov.widths - 100) < 0.01, JSON.stringify(ov));
    ok("gputime: an idle row per stream", ov && ov.streams.join() === g.idle_by_stream.map((r) => r.stream).join(), JSON.stringify(ov && ov.streams));
    await page.evaluate(() => document.querySelector("#ov-gputime").scrollIntoView());
    await shot("overview-gputime");
    await page.keyboard.press("3");
    await page.waitForFunction(() => window.__memlens.app.tabs.current === "kernels", null, { timeout: 5000 }).catch(() => {});
    await page.keyboard.press("Escape");
    const kn = await page.evaluate(() => ({
      types: [...document.querySelectorAll("#kn-types .gt-types tr[data-type]")].map((r) => r.dataset.type),
      hist: [...document.querySelectorAll("#kn-launches svg.pv-hist .pv-hbar")].reduce((a, b) => a + +b.dataset.n, 0),
      outs: [...document.querySelectorAll("#kn-launches .gt-out")].map((o) => [o.dataset.key, o.querySelectorAll("a.gt-call").length]),
      queues: [...document.querySelectorAll("#kn-types .gt-queues tr[data-stream]")].map((r) => +r.dataset.stream),
    }));
    ok("gputime: the Kernels view lists the kernel types, longest first", kn.types.join("|") === g.kernel_types.map((r) => r.type).join("|"), JSON.stringify(kn.types));
    ok("gputime: the launch-delay histogram counts every launch", g.launches && kn.hist === g.launches.count, `${kn.hist} vs ${g.launches && g.launches.count}`);
    ok("gputime: each outlier list shows its worst launches", g.launches && kn.outs.every(([k, n]) => n === g.launches.outliers[k].top.length), JSON.stringify(kn.outs));
    ok("gputime: a queue row per stream", kn.queues.join() === g.queues.map((q) => q.stream).join(), JSON.stringify(kn.queues));
    await page.evaluate(() => document.querySelector("#kn-types").scrollIntoView());
    await shot("kernels-gputime");
    const out = g.launches && Object.values(g.launches.outliers).find((o) => o.top.length);
    if (out) {
      const k = out.top[0];
      await page.click("#kn-launches a.gt-call");
      await page.waitForFunction(([ts, dur]) => {
        const v = window.__memlens.app.traceHandle && window.__memlens.app.traceHandle.view;
        return window.__memlens.app.tabs.current === "trace" && v && v.sel && v.sel.ts === v.rank.trace.begin + ts && v.sel.dur === dur;
      }, [k.start_ns, k.dur_ns], { timeout: 10000 }).catch(() => {});
      const tv = await page.evaluate(() => { const v = window.__memlens.app.traceHandle.view; return { sel: v.sel && { name: v.sel.name, ts: v.sel.ts - v.rank.trace.begin, dur: v.sel.dur } }; });
      ok("gputime: an outlier's link opens the Trace on its kernel, selected", (await current()) === "trace" && tv.sel && tv.sel.name === k.name && tv.sel.ts === k.start_ns && tv.sel.dur === k.dur_ns,
        JSON.stringify({ tv, k }));
    }
    await page.keyboard.press("4");
    await page.waitForFunction(() => window.__memlens.app.tabs.current === "trace", null, { timeout: 5000 }).catch(() => {});
    await page.keyboard.press("0");   // the whole trace
    // the whole window's answer, not the zoomed one's still in place while it comes
    await page.waitForFunction(() => { const v = window.__memlens.app.traceHandle.view; return v.t0 === v.lo && v.t1 === v.hi && !v.inflight && !v.pending && v.mem.filter((m) => m.counter).every((m) => m.data); }, null, { timeout: 10000 }).catch(() => {});
    const tr = await page.evaluate(() => {
      const v = window.__memlens.app.traceHandle.view;
      return { labels: [...document.querySelectorAll("#trace-mount .tr-lab.mem")].map((l) => [...l.childNodes].find((n) => n.nodeType === 3).textContent), // the name, after the fold toggle
        max: v.mem.filter((m) => m.counter).map((m) => (m.data ? Math.max(...m.data.v) : null)) };
    });
    const wantLabels = g.queues.slice(0, 8).map((q) => `queue length, stream ${q.stream}`).concat(g.membw.slice(0, 4).map((b) => `bandwidth, ${b.kind}`));
    ok("gputime: a counter track per stream's queue and per kind of copy", wantLabels.every((l) => tr.labels.includes(l)), JSON.stringify(tr.labels));
    const wantMax = g.queues.slice(0, 8).map((q) => q.max).concat(g.membw.slice(0, 4).map((b) => b.max_gbps));
    ok("gputime: over the whole trace each track's highest point is the perf object's max", tr.max.length === wantMax.length && tr.max.every((m, i) => Math.abs(m - wantMax[i]) <= 1e-6 * Math.max(1, wantMax[i])),
      JSON.stringify({ got: tr.max, want: wantMax }));
    await settle(page);
    await shot("trace-counters");
    if (tabs.includes("distributed") && g.comm_comp_overlap != null) {
      await page.keyboard.press("7");
      await page.waitForFunction(() => window.__memlens.app.tabs.current === "distributed", null, { timeout: 5000 }).catch(() => {});
      const d = await page.evaluate(() => [...document.querySelectorAll("#dist-overlap tr[data-rank]")].map((r) => r.cells[1].textContent));
      ok("gputime: the Distributed view gives the rank's communication under computation", d.includes((100 * g.comm_comp_overlap).toFixed(2) + " %"), JSON.stringify(d));
      await shot("distributed-overlap");
    }
  }
  // 100,000 rows: build, sort and scroll a table of them in the page (the Operators tab shown)
  {
    await page.keyboard.press("Escape");
    await page.keyboard.press("2");
    await page.waitForFunction(() => window.__memlens.app.tabs.current === "operators", null, { timeout: 5000 }).catch(() => {});
    await page.selectOption("#v-operators .pv-group", "shape"); // the widest: name + input shape
    const t = await page.evaluate(async () => {
      const v = window.__memlens.app.views.operators;
      const base = v.table.rows.length ? v.table.rows : [{ name: "aten::mm", calls: 1, host_self_ns: 1, host_total_ns: 1, device_self_ns: 1, device_total_ns: 1, kernels: [] }];
      const rows = [];
      for (let i = 0; i < 100000; i++) { const r = base[i % base.length]; rows.push(Object.assign({}, r, { name: r.name + "#" + i, calls: (i * 7919) % 1000 })); }
      const tab = v.table;
      let t0 = performance.now();
      tab.setRows(rows);
      const setMs = performance.now() - t0;
      t0 = performance.now();
      tab.sortBy("calls", -1);
      const sortMs = performance.now() - t0;
      const jump = [];
      for (let k = 1; k <= 20; k++) { // jumps (the scroll bar dragged): every row in sight drawn anew
        const f0 = performance.now();
        tab.scroller.scrollTop = k * 24 * 2400;
        tab.renderRows();
        jump.push(performance.now() - f0);
        await new Promise((r) => requestAnimationFrame(r));
      }
      const dom = tab.tbody.querySelectorAll("tr[data-r]").length, first = tab.range[0];
      t0 = performance.now();
      tab.setFilter("#12345");
      const filterMs = performance.now() - t0;
      jump.sort((a, b) => a - b);
      tab.setFilter("");
      return { setMs, sortMs, filterMs, jumpMedian: jump[10], dom, first, n: tab.idx.length };
    });
    // a wheel over it: 60 notches of 300 px, each step's script, style and layout
    const f = await scrollFrames(page, "#v-operators .pt-scroll");
    console.log(`time table100k_set_ms ${t.setMs.toFixed(1)}`);
    console.log(`time table100k_sort_ms ${t.sortMs.toFixed(1)}`);
    console.log(`time table100k_filter_ms ${t.filterMs.toFixed(1)}`);
    console.log(`time table100k_jump_median_ms ${t.jumpMedian.toFixed(2)}`);
    console.log(`time table100k_scroll_median_ms ${f.median.toFixed(2)}`);
    console.log(`time table100k_scroll_p90_ms ${f.p90.toFixed(2)}`);
    console.log(`time table100k_scroll_worst_ms ${f.worst.toFixed(2)}`);
    ok("100k rows: only the rows in sight are in the DOM", t.dom < 80 && t.dom > 10, String(t.dom));
    ok("100k rows: scrolling renders new rows", t.first > 1000, String(t.first));
    ok("100k rows: a wheel notch's frame (script, style, layout) under 16 ms", f.n === 60 && f.median < 16, JSON.stringify(f));
    ok("100k rows: a wheel notch adds only the rows it brings into sight", f.added > 0 && f.added <= 16, JSON.stringify(f));
    await page.selectOption("#v-operators .pv-group", "name");
    // the Modules tree with 100,000 modules (a root and its children), all open
    const mods = await page.evaluate(async () => {
      const app = window.__memlens.app, perf = await app.perfOf(app.state.rank);
      if (!perf) return false;
      const m = [{ name: "model", parent: -1, depth: 0, occurrences: 1, operators: 1, host_ns: 1e9, device_ns: 1e9 }];
      for (let i = 1; i < 100000; i++) m.push({ name: "model.layers." + i, parent: 0, depth: 1, occurrences: 1, operators: 3, host_ns: 1000 + i, device_ns: 500 + i });
      window.__savedModules = perf.modules;
      perf.modules = m;
      await app.tabs.go("modules");
      const v = app.views.modules;
      v.rank = -1;
      const t0 = performance.now();
      await v.show(app.state.rank);
      return { count: document.querySelector("#v-modules .pv-count").textContent, ms: performance.now() - t0, dom: document.querySelectorAll("#v-modules tbody tr[data-i]").length };
    });
    if (mods) {
      const f = await scrollFrames(page, "#v-modules .pv-tree");
      console.log(`time modules100k_show_ms ${mods.ms.toFixed(1)}`);
      console.log(`time modules100k_scroll_median_ms ${f.median.toFixed(2)}`);
      ok("modules, 100k in the tree: all of them shown, only those in sight in the DOM", /100,000 of 100,000/.test(mods.count) && mods.dom > 10 && mods.dom < 80, JSON.stringify(mods));
      ok("modules, 100k: a wheel notch's frame (script, style, layout) under 16 ms", f.n === 60 && f.median < 16, JSON.stringify(f));
      ok("modules, 100k: a wheel notch adds only the rows it brings into sight", f.added > 0 && f.added <= 16, JSON.stringify(f));
      await page.evaluate(async () => {
        const app = window.__memlens.app, perf = await app.perfOf(app.state.rank), v = app.views.modules;
        perf.modules = window.__savedModules;
        v.rank = -1;
        await v.show(app.state.rank);
        await app.tabs.go("operators");
      });
    }
  }
  ok("no errors while using the page", errors.length === 0, errors.join("; "));
});
