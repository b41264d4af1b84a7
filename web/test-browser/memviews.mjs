// memviews.mjs — the memory views' page checks in headless Chromium:
// every shortcut on every page without throwing, the `?` overlay, static
// graphs, address-less traces, one before-trace name.
//
//   node web/test-browser/memviews.mjs SHOT_DIR KIND=REPORT.html ...
//
// KIND: kineto | nomem | static | noaddr | snapshot | ascend (what to check
// beyond the shortcuts).  Prints "ok NAME" / "FAIL NAME: why".
// served-snapshot=URL, served-ascend=URL: the same checks on a `memlens serve`
// page (http://127.0.0.1:PORT/), its Insight's columns and state-history stacks
// compared with the report's (pass the report's page first).
import { checks, launch, ok, scrollFrames, settle, track } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

const [shots, ...pages] = process.argv.slice(2);
fs.mkdirSync(shots, { recursive: true });
const seen = {}; // what the report's page showed, for its served page to match
const browser = await launch();
try {
  for (const arg of pages) {
    const [name, file] = arg.split(/=(.*)/s);
    const served = /^served-/.test(name), kind = name.replace(/^served-/, "");
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await track(page.context()); // settle(page): done when its fetches, short timers and frames are
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    // the memory views are the Memory tab; a trace with a time side opens on Overview
    await page.goto((served ? file : pathToFileURL(path.resolve(file)).href) + "#view=memory", { timeout: 90000 });
    await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 90000 });
    const err = await page.evaluate(() => window.__memlens.error || "");
    ok(`${name}: page starts without errors`, !err && !errors.length, err || errors.join("; "));
    // the memory views live in the Memory tab of the tab shell (when the page has tabs)
    if (await page.$('.vtab[data-view="memory"]')) {
      await page.click('.vtab[data-view="memory"]');
      await settle(page);
    }
    await page.screenshot({ path: path.join(shots, `memviews-${kind}.png`), fullPage: true });

    if (kind === "static") {
      const t = await page.evaluate(() => ({
        shown: !document.getElementById("p-static").closest("[hidden]"),
        grid: document.querySelector("main.grid").hidden,
        peak: document.getElementById("st-peak").textContent,
        graphs: document.getElementById("st-graph").options.length,
        rows: document.querySelectorAll("#st-table tbody tr[data-r]").length,
        meta: document.getElementById("hdr-meta").textContent,
        canvas: !!document.querySelector("#st-chart canvas"),
      }));
      ok("static: its own view replaces the time charts", t.shown && t.grid && t.canvas, JSON.stringify(t));
      ok("static: the curve's peak is summary's (8.30 MiB at node #32)", /8\.30 MiB/.test(t.peak) && /#32/.test(t.peak), t.peak);
      ok("static: a Graph ID switch and the graph's operator table", t.graphs === 2 && t.rows === 27, JSON.stringify(t));
      ok("static: node indices are not shown as times", !/\bns\b|device cpu/.test(t.meta + t.peak), t.meta);
      const other = await page.evaluate(() => { const s = document.getElementById("st-graph"); return [...s.options].find((o) => o.value !== s.value).value; });
      await page.selectOption("#st-graph", other);
      const t2 = await page.evaluate(() => [document.getElementById("st-peak").textContent, document.querySelectorAll("#st-table tbody tr[data-r]").length]);
      ok("static: the other graph: its peak (6.01 MiB at node #27)", /6\.01 MiB/.test(t2[0]) && /#27/.test(t2[0]), t2[0]);
      const over = await page.$("#st-chart .u-over"), b = await over.boundingBox();
      await page.mouse.click(b.x + b.width * 0.5, b.y + b.height / 2);
      const t3 = await page.evaluate(() => [document.getElementById("st-ops-title").textContent, document.querySelectorAll("#st-table tbody tr[data-r]").length]);
      ok("static: a click on a node lists the operators live there", /live at node #\d+/.test(t3[0]) && t3[1] > 0 && t3[1] < 27, JSON.stringify(t3));
      await page.click('#st-table th[data-k="start"]');
      const starts = await page.evaluate(() => [...document.querySelectorAll("#st-table tbody tr td:nth-child(2)")].map((td) => +td.textContent.slice(1)));
      ok("static: sort by start node", starts.every((v, k) => !k || starts[k - 1] <= v), starts.join(","));
      await page.screenshot({ path: path.join(shots, "memviews-static-node.png"), fullPage: true });
      // 100,000 operator rows in a graph: every one listed, only those in sight in the DOM
      const big = await page.evaluate(() => {
        const sv = window.__memlens.app.staticView, g = sv.current();
        sv.node = null;
        g.rows = Array.from({ length: 100000 }, (x, k) => ["op" + k, k % 500, (k % 500) + 3, 1024 * (1 + (k % 97))]);
        sv.table();
        return { count: document.getElementById("st-count").textContent, dom: document.querySelectorAll("#st-table tbody tr[data-r]").length };
      });
      const sf = await scrollFrames(page, "#p-static-ops .table-wrap");
      console.log(`time static100k_scroll_median_ms ${sf.median.toFixed(2)}`);
      ok("static, 100k operator rows: all listed, only those in sight in the DOM", /^100,000 operator rows/.test(big.count) && !/first/.test(big.count) && big.dom > 10 && big.dom < 80, JSON.stringify(big));
      ok("static, 100k: a wheel notch's frame (script, style, layout) under 16 ms, adding only the rows it brings into sight", sf.n === 60 && sf.median < 16 && sf.added > 0 && sf.added <= 16, JSON.stringify(sf));
    }

    if (kind === "noaddr") {
      const t = await page.evaluate(() => ({
        hdr: document.getElementById("hdr-meta").textContent, peak: document.getElementById("p-peak").textContent,
        rows: [...document.querySelectorAll("#table tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent)),
        note: document.getElementById("tl-note").textContent, count: document.getElementById("t-count").textContent,
      }));
      const falseZero = /\b0 allocations\b|\(0 B\)|0 B live/;
      ok("noaddr: no false zero in the header or at the peak", !falseZero.test(t.hdr) && !falseZero.test(t.peak), t.hdr + " | " + t.peak);
      ok("noaddr: says plainly why frees cannot be matched", /cannot be matched/.test(t.peak) && /no addresses/.test(t.count) && /cannot be matched/.test(t.note), t.note);
      ok("noaddr: memory events by operator", t.rows.length > 5 && t.rows[0][0] === "aten::conv2d", JSON.stringify(t.rows[0]));
      await page.click('#table th[data-k="1"]');
      const first = await page.evaluate(() => document.querySelector("#table tbody tr td").textContent);
      ok("noaddr: the events table sorts", first === "aten::batch_norm" || first === "CudnnBatchNormBackward", first);
    }

    if (kind === "snapshot" || kind === "kineto") {
      // One name for memory from before the trace: at the peak, live at a time, the category chart, the table.
      const t = await page.evaluate(async () => {
        const app = window.__memlens.app, st = app.state, pk = await app.source.getPeak(st.rank, st.dev);
        const live = await app.source.getLiveAt(st.rank, st.dev, pk.t, "category");
        const names = (rows) => rows.filter((r) => r[1]).map((r) => r[0]);
        return { peak: names(pk.by_category), live: names(live.rows), chart: app.dev().category_curves.map((c) => c.curve.label),
          table: [...document.querySelectorAll("#table td.cat")].map((td) => td.textContent) };
      });
      const all = [...t.peak, ...t.live, ...t.chart, ...t.table];
      ok(`${name}: before-trace memory is "(allocated before trace)" everywhere, never PARAMETER_OR_STATE`,
        t.peak.includes("(allocated before trace)") && t.live.includes("(allocated before trace)") && t.chart.includes("(allocated before trace)") &&
        !all.includes("PARAMETER_OR_STATE"), JSON.stringify(t).slice(0, 400));
    }

    if (kind === "snapshot" || kind === "kineto" || kind === "ascend") {
      // Every lane (no "(other operators)" lane), scrolling and virtualised when they do not fit.
      const el = await page.$("#tl-over");
      await el.scrollIntoViewIfNeeded();
      const b = await el.boundingBox();
      const L = await page.evaluate(() => { const tl = window.__memlens.app.timeline, w = document.getElementById("tl-wrap");
        return { lanes: tl.layout.lanes.length, other: tl.layout.lanes.some((l) => l.label === "(other operators)"), groups: new Set(Array.from(tl.allocs.group)).size, withAllocs: (tl.allocs.groupCount || []).filter((c) => c > 0).length,
          scrolls: tl.scrolls(), scrollH: w.scrollHeight, clientH: w.clientHeight }; });
      // (served, the window's allocations only: a lane for every group with allocations)
      ok(`${name}: a lane for every group, none lumped`, !L.other && L.lanes === (served ? L.withAllocs : L.groups), JSON.stringify(L));
      if (L.scrolls) {
        await page.mouse.move(b.x + 20, b.y + 60);
        await page.mouse.wheel(0, 400);
        await settle(page);
        const sc = await page.evaluate(() => [document.getElementById("tl-wrap").scrollTop, document.getElementById("tl-note").textContent]);
        ok(`${name}: the lanes scroll (wheel over the labels)`, sc[0] > 0 && /in view/.test(sc[1]), JSON.stringify(sc));
      }
      // Hovering a time lists what was alive then, largest first.
      await page.mouse.move(b.x + b.width * 0.6, b.y + 30);
      await settle(page);
      const tip = await page.evaluate(() => [...document.querySelectorAll("#tl-tip .tip-row .num")].map((x) => x.textContent).concat(document.getElementById("tl-tip").textContent));
      ok(`${name}: hovering a time lists the allocations alive then`, /alive at .*: [\d,]+ allocations?/.test(tip[tip.length - 1]) && tip.length > 1, tip.join(" | ").slice(0, 300));
      // Stacked: a click selects exactly the band the hover highlights.
      await page.click('#seg-mode button[data-mode="stacked"]');
      await settle(page);
      const b2 = await (await page.$("#tl-over")).boundingBox();
      let n = 0, bad = [];
      for (let fx = 0.25; fx < 0.95; fx += 0.1) for (let fy = 0.15; fy < 0.9; fy += 0.12) {
        await page.mouse.move(b2.x + b2.width * fx, b2.y + b2.height * fy);
        const h = await page.evaluate(() => window.__memlens.app.state.hover);
        if (h < 0) continue;
        await page.mouse.down(); await page.mouse.up();
        const sel = await page.evaluate(() => window.__memlens.app.state.selected);
        n++; if (sel !== h) bad.push([fx.toFixed(2), fy.toFixed(2), h, sel]);
      }
      ok(`${name}: stacked, a click selects the band the hover highlights`, n > 3 && !bad.length, `${n} tried, ${JSON.stringify(bad)}`);
      await page.click('#seg-mode button[data-mode="lanes"]');
      await settle(page);
    }

    if (kind === "snapshot") {
      // The allocator's views: state history (slider, arrow keys, hover), segment timeline, settings.
      const sec = await page.$("#p-segments");
      ok(`${name}: the allocator panel is shown`, !!sec && !(await page.evaluate(() => document.getElementById("p-segments").hidden)));
      await sec.scrollIntoViewIfNeeded();
      const end = await page.evaluate(() => [window.__memlens.app.segments.k, document.getElementById("sg-stats").textContent]);
      ok(`${name}: the history opens at the end: the snapshot's segments`, /1,021 segments, reserved 56\.8 GiB/.test(end[1]), end[1]);
      await page.focus("#sg-slider");
      for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowLeft");
      const t0 = await page.evaluate(() => [window.__memlens.app.segments.k, window.__memlens.app.state.t0, window.__memlens.app.dev().t0]);
      ok(`${name}: ← steps back an event (and does not pan the charts)`, t0[0] === end[0] - 3 && t0[1] === t0[2], JSON.stringify(t0));
      await page.evaluate(() => window.__memlens.app.segments.go(1000));
      const mid = await page.evaluate(() => document.getElementById("sg-stats").textContent);
      ok(`${name}: an earlier event shows fewer segments`, /^247 segments/.test(mid), mid);
      await page.evaluate(() => window.__memlens.app.segments.go(9000));
      const c = await (await page.$("#sg-canvas")).boundingBox();
      let tip = "";
      // a block with a recorded stack (the first hovered, by position, that shows one)
      let any = "";
      for (const fx of [0.5, 0.3, 0.7, 0.1, 0.9]) for (let fy = 0.02; fy < 0.9 && !/\.py/.test(tip); fy += 0.03) {
        await page.mouse.move(c.x + c.width * fx, c.y + c.height * fy);
        await settle(page); // served: the stack comes from /api/stack
        tip = await page.evaluate(() => document.getElementById("sg-tip").hidden ? "" : document.getElementById("sg-tip").textContent);
        if (!any && /allocated|pending free/.test(tip)) any = tip;
      }
      if (!/\.py/.test(tip)) tip = any;
      ok(`${name}: hovering a block tells its size, address and stack`, /(allocated|pending free)/.test(tip) && /address 0x[0-9a-f]+/.test(tip) && /\.py|no stack recorded/.test(tip), tip.slice(0, 300));
      // served: the same block, the same stack (/api/stack) as the report's page; and the
      // stacks the hover shows (segments.js framesOf) of the events' first stack ids
      const stacks = await page.evaluate(async () => {
        const sg = window.__memlens.app.segments, ids = [...new Set(sg.sv.events.st.filter((x) => x))].slice(0, 12);
        return Promise.all(ids.map(async (id) => [id, await sg.framesOf(id)]));
      });
      if (served && seen.sgTip) {
        ok(`${name}: the hovered block's stack is the report's`, tip === seen.sgTip && !/in the report written/.test(tip), tip.slice(0, 300) + " <> " + seen.sgTip.slice(0, 300));
        ok(`${name}: block stacks as the report's`, JSON.stringify(stacks) === JSON.stringify(seen.sgStacks) && stacks.some(([, f]) => f && f.length && /\.py/.test(JSON.stringify(f))),
          JSON.stringify(stacks).slice(0, 300) + " <> " + JSON.stringify(seen.sgStacks).slice(0, 300));
      } else if (!served) { seen.sgTip = tip; seen.sgStacks = stacks; }
      await page.screenshot({ path: path.join(shots, "memviews-segments.png"), clip: { x: 0, y: c.y - 80, width: 1600, height: Math.min(900, c.height + 140) } });
      await page.click('#sg-tabs button[data-t="timeline"]');
      const tl = await page.evaluate(() => [!document.getElementById("sg-timeline").hidden, document.getElementById("sg-tlegend").textContent]);
      ok(`${name}: the segment timeline`, tl[0] && /segment/.test(tl[1]), tl[1]);
      await page.click('#sg-tabs button[data-t="settings"]');
      const set = await page.evaluate(() => document.getElementById("sg-settings").textContent);
      ok(`${name}: the whole allocator settings`, /expandable_segments/.test(set) && /roundup_power2_divisions/.test(set) && /32768/.test(set), set.slice(0, 200));
      await page.click('#sg-tabs button[data-t="history"]');
    }
    if (kind === "history") {
      // A report whose state history holds the last 5,000 allocator events: it says so, and
      // numbers the events as the whole trace does (the memory curves still cover all of it).
      await (await page.$("#p-segments")).scrollIntoViewIfNeeded();
      const [note, at, first] = await page.evaluate(() => {
        const sg = window.__memlens.app.segments, text = () => document.getElementById("sg-event").textContent;
        const a = [document.getElementById("sg-note").textContent, text()];
        sg.go(0);
        return [...a, text()];
      });
      const total = /of ([\d,]+)/.exec(at);
      ok("history: the note says the history holds the last 5,000 events of the trace's", /the last 5,000 of [\d,]+: memlens report --max-history N replays more/.test(note), note);
      ok("history: the last event is numbered as the trace's last", !!total && new RegExp(`after event ${total[1]} of ${total[1]}:`).test(at), at);
      const from = total ? Number(total[1].replace(/,/g, "")) - 5000 : -1;
      ok("history: the first state is before the trace's event where the history begins",
        first === `before event ${(from + 1).toLocaleString("en-US")}, where this history begins`, first);
      // the segment timeline's events, hovered, are numbered so too
      await page.click('#sg-tabs button[data-t="timeline"]');
      await settle(page);
      const tc = await (await page.$("#sg-tcanvas")).boundingBox();
      await page.mouse.move(tc.x + tc.width / 2, tc.y + tc.height / 2);
      await settle(page);
      const tip = await page.evaluate(() => document.getElementById("sg-ttip").textContent);
      const ev = /^event ([\d,]+)/.exec(tip), k = ev ? Number(ev[1].replace(/,/g, "")) : -1;
      ok("history: the timeline's events are the trace's numbers, past where the history begins", k > from && k <= from + 5000, tip.slice(0, 120));
      await page.click('#sg-tabs button[data-t="history"]');
    }
    if (kind === "ascend") {
      // Insight's columns, exact to the CSV's row (aten::_foreach_add 147456.5 KB at 1736408883742690.540 on rank 0)
      const narrow = await page.$$eval("#table thead th", (l) => l.length);
      await page.check("#f-insight");
      await settle(page);
      const th = await page.$$eval("#table thead th", (l) => l.map((x) => x.textContent));
      ok(`${name}: Insight's columns on request (the table fits its panel without them)`, th.length === narrow + 8, `${narrow} -> ${th.length}`);
      ok(`${name}: Insight's columns in the table`, ["active released", "active duration", "alloc: total allocated", "alloc: total reserved", "alloc: total active",
        "release: total allocated", "release: total reserved", "release: total active"].every((c) => th.includes(c)), th.join(", "));
      const row = await page.evaluate(() => { const tr = [...document.querySelectorAll("#table tbody tr")].find((r) => r.cells[0].textContent === "aten::_foreach_add" && /07:48:03\.742690/.test(r.textContent));
        return tr ? [...tr.cells].map((c) => c.title || c.textContent) : null; });
      ok(`${name}: totals at allocation and release as the CSV states them`, row && row.includes("1,162,156,032 B") && row.includes("1,522,532,352 B") && row.includes("1,011,160,576 B") && row.includes("07:48:03.747232"), JSON.stringify(row));
      // the page's rows, with Insight's columns, and sorted by one of them: served as in the report
      const cells = () => page.evaluate(() => [...document.querySelectorAll("#table tbody tr")].slice(0, 20).map((tr) => [...tr.cells].map((c) => c.title || c.textContent).join("|")));
      const rows = await cells();
      await page.click('#table th[data-k="rA"]'); await settle(page);
      const byRA = await cells();
      await page.click('#table th[data-k="adur"]'); await settle(page);
      const byAdur = await cells();
      await page.click('#table th[data-k="adur"]'); await settle(page);
      await page.click('#table th[data-k="adur"]'); await settle(page); // back to no sort
      await page.click('#table th[data-k="ta"]'); await settle(page);
      await page.click('#table th[data-k="ta"]'); await settle(page);
      await page.click('#table th[data-k="ta"]'); await settle(page); // the default order again
      if (!served) seen.ascend = { rows, byRA, byAdur };
      else if (seen.ascend) {
        ok(`${name}: Insight's columns with the report's values`, JSON.stringify(rows) === JSON.stringify(seen.ascend.rows), JSON.stringify([rows[0], seen.ascend.rows[0]]));
        ok(`${name}: sorted by a total at release, as the report`, JSON.stringify(byRA) === JSON.stringify(seen.ascend.byRA), JSON.stringify([byRA[0], seen.ascend.byRA[0]]));
        ok(`${name}: sorted by active duration, as the report`, JSON.stringify(byAdur) === JSON.stringify(seen.ascend.byAdur), JSON.stringify([byAdur[0], seen.ascend.byAdur[0]]));
      }
      // the sort cycles ascending, descending, none
      const first = () => page.evaluate(() => document.querySelector("#table tbody tr td:nth-child(3)").textContent);
      const sorted = () => page.evaluate(() => [window.__memlens.app.tables.q.sort, window.__memlens.app.tables.q.dir]);
      const states = [];
      for (let i = 0; i < 3; i++) { await page.click('#table th[data-k="ta"]'); await settle(page); states.push(await sorted()); }
      ok(`${name}: a column's sort cycles ascending, descending, none`, JSON.stringify(states) === JSON.stringify([["ta", 1], ["ta", -1], [null, 1]]), JSON.stringify(states));
      await page.selectOption("#pg-size", "50");
      await settle(page);
      const n50 = await page.evaluate(() => [document.querySelectorAll("#table tbody tr").length, document.getElementById("pg-label").textContent]);
      await page.fill("#pg-jump", "3"); await page.press("#pg-jump", "Enter");
      await settle(page);
      const p3 = await page.evaluate(() => document.getElementById("pg-label").textContent);
      ok(`${name}: page size and jump to a page`, n50[0] === 50 && /of 4/.test(n50[1]) && /page 3 of 4/.test(p3), JSON.stringify([n50, p3]));
      void first;
    }
    if (kind === "kineto") ok("kineto: no allocator panel without a snapshot", await page.evaluate(() => !document.getElementById("p-segments") || document.getElementById("p-segments").hidden));

    // Every shortcut, on every page: nothing throws.
    await page.evaluate(() => document.activeElement && document.activeElement.blur && document.activeElement.blur());
    for (const k of ["p", "P", "0", "ArrowLeft", "ArrowRight", "+", "-", "=", "Escape"]) {
      await page.keyboard.press(k);
      await page.waitForTimeout(30);
    }
    await settle(page);
    ok(`${name}: no shortcut throws`, !errors.length, errors.join("; "));
    await page.keyboard.press("?");
    const help = await page.evaluate(() => { const h = document.getElementById("keys-help"); return h && !h.hidden ? h.textContent : ""; });
    ok(`${name}: ? shows every shortcut`, /Keyboard shortcuts/.test(help) && ["←", "→", "P", "0", "?"].every((k) => help.includes(k)), help.slice(0, 200));
    if (kind === "kineto") await page.screenshot({ path: path.join(shots, "memviews-keys.png") });
    await page.keyboard.press("Escape");
    ok(`${name}: Esc closes the shortcuts`, await page.evaluate(() => document.getElementById("keys-help").hidden));
    ok(`${name}: no errors while using the page`, !errors.length, errors.join("; "));
    await page.close();
  }
} finally {
  await browser.close();
}
process.exit(checks.failed ? 1 : 0);
