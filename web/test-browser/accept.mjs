// accept.mjs — the acceptance criteria of the issues "Profiler views, part 2"
// and "Memory views", checked on a memlens page in headless Chromium.
//
//   node web/test-browser/accept.mjs MODE TARGET SHOT_DIR [light|dark] [ARG]
//   node web/test-browser/accept.mjs --pages LIST   (one browser, many pages: lib.mjs's eachPage)
//
// MODE "trace": a report (file) or a served page (URL) of a trace: no page
//   error; keys 1 to 6 each open their tab, and each shows content or says
//   why it has none (never blank); no error while using it.
// MODE "resnet": "trace" plus what the issue names for
//   tbplugin_resnet50_w0: GPU Utilization, the GPU name (ARG) and the
//   DataLoader share on Overview; aten::cudnn_convolution_backward_weight in
//   Operators; the Tensor Cores column in Kernels; a drawn timeline with the
//   lanes "stream 7" and the python threads; the memory views; Modules; and
//   the looks: one type scale, aligned numbers, units on every axis, legend
//   and tooltip on every chart, step colours that stay distinguishable, the
//   theme following the system setting.  Screenshots of each tab.
// MODE "upload": TARGET is `memlens serve` started with no input; ARG the
//   trace to upload through the page's file input; then Operators shows rows.
// MODE "dist": a page of several ranks; ARG "N[:S]", the number of ranks
//   and the slowest: the Distributed tab lists each and names the slowest
//   (a served page: after "Load the other ranks").
// MODE "snapshot": a snapshot report: the five MemoryViz views by name, and
//   the state-history view steps through events.  MODE "memstatic": a
//   report (Ascend static graph) draws with no page error and switches graphs.
// Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why".
import { eachPage, ok as ok0, settle, track } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

const ok = (name, cond, why = "") => ok0(name, cond, why ? String(why).slice(0, 400) : "");
const TABS = [["1", "overview"], ["2", "operators"], ["3", "kernels"], ["4", "trace"], ["5", "memory"], ["6", "modules"]];

await eachPage(async (browser, [mode, target, shots = "build/screenshots/accept", scheme = "light", arg = ""]) => {
  fs.mkdirSync(shots, { recursive: true });
  const served = /^http:\/\//.test(target);
  const url = served ? target : pathToFileURL(path.resolve(target)).href;
  const errors = [];
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 }, colorScheme: scheme });
  await track(page.context()); // settle(page): done when its fetches, short timers and frames are
  page.on("pageerror", (e) => errors.push(String(e)));
  // /api/perf of a rank without a time side answers 404 by design
  page.on("console", (m) => { if (m.type() === "error" && !/status of 404/.test(m.text())) errors.push(m.text()); });
  // every uPlot chart the page makes, to read its axes
  await page.addInitScript(() => {
    let U;
    Object.defineProperty(window, "uPlot", {
      configurable: true,
      get() { return U; },
      set(Orig) {
        if (typeof Orig !== "function") { U = Orig; return; }
        const W = function (opts, data, el) { const u = new Orig(opts, data, el); (window.__plots = window.__plots || []).push(u); return u; };
        Object.setPrototypeOf(W, Orig);
        W.prototype = Orig.prototype;
        U = W;
      },
    });
  });
  await page.goto(url, { timeout: 90000 });
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 60000 });
  const err = await page.evaluate(() => window.__memlens.error || "");
  ok("the page starts without errors", !err && errors.length === 0, err || errors.join("; "));
  if (err) throw new Error(err);
  const current = () => page.evaluate(() => window.__memlens.app.tabs.current);
  const shot = (name) => page.screenshot({ path: path.join(shots, `${name}-${scheme}.png`) });
  const press = async (key, id) => {
    await page.keyboard.press(key);
    await page.waitForFunction((v) => window.__memlens.app.tabs.current === v, id, { timeout: 8000 }).catch(() => {});
    await settle(page);
  };
  // what a view shows: its text, and the charts drawn in it
  const content = (id) => page.evaluate((id) => {
    const v = document.getElementById("v-" + id);
    const vis = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
    return { hidden: v.hidden, text: v.innerText.trim(), drawn: [...v.querySelectorAll("svg, canvas")].filter(vis).length };
  }, id);

  if (mode === "upload") {
    ok("no input: the upload zone", await page.isVisible("#up-drop"));
    await page.setInputFiles("#up-input", [arg]);
    await page.waitForFunction(() => !document.getElementById("up-drop") && window.__memlens.app.tabs.current &&
      !document.getElementById("v-" + window.__memlens.app.tabs.current).hidden, null, { timeout: 120000 }).catch(() => {});
    ok("the uploaded trace opens", !!(await current()), await current());
    await press("2", "operators");
    await page.waitForFunction(() => document.querySelectorAll("#v-operators tbody tr[data-r]").length > 0, null, { timeout: 60000 }).catch(() => {});
    const rows = await page.evaluate(() => document.querySelectorAll("#v-operators tbody tr[data-r]").length);
    ok("Operators of the uploaded trace shows rows", (await current()) === "operators" && rows > 0, `${await current()}, ${rows} rows`);
    const names = await page.evaluate(() => (window.__memlens.app.views.operators.table || { rows: [] }).rows.map((r) => r.name));
    if (/resnet50/.test(arg)) ok("... aten::cudnn_convolution_backward_weight among them", names.includes("aten::cudnn_convolution_backward_weight"), names.slice(0, 5).join(", "));
    await shot("upload-operators");
    for (const [key, id] of TABS) {
      await press(key, id);
      const c = await content(id);
      ok(`upload: key ${key} shows ${id} with content or why`, (await current()) === id && !c.hidden && (c.text.length > 40 || c.drawn > 0), c.text.slice(0, 120));
    }
    ok("no errors while using the uploaded run", errors.length === 0, errors.join("; "));
  }

  if (mode === "trace" || mode === "resnet") {
    const tabs = await page.$$eval(".vtab", (bs) => bs.map((b) => b.dataset.view));
    for (const [key, id] of TABS) {
      ok(`the tab ${id} is offered`, tabs.includes(id), tabs.join(","));
      await press(key, id);
      if (id === "trace") await page.waitForFunction(() => document.querySelectorAll(".tr-lab").length || document.querySelector("#v-trace .pv-why"), null, { timeout: 30000 }).catch(() => {});
      const c = await content(id);
      ok(`key ${key} opens ${id}`, (await current()) === id && !c.hidden, await current());
      ok(`${id} shows content or says why (never blank)`, c.text.length > 40 || c.drawn > 0, JSON.stringify(c).slice(0, 200));
      if (mode === "resnet") await shot(id);
    }
    ok("no errors while pressing 1 to 6", errors.length === 0, errors.join("; "));
  }

  if (mode === "resnet") {
    const gpu = arg;
    await press("1", "overview");
    const ov = await page.innerText("#v-overview");
    ok("Overview: GPU Utilization", /GPU utili[sz]ation/i.test(ov), ov.slice(0, 300));
    ok("Overview: the GPU name", gpu && ov.includes(gpu), gpu);
    ok("Overview: the DataLoader share", /DataLoader[\s\S]{0,40}?\d+(\.\d+)? ?%/.test(ov), (ov.match(/DataLoader.{0,60}/s) || [""])[0]);
    await press("2", "operators");
    const ops = await page.evaluate(() => (window.__memlens.app.views.operators.table || { rows: [] }).rows.map((r) => r.name));
    ok("Operators: aten::cudnn_convolution_backward_weight", ops.includes("aten::cudnn_convolution_backward_weight"), ops.slice(0, 5).join(", "));
    ok("... shown in the table", (await page.innerText("#v-operators tbody")).includes("aten::cudnn_convolution_backward_weight"));
    await press("3", "kernels");
    const kh = await page.$$eval("#v-kernels th", (t) => t.map((e) => e.textContent.trim()));
    ok("Kernels: the Tensor Cores column", kh.some((h) => /tensor ?cores?|^TC\b/i.test(h)), kh.join("|"));
    await press("4", "trace");
    await page.waitForFunction(() => document.querySelectorAll(".tr-lab").length > 0, null, { timeout: 30000 }).catch(() => {});
    await settle(page);
    const labels = await page.$$eval(".tr-lab", (els) => els.map((e) => e.textContent.trim()));
    ok("Trace: a lane named stream 7", labels.some((l) => /^stream 7(?!\d)/.test(l)), labels.join(" | "));
    ok("Trace: the python threads' lanes", labels.filter((l) => /thread \d+ \(python\)/.test(l)).length >= 2, labels.join(" | "));
    const px = await page.evaluate(() => {
      const c = document.querySelector(".tr-canvas") || document.querySelector("#v-trace canvas");
      if (!c) return 0;
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data, seen = new Set();
      for (let i = 0; i < d.length; i += 4 * 97) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return seen.size;
    });
    ok("Trace: the timeline is drawn (many colours on its canvas)", px > 8, String(px));
    await press("5", "memory");
    const mem = await page.evaluate(() => ({ grid: !document.querySelector("#v-memory main.grid").hidden, plots: document.querySelectorAll("#v-memory .uplot").length }));
    ok("Memory: the memory views, with charts", mem.grid && mem.plots > 0, JSON.stringify(mem));
    await press("6", "modules");
    const mo = await page.evaluate(() => ({ rows: document.querySelectorAll("#v-modules .pv-tree tbody tr[data-i]").length, why: (document.querySelector("#v-modules .pv-why") || { innerText: "" }).innerText }));
    ok("Modules: a tree, or why there is none", mo.rows > 0 || mo.why.length > 20, JSON.stringify(mo));

    // ---- looks ----
    const sizes = new Map();
    for (const [key, id] of TABS) {
      await press(key, id);
      const s = await page.evaluate(() => {
        const out = {};
        for (const el of document.querySelectorAll("body *")) {
          if (!el.offsetParent && getComputedStyle(el).position !== "fixed") continue;
          if (el.closest("svg") && el.tagName.toLowerCase() !== "text") continue;
          if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
          const r = el.getBoundingClientRect();
          if (!r.width || r.bottom < 0 || r.top > innerHeight) continue;
          const f = getComputedStyle(el).fontSize;
          (out[f] = out[f] || []).push(el.tagName.toLowerCase() + "." + String(el.className && el.className.baseVal !== undefined ? el.className.baseVal : el.className).split(" ")[0]);
        }
        return out;
      });
      for (const [f, els] of Object.entries(s)) sizes.set(f, [...(sizes.get(f) || []), ...els.map((e) => id + ":" + e)]);
    }
    const scale = [...sizes.keys()].sort((a, b) => parseFloat(a) - parseFloat(b));
    console.log("# font sizes: " + scale.map((f) => `${f} (${sizes.get(f).length}: ${[...new Set(sizes.get(f))].slice(0, 4).join(" ")})`).join("; "));
    ok("one type scale: at most 6 text sizes over tabs 1-6", scale.length <= 6, scale.join(", "));

    const misaligned = [];
    let numCells = 0;
    for (const id of ["operators", "kernels"]) {
      await press(id === "operators" ? "2" : "3", id);
      misaligned.push(...await page.evaluate((id) => {
        const bad = [];
        for (const td of document.querySelectorAll(`#v-${id} tbody td`)) {
          const t = td.innerText.trim();
          if (!/^[-+]?[\d,.]+ ?(ns|µs|us|ms|s|%|B|KiB|MiB|GiB|x)?$/.test(t)) continue;
          const cs = getComputedStyle(td);
          bad.n = (bad.n || 0) + 1;
          if (!/right|end/.test(cs.textAlign) || !/tabular-nums/.test(cs.fontVariantNumeric)) bad.push(`${id}: "${t}" ${cs.textAlign} ${cs.fontVariantNumeric}`);
        }
        return { bad, n: bad.n || 0 };
      }, id).then((r) => { numCells += r.n; return r.bad; }));
    }
    ok("aligned numbers: numeric cells right-aligned with tabular figures", misaligned.length === 0 && numCells > 50, `${numCells} numeric cells; ` + misaligned.slice(0, 5).join("; "));

    // charts: every uPlot axis shows a unit (label or tick values), and has a legend; every SVG chart a legend or labels, and tooltips
    for (const [key, id] of [["1", "overview"], ["5", "memory"]]) {
      await press(key, id);
      await settle(page);
      const axes = await page.evaluate((id) => (window.__plots || []).filter((u) => document.getElementById("v-" + id).contains(u.root) && u.root.getBoundingClientRect().width > 0)
        .map((u) => ({
          title: (u.root.closest(".panel, section, .card") || u.root.parentElement).querySelector("h2, h3")?.textContent || "",
          legend: !!u.root.querySelector(".u-legend") || !!u.root.parentElement.querySelector(".tl-legend, .u-legend, .legend"),
          axes: u.axes.filter((a) => a.show !== false).map((a) => ({ label: a.label || "", vals: (a._values || []).filter((v) => v != null).slice(0, 4).map(String) })),
        })), id);
      for (const a of axes) {
        const bare = a.axes.filter((x) => !/[A-Za-zµ%:]/.test(x.label + " " + x.vals.join(" ")));
        ok(`${id}: chart "${a.title}" has units on every axis`, bare.length === 0, JSON.stringify(a.axes));
        ok(`${id}: chart "${a.title}" has a legend`, a.legend);
      }
      const svgs = await page.evaluate((id) => [...document.querySelectorAll(`#v-${id} svg`)].filter((s) => s.getBoundingClientRect().width > 40)
        .map((s) => {
          const box = s.closest(".pv-panel, .panel, section, .card, div");
          const ticks = [...s.querySelectorAll("text")].map((t) => t.textContent);
          return { cls: s.getAttribute("class") || "", titles: s.querySelectorAll("title").length, marks: s.querySelectorAll("rect, path, circle").length,
            legend: !!(box && box.querySelector(".pv-legend, .legend, .lg")) || s.querySelectorAll("text").length > 0,
            numTicks: ticks.filter((t) => /^\s*[-\d.,]+\s*$/.test(t)) };
        }), id);
      for (const s of svgs) {
        ok(`${id}: svg chart ${s.cls} has a legend or labels`, s.legend);
        ok(`${id}: svg chart ${s.cls} has tooltips on its marks`, s.titles > 0, JSON.stringify(s));
        ok(`${id}: svg chart ${s.cls}: no bare numbers on its axis`, s.numTicks.length === 0, s.numTicks.join(","));
      }
      // a tooltip on hover over each uPlot chart
      const boxes = await page.$$eval(`#v-${id} .uplot .u-over`, (els) => els.map((e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; }).filter((r) => r[2] > 0));
      for (const [x, y, w, h] of boxes) {
        await page.mouse.move(x + w * 0.3, y + h * 0.5);
        await settle(page);
        await page.mouse.move(x + w * 0.31, y + h * 0.55);
        await settle(page);
        const tip = await page.evaluate(() => [...document.querySelectorAll(".tip, [role=tooltip], .u-legend .u-value")].filter((t) => t.getBoundingClientRect().width > 0 && /\d/.test(t.textContent)).map((t) => t.textContent.trim()).slice(0, 3));
        ok(`${id}: hovering a chart shows a tooltip or the legend's values`, tip.length > 0, "nothing with a number shown on hover");
      }
      await page.mouse.move(5, 5);
    }

    // the step categories' colours: pairwise distinguishable (CIE76 ΔE >= 10)
    await press("1", "overview");
    const cols = await page.evaluate(() => {
      const sw = [...document.querySelectorAll("#v-overview .pv-legend td:first-child *, #v-overview .pv-legend .sw, #v-overview .pv-legend i")];
      const seen = sw.map((e) => getComputedStyle(e).backgroundColor).filter((c) => c && !/rgba\(0, 0, 0, 0\)|transparent/.test(c));
      if (seen.length) return [...new Set(seen)];
      return [...new Set([...document.querySelectorAll("#v-overview svg.pv-steps rect, #v-overview svg path[fill]")].map((r) => getComputedStyle(r).fill))];
    });
    const lab = (c) => {
      const m = c.match(/[\d.]+/g).map(Number);
      const lin = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      const [r, g, b] = m.slice(0, 3).map(lin);
      const X = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, Y = 0.2126 * r + 0.7152 * g + 0.0722 * b, Z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
      const f = (t) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116);
      return [116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))];
    };
    let worst = [1e9, ""];
    for (let i = 0; i < cols.length; i++) for (let j = i + 1; j < cols.length; j++) {
      const a = lab(cols[i]), b = lab(cols[j]), d = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      if (d < worst[0]) worst = [d, cols[i] + " vs " + cols[j]];
    }
    ok("the step categories have distinguishable colours (>= 6, ΔE >= 10)", cols.length >= 6 && worst[0] >= 10, `${cols.length} colours; closest ΔE ${worst[0].toFixed(1)}: ${worst[1]}`);

    // the theme follows the system setting
    const bg = await page.evaluate(() => {
      const c = getComputedStyle(document.body).backgroundColor.match(/[\d.]+/g).map(Number);
      return (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255;
    });
    ok(`the ${scheme} theme follows the system setting`, scheme === "dark" ? bg < 0.3 : bg > 0.7, bg.toFixed(2));
    ok("no errors while looking", errors.length === 0, errors.join("; "));
  }

  if (mode === "dist") {
    const n = Number(String(arg || 2).split(":")[0]);
    const tabs = await page.$$eval(".vtab", (bs) => bs.map((b) => b.dataset.view));
    ok("the Distributed tab is offered", tabs.includes("distributed"), tabs.join(","));
    await press("7", "distributed");
    await settle(page);
    // a served page loads the other ranks when asked (ranks load lazily)
    const more = page.locator("#v-distributed button", { hasText: /^Load the other/ }).first();
    if (await more.count()) {
      await more.click();
      await page.waitForFunction((n) => !/rank\(s\) with data/.test(document.getElementById("v-distributed").innerText) ||
        new RegExp(n + " rank\\(s\\) with data").test(document.getElementById("v-distributed").innerText), n, { timeout: 60000 }).catch(() => {});
      await settle(page);
      console.log("# clicked: Load the other ranks");
    }
    const d = await page.evaluate(() => {
      const v = document.getElementById("v-distributed");
      return { text: v.innerText, bars: v.querySelectorAll(".pv-dist rect").length };
    });
    const ranks = new Set([...d.text.matchAll(/\brank (\d+)\b/gi)].map((m) => m[1]));
    ok(`Distributed lists the ${n} ranks`, [...Array(n).keys()].every((k) => ranks.has(String(k))), [...ranks].join(",") + " :: " + d.text.slice(0, 300));
    const slow = (d.text.match(/[^\n]*(slowest|straggler)[^\n]*/i) || [""])[0];
    console.log("# " + slow);
    const [, want = ""] = String(arg).split(":");
    ok("Distributed names the slowest rank" + (want ? " (rank " + want + ")" : ""), slow && (!want || new RegExp("rank:? " + want + "\\b").test(slow)), slow || d.text.slice(0, 300));
    // the collectives table: no two rows alike; several ranks' rows carry their rank
    const coll = await page.evaluate(() => {
      const t = window.__memlens.app.views.distributed.table;
      if (!t) return null;
      const keyCols = t.columns.filter((c) => ["rank", "group_size", "name"].includes(c.key)).map((c) => c.key);
      const keys = t.rows.map((r) => keyCols.map((k) => r[k]).join(" | "));
      return { keyCols, rows: t.rows.length, distinct: new Set(keys).size, ranks: new Set(t.rows.map((r) => r.rank)).size, title: document.querySelector("#v-distributed .pv-main h2").textContent };
    });
    ok("the collectives table tells its rows apart (rank, process group size)", coll && coll.rows > 0 && coll.distinct === coll.rows &&
      (coll.ranks < 2 || (coll.keyCols.includes("rank") && /ranks\)/.test(coll.title))), JSON.stringify(coll));
    await shot("distributed");
    ok("no errors on Distributed", errors.length === 0, errors.join("; "));
  }

  if (mode === "snapshot") {
    await settle(page);
    const text = await page.innerText("#v-memory");
    // torch/utils/viz/MemoryViz.js's views, by their names there
    const views = ["Active Memory Timeline", "Allocated Memory (incl. Private Pools)", "Allocator State History", "Active Cached Segment Timeline", "Allocator Settings"];
    const missing = views.filter((v) => !text.toLowerCase().includes(v.toLowerCase()));
    ok("a snapshot report offers the five MemoryViz views by name", missing.length === 0, "missing: " + missing.join(", "));
    await shot("snapshot");
    // the state-history view steps through events: its button, then next (›) or → changes what it shows
    const btn = page.locator("#v-memory button", { hasText: /state history/i }).first();
    if (await btn.count()) {
      await btn.click();
      await settle(page);
      const at = async () => { const m = (await page.innerText("#v-memory")).match(/event ([\d,]+) of ([\d,]+)/); return m ? Number(m[1].replace(/,/g, "")) : -1; };
      const e0 = await at();
      await page.locator("#v-memory button", { hasText: /^‹$/ }).first().click().catch(() => {});
      await settle(page);
      const e1 = await at();
      await page.locator("#v-memory button", { hasText: /^›$/ }).first().click().catch(() => {});
      await settle(page);
      const e2 = await at();
      ok("the state-history view steps through events (‹ and ›)", e0 > 0 && e1 === e0 - 1 && e2 === e0, `${e0} -> ${e1} -> ${e2}`);
      await shot("snapshot-history");
    } else ok("the state-history view steps through events", false, "no state-history button");
    ok("no errors on the snapshot report", errors.length === 0, errors.join("; "));
  }

  if (mode === "memstatic") {
    ok("the static report draws its chart", await page.evaluate(() => [...document.querySelectorAll("#v-memory .uplot canvas, #v-memory svg")].some((c) => c.getBoundingClientRect().width > 100)));
    const sel = await page.$$("#v-memory select");
    let switched = false, why = "no graph selector";
    for (const s of sel) {
      const opts = await s.$$eval("option", (o) => o.map((x) => x.value));
      if (opts.length < 2 || !/graph|static/i.test(await s.evaluate((e) => (e.id + " " + (e.labels && e.labels[0] ? e.labels[0].textContent : "") + " " + e.closest("label, div").textContent)))) continue;
      const t0 = await page.innerText("#v-memory");
      const cur = await s.evaluate((e) => e.value);
      await s.selectOption(opts.find((o) => o !== cur));
      await settle(page);
      switched = (await page.innerText("#v-memory")) !== t0;
      why = "selecting another graph changed nothing";
      break;
    }
    ok("the static report switches graphs", switched, why);
    await shot("static");
    ok("no errors on the static report", errors.length === 0, errors.join("; "));
  }
});
