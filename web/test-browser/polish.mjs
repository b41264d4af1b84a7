// polish.mjs — the memory views' finishing touches in headless Chromium:
// legends tell series apart, tables say when nothing matches and when a size
// is not one, rows stay one line, counts are pluralised, byte ticks whole,
// important notes open; a report and `memlens serve` of one input draw the
// same bars.
//
//   node web/test-browser/polish.mjs SHOT_DIR KIND=URL-OR-FILE ...
//
// KIND: kineto | ascend | snapshot | tiny | served-kineto (compared with
// kineto).  Prints "ok NAME" / "FAIL NAME: why".
import { checks, launch, ok } from "./lib.mjs";
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
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const allocPx = []; // the widths the served page asked the bars for
    page.on("request", (r) => { const m = /\/api\/allocs\?.*\bpx=(\d+)/.exec(r.url()); if (m) allocPx.push(+m[1]); });
    const url = /^https?:/.test(where) ? where : pathToFileURL(path.resolve(where)).href;
    // opened straight on the Memory tab: no tab switch redraws it
    await page.goto(url + "#view=memory");
    await page.waitForFunction(() => window.__memlens && (window.__memlens.ready || window.__memlens.error), null, { timeout: 60000 });
    if (await page.$('.vtab[data-view="memory"]') && !(await page.isVisible("#tl-note"))) await page.click('.vtab[data-view="memory"]');
    await page.waitForTimeout(800);
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
    await page.waitForTimeout(800);
    await page.screenshot({ path: path.join(shots, `${kind}-group.png`) });
    seen.push(await counts());
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.waitForTimeout(1200);
    seen.push(await counts());
    await page.setViewportSize({ width: 1600, height: 1000 });
    await page.waitForTimeout(1200);
    await page.click("#btn-peak").catch(() => {});
    await page.waitForTimeout(1200);
    seen.push(await counts());
    // zooming fast: windows asked one after the other, answers in any order; the last one drawn
    await page.evaluate(() => {
      const app = window.__memlens.app, d = app.dev(), w = (a, b) => [d.t0 + a * (d.t1 - d.t0), d.t0 + b * (d.t1 - d.t0)];
      for (const [a, b] of [[0, 1], [0.1, 0.9], [0.2, 0.8], [0.25, 0.7], [0.3, 0.6]]) app.setWindow(...w(a, b));
    });
    await page.waitForTimeout(2000);
    seen.push(await counts());
    await page.screenshot({ path: path.join(shots, `${kind}-zoomed.png`) });
    notes[kind] = seen;
    if (kind === "ascend") { // the component view's legend: a dashed swatch for a dashed series, no twin colours
      const m = await page.evaluate(() => [...document.querySelectorAll("#p-curves .u-legend .u-series, .u-legend .u-series")].slice(0, 20).map((e) => {
        const mk = e.querySelector(".u-marker"), lab = e.querySelector(".u-label");
        return mk && lab ? [lab.textContent, getComputedStyle(mk).borderTopStyle, getComputedStyle(mk).borderTopColor] : null;
      }).filter(Boolean));
      const alloc = m.find((x) => / allocated/.test(x[0])), resv = m.find((x) => / reserved/.test(x[0]));
      const lg = await page.$(".u-legend");
      if (lg) await lg.screenshot({ path: path.join(shots, `${kind}-legend.png`) });
      ok("ascend: allocated and reserved swatches differ (solid vs dashed)", alloc && resv && alloc[1] !== resv[1], JSON.stringify(m.slice(0, 4)));
    }
    if (kind === "kineto") { // the total beside the operators: not the first operator's colour
      await page.selectOption("#sel-group", "op");
      await page.waitForTimeout(600);
      const c = await page.evaluate(() => [...document.querySelectorAll(".u-legend")][0].querySelectorAll(".u-series .u-marker"));
      const cols = await page.evaluate(() => [...[...document.querySelectorAll(".u-legend")][0].querySelectorAll(".u-series .u-marker")].map((mk) => getComputedStyle(mk).borderTopColor));
      ok("kineto: group by op: the total's colour is no operator's", cols.length > 2 && !cols.slice(2).includes(cols[1]), cols.join(" "));
      // the tables: a size that is not one, accepted forms, nothing left
      const fill = async (id, v) => { await page.fill(id, v); await page.press(id, "Enter"); await page.waitForTimeout(700); };
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
