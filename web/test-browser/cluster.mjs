// cluster.mjs — drives the Cluster view (key 9) of a job's page in headless Chromium.
//
//   node web/test-browser/cluster.mjs PAGE|URL SHOT_DIR [PLANTED.json] [light|dark]
//
// PLANTED: gen_trace's --expect of the job (slow, leaking, out-of-memory ranks):
// the outliers beside the heatmap name exactly those ranks.  The page opens on
// the Cluster view (a job of more than 8 ranks); the heatmap is drawn; the
// metric, the rows by node and the address round-trip; a hover names a rank
// and a step; a click on a cell opens that rank's Memory view zoomed to that
// step (or, for a rank the report summarised, says so).  Prints "ok NAME" /
// "FAIL NAME: why" and "time NAME MS" (ready: the heatmap drawn, from the
// navigation's start; click: from a click on a cell to that rank's view
// drawn); screenshots of each state.
import { checks, launch, ok } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

const [file, shots = "build/screenshots/cluster", planted = "", scheme = "light"] = process.argv.slice(2);
fs.mkdirSync(shots, { recursive: true });
const served = /^http:\/\//.test(file);

const browser = await launch();
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 }, colorScheme: scheme });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  const t0 = Date.now();
  await page.goto(served ? file : pathToFileURL(path.resolve(file)).href, { timeout: 120000 });
  await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 120000 });
  // interactive: the heatmap drawn
  await page.waitForFunction(() => { const c = document.querySelector("#v-cluster canvas.cl-map"); return c && c.width > 0; }, null, { timeout: 120000 }).catch(() => {});
  console.log("time ready " + (Date.now() - t0));
  const err = await page.evaluate(() => window.__memlens.error || "");
  ok("page starts without errors", !err && errors.length === 0, err || errors.join("; "));
  if (err) throw new Error(err);
  const shot = (name, full = false) => page.screenshot({ path: path.join(shots, `${name}-${scheme}.png`), fullPage: full });
  const current = () => page.evaluate(() => window.__memlens.app.tabs.current);
  ok("a job opens on the Cluster view", (await current()) === "cluster", await current());
  ok("the Cluster tab is key 9", await page.$eval("#tab-cluster", (b) => b.textContent.startsWith("9")).catch(() => false));
  // the heatmap has coloured cells
  const painted = () => page.evaluate(() => {
    const c = document.querySelector("#v-cluster canvas.cl-map"), g = c.getContext("2d");
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4 * 7) if (d[i] === 255) n++;
    return n;
  });
  ok("the heatmap is drawn", (await painted()) > 1000, String(await painted()));
  const nRanks = await page.evaluate(() => window.__memlens.app.views.cluster.data.nRanks);
  ok("every rank is in the view", nRanks === (await page.evaluate(() => window.__memlens.app.meta.ranks.length)), String(nRanks));
  await shot("cluster-time");
  await shot("cluster-full", true);

  if (planted) {
    const p = JSON.parse(fs.readFileSync(planted, "utf8"));
    const want = new Set([...p.slow_ranks, p.leak_rank, p.oom_rank].filter((x) => x != null));
    const got = await page.$$eval(".cl-out tbody tr td:first-child", (tds) => tds.map((t) => +t.textContent));
    ok("the outliers are the planted ranks", got.length > 0 && [...new Set(got)].sort((a, b) => a - b).join(",") === [...want].sort((a, b) => a - b).join(","),
      `got ${[...new Set(got)].join(",")}, planted ${[...want].join(",")}`);
  }

  // hover a cell: its rank and step
  const box = await page.$eval("#v-cluster canvas.cl-map", (c) => { const r = c.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
  await page.mouse.move(box.x + 84 + 10, box.y + 22 + 3);
  const tip = await page.$eval(".cl-tip", (t) => (t.hidden ? "" : t.textContent));
  ok("a hover names a rank and a step", /rank \d+/.test(tip) && /step /.test(tip), tip);

  // the bottom-right cell at the window's bottom edge (the window made just
  // tall enough to show it): its tip is wholly inside the window and off
  // the cell it describes
  const cellAt = () => page.evaluate(() => {
    const L = window.__memlens.app.views.cluster.L, r = document.querySelector("#v-cluster canvas.cl-map").getBoundingClientRect();
    const s = Math.floor(L.plotW / L.colW) - 1, left = r.x + L.labW + s * L.colW, top = r.y + L.top + (L.bins - 1) * L.binH;
    return { left, top, right: left + L.colW, bottom: top + L.binH, vw: innerWidth, vh: innerHeight };
  });
  await page.setViewportSize({ width: 1600, height: Math.ceil((await cellAt()).bottom) + 3 });
  const edge = await cellAt();
  await page.mouse.move((edge.left + edge.right) / 2, (edge.top + edge.bottom) / 2);
  const tipBox = await page.$eval(".cl-tip", (t) => { const r = t.getBoundingClientRect(); return { hidden: t.hidden, left: r.left, top: r.top, right: r.right, bottom: r.bottom }; });
  await shot("tip-edge");
  const inside = !tipBox.hidden && tipBox.left >= 0 && tipBox.top >= 0 && tipBox.right <= edge.vw && tipBox.bottom <= edge.vh;
  const covers = tipBox.left < edge.right && tipBox.right > edge.left && tipBox.top < edge.bottom && tipBox.bottom > edge.top;
  ok("the hovered cell is at the window's bottom edge", edge.bottom <= edge.vh && edge.bottom > edge.vh - 40, JSON.stringify(edge));
  ok("a tip at the window's edge is inside the window, off its cell", inside && !covers, JSON.stringify({ tip: tipBox, cell: edge }));
  await page.mouse.move(0, 0);
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.evaluate(() => window.scrollTo(0, 0));

  // the metrics and the rows by node, kept in the address
  await page.click('#v-cluster .cl-metric button[data-m="peak"]');
  ok("peak memory drawn", (await painted()) > 1000);
  ok("the address keeps the metric", new URL(page.url()).hash.includes("metric=peak"), page.url());
  await shot("cluster-peak");
  await page.selectOption("#v-cluster .cl-rows", "node");
  const nodes = await page.evaluate(() => { const v = window.__memlens.app.views.cluster; return v.L.rows.n; });
  const per = await page.evaluate(() => window.__memlens.app.views.cluster.perNode);
  ok("rows by node", nodes === Math.ceil(nRanks / per), `${nodes} rows, ${nRanks} ranks, ${per} per node`);
  ok("the address keeps the rows", new URL(page.url()).hash.includes("rows=node"), page.url());
  await shot("cluster-node");
  // the address reopens the same state
  const hash = new URL(page.url()).hash;
  await page.keyboard.press("1");
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.waitForFunction(() => window.__memlens.app.tabs.current === "cluster", null, { timeout: 10000 }).catch(() => {});
  ok("the address reopens the Cluster view as it was", await page.evaluate(() => { const v = window.__memlens.app.views.cluster; return window.__memlens.app.tabs.current === "cluster" && v.metric === "peak" && v.byNode; }));
  await page.selectOption("#v-cluster .cl-rows", "rank");

  // a click on an embedded rank's cell: its Memory view at that step (the rank the hover names there)
  const target = await page.evaluate(() => {
    const v = window.__memlens.app.views.cluster, d = v.data, L = v.L;
    for (let b = 0; b < L.bins; b++) {
      const [val, who] = v.binCell(L, b, 0);
      if (who >= 0 && val >= 0 && (!d.embedded || d.embedded[who]) && d.time[who * d.nSteps] > 0) return { b };
    }
    return null;
  });
  if (target) {
    // the canvas may have moved since (the panels above it were drawn again): measure it now
    const box = await page.$eval("#v-cluster canvas.cl-map", (c) => { const r = c.getBoundingClientRect(); return { x: r.x, y: r.y }; });
    const L = await page.evaluate(() => { const L = window.__memlens.app.views.cluster.L; return { binH: L.binH, colW: L.colW, labW: L.labW, top: L.top }; });
    const x = box.x + L.labW + L.colW / 2, y = box.y + L.top + (target.b + 0.5) * L.binH;
    await page.mouse.move(x, y);
    const named = await page.$eval(".cl-tip", (t) => t.textContent);
    const rank = +(/rank (\d+)/.exec(named) || [])[1];
    const want = await page.evaluate((rk) => { const d = window.__memlens.app.views.cluster.data, i = d.rankNo.indexOf(rk); return { dur: d.time[i * d.nSteps], emb: !d.embedded || d.embedded[i] }; }, rank);
    const before = await page.evaluate(() => window.__memlens.app.views.cluster.opened || 0);
    const tc = Date.now();
    await page.mouse.click(x, y);
    await page.waitForFunction((n) => (window.__memlens.app.views.cluster.opened || 0) > n || document.querySelector("#v-cluster .cl-msg").textContent, before, { timeout: 15000 }).catch(() => {});
    // a click answered: that rank's view drawn (or the message for a summarised rank)
    console.log("time click " + (Date.now() - tc));
    const st = await page.evaluate(() => { const a = window.__memlens.app; return { view: a.tabs.current, rank: a.meta.ranks[a.tabs.rank].rank, span: a.state.t1 - a.state.t0 }; });
    if (want.emb) {
      ok("a click opens that rank's memory at that step", st.view === "memory" && st.rank === rank && Math.abs(st.span - want.dur) <= Math.max(2, want.dur * 0.01),
        JSON.stringify(st) + " want rank " + rank + " span " + want.dur);
      await shot("clicked-memory");
      await page.keyboard.press("9");
      await page.waitForFunction(() => window.__memlens.app.tabs.current === "cluster", null, { timeout: 5000 }).catch(() => {});
      ok("key 9 comes back to the Cluster view", (await current()) === "cluster");
    } else ok("a click on a summarised rank says so", /summarised in this report/.test(await page.$eval("#v-cluster .cl-msg", (m) => m.textContent)));
  } else ok("an embedded rank to click", false, "none found");

  // a summarised rank (reports beyond their budget): the view says so
  const stub = await page.evaluate(() => { const d = window.__memlens.app.views.cluster.data; return d.embedded ? d.embedded.indexOf(0) : -1; });
  if (stub >= 0) {
    await page.evaluate((i) => window.__memlens.app.views.cluster.openRank(i, 0), stub);
    const msg = await page.$eval("#v-cluster .cl-msg", (m) => m.textContent);
    ok("a summarised rank says so", /summarised in this report/.test(msg) && /memlens serve/.test(msg), msg);
    await shot("summarised");
  }
  ok("no errors while using the page", errors.length === 0, errors.join("; "));
} catch (e) {
  ok("the page runs", false, String(e && e.stack || e));
} finally {
  await browser.close();
}
process.exit(checks.failed ? 1 : 0);
