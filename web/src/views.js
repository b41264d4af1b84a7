// views.js — the panels of the report page (DOM and canvas).  Each view
// reads data only through the source (source.js) and the shared state, and
// redraws on request; app.js wires them together.

import { fmtBytes, fmtBytesExact, fmtDur, groupDigits, escapeHtml, parseBytes, OKABE_ITO, LANE_COLOURS, categoryColour, BEFORE_TRACE, isDark } from "./format.js";
import { layoutLanes, placeLanes, visibleBars, hitBar, stackedRects, freeOrderOf } from "./lanes.js";
import { upperBound } from "./decode.js";
import { ALLOC_COLUMNS, filterRows, sortRows, toDelimited, categoryOf, reasonOf } from "./table.js";

export function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

// Nice ticks in binary units for a byte axis from 0 to max.
export function byteTicks(max, heightPx, space = 40) {
  const want = Math.max(2, heightPx / space);
  let unit = 1;
  while (unit * 1024 <= max / 2 && unit < 1024 ** 5) unit *= 1024;
  const steps = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];
  const step = (steps.find((s) => max / (s * unit) <= want) || 1000) * unit;
  const out = [];
  for (let v = 0; v <= max && out.length < 200; v += step) out.push(v);
  return out;
}

export function laneColour(k) { return LANE_COLOURS[k % LANE_COLOURS.length]; }

// ---- memory curves (uPlot) ---------------------------------------------

export class CurveView {
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.u = null;
    this.key = "";
  }

  curvesFor(dev, group) {
    const primary = dev.curves.map((c, k) => ({ c, id: k })).filter((x) => x.c.group === "overall");
    if (group === "op") return primary.filter((x) => x.c.kind === "allocated").slice(0, 1)
      .concat((dev.op_curves || []).map((c, k) => ({ c, id: "op:" + k })));
    if (group === "overall") return primary.concat(dev.curves.map((c, k) => ({ c, id: k })).filter((x) => x.c.group === "tracked"));
    const g = dev.curves.map((c, k) => ({ c, id: k })).filter((x) => x.c.group === group);
    return g.length ? g : primary;
  }

  build() {
    const app = this.app, st = app.state, dev = app.dev();
    this.shown = this.curvesFor(dev, st.group);
    const kindColour = { allocated: OKABE_ITO[0], reserved: OKABE_ITO[1], active: OKABE_ITO[2], "app reserved": OKABE_ITO[3] };
    const fg = cssVar("--fg"), grid = cssVar("--grid");
    const series = [{ label: "time", value: (u, v) => (v == null ? "–" : app.clock.fmt(v, 6)) }];
    this.shown.forEach((s, k) => {
      const many = st.group !== "overall";
      const colour = many ? LANE_COLOURS[k % LANE_COLOURS.length] : kindColour[s.c.kind] || OKABE_ITO[4 + (k % 4)];
      series.push({
        label: s.c.label, stroke: colour, width: s.c.group === "tracked" ? 1 : 1.6,
        dash: s.c.group === "tracked" ? [4, 3] : undefined,
        fill: !many && k === 0 ? colour + "22" : undefined,
        paths: uPlot.paths.stepped({ align: 1 }), points: { show: false }, spanGaps: true,
        value: (u, v) => (v == null ? "–" : fmtBytes(v)),
      });
    });
    const width = this.el.clientWidth || 900;
    const opts = {
      width, height: 280,
      legend: { live: true },
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false }, sync: { key: "memlens" } },
      scales: {
        x: { time: false, range: () => [app.state.t0, app.state.t1] },
        y: { range: () => [0, this.ymax || 1] },
      },
      series,
      axes: [
        {
          stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 44,
          label: app.clock.mode === "abs" ? "wall-clock time (UTC)" : app.clock.mode === "order" ? "event number" : "time since start",
          labelSize: 18, labelFont: "12px system-ui, sans-serif", font: "12px system-ui, sans-serif",
          splits: (u, ax, mn, mx) => app.clock.ticks(mn, mx, u.bbox.width / devicePixelRatio).ticks,
          values: (u, ticks) => {
            const t = app.clock.ticks(u.scales.x.min, u.scales.x.max, u.bbox.width / devicePixelRatio);
            return ticks.map((v) => app.clock.fmt(v, app.clock.digitsFor(t.step)));
          },
        },
        {
          stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 118,
          label: "bytes (binary units)", labelSize: 18, labelFont: "12px system-ui, sans-serif", font: "12px system-ui, sans-serif",
          splits: (u) => byteTicks(this.ymax || 1, u.bbox.height / devicePixelRatio),
          values: (u, ticks) => ticks.map(fmtBytes),
        },
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

  plotLeft() { return this.u ? this.u.bbox.left / devicePixelRatio : 0; }
  plotWidth() { return this.u ? this.u.bbox.width / devicePixelRatio : 800; }

  async refresh() {
    const app = this.app, st = app.state;
    const key = st.rank + "/" + st.dev + "/" + st.group;
    if (key !== this.key || !this.u) { this.build(); this.key = key; }
    const px = Math.max(1, Math.round(this.plotWidth() * devicePixelRatio));
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
      ctx.strokeStyle = cssVar("--peak"); ctx.fillStyle = ctx.strokeStyle;
      ctx.setLineDash([4 * dpr, 3 * dpr]); ctx.lineWidth = dpr;
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
      ctx.setLineDash([]);
      ctx.beginPath(); ctx.arc(x, y, 4 * dpr, 0, 7); ctx.fill();
      ctx.font = `${600} ${12 * dpr}px system-ui, sans-serif`;
      const label = "peak " + fmtBytes(pk.v);
      const tw = ctx.measureText(label).width;
      const lx = x + 8 * dpr + tw > left + width ? x - 8 * dpr - tw : x + 8 * dpr;
      ctx.fillText(label, lx, Math.max(top + 14 * dpr, y + 4 * dpr));
    }
    const lt = app.state.liveT;
    if (lt != null && lt >= u.scales.x.min && lt <= u.scales.x.max) {
      const x = u.valToPos(lt, "x", true);
      ctx.strokeStyle = cssVar("--accent"); ctx.lineWidth = dpr; ctx.setLineDash([2 * dpr, 2 * dpr]);
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke(); ctx.setLineDash([]);
    }
    const h = app.state.hover >= 0 ? app.state.hover : app.state.selected;
    if (h >= 0 && app.allocs && this.shown.length) {
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

// ---- allocation timeline (canvas) ---------------------------------------

export class TimelineView {
  constructor(canvas, over, tip, note, app) {
    this.canvas = canvas; this.over = over; this.tip = tip; this.note = note; this.app = app;
    this.layout = null; this.vis = null; this.stack = null;
    this.drag = null;
    over.addEventListener("mousedown", (e) => { this.drag = { x0: e.offsetX, x1: e.offsetX }; });
    over.addEventListener("mousemove", (e) => this.onMove(e));
    over.addEventListener("mouseleave", () => { this.tip.hidden = true; if (this.app.state.hover >= 0 && this.hoverFromTl) { this.hoverFromTl = false; this.app.setHover(-1); } });
    window.addEventListener("mouseup", (e) => this.onUp(e));
    over.addEventListener("dblclick", () => app.resetWindow());
    over.addEventListener("wheel", (e) => app.wheel(e, this.x0(), this.W()), { passive: false });
  }

  x0() { return this.app.curve.plotLeft(); }
  W() { return Math.max(1, Math.round(this.app.curve.plotWidth())); }

  // The fill of allocation i (lane k): its operator's lane colour, or its category's.
  colourOf(i, k) {
    if (this.app.state.colourBy !== "category") return laneColour(k);
    const a = this.allocs, c = this.catColours || (this.catColours = []);
    return c[a.cat[i]] || (c[a.cat[i]] = categoryColour(categoryOf(a, i), this.dark));
  }

  // Below the timeline: what the colours mean.
  legend() {
    const el = document.getElementById("tl-legend"), st = this.app.state, a = this.allocs;
    if (!el) return;
    const items = [];
    if (st.colourBy === "category" && a && a.n) {
      const seen = new Set();
      for (let i = 0; i < a.n; i++) seen.add(a.cat[i]);
      for (const c of a.categoryOrder || [...seen]) if (seen.has(c)) {
        const name = ((a.categories || [])[c] || {}).name || "Unknown";
        items.push(`<span class="lg"><i style="background:${categoryColour(name, this.dark)}"></i>${escapeHtml(name)}</span>`);
      }
    }
    if (st.mode === "stacked" && this.stack && this.stack.hasBase)
      items.push(`<span class="lg"><i class="before"></i>${BEFORE_TRACE}: the recorded total minus the live allocations of the trace</span>`);
    if (st.mode === "stacked" && this.stack && this.stack.hasRest)
      items.push('<span class="lg"><i class="rest"></i>allocations not drawn in this window (narrower than 1 px, or not embedded)</span>');
    el.innerHTML = items.join("");
    el.hidden = !items.length;
  }

  setData(allocs) {
    this.allocs = allocs;
    this.layout = placeLanes(layoutLanes(allocs, allocs.groups, { maxLanes: 16, maxRows: 3 }), 8, 6, 4);
    this.freeOrder = null;
  }

  height() { return this.app.state.mode === "stacked" ? 300 : Math.max(60, this.layout ? this.layout.height : 60); }

  draw() {
    const app = this.app, st = app.state, a = this.allocs;
    const cssW = this.canvas.parentElement.clientWidth, cssH = this.height(), dpr = devicePixelRatio;
    for (const c of [this.canvas, this.over]) { // resizing a canvas is costly: only when its size changes
      const w = Math.round(cssW * dpr), h = Math.round(cssH * dpr);
      if (c.width !== w || c.height !== h) { c.width = w; c.height = h; c.style.height = cssH + "px"; }
    }
    const ctx = this.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);
    const dark = isDark();
    if (dark !== this.dark) { this.dark = dark; this.catColours = null; }
    if (!a || !a.n) { this.note.textContent = "no allocations recorded for this device"; this.vis = null; this.stack = null; this.legend(); return; }
    const x0 = this.x0(), W = this.W();
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    if (st.mode === "stacked") this.drawStacked(ctx, x0, W, cssH);
    else { this.stack = null; this.drawLanes(ctx, x0, W); }
    this.legend();
    this.drawOver();
  }

  drawLanes(ctx, x0, W) {
    const st = this.app.state, a = this.allocs, L = this.layout;
    const vis = this.vis = visibleBars(a, L, st.t0, st.t1, W);
    this.stack = null;
    const fg = cssVar("--fg"), stripe = cssVar("--stripe"), band = cssVar("--band");
    const byCat = st.colourBy === "category";
    L.lanes.forEach((ln, k) => {
      if (k % 2 === 0) { ctx.fillStyle = stripe; ctx.fillRect(0, ln.y - 2, x0 + W, ln.h + 4); }
      ctx.fillStyle = byCat ? band : laneColour(k);
      ctx.fillRect(2, ln.y, 4, ln.h);
      ctx.fillStyle = fg;
      ctx.fillText(fitText(ctx, ln.label, x0 - 14), 10, ln.y + ln.h / 2);
    });
    ctx.save();
    ctx.beginPath(); ctx.rect(x0, 0, W, L.height); ctx.clip();
    // Narrower than a pixel: a shaded band per lane, darker where there are more.
    ctx.fillStyle = band;
    for (let k = 0; k < L.lanes.length; k++) {
      const ln = L.lanes[k];
      for (let x = 0; x < W; x++) {
        const c = vis.small[k * W + x];
        if (!c) continue;
        ctx.globalAlpha = Math.min(1, 0.25 + 0.15 * Math.log2(c + 1));
        ctx.fillRect(x0 + x, ln.y, 1, ln.h);
      }
    }
    ctx.globalAlpha = 1;
    for (let j = 0; j < vis.bars.length; j++) {
      const i = vis.bars[j], k = L.lane[i], ln = L.lanes[k];
      const xa = Math.max(-2, (a.ta[i] - st.t0) * vis.k), xb = Math.min(W + 2, (a.tf[i] - st.t0) * vis.k);
      ctx.fillStyle = this.colourOf(i, k);
      ctx.fillRect(x0 + xa, ln.y + L.row[i] * L.rowH, Math.max(1, xb - xa), L.rowH - 1);
    }
    ctx.restore();
    const parts = [groupDigits(vis.bars.length) + " bars"];
    if (vis.nSmall) parts.push(groupDigits(vis.nSmall) + " allocations narrower than 1 px shown as shaded bands");
    if (a.summarised && a.windowNote != null) parts.push(groupDigits(a.summarised) + " allocations (" + fmtBytes(a.summarisedBytes) + ") narrower than 1 px in this window: counted, not drawn (zoom in)");
    else if (a.summarised) parts.push(groupDigits(a.summarised) + " small allocations (" + fmtBytes(a.summarisedBytes) + ") not embedded: the report keeps the " + groupDigits(a.n) + " live at the peak or largest");
    this.note.textContent = parts.join(" · ");
  }

  // The per-column instants and before-trace part for this window (the app
  // fetches them with getStackBase before drawing), or null.
  baseFor(t0, t1, W) {
    const b = this.app.stackBase;
    return b && b.key === [this.app.state.rank, this.app.state.dev, t0, t1, W].join("/") ? b.data : null;
  }

  drawStacked(ctx, x0, W, H) {
    const st = this.app.state, a = this.allocs;
    if (!this.freeOrder) this.freeOrder = freeOrderOf(a);
    const top = 6, h = H - 24;
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
    const minBytes = ymax / h;
    const s = this.stack = stackedRects(a, st.t0, st.t1, W, minBytes, this.freeOrder, at, base);
    Object.assign(s, { ymax, top, h, x0, outline, rest, base, at, v: sb ? sb.v : null, hasRest, hasBase: !!(base && base.some((b) => b > 0)) });
    const y = (b) => top + h - (b / ymax) * h;
    const grid = cssVar("--grid"), muted = cssVar("--muted");
    ctx.fillStyle = muted;
    for (const v of byteTicks(ymax, h)) {
      ctx.fillText(fmtBytes(v), 8, y(v));
      ctx.fillStyle = grid; ctx.fillRect(x0, Math.round(y(v)), W, 1); ctx.fillStyle = muted;
    }
    ctx.save();
    ctx.beginPath(); ctx.rect(x0, 0, W, H); ctx.clip();
    const b0 = (x) => (base ? base[x] : 0);
    if (s.hasBase) {
      ctx.fillStyle = hatch(ctx, cssVar("--before"), cssVar("--before-line"));
      for (let x = 0; x < W; x++) if (base[x] > 0) ctx.fillRect(x0 + x, y(base[x]), 1, y(0) - y(base[x]));
    }
    ctx.fillStyle = cssVar("--band");
    for (let x = 0; x < W; x++) if (s.total[x] > 0) ctx.fillRect(x0 + x, y(b0(x) + s.total[x]), 1, y(b0(x)) - y(b0(x) + s.total[x]));
    if (hasRest) {
      ctx.fillStyle = hatch(ctx, "rgba(0,0,0,0)", cssVar("--band"));
      for (let x = 0; x < W; x++) if (rest[x] > 0) ctx.fillRect(x0 + x, y(outline[x]), 1, y(outline[x] - rest[x]) - y(outline[x]));
    }
    const L = this.layout;
    for (const r of s.rects) {
      ctx.fillStyle = this.colourOf(r.i, L.lane[r.i]);
      const ya = y(r.hi), yb = y(r.lo);
      ctx.fillRect(x0 + r.x0, ya, r.x1 - r.x0, Math.max(1, yb - ya - (yb - ya > 3 ? 0.5 : 0)));
    }
    // The outline: the memory curve.
    ctx.strokeStyle = cssVar("--fg"); ctx.lineWidth = 1; ctx.globalAlpha = 0.7;
    ctx.beginPath();
    for (let x = 0; x < W; x++) { const yy = Math.round(y(outline[x])) + 0.5; if (x) ctx.lineTo(x0 + x, yy); else ctx.moveTo(x0, yy); ctx.lineTo(x0 + x + 1, yy); }
    ctx.stroke(); ctx.globalAlpha = 1;
    if (s.hasBase) labelBand(ctx, x0, base, y, BEFORE_TRACE, cssVar("--fg"));
    ctx.restore();
    const small = pass.total.length ? "grey: allocations under 1 px tall (" + fmtBytes(minBytes) + ")" : "";
    const parts = [groupDigits(s.rects.length) + " bands", small];
    if (s.hasBase) parts.push("hatched: allocated before the trace");
    if (s.hidden) parts.push(groupDigits(s.hidden) + " allocations that lived less than 1 px not drawn (zoom in)");
    if (a.summarised) parts.push(groupDigits(a.summarised) + (a.windowNote != null ? " allocations narrower than 1 px not stacked (zoom in)" : " small allocations not embedded"));
    this.note.textContent = parts.filter(Boolean).join(" · ");
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
    if (st.hoverLane >= 0 && this.layout && st.mode !== "stacked") {
      const ln = this.layout.lanes[st.hoverLane];
      if (ln) { ctx.strokeStyle = cssVar("--hl"); ctx.lineWidth = 1.5; ctx.strokeRect(x0, ln.y - 2, W, ln.h + 4); }
    }
    for (const i of [st.selected, st.hover]) {
      if (i < 0 || i >= a.n) continue;
      const xa = x0 + Math.max(-3, (a.ta[i] - st.t0) * k), xb = x0 + Math.min(W + 3, (a.tf[i] - st.t0) * k);
      ctx.strokeStyle = cssVar("--hl"); ctx.lineWidth = i === st.selected ? 2 : 1.5;
      if (st.mode === "stacked") {
        const s = this.stack;
        if (!s) continue;
        // Its band (split where what lies below it changes): shaded, edged above and below.
        for (const r of s.rects) if (r.i === i) {
          const ya = s.top + s.h - (r.hi / s.ymax) * s.h, yb = s.top + s.h - (r.lo / s.ymax) * s.h;
          ctx.globalAlpha = 0.3; ctx.fillStyle = ctx.strokeStyle;
          ctx.fillRect(x0 + r.x0, ya, r.x1 - r.x0, Math.max(2, yb - ya));
          ctx.globalAlpha = 1;
          ctx.beginPath();
          ctx.moveTo(x0 + r.x0, ya); ctx.lineTo(x0 + r.x1, ya);
          ctx.moveTo(x0 + r.x0, ya + Math.max(2, yb - ya)); ctx.lineTo(x0 + r.x1, ya + Math.max(2, yb - ya));
          ctx.stroke();
        }
        if (!s.rects.some((r) => r.i === i)) { // too thin to outline: mark its lifetime at the axis
          ctx.fillStyle = ctx.strokeStyle;
          ctx.fillRect(xa, s.top + s.h + 2, Math.max(2, xb - xa), 3);
        }
      } else {
        const L = this.layout, ln = L.lanes[L.lane[i]], y = ln.y + L.row[i] * L.rowH;
        ctx.strokeRect(xa - 1, y - 1.5, Math.max(3, xb - xa + 2), L.rowH + 2);
      }
    }
  }

  pick(x, y) {
    const a = this.allocs;
    if (!a) return -1;
    if (this.app.state.mode === "stacked") {
      const s = this.stack;
      if (!s) return -1;
      const px = x - this.x0(), b = ((s.top + s.h - y) / s.h) * s.ymax;
      for (const r of s.rects) if (px >= r.x0 && px < r.x1 && b >= r.lo && b <= r.hi) return r.i;
      return -1;
    }
    return this.vis ? hitBar(a, this.layout, this.vis, x - this.x0(), y) : -1;
  }

  onMove(e) {
    if (this.drag) { this.drag.x1 = e.offsetX; this.drawOver(); return; }
    const i = this.pick(e.offsetX, e.offsetY);
    const a = this.allocs, app = this.app;
    if (i >= 0) {
      this.tip.hidden = false;
      this.tip.innerHTML = `<b>${escapeHtml(fmtBytes(a.size[i]))}</b> · ${escapeHtml(a.groups[a.group[i]])}<br>` +
        `<span class="muted">${escapeHtml(app.clock.fmt(a.ta[i]))} → ${escapeHtml(app.clock.fmt(a.tf[i]))} (${escapeHtml(fmtDur(a.tf[i] - a.ta[i]))})</span>`;
      const w = this.canvas.parentElement.clientWidth;
      this.tip.style.left = Math.min(e.offsetX + 14, w - 300) + "px";
      this.tip.style.top = e.offsetY + 14 + "px";
    } else this.tip.hidden = true;
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
      const r = this.over.getBoundingClientRect();
      const i = this.pick(e.clientX - r.left, e.clientY - r.top);
      const clickT = st.t0 + ((e.clientX - r.left - x0) / W) * (st.t1 - st.t0);
      if (i >= 0) app.select(i, clickT);
      this.drawOver();
    }
  }
}

// A diagonal hatch over a fill colour, as a canvas pattern.
function hatch(ctx, fill, line) {
  const c = document.createElement("canvas"), dpr = devicePixelRatio, n = Math.round(6 * dpr);
  c.width = c.height = n;
  const g = c.getContext("2d");
  g.fillStyle = fill; g.fillRect(0, 0, n, n);
  g.strokeStyle = line; g.lineWidth = Math.max(1, dpr);
  g.beginPath(); g.moveTo(0, n); g.lineTo(n, 0); g.moveTo(-n / 2, n / 2); g.lineTo(n / 2, -n / 2); g.moveTo(n / 2, n * 1.5); g.lineTo(n * 1.5, n / 2); g.stroke();
  const p = ctx.createPattern(c, "repeat");
  p.setTransform && p.setTransform(new DOMMatrix([1 / dpr, 0, 0, 1 / dpr, 0, 0]));
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

function fitText(ctx, s, w) {
  if (ctx.measureText(s).width <= w) return s;
  let lo = 0, hi = s.length;
  while (lo < hi) { const m = (lo + hi + 1) >> 1; if (ctx.measureText(s.slice(0, m) + "…").width <= w) lo = m; else hi = m - 1; }
  return s.slice(0, lo) + "…";
}

// ---- detail panel --------------------------------------------------------

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
  const stack = d.stack.length
    ? d.stack.map((f) => `<div>${escapeHtml(f.name)}${f.file ? ` <span class="muted">${escapeHtml(f.file)}${f.line >= 0 ? ":" + f.line : ""}</span>` : ""}</div>`).join("")
    : '<div class="muted">(no stack recorded)</div>';
  el.innerHTML = `<dl>
    ${row("size", `<b id="detail-size">${fmtBytes(d.size)}</b> <span class="muted">(${fmtBytesExact(d.size)})</span>`)}
    ${row("operator", escapeHtml(d.group))}
    ${d.categoryName ? row("category", `<span id="detail-category">${escapeHtml(d.categoryName)}</span>` + (d.reason ? ` <span class="muted">— ${escapeHtml(d.reason)}</span>` : "")) : ""}
    ${d.op && d.op !== d.group ? row("allocated in", escapeHtml(d.op)) : ""}
    ${row("device", escapeHtml(d.device) + (d.stream ? " · stream " + escapeHtml(d.stream) : ""))}
    ${d.addr ? row("address", `<code>${d.addr}</code>`) : ""}
    ${row("allocated", d.beforeTrace ? "before the trace began" : escapeHtml(clock.fmt(d.ta, 6, true)))}
    ${row("released", d.neverFreed ? "not within the trace" : escapeHtml(clock.fmt(d.tf, 6, true)))}
    ${row("lifetime", (d.beforeTrace || d.neverFreed ? "≥ " : "") + fmtDur(d.tf - d.ta))}
  </dl>
  <h3>Call stack (innermost first)</h3><div class="stack" id="detail-stack">${stack}</div>
  <h3>${groupDigits(ov.length)} other allocations live in this lane at ${escapeHtml(clock.fmt(t, 6))}</h3>
  <div class="ov">${ov.slice(0, 200).map((j) => `<a data-i="${j}">${fmtBytes(a.size[j])} · ${escapeHtml(a.groups[a.group[j]])} · ${escapeHtml(clock.fmt(a.ta[j], 6))}</a>`).join("")}
  ${ov.length > 200 ? `<div class="muted">… and ${groupDigits(ov.length - 200)} more</div>` : ""}</div>`;
  el.querySelectorAll(".ov a").forEach((x) => x.addEventListener("click", () => app.select(+x.dataset.i, t)));
  el.querySelectorAll(".ov a").forEach((x) => x.addEventListener("mouseenter", () => app.setHover(+x.dataset.i)));
}

// ---- at the peak -----------------------------------------------------------

export function renderPeak(sumEl, listEl, app, by) {
  const dev = app.dev(), pk = dev.peak, clock = app.clock;
  if (!pk) { sumEl.textContent = "no curve"; listEl.innerHTML = ""; return; }
  sumEl.innerHTML = `<div class="big">${fmtBytes(pk.v)}</div>
    <div>${fmtBytesExact(pk.v)} at <b>${escapeHtml(clock.fmt(pk.t, 6, true))}</b>${clock.mode === "abs" ? " UTC" : ""}</div>
    <div class="muted">${groupDigits(pk.live_count)} allocations of the trace live (${fmtBytes(pk.live_tracked)})${pk.untracked ? `; ${fmtBytes(pk.untracked)} allocated before the trace` : ""}</div>`;
  listEl.innerHTML = barRows(pk[by] || []);
}

// [[label, bytes, count]] as labelled bars, the largest first.
function barRows(rows) {
  const max = rows.reduce((m, r) => Math.max(m, r[1]), 1);
  return rows.slice(0, 40).map((r) => `<div class="row" title="${escapeHtml(r[0])} · ${groupDigits(r[2])} allocations">
      <span class="name">${escapeHtml(r[0])}</span><span class="num">${fmtBytes(r[1])}</span>
      <div class="barbg"><div class="barfg" style="width:${((100 * r[1]) / max).toFixed(1)}%"></div></div></div>`).join("") +
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
  const r = await app.source.getLiveAt(st.rank, st.dev, st.liveT, st.liveBy);
  if (req !== app.liveReq) return; // a later click won
  const clock = app.clock, total = r.curve_value != null ? r.curve_value : r.tracked + r.before;
  sumEl.innerHTML = `<div class="big" id="live-value">${fmtBytes(total)}</div>
    <div><span id="live-bytes">${fmtBytesExact(total)}</span> at <b id="live-time">${escapeHtml(clock.fmt(r.t, 6, true))}</b>${clock.mode === "abs" ? " UTC" : ""}</div>
    <div class="muted">${groupDigits(r.count)} allocations of the trace live (${fmtBytes(r.tracked)})${r.before ? `; ${fmtBytes(r.before)} allocated before the trace` : ""}</div>
    ${r.partial ? `<div class="muted">${groupDigits(r.partial)} small allocations are not in this report: the server (memlens serve) counts them all</div>` : ""}`;
  listEl.innerHTML = barRows(r.rows || []);
}

// ---- tables ----------------------------------------------------------------

export const OP_COLUMNS = [
  { title: "operator" }, { title: "calls", num: true }, { title: "allocations", num: true },
  { title: "bytes allocated", num: true, bytes: true }, { title: "held at end", num: true, bytes: true },
  { title: "live at peak", num: true, bytes: true },
];

export class TablesView {
  constructor(app) {
    this.app = app;
    this.tab = "allocs";
    this.q = { sort: "size", dir: -1, page: 0, pageSize: 100 };
    this.ops = { sort: 5, dir: -1, page: 0 };
    this.table = document.getElementById("table");
  }

  query() {
    const st = this.app.state, g = (id) => document.getElementById(id);
    const num = (id) => { const v = g(id).value.trim(); return v ? parseBytes(v) : null; };
    return Object.assign(this.q, {
      rank: st.rank, dev: st.dev, text: g("f-text").value, minSize: num("f-min"), maxSize: num("f-max"),
      inWindow: g("f-win").checked, t0: st.t0, t1: st.t1, cat: g("f-cat").value === "" ? -1 : +g("f-cat").value,
    });
  }

  async render() {
    document.querySelectorAll(".tab").forEach((b) => b.classList.toggle("on", b.dataset.tab === this.tab));
    document.querySelector(".alloc-only").style.display = this.tab === "allocs" ? "" : "none";
    if (this.tab === "allocs") return this.renderAllocs();
    return this.renderOps();
  }

  async renderAllocs() {
    const app = this.app, clock = app.clock;
    const res = this.last = await app.source.getTable(this.query());
    const a = res.allocs;
    const thead = this.table.tHead, tbody = this.table.tBodies[0];
    thead.innerHTML = "<tr>" + ALLOC_COLUMNS.map((c) => `<th data-k="${c.key}" class="${c.num ? "n" : ""} ${this.q.sort === c.key ? "sorted" + (this.q.dir > 0 ? " asc" : "") : ""}">${c.title}</th>`).join("") + "</tr>";
    const cells = (i) => [
      `<td class="name" title="${escapeHtml(a.groups[a.group[i]])}"><span class="clip">${escapeHtml(a.groups[a.group[i]])}</span></td>`,
      `<td class="name"><span class="clip">${escapeHtml(a.strings[a.op[i]] || "")}</span></td>`,
      `<td class="n" title="${fmtBytesExact(a.size[i])}">${fmtBytes(a.size[i])}</td>`,
      `<td class="n">${a.flags[i] & 1 ? "before trace" : escapeHtml(clock.fmt(a.ta[i], 6))}</td>`,
      `<td class="n">${a.flags[i] & 2 ? "not released" : escapeHtml(clock.fmt(a.tf[i], 6))}</td>`,
      `<td class="n">${fmtDur(a.tf[i] - a.ta[i])}</td>`,
      `<td class="cat"><i style="background:${categoryColour(categoryOf(a, i))}"></i>${escapeHtml(categoryOf(a, i))}</td>`,
      `<td>${escapeHtml(a.strings[a.stream[i]] || "")}</td>`,
      `<td><code>${allocAddr(a, i)}</code></td>`,
      `<td class="name reason" title="${escapeHtml(reasonOf(a, i))}"><span class="clip">${escapeHtml(reasonOf(a, i))}</span></td>`,
    ].join("");
    tbody.innerHTML = Array.from(res.rows, (i) => `<tr data-i="${i}" class="${i === app.state.selected ? "sel" : ""}">${cells(i)}</tr>`).join("");
    const catName = this.q.cat >= 0 ? ((this.app.meta.ranks[this.app.state.rank].categories || [])[this.q.cat] || {}).name : "";
    document.getElementById("t-count").textContent = `${groupDigits(res.total)} of ${groupDigits(a.n)} allocations` +
      (catName ? ` in ${catName}` : "") + (this.q.inWindow ? " in the zoomed window" : "") + (a.summarised ? ` (${groupDigits(a.summarised)} more summarised, see the timeline note)` : "");
    document.getElementById("pg-label").textContent = `page ${res.page + 1} of ${res.pages}`;
    this.q.page = res.page;
    this.pages = res.pages;
  }

  async renderOps() {
    const app = this.app, st = app.state;
    let rows = await app.source.getOpStats(st.rank, st.dev);
    rows = sortRows(filterRows(rows, document.getElementById("f-text").value), this.ops.sort, this.ops.dir);
    this.lastOps = rows;
    const size = 100, pages = Math.max(1, Math.ceil(rows.length / size));
    this.ops.page = Math.min(this.ops.page, pages - 1);
    const page = rows.slice(this.ops.page * size, (this.ops.page + 1) * size);
    this.table.tHead.innerHTML = "<tr>" + OP_COLUMNS.map((c, k) => `<th data-k="${k}" class="${c.num ? "n" : ""} ${this.ops.sort === k ? "sorted" + (this.ops.dir > 0 ? " asc" : "") : ""}">${c.title}</th>`).join("") + "</tr>";
    this.table.tBodies[0].innerHTML = page.map((r) => `<tr data-op="${escapeHtml(r[0])}">` + r.map((v, k) =>
      k === 0 ? `<td class="name" title="${escapeHtml(v)}">${escapeHtml(v)}</td>` : `<td class="n" ${OP_COLUMNS[k].bytes ? `title="${fmtBytesExact(v)}"` : ""}>${OP_COLUMNS[k].bytes ? fmtBytes(v) : groupDigits(v)}</td>`).join("") + "</tr>").join("");
    document.getElementById("t-count").textContent = `${groupDigits(rows.length)} operators (all allocations of the device, whatever the zoom)`;
    document.getElementById("pg-label").textContent = `page ${this.ops.page + 1} of ${pages}`;
    this.pages = pages;
  }

  // Rows for export: everything the filter keeps, exact numbers.
  exportRows() {
    if (this.tab === "ops") return { header: OP_COLUMNS.map((c) => c.title), rows: this.lastOps || [] };
    const a = this.last ? this.last.allocs : null;
    if (!a) return { header: [], rows: [] };
    const clock = this.app.clock;
    const header = ["operator", "allocating op", "size_bytes", "allocated", "released", "duration_ns", "category", "stream", "address", "reason"];
    const rows = Array.from(this.last.all, (i) => [
      a.groups[a.group[i]], a.strings[a.op[i]] || "", a.size[i],
      a.flags[i] & 1 ? "before trace" : clock.fmt(a.ta[i], 9, true), a.flags[i] & 2 ? "not released" : clock.fmt(a.tf[i], 9, true),
      a.tf[i] - a.ta[i], categoryOf(a, i), a.strings[a.stream[i]] || "", allocAddr(a, i), reasonOf(a, i)]);
    return { header, rows };
  }

  tsv() { const e = this.exportRows(); return toDelimited(e.header, e.rows, "\t"); }
  csv() { const e = this.exportRows(); return toDelimited(e.header, e.rows, ","); }
}

export function allocAddr(a, i) {
  if (!a.addrHi[i] && !a.addrLo[i]) return "";
  return "0x" + (a.addrHi[i] ? a.addrHi[i].toString(16) + a.addrLo[i].toString(16).padStart(8, "0") : a.addrLo[i].toString(16));
}
