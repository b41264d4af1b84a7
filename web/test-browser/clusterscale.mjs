// clusterscale.mjs — the Cluster view's colour scale in headless Chromium:
// ranks within noise of each other read as one colour, a straggler stands out.
//
//   node web/test-browser/clusterscale.mjs --pages LIST   (lib.mjs's eachPage)
//   a page: PAGE SHOT_DIR STRAGGLER SLOW_US   (STRAGGLER: the slow rank, or -1:
//   none; SLOW_US: the slow step's duration in µs)
//
// The step-time heatmap's cells are read back from the canvas (the colour at
// each cell's centre).  Without a straggler (gen_trace's job: steps within
// 0.05 % of each other) every cell is the same colour, give or take a few
// shades of the ramp; with one (a step of STRAGGLER's made 10 % longer) that
// cell is far from every other and the others still agree among themselves.
// The legend says what the colours span.  Prints "ok NAME" / "FAIL NAME: why".
import { eachPage, ok } from "./lib.mjs";
import { pathToFileURL } from "node:url";
import path from "node:path";
import fs from "node:fs";

// the most any one channel differs: viridis' neighbouring shades differ by
// 1-3, its two ends by 200 and more
const dist = (a, b) => Math.max(...a.map((c, i) => Math.abs(c - b[i])));
const SAME = 24, APART = 80;

await eachPage(async (browser, [file, shots, straggler, slowUs]) => {
  fs.mkdirSync(shots, { recursive: true });
  const errors = [];
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(pathToFileURL(path.resolve(file)).href, { timeout: 60000 });
  await page.waitForFunction(() => { const c = document.querySelector("#v-cluster canvas.cl-map"); return c && c.width > 0; }, null, { timeout: 60000 });
  ok("page starts", errors.length === 0, errors.join("; "));
  // per cell: its rank, its step and the colour at its centre
  const cells = await page.evaluate(() => {
    const v = window.__memlens.app.views.cluster, L = v.L, c = L.c, g = c.getContext("2d"), k = c.width / L.W, out = [];
    for (let b = 0; b < L.bins; b++) {
      for (let s = 0; s < v.data.nSteps; s++) {
        const x = Math.round((L.labW + (s + 0.5) * L.colW) * k), y = Math.round((L.top + (b + 0.5) * L.binH) * k);
        const [, who] = v.binCell(L, b, s);
        out.push({ rank: v.data.rankNo[who], s, rgb: [...g.getImageData(x, y, 1, 1).data.slice(0, 3)] });
      }
    }
    return out;
  });
  await page.screenshot({ path: path.join(shots, "scale.png") });
  const slow = +straggler, legend = await page.$eval("#v-cluster .cl-legend", (l) => l.textContent.replace(/\s+/g, " "));
  ok("every rank and step is a cell", cells.length === 16 * 3, String(cells.length));
  if (slow < 0) {
    let most = 0;
    for (const a of cells) for (const b of cells) most = Math.max(most, dist(a.rgb, b.rgb));
    ok("steps within 0.05 % of each other are one colour band", most <= SAME, `cells differ by up to ${most} in a channel`);
    ok("the legend says the colours span at least ±1% of the median", /colours span at least ±1% of the median/.test(legend), legend);
  } else {
    const hot = cells.filter((c) => c.rank === slow).map((c) => c.rgb), rest = cells.filter((c) => c.rank !== slow);
    // the straggler's slow step: the cell of its farthest from the others
    const far = (x) => Math.min(...rest.map((c) => dist(x, c.rgb)));
    const gap = Math.max(...hot.map(far));
    let most = 0;
    for (const a of rest) for (const b of rest) most = Math.max(most, dist(a.rgb, b.rgb));
    ok("a straggler's slow step stands out", gap >= APART, `its cell is ${gap} from the nearest other`);
    ok("the other ranks stay one colour band beside it", most <= SAME, `they differ by up to ${most} in a channel`);
    // the ramp's top: the slow step (the ±1% floor widens its bottom only)
    const top = +(/values run from [\d.]+ ms to ([\d.]+) ms/.exec(legend) || [])[1] * 1000;
    ok("the legend says the colours reach the slow step", Math.abs(top - slowUs) <= slowUs * 0.005, `${legend} (the slow step: ${slowUs} µs)`);
  }
  ok("no errors", errors.length === 0, errors.join("; "));
});
