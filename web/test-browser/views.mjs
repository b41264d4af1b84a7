// views.mjs — issue 33's view fixes (items 10-15) in headless Chromium, one
// page a line of tests/cli_views_browser.sh's list:
//
//   NAME  KIND  PAGE|URL  SHOT_DIR
//
// KIND job: the report of a 16-rank job (gen_trace --plant): Cluster -> a
//   cell -> Trace -> Back is the Cluster again (and Forward the Trace); the
//   Memory view's window, grouping, mode and colouring are in the address and
//   come back from it; the heatmap follows a resize; the straggler outlier
//   opens the Trace; the Trace's critical path button is off at load, its
//   counter tracks leave the first thread lane in sight at 1280 x 720 and
//   fold; the Overview's step labels are readable at 1280 wide; stacked
//   tooltips name the column's instant; a click on an "At the peak" row
//   filters the timeline.
// KIND served: `memlens serve DIR` of that job: #view=memory&rank=7 opens
//   rank 7, the picker lists rank 0..15 in order.
// KIND compare: `memlens diff rank0 rank15 -o`: the device is cuda:0 vs
//   cuda:7, accelerators listed first; the Change columns say by calls / by time.
// KIND one: one trace with stacks: an operator's call stack says it is one call's.
// KIND memonly: a snapshot or a memory timeline: no time views, Memory key 5.
// Each kind takes screenshots at 1280x720 and 1600x1000 in both themes.
import { eachPage, newPage, ok, settle } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

const SIZES = [[1280, 720], [1600, 1000]];

// A page of the report (or server) at base + hash, ready; the first one of
// each line checks "page starts" (no error), the line's start check.
let started = false;
async function open(browser, base, hash = "", opts = {}) {
  const page = await newPage(browser, opts);
  await page.goto(base + hash, { timeout: 120000 });
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 120000 });
  const err = await page.evaluate(() => window.__memlens.error || "");
  if (!started) { started = true; ok("page starts", !err && page.errors.length === 0, err || page.errors.join("; ")); }
  if (err) throw new Error(err);
  await settle(page);
  return page;
}

const cur = (page) => page.evaluate(() => window.__memlens.app.tabs.current);
const waitView = (page, id) => page.waitForFunction((id) => window.__memlens.app.tabs.current === id, id, { timeout: 30000 }).then(() => true, () => false);

// Screenshots of a view (an address) in both themes at both sizes: one page
// a theme (opened at the first size, then resized: a load costs seconds on a
// CI core, a resize little).  before(page), what to do first (scroll, hover),
// runs again at each size: it must leave the same state when run twice.
async function shots(browser, base, hash, dir, name, before) {
  fs.mkdirSync(dir, { recursive: true });
  for (const scheme of ["light", "dark"]) {
    const [[w0, h0]] = SIZES;
    const page = await open(browser, base, hash, { viewport: { width: w0, height: h0 }, colorScheme: scheme });
    for (const [w, h] of SIZES) {
      if (w !== w0 || h !== h0) { await page.setViewportSize({ width: w, height: h }); await settle(page); }
      if (before) await before(page);
      await settle(page);
      await page.screenshot({ path: path.join(dir, `${name}-${w}x${h}-${scheme}.png`) });
    }
    await page.context().close();
  }
}

async function job(browser, base, dir) {
  // ---- 10: history ----
  let page = await open(browser, base);
  ok("page starts on the Cluster view", (await cur(page)) === "cluster", await cur(page));
  const n0 = await page.evaluate(() => history.length);
  // a cell of rank 7 (the planted straggler), step 2, in the Step time heatmap
  const cell = await page.evaluate(() => {
    const v = window.__memlens.app.views.cluster, L = v.L, r = document.querySelector("#v-cluster canvas.cl-map").getBoundingClientRect();
    const row = v.data.rankNo.indexOf(7), b = Math.floor(row * L.bins / L.rows.n);
    return { x: r.x + L.labW + 1.5 * L.colW, y: r.y + L.top + (b + 0.5) * L.binH };
  });
  await page.mouse.click(cell.x, cell.y);
  ok("a Step time cell opens the Trace", await waitView(page, "trace"), await cur(page));
  await settle(page);
  const rank7 = () => page.evaluate(() => window.__memlens.app.meta.ranks[window.__memlens.app.tabs.rank].rank);
  ok("... of rank 7", (await rank7()) === 7, String(await rank7()));
  ok("the Trace is a history entry of its own", (await page.evaluate(() => history.length)) > n0, `${n0} -> ${await page.evaluate(() => history.length)}`);
  await page.goBack();
  ok("Back returns to the Cluster view", await waitView(page, "cluster"), await cur(page));
  ok("... still in the report", page.url().startsWith(base), page.url());
  await page.goForward();
  ok("Forward opens the Trace again", await waitView(page, "trace"), await cur(page));
  await settle(page);
  ok("... of rank 7", (await rank7()) === 7, String(await rank7()));

  // ---- 10: the Memory view's state in the address ----
  await page.keyboard.press("5");
  await waitView(page, "memory");
  await settle(page);
  const grp = await page.$$eval("#sel-group option", (os) => (os.find((o) => o.value !== "overall" && !o.disabled) || {}).value);
  await page.selectOption("#sel-group", grp);
  await page.click('#seg-mode button[data-mode="stacked"]');
  await page.click('#seg-colour button[data-colour="category"]');
  const win = await page.evaluate(async () => {
    const app = window.__memlens.app, d = app.dev(), a = d.t0 + (d.t1 - d.t0) * 0.25, b = d.t0 + (d.t1 - d.t0) * 0.5;
    await app.setWindow(a, b);
    return [Math.round(a), Math.round(b)];
  });
  await settle(page);
  await settle(page);
  const hash = await page.evaluate(() => location.hash);
  const has = (k, v) => new RegExp(`[#&]${k}=${v}(&|$)`).test(hash);
  ok("the address keeps the window, grouping, mode and colouring",
    has("t0", win[0]) && has("t1", win[1]) && has("group", grp) && has("mode", "stacked") && has("colour", "category"), hash);
  const again = await open(browser, base, hash);
  const st = await again.evaluate(() => { const s = window.__memlens.app.state; return { t0: s.t0, t1: s.t1, group: s.group, mode: s.mode, colour: s.colourBy, on: document.querySelector("#seg-mode button.on").dataset.mode }; });
  ok("... and opening it restores them", Math.abs(st.t0 - win[0]) <= 1 && Math.abs(st.t1 - win[1]) <= 1 && st.group === grp && st.mode === "stacked" && st.colour === "category" && st.on === "stacked", JSON.stringify(st));

  // ---- 14: stacked tooltip, the peak rows ----
  const tl = await again.$eval("#tl-over", (c) => { c.scrollIntoView({ block: "center" }); const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
  await again.mouse.move(tl.x + tl.w * 0.6, tl.y + tl.h - 30);
  const tip = await again.$eval("#tl-tip", (t) => (t.hidden ? "" : t.textContent));
  ok("a stacked column's tooltip describes its highest instant", /this column, at its highest instant/.test(tip), tip.slice(0, 120));
  await again.context().close();
  await page.evaluate(() => window.__memlens.app.resetWindow());
  await page.click('#seg-mode button[data-mode="lanes"]');
  await settle(page);
  const rows = await page.$$('#peak-list .row[data-name]'), row = rows[1] || rows[0]; // the second: the first is often the memory before the trace
  ok("the At the peak rows can be clicked", !!row);
  if (row) {
    const name = await row.getAttribute("data-name");
    await row.click();
    await settle(page);
    const f = await page.evaluate(() => { const app = window.__memlens.app, a = app.allocs, f = app.state.focus;
      let n = 0;
      for (let i = 0; f && i < a.n; i++) if (a.groups[a.group[i]] === f.name) n++;
      return f && { ...f, allocs: n }; });
    ok("a click on a peak row filters the timeline to it", f && f.name === name && f.allocs > 0 && (await page.$$('#peak-list .row.on')).length === 1, JSON.stringify(f));
    await page.$eval("#tl-over", (c) => c.scrollIntoView({ block: "center" }));
    await page.screenshot({ path: path.join(dir, "memory-peak-filter.png") });
    await page.$eval("#peak-list", (c) => c.scrollIntoView({ block: "center" }));
    await row.click();
    ok("... a second click shows them all", (await page.evaluate(() => window.__memlens.app.state.focus)) == null);
  }

  // ---- 13: the heatmap follows a resize; 14: the straggler outlier ----
  await page.keyboard.press("9");
  await waitView(page, "cluster");
  await settle(page);
  const cw = () => page.$eval("#v-cluster canvas.cl-map", (c) => c.getBoundingClientRect().width);
  const w1 = await cw();
  await page.setViewportSize({ width: 1400, height: 900 }); // still beside the outliers (one column below 1200 px)
  await settle(page);
  await settle(page);
  const w2 = await cw();
  ok("the heatmap follows a window resize", w2 < w1 - 150, `${w1} -> ${w2} px`);
  await page.setViewportSize({ width: 1600, height: 1000 });
  await settle(page);
  const strag = await page.$$eval(".cl-out tbody tr", (trs) => trs.findIndex((t) => /straggler/.test(t.textContent)));
  ok("the Cluster view lists a straggler", strag >= 0);
  if (strag >= 0) {
    await page.click(`.cl-out tbody tr[data-k="${strag}"]`);
    ok("the straggler outlier opens the Trace view", await waitView(page, "trace"), await cur(page));
    await settle(page);
    ok("... of rank 7", (await rank7()) === 7, String(await rank7()));
  }
  await page.context().close();

  // ---- 13: the Trace at 1280 x 720 ----
  page = await open(browser, base, "#view=trace&rank=7", { viewport: { width: 1280, height: 720 } });
  await page.waitForFunction(() => { const h = window.__memlens.app.traceHandle; return h && h.view && h.view.lay; }, null, { timeout: 30000 });
  await settle(page);
  const tr = await page.evaluate(() => {
    const v = window.__memlens.app.traceHandle.view, b = document.querySelector(".tr-cp");
    const first = v.lay.rows.find((r) => !r.extra);
    return { on: b.classList.contains("on"), pressed: b.getAttribute("aria-pressed"), cpOn: v.cpOn, y: first ? first.y - v.scrollY : -1, h: v.canvas.clientHeight,
      mem: v.mem.length, shut: v.memShut.size };
  });
  ok("the Critical path button is not pressed at load", !tr.on && tr.pressed !== "true" && tr.cpOn === false, JSON.stringify(tr));
  ok("at 1280x720 the first thread lane is in sight below the counter tracks", tr.y >= 0 && tr.y + 18 <= tr.h * 0.6, JSON.stringify(tr));
  const lab = await page.$(".tr-lab.mem");
  ok("counter tracks can be folded", !!lab);
  if (lab) {
    const h0 = await page.evaluate(() => window.__memlens.app.traceHandle.view.lay.height);
    await lab.click();
    await settle(page);
    const h1 = await page.evaluate(() => window.__memlens.app.traceHandle.view.lay.height);
    ok("... a click on its name folds or unfolds it", h1 !== h0, `${h0} -> ${h1}`);
    await lab.click().catch(() => {});
  }
  await page.context().close();

  // ---- 13: Overview's step labels at 1280 wide ----
  page = await open(browser, base, "#view=overview&rank=7", { viewport: { width: 1280, height: 720 } });
  const labs = await page.$$eval("#v-overview svg.pv-steps text", (ts) => ts.map((t) => t.getBoundingClientRect().height));
  ok("the Overview's step axis labels are readable at 1280 wide", labs.length > 0 && Math.min(...labs) >= 9, labs.map((x) => x.toFixed(1)).join(" "));
  await page.context().close();

  await shots(browser, base, "", dir, "cluster");
  await shots(browser, base, "#view=trace&rank=7", dir, "trace");
  await shots(browser, base, "#view=overview&rank=7", dir, "overview");
  await shots(browser, base, "#view=memory&rank=0&mode=stacked", dir, "memory-stacked", async (p) => {
    const tl2 = await p.$eval("#tl-over", (c) => { c.scrollIntoView({ block: "center" }); const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
    await p.mouse.move(tl2.x + tl2.w * 0.6, tl2.y + tl2.h - 30);
  });
}

async function served(browser, base, dir) {
  const page = await open(browser, base, "#view=memory&rank=7");
  const r = await page.evaluate(() => { const app = window.__memlens.app; return { rank: app.meta.ranks[app.state.rank].rank, hdr: document.getElementById("hdr-meta").textContent }; });
  ok("#view=memory&rank=7 opens rank 7", r.rank === 7 && /rank 7 of 16/.test(r.hdr), JSON.stringify(r));
  const opts = await page.$$eval("#sel-rank option", (os) => os.map((o) => o.textContent));
  const nums = opts.map((t) => { const m = /^rank (\d+) ·/.exec(t); return m ? +m[1] : -1; });
  ok("the rank picker lists rank 0..15 in rank order, loaded or not", nums.join(",") === [...Array(16).keys()].join(","), opts.slice(0, 4).join(" | "));
  await page.context().close();
  await shots(browser, base, "#view=memory&rank=7", dir, "served-memory");
}

async function compare(browser, base, dir) {
  const page = await open(browser, base);
  ok("a diff report opens on Compare", (await cur(page)) === "compare", await cur(page));
  const dev = await page.$eval(".cmp-dev", (s) => ({ sel: s.options[s.selectedIndex].textContent, all: [...s.options].map((o) => o.textContent) }));
  ok("the device picker defaults to the accelerator with the largest peak", /^cuda:0 vs cuda:7/.test(dev.sel), dev.sel);
  ok("accelerators come before the cpu", dev.all.length >= 2 && !/^cpu/.test(dev.all[0]) && /^cpu/.test(dev.all[dev.all.length - 1]), dev.all.join(" | "));
  await page.click('.cmp-tabs button[data-t="ops"]');
  await settle(page);
  const heads = await page.$$eval(".cmp-tables .pt-head *, .cmp-tables th, .cmp-tables [role=columnheader]", (hs) => hs.map((h) => h.textContent.trim()));
  ok("the Change column says it is HTA's verdict by calls, a verdict by time beside it", heads.includes("By calls") && heads.includes("By time"), heads.slice(-4).join(" | "));
  await page.context().close();
  await shots(browser, base, "", dir, "compare");
  await shots(browser, base, "#view=compare&tab=ops", dir, "compare-ops", async (p) => {
    await p.$eval(".cmp-tables", (e) => e.scrollIntoView({ block: "start" }));
  });
}

async function one(browser, base, dir) {
  const page = await open(browser, base, "#view=operators&rank=0");
  for (let k = 0; k < 12; k++) { // the first operator with a stack (the top rows, ProfilerStep# and the like, may have none)
    await page.click(`#v-operators tbody tr[data-r] >> nth=${k}`).catch(() => {});
    await settle(page);
    if (await page.$("#v-operators .pv-dbody .stack")) break;
  }
  const h3 = await page.$$eval("#v-operators .pv-dbody h3", (hs) => hs.map((h) => h.textContent));
  const cs = h3.find((t) => /^Call stack/.test(t)) || "";
  ok("an operator's call stack says it is one call's", /of one call/.test(cs), cs || h3.join(" | "));
  const sel = await page.evaluate(() => location.hash);
  await page.context().close();
  await shots(browser, base, sel, dir, "operators", async (p) => {
    await p.$eval("#v-operators .pv-dbody h3:last-of-type", (h) => h.scrollIntoView({ block: "center" })).catch(() => {});
  });
  // 14: the search highlight and the critical path's colours
  await shots(browser, base, "#view=trace&rank=0", dir, "trace-search", async (p) => {
    await p.fill(".tr-search", "aten::mm").catch(() => {});
    await p.keyboard.press("Enter").catch(() => {});
    if (!(await p.$(".tr-cp.on"))) await p.click(".tr-cp").catch(() => {}); // on, and left on at the next size
  });
}

async function memonly(browser, base, dir, name) {
  const page = await open(browser, base);
  const tabs = await page.$$eval("#vtabs .vtab", (bs) => bs.map((b) => b.dataset.view + ":" + b.querySelector(".k").textContent));
  const time = ["overview", "operators", "kernels", "trace", "modules"];
  ok("no tab for a view this input cannot have", !tabs.some((t) => time.includes(t.split(":")[0])), tabs.join(" "));
  ok("Memory keeps its key 5", tabs.includes("memory:5"), tabs.join(" "));
  await page.keyboard.press("1");
  ok("key 1 (Overview) does nothing here", (await cur(page)) === "memory", await cur(page));
  await page.context().close();
  await shots(browser, base, "", dir, name);
}

await eachPage(async (browser, [kind, file, dir]) => {
  started = false;
  const base = /^http:\/\//.test(file) ? file.replace(/#.*$/, "") : pathToFileURL(path.resolve(file)).href;
  if (kind === "job") await job(browser, base, dir);
  else if (kind === "served") await served(browser, base, dir);
  else if (kind === "compare") await compare(browser, base, dir);
  else if (kind === "one") await one(browser, base, dir);
  else await memonly(browser, base, dir, kind);
});
