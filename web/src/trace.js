// trace.js — the Trace view: memlens's own timeline of a rank's slices on a
// canvas.  A lane per process/thread and per GPU stream (labels are HTML),
// slices nested by depth; sub-pixel slices arrive merged per lane
// (tracedata.js mergeLane, or the server's /api/trace), so a million slices
// pan and zoom at interactive speed.  Wheel / drag / W A S D zoom and pan;
// the axis shows absolute or relative time; a search highlights matching
// slices (and the merged runs that hold some); a click opens the slice's
// detail (args, stack, launcher or launched kernels, operator) and draws
// its flows; the memory curve of the rank's devices is a track on the same
// time axis, and so are HTA's counters (perf.gputime, gputime.js): the launch
// queue of each stream and the bandwidth of each kind of copy; "Critical path"
// draws the rank's critical path over it (critpath.js, from the perf object).
// "Download trace" saves the trace as Chrome JSON and "Open in
// Perfetto" hands it to ui.perfetto.dev by its postMessage protocol, only
// when clicked (offline: says that it could not be reached, offers the download).
//
//   mountTrace(el, source, state) -> {setRank(k), redraw(), destroy(), view}
// source: getTrace / getSliceDetail / getTraceJson (| traceJsonUrl), and
// getMeta / getCurve for the memory track, getPerf for the counters
// (web/DATA.md); state.rank.

import { makeClock, fmtDur, fmtBytes, escapeHtml, groupDigits, isDark } from "./format.js";
import { layoutTracks } from "./tracedata.js";
import { upperBound } from "./decode.js";
import { m4Points, stepMaxIn } from "./m4.js";
import { gtCounterTracks } from "./gputime.js";
import { cpOverlay, cpDraw, cpSummary, CP_COLOURS, CP_LABELS, SEARCH_COLOUR } from "./critpath.js";
import { arrowhead } from "./arrow.js";
import { deviceOrder } from "./devorder.js";

const ROW = 18, GAP = 8, MEM_H = 64, AXIS_H = 26, LABEL_W = 230;
const PERFETTO = "https://ui.perfetto.dev";

// Whether ui.perfetto.dev answers (within ms): a request whose answer is not
// read (no-cors), failing only when nothing answers.
export async function perfettoReachable(ms = 8000) {
  const ctl = typeof AbortController !== "undefined" ? new AbortController() : null;
  const timer = setTimeout(() => ctl && ctl.abort(), ms);
  try { await fetch(PERFETTO + "/", { mode: "no-cors", cache: "no-store", signal: ctl && ctl.signal }); return true; }
  catch { return false; }
  finally { clearTimeout(timer); }
}

const CSS = `
.tr-root { display: flex; flex-direction: column; gap: 6px; outline: none; min-width: 0; }
.tr-bar { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.tr-bar input[type=search] { width: 260px; }
.tr-bar .tr-hits { color: var(--muted); min-width: 90px; }
.tr-note { color: var(--muted); font-size: var(--fs-sm); }
.tr-cpnote { font-size: var(--fs-sm); display: flex; gap: 10px; flex-wrap: wrap; align-items: center; }
.tr-cpnote .tr-cpstep { color: var(--muted); }
.tr-cp.on { background: var(--accent); color: #fff; }
.tr-offline { font-size: var(--fs-sm); border-left: 3px solid var(--peak); padding: 4px 8px; background: var(--panel); }
.tr-offline[hidden] { display: none; }
.tr-body[hidden] { display: none; }
.tr-body { display: grid; grid-template-columns: minmax(0, 1fr); gap: 10px; }
.tr-body.has-detail { grid-template-columns: minmax(0, 1fr) 380px; }
.tr-main { position: relative; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); overflow: hidden; }
.tr-axisrow { display: flex; height: ${AXIS_H}px; border-bottom: 1px solid var(--line); }
.tr-corner { width: ${LABEL_W}px; flex: none; font-size: var(--fs-xs); color: var(--muted); padding: 5px 8px; border-right: 1px solid var(--line); white-space: nowrap; overflow: hidden; }
.tr-axis { flex: 1; min-width: 0; height: ${AXIS_H}px; display: block; }
.tr-view { position: relative; display: flex; height: max(420px, calc(100vh - 250px)); }
.tr-labels { width: ${LABEL_W}px; flex: none; position: relative; overflow: hidden; border-right: 1px solid var(--line); }
.tr-lab { position: absolute; left: 0; right: 0; padding: 1px 8px; font-size: var(--fs-sm); line-height: 16px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.tr-lab .p { display: block; color: var(--muted); font-size: var(--fs-xs); line-height: 12px; overflow: hidden; text-overflow: ellipsis; }
.tr-lab.mem { color: var(--accent); }
.tr-lab.deep { cursor: pointer; }
.tr-tog { display: inline-block; width: 12px; color: var(--muted); }
.tr-canvas { flex: 1; min-width: 0; display: block; cursor: grab; }
.tr-canvas.drag { cursor: grabbing; }
.tr-tip { position: absolute; pointer-events: none; background: var(--panel); border: 1px solid var(--line); border-radius: 5px; padding: 4px 7px; font-size: var(--fs-sm); max-width: 520px; box-shadow: 0 2px 8px rgba(0,0,0,.15); z-index: 5; }
.tr-detail { border: 1px solid var(--line); border-radius: 6px; background: var(--panel); padding: 10px 12px; max-height: max(${420 + AXIS_H}px, calc(100vh - 224px)); overflow: auto; font-size: var(--fs-sm); }
.tr-detail h3 { margin: 0 0 6px; font-size: var(--fs-lg); word-break: break-all; }
.tr-detail table { border-collapse: collapse; width: 100%; table-layout: fixed; }
.tr-detail td { padding: 2px 6px 2px 0; vertical-align: top; overflow-wrap: anywhere; white-space: normal; }
.tr-detail td:first-child { color: var(--muted); width: 92px; }
.tr-detail ol li { overflow-wrap: anywhere; }
.tr-detail .tr-sec { margin: 10px 0 4px; font-weight: 600; }
.tr-detail ol { margin: 0; padding-left: 20px; font-family: ui-monospace, monospace; font-size: var(--fs-xs); }
.tr-detail a { color: var(--accent); cursor: pointer; text-decoration: underline; }
.tr-hint { color: var(--muted); font-size: var(--fs-sm); }
.tr-empty { padding: 30px; color: var(--muted); text-align: center; }
`;

function injectCss(doc) {
  if (doc.getElementById("tr-css")) return;
  const s = doc.createElement("style");
  s.id = "tr-css";
  s.textContent = CSS;
  doc.head.appendChild(s);
}

// A stable colour per name (FNV-1a hash to a hue), as trace viewers do.
const colourCache = new Map();
export function nameColour(name, dark) {
  const key = (dark ? "d" : "l") + name;
  let c = colourCache.get(key);
  if (c) return c;
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) { h ^= name.charCodeAt(i); h = Math.imul(h, 16777619); }
  const hue = (h >>> 0) % 360, sat = 45 + ((h >>> 9) % 20), lig = dark ? 38 + ((h >>> 17) % 12) : 62 + ((h >>> 17) % 12);
  c = `hsl(${hue} ${sat}% ${lig}%)`;
  if (colourCache.size > 20000) colourCache.clear();
  colourCache.set(key, c);
  return c;
}

class TraceView {
  constructor(el, source, state) {
    this.el = el;
    this.source = source;
    this.state = state || { rank: 0 };
    this.doc = el.ownerDocument;
    injectCss(this.doc);
    this.dark = isDark();
    this.axisMode = "abs";
    this.query = "";
    this.scrollY = 0;
    this.sel = null;         // the selected slice's detail
    this.data = null;        // the last window answer, with its window
    this.mem = [];           // memory tracks: {dev, curve, label, data}
    this.pending = false;
    this.inflight = false;
    this.perf = { frames: [], lastMs: 0 };
    this.build();
  }

  build() {
    this.el.innerHTML = `<div class="tr-root" tabindex="0">
      <div class="tr-bar">
        <input type="search" class="tr-search" placeholder="Search slices (name contains)" aria-label="search slices">
        <button class="tr-prev" title="previous match (shift+Enter)" aria-label="previous match">◀</button><button class="tr-next" title="next match (Enter)" aria-label="next match">▶</button>
        <span class="tr-hits"></span>
        <button class="tr-axismode" title="time axis: wall clock or relative to the trace's start">time: absolute</button>
        <button class="tr-reset" title="show the whole trace (key 0)">Reset zoom</button>
        <button class="tr-cp" hidden aria-pressed="false" title="draw each step's critical path: the longest chain of dependent work (HTA's critical path analysis)">Critical path</button>
        <span class="spacer" style="flex:1"></span>
        <button class="tr-download" title="save the trace as Chrome trace JSON">Download trace</button>
        <button class="tr-perfetto" title="open the trace in ui.perfetto.dev (sends it there; needs a network connection)">Open in Perfetto</button>
      </div>
      <div class="tr-note"></div>
      <div class="tr-cpnote" hidden></div>
      <div class="tr-offline" role="alert" hidden></div>
      <div class="tr-empty" hidden>No slices in this rank: its input has no time side (a snapshot, a memory timeline, or a trace without events with durations).</div>
      <div class="tr-body">
        <div class="tr-main">
          <div class="tr-axisrow"><div class="tr-corner"></div><canvas class="tr-axis"></canvas></div>
          <div class="tr-view"><div class="tr-labels"></div><canvas class="tr-canvas"></canvas><div class="tr-tip" hidden></div></div>
        </div>
        <div class="tr-detail" hidden></div>
      </div>
      <div class="tr-hint">wheel or W/S to zoom · drag, shift+wheel or A/D to pan · wheel over the names to scroll · click a slice for its detail, a merged box to zoom into it · double-click or 0 to reset</div>
    </div>`;
    const q = (c) => this.el.querySelector(c);
    this.root = q(".tr-root");
    this.canvas = q(".tr-canvas");
    this.axis = q(".tr-axis");
    this.labels = q(".tr-labels");
    this.tip = q(".tr-tip");
    this.detailEl = q(".tr-detail");
    this.body = q(".tr-body");
    this.noteEl = q(".tr-note");
    this.cpNote = q(".tr-cpnote");
    this.cpBtn = q(".tr-cp");
    this.cpOn = false;          // off until pressed (a toggle of undefined would press it)
    this.emptyEl = q(".tr-empty");
    this.hitsEl = q(".tr-hits");
    this.corner = q(".tr-corner");
    this.bind();
    this.ro = typeof ResizeObserver === "function" ? new ResizeObserver(() => this.redraw()) : null;
    if (this.ro) this.ro.observe(this.canvas);
  }

  async setRank(rank) {
    this.state.rank = rank;
    this.meta = this.source.meta || await this.source.getMeta();
    if (this.source.ensureRank) await this.source.ensureRank(rank); // served: imported on first view
    const r = this.meta.ranks[rank];
    this.rank = r;
    this.sel = null;
    this.detailEl.hidden = true;
    this.body.classList.remove("has-detail");
    this.data = null;
    this.scrollY = 0;
    this.depths = new Map();     // track ids are the rank's own
    this.collapsed = new Set();
    this.memShut = new Set();    // the memory and counter tracks shown as one thin row (their label clicked)
    this.noteEl.textContent = "";
    const tr = r && r.trace;
    this.body.hidden = !tr;
    this.emptyEl.hidden = !!tr;
    if (!tr) { this.noteEl.textContent = ""; return; }
    this.clock = makeClock(BigInt(r.origin_ns || this.meta.origin_ns || 0), r.time);
    if (r.time !== "abs") this.axisMode = "rel";
    this.tracks = tr.tracks.filter((t) => t.slices > 0);
    // memory tracks: each device's headline curve (the peak's), on the same clock
    const devs = r.devices || [];
    this.mem = deviceOrder(devs.map((d) => d.id)).map((i) => devs[i]).filter((d) => d.curves && d.curves.length).slice(0, 4).map((d, k) => { // accelerators first
      const ci = d.peak && d.peak.curve >= 0 ? d.peak.curve : 0;
      return { dev: r.devices.indexOf(d), curve: ci, label: `memory ${d.id}`, sub: d.curves[ci].label || d.curves[ci].kind, max: d.curves[ci].max, data: null, k, fmt: fmtBytes };
    });
    // HTA's counters, from the perf object: their series are in the page (local), drawn by M4 per window
    let perf = null;
    try { perf = this.source.getPerf ? await this.source.getPerf(rank) : null; } catch { perf = null; }
    if (this.state.rank !== rank) return;
    for (const c of gtCounterTracks(perf && perf.gputime, tr.begin))
      this.mem.push({ local: c.curve, label: c.label, sub: c.sub, max: 0, data: null, k: this.mem.length, counter: true,
        fmt: (v) => (c.unit ? `${(+v).toFixed(1)} ${c.unit}` : groupDigits(Math.round(v))) });
    // the counter tracks (then the memory ones past the first) shut while they would take more
    // than half the view: the first thread lanes stay in sight at 1280 x 720
    const budget = this.viewH() / 2;
    const heightOf = () => this.mem.reduce((a, m) => a + (this.memShut.has(m.k) ? ROW : MEM_H) + GAP, 0);
    for (const m of this.mem.filter((x) => x.counter).reverse().concat(this.mem.filter((x) => !x.counter).slice(1).reverse()))
      if (heightOf() > budget) this.memShut.add(m.k);
    this.lo = Math.min(tr.begin, ...(r.devices || []).map((d) => d.t0));
    this.hi = Math.max(tr.end, ...(r.devices || []).map((d) => d.t1));
    if (!(this.hi > this.lo)) this.hi = this.lo + 1;
    this.t0 = this.lo; this.t1 = this.hi;
    const notes = [];
    if (tr.n != null && tr.n < tr.total)
      notes.push(`This report holds the ${groupDigits(tr.n)} longest of ${groupDigits(tr.total)} slices (those shorter than ${fmtDur(tr.cut_ns)} are left out); <code>memlens serve</code> shows them all.`);
    this.noteEl.innerHTML = notes.join(" ");
    this.capNote = this.noteEl.textContent;
    this.corner.textContent = "";
    this.cp = null;
    this.cpBtn.hidden = true;
    this.cpNote.hidden = true;
    this.layoutLabels(null);
    this.redraw();
    this.cpReady = this.loadCp(rank, tr.begin);   // not awaited: the slices need not wait for it
  }

  // The critical path, when the rank's perf object has one (the Trace view works without it).
  async loadCp(rank, begin) {
    const app = this.state.app;
    let perf = null;
    try { perf = app && app.perfOf ? await app.perfOf(rank, true) : null; } catch { perf = null; }
    if (this.state.rank !== rank) return;   // another rank was asked for meanwhile
    this.cp = cpOverlay(perf, begin);
    this.cpBtn.hidden = !this.cp;
    this.showCp(this.cpOn && !!this.cp);
  }

  // Lanes: one row per depth (the track's "depths", or the deepest seen so far).
  layoutLabels(ans) {
    const depths = this.depths || (this.depths = new Map());
    if (ans) {
      const upd = (tr, d) => { if ((depths.get(tr) || 0) < d + 1) { depths.set(tr, d + 1); this.dirtyLayout = true; } };
      for (let i = 0; i < ans.slices.track.length; i++) upd(ans.slices.track[i], ans.slices.depth[i]);
      for (let i = 0; i < ans.merged.track.length; i++) upd(ans.merged.track[i], ans.merged.depth[i]);
      if (!this.dirtyLayout && this.lay) return;
    }
    this.dirtyLayout = false;
    const collapsed = this.collapsed || (this.collapsed = new Set());
    const laneOf = new Map(this.tracks.map((t) => [t.id, { length: collapsed.has(t.id) ? 1 : Math.max(1, t.depths || 1, depths.get(t.id) || 1) }]));
    const shut = this.memShut || (this.memShut = new Set());
    this.lay = layoutTracks(this.tracks, laneOf, ROW, GAP, this.mem.map((m, k) => ({ track: -1 - k, h: shut.has(m.k) ? ROW : MEM_H, mem: m })), 30);
    const html = [];
    for (const row of this.lay.rows) {
      if (row.extra) {
        const m = row.extra.mem;
        const shutM = this.memShut.has(m.k);
        html.push(`<div class="tr-lab mem deep${shutM ? " shut" : ""}" style="top:${row.y}px;height:${row.h}px" data-y="${row.y}" data-mem="${m.k}" title="${escapeHtml(m.label + " · " + m.sub)} (click to ${shutM ? "expand" : "collapse"})"><span class="tr-tog">${shutM ? "▸" : "▾"}</span>${escapeHtml(m.label)}${shutM ? "" : `<span class="p">${escapeHtml(m.sub)}</span>`}</div>`);
      } else {
        const t = row.t;
        const deep = Math.max(t.depths || 1, depths.get(t.id) || 1) > 1, shut = this.collapsed.has(t.id);
        const tog = deep ? `<span class="tr-tog" title="${shut ? "show all its rows" : "show its top row only"}">${shut ? "▸" : "▾"}</span>` : "";
        html.push(`<div class="tr-lab${deep ? " deep" : ""}" style="top:${row.y}px;height:${row.h}px" data-y="${row.y}" data-track="${t.id}" title="${escapeHtml(t.process + " · " + t.label)}${deep ? " (click to " + (shut ? "expand" : "collapse") + ")" : ""}">${tog}${escapeHtml(t.label)}<span class="p">${escapeHtml(t.process)}</span></div>`);
      }
    }
    this.labels.innerHTML = html.join("");
    this.labels.style.height = this.lay.height + "px";
    this.placeLabels();
  }

  placeLabels() {
    const maxY = Math.max(0, this.lay.height - this.viewH());
    this.scrollY = Math.max(0, Math.min(this.scrollY, maxY));
    for (const c of this.labels.children) c.style.transform = `translateY(${-this.scrollY}px)`;
  }

  viewH() { return this.canvas.clientHeight || 560; }

  // ---- interaction ----------------------------------------------------------

  bind() {
    const c = this.canvas;
    const xAt = (e) => e.clientX - c.getBoundingClientRect().left;
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const d = e.shiftKey ? e.deltaY || e.deltaX : e.deltaX;
        this.pan(d / (c.clientWidth || 1000));
      } else {
        const f = Math.exp(Math.max(-1, Math.min(1, e.deltaY * (e.deltaMode ? 0.05 : 0.002))));
        this.zoomAt(xAt(e) / (c.clientWidth || 1000), f);
      }
    }, { passive: false });
    this.labels.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.scrollY += e.deltaY * (e.deltaMode ? 18 : 1);
      this.placeLabels();
      this.draw();
    }, { passive: false });
    let drag = null;
    c.addEventListener("mousedown", (e) => {
      if (e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY, t0: this.t0, t1: this.t1, sy: this.scrollY, moved: false };
      this.root.focus({ preventScroll: true });
      e.preventDefault();
    });
    this.onMove = (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; c.classList.add("drag"); }
      if (!drag.moved) return;
      const span = drag.t1 - drag.t0, k = span / (c.clientWidth || 1000);
      this.setWindow(drag.t0 - dx * k, drag.t1 - dx * k);
      this.scrollY = drag.sy - dy;
      this.placeLabels();
    };
    this.onUp = (e) => {
      if (!drag) return;
      const d = drag;
      drag = null;
      c.classList.remove("drag");
      if (!d.moved) this.click(xAt(e), e.clientY - c.getBoundingClientRect().top);
    };
    this.doc.addEventListener("mousemove", this.onMove);
    this.doc.addEventListener("mouseup", this.onUp);
    c.addEventListener("mousemove", (e) => { if (!drag) this.hover(xAt(e), e.clientY - c.getBoundingClientRect().top); });
    c.addEventListener("mouseleave", () => { this.tip.hidden = true; });
    c.addEventListener("dblclick", () => this.setWindow(this.lo, this.hi));
    c.addEventListener("mouseenter", () => { this.mouseIn = true; });
    c.addEventListener("mouseleave", () => { this.mouseIn = false; });
    c.addEventListener("mousemove", (e) => { this.mouseX = xAt(e) / (c.clientWidth || 1000); });
    this.onKey = (e) => {
      if (!this.el.isConnected || this.el.offsetParent === null) return;
      if (e.target.closest && e.target.closest("input, select, textarea")) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const k = e.key.toLowerCase(), at = this.mouseIn && this.mouseX != null ? this.mouseX : 0.5;
      if (k === "w") this.zoomAt(at, 0.8);
      else if (k === "s") this.zoomAt(at, 1.25);
      else if (k === "a") this.pan(-0.1);
      else if (k === "d") this.pan(0.1);
      else if (k === "0") this.setWindow(this.lo, this.hi);
      else return;
      e.preventDefault();
    };
    this.doc.addEventListener("keydown", this.onKey);
    const q = (s) => this.el.querySelector(s);
    let searchTimer = 0;
    q(".tr-search").addEventListener("input", (e) => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(() => { this.query = e.target.value.trim(); this.redraw(); }, 150);
    });
    q(".tr-search").addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      clearTimeout(searchTimer);
      const was = this.query;
      this.query = e.target.value.trim();
      if (this.query !== was) this.redraw();
      this.findNext(e.shiftKey ? -1 : 1);
    });
    q(".tr-next").addEventListener("click", () => this.findNext(1));
    q(".tr-prev").addEventListener("click", () => this.findNext(-1));
    q(".tr-axismode").addEventListener("click", (e) => {
      if (this.rank && this.rank.time !== "abs") { this.axisMode = "rel"; e.target.textContent = "time: relative"; return; }
      this.axisMode = this.axisMode === "abs" ? "rel" : "abs";
      e.target.textContent = this.axisMode === "abs" ? "time: absolute" : "time: relative";
      this.draw();
    });
    q(".tr-reset").addEventListener("click", () => this.setWindow(this.lo, this.hi));
    q(".tr-cp").addEventListener("click", () => this.showCp(!this.cpOn));
    q(".tr-download").addEventListener("click", () => this.download());
    q(".tr-perfetto").addEventListener("click", () => this.openPerfetto());
    this.labels.addEventListener("click", (e) => {
      const l = e.target.closest(".tr-lab.deep");
      if (!l) return;
      const set = l.dataset.mem != null ? this.memShut : this.collapsed, id = l.dataset.mem != null ? +l.dataset.mem : +l.dataset.track;
      if (set.has(id)) set.delete(id); else set.add(id);
      this.layoutLabels(null);
      this.draw();
    });
    this.detailEl.addEventListener("click", (e) => {
      const a = e.target.closest("a[data-id]");
      if (a) { e.preventDefault(); this.select(+a.dataset.id, true); }
    });
  }

  // The critical path overlay on or off: the button's state, the legend and the step's figures.
  showCp(on) {
    on = !!on;
    this.cpOn = on;
    this.cpBtn.setAttribute("aria-pressed", on ? "true" : "false");
    this.cpBtn.classList.toggle("on", on);
    this.cpNote.hidden = !on;
    this.draw();
  }

  setWindow(a, b) {
    const span = Math.max(b - a, 1000);
    const full = this.hi - this.lo;
    if (span >= full) { a = this.lo; b = this.hi; }
    else {
      if (a < this.lo) { a = this.lo; }
      if (a + span > this.hi) a = this.hi - span;
      b = a + span;
    }
    this.t0 = a; this.t1 = b;
    this.redraw();
  }

  zoomAt(frac, f) {
    const t = this.t0 + frac * (this.t1 - this.t0);
    this.setWindow(t - (t - this.t0) * f, t + (this.t1 - t) * f);
  }

  pan(frac) {
    const d = frac * (this.t1 - this.t0);
    this.setWindow(this.t0 + d, this.t1 + d);
  }

  // ---- data -----------------------------------------------------------------

  // Asks for the window's data (one request at a time; the latest window wins)
  // and draws at once with what it has.
  redraw() {
    if (!this.rank || !this.rank.trace) return;
    this.draw();
    if (this.inflight) { this.pending = true; return; }
    this.fetchWindow();
  }

  async fetchWindow() {
    this.inflight = true;
    this.pending = false;
    const t0 = this.t0, t1 = this.t1, px = Math.max(1, this.canvas.clientWidth || 1000), q = this.query;
    const started = performance.now();
    try {
      const [ans, ...curves] = await Promise.all([
        this.source.getTrace(this.state.rank, t0, t1, px, { q }),
        ...this.mem.map((m) => (m.local ? m4Points(m.local, t0, t1, px) : this.source.getCurve(this.state.rank, m.dev, m.curve, t0, t1, px).catch(() => null))),
      ]);
      if (ans) {
        // merged boxes back to times, so that they follow the window while the next answer comes
        const k = (t1 - t0) / px, M = ans.merged, n = M.track.length;
        ans.mt0 = new Float64Array(n); ans.mt1 = new Float64Array(n);
        for (let i = 0; i < n; i++) { ans.mt0[i] = t0 + M.x0[i] * k; ans.mt1[i] = t0 + M.x1[i] * k; }
        ans.q = q;
        this.data = ans;
        this.layoutLabels(ans);
        this.hitsEl.textContent = q ? `${groupDigits(ans.hits)} match${ans.hits === 1 ? "" : "es"}` : "";
      }
      curves.forEach((c, i) => { this.mem[i].data = c; });
      this.perf.fetchMs = performance.now() - started;
      if (this.failed) { this.failed = false; this.noteEl.textContent = this.capNote || ""; }
      this.draw();
    } catch (e) {
      this.failed = true;
      this.noteEl.textContent = "Cannot read the trace: " + e.message;
    } finally {
      this.inflight = false;
      if (this.pending) this.fetchWindow();
    }
  }

  // ---- drawing --------------------------------------------------------------

  fitCanvas(cv, h) {
    const dpr = window.devicePixelRatio || 1, w = cv.clientWidth || 1000;
    if (cv.width !== Math.round(w * dpr) || cv.height !== Math.round(h * dpr)) { cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr); }
    const ctx = cv.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { ctx, w, h };
  }

  draw() {
    if (!this.lay) return;
    const started = performance.now();
    const { ctx, w, h } = this.fitCanvas(this.canvas, this.viewH());
    const css = getComputedStyle(this.root);
    const fg = css.getPropertyValue("--fg").trim() || "#1d2330", muted = css.getPropertyValue("--muted").trim() || "#5d6678";
    const stripe = css.getPropertyValue("--stripe").trim() || "rgba(0,0,0,.03)", grid = css.getPropertyValue("--grid").trim() || "rgba(0,0,0,.08)";
    const accent = css.getPropertyValue("--accent").trim() || "#0072B2";
    ctx.clearRect(0, 0, w, h);
    const t0 = this.t0, t1 = this.t1, k = w / (t1 - t0), sy = this.scrollY;
    const X = (t) => (t - t0) * k;
    // track bands
    this.lay.rows.forEach((r, i) => {
      const y = r.y - sy;
      if (y > h || y + r.h < 0) return;
      if (i % 2) { ctx.fillStyle = stripe; ctx.fillRect(0, y - GAP / 2, w, r.h + GAP); }
    });
    // grid lines at the axis ticks
    const tk = this.ticks(w);
    ctx.fillStyle = grid;
    for (const t of tk.ticks) ctx.fillRect(Math.round(X(t)), 0, 1, h);
    this.drawMemory(ctx, w, h, X, accent, muted);
    const d = this.data;
    if (d) {
      const dark = this.dark, q = d.q, S = d.slices, M = d.merged;
      const hitStr = q ? this.hitStrings(d) : null;
      // merged runs
      const mergedFill = dark ? "rgba(154,163,178,0.55)" : "rgba(93,102,120,0.45)";
      const mergedHit = dark ? SEARCH_COLOUR.dark : SEARCH_COLOUR.light; // not a critical-path colour
      for (let i = 0; i < M.track.length; i++) {
        const y0 = this.lay.yOf(M.track[i], M.depth[i]), y = y0 - sy;
        if (y0 < 0) continue;
        if (y < -ROW || y > h) continue;
        const x0 = X(d.mt0[i]), x1 = X(d.mt1[i]);
        if (x1 < 0 || x0 > w) continue;
        ctx.fillStyle = q && !(M.hits && M.hits[i]) ? (dark ? "rgba(154,163,178,0.18)" : "rgba(93,102,120,0.15)") : q ? mergedHit : mergedFill;
        ctx.fillRect(x0, y + 1, Math.max(1, x1 - x0), ROW - 2);
      }
      // slices
      ctx.font = "11px system-ui, sans-serif";
      ctx.textBaseline = "middle";
      const texts = [];
      for (let i = 0; i < S.id.length; i++) {
        const y0 = this.lay.yOf(S.track[i], S.depth[i]), y = y0 - sy;
        if (y0 < 0) continue;
        if (y < -ROW || y > h) continue;
        let x0 = X(S.ts[i]), x1 = X(S.ts[i] + S.dur[i]);
        if (x1 < 0 || x0 > w) continue;
        if (x0 < -2) x0 = -2;
        if (x1 > w + 2) x1 = w + 2;
        const name = d.strings[S.name[i]] || "";
        const hit = !q || hitStr[S.name[i]];
        ctx.globalAlpha = hit ? 1 : 0.22;
        ctx.fillStyle = nameColour(name, dark);
        ctx.fillRect(x0, y + 1, Math.max(1, x1 - x0), ROW - 2);
        if (q && hit) { ctx.strokeStyle = dark ? SEARCH_COLOUR.dark : SEARCH_COLOUR.light; ctx.lineWidth = 2; ctx.strokeRect(x0 + 1, y + 2, Math.max(1, x1 - x0 - 2), ROW - 4); }
        if (x1 - x0 > 28) texts.push(i, x0, x1, y, hit ? 1 : 0.35);
      }
      ctx.globalAlpha = 1;
      ctx.fillStyle = dark ? "#f4f6fa" : "#15181f";
      for (let j = 0; j < texts.length; j += 5) {
        const i = texts[j], x0 = Math.max(texts[j + 1], 0), x1 = Math.min(texts[j + 2], w), y = texts[j + 3];
        const room = Math.floor((x1 - x0 - 6) / 6.1);
        if (room < 3) continue;
        let name = d.strings[S.name[i]] || "";
        if (name.length > room) name = name.slice(0, room - 1) + "…";
        ctx.globalAlpha = texts[j + 4];
        ctx.fillText(name, x0 + 3, y + ROW / 2);
      }
      ctx.globalAlpha = 1;
    }
    if (this.cpOn && this.cp) {
      cpDraw(ctx, this.cp, X, (tr, dp) => { const y = this.lay.yOf(tr, dp); return y < 0 ? null : y - sy; }, ROW, w, h);
      const text = cpSummary(this.cp, (t0 + t1) / 2);
      if (this.cpNote.dataset.text !== text) {
        this.cpNote.dataset.text = text;
        this.cpNote.innerHTML = (this.cp.labels || CP_LABELS).map((l, k) => `<span class="lg"><i style="background:${CP_COLOURS[k]}"></i>${l}</span>`).join(" ") +
          ` <span class="tr-cpstep">${escapeHtml(text)}</span>`;
      }
    }
    this.drawSelection(ctx, w, h, X, fg);
    this.drawAxis(tk);
    const ms = performance.now() - started;
    this.perf.lastMs = ms;
    this.perf.frames.push(ms);
    if (this.perf.frames.length > 600) this.perf.frames.shift();
  }

  hitStrings(d) {
    if (d._hit && d._hitQ === d.q) return d._hit;
    const s = d.q.toLowerCase(), out = new Uint8Array(d.strings.length);
    for (let i = 0; i < d.strings.length; i++) if (d.strings[i] && d.strings[i].toLowerCase().includes(s)) out[i] = 1;
    d._hit = out; d._hitQ = d.q;
    return out;
  }

  drawMemory(ctx, w, h, X, accent, muted) {
    for (const row of this.lay.rows) {
      if (!row.extra) continue;
      const m = row.extra.mem, y = row.y - this.scrollY;
      if (y > h || y + row.h < 0 || !m.data || !m.data.t.length) continue;
      const { t, v } = m.data, thin = row.h < MEM_H;
      // the highest value held inside the window (the points M4 adds beyond its end do not count)
      let max = stepMaxIn(t, v, this.t0, this.t1);
      const shown = max;
      if (!(max > 0)) max = 1;
      const Y = (val) => y + row.h - 2 - (val / max) * (row.h - (thin ? 4 : 14));
      ctx.beginPath();
      ctx.moveTo(Math.max(-1, X(t[0])), y + row.h - 2);
      for (let i = 0; i < t.length; i++) {
        const x = X(t[i]);
        if (i) ctx.lineTo(x, Y(v[i - 1]));
        ctx.lineTo(x, Y(v[i]));
      }
      ctx.lineTo(X(t[t.length - 1]), y + row.h - 2);
      ctx.closePath();
      ctx.globalAlpha = 0.18;
      ctx.fillStyle = accent;
      ctx.fill();
      ctx.globalAlpha = 1;
      ctx.beginPath();
      for (let i = 0; i < t.length; i++) {
        const x = X(t[i]);
        if (!i) ctx.moveTo(x, Y(v[0])); else { ctx.lineTo(x, Y(v[i - 1])); ctx.lineTo(x, Y(v[i])); }
      }
      ctx.strokeStyle = accent;
      ctx.lineWidth = 1.2;
      ctx.stroke();
      ctx.fillStyle = muted;
      ctx.font = "10.5px system-ui, sans-serif";
      ctx.textBaseline = "top";
      if (!thin) ctx.fillText("max in view " + (m.fmt || fmtBytes)(shown > 0 ? shown : 0), 4, y + 1);
      m.maxShown = shown > 0 ? shown : 0;   // (a test reads it)
    }
  }

  // The selection's outline and its flows (launch arrows) as curved arrows.
  drawSelection(ctx, w, h, X, fg) {
    const s = this.sel;
    if (!s) return;
    const sy = this.scrollY;
    const box = (b) => {
      const y = this.lay.yOf(b.track, b.depth);
      return y < 0 ? null : { x0: X(b.ts), x1: X(b.ts + b.dur), y: y - sy };
    };
    const me = box(s);
    const arrows = [];
    for (const f of s.flows || []) {
      const a = f.from === s.id ? s : s.related[f.from], b = f.to === s.id ? s : s.related[f.to];
      if (a && b) arrows.push([a, b]);
    }
    if (!arrows.length && s.launcher != null && s.related[s.launcher]) arrows.push([s.related[s.launcher], s]);
    if (!(s.flows || []).length) for (const j of (s.launched || []).slice(0, 200)) if (s.related[j]) arrows.push([s, s.related[j]]);
    ctx.strokeStyle = this.dark ? "#F0E442" : "#D55E00";
    ctx.fillStyle = ctx.strokeStyle;
    ctx.lineWidth = 1.5;
    for (const [a, b] of arrows) {
      const A = box(a), B = box(b);
      if (!A || !B) continue;
      const ax = A.x0, ay = A.y + ROW / 2, bx = B.x0, by = B.y + ROW / 2;
      ctx.beginPath();
      ctx.moveTo(ax, ay);
      const mx = (ax + bx) / 2;
      ctx.bezierCurveTo(mx, ay, mx, by, bx, by);
      ctx.stroke();
      arrowhead(ctx, bx, by, Math.atan2(by - ay, bx - mx || 1), 8, 0.4);
    }
    if (me) {
      ctx.strokeStyle = fg;
      ctx.lineWidth = 2;
      ctx.strokeRect(me.x0 - 1, me.y, Math.max(2, me.x1 - me.x0 + 2), ROW);
    }
  }

  ticks(w) {
    if (this.axisMode === "abs") return this.clock.ticks(this.t0, this.t1, w);
    const base = this.lo, rel = makeClock(0n, "rel").ticks(this.t0 - base, this.t1 - base, w);
    return { step: rel.step, ticks: rel.ticks.map((t) => t + base) };
  }

  fmtTime(t, step) {
    if (this.axisMode === "abs") return this.clock.fmt(t, this.clock.digitsFor(step));
    return "+" + fmtDur(Math.round(t - this.lo));
  }

  drawAxis(tk) {
    const { ctx, w, h } = this.fitCanvas(this.axis, AXIS_H);
    const css = getComputedStyle(this.root);
    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = css.getPropertyValue("--muted").trim() || "#5d6678";
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    const k = w / (this.t1 - this.t0);
    let lastEnd = -1e9;
    const labels = [];
    for (const t of tk.ticks) {
      const x = Math.round((t - this.t0) * k);
      ctx.fillRect(x, h - 6, 1, 6);
      const s = this.fmtTime(t, tk.step);
      const tw = s.length * 6.2;
      if (x + 3 > lastEnd + 8 && x + 3 + tw < w) { ctx.fillText(s, x + 3, h / 2 - 2); lastEnd = x + 3 + tw; labels.push(s); }
    }
    this.axisLabels = labels;
    const span = "window " + fmtDur(Math.round(this.t1 - this.t0));
    this.corner.textContent = (this.axisMode === "abs" && this.clock.mode === "abs" ? this.clock.date(this.t0) + " UTC · " : "relative · ") + span;
  }

  // ---- picking ----------------------------------------------------------------

  // What is under (x, y): {slice: index in the answer} or {merged: index}, or null.
  pick(x, y) {
    const d = this.data;
    if (!d || !this.lay) return null;
    const yy = y + this.scrollY;
    const row = this.lay.rows.find((r) => !r.extra && yy >= r.y && yy < r.y + r.h);
    if (!row) return null;
    const depth = Math.floor((yy - row.y) / ROW), w = this.canvas.clientWidth || 1000;
    const k = w / (this.t1 - this.t0), t = this.t0 + x / k, tol = 2 / k;
    const S = d.slices;
    let best = -1, bestD = Infinity;
    for (let i = 0; i < S.id.length; i++) {
      if (S.track[i] !== row.track || S.depth[i] !== depth) continue;
      const a = S.ts[i], b = S.ts[i] + S.dur[i];
      const dist = t < a ? a - t : t > b ? t - b : 0;
      if (dist <= tol && dist < bestD) { best = i; bestD = dist; }
    }
    if (best >= 0) return { slice: best };
    const M = d.merged;
    for (let i = 0; i < M.track.length; i++)
      if (M.track[i] === row.track && M.depth[i] === depth && t >= d.mt0[i] - tol && t <= d.mt1[i] + tol) return { merged: i };
    return null;
  }

  // The memory track under (x, y): {m, t, v} (the value in force at t), or null.
  memAt(x, y) {
    const yy = y + this.scrollY;
    const row = this.lay && this.lay.rows.find((r) => r.extra && yy >= r.y && yy < r.y + r.h);
    const m = row && row.extra.mem;
    if (!m || !m.data || !m.data.t.length) return null;
    const t = this.t0 + x * (this.t1 - this.t0) / (this.canvas.clientWidth || 1000);
    const k = upperBound(m.data.t, t) - 1;
    return k < 0 ? null : { m, t, v: m.data.v[k] };
  }

  hover(x, y) {
    const p = this.pick(x, y), d = this.data;
    const mem = p ? null : this.memAt(x, y);
    if (!p && !mem) { this.tip.hidden = true; return; }
    let html;
    if (mem) html = `<b>${escapeHtml(mem.m.label)}</b> ${escapeHtml(mem.m.sub)}: ${escapeHtml((mem.m.fmt || fmtBytes)(mem.v))}<br>${escapeHtml(this.fmtTime(mem.t, 1))}`;
    else if (p.slice != null) {
      const S = d.slices, i = p.slice;
      html = `<b>${escapeHtml(d.strings[S.name[i]] || "")}</b><br>${fmtDur(S.dur[i])} · ${escapeHtml(this.fmtTime(S.ts[i], 1))}`;
    } else {
      const M = d.merged, i = p.merged;
      html = `${groupDigits(M.n[i])} slices too narrow to draw one by one${M.hits && d.q ? `, ${groupDigits(M.hits[i])} matching` : ""}<br><span class="muted">click to zoom in</span>`;
    }
    this.tip.innerHTML = html;
    this.tip.hidden = false;
    const W = this.canvas.clientWidth, left = LABEL_W + Math.min(x + 12, W - 300);
    this.tip.style.left = left + "px";
    this.tip.style.top = Math.min(y + 14, this.viewH() - 40) + "px";
  }

  click(x, y) {
    const p = this.pick(x, y);
    if (!p) { this.select(null); return; }
    if (p.merged != null) {
      const d = this.data, i = p.merged, a = d.mt0[i], b = d.mt1[i], pad = (b - a) * 0.1;
      this.setWindow(a - pad, b + pad);
      return;
    }
    this.select(this.data.slices.id[p.slice]);
  }

  // The next (dir 1) or previous (-1) slice matching the search, from the
  // selection (or the window's start), selected and brought into view.
  async findNext(dir) {
    const q = (this.el.querySelector(".tr-search").value || "").trim();
    if (!q || !this.source.findSlice) return;
    this.query = q;
    const after = this.sel ? this.sel.ts : dir > 0 ? this.t0 - 1 : this.t1;
    const f = await this.source.findSlice(this.state.rank, q, after, dir);
    if (!f) { this.hitsEl.textContent = "no match"; return; }
    await this.select(f.id, true);
  }

  // Selects slice `id` (null: none); reveal: scroll and pan so that it shows.
  async select(id, reveal = false) {
    if (id == null) {
      this.sel = null;
      this.detailEl.hidden = true;
      this.body.classList.remove("has-detail");
      this.draw();
      if (this.state.tabs && this.state.tabs.writeHash) this.state.tabs.writeHash();
      return;
    }
    const s = await this.source.getSliceDetail(this.state.rank, id);
    s.related = s.related || {};
    this.sel = s;
    if (reveal) {
      const span = this.t1 - this.t0, w = this.canvas.clientWidth || 1000;
      if (s.dur > span || s.dur * w / span < 2) this.setWindow(s.ts - s.dur, s.ts + 2 * s.dur); // a third of the view
      else if (s.ts + s.dur < this.t0 || s.ts > this.t1) this.setWindow(s.ts + s.dur / 2 - span / 2, s.ts + s.dur / 2 + span / 2);
      const y = this.lay.yOf(s.track, s.depth);
      if (y >= 0 && (y < this.scrollY || y > this.scrollY + this.viewH() - ROW)) { this.scrollY = y - this.viewH() / 3; this.placeLabels(); }
    }
    this.renderDetail(s);
    this.draw();
    this.redraw();
    if (this.state.tabs && this.state.tabs.writeHash) this.state.tabs.writeHash();
  }

  renderDetail(s) {
    const tr = this.tracks.find((t) => t.id === s.track);
    const link = (j) => {
      const b = s.related[j];
      return `<a data-id="${j}" title="${escapeHtml(b ? b.name : "#" + j)}">${escapeHtml(b ? b.name : "#" + j)}</a>${b ? ` <span class="muted">${fmtDur(b.dur)}</span>` : ""}`;
    };
    const rows = [
      ["kind", escapeHtml(s.kind)],
      ["track", tr ? escapeHtml(tr.label) + ` <span class="muted">${escapeHtml(tr.process)}</span>` : String(s.track)],
      ["start", escapeHtml(this.clock.fmt(s.ts, 9, this.clock.mode === "abs")) + (this.clock.mode === "abs" ? " UTC" : "")],
      ["duration", `${fmtDur(s.dur)} <span class="muted">(${groupDigits(Math.round(s.dur))} ns)</span>`],
      ["depth", String(s.depth)],
    ];
    if (s.op != null) rows.push(["operator", link(s.op)]);
    if (s.launcher != null) rows.push(["launched by", link(s.launcher)]);
    if (s.parent != null && s.related[s.parent]) rows.push(["inside", link(s.parent)]);
    const args = Object.entries(s.args || {});
    let html = `<h3>${escapeHtml(s.name)}</h3><table>${rows.map(([a, b]) => `<tr><td>${a}</td><td>${b}</td></tr>`).join("")}</table>`;
    if (args.length) html += `<div class="tr-sec">Args</div><table>${args.map(([a, b]) => `<tr><td>${escapeHtml(a)}</td><td>${escapeHtml(typeof b === "string" ? b : JSON.stringify(b))}</td></tr>`).join("")}</table>`;
    if ((s.launched || []).length) {
      const L = s.launched;
      html += `<div class="tr-sec">Launched (${groupDigits(L.length)})</div><ol>${L.slice(0, 100).map((j) => `<li>${link(j)}</li>`).join("")}</ol>${L.length > 100 ? `<div class="muted">and ${groupDigits(L.length - 100)} more</div>` : ""}`;
    }
    if ((s.flows || []).length) {
      html += `<div class="tr-sec">Flows (${s.flows.length})</div><ol>${s.flows.slice(0, 50).map((f) => {
        const other = f.from === s.id ? f.to : f.from;
        return `<li>${f.from === s.id ? "→" : "←"} ${escapeHtml(f.cat)} ${link(other)}</li>`;
      }).join("")}</ol>`;
    }
    if ((s.stack || []).length) html += `<div class="tr-sec">Stack</div><ol>${s.stack.map((f) => `<li>${escapeHtml(f)}</li>`).join("")}</ol>`;
    this.detailEl.innerHTML = html;
    this.detailEl.hidden = false;
    this.body.classList.add("has-detail");
  }

  // ---- download, Perfetto --------------------------------------------------

  title() {
    const r = this.rank;
    return (r.path || "trace").split("/").pop().replace(/\.(json|gz)+$/g, "") + (r.rank >= 0 ? ` rank ${r.rank}` : "");
  }

  async download() {
    const a = this.doc.createElement("a");
    const name = this.title().replace(/[^\w.-]+/g, "_") + ".trace.json";
    if (this.source.traceJsonUrl) a.href = this.source.traceJsonUrl(this.state.rank);
    else {
      const text = await this.source.getTraceJson(this.state.rank);
      a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
      setTimeout(() => URL.revokeObjectURL(a.href), 60000);
    }
    a.download = name;
    this.doc.body.appendChild(a);
    a.click();
    a.remove();
  }

  // ui.perfetto.dev's documented protocol: open it, send "PING" until it
  // answers "PONG", then post {perfetto: {buffer, title}}.  Nothing is sent
  // or fetched before the click.  The window opens at once (a pop-up blocker
  // allows it only in the click) on a blank page; ui.perfetto.dev goes into
  // it only when it answers (a request that reads nothing back), so that
  // offline the page says so and offers the download instead of a browser
  // error page.
  async openPerfetto() {
    const win = window.open("", "_blank");
    if (!win) { this.offline("The browser blocked the Perfetto window: allow pop-ups for this page."); return; }
    this.offline(null);
    try { win.document.title = "Opening Perfetto…"; win.document.body.textContent = "Opening ui.perfetto.dev…"; } catch { /* not ours to write */ }
    const bufP = this.source.getTraceJson(this.state.rank).then((t) => new TextEncoder().encode(t).buffer);
    if (!(await perfettoReachable())) {
      try { win.close(); } catch { /* already closed */ }
      this.offline("Perfetto (ui.perfetto.dev) could not be reached: this machine seems to be offline.", true);
      return;
    }
    win.location.href = PERFETTO + "/#!/";
    let tries = 0;
    const timer = setInterval(() => {
      if (win.closed) { clearInterval(timer); window.removeEventListener("message", onMsg); return; }
      if (++tries > 300) { // 30 s without an answer
        clearInterval(timer); window.removeEventListener("message", onMsg);
        this.offline("Perfetto (ui.perfetto.dev) opened but did not answer within 30 s.", true);
        return;
      }
      try { win.postMessage("PING", PERFETTO); } catch { /* not loaded yet */ }
    }, 100);
    const onMsg = async (e) => {
      if (e.source !== win || e.data !== "PONG") return;
      clearInterval(timer);
      window.removeEventListener("message", onMsg);
      const buffer = await bufP;
      win.postMessage({ perfetto: { buffer, title: this.title(), keepApiOpen: false } }, PERFETTO);
    };
    window.addEventListener("message", onMsg);
  }

  // Says why Perfetto did not open (null: nothing), with the trace's download when asked.
  offline(text, offerDownload) {
    const el = this.el.querySelector(".tr-offline");
    if (!el) return;
    el.hidden = !text;
    if (!text) { el.innerHTML = ""; return; }
    el.innerHTML = escapeHtml(text) + (offerDownload ? ' <button class="tr-offline-dl">Download the trace</button> <span class="muted">and open it in Perfetto (or chrome://tracing) later.</span>' : "");
    const b = el.querySelector(".tr-offline-dl");
    if (b) b.addEventListener("click", () => this.download());
  }

  destroy() {
    this.doc.removeEventListener("mousemove", this.onMove);
    this.doc.removeEventListener("mouseup", this.onUp);
    this.doc.removeEventListener("keydown", this.onKey);
    if (this.ro) this.ro.disconnect();
    this.el.innerHTML = "";
  }
}

// Mounts the Trace view of state.rank into el; returns its handle, with the
// view methods of the tab shell (tabs.js): show(rank), hide(), focusSearch(),
// closeDetail(), select(sel), hashExtra(), restore(params).
export function mountTrace(el, source, state) {
  const v = new TraceView(el, source, state);
  let ready = v.setRank(state && state.rank != null ? state.rank : 0);
  const search = () => el.querySelector(".tr-search");
  return {
    view: v,
    get ready() { return ready; }, // the latest rank switch, not the first one: callers await what is shown now
    setRank: (k) => (ready = v.setRank(k)),
    redraw: () => v.redraw(),
    destroy: () => v.destroy(),
    async show(rank) {
      await ready;
      if (rank != null && rank !== v.state.rank) await (ready = v.setRank(rank));
      else v.redraw();
    },
    hide() { v.tip.hidden = true; },
    focusSearch() { const s = search(); if (!s) return false; s.focus(); s.select(); return true; },
    closeDetail() { if (!v.sel) return false; v.select(null); return true; },
    async select(sel) { await ready; if (sel != null && sel !== "" && Number.isFinite(+sel)) await v.select(+sel, true); },
    hashExtra() { return { sel: v.sel ? String(v.sel.id) : null }; },
    restore() {},
  };
}
