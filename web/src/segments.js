// segments.js — the snapshot views PyTorch's MemoryViz has beside the
// memory timeline, for a CUDA allocator snapshot (device.segview), offered
// under MemoryViz's names (the memory view's allocation timeline is then
// titled "Active Memory Timeline"):
//  * Allocator State History: every segment of each stream drawn as a bar
//    with its blocks inside (allocated, pending free, free, and freed blocks
//    not yet reused, "ghosts", drawn faded), stepped through the trace event
//    by event (slider, ← → when it has focus, buttons) so that fragmentation
//    is seen building up; a hover tells a block's size, address and stack.
//  * Allocated Memory (incl. Private Pools): the allocated bytes over the
//    trace's allocator events, and with the segments of private pools.
//  * Active Cached Segment Timeline: the segments over the trace (on its
//    clock when the events have times), stacked,
//    private pools (CUDA graphs: segment_pool_id other than (0, 0)) apart.
//  * Allocator Settings: the whole settings dictionary.
// The model (replay) is segmodel.js.

import { fmtBytes, fmtBytesExact, groupDigits, escapeHtml, plural, LANE_COLOURS, isDark, byteAxis } from "./format.js";
import { buildModel, stateAt, stateStats, segmentLives, parsePyRepr, allocatedSeries, EV_NAMES, stateColumns, reservedByState, bandRaster } from "./segmodel.js";
import { visibleFrames, stackHtml, shortFrameName, packagePath } from "./frames.js";
import { placeTip } from "./tip.js";

const LINE_H = 18, LINE_GAP = 6, TARGET_LINES = 26;
const DEFAULT_POOL = "(0, 0)";

export function isPrivatePool(pool) { return !!pool && pool !== DEFAULT_POOL; }

function css(n) { return getComputedStyle(document.documentElement).getPropertyValue(n).trim(); }
function hex(a) { return "0x" + Math.round(a).toString(16).padStart(12, "0"); }

// Where each slot goes: a flow of lines W px wide, one run of lines per
// stream, each slot max(2, size / bpp) px (bpp: bytes per px, so that all of
// them fill about TARGET_LINES lines).  Pure, for tests: [{addr, stream,
// x (px along the flow), w}], lines, bpp, streams [{stream, line0}].
export function layoutSlots(slots, W) {
  const total = slots.reduce((a, s) => a + s.size, 0);
  const bpp = Math.max(1, total / Math.max(1, W * TARGET_LINES));
  const out = [], streams = [];
  let x = 0, cur = null;
  for (const s of slots) {
    if (s.stream !== cur) { // each stream starts a line
      if (cur !== null) x = Math.ceil(x / W) * W;
      cur = s.stream;
      streams.push({ stream: s.stream, line0: Math.floor(x / W) });
    }
    const w = Math.max(2, s.size / bpp);
    out.push({ ...s, x, w });
    x += w + 2;
  }
  return { slots: out, lines: Math.max(1, Math.ceil(x / W)), bpp, streams, W };
}

export class SegmentsView {
  constructor(app) { this.app = app; this.tab = "history"; this.k = 0; }

  mount() {
    if (this.el) return;
    const el = document.createElement("section");
    el.className = "panel"; el.id = "p-segments";
    el.innerHTML = `
<div class="bar">
  <h2>Allocator</h2>
  <span class="seg" id="sg-tabs"><button data-t="history" class="on">Allocator State History</button><button data-t="allocated">Allocated Memory (incl. Private Pools)</button><button data-t="timeline">Active Cached Segment Timeline</button><button data-t="settings">Allocator Settings</button></span>
  <span class="spacer"></span><span class="muted" id="sg-note"></span>
</div>
<div id="sg-history">
  <div class="sg-controls">
    <button id="sg-prev" title="previous event (←)">‹</button>
    <input id="sg-slider" type="range" min="0" value="0" step="1" aria-label="trace event">
    <button id="sg-next" title="next event (→)">›</button>
    <span id="sg-event" class="sg-event"></span>
  </div>
  <div id="sg-stats" class="muted sg-stats"></div>
  <div class="sg-wrap"><canvas id="sg-canvas"></canvas><div class="tip" id="sg-tip" hidden></div></div>
  <div class="tl-legend" id="sg-legend"></div>
</div>
<div id="sg-timeline" hidden><div class="sg-wrap"><canvas id="sg-tcanvas"></canvas><div class="tip" id="sg-ttip" hidden></div></div><div class="tl-legend" id="sg-tlegend"></div></div>
<div id="sg-settings" hidden></div>`;
    const tl = document.getElementById("p-timeline");
    tl.parentNode.insertBefore(el, tl.nextSibling);
    this.el = el;
    const $ = (id) => document.getElementById(id);
    $("sg-tabs").addEventListener("click", (e) => { const t = e.target.dataset && e.target.dataset.t; if (t) this.setTab(t); });
    $("sg-slider").addEventListener("input", (e) => this.go(+e.target.value));
    $("sg-prev").addEventListener("click", () => this.go(this.k - 1));
    $("sg-next").addEventListener("click", () => this.go(this.k + 1));
    // ← → step the trace while the slider (or a button of it) has focus
    el.querySelector(".sg-controls").addEventListener("keydown", (e) => {
      if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
      e.preventDefault(); e.stopPropagation();
      this.go(this.k + (e.key === "ArrowRight" ? 1 : -1) * (e.shiftKey ? 100 : 1));
    });
    const c = $("sg-canvas");
    c.addEventListener("mousemove", (e) => this.hover(e));
    c.addEventListener("mouseleave", () => { $("sg-tip").hidden = true; });
    const tc = $("sg-tcanvas");
    tc.addEventListener("mousemove", (e) => this.hoverTimeline(e));
    tc.addEventListener("mouseleave", () => { $("sg-ttip").hidden = true; });
    tc.addEventListener("click", (e) => { const k = this.timelineEventAt(e.offsetX); if (k != null) { this.setTab("history"); this.go(k); } });
  }

  // Shows the views for a device with segview, hides them otherwise.
  show(dev) {
    const title = document.querySelector("#p-timeline h2");
    if (title) title.textContent = dev.segview ? "Active Memory Timeline" : "Allocation timeline";
    if (!dev.segview) { if (this.el) this.el.hidden = true; return; }
    this.mount();
    this.el.hidden = false;
    this.sv = dev.segview;
    // The report may hold only the trace's last events: events are numbered as the whole trace does
    // (the one at index i is number from + i + 1 of total: evNo).
    this.from = this.sv.events_from || 0;
    this.total = this.sv.events_total ?? this.sv.events.k.length;
    this.model = null; this.lives = null; this.resv = null; this.layout = null; this.series = null;
    this.k = this.sv.events.k.length; // the end: what the snapshot holds
    const sl = document.getElementById("sg-slider");
    sl.max = String(this.k); sl.value = String(this.k);
    this.setTab(this.tab);
  }

  // The trace's number of the k-th event held (1-based), as text: a cut history starts past `from`.
  evNo(k) { return groupDigits(this.from + k); }

  ensureModel() {
    if (!this.model) {
      this.model = buildModel(this.sv);
      const priv = this.model.slots.filter((s) => isPrivatePool(s.pool)).length;
      document.getElementById("sg-note").textContent = `${plural(this.model.slots.length, "segment")} over ${this.from ? "this history" : "the trace"} · ${plural(this.model.n, "allocator event")}` +
        (this.from ? ` (the last ${groupDigits(this.model.n)} of ${groupDigits(this.total)}: memlens report --max-history N replays more)` : "") +
        (priv ? ` · ${plural(priv, "segment")} in private pools (CUDA graphs)` : " · no private pools (CUDA graphs)");
    }
    return this.model;
  }

  setTab(t) {
    this.tab = t;
    const $ = (id) => document.getElementById(id);
    $("sg-tabs").querySelectorAll("button").forEach((b) => b.classList.toggle("on", b.dataset.t === t));
    $("sg-history").hidden = t !== "history"; $("sg-timeline").hidden = t !== "timeline" && t !== "allocated"; $("sg-settings").hidden = t !== "settings";
    if (t === "settings") this.settings();
    else if (t === "timeline" || t === "allocated") this.drawTimeline();
    else this.go(this.k);
  }

  // ---- state history ----

  go(k) {
    const m = this.ensureModel();
    this.k = Math.max(0, Math.min(m.n, k));
    document.getElementById("sg-slider").value = String(this.k);
    this.state = stateAt(m, this.k);
    const ev = m.ev, i = this.k - 1;
    const what = i < 0 ? (this.from ? `before event ${this.evNo(1)}, where this history begins` : "before the trace's first event") :
      `after event ${this.evNo(this.k)} of ${groupDigits(this.total)}: <b>${EV_NAMES[ev.k[i]]}</b> ${fmtBytes(ev.s[i])} at <code>${hex(ev.a[i])}</code>` +
      (this.app.clock ? ` · ${escapeHtml(this.app.clock.fmt(ev.t[i], 6, true))}` : "");
    document.getElementById("sg-event").innerHTML = what;
    const st = stateStats(this.state);
    document.getElementById("sg-stats").innerHTML = `${plural(st.segments, "segment")}, reserved <b>${fmtBytes(st.reserved)}</b> · allocated ${fmtBytes(st.allocated)} · pending free ${fmtBytes(st.pending)} · ` +
      `free ${fmtBytes(st.free)} in ${plural(st.holes, "hole")}, largest ${fmtBytes(st.largest)} · fragmentation <b id="sg-frag">${(100 * st.fragmentation).toFixed(1)}%</b> <span title="1 − largest hole / free">(1 − largest hole / free)</span>`;
    this.drawHistory();
  }

  drawHistory() {
    const c = document.getElementById("sg-canvas"), dpr = devicePixelRatio;
    const W = Math.max(200, c.parentElement.clientWidth - 4), m = this.model;
    if (!this.layout || this.layout.W !== W) this.layout = layoutSlots(m.slots, W);
    const L = this.layout, H = L.lines * (LINE_H + LINE_GAP) + 4;
    if (c.width !== Math.round(W * dpr) || c.height !== Math.round(H * dpr)) { c.width = Math.round(W * dpr); c.height = Math.round(H * dpr); c.style.height = H + "px"; c.style.width = W + "px"; }
    const ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    const dark = isDark(), freeCol = dark ? "#39404b" : "#dfe3ea", line = css("--line"), pend = css("--peak"), priv = "#AA4499";
    const span = (x0, w, y, h, fill, stroke) => { // a run along the flow, wrapped over lines
      let x = x0, left = w;
      while (left > 0) {
        const ln = Math.floor(x / W), lx = x - ln * W, take = Math.min(left, W - lx);
        const yy = ln * (LINE_H + LINE_GAP) + 2 + y;
        if (fill) { ctx.fillStyle = fill; ctx.fillRect(lx, yy, Math.max(take, 0.6), h); }
        if (stroke) { ctx.strokeStyle = stroke; ctx.strokeRect(lx + 0.5, yy + 0.5, Math.max(take - 1, 0.5), h - 1); }
        x += take; left -= take;
      }
    };
    this.colourOfStack = (stack) => LANE_COLOURS[(Math.imul(stack + 1, 2654435761) >>> 7) % LANE_COLOURS.length];
    for (const sl of L.slots) {
      const g = this.state.get(sl.addr);
      if (!g) { span(sl.x, sl.w, 0, LINE_H, null, line); continue; } // not reserved at this event
      const k = sl.w / Math.max(1, g.size);
      span(sl.x, sl.w, 0, LINE_H, freeCol, isPrivatePool(g.pool) ? priv : line);
      ctx.globalAlpha = 0.35; // ghosts: their block's colour, faded
      for (const gh of g.ghosts.values()) span(sl.x + (gh.addr - g.addr) * k, gh.size * k, 3, LINE_H - 6, this.colourOfStack(gh.stack), null);
      ctx.globalAlpha = 1;
      for (const b of g.blocks.values())
        span(sl.x + (b.addr - g.addr) * k, b.size * k, 1, LINE_H - 2, b.state === 1 ? pend : this.colourOfStack(b.stack), null);
    }
    ctx.font = "10px system-ui, sans-serif"; ctx.fillStyle = css("--muted"); ctx.textBaseline = "top";
    if (L.streams.length > 1) for (const s of L.streams) ctx.fillText("stream " + s.stream, 2, s.line0 * (LINE_H + LINE_GAP));
    document.getElementById("sg-legend").innerHTML =
      '<span class="lg"><i style="background:' + LANE_COLOURS[0] + '"></i>allocated (colour: its stack)</span>' +
      `<span class="lg"><i style="background:${pend}"></i>pending free (freed, waiting for its stream)</span>` +
      `<span class="lg"><i style="background:${freeCol};border:1px solid ${line}"></i>free (cached)</span>` +
      `<span class="lg"><i style="background:${LANE_COLOURS[0]};opacity:.35"></i>freed, not yet reused (faded)</span>` +
      `<span class="lg"><i style="border:1px solid ${line}"></i>segment not reserved at this event</span>` +
      `<span class="lg"><i style="border:2px solid ${priv}"></i>private pool (CUDA graph)</span>` +
      `<span class="lg muted">1 px ≈ ${fmtBytes(L.bpp)} · segments at least 2 px</span>`;
    void dark;
  }

  // What lies under (x, y) of the history canvas: {slot, seg, block|ghost|null}.
  at(x, y) {
    const L = this.layout;
    if (!L) return null;
    const ln = Math.floor((y - 2) / (LINE_H + LINE_GAP));
    if (ln < 0 || (y - 2) - ln * (LINE_H + LINE_GAP) > LINE_H) return null;
    const p = ln * L.W + x;
    const sl = L.slots.find((s) => p >= s.x && p < s.x + s.w);
    if (!sl) return null;
    const g = this.state.get(sl.addr);
    if (!g) return { slot: sl, seg: null };
    const a = g.addr + ((p - sl.x) / sl.w) * g.size;
    let block = null, ghost = null;
    for (const b of g.blocks.values()) if (a >= b.addr && a < b.addr + b.size) block = b;
    if (!block) for (const gh of g.ghosts.values()) if (a >= gh.addr && a < gh.addr + gh.size) ghost = gh;
    return { slot: sl, seg: g, block, ghost, addr: a };
  }

  async hover(e) {
    const tip = document.getElementById("sg-tip"), h = this.at(e.offsetX, e.offsetY);
    if (!h) { tip.hidden = true; return; }
    const g = h.seg, sl = h.slot;
    let html;
    if (!g) html = `segment <code>${hex(sl.addr)}</code> (${fmtBytes(sl.size)}): not reserved at this event`;
    else {
      const segLine = `<span class="muted">segment <code>${hex(g.addr)}</code> · ${fmtBytes(g.size)} · stream ${escapeHtml(g.stream || "?")}` +
        `${g.pool ? " · pool " + escapeHtml(g.pool) + (isPrivatePool(g.pool) ? " (private: CUDA graph)" : "") : ""}</span>`;
      const b = h.block || h.ghost;
      if (b) {
        const kind = h.ghost ? `freed at event ${this.evNo(b.freedAt + 1)}, not yet reused` : b.state === 1 ? "pending free" : "allocated";
        html = `<b>${fmtBytes(b.size)}</b> ${kind} <span class="muted">(${fmtBytesExact(b.size)})</span><br>address <code>${hex(b.addr)}</code><br>${segLine}`;
        const key = b.addr + "/" + b.stack;
        this.hoverKey = key;
        const frames = await this.framesOf(b.stack);
        if (this.hoverKey !== key) return;
        if (frames === null) html += '<div class="muted">(its stack: in the report written by memlens report)</div>';
        else if (frames.length) // the Python frames first, the C++ frames they ran counted (frames.js)
          html += '<div class="sg-stack">' + stackHtml(frames, escapeHtml, { fileText: (f) => (packagePath(f) !== f ? packagePath(f) : f.split("/").slice(-2).join("/")), nameText: shortFrameName, maxPy: 6, fold: false }) + "</div>";
        else html += '<div class="muted">(no stack recorded)</div>';
      } else html = `free (cached) at <code>${hex(h.addr)}</code><br>${segLine}`;
    }
    tip.innerHTML = html;
    // beside the pointer, off the line of segments it describes, inside the window (tip.js)
    const ln = Math.floor((e.offsetY - 2) / (LINE_H + LINE_GAP));
    placeTip(tip, e, e.target, { x: 0, y: ln * (LINE_H + LINE_GAP) + 2, w: this.layout.W, h: LINE_H });
  }

  // A stack's frames as the detail panel shows them (capture and allocator frames hidden).
  async framesOf(stack) {
    const src = this.app.source;
    if (!src.stackOf) return null; // a source without bare stacks
    if (!stack) return [];
    try { return visibleFrames(await src.stackOf(this.app.state.rank, stack), false).frames; } catch { return []; }
  }

  // ---- segment timeline ----

  // The segment timeline ("timeline": the segments stacked, the allocated
  // lines over them) or the allocated memory alone ("allocated": the lines),
  // on the snapshot's clock when its events have times (as every other chart
  // of the page), else over its events.  The bands are drawn as pixels
  // (bandRaster), each segment over the columns of its lives only.
  drawTimeline() {
    const m = this.ensureModel(), bands = this.tab !== "allocated", n = m.n, ev = m.ev;
    if (!this.lives) { this.lives = segmentLives(m); this.resv = reservedByState(this.lives, n); }
    const c = document.getElementById("sg-tcanvas"), dpr = devicePixelRatio;
    const cw = Math.max(300, c.parentElement.clientWidth - 4), H = 320, AX = 70, W = cw - AX - 10, top = 8, h = H - 30;
    if (c.width !== Math.round(cw * dpr)) { c.width = Math.round(cw * dpr); c.height = Math.round(H * dpr); c.style.width = cw + "px"; c.style.height = H + "px"; }
    const ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0); ctx.clearRect(0, 0, cw, H);
    // the axis: the events' times when they have them (the state at each column's end)
    const clock = this.app.clock, T0 = n ? ev.t[0] : 0, T1 = n ? ev.t[n - 1] : 0;
    const timed = !!clock && clock.mode !== "order" && T1 > T0;
    const kx = stateColumns(ev.t, n, timed ? T0 : 0, timed ? T1 : 0, W); // per CSS px column
    const order = [...m.slots].sort((a, b) => (isPrivatePool(a.pool) - isPrivatePool(b.pool)) || 0);
    const tot = new Float64Array(W);
    for (let x = 0; x < W; x++) tot[x] = this.resv[kx[x]];
    if (!this.series) this.series = allocatedSeries(m, isPrivatePool);
    let top1 = 1;
    if (bands) for (const v of tot) top1 = Math.max(top1, v);
    else for (const arr of [this.series.active, this.series.withPrivate]) for (const v of arr) top1 = Math.max(top1, v);
    const ymax = top1 * 1.05, y = (b) => top + h - (b / ymax) * h;
    const ax = byteAxis(ymax, h);
    ctx.font = "11px system-ui, sans-serif"; ctx.textBaseline = "middle"; ctx.textAlign = "right";
    for (const v of ax.ticks) { ctx.fillStyle = css("--muted"); ctx.fillText(ax.label(v), AX - 6, y(v)); ctx.fillStyle = css("--grid"); ctx.fillRect(AX, Math.round(y(v)), W, 1); }
    ctx.textAlign = "left";
    if (bands) { // at device pixels, drawn over the grid
      const wd = Math.max(1, Math.round(W * dpr)), hd = Math.max(1, Math.round(h * dpr));
      const kd = dpr === 1 ? kx : stateColumns(ev.t, n, timed ? T0 : 0, timed ? T1 : 0, wd);
      const rgba = (hexc) => { const v = parseInt(hexc.slice(1), 16); return (0xff000000 | ((v & 0xff) << 16) | (v & 0xff00) | (v >> 16)) >>> 0; };
      const cols = LANE_COLOURS.map(rgba), privC = rgba("#AA4499");
      const px = bandRaster(order, this.lives, kd, hd, ymax, (j, sl) => (isPrivatePool(sl.pool) ? privC : cols[j % cols.length]));
      const off = document.createElement("canvas");
      off.width = wd; off.height = hd;
      off.getContext("2d").putImageData(new ImageData(new Uint8ClampedArray(px.buffer), wd, hd), 0, 0);
      ctx.drawImage(off, AX, top, W, h);
    }
    // MemoryViz's "Active Memory Timeline" and "Allocated Memory (incl. Private Pools)" over the segments
    const line = (arr, colour, dash) => {
      ctx.strokeStyle = colour; ctx.lineWidth = 1.5; ctx.setLineDash(dash);
      ctx.beginPath();
      for (let x = 0; x < W; x++) { const yy = y(arr[kx[x]]); if (x) ctx.lineTo(AX + x, yy); else ctx.moveTo(AX + x, yy); }
      ctx.stroke(); ctx.setLineDash([]);
    };
    const priv = m.slots.some((s) => isPrivatePool(s.pool));
    if (priv) line(this.series.withPrivate, "#AA4499", [6, 3]);
    line(this.series.active, css("--fg"), []);
    // the event shown in the history: at its time, or its place among the events
    const xOfState = (k) => (timed ? ((k ? ev.t[k - 1] : T0) - T0) / (T1 - T0) : k / (n + 1)) * W;
    const hx = AX + xOfState(this.k);
    ctx.strokeStyle = css("--accent"); ctx.setLineDash([3, 3]); ctx.beginPath(); ctx.moveTo(hx + 0.5, top); ctx.lineTo(hx + 0.5, top + h); ctx.stroke(); ctx.setLineDash([]);
    ctx.fillStyle = css("--muted"); ctx.textBaseline = "top";
    const labels = [];
    if (timed) { // wall-clock ticks, as the memory charts
      const tk = clock.ticks(T0, T1, W), digits = clock.digitsFor(tk.step);
      for (const t of tk.ticks) labels.push([((t - T0) / (T1 - T0)) * W, clock.fmt(t, digits)]);
    } else for (let q = 0; q <= 4; q++) { const k = Math.round((q / 4) * n); labels.push([(q / 4) * W, "event " + this.evNo(k)]); }
    for (const [x, text] of labels) {
      const w = ctx.measureText(text).width;
      ctx.textAlign = x - w / 2 < 0 ? "left" : x + w / 2 > W ? "right" : "center";
      ctx.fillRect(AX + Math.round(x), top + h, 1, 4);
      ctx.fillText(text, AX + x, top + h + 6);
    }
    ctx.textAlign = "left";
    this.tl = { AX, W, n, tot, kx, timed };
    const over = timed ? "over the trace's time" : "over the trace's allocator events";
    document.getElementById("sg-tlegend").innerHTML = `<span class="lg"><i style="background:${css("--fg")}"></i>allocated (active blocks)</span>` +
      (priv ? '<span class="lg"><i style="border-top:2px dashed #AA4499;height:0"></i>allocated incl. private pools (their segments counted whole, as the graphs keep them)</span>' : "") + (bands ? `<span class="lg muted">Each band a segment (cudaMalloc'd memory the allocator caches), stacked, ${over}; click for the allocator's state then.</span>`
        : `<span class="lg muted">The bytes allocated ${over} (the segments of private pools counted whole); click for the allocator's state then.</span>`) +
      (!bands ? (priv ? "" : '<span class="lg muted">no private pools (CUDA graphs) in this snapshot: the two are the same</span>') : priv ? '<span class="lg"><i style="background:#AA4499"></i>segments of private pools (CUDA graphs), apart on top</span>' : '<span class="lg muted">no private pools (CUDA graphs) in this snapshot</span>');
  }

  // The state (events applied) the timeline shows at x, or null off the plot.
  timelineEventAt(x) {
    const t = this.tl;
    if (!t || x < t.AX || x >= t.AX + t.W) return null;
    return t.kx[Math.floor(x - t.AX)];
  }

  hoverTimeline(e) {
    const tip = document.getElementById("sg-ttip"), k = this.timelineEventAt(e.offsetX);
    if (k == null) { tip.hidden = true; return; }
    const ev = this.model.ev, i = Math.max(0, k - 1);
    const se = this.series, kk = Math.min(this.model.n, k);
    tip.innerHTML = `event ${this.evNo(k)}${this.model.n ? ` · ${escapeHtml(this.app.clock ? this.app.clock.fmt(ev.t[i], 6, true) : "")}` : ""}<br>reserved <b>${fmtBytes(this.tl.tot[e.offsetX - this.tl.AX] || 0)}</b>` +
      (se ? ` · allocated ${fmtBytes(se.active[kk])}${se.withPrivate[kk] !== se.active[kk] ? ` · incl. private pools ${fmtBytes(se.withPrivate[kk])}` : ""}` : "") +
      `<br><span class="muted">click: the allocator's state then</span>`;
    placeTip(tip, e, null, null);
  }

  // ---- settings ----

  settings() {
    const el = document.getElementById("sg-settings"), text = this.sv.settings;
    if (!text) { el.innerHTML = '<p class="muted">This snapshot records no allocator settings (older PyTorch).</p>'; return; }
    const v = parsePyRepr(text);
    const scalar = (y) => !(y && (y.dict || Array.isArray(y)));
    const cell = (x) => x && x.dict && x.dict.every(([, y]) => scalar(y)) && x.dict.length > 4 // a flat dict inline
      ? `<span class="sg-inline">{${x.dict.map(([k, y]) => `${escapeHtml(String(k))}: ${cell(y)}`).join(", ")}}</span>`
      : x && x.dict ? `<table class="sg-set">${x.dict.map(([k, y]) => `<tr><th>${escapeHtml(String(k))}</th><td>${cell(y)}</td></tr>`).join("")}</table>`
      : Array.isArray(x) ? escapeHtml("(" + x.map((y) => JSON.stringify(y)).join(", ") + ")")
      : x === null ? "None" : x === true ? "True" : x === false ? "False" : typeof x === "string" ? (x === "" ? '<span class="muted">""</span>' : escapeHtml(JSON.stringify(x))) : escapeHtml(String(x));
    el.innerHTML = v && v.dict ? `<p class="muted">The caching allocator's settings when the snapshot was taken (PYTORCH_CUDA_ALLOC_CONF and its defaults).</p>${cell(v)}`
      : `<pre class="sg-raw">${escapeHtml(text)}</pre>`;
  }

  resize() { if (this.el && !this.el.hidden) { this.layout = null; this.setTab(this.tab); } }
}
