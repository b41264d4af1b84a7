// polish.mjs — the memory views' finishing touches in headless Chromium:
// legends tell series apart, tables say when nothing matches and when a size
// is not one, rows stay one line, counts are pluralised, byte ticks whole,
// important notes open; a report and `memlens serve` of one input draw the
// same bars.  And the views' polish of issue 28: tooltips inside the window,
// off the bar they describe, nothing cut (an element whose content is wider
// than its box); Python frames leading a stack; the segment timeline on the
// clock; Ascend's curves by MindStudio Insight's names; lane labels, tooltip
// and detail by the same name; the address's rank as the header's; the
// shortcuts' key columns aligned; "Open in Perfetto" offline.
//
//   node web/test-browser/polish.mjs SHOT_DIR KIND=URL-OR-FILE ...
//
// KIND: kineto | ascend | snapshot | tiny | served-kineto (compared with
// kineto).  Prints "ok NAME" / "FAIL NAME: why".
import { checks, launch, ok, scrollFrames, overflowing, settle, track } from "./lib.mjs";
import { shortOpName } from "../src/format.js";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

const [shots, ...pages] = process.argv.slice(2);
fs.mkdirSync(shots, { recursive: true });
const browser = await launch();
const text = (page, sel) => page.evaluate((s) => { const e = document.querySelector(s); return e ? e.textContent : ""; }, sel);
const notes = {};
try {
  for (const arg of pages) {
    const [kind, where] = arg.split(/=(.*)/s);
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    await track(page.context()); // settle(page): done when its fetches, short timers and frames are
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const allocPx = []; // the widths the served page asked the bars for
    page.on("request", (r) => { const m = /\/api\/allocs\?.*\bpx=(\d+)/.exec(r.url()); if (m) allocPx.push(+m[1]); });
    const url = /^https?:/.test(where) ? where : pathToFileURL(path.resolve(where)).href;
    // opened straight on the Memory tab: no tab switch redraws it
    await page.goto(url + "#view=memory");
    await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 60000 });
    if (await page.$('.vtab[data-view="memory"]') && !(await page.isVisible("#tl-note"))) await page.click('.vtab[data-view="memory"]');
    await settle(page);
    ok(`${kind}: page starts`, !errors.length, errors.join("; "));
    await page.screenshot({ path: path.join(shots, `${kind}.png`) });
    // the timeline's counts in a few states: opened, regrouped, narrower, zoomed to the peak
    if (allocPx.length) {
      const W = await page.evaluate(() => window.__memlens.app.timeline.W());
      console.log(`# ${kind}: allocs asked for px ${allocPx.join(",")}; the timeline is ${W} px`);
      ok(`${kind}: the bars drawn were counted for the timeline's width`, allocPx[allocPx.length - 1] === W, `last px ${allocPx[allocPx.length - 1]}, W ${W}`);
    }
    const counts = async () => (await text(page, "#tl-note")).trim() + ` · ${await page.evaluate(() => { const L = window.__memlens.app.timeline.layout; return L ? L.height : 0; })} px of lanes`;
    const seen = [await counts()];
    await page.selectOption("#sel-group", kind.includes("ascend") ? "component" : "op").catch(() => {});
    await settle(page);
    await page.screenshot({ path: path.join(shots, `${kind}-group.png`) });
    seen.push(await counts());
    await page.setViewportSize({ width: 1280, height: 1000 });
    await settle(page);
    seen.push(await counts());
    await page.setViewportSize({ width: 1600, height: 1000 });
    await settle(page);
    await page.click("#btn-peak").catch(() => {});
    await settle(page);
    seen.push(await counts());
    // zooming fast: windows asked one after the other, answers in any order; the last one drawn
    await page.evaluate(() => {
      const app = window.__memlens.app, d = app.dev(), w = (a, b) => [d.t0 + a * (d.t1 - d.t0), d.t0 + b * (d.t1 - d.t0)];
      for (const [a, b] of [[0, 1], [0.1, 0.9], [0.2, 0.8], [0.25, 0.7], [0.3, 0.6]]) app.setWindow(...w(a, b));
    });
    await settle(page);
    seen.push(await counts());
    await page.screenshot({ path: path.join(shots, `${kind}-zoomed.png`) });
    notes[kind] = seen;
    if (kind === "ascend") { // the component view's legend: a dashed swatch for a dashed series, no twin colours
      const m = await page.evaluate(() => [...document.querySelectorAll("#p-curves .u-legend .u-series, .u-legend .u-series")].slice(0, 20).map((e) => {
        const mk = e.querySelector(".u-marker"), lab = e.querySelector(".u-label");
        return mk && lab ? [lab.textContent, getComputedStyle(mk).borderTopStyle, getComputedStyle(mk).borderTopColor] : null;
      }).filter(Boolean));
      const alloc = m.find((x) => / allocated/i.test(x[0])), resv = m.find((x) => / reserved/i.test(x[0]));
      const lg = await page.$(".u-legend");
      if (lg) await lg.screenshot({ path: path.join(shots, `${kind}-legend.png`) });
      ok("ascend: allocated and reserved swatches differ (solid vs dashed)", alloc && resv && alloc[1] !== resv[1], JSON.stringify(m.slice(0, 4)));
    }
    if (kind === "kineto") { // the total beside the operators: not the first operator's colour
      await page.selectOption("#sel-group", "op");
      await settle(page);
      const c = await page.evaluate(() => [...document.querySelectorAll(".u-legend")][0].querySelectorAll(".u-series .u-marker"));
      const cols = await page.evaluate(() => [...[...document.querySelectorAll(".u-legend")][0].querySelectorAll(".u-series .u-marker")].map((mk) => getComputedStyle(mk).borderTopColor));
      ok("kineto: group by op: the total's colour is no operator's", cols.length > 2 && !cols.slice(2).includes(cols[1]), cols.join(" "));
      // the tables: a size that is not one, accepted forms, nothing left
      const fill = async (id, v) => { await page.fill(id, v); await page.press(id, "Enter"); await settle(page); };
      const field = (id) => page.evaluate((i) => { const e = document.querySelector(i); return { bad: e.classList.contains("invalid"), title: e.title }; }, id);
      await fill("#f-min", "lots");
      let f = await field("#f-min");
      ok("kineto: a size filter that is not a size is marked invalid, with a tooltip", f.bad && /not a size/.test(f.title), JSON.stringify(f));
      for (const v of ["1.5 MiB", "512k", "2G"]) { await fill("#f-min", v); f = await field("#f-min"); ok(`kineto: "${v}" is a size`, !f.bad, JSON.stringify(f)); }
      await fill("#f-min", ""); await fill("#f-text", "no operator has this name");
      const empty = await page.evaluate(() => { const r = document.querySelectorAll("#table tbody tr"); return [r.length, r[0] ? r[0].textContent : ""]; });
      ok("kineto: a filter that keeps nothing says so", empty[0] === 1 && /No allocations match/.test(empty[1]), JSON.stringify(empty));
      await page.evaluate(() => document.getElementById("table").scrollIntoView());
      await page.screenshot({ path: path.join(shots, `${kind}-norows.png`) });
      await fill("#f-text", "");
      const h = await page.evaluate(() => { const rows = [...document.querySelectorAll("#table tbody tr")].slice(0, 20); const hs = rows.map((r) => r.getBoundingClientRect().height); const rc = document.querySelector("#table td.reason"); return { max: Math.max(...hs), min: Math.min(...hs), reason: !!rc, title: rc ? rc.title : "" }; });
      ok("kineto: table rows one line each (reason clipped, full text in its tooltip)", h.reason && h.max <= h.min + 1 && h.max < 30 && h.title.length > 0, JSON.stringify(h));
      await page.evaluate(() => document.getElementById("table").scrollIntoView());
      await page.screenshot({ path: path.join(shots, `${kind}-table.png`) });
    }
    if (kind === "noaddr") { // frees that cannot be matched change what the numbers mean: said openly
      const n = await page.evaluate(() => { const imp = document.querySelector("#notes .notes-important"); return { imp: imp && imp.offsetHeight > 0 ? imp.textContent : "", folded: [...document.querySelectorAll("#notes details")].map((d) => d.textContent) }; });
      ok("noaddr: the unmatched-frees note is shown open", /cannot be matched/.test(n.imp), JSON.stringify(n));
      ok("noaddr: no important note folded away", !n.folded.some((t) => /cannot be matched/.test(t)), JSON.stringify(n.folded));
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(shots, `${kind}-notes.png`) });
    }
    if (kind === "tiny") { // a few bytes: whole-byte ticks, counts in words
      const labels = await page.evaluate(() => [...document.querySelectorAll(".u-axis")].map((e) => e.textContent).join(" | "));
      ok("tiny: no fractional-byte tick", !/\d\.\d+ B\b/.test(labels), labels);
      const all = await page.evaluate(() => document.body.innerText);
      const glued = all.match(/\b1 (allocations|events|frees|rows|bars|bands|lanes|notes)\b/g);
      ok("tiny: no '1 allocations'", !glued, String(glued));
    }
    const p0 = Date.now();
    if (kind === "kineto") await kinetoPolish(page, shots);
    if (kind === "snapshot") await snapshotPolish(page, shots);
    if (kind === "ascend" || kind === "served-ascend") await ascendNames(page, kind, shots);
    console.log(`# ${kind}: the issue-28 checks took ${((Date.now() - p0) / 1000).toFixed(1)} s`);
    console.log(`# ${kind}: ${seen.join(" | ")}`);
    const base = kind.replace(/^served-/, "");
    if (base !== kind && notes[base])
      seen.forEach((n, k) => ok(`${kind}: bars and narrow counts as the report's (state ${k})`, n === notes[base][k], `served "${n}" vs report "${notes[base][k]}"`));
    await page.close();
  }
} finally {
  await browser.close();
}
process.exit(checks.failed ? 1 : 0);

// The hovered timeline bar's tooltip: inside the window, nothing cut, not over
// the bar's outline; its name the lane's.  {tip, bar, title} or null.
async function hoverBar(page) {
  await page.evaluate(() => document.getElementById("p-timeline").scrollIntoView());
  // a drawn bar in sight, at least 6 px wide: the pointer on its middle
  const at = await page.evaluate(() => {
    const app = window.__memlens.app, tv = app.timeline, st = app.state, a = app.allocs, L = tv.layout, o = tv.over.getBoundingClientRect();
    if (!tv.vis || !L) return null;
    const k = tv.W() / (st.t1 - st.t0), sy = tv.sy();
    for (const i of tv.vis.bars) {
      const xa = Math.max(0, (a.ta[i] - st.t0) * k), xb = Math.min(tv.W(), (a.tf[i] - st.t0) * k), y = L.lanes[L.lane[i]].y + L.row[i] * L.rowH - sy;
      if (xb - xa >= 6 && y > 4 && y < 120) return { x: o.left + tv.x0() + (xa + xb) / 2, y: o.top + y + L.rowH / 2 };
    }
    return null;
  });
  if (!at) return null;
  await page.mouse.move(at.x, at.y);
  const i = await page.evaluate(() => window.__memlens.app.state.hover);
  if (i < 0) return null;
  return page.evaluate(() => {
    const app = window.__memlens.app, tv = app.timeline, i = app.state.hover, t = document.getElementById("tl-tip");
    const r = t.getBoundingClientRect(), o = tv.over.getBoundingClientRect(), st = app.state, a = app.allocs, L = tv.layout;
    // the box of its outline (views.js drawOver: lanes mode)
    const k = tv.W() / (st.t1 - st.t0), xa = tv.x0() + Math.max(-3, (a.ta[i] - st.t0) * k), xb = tv.x0() + Math.min(tv.W() + 3, (a.tf[i] - st.t0) * k);
    const b = { x: xa - 2, y: L.lanes[L.lane[i]].y + L.row[i] * L.rowH - tv.sy() - 3, w: Math.max(3, xb - xa + 2) + 4, h: L.rowH + 6 };
    return { i, group: app.allocs.groups[app.allocs.group[i]], tip: { x: r.left, y: r.top, w: r.width, h: r.height, sw: t.scrollWidth, cw: t.clientWidth },
      bar: { x: o.left + b.x, y: o.top + b.y, w: b.w, h: b.h }, title: t.innerText.split("\n")[0], vw: innerWidth, vh: innerHeight };
  });
}

function boxesMeet(a, b) { return a && b && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h; }
function insideWindow(t, vw, vh) { return t.x >= 0 && t.y >= 0 && t.x + t.w <= vw + 0.5 && t.y + t.h <= vh + 0.5; }

async function kinetoPolish(page, shots) {
  // the address's rank is the header's ("rank 1 of 2" and rank=1, not its place 0)
  const rk = await page.evaluate(() => ({ hash: location.hash, hdr: document.getElementById("hdr-meta").textContent }));
  const hr = /rank=(\d+)/.exec(rk.hash), hd = /rank (\d+) of/.exec(rk.hdr);
  ok("kineto: the address's rank is the one the header names", hr && hd && hr[1] === hd[1], JSON.stringify(rk));
  // hover a bar: the tooltip in the window, its title whole, off the bar; its name the lane's
  const h = await hoverBar(page);
  await page.screenshot({ path: path.join(shots, "kineto-hover.png") });
  ok("kineto: a bar's tooltip: inside the window, nothing cut, not over the bar's outline",
    h && insideWindow(h.tip, h.vw, h.vh) && h.tip.sw <= h.tip.cw && !boxesMeet(h.tip, h.bar), JSON.stringify(h));
  if (h) {
    const lane = shortOpName(h.group);
    ok("kineto: the tooltip names the bar as its lane does", h.title.includes(" · " + lane), `${h.title} vs lane "${lane}"`);
    await page.mouse.down(); await page.mouse.up();
    await settle(page);
    const det = await page.evaluate(() => (document.getElementById("detail-group") || {}).textContent || document.getElementById("detail").innerText.slice(0, 200));
    ok("kineto: the detail names it as the lane does, the full name beneath", det === lane, `${det} vs "${lane}"`);
  }
  // the shortcuts: one table, the key column as wide in both sections
  await page.keyboard.press("?");
  const keys = await page.evaluate(() => [...document.querySelectorAll("#keys-help tr:not(.keys-sec) td:last-child")].map((td) => Math.round(td.getBoundingClientRect().left)));
  await page.screenshot({ path: path.join(shots, "kineto-keys.png") });
  ok("kineto: the shortcuts' key columns line up across sections", keys.length > 8 && new Set(keys).size === 1, keys.join(","));
  await page.keyboard.press("Escape");
  // the Trace view: a slice inside a long-named one: its links whole (wrapped), nothing cut
  await page.keyboard.press("4");
  await page.waitForFunction(() => window.__memlens.app.tabs.current === "trace", null, { timeout: 5000 }).catch(() => {});
  const picked = await page.evaluate(async () => {
    const h = window.__memlens.app.traceHandle; await h.ready;
    // setWindow asks for the window's slices (trace.js fetchWindow): wait until none is asked for
    const v = h.view, answered = async () => { for (const t = performance.now(); (v.inflight || v.pending) && performance.now() - t < 15000;) await new Promise((r) => requestAnimationFrame(r)); };
    v.setWindow(v.lo, v.hi); await answered();
    const d = v.data, S = d.slices;
    let p = -1;
    for (let i = 0; i < S.id.length && p < 0; i++) if (/evaluate_function: CompiledFunctionBackward/.test(d.strings[S.name[i]] || "")) p = i;
    if (p < 0) return "no long-named slice";
    v.setWindow(S.ts[p], S.ts[p] + S.dur[p]); await answered();
    const d2 = v.data, S2 = d2.slices;
    for (let i = 0; i < S2.id.length; i++)
      if (S2.depth[i] > 0 && S2.track[i] === S.track[p] && !/evaluate_function/.test(d2.strings[S2.name[i]] || "")) { await v.select(S2.id[i], false); return d2.strings[S2.name[i]]; }
    return "no child";
  });
  await settle(page);
  const cut = await overflowing(page, ".tr-detail");
  const links = await page.evaluate(() => { const box = document.querySelector(".tr-detail").getBoundingClientRect(); return [...document.querySelectorAll(".tr-detail a")].map((a) => { const r = a.getBoundingClientRect(); return { text: a.textContent, right: r.right, box: box.right }; }); });
  await page.locator(".tr-detail").screenshot({ path: path.join(shots, "kineto-trace-detail.png") });
  ok("kineto: Trace detail of " + picked + ": its operator and parent links whole, nothing cut",
    links.length > 0 && links.every((l) => l.right <= l.box + 0.5) && links.some((l) => /evaluate_function/.test(l.text)) && !cut.length, JSON.stringify({ cut, links }));
  await operatorsDetail(page, shots);
  // "Open in Perfetto" offline: said so, the download offered (ui.perfetto.dev unreachable)
  await page.context().route("https://ui.perfetto.dev/**", (r) => r.abort("internetdisconnected"));
  const popup = page.context().waitForEvent("page", { timeout: 5000 }).catch(() => null);
  await page.click(".tr-perfetto");
  const pop = await popup;
  if (pop) await pop.waitForEvent("close", { timeout: 5000 }).catch(() => {}); // the page closes it when Perfetto cannot be reached
  const popupLeft = !!pop && !pop.isClosed(); // a browser error page, offline
  await page.waitForFunction(() => { const e = document.querySelector(".tr-offline"); return e && !e.hidden; }, null, { timeout: 15000 }).catch(() => {});
  const off = await page.evaluate(() => { const e = document.querySelector(".tr-offline"); return e ? { shown: !e.hidden, text: e.textContent, dl: !!e.querySelector("button") } : { shown: false }; });
  if (pop && !pop.isClosed()) await pop.close();
  await page.screenshot({ path: path.join(shots, "kineto-perfetto-offline.png") });
  ok("kineto: Open in Perfetto offline: says Perfetto could not be reached, offers the download, no error page left open",
    off.shown && /could not be reached/.test(off.text) && off.dl && popupLeft === false, JSON.stringify({ off, popupLeft }));
  await page.context().unroute("https://ui.perfetto.dev/**");
  await page.keyboard.press("5");
  await settle(page);
}

// Operators, a row clicked: the detail beside the table only where the table
// keeps its columns (none cut off the right edge: its scroller no wider than
// its box), else under it: the table as wide as with the detail closed (at
// 1280 px its columns need a horizontal scroll either way); nothing in the
// detail cut, the histogram's labels inside it.  At 1600 px and 1280 px wide.
async function operatorsDetail(page, shots) {
  await page.keyboard.press("2");
  await page.waitForFunction(() => window.__memlens.app.tabs.current === "operators", null, { timeout: 5000 }).catch(() => {});
  for (const w of [1600, 1280]) {
    await page.setViewportSize({ width: w, height: 1000 });
    await page.keyboard.press("Escape");
    await settle(page);
    const cw0 = await page.$eval("#v-operators .pt-scroll", (e) => e.clientWidth);
    // the row with the most calls: the one with a histogram
    await page.evaluate(() => { const t = window.__memlens.app.views.operators.table; let b = t.idx[0]; for (const i of t.idx) if (t.rows[i].calls > t.rows[b].calls) b = i; t.select(b, true); });
    await settle(page);
    const g = await page.evaluate(() => {
      const v = document.getElementById("v-operators"), sc = v.querySelector(".pt-scroll"), d = v.querySelector(".pv-detail"), svg = d.querySelector("svg.pv-hist");
      const sr = svg ? svg.getBoundingClientRect() : null;
      const out = svg ? [...svg.querySelectorAll("text")].filter((t) => { const r = t.getBoundingClientRect(); return r.width && (r.left < sr.left - 0.5 || r.right > sr.right + 0.5 || r.top < sr.top - 0.5 || r.bottom > sr.bottom + 0.5); }).map((t) => t.textContent) : [];
      return { shown: !d.hidden, below: v.querySelector(".pv-body").classList.contains("below"), sw: sc.scrollWidth, cw: sc.clientWidth, hist: !!svg, out };
    });
    const cut = await overflowing(page, "#v-operators .pv-detail");
    await page.screenshot({ path: path.join(shots, `kineto-operators-detail-${w}.png`) });
    ok(`kineto: Operators at ${w} px, a row's detail open: the table as wide as with it closed (its columns whole where they fit), nothing in the detail cut, the histogram's labels inside it`,
      g.shown && (g.sw <= g.cw + 1 || g.cw >= cw0 - 1) && !cut.length && g.hist && !g.out.length, JSON.stringify({ g, cw0, cut }));
  }
  await page.keyboard.press("Escape");
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.keyboard.press("4");
  await settle(page);
}

async function snapshotPolish(page, shots) {
  // a bar's tooltip: its title whole (a long stack frame's file name), in the window, off the bar
  {
    const h = await hoverBar(page);
    const cut = h ? await overflowing(page, "#tl-tip") : [];
    await page.screenshot({ path: path.join(shots, "snapshot-hover.png") });
    ok("snapshot: a bar's tooltip: inside the window, its title whole, not over the bar's outline",
      h && insideWindow(h.tip, h.vw, h.vh) && h.tip.sw <= h.tip.cw && !cut.length && !boxesMeet(h.tip, h.bar), JSON.stringify({ h, cut }));
    await page.mouse.move(5, 5);
  }
  const sgTab = (t) => page.evaluate((t) => window.__memlens.app.segments.setTab(t), t);
  // Allocator State History: a block's tooltip, its stack inside it, the Python frame first
  await sgTab("history");
  await page.evaluate(() => document.getElementById("p-segments").scrollIntoView());
  // a block whose stack has a Python frame: the pointer on it
  const at = await page.evaluate(async () => {
    const sg = window.__memlens.app.segments, L = sg.layout, c = document.getElementById("sg-canvas").getBoundingClientRect();
    let tried = 0;
    for (const sl of L.slots) {
      const g = sg.state.get(sl.addr);
      if (!g || sl.w < 8) continue;
      for (const b of g.blocks.values()) {
        if (!b.stack || tried++ > 200) continue;
        const f = await sg.framesOf(b.stack);
        if (!f || !f.some((x) => /\.py$/.test(x.file || ""))) continue;
        const p = sl.x + ((b.addr - g.addr) + b.size / 2) / g.size * sl.w, ln = Math.floor(p / L.W);
        return { x: c.left + p - ln * L.W, y: c.top + ln * 24 + 2 + 9 };
      }
    }
    return null;
  });
  if (at) await page.mouse.move(at.x, at.y);
  await page.waitForFunction(() => { const t = document.getElementById("sg-tip"); return !t.hidden && t.querySelector(".sg-stack"); }, null, { timeout: 3000 }).catch(() => {});
  const tip = at && await page.evaluate(() => !!document.querySelector("#sg-tip .sg-stack .fr-py"));
  const st = await page.evaluate(() => {
    const t = document.getElementById("sg-tip"), r = t.getBoundingClientRect(), s = t.querySelector(".sg-stack");
    return { x: r.left, y: r.top, w: r.width, h: r.height, sw: t.scrollWidth, cw: t.clientWidth, first: s && s.firstElementChild ? s.firstElementChild.className : "", bg: getComputedStyle(t).backgroundColor, vw: innerWidth, vh: innerHeight };
  });
  await page.screenshot({ path: path.join(shots, "snapshot-history-tip.png") });
  ok("snapshot: a block's tooltip: the stack inside its box, on a background, in the window, the Python frame first",
    tip && st.sw <= st.cw && insideWindow(st, st.vw, st.vh) && /^rgb\(/.test(st.bg) && st.first === "fr-py" && (await overflowing(page, "#sg-tip")).length === 0, JSON.stringify(st));
  await page.mouse.move(5, 5);
  // a bar of the forward (transformer.py:22) lane: the call stack, Python first, lines wrapped
  await page.evaluate(async () => { const app = window.__memlens.app, a = app.allocs; const g = a.groups.findIndex((x) => /transformer\.py:22\)$/.test(x)); let i = 0; while (i < a.n && a.group[i] !== g) i++; await app.select(i); });
  await settle(page);
  const ds = await page.evaluate(() => { const s = document.getElementById("detail-stack"); return { first: s.firstElementChild.className, text: s.firstElementChild.textContent, folded: s.querySelectorAll("details.fr-fold").length }; });
  const dcut = await overflowing(page, "#p-detail");
  await page.evaluate(() => document.getElementById("p-detail").scrollIntoView());
  await page.locator("#p-detail").screenshot({ path: path.join(shots, "snapshot-detail-stack.png") });
  ok("snapshot: forward (transformer.py:22)'s stack: a Python frame first, the C++ frames folded, nothing cut",
    ds.first === "fr-py" && ds.folded > 0 && !dcut.length, JSON.stringify({ ds, dcut }));
  // the lanes: whole lanes only (no lane cut at the bottom of the view), at the top and scrolled
  for (const top of [0, 250]) {
    await page.evaluate((top) => { const w = document.getElementById("tl-wrap"); w.scrollTop = top; w.dispatchEvent(new Event("scroll")); }, top);
    await settle(page);
    const lanes = await page.evaluate(() => {
      const tv = window.__memlens.app.timeline, cv = document.getElementById("timeline"), dpr = devicePixelRatio;
      // the lane markers (x 2-6): where x 3 differs from x 1 (the stripe behind them)
      const ctx = cv.getContext("2d"), hh = Math.round(460 * dpr);
      const m = ctx.getImageData(Math.round(3 * dpr), 0, 1, hh).data, b = ctx.getImageData(Math.round(1 * dpr), 0, 1, hh).data;
      const runs = []; let a = -1;
      for (let y = 0; y <= hh; y++) {
        const on = y < hh && m[y * 4 + 3] > 200 && (m[y * 4] !== b[y * 4] || m[y * 4 + 1] !== b[y * 4 + 1] || m[y * 4 + 2] !== b[y * 4 + 2]);
        if (on && a < 0) a = y;
        if (!on && a >= 0) { runs.push([a, y]); a = -1; }
      }
      return { runs: runs.map(([p, q]) => (q - p) / dpr), heights: [...new Set(tv.layout.lanes.map((l) => l.h))] };
    });
    ok(`snapshot: lanes scrolled ${top} px: every lane drawn whole (none cut by the view's bottom)`,
      lanes.runs.length > 3 && lanes.runs.every((h) => lanes.heights.some((x) => Math.abs(x - h) <= 1)), JSON.stringify(lanes));
  }
  await page.evaluate(() => document.getElementById("p-timeline").scrollIntoView());
  await page.screenshot({ path: path.join(shots, "snapshot-lanes.png") });
  // a lane label cut to fit: the pointer on it shows the lane's whole name (issue 28, item 9)
  {
    const at = await page.evaluate(() => {
      const tv = window.__memlens.app.timeline, L = tv.layout, o = tv.over.getBoundingClientRect(), ctx = document.getElementById("timeline").getContext("2d");
      ctx.font = "11px system-ui, sans-serif";
      for (const ln of L.lanes) {
        const y = ln.y + ln.h / 2 - tv.sy();
        if (y > 8 && y < 400 && ctx.measureText(ln.label).width > tv.x0() - 16) return { x: o.left + 30, y: o.top + y, label: ln.label };
      }
      return null;
    });
    if (at) await page.mouse.move(at.x, at.y);
    const tip = await page.evaluate(() => { const t = document.getElementById("tl-tip"); return t.hidden ? "" : t.innerText; });
    const cut = at ? await overflowing(page, "#tl-tip") : [];
    await page.screenshot({ path: path.join(shots, "snapshot-lane-label-tip.png") });
    ok("snapshot: a lane label cut to fit: its whole name on hover, nothing cut", at && tip.replace(/\s+/g, " ").includes(at.label.replace(/\s+/g, " ")) && !cut.length, JSON.stringify({ at, tip: tip.slice(0, 300), cut }));
    await page.mouse.move(5, 5);
  }
  // Active Cached Segment Timeline: quick to switch to, on the clock, reserving what the history says
  await sgTab("timeline"); await sgTab("history");
  // its cost: the time (noisy on a shared CI core: printed) and the canvas calls it makes (not noisy:
  // a fillRect per pixel column per segment was 1.1-3.2 s and about a million calls; drawn as pixels now)
  const { sw, calls } = await page.evaluate(() => {
    const P = CanvasRenderingContext2D.prototype, fill = P.fillRect;
    let calls = 0;
    P.fillRect = function (...a) { calls++; return fill.apply(this, a); };
    const t0 = performance.now();
    try { window.__memlens.app.segments.setTab("timeline"); } finally { P.fillRect = fill; }
    return { sw: performance.now() - t0, calls };
  });
  const tl = await page.evaluate(() => {
    const sg = window.__memlens.app.segments;
    return { timed: sg.tl.timed, legend: document.getElementById("sg-tlegend").textContent, end: sg.tl.tot[sg.tl.W - 1], stats: document.getElementById("sg-stats").textContent };
  });
  const { fmtBytes } = await import("../src/format.js");
  console.log(`time segment_timeline_switch_ms ${sw.toFixed(1)}`);
  await page.evaluate(() => document.getElementById("p-segments").scrollIntoView());
  await page.locator("#p-segments").screenshot({ path: path.join(shots, "snapshot-segment-timeline.png") });
  ok("snapshot: Active Cached Segment Timeline: drawn with a few hundred canvas calls, not one per pixel column and segment", calls < 5000, `${calls} fillRect calls, ${sw.toFixed(1)} ms`);
  ok("snapshot: Active Cached Segment Timeline: over the trace's time, as every other chart", tl.timed && /over the trace's time/.test(tl.legend), JSON.stringify(tl));
  ok("snapshot: the timeline's segments at the end reserve what the history's last state does", tl.stats.includes("reserved " + fmtBytes(tl.end)), `${fmtBytes(tl.end)} vs ${tl.stats}`);
  await sgTab("history");
  // the allocations table, 500 rows a page: scrolls within a frame's budget
  await page.selectOption("#pg-size", "500");
  await settle(page);
  const f = await scrollFrames(page, "#p-tables .table-wrap", 40);
  console.log(`time alloc_table500_scroll_median_ms ${f.median.toFixed(2)}`);
  ok("snapshot: the allocations table (500 rows a page) scrolls in under 16 ms a frame", f.n > 10 && f.median < 16, JSON.stringify(f));
  await page.selectOption("#pg-size", "100");
}

async function ascendNames(page, kind, shots) {
  const labels = () => page.evaluate(() => [...document.querySelectorAll("#p-curves .u-legend .u-label")].map((e) => e.textContent));
  await page.selectOption("#sel-group", "overall"); await settle(page);
  const all = await labels();
  ok(`${kind}: the curves by MindStudio Insight's names`, ["Operator Allocated", "Operator Reserved", "Operator Activated", "APP Reserved"].every((x) => all.includes(x)), all.join(", "));
  await page.selectOption("#sel-group", "stream"); await settle(page);
  const by = await labels();
  await page.locator("#p-curves").screenshot({ path: path.join(shots, `${kind}-streams.png`) });
  ok(`${kind}: by stream: each stream's Allocated, Reserved and Activated, named as the profiler writes it, APP Reserved kept`,
    by.includes("Allocated of 897357296") && by.includes("Reserved of 897357296") && by.includes("Activated of 897357296") && by.includes("APP Reserved") && !by.some((x) => /0x/.test(x)), by.join(", "));
  await page.selectOption("#sel-group", "overall"); await settle(page);
}
