// views.js — the panels of the report page (DOM and canvas).  Each view
// reads data only through the source (source.js) and the shared state, and
// redraws on request; app.js wires them together.

import { fmtBytes, fmtBytesExact, fmtDur, groupDigits, escapeHtml, parseBytes, OKABE_ITO, LANE_COLOURS, categoryColour, BEFORE_TRACE, isDark, byteAxis, plural, shortOpName, laneLabel } from "./format.js";
import { layoutLanes, placeLanes, visibleBars, hitBar, stackedRects, stackRaster, stackAt, freeOrderOf } from "./lanes.js";
import { upperBound } from "./decode.js";
import { aliveAt, laneWindow, viewHeight } from "./alive.js";
import { ALLOC_COLUMNS, filterRows, sortRows, toDelimited, categoryOf, reasonOf, allocAddr, shownBeforeTrace, allocValue } from "./table.js";
import { visibleFrames, stackHtml, packagePath } from "./frames.js";
import { placeTip } from "./tip.js";
import { unmatchedPeakHtml, unmatchedBars, unmatchedTable } from "./unmatched.js";
import { CURVE_COLOURS, TOTAL_COLOUR, markerDash, NOT_A_SIZE, noRowsHtml, packRows } from "./present.js";

export function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

// Layout shared by the charts and the timeline: the width of the axis (and
// lane label) column on the left, and room on the right for the last time label.
export const AXIS_W = 170, PAD_RIGHT = 36;
// The time axis under the timeline (px).
const TIME_AXIS_H = 24;
// The lanes' viewport at most (px): beyond, the lanes scroll (only those in view are drawn).
export const LANES_VIEW_H = 460;
// Rows per lane at most (overlapping lifetimes beyond share the row freed soonest).
const LANE_ROWS = 6;

// uPlot's options for a byte axis (ticks in one unit, at round steps of it).
export function byteAxisOpts(chart, label, fg, grid) {
  return {
    stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: AXIS_W,
    label, labelSize: 18, labelFont: "12px system-ui, sans-serif", font: "12px system-ui, sans-serif",
    splits: (u) => byteAxis(chart.ymax || 1, u.bbox.height / devicePixelRatio).ticks,
    values: (u, ticks) => { const ax = byteAxis(chart.ymax || 1, u.bbox.height / devicePixelRatio); return ticks.map(ax.label); },
  };
}

// uPlot's options for the time axis of a chart.
export function timeAxisOpts(app, fg, grid, size, label) {
  return {
    stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size,
    label, labelSize: label ? 18 : 0, labelFont: "12px system-ui, sans-serif", font: "12px system-ui, sans-serif",
    splits: (u, ax, mn, mx) => app.clock.ticks(mn, mx, u.bbox.width / devicePixelRatio).ticks,
    values: (u, ticks) => {
      const t = app.clock.ticks(u.scales.x.min, u.scales.x.max, u.bbox.width / devicePixelRatio);
      return ticks.map((v) => app.clock.fmt(v, app.clock.digitsFor(t.step)));
    },
  };
}

// "#0072B2" -> [0, 114, 178]
function rgbOf(hex) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(hex) || [0, "80", "80", "80"];
  return [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)];
}

export function laneColour(k) { return LANE_COLOURS[k % LANE_COLOURS.length]; }

// ---- memory curves (uPlot) ---------------------------------------------

// Curves a chart draws at most (the legend stays readable; the server's limit is 32).
export const MAX_CURVES = 16;

export class CurveView {
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.u = null;
    this.key = "";
  }

  // The curves of a group-by choice ({c, id}), the primary ones when the device has none of it.
  static curvesFor(dev, group) {
    const all = dev.curves.map((c, k) => ({ c, id: k }));
    const primary = all.filter((x) => x.c.group === "overall");
    let out;
    if (group === "op") out = primary.filter((x) => x.c.kind === "allocated").slice(0, 1)
      .concat((dev.op_curves || []).map((c, k) => ({ c, id: "op:" + k })));
    else if (group === "overall") out = primary.concat(all.filter((x) => x.c.group === "tracked"));
    else { // per stream or component, and the whole process's APP reserved beside them, as MindStudio Insight
      const g = all.filter((x) => x.c.group === group);
      out = g.length ? g.concat(primary.filter((x) => x.c.kind === "app reserved")) : primary;
    }
    return out.slice(0, MAX_CURVES);
  }

  // Which group-by choices the device has curves for.
  static groupsOf(dev) {
    return { overall: true, stream: dev.curves.some((c) => c.group === "stream"), component: dev.curves.some((c) => c.group === "component"),
      op: (dev.op_curves || []).length > 0 };
  }

  // Colour and dash of each shown curve: by kind overall; per component or
  // stream (its "of") with a dash per kind; per operator otherwise.
  static styles(shown, group) {
    const kindColour = { allocated: OKABE_ITO[0], reserved: OKABE_ITO[1], active: OKABE_ITO[2], "app reserved": OKABE_ITO[3] };
    const kindDash = { allocated: undefined, reserved: [6, 3], active: [2, 2], "app reserved": [8, 3, 2, 3], other: [6, 3] };
    const ofs = [], pairs = new Set();
    return shown.map((s, k) => {
      if (group === "op" && k === 0) return { colour: TOTAL_COLOUR, dash: undefined }; // not the first operator's colour
      if (group === "overall" || s.c.group === "overall") return { colour: kindColour[s.c.kind] || OKABE_ITO[4 + (k % 4)], dash: s.c.group === "tracked" ? [4, 3] : group === "overall" ? undefined : kindDash[s.c.kind] };
      if (s.c.of != null) {
        // a colour per component; a second curve of the same component and kind
        // (Ascend's "GE module" beside "GE reserved") gets a colour of its own
        const pair = s.c.of + "\u0000" + s.c.kind, key = pairs.has(pair) ? "\u0001" + s.c.label : s.c.of;
        pairs.add(pair);
        let j = ofs.indexOf(key);
        if (j < 0) { j = ofs.length; ofs.push(key); }
        return { colour: CURVE_COLOURS[j % CURVE_COLOURS.length], dash: kindDash[s.c.kind] };
      }
      return { colour: LANE_COLOURS[(group === "op" ? k - 1 : k) % LANE_COLOURS.length], dash: undefined };
    });
  }

  build() {
    const app = this.app, st = app.state, dev = app.dev();
    this.shown = CurveView.curvesFor(dev, st.group);
    const styles = CurveView.styles(this.shown, st.group);
    const fg = cssVar("--fg"), grid = cssVar("--grid");
    const series = [{ label: "time", value: (u, v) => (v == null ? "–" : app.clock.fmt(v, 6)) }];
    this.shown.forEach((s, k) => {
      const { colour, dash } = styles[k];
      series.push({
        label: s.c.label, stroke: colour, width: s.c.group === "tracked" ? 1 : 1.6, dash,
        fill: st.group === "overall" && k === 0 ? colour + "22" : undefined,
        paths: uPlot.paths.stepped({ align: 1 }), points: { show: false }, spanGaps: true,
        value: (u, v) => (v == null ? "–" : fmtBytes(v)),
      });
    });
    const width = this.el.clientWidth || 900;
    const opts = {
      width, height: 280, padding: [10, PAD_RIGHT, 0, 0],
      legend: { live: true, markers: { width: 2, dash: (u, i) => markerDash(u.series[i].dash) } }, // a dashed series, a dashed swatch
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false }, sync: { key: "memlens" } },
      scales: {
        x: { time: false, range: () => [app.state.t0, app.state.t1] },
        y: { range: () => [0, this.ymax || 1] },
      },
      series,
      axes: [
        timeAxisOpts(app, fg, grid, 44, app.clock.mode === "abs" ? "wall-clock time (UTC)" : app.clock.mode === "order" ? "event number" : "time since start"),
        byteAxisOpts(this, "bytes (binary units)", fg, grid),
      ],
      hooks: {
        setSelect: [(u) => {
          if (u.select.width > 4) {
            const a = u.posToVal(u.select.left, "x"), b = u.posToVal(u.select.left + u.select.width, "x");
            app.setWindow(a, b);
          }
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        }],
        draw: [(u) => this.drawMarks(u)],
      },
    };
    if (this.u) this.u.destroy();
    this.el.innerHTML = "";
    this.u = new uPlot(opts, [[0], ...this.shown.map(() => [null])], this.el);
    this.u.over.addEventListener("dblclick", () => app.resetWindow());
    this.u.over.addEventListener("wheel", (e) => app.wheel(e, this.plotLeft(), this.plotWidth()), { passive: false });
  }

  plotLeft() { return this.u ? this.u.bbox.left / devicePixelRatio : AXIS_W; }
  // before the chart is built: the width it will have (the first window's bars are asked for it)
  plotWidth() { return this.u ? this.u.bbox.width / devicePixelRatio : Math.max(1, (this.el.clientWidth || 900) - AXIS_W - PAD_RIGHT); }

  async refresh() {
    const app = this.app, st = app.state;
    const key = st.rank + "/" + st.dev + "/" + st.group;
    if (key !== this.key || !this.u) { this.build(); this.key = key; }
    const px = Math.max(1, Math.round(this.plotWidth() * devicePixelRatio));
    if (!this.shown.length) { this.ymax = 1; this.u.setData([[st.t0, st.t1]], false); this.u.setScale("x", { min: st.t0, max: st.t1 }); return; } // no curve at all
    const parts = await app.source.getCurves(st.rank, st.dev, this.shown.map((s) => s.id), st.t0, st.t1, px);
    const maxes = await Promise.all(this.shown.map((s) => app.source.getCurveMax(st.rank, st.dev, s.id, st.t0, st.t1)));
    this.ymax = Math.max(1, ...maxes) * 1.1;
    let data;
    if (parts.length === 1) data = [parts[0].t, parts[0].v];
    else data = uPlot.join(parts.map((p) => [p.t, p.v]));
    this.u.setData(data, false);
    this.u.setScale("x", { min: st.t0, max: st.t1 });
  }

  resize() { if (this.u) this.u.setSize({ width: this.el.clientWidth, height: 280 }); }

  // The peak marker and the hovered allocation's points.
  drawMarks(u) {
    const app = this.app, dev = app.dev(), ctx = u.ctx, dpr = devicePixelRatio;
    const pk = dev.peak;
    ctx.save();
    const { left, top, width, height } = u.bbox;
    ctx.beginPath(); ctx.rect(left, top, width, height); ctx.clip();
    if (pk && pk.t >= u.scales.x.min && pk.t <= u.scales.x.max) {
      const x = u.valToPos(pk.t, "x", true), y = u.valToPos(pk.v, "y", true);
      const peakColour = cssVar("--peak");
      ctx.strokeStyle = peakColour; ctx.fillStyle = peakColour;
      ctx.setLineDash([4 * dpr, 3 * dpr]); ctx.lineWidth = dpr;
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
      ctx.setLineDash([]);
      ctx.beginPath(); ctx.arc(x, y, 4 * dpr, 0, 7); ctx.fill();
      drawPeakLabel(ctx, "peak " + fmtBytes(pk.v), x, y, u.bbox, dpr, peakColour, cssVar("--panel"));
    }
    const lt = app.state.liveT;
    if (lt != null && lt >= u.scales.x.min && lt <= u.scales.x.max) {
      const x = u.valToPos(lt, "x", true);
      ctx.strokeStyle = cssVar("--accent"); ctx.lineWidth = dpr; ctx.setLineDash([2 * dpr, 2 * dpr]);
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke(); ctx.setLineDash([]);
    }
    const h = app.state.hover >= 0 ? app.state.hover : app.state.selected;
    if (h >= 0 && app.allocs && h < app.allocs.n && this.shown.length) {
      const a = app.allocs;
      ctx.strokeStyle = cssVar("--hl"); ctx.fillStyle = ctx.strokeStyle; ctx.lineWidth = dpr;
      const c0 = u.data[1];
      for (const t of [a.ta[h], a.tf[h]]) {
        if (t < u.scales.x.min || t > u.scales.x.max) continue;
        const x = u.valToPos(t, "x", true);
        ctx.globalAlpha = 0.5; ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke(); ctx.globalAlpha = 1;
        const k = Math.max(0, upperBound(u.data[0], t) - 1);
        let v = null;
        for (let j = k; j >= 0 && v == null; j--) v = c0[j];
        if (v != null) { ctx.beginPath(); ctx.arc(x, u.valToPos(v, "y", true), 3.5 * dpr, 0, 7); ctx.fill(); }
      }
    }
    ctx.restore();
  }
}

// Where the peak's label goes (canvas px): beside the marker at (x, y), on
// the side with room (flipped near the right edge), above the point (below
// it when the plot's top is too close), never outside the plot.  Pure, for tests.
export function placePeakLabel(x, y, tw, th, box, gap) {
  const { left, top, width, height } = box;
  let lx = x + gap;
  if (lx + tw > left + width) lx = x - gap - tw;
  lx = Math.max(left + 1, Math.min(lx, left + width - tw - 1));
  let ly = y - gap - th;
  if (ly < top) ly = y + gap;
  ly = Math.max(top + 1, Math.min(ly, top + height - th - 1));
  return { x: lx, y: ly };
}

// The peak's label: text on a background, aligned explicitly (uPlot leaves
// its own textAlign on the context).
function drawPeakLabel(ctx, label, x, y, box, dpr, colour, background) {
  ctx.font = `600 ${12 * dpr}px system-ui, sans-serif`;
  ctx.textAlign = "left"; ctx.textBaseline = "middle";
  const pad = 5 * dpr, tw = ctx.measureText(label).width + 2 * pad, th = 18 * dpr;
  const p = placePeakLabel(x, y, tw, th, box, 7 * dpr);
  ctx.globalAlpha = 0.92; ctx.fillStyle = background;
  ctx.beginPath(); ctx.roundRect ? ctx.roundRect(p.x, p.y, tw, th, 4 * dpr) : ctx.rect(p.x, p.y, tw, th); ctx.fill();
  ctx.globalAlpha = 1; ctx.strokeStyle = colour; ctx.lineWidth = dpr; ctx.stroke();
  ctx.fillStyle = colour;
  ctx.fillText(label, p.x + pad, p.y + th / 2);
}

// ---- allocation timeline (canvas) ---------------------------------------

export class TimelineView {
  constructor(canvas, over, tip, note, app) {
    this.canvas = canvas; this.over = over; this.tip = tip; this.note = note; this.app = app;
    this.layout = null; this.vis = null; this.stack = null;
    this.drag = null;
    // The lanes scroll: a sticky view holds the canvases, a spacer gives the scroll range.
    const wrap = canvas.parentElement, view = document.createElement("div");
    view.className = "tl-view";
    wrap.insertBefore(view, canvas);
    view.append(canvas, over, tip);
    this.spacer = document.createElement("div");
    this.spacer.className = "tl-spacer";
    wrap.appendChild(this.spacer);
    this.wrap = wrap; this.scrollY = 0;
    wrap.addEventListener("scroll", () => {
      if (wrap.scrollTop === this.scrollY) return;
      this.scrollY = wrap.scrollTop;
      if (!this.scrollPending) { this.scrollPending = true; requestAnimationFrame(() => { this.scrollPending = false; this.draw(); }); }
    });
    over.addEventListener("mousedown", (e) => { if (e.offsetX >= this.x0()) this.drag = { x0: e.offsetX, x1: e.offsetX }; });
    over.addEventListener("mousemove", (e) => this.onMove(e));
    over.addEventListener("mouseleave", () => { this.tip.hidden = true; this.hoverT = null; this.drawOver(); if (this.app.state.hover >= 0 && this.hoverFromTl) { this.hoverFromTl = false; this.app.setHover(-1); } });
    window.addEventListener("mouseup", (e) => this.onUp(e));
    over.addEventListener("dblclick", () => app.resetWindow());
    // the wheel zooms; over the lane labels it scrolls the lanes (when they do not all fit)
    over.addEventListener("wheel", (e) => { if (e.offsetX < this.x0() && this.scrolls() && !e.shiftKey) return; app.wheel(e, this.x0(), this.W()); }, { passive: false });
  }

  // Lanes mode with more lanes than fit: the lanes scroll.
  scrolls() { return this.app.state.mode !== "stacked" && !!this.layout && this.layout.height > LANES_VIEW_H && this.hasAllocs(); }
  // The lanes' scroll offset (px), at the start of a lane (laneWindow); 0 in stacked mode.
  sy() { return this.scrolls() ? laneWindow(this.layout.lanes, this.scrollY, LANES_VIEW_H).sy : 0; }

  x0() { return this.app.curve.plotLeft(); }
  W() { return Math.max(1, Math.round(this.app.curve.plotWidth())); }

  // The fill of allocation i (lane k): its operator's lane colour, or its category's.
  colourOf(i, k) {
    if (this.app.state.colourBy !== "category") return laneColour(k);
    const a = this.allocs, c = this.catColours || (this.catColours = []);
    if (shownBeforeTrace(a, i)) return this.beforeColour || (this.beforeColour = cssVar("--before-line"));
    return c[a.cat[i]] || (c[a.cat[i]] = categoryColour(categoryOf(a, i), this.dark));
  }

  // Below the timeline: what the colours mean.
  legend() {
    const el = document.getElementById("tl-legend"), st = this.app.state, a = this.allocs;
    if (!el) return;
    const items = [];
    if (st.colourBy === "category" && a && a.n) {
      const seen = new Set();
      let before = false;
      for (let i = 0; i < a.n; i++) if (shownBeforeTrace(a, i)) before = true; else seen.add(a.cat[i]);
      for (const c of a.categoryOrder || [...seen]) if (seen.has(c)) {
        const name = ((a.categories || [])[c] || {}).name || "Unknown";
        items.push(`<span class="lg"><i style="background:${categoryColour(name, this.dark)}"></i>${escapeHtml(name)}</span>`);
      }
      if (before) items.push(`<span class="lg"><i class="before"></i>${BEFORE_TRACE}</span>`);
    }
    if (st.mode === "stacked" && this.stack && this.stack.hasBase)
      items.push(`<span class="lg"><i class="before"></i>${BEFORE_TRACE}: the recorded total minus the live allocations of the trace</span>`);
    if (st.mode === "stacked" && this.stack && this.stack.hasRest)
      items.push('<span class="lg"><i class="rest"></i>allocations not drawn in this window (shorter than a column, or not embedded)</span>');
    el.innerHTML = items.join("");
    el.hidden = !items.length;
  }

  setData(allocs) {
    this.allocs = allocs;
    // every lane (they scroll, virtualised), up to LANE_ROWS rows each
    this.layout = placeLanes(layoutLanes(allocs, allocs.groups, { maxLanes: Infinity, maxRows: LANE_ROWS }), 8, 6, 4);
    this.freeOrder = null;
  }

  // Whether the device has any allocation (a windowed source may return none for a window).
  hasAllocs() { const a = this.allocs; return !!a && (a.n > 0 || a.total > 0); }

  height() {
    const body = this.app.state.mode === "stacked" ? 420 : Math.max(60, this.layout ? viewHeight(this.layout.height, LANES_VIEW_H) : 60);
    return body + (this.hasAllocs() ? TIME_AXIS_H : 0);
  }

  draw() {
    const app = this.app, st = app.state, a = this.allocs;
    // rows for this window's bars only, as a served window holds them: the same lanes either way
    if (st.mode !== "stacked" && this.hasAllocs() && !this.app.source.windowed) {
      const L = this.layout;
      placeLanes(packRows(a, L, visibleBars(a, L, st.t0, st.t1, this.W()).bars, LANE_ROWS), 8, 6, 4);
    }
    const cssW = this.canvas.parentElement.clientWidth, cssH = this.height(), dpr = devicePixelRatio;
    for (const c of [this.canvas, this.over]) { // resizing a canvas is costly: only when its size changes
      const w = Math.round(cssW * dpr), h = Math.round(cssH * dpr);
      if (c.width !== w || c.height !== h) { c.width = w; c.height = h; c.style.height = cssH + "px"; }
    }
    // the scroll range: the lanes' full height beyond the view
    const extra = this.scrolls() ? this.layout.height - LANES_VIEW_H : 0;
    this.spacer.style.height = extra + "px";
    this.wrap.classList.toggle("scrolls", extra > 0);
    if (!extra && this.wrap.scrollTop) this.wrap.scrollTop = this.scrollY = 0;
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);
    const dark = isDark();
    if (dark !== this.dark) { this.dark = dark; this.catColours = null; this.beforeColour = null; }
    if (!this.hasAllocs()) { const um = this.app.dev().unmatched; this.note.textContent = um ? "no lifetimes to draw: frees cannot be matched to allocations (no addresses)" : "no allocations recorded for this device"; this.vis = null; this.stack = null; this.legend(); return; }
    const x0 = this.x0(), W = this.W(), body = cssH - TIME_AXIS_H;
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle"; ctx.textAlign = "left";
    if (st.mode === "stacked") this.drawStacked(ctx, x0, W, body);
    else { this.stack = null; this.drawLanes(ctx, x0, W); }
    this.drawTimeAxis(ctx, x0, W, body);
    this.legend();
    this.drawOver();
  }

  // The time axis under the bars: ticks and labels as the curves' axis.
  drawTimeAxis(ctx, x0, W, y) {
    const st = this.app.state, clock = this.app.clock, cssW = this.canvas.parentElement.clientWidth;
    const tk = clock.ticks(st.t0, st.t1, W), digits = clock.digitsFor(tk.step);
    ctx.fillStyle = cssVar("--line"); ctx.fillRect(x0, y, W, 1);
    ctx.font = "11px system-ui, sans-serif"; ctx.textBaseline = "top";
    for (const t of tk.ticks) {
      const x = x0 + ((t - st.t0) / (st.t1 - st.t0)) * W;
      ctx.fillStyle = cssVar("--line"); ctx.fillRect(Math.round(x), y, 1, 4);
      const label = clock.fmt(t, digits), w = ctx.measureText(label).width;
      ctx.fillStyle = cssVar("--muted");
      ctx.textAlign = x + w / 2 > cssW ? "right" : "center"; // never cut at the edge
      ctx.fillText(label, ctx.textAlign === "right" ? cssW - 1 : x, y + 6);
    }
    ctx.textAlign = "left"; ctx.textBaseline = "middle";
  }

  drawLanes(ctx, x0, W) {
    const st = this.app.state, a = this.allocs, L = this.layout;
    const vis = this.vis = visibleBars(a, L, st.t0, st.t1, W);
    this.stack = null;
    const fg = cssVar("--fg"), stripe = cssVar("--stripe"), band = cssVar("--band");
    const byCat = st.colourBy === "category";
    // Virtualised: only the lanes in the view are drawn, shifted by the scroll.
    // whole lanes only: none cut at the bottom of the view (laneWindow)
    const viewH = viewHeight(L.height, LANES_VIEW_H);
    const { sy, shown } = this.scrolls() ? laneWindow(L.lanes, this.scrollY, LANES_VIEW_H) : { sy: 0, shown: L.lanes.map((x, k) => k) };
    const inView = new Uint8Array(L.lanes.length);
    for (const k of shown) inView[k] = 1;
    ctx.save();
    ctx.beginPath(); ctx.rect(0, 0, x0 + W + PAD_RIGHT, viewH); ctx.clip();
    ctx.translate(0, -sy);
    for (const k of shown) {
      const ln = L.lanes[k];
      if (k % 2 === 0) { ctx.fillStyle = stripe; ctx.fillRect(0, ln.y - 2, x0 + W, ln.h + 4); }
      ctx.fillStyle = byCat ? band : laneColour(k);
      ctx.fillRect(2, ln.y, 4, ln.h);
      ctx.fillStyle = fg;
      ctx.fillText(laneLabel(shortOpName(ln.label), x0 - 16, (t) => ctx.measureText(t).width), 10, ln.y + ln.h / 2); // the full name: its tooltip
    }
    ctx.beginPath(); ctx.rect(x0, sy, W, viewH); ctx.clip();
    // Narrower than a pixel: a shaded band per lane, darker where there are more
    // (a peak row of an operator clicked: the other lanes' faded).
    ctx.fillStyle = band;
    const fade = st.focus && st.focus.by === "by_op";
    for (const k of shown) {
      const ln = L.lanes[k];
      for (let x = 0; x < W; x++) {
        const c = vis.small[k * W + x];
        if (!c) continue;
        ctx.globalAlpha = Math.min(1, 0.25 + 0.15 * Math.log2(c + 1)) * (fade && ln.label !== st.focus.name ? 0.12 : 1);
        ctx.fillRect(x0 + x, ln.y, 1, ln.h);
      }
    }
    ctx.globalAlpha = 1;
    for (let j = 0; j < vis.bars.length; j++) {
      const i = vis.bars[j], k = L.lane[i];
      if (!inView[k]) continue;
      const ln = L.lanes[k];
      const xa = Math.max(-2, (a.ta[i] - st.t0) * vis.k), xb = Math.min(W + 2, (a.tf[i] - st.t0) * vis.k);
      ctx.fillStyle = this.colourOf(i, k);
      ctx.globalAlpha = st.focus && !inFocus(a, i, st.focus) ? 0.12 : 1; // a peak row clicked: the others faded
      ctx.fillRect(x0 + xa, ln.y + L.row[i] * L.rowH, Math.max(1, xb - xa), L.rowH - 1);
    }
    ctx.globalAlpha = 1;
    ctx.restore();
    const parts = [plural(vis.bars.length, "bar")];
    if (L.height > LANES_VIEW_H) parts.unshift(`${plural(L.lanes.length, "lane")} (lanes ${shown.length ? shown[0] + 1 : 0}–${shown.length ? shown[shown.length - 1] + 1 : 0} in view: scroll, or wheel over the labels)`);
    if (vis.nSmall) parts.push(plural(vis.nSmall, "allocation") + " narrower than 1 px shown as shaded bands");
    if (a.summarised && a.windowNote != null) { if (!a.small) parts.push(plural(a.summarised, "allocation") + " (" + fmtBytes(a.summarisedBytes) + ") narrower than 1 px in this window: counted, not drawn (zoom in)"); }
    else if (a.summarised) parts.push(plural(a.summarised, "small allocation") + " (" + fmtBytes(a.summarisedBytes) + ") not embedded: the report keeps the " + groupDigits(a.n) + " live at the peak or largest");
    this.note.textContent = parts.join(" · ");
  }

  // The per-column instants and before-trace part for this window (the app
  // fetches them with getStackBase before drawing), or null.
  baseFor(t0, t1, W) {
    const b = this.app.stackBase;
    return b && b.key === [this.app.state.rank, this.app.state.dev, t0, t1, W].join("/") ? b.data : null;
  }

  // Colour of each allocation in the stacked raster: an index into a
  // palette; its lane's (or category's) colour in one of three shades, by
  // allocation, so that neighbouring bands of one lane stay apart.
  palette() {
    const p = this.paletteOf(), st = this.app.state, a = this.allocs;
    if (!st.focus) return p;
    // a peak row clicked: the other allocations one faint grey
    const g = p.palette.length, grey = this.dark ? [64, 68, 76] : [214, 217, 223];
    return { palette: p.palette.concat([grey]), colour: (i) => (inFocus(a, i, st.focus) ? p.colour(i) : g) };
  }

  paletteOf() {
    const st = this.app.state, a = this.allocs, L = this.layout;
    const shades = (rgb) => [0.84, 1, 1.14].map((f) => rgb.map((c) => Math.min(255, Math.round(f < 1 ? c * f : c + (255 - c) * (f - 1)))));
    if (st.colourBy === "category") {
      const names = (a.categories || []).map((c) => c.name);
      if (!names.length) names.push("Unknown");
      const pal = names.flatMap((n) => shades(rgbOf(categoryColour(n, this.dark))));
      return { palette: pal, colour: (i) => (a.cat[i] < names.length ? a.cat[i] : 0) * 3 + (i % 3) };
    }
    return { palette: LANE_COLOURS.flatMap((c) => shades(rgbOf(c))), colour: (i) => (L.lane[i] % LANE_COLOURS.length) * 3 + (i % 3) };
  }

  drawStacked(ctx, x0, W, H) {
    const st = this.app.state, a = this.allocs, dpr = devicePixelRatio;
    if (!this.freeOrder) this.freeOrder = freeOrderOf(a);
    const top = 6, h = H - top - 2;
    // Each column stacks the live set at the instant the memory curve is
    // highest in it, on the memory allocated before the trace: the outline
    // is the curve.  Without a curve: the live set at each column's right edge.
    const sb = this.baseFor(st.t0, st.t1, W);
    const at = sb ? sb.t : null, base = sb ? sb.base : null;
    const pass = stackedRects(a, st.t0, st.t1, W, Infinity, this.freeOrder, at, base);
    const outline = new Float64Array(W), rest = new Float64Array(W);
    let ymax = 1, hasRest = false;
    for (let x = 0; x < W; x++) {
      const drawn = (base ? base[x] : 0) + pass.total[x];
      outline[x] = sb ? Math.max(sb.v[x], drawn) : drawn;
      rest[x] = outline[x] - drawn;
      if (rest[x] > 0) hasRest = true;
      if (outline[x] > ymax) ymax = outline[x];
    }
    ymax *= 1.05;
    // Every allocation drawn, however thin: a raster of h * dpr rows in which
    // each pixel mixes the colours of the allocations it holds.
    const rows = Math.max(1, Math.round(h * dpr)), pal = this.palette();
    const r = stackRaster(a, st.t0, st.t1, W, rows, ymax, this.freeOrder, pal.colour, pal.palette, ymax / h, at, base);
    const s = this.stack = { rects: r.rects, total: r.total, hidden: r.hidden, drawn: r.drawn, ymax, top, h, x0, outline, rest, base, at,
      v: sb ? sb.v : null, hasRest, hasBase: !!(base && base.some((b) => b > 0)) };
    const y = (b) => top + h - (b / ymax) * h;
    const grid = cssVar("--grid"), muted = cssVar("--muted");
    const ax = byteAxis(ymax, h);
    ctx.textAlign = "right";
    for (const v of ax.ticks) {
      ctx.fillStyle = muted; ctx.fillText(ax.label(v), x0 - 8, y(v));
      ctx.fillStyle = grid; ctx.fillRect(x0, Math.round(y(v)), W, 1);
    }
    ctx.textAlign = "left";
    ctx.save();
    ctx.beginPath(); ctx.rect(x0, 0, W, H); ctx.clip();
    if (s.hasBase) {
      ctx.fillStyle = hatch(ctx, cssVar("--before"), cssVar("--before-line"));
      for (let x = 0; x < W; x++) if (base[x] > 0) ctx.fillRect(x0 + x, y(base[x]), 1, y(0) - y(base[x]));
    }
    const off = this.rasterCanvas || (this.rasterCanvas = document.createElement("canvas"));
    if (off.width !== W || off.height !== rows) { off.width = W; off.height = rows; }
    off.getContext("2d").putImageData(new ImageData(r.img, W, rows), 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(off, x0, top, W, h);
    if (hasRest) {
      ctx.fillStyle = hatch(ctx, "rgba(0,0,0,0)", cssVar("--band"));
      for (let x = 0; x < W; x++) if (rest[x] > 0) ctx.fillRect(x0 + x, y(outline[x]), 1, y(outline[x] - rest[x]) - y(outline[x]));
    }
    // The outline: the memory curve (where there is any).
    ctx.strokeStyle = cssVar("--fg"); ctx.lineWidth = 1; ctx.globalAlpha = 0.55;
    ctx.beginPath();
    let pen = false;
    for (let x = 0; x < W; x++) {
      if (outline[x] <= 0) { pen = false; continue; }
      const yy = Math.round(y(outline[x])) + 0.5;
      if (pen) ctx.lineTo(x0 + x, yy); else ctx.moveTo(x0 + x, yy);
      ctx.lineTo(x0 + x + 1, yy); pen = true;
    }
    ctx.stroke(); ctx.globalAlpha = 1;
    if (s.hasBase) labelBand(ctx, x0, base, y, BEFORE_TRACE, cssVar("--fg"));
    ctx.restore();
    const parts = [plural(r.drawn, "band") + " (one per live allocation; thinner than a pixel, they blend into it)"];
    if (s.hasBase) parts.push("hatched: allocated before the trace");
    if (r.hidden) parts.push(plural(r.hidden, "allocation") + " that lived less than a column not drawn (zoom in)");
    if (a.summarised) parts.push(plural(a.summarised, "allocation") + (a.windowNote != null ? " narrower than 1 px not stacked (zoom in)" : " not embedded"));
    this.note.textContent = parts.join(" · ");
  }

  // Highlight, selection and drag rectangle: a second canvas, so hovering is cheap.
  drawOver() {
    const st = this.app.state, dpr = devicePixelRatio, c = this.over, ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, c.width, c.height);
    const x0 = this.x0(), W = this.W(), a = this.allocs, k = W / (st.t1 - st.t0);
    if (this.drag && Math.abs(this.drag.x1 - this.drag.x0) > 2) {
      ctx.fillStyle = cssVar("--sel");
      ctx.fillRect(Math.min(this.drag.x0, this.drag.x1), 0, Math.abs(this.drag.x1 - this.drag.x0), c.height / dpr);
    }
    if (!a || !a.n) return;
    const sy = this.sy();
    if (st.hoverLane >= 0 && this.layout && st.mode !== "stacked") {
      const ln = this.layout.lanes[st.hoverLane];
      if (ln) { ctx.strokeStyle = cssVar("--hl"); ctx.lineWidth = 1.5; ctx.strokeRect(x0, ln.y - 2 - sy, W, ln.h + 4); }
    }
    if (this.hoverT != null && this.hoverT >= st.t0 && this.hoverT <= st.t1) { // the instant the tip lists
      const x = Math.round(x0 + (this.hoverT - st.t0) * k) + 0.5;
      ctx.strokeStyle = cssVar("--accent"); ctx.lineWidth = 1; ctx.setLineDash([2, 2]); ctx.globalAlpha = 0.7;
      ctx.beginPath(); ctx.moveTo(x, 0); ctx.lineTo(x, c.height / dpr - TIME_AXIS_H); ctx.stroke();
      ctx.setLineDash([]); ctx.globalAlpha = 1;
    }
    for (const i of [st.selected, st.hover]) {
      if (i < 0 || i >= a.n) continue;
      const xa = x0 + Math.max(-3, (a.ta[i] - st.t0) * k), xb = x0 + Math.min(W + 3, (a.tf[i] - st.t0) * k);
      ctx.strokeStyle = cssVar("--hl"); ctx.lineWidth = i === st.selected ? 2 : 1.5;
      if (st.mode === "stacked") {
        const s = this.stack;
        if (!s) continue;
        // Its band (split where what lies below it changes): shaded, edged above and below.
        let found = false;
        for (const r of s.rects) if (r.i === i) {
          found = true;
          const ya = s.top + s.h - (r.hi / s.ymax) * s.h, yb = s.top + s.h - (r.lo / s.ymax) * s.h;
          ctx.globalAlpha = 0.3; ctx.fillStyle = ctx.strokeStyle;
          ctx.fillRect(x0 + r.x0, ya, r.x1 - r.x0, Math.max(2, yb - ya));
          ctx.globalAlpha = 1;
          ctx.beginPath();
          ctx.moveTo(x0 + r.x0, ya); ctx.lineTo(x0 + r.x1, ya);
          ctx.moveTo(x0 + r.x0, ya + Math.max(2, yb - ya)); ctx.lineTo(x0 + r.x1, ya + Math.max(2, yb - ya));
          ctx.stroke();
        }
        if (!found) { // thinner than a pixel: mark its lifetime along the axis
          ctx.fillStyle = cssVar("--accent"); ctx.globalAlpha = 0.8;
          ctx.fillRect(xa, s.top + s.h + 1, Math.max(2, xb - xa), 2);
          ctx.globalAlpha = 1;
        }
      } else {
        const L = this.layout, ln = L.lanes[L.lane[i]], y = ln.y + L.row[i] * L.rowH - sy;
        ctx.strokeRect(xa - 1, y - 1.5, Math.max(3, xb - xa + 2), L.rowH + 2);
      }
    }
  }

  // The box (over-canvas px) the hover outline of allocation i takes, lanes
  // mode; null in stacked mode (its bands can fill the chart).
  barBox(i) {
    const st = this.app.state, a = this.allocs, L = this.layout;
    if (st.mode === "stacked" || !L) return null;
    const k = this.W() / (st.t1 - st.t0), x0 = this.x0(), ln = L.lanes[L.lane[i]];
    const xa = x0 + Math.max(-3, (a.ta[i] - st.t0) * k), xb = x0 + Math.min(this.W() + 3, (a.tf[i] - st.t0) * k);
    return { x: xa - 2, y: ln.y + L.row[i] * L.rowH - this.sy() - 3, w: Math.max(3, xb - xa + 2) + 4, h: L.rowH + 6 };
  }

  pick(x, y) {
    const a = this.allocs;
    if (!a) return -1;
    if (this.app.state.mode === "stacked") {
      const s = this.stack;
      if (!s) return -1;
      const px = x - this.x0(), b = ((s.top + s.h - y) / s.h) * s.ymax;
      if (px < 0 || px >= this.W() || b < 0) return -1;
      for (const r of s.rects) if (px >= r.x0 && px < r.x1 && b >= r.lo && b <= r.hi) return r.i;
      // a band thinner than a pixel: the allocation at that byte of the column's stack
      const st = this.app.state, col = Math.floor(px);
      const t = s.at ? s.at[col] : st.t0 + ((col + 1) * (st.t1 - st.t0)) / this.W();
      return stackAt(a, t, s.base ? s.base[col] : 0, b);
    }
    return this.vis ? hitBar(a, this.layout, this.vis, x - this.x0(), y + this.sy()) : -1;
  }

  // The lane whose label is at y (lanes mode), or -1.
  laneAt(y) {
    const L = this.layout;
    if (!L || this.app.state.mode === "stacked") return -1;
    const yy = y + this.sy();
    return L.lanes.findIndex((ln) => yy >= ln.y - 2 && yy < ln.y + ln.h + 4);
  }

  onMove(e) {
    if (this.drag) { this.drag.x1 = e.offsetX; this.drawOver(); return; }
    const a = this.allocs, app = this.app;
    // beside the pointer, inside the window, off the box it describes (tip.js)
    const place = (box) => placeTip(this.tip, e, this.over, box);
    if (e.offsetX < this.x0()) { // the lane labels: the full name
      const k = this.laneAt(e.offsetY), ln = k >= 0 ? this.layout.lanes[k] : null;
      if (ln) {
        this.tip.hidden = false;
        this.tip.innerHTML = `<b>${escapeHtml(shortOpName(ln.label))}</b>${fullNameLine(ln.label)}<br><span class="muted">${plural(ln.count, "allocation")}, ${fmtBytes(ln.bytes)} allocated</span>`;
        place({ x: 0, y: ln.y - 2 - this.sy(), w: this.x0(), h: ln.h + 4 });
      } else this.tip.hidden = true;
      if (app.state.hover >= 0 && this.hoverFromTl) app.setHover(-1);
      return;
    }
    const i = this.pick(e.offsetX, e.offsetY);
    const st = app.state, t = st.t0 + ((e.offsetX - this.x0()) / this.W()) * (st.t1 - st.t0);
    this.hoverT = a && a.n && e.offsetX < this.x0() + this.W() ? t : null;
    let html = "";
    if (i >= 0)
      html = `<b>${escapeHtml(fmtBytes(a.size[i]))}</b> · ${escapeHtml(shortOpName(a.groups[a.group[i]]))}${fullNameLine(a.groups[a.group[i]])}<br>` +
        `<span class="muted">${a.flags[i] & 1 ? "before the trace" : escapeHtml(app.clock.fmt(a.ta[i]))} → ${a.flags[i] & 2 ? "not released" : escapeHtml(app.clock.fmt(a.tf[i]))} (${escapeHtml(fmtDur(a.tf[i] - a.ta[i]))})</span>`;
    // stacked: the column shows the live set at its highest instant (s.at), so its tip says that one, not the pointer's
    const s = st.mode === "stacked" ? this.stack : null, col = Math.floor(e.offsetX - this.x0());
    const colT = s && s.at && col >= 0 && col < s.at.length ? s.at[col] : null;
    if (this.hoverT != null) html += (html ? '<hr class="tip-sep">' : "") + aliveTip(app, a, colT != null ? colT : t, colT != null);
    if (html) { this.tip.innerHTML = html; place(i >= 0 ? this.barBox(i) : null); } else this.tip.hidden = true;
    this.drawOver();
    if (i !== app.state.hover) { this.hoverFromTl = true; app.setHover(i); }
  }

  onUp(e) {
    if (!this.drag) return;
    const d = this.drag;
    this.drag = null;
    const app = this.app, st = app.state, x0 = this.x0(), W = this.W();
    if (Math.abs(d.x1 - d.x0) > 4) {
      const t = (x) => st.t0 + ((x - x0) / W) * (st.t1 - st.t0);
      app.setWindow(t(Math.min(d.x0, d.x1)), t(Math.max(d.x0, d.x1)));
    } else {
      // The same coordinates as the hover (offsetX/Y are whole pixels, client
      // coordinates not): a click selects exactly the band the hover highlights.
      const r = this.over.getBoundingClientRect();
      const onOver = e.target === this.over, ox = onOver ? e.offsetX : e.clientX - r.left, oy = onOver ? e.offsetY : e.clientY - r.top;
      const i = this.hoverFromTl && st.hover >= 0 && this.pick(ox, oy) !== -1 ? st.hover : this.pick(ox, oy);
      const clickT = st.t0 + ((ox - x0) / W) * (st.t1 - st.t0);
      if (i >= 0) app.select(i, clickT);
      this.drawOver();
    }
  }
}

// The timeline's hover: the allocations alive at time t, largest first, with
// their sizes and operators.
// column: t is the stacked column's highest instant (what it draws), said so.
function aliveTip(app, a, t, column) {
  const r = aliveAt(a, t, 8);
  const partial = a.summarised || a.small ? ' <span class="muted">(of those in this report; zoom in for all)</span>' : "";
  const rows = r.top.map((j) => {
    const g = a.groups[a.group[j]], op = a.strings && a.op ? a.strings[a.op[j]] || "" : "";
    return `<div class="tip-row"><span class="num">${escapeHtml(fmtBytes(a.size[j]))}</span> ${escapeHtml(shortOpName(g))}${op && op !== g ? ` <span class="muted">(${escapeHtml(shortOpName(op))})</span>` : ""}</div>`;
  }).join("");
  return `<div class="tip-alive"><b>${column ? "this column, at its highest instant" : "alive at"} ${escapeHtml(app.clock.fmt(t, 6))}</b>: ${plural(r.count, "allocation")}, ${escapeHtml(fmtBytes(r.bytes))}${partial}</div>${rows}` +
    (r.count > r.top.length ? `<div class="muted">… ${groupDigits(r.count - r.top.length)} smaller</div>` : "");
}

// A diagonal hatch over a fill colour, as a canvas pattern for a context
// drawing in CSS px (scaled by devicePixelRatio) or, `devicePx`, in device px (uPlot's).
// fill: a colour, or colours laid one over the other (an opaque one first
// hides what a chart drew under the band).
export function hatch(ctx, fill, line, devicePx = false) {
  const c = document.createElement("canvas"), dpr = devicePixelRatio, n = Math.round(6 * dpr);
  c.width = c.height = n;
  const g = c.getContext("2d");
  for (const f of [].concat(fill)) { g.fillStyle = f; g.fillRect(0, 0, n, n); }
  g.strokeStyle = line; g.lineWidth = Math.max(1, dpr);
  g.beginPath(); g.moveTo(0, n); g.lineTo(n, 0); g.moveTo(-n / 2, n / 2); g.lineTo(n / 2, -n / 2); g.moveTo(n / 2, n * 1.5); g.lineTo(n * 1.5, n / 2); g.stroke();
  const p = ctx.createPattern(c, "repeat");
  if (!devicePx && p.setTransform) p.setTransform(new DOMMatrix([1 / dpr, 0, 0, 1 / dpr, 0, 0]));
  return p;
}

// Writes label in the middle of the widest stretch of the base band that is
// tall enough for it.
function labelBand(ctx, x0, base, y, label, colour) {
  ctx.font = "600 11px system-ui, sans-serif";
  const w = ctx.measureText(label).width + 12;
  let best = null, start = -1, low = Infinity;
  for (let x = 0; x <= base.length; x++) {
    const hh = x < base.length ? y(0) - y(base[x]) : 0;
    if (hh >= 15) { if (start < 0) { start = x; low = hh; } low = Math.min(low, hh); continue; }
    if (start >= 0 && x - start >= w && (!best || x - start > best.len)) best = { mid: (start + x) / 2, len: x - start, h: low };
    start = -1;
  }
  if (best) {
    ctx.fillStyle = colour;
    ctx.textAlign = "center";
    ctx.fillText(label, x0 + best.mid, y(0) - best.h / 2);
    ctx.textAlign = "start";
  }
  ctx.font = "11px system-ui, sans-serif";
}

// ---- detail panel --------------------------------------------------------

// The full name under the short one the lanes show (shortOpName), when they
// differ, on a line of its own: the lane, its tooltip and the detail all
// lead with the same name.  "" when the short name is the name.
export function fullNameLine(name) {
  return shortOpName(name) === name ? "" : `<br><span class="muted full-name">${escapeHtml(name)}</span>`;
}

export async function renderDetail(el, app, i, atTime) {
  if (i < 0) { el.innerHTML = '<p class="muted">Click a bar in the timeline, or a row in the table.</p>'; return; }
  const st = app.state, d = await app.source.getDetail(st.rank, st.dev, i);
  const a = app.allocs, clock = app.clock;
  const t = atTime != null && atTime >= d.ta && atTime <= d.tf ? atTime : d.ta;
  const lane = app.timeline.layout ? app.timeline.layout.lane[i] : -1;
  const ov = [];
  for (let j = 0; j < a.n && a.ta[j] <= t; j++)
    if (j !== i && a.tf[j] > t && (lane < 0 || app.timeline.layout.lane[j] === lane)) ov.push(j);
  ov.sort((x, y) => a.size[y] - a.size[x]);
  const row = (k, v) => `<dt>${k}</dt><dd>${v}</dd>`;
  const byFrame = a.groupBy === "frame";
  // The stack as MemoryViz shows it: capture, allocator and interpreter frames hidden unless asked.
  const vf = visibleFrames(d.stack, app.showAllFrames);
  // Python frames lead, the C++ frames each ran folded under it (frames.js)
  const stack = d.stack.length ? stackHtml(vf.frames, escapeHtml, { fileText: packagePath }) : '<div class="muted">(no stack recorded)</div>';
  const toggle = vf.hidden ? ` <a class="frames" id="detail-frames">show all ${plural(d.stack.length, "frame")} (${plural(vf.hidden, "allocator, capture or interpreter frame")} hidden)</a>`
    : app.showAllFrames && d.stack.length && visibleFrames(d.stack, false).hidden ? ' <a class="frames" id="detail-frames">hide allocator, capture and interpreter frames</a>' : "";
  const when = (j, tt) => (a.flags[j] & 1 ? "before trace" : escapeHtml(clock.fmt(tt, 6)));
  el.innerHTML = `<dl>
    ${row("size", `<b id="detail-size">${fmtBytes(d.size)}</b> <span class="muted">(${fmtBytesExact(d.size)})</span>`)}
    ${row(byFrame ? "user frame" : "operator", `<span id="detail-group">${escapeHtml(shortOpName(d.group))}</span>${fullNameLine(d.group)}`)}
    ${d.categoryName ? row("category", `<span id="detail-category">${escapeHtml(d.categoryName)}</span>` + (d.reason ? ` <span class="muted">— ${escapeHtml(d.reason)}</span>` : "")) : ""}
    ${d.op && d.op !== d.group ? row("allocated in", escapeHtml(d.op)) : ""}
    ${row("device", escapeHtml(d.device) + (d.stream ? " · stream " + escapeHtml(d.stream) : ""))}
    ${d.addr ? row("address", `<code>${d.addr}</code>`) : ""}
    ${row("allocated", d.beforeTrace ? "before the trace began" : escapeHtml(clock.fmt(d.ta, 6, true)))}
    ${row("released", d.neverFreed ? "not within the trace" : escapeHtml(clock.fmt(d.tf, 6, true)))}
    ${row("lifetime", (d.beforeTrace || d.neverFreed ? "≥ " : "") + fmtDur(d.tf - d.ta))}
  </dl>
  <h3>Call stack (innermost first)${toggle}</h3><div class="stack" id="detail-stack">${stack}</div>
  <h3>${plural(ov.length, "other allocation")} live in this lane ${d.beforeTrace && t === d.ta ? "when the trace began" : "at " + escapeHtml(clock.fmt(t, 6))}</h3>
  <div class="ov">${ov.slice(0, 200).map((j) => `<a data-i="${j}">${fmtBytes(a.size[j])} · ${escapeHtml(a.groups[a.group[j]])} · ${when(j, a.ta[j])}</a>`).join("")}
  ${ov.length > 200 ? `<div class="muted">… and ${groupDigits(ov.length - 200)} more</div>` : ""}</div>`;
  el.querySelectorAll(".ov a").forEach((x) => x.addEventListener("click", () => app.select(+x.dataset.i, t)));
  el.querySelectorAll(".ov a").forEach((x) => x.addEventListener("mouseenter", () => app.setHover(+x.dataset.i)));
  const fr = el.querySelector("#detail-frames");
  if (fr) fr.addEventListener("click", () => { app.showAllFrames = !app.showAllFrames; renderDetail(el, app, i, atTime); });
}

// ---- at the peak -----------------------------------------------------------

export function renderPeak(sumEl, listEl, app, by) {
  const dev = app.dev(), pk = dev.peak, clock = app.clock;
  if (!pk) { sumEl.textContent = "no curve"; listEl.innerHTML = ""; return; }
  sumEl.innerHTML = `<div class="big">${fmtBytes(pk.v)}</div>
    <div>${fmtBytesExact(pk.v)} at <b>${escapeHtml(clock.fmt(pk.t, 6, true))}</b>${clock.mode === "abs" ? " UTC" : ""}</div>` +
    (dev.unmatched ? unmatchedPeakHtml(dev.unmatched)
      : `<div class="muted">${plural(pk.live_count, "allocation")} of the trace live (${fmtBytes(pk.live_tracked)})${pk.untracked ? `; ${fmtBytes(pk.untracked)} allocated before the trace` : ""}</div>`);
  listEl.innerHTML = barRows(dev.unmatched ? unmatchedBars(dev.unmatched) : pk[by] || [], dev.unmatched ? null : by, app.state.focus);
  if (!listEl.dataset.bound) { // a click on a row shows only its allocations in the timeline; again, all of them
    listEl.dataset.bound = "1";
    listEl.addEventListener("click", (e) => {
      const row = e.target.closest(".row[data-name]");
      if (!row) return;
      const f = app.state.focus, name = row.dataset.name, rb = row.dataset.by, a = app.allocs;
      const want = f && f.name === name && f.by === rb ? null : { by: rb, name };
      let n = 0;
      for (let i = 0; want && a && i < a.n && !n; i++) if (inFocus(a, i, want)) n = 1;
      if (want && !n) { row.title = name + ": no allocation of the trace in this view (memory allocated before it, say)"; return; }
      app.state.focus = want;
      listEl.querySelectorAll(".row[data-name]").forEach((x) => x.classList.toggle("on", !!app.state.focus && x.dataset.name === app.state.focus.name));
      app.timeline.draw();
    });
  }
}

// Whether allocation i of a is one the peak list's row focus names ({by, name}):
// its top-level operator (or user frame) or its category; every one without a focus.
export function inFocus(a, i, focus) {
  if (!focus) return true;
  if (focus.by === "by_category") return !!a.categories && !!a.categories[a.cat[i]] && a.categories[a.cat[i]].name === focus.name;
  if (focus.by === "by_op") return a.groups[a.group[i]] === focus.name;
  return true; // a frame of the stack: the page does not hold every allocation's frames
}

// [[label, bytes, count]] as labelled bars, the largest first; by: what the
// labels are (the peak list's grouping: its rows can be clicked), focus: the row clicked.
function barRows(rows, by, focus) {
  const max = rows.reduce((m, r) => Math.max(m, r[1]), 1);
  return rows.slice(0, 40).map((r) => {
    const clickable = by === "by_op" || by === "by_category";
    return `<div class="row${clickable && focus && focus.by === by && focus.name === r[0] ? " on" : ""}"${clickable ? ` data-by="${by}" data-name="${escapeHtml(r[0])}"` : ""} title="${escapeHtml(r[0])} · ${plural(r[2], "allocation")}${clickable ? " · click: only these in the timeline" : ""}">
      <span class="name">${escapeHtml(shortOpName(r[0]))}</span><span class="num">${fmtBytes(r[1])}</span>
      <div class="barbg"><div class="barfg" style="width:${((100 * r[1]) / max).toFixed(1)}%"></div></div></div>`;
  }).join("") +
    (rows.length > 40 ? `<div class="muted">… ${rows.length - 40} more</div>` : "");
}

// ---- live at a time (a click on the curve) --------------------------------

export async function renderLive(app) {
  const st = app.state, sumEl = document.getElementById("live-summary"), listEl = document.getElementById("live-list");
  if (!sumEl) return;
  if (st.liveT == null) {
    sumEl.innerHTML = '<p class="muted">Click the memory curve: what was live at that time, and who held it.</p>';
    listEl.innerHTML = "";
    return;
  }
  const req = (app.liveReq = (app.liveReq || 0) + 1);
  // "op" is the allocations' groups: the first user frames when the input has no operators
  const by = st.liveBy === "op" && app.allocs && app.allocs.groupBy === "frame" ? "frame" : st.liveBy;
  const r = await app.source.getLiveAt(st.rank, st.dev, st.liveT, by);
  if (req !== app.liveReq) return; // a later click won
  const clock = app.clock, total = r.curve_value != null ? r.curve_value : r.tracked + r.before;
  const um = app.dev().unmatched;
  if (um) { // no lifetimes: the curve's value, and why nothing more can be said
    sumEl.innerHTML = `<div class="big" id="live-value">${fmtBytes(total)}</div>
    <div><span id="live-bytes">${fmtBytesExact(total)}</span> at <b id="live-time">${escapeHtml(clock.fmt(r.t, 6, true))}</b>${clock.mode === "abs" ? " UTC" : ""}</div>
    <div class="muted">What was live then cannot be told: ${escapeHtml(um.why)}.</div>`;
    listEl.innerHTML = "";
    return;
  }
  sumEl.innerHTML = `<div class="big" id="live-value">${fmtBytes(total)}</div>
    <div><span id="live-bytes">${fmtBytesExact(total)}</span> at <b id="live-time">${escapeHtml(clock.fmt(r.t, 6, true))}</b>${clock.mode === "abs" ? " UTC" : ""}</div>
    <div class="muted">${plural(r.count, "allocation")} of the trace live (${fmtBytes(r.tracked)})${r.before ? `; ${fmtBytes(r.before)} allocated before the trace` : ""}</div>
    ${r.partial ? `<div class="muted">${plural(r.partial, "small allocation")} ${r.partial === 1 ? "is" : "are"} not in this report: the server (memlens serve) counts them all</div>` : ""}`;
  listEl.innerHTML = barRows(r.rows || []);
}

// ---- tables ----------------------------------------------------------------

export const OP_COLUMNS = [
  { title: "operator" }, { title: "calls", num: true }, { title: "allocations", num: true },
  { title: "bytes allocated", num: true, bytes: true }, { title: "held at end", num: true, bytes: true },
  { title: "live at peak", num: true, bytes: true },
];

// The operators table's cell k of a row (calls null: unknown, "–").
export function opCell(v, k) {
  if (v == null) return "–";
  return OP_COLUMNS[k].bytes ? fmtBytes(v) : OP_COLUMNS[k].num ? groupDigits(v) : String(v);
}

export class TablesView {
  constructor(app) {
    this.app = app;
    this.tab = "allocs";
    this.q = { sort: "size", dir: -1, page: 0, pageSize: 100 };
    this.ops = { sort: 5, dir: -1, page: 0 };
    this.table = document.getElementById("table");
  }

  // The table's query from the filter fields; a size that is not one marks its field invalid and filters nothing.
  query() {
    const st = this.app.state, g = (id) => document.getElementById(id);
    const num = (id) => {
      const v = parseBytes(g(id).value);
      const bad = Number.isNaN(v);
      g(id).classList.toggle("invalid", bad);
      g(id).title = bad ? NOT_A_SIZE : "";
      return bad ? null : v;
    };
    return Object.assign(this.q, {
      rank: st.rank, dev: st.dev, text: g("f-text").value, minSize: num("f-min"), maxSize: num("f-max"),
      inWindow: g("f-win").checked, t0: st.t0, t1: st.t1, cat: g("f-cat").value === "" ? -1 : +g("f-cat").value,
    });
  }

  async render() {
    document.querySelectorAll(".tab").forEach((b) => b.classList.toggle("on", b.dataset.tab === this.tab));
    document.querySelector(".alloc-only").style.display = this.tab === "allocs" ? "" : "none";
    const um = this.app.dev().unmatched;
    document.querySelector(".alloc-only").style.display = this.tab === "allocs" && !um ? "" : "none";
    if (this.tab === "allocs" && um) return unmatchedTable(this, um);
    if (this.tab === "allocs") return this.renderAllocs();
    return this.renderOps();
  }

  // The columns the device has data for (allocs.has: no "allocating op"
  // without operators, no stream or address column when the input has none).
  columns(a) {
    const byFrame = a.groupBy === "frame", has = a.has || {};
    return ALLOC_COLUMNS.filter((c) => !(c.key === "op" && (byFrame || has.op === false)) && !(c.key === "stream" && has.stream === false) &&
      !(c.key === "addr" && has.addr === false) && !(c.ascend && !(a.tr && this.insight)) && !(c.total && !(a.totals && a.totals[c.total[0]]))).map((c) => (c.key === "group" && byFrame ? { ...c, title: "user frame" } : c));
  }

  async renderAllocs() {
    const app = this.app, clock = app.clock;
    const res = this.last = await app.source.getTable(this.query());
    const a = res.allocs, cols = this.columns(a);
    const ins = document.getElementById("lab-insight");
    if (ins) ins.hidden = !a.tr; // Ascend: MindStudio Insight's columns on request (tablectl.js)
    const thead = this.table.tHead, tbody = this.table.tBodies[0];
    thead.innerHTML = "<tr>" + cols.map((c) => `<th data-k="${c.key}" class="${c.num ? "n" : ""} ${this.q.sort === c.key ? "sorted" + (this.q.dir > 0 ? " asc" : "") : ""}">${c.title}</th>`).join("") + "</tr>";
    const cell = {
      group: (i) => `<td class="name" title="${escapeHtml(a.groups[a.group[i]])}"><span class="clip">${escapeHtml(shortOpName(a.groups[a.group[i]]))}</span></td>`,
      op: (i) => `<td class="name"><span class="clip">${escapeHtml(a.strings[a.op[i]] || "")}</span></td>`,
      size: (i) => `<td class="n" title="${fmtBytesExact(a.size[i])}">${fmtBytes(a.size[i])}</td>`,
      ta: (i) => `<td class="n">${a.flags[i] & 1 ? "before trace" : escapeHtml(clock.fmt(a.ta[i], 6))}</td>`,
      tf: (i) => `<td class="n">${a.flags[i] & 2 ? "not released" : escapeHtml(clock.fmt(a.tf[i], 6))}</td>`,
      dur: (i) => `<td class="n">${fmtDur(a.tf[i] - a.ta[i])}</td>`,
      tr: (i) => `<td class="n">${a.flags[i] & 2 ? "not released" : escapeHtml(clock.fmt(a.tr[i], 6))}</td>`,
      adur: (i) => `<td class="n">${a.flags[i] & 2 ? "–" : fmtDur(a.tr[i] - a.ta[i])}</td>`,
      ...Object.fromEntries(["aA", "aR", "aC", "rA", "rR", "rC"].map((k) => [k, (i) => { const v = allocValue(a, i, k); return `<td class="n" ${v != null ? `title="${fmtBytesExact(v)}"` : ""}>${v == null ? "–" : fmtBytes(v)}</td>`; }])),
      cat: (i) => { const c = categoryOf(a, i); return `<td class="cat"><i ${c === BEFORE_TRACE ? 'class="before"' : `style="background:${categoryColour(c)}"`}></i>${escapeHtml(c)}</td>`; },
      stream: (i) => `<td>${escapeHtml(a.strings[a.stream[i]] || "")}</td>`,
      addr: (i) => `<td><code>${allocAddr(a, i)}</code></td>`,
      reason: (i) => { const r = escapeHtml(reasonOf(a, i)); return `<td class="reason" title="${r}"><span class="clip">${r}</span></td>`; },
    };
    tbody.innerHTML = Array.from(res.rows, (i) => `<tr data-i="${i}" class="${i === app.state.selected ? "sel" : ""}">${cols.map((c) => cell[c.key](i)).join("")}</tr>`).join("") ||
      noRowsHtml(cols.length, "allocation", a.n || a.total);
    const catName = this.q.cat >= 0 ? ((this.app.meta.ranks[this.app.state.rank].categories || [])[this.q.cat] || {}).name : "";
    document.getElementById("t-count").textContent = `${groupDigits(res.total)} of ${plural(a.n, "allocation")}` +
      (catName ? ` in ${catName}` : "") + (this.q.inWindow ? " in the zoomed window" : "") + (a.summarised ? ` (${groupDigits(a.summarised)} more summarised, see the timeline note)` : "");
    document.getElementById("pg-label").textContent = `page ${res.page + 1} of ${res.pages}`;
    this.q.page = res.page;
    this.pages = res.pages;
  }

  async renderOps() {
    const app = this.app, st = app.state;
    let rows = await app.source.getOpStats(st.rank, st.dev);
    this.lastOpsAll = rows.length;
    rows = sortRows(filterRows(rows, document.getElementById("f-text").value), this.ops.sort, this.ops.dir);
    this.lastOps = rows;
    const size = this.ops.pageSize || 100, pages = Math.max(1, Math.ceil(rows.length / size));
    this.ops.page = Math.min(this.ops.page, pages - 1);
    const page = rows.slice(this.ops.page * size, (this.ops.page + 1) * size);
    const byFrame = app.allocs && app.allocs.groupBy === "frame";
    this.table.tHead.innerHTML = "<tr>" + OP_COLUMNS.map((c, k) => `<th data-k="${k}" class="${c.num ? "n" : ""} ${this.ops.sort === k ? "sorted" + (this.ops.dir > 0 ? " asc" : "") : ""}">${k === 0 && byFrame ? "user frame" : c.title}</th>`).join("") + "</tr>";
    this.table.tBodies[0].innerHTML = page.map((r) => `<tr data-op="${escapeHtml(r[0])}">` + r.map((v, k) =>
      k === 0 ? `<td class="name" title="${escapeHtml(v)}">${escapeHtml(v)}</td>` : `<td class="n" ${OP_COLUMNS[k].bytes && v != null ? `title="${fmtBytesExact(v)}"` : ""}>${opCell(v, k)}</td>`).join("") + "</tr>").join("") ||
      noRowsHtml(OP_COLUMNS.length, byFrame ? "user frame" : "operator", this.lastOpsAll);
    document.getElementById("t-count").textContent = `${plural(rows.length, byFrame ? "user frame" : "operator")} (all allocations of the device, whatever the zoom)`;
    document.getElementById("pg-label").textContent = `page ${this.ops.page + 1} of ${pages}`;
    this.pages = pages;
  }

  // Every row the filter keeps, exact, as TSV or CSV text: the allocations
  // through the source (the server exports them itself), the operators here.
  async exportText(fmt) {
    const sep = fmt === "tsv" ? "\t" : ",";
    if (this.tab === "ops") return toDelimited(OP_COLUMNS.map((c) => c.title), (this.lastOps || []).map((r) => r.map((v) => (v == null ? "" : v))), sep);
    return this.app.source.getExport(this.query(), fmt);
  }
}
