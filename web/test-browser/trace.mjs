// trace.mjs — the Trace view in headless Chromium (a report or a served page,
// opened at #view=trace).
//
//   node web/test-browser/trace.mjs PAGE SHOT_DIR [--timing] [--scheme light|dark]
//
// Checks: lanes are labelled (threads and streams), the wheel zooms (the axis
// changes), clicking a kernel opens its detail with its launcher, the search
// highlights matches, W/A/S/D move the window, and the page makes no request.
// --timing: the median and 95th percentile of the draw time of pan and zoom
// frames ("time trace_pan_ms X", "time trace_zoom_ms X").
import { eachPage, ok, settle, track } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

await eachPage(async (browser, args) => {
  const [file, shots = "build/screenshots/trace"] = args.filter((a) => !a.startsWith("--"));
  const timing = args.includes("--timing");
  const scheme = args.includes("--dark") ? "dark" : "light";
  fs.mkdirSync(shots, { recursive: true });

  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 }, colorScheme: scheme });
  await track(page.context()); // settle(page): done when its fetches, short timers and frames are
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // failed requests are judged by their answer below (the other views' routes may not exist yet: /api/perf)
  page.on("console", (m) => { if (m.type() === "error" && !/^Failed to load resource/.test(m.text())) errors.push(m.text()); });
  page.on("response", (r) => { if (r.status() >= 400 && !/\/api\/perf\b/.test(r.url())) errors.push(`HTTP ${r.status()} ${r.url()}`); });
  const served = /^http:/.test(file);
  const origin = served ? new URL(file).origin : "";
  // nothing is fetched from the network but, after its click, Perfetto (its reachability first)
  let perfettoAsked = false;
  page.on("request", (r) => { if (!/^(file|data|blob):/.test(r.url()) && !(served && r.url().startsWith(origin + "/")) && !(perfettoAsked && r.url().startsWith("https://ui.perfetto.dev/"))) errors.push("network request: " + r.url()); });
  const url = (served ? file : pathToFileURL(path.resolve(file)).href) + "#view=trace";
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 60000 });
  const err = await page.evaluate(() => window.__memlens.error || "");
  ok("trace view starts without errors", !err && errors.length === 0, err || errors.join("; "));
  if (err) throw new Error(err);
  // first data drawn
  await page.evaluate(() => { window.TV = () => (window.__memlens.trace || window.__memlens.app.traceHandle || {}).view; });
  await page.waitForFunction(() => window.TV() && window.TV().data, null, { timeout: 60000 });
  console.log("time trace_interactive_ms " + (Date.now() - t0));
  const view = () => page.evaluate(() => { const v = window.TV(); return { t0: v.t0, t1: v.t1, axis: (v.axisLabels || []).join("|"), sel: v.sel && v.sel.id, slices: v.data.slices.id.length, merged: v.data.merged.track.length }; });

  const labels = await page.$$eval(".tr-lab", (els) => els.map((e) => e.textContent));
  ok("lanes are labelled as HTML (threads and streams)", labels.some((l) => /thread|python/i.test(l)) && labels.some((l) => /stream/i.test(l)), labels.slice(0, 8).join(", "));
  const mem = await page.evaluate(() => { const v = window.TV(); return { devs: (v.rank.devices || []).length, labs: document.querySelectorAll(".tr-lab.mem").length, drawn: v.mem.filter((m) => m.data && m.data.t.length).length }; });
  if (mem.devs) {
    ok("the rank's memory curves are tracks on the same axis", mem.labs > 0 && mem.drawn === mem.labs, JSON.stringify(mem));
    const cb = await (await page.$(".tr-canvas")).boundingBox();
    const my = await page.evaluate(() => { const v = window.TV(), r = v.lay.rows.find((x) => x.extra); return r.y - v.scrollY + r.h / 2; });
    await page.mouse.move(cb.x + cb.width * 0.5, cb.y + my);
    const tip = await page.evaluate(() => { const t = document.querySelector(".tr-tip"); return t.hidden ? "" : t.textContent; });
    ok("hovering a memory track shows the value then", /memory .*\d.*B/.test(tip), tip);
  }
  await page.screenshot({ path: path.join(shots, `trace-${scheme}.png`) });

  // a deep track's label collapses it to its top row, and back
  {
    const h0 = await page.evaluate(() => window.TV().lay.height);
    const deep = await page.$(".tr-lab.deep");
    if (deep) {
      await deep.click();
      const h1 = await page.evaluate(() => window.TV().lay.height);
      await (await page.$(".tr-lab.deep")).click();
      const h2 = await page.evaluate(() => window.TV().lay.height);
      ok("a click on a deep track's name collapses it and expands it again", h1 < h0 && h2 === h0, JSON.stringify([h0, h1, h2]));
    }
  }
  // wheel zoom at the middle: the window shrinks and the axis changes
  const cv = await page.$(".tr-canvas");
  const b = await cv.boundingBox();
  const before = await view();
  await page.mouse.move(b.x + b.width * 0.3, b.y + 40);
  for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -300);
  await settle(page);
  const after = await view();
  ok("the wheel zooms in and the axis changes", after.t1 - after.t0 < (before.t1 - before.t0) * 0.6 && after.axis !== before.axis, JSON.stringify([before, after]));
  // keys: D pans right, S zooms out
  await page.keyboard.press("d");
  const panned = await view();
  ok("D pans right", panned.t0 > after.t0, JSON.stringify([after.t0, panned.t0]));
  await page.keyboard.press("0");
  await settle(page);

  // click a kernel: the detail names its launcher (zoomed into a stream's merged run until one is drawn whole)
  for (let tries = 0; tries < 25; tries++) {
    const zoomed = await page.evaluate(() => {
      const v = window.TV(), d = v.data, S = d.slices, M = d.merged;
      const k = v.tracks.filter((t) => t.kind === "stream").map((t) => t.id);
      for (let i = 0; i < S.id.length; i++) if (k.includes(S.track[i]) && S.kind[i] === 5 && S.dur[i] * v.canvas.clientWidth / (v.t1 - v.t0) >= 3) return false;
      for (let i = 0; i < M.track.length; i++) if (k.includes(M.track[i])) { v.setWindow(d.mt0[i], d.mt0[i] + Math.max(2000, Math.min(d.mt1[i] - d.mt0[i], (v.t1 - v.t0) / 20))); return true; }
      return false;
    });
    if (!zoomed) break;
    await page.waitForFunction(() => !window.TV().inflight, null, { timeout: 10000 });
    await page.waitForTimeout(50);
  }
  const target = await page.evaluate(() => {
    const v = window.TV(), d = v.data, S = d.slices;
    const k = v.tracks.filter((t) => t.kind === "stream").map((t) => t.id);
    let best = -1;
    for (let i = 0; i < S.id.length; i++) if (k.includes(S.track[i]) && S.kind[i] === 5 && (best < 0 || S.dur[i] > S.dur[best])) best = i;
    if (best < 0) return null;
    const w = v.canvas.clientWidth, kx = w / (v.t1 - v.t0);
    const x = (Math.max(S.ts[best], v.t0) - v.t0) * kx + Math.min(2, S.dur[best] * kx / 2);
    const y = v.lay.yOf(S.track[best], S.depth[best]) - v.scrollY + 9;
    if (y > v.viewH() - 5) { v.scrollY = v.lay.yOf(S.track[best], 0) - 100; v.placeLabels(); v.draw(); }
    return { x, y: v.lay.yOf(S.track[best], S.depth[best]) - v.scrollY + 9, id: S.id[best] };
  });
  if (target) {
    await page.mouse.click(b.x + target.x, b.y + target.y);
    await page.waitForFunction(() => { const v = window.TV(); return v.sel && !v.detailEl.hidden; }, null, { timeout: 10000 }).catch(() => {});
    const det = await page.evaluate(() => ({ text: document.querySelector(".tr-detail").innerText, sel: window.TV().sel }));
    ok("clicking a kernel opens its detail with its launcher", det.sel && det.sel.kind === "kernel" && /launched by/.test(det.text) && det.sel.launcher != null,
      det.text.slice(0, 300));
    await page.screenshot({ path: path.join(shots, `trace-detail-${scheme}.png`) });
  } else ok("a kernel to click", false, "no kernel slice drawn");

  // search: matches are counted and drawn highlighted
  const word = await page.evaluate(() => { const v = window.TV(), S = v.data.slices; for (let i = 0; i < S.id.length; i++) { const s = v.data.strings[S.name[i]]; if (/nccl|gemm|addmm|mm/i.test(s)) return s.match(/nccl|gemm|addmm|mm/i)[0]; } return "aten"; });
  await page.fill(".tr-search", word);
  await page.press(".tr-search", "Enter");
  await page.waitForFunction(() => { const v = window.TV(); return v.data && v.data.q; }, null, { timeout: 10000 }).catch(() => {});
  const hits = await page.evaluate(() => document.querySelector(".tr-hits").textContent);
  ok("the search counts and highlights matches", /[1-9][\d,]* match/.test(hits), hits);
  await page.waitForFunction((w) => { const v = window.TV(); return v.sel && v.sel.name.toLowerCase().includes(w.toLowerCase()); }, word, { timeout: 10000 }).catch(() => {});
  const first = await page.evaluate(() => { const v = window.TV(); return v.sel ? { id: v.sel.id, name: v.sel.name, ts: v.sel.ts } : null; });
  await page.click(".tr-next");
  await page.waitForFunction((id) => { const v = window.TV(); return v.sel && v.sel.id !== id; }, first && first.id, { timeout: 10000 }).catch(() => {});
  const second = await page.evaluate(() => { const v = window.TV(); return v.sel ? { id: v.sel.id, name: v.sel.name, ts: v.sel.ts, shown: v.sel.ts < v.t1 && v.sel.ts + v.sel.dur > v.t0 } : null; });
  ok("Enter and the next button select the matches in turn, in view", first && second && second.id !== first.id && second.ts >= first.ts &&
    second.name.toLowerCase().includes(word.toLowerCase()) && second.shown, JSON.stringify([first, second]));
  await page.screenshot({ path: path.join(shots, `trace-search-${scheme}.png`) });
  await page.fill(".tr-search", "");
  await page.press(".tr-search", "Enter");

  // axis: relative time
  await page.click(".tr-axismode");
  const rel = await view();
  ok("the axis switches to relative time", /^\+/.test(rel.axis.split("|")[0] || "") || (rel.axis.split("|")[0] || "").startsWith("+"), rel.axis);

  // Download trace: Chrome JSON with every slice of the view
  {
    const [dl] = await Promise.all([page.waitForEvent("download", { timeout: 60000 }), page.click(".tr-download")]);
    const text = fs.readFileSync(await dl.path(), "utf8");
    let j = null;
    try { j = JSON.parse(text); } catch { /* below */ }
    const nX = j ? j.traceEvents.filter((e) => e.ph === "X").length : -1;
    const total = await page.evaluate(() => window.TV().rank.trace.total);
    ok("Download trace saves Chrome JSON with every slice", nX === total && /\.trace\.json$/.test(dl.suggestedFilename()), `${nX} X events of ${total}, ${dl.suggestedFilename()}`);
  }
  // Open in Perfetto: the documented postMessage protocol, against a stand-in for ui.perfetto.dev
  {
    await page.context().route("https://ui.perfetto.dev/**", (route) => route.fulfill({ contentType: "text/html",
      body: `<title>perfetto stand-in</title><script>window.addEventListener("message", (e) => {
        if (e.data === "PING") e.source.postMessage("PONG", "*");
        else if (e.data && e.data.perfetto) { const p = e.data.perfetto; window.__got = { title: p.title, bytes: p.buffer.byteLength,
          head: new TextDecoder().decode(new Uint8Array(p.buffer).slice(0, 30)) }; }
      });</script>` }));
    perfettoAsked = true;
    const [popup] = await Promise.all([page.waitForEvent("popup", { timeout: 20000 }), page.click(".tr-perfetto")]);
    const got = await popup.waitForFunction(() => window.__got, null, { timeout: 60000 }).then((h) => h.jsonValue()).catch((e) => ({ error: String(e) }));
    ok("Open in Perfetto posts the trace after PING/PONG", got.bytes > 100 && /traceEvents|displayTimeUnit/.test(got.head) && got.title, JSON.stringify(got));
    await popup.close();
  }

  if (timing) {
    // frames: pan and zoom, each a full draw with fresh data (awaited)
    const res = await page.evaluate(async () => {
      const v = window.TV(), parts = { get: [], draw: [] };
      const frame = async (a, b) => {
        v.t0 = a; v.t1 = b;
        const s = performance.now();
        const ans = await v.source.getTrace(v.state.rank, a, b, v.canvas.clientWidth, {});
        const k = (b - a) / v.canvas.clientWidth, M = ans.merged;
        ans.mt0 = Float64Array.from(M.x0, (x) => a + x * k); ans.mt1 = Float64Array.from(M.x1, (x) => a + x * k);
        v.data = ans;
        const m = performance.now();
        v.draw();
        const e = performance.now();
        parts.get.push(m - s); parts.draw.push(e - m);
        return e - s;
      };
      const span0 = v.hi - v.lo, pan = [], zoom = [];
      let a = v.lo, b = v.hi;
      for (let i = 0; i < 40; i++) { const f = 0.85; const m = (a + b) / 2; a = m - (m - a) * f; b = m + (b - m) * f; zoom.push(await frame(a, b)); }
      for (let i = 0; i < 40; i++) { const d = (b - a) * 0.05; a += d; b += d; pan.push(await frame(a, b)); }
      a = v.lo; b = v.lo + span0 * 0.5;
      for (let i = 0; i < 40; i++) { const d = span0 * 0.01; a += d; b += d; pan.push(await frame(a, b)); }
      const st = (x) => { x = x.slice().sort((p, q) => p - q); return [x[Math.floor(x.length / 2)], x[Math.floor(x.length * 0.95)]]; };
      return { pan: st(pan), zoom: st(zoom), get: st(parts.get), draw: st(parts.draw), n: v.data.n, slices: v.data.slices.id.length, merged: v.data.merged.track.length };
    });
    console.log(`time trace_pan_ms ${res.pan[0].toFixed(1)} p95 ${res.pan[1].toFixed(1)}`);
    console.log(`time trace_zoom_ms ${res.zoom[0].toFixed(1)} p95 ${res.zoom[1].toFixed(1)}`);
    console.log(`info slices ${res.n} drawn ${res.slices} merged ${res.merged}; per frame: window ${res.get[0].toFixed(1)} ms (p95 ${res.get[1].toFixed(1)}), draw ${res.draw[0].toFixed(1)} ms (p95 ${res.draw[1].toFixed(1)})`);
    await page.evaluate(() => { const v = window.TV(); v.setWindow(v.lo, v.hi); });
    await settle(page);
    await page.screenshot({ path: path.join(shots, `trace-big-${scheme}.png`) });
  }
  ok("no errors while using the view", errors.length === 0, errors.join("; "));
});
