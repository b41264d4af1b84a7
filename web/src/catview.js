// catview.js — the "memory by category" panel: a stacked-area chart of the
// memory categories (PARAMETER at the bottom ... Unknown on top, PyTorch's
// order), on the time axis and zoom of the memory curves.  Its data comes
// from source.getCategoryCurve (exact at every zoom: stack.js); the top of
// the stack is the allocated curve: its lowest band, "(allocated before
// trace)" (category_curves cat -1), is what the recorded allocated curve
// shows beyond the trace's allocations, point by point.

import { fmtBytes, escapeHtml, categoryColour, isDark, BEFORE_TRACE, BEFORE_TRACE_CAT } from "./format.js";
import { cssVar, byteAxisOpts, timeAxisOpts, PAD_RIGHT, hatch } from "./views.js";
import { upperBound } from "./decode.js";

export class CategoryView {
  constructor(panel, el, app) {
    this.panel = panel; this.el = el; this.app = app;
    this.u = null; this.key = ""; this.data = null;
  }

  // Names of the bands, bottom first.
  names() {
    const r = this.app.meta.ranks[this.app.state.rank];
    return (this.app.dev().category_curves || []).map((c) =>
      (c.cat === BEFORE_TRACE_CAT ? BEFORE_TRACE : ((r.categories || [])[c.cat] || {}).name || "Unknown"));
  }

  available() { return (this.app.dev().category_curves || []).length > 0; }

  build() {
    const app = this.app, names = this.names(), dark = isDark(), fg = cssVar("--fg"), grid = cssVar("--grid");
    this.dark = dark;
    // Top band first: each series is filled down to 0 over the ones drawn before it.
    const series = [{ label: "time", value: (u, v) => (v == null ? "–" : app.clock.fmt(v, 6)) }];
    for (let k = names.length - 1; k >= 0; k--) {
      const before = names[k] === BEFORE_TRACE;
      const colour = before ? cssVar("--before-line") : categoryColour(names[k], dark);
      series.push({
        label: names[k], stroke: colour, width: 1,
        fill: before ? (u) => hatch(u.ctx, [cssVar("--panel"), cssVar("--before")], cssVar("--before-line"), true) : colour,
        paths: uPlot.paths.stepped({ align: 1 }), points: { show: false }, spanGaps: true,
        value: (u, v, si, i) => (i == null || !this.data ? "–" : fmtBytes(this.bandAt(k, i))),
      });
    }
    const opts = {
      width: this.el.clientWidth || 900, height: 200, padding: [10, PAD_RIGHT, 0, 0],
      legend: { live: true },
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false }, sync: { key: "memlens" } },
      scales: { x: { time: false, range: () => [app.state.t0, app.state.t1] }, y: { range: () => [0, this.ymax || 1] } },
      series,
      axes: [timeAxisOpts(app, fg, grid, 30, ""), byteAxisOpts(this, "bytes by category", fg, grid)],
      hooks: {
        setSelect: [(u) => {
          if (u.select.width > 4) app.setWindow(u.posToVal(u.select.left, "x"), u.posToVal(u.select.left + u.select.width, "x"));
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        }],
        draw: [(u) => this.drawPeak(u)],
      },
    };
    if (this.u) this.u.destroy();
    this.el.innerHTML = "";
    this.u = new uPlot(opts, [[0], ...names.map(() => [null])], this.el);
    this.u.over.addEventListener("dblclick", () => app.resetWindow());
    this.u.over.addEventListener("wheel", (e) => app.wheel(e, this.u.bbox.left / devicePixelRatio, this.u.bbox.width / devicePixelRatio), { passive: false });
    // A click (not a drag): what was live then, by category.
    let down = null;
    this.u.over.addEventListener("mousedown", (e) => { down = [e.clientX, e.clientY]; });
    this.u.over.addEventListener("click", (e) => {
      if (!down || Math.abs(e.clientX - down[0]) > 3) return;
      app.state.liveBy = "category";
      const sel = document.getElementById("sel-live-by");
      if (sel) sel.value = "category";
      app.setLiveT(this.u.posToVal(e.offsetX, "x"));
    });
  }

  // Band k's own bytes (not stacked) at point i of the data drawn.
  bandAt(k, i) { const t = this.data.tops; return t[k][i] - (k ? t[k - 1][i] : 0); }

  // The stacked total (the top band's top) at time t, from the data drawn.
  totalAt(t) {
    const d = this.data;
    if (!d || !d.tops.length) return 0;
    const i = upperBound(d.t, t) - 1;
    return i < 0 ? 0 : d.tops[d.tops.length - 1][i];
  }

  async refresh() {
    const app = this.app, st = app.state;
    if (!this.available()) { this.panel.hidden = true; this.data = null; return; }
    this.panel.hidden = false;
    const key = st.rank + "/" + st.dev + "/" + isDark();
    if (key !== this.key || !this.u) { this.build(); this.key = key; }
    const px = Math.max(1, Math.round((this.u.bbox.width / devicePixelRatio) * devicePixelRatio));
    const d = this.data = await app.source.getCategoryCurve(st.rank, st.dev, st.t0, st.t1, px);
    this.ymax = Math.max(1, d.max) * 1.1;
    const cols = [d.t];
    for (let k = d.tops.length - 1; k >= 0; k--) cols.push(d.tops[k]);
    this.u.setData(cols, false);
    this.u.setScale("x", { min: st.t0, max: st.t1 });
    this.legendNote(d);
  }

  resize() { if (this.u) this.u.setSize({ width: this.el.clientWidth, height: 200 }); }

  legendNote(d) {
    const el = document.getElementById("cat-note");
    if (!el) return;
    const pk = this.app.dev().peak;
    const st = this.app.state;
    if (!pk || !d.tops.length || pk.t < st.t0 || pk.t > st.t1) { el.innerHTML = d.tops.length ? "stacked: the total is the allocated curve" : ""; return; }
    const tot = this.totalAt(pk.t);
    el.innerHTML = `stacked; at the peak <b id="cat-peak-total">${escapeHtml(fmtBytes(tot))}</b>` +
      (pk.kind === "allocated" && tot !== pk.v ? ` <span class="warn">(the allocated curve: ${escapeHtml(fmtBytes(pk.v))}; this input's categories do not add up to it)</span>` : "");
  }

  drawPeak(u) {
    const pk = this.app.dev().peak, ctx = u.ctx, dpr = devicePixelRatio;
    if (!pk || pk.t < u.scales.x.min || pk.t > u.scales.x.max) return;
    const { top, height } = u.bbox, x = u.valToPos(pk.t, "x", true);
    ctx.save();
    ctx.strokeStyle = cssVar("--peak"); ctx.lineWidth = dpr; ctx.setLineDash([4 * dpr, 3 * dpr]);
    ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
    ctx.restore();
  }
}
