// compare.js — the Compare view (key 8): two runs side by side, from the
// compare object of `memlens diff` (web/DATA.md, "Compare"): both memory
// curves on one chart over a shared axis (time since the first step, or
// aligned at step N, or at each trace's start) with both peaks marked; the
// memory figures per device; the step breakdowns side by side; the delta
// tables (the live set at the peak by group, the operators and kernels by
// name, the segments only one snapshot has, the allocator settings that
// differ) with the tables' usual search, sort and CSV; and the operator-tree
// diff with expandable nodes, each node's operators and its children's
// execution diff.  A report carries the pairs `memlens diff -o` compared;
// a served page compares any two loaded runs (the server's /api/compare).

import { escapeHtml, fmtBytes, fmtDur, groupDigits, plural, OKABE_ITO } from "./format.js";
import { PerfTable, ptDownload, ptCopy } from "./perftable.js";
import { pvWhy, pvFlash } from "./perfview.js";
import { cssVar, byteAxisOpts, PAD_RIGHT } from "./views.js";
import { markerDash } from "./present.js";
import { STEP_PARTS } from "./overview.js";
import { deviceOrder, defaultCompareDevice } from "./devorder.js";

export const BASE_COLOUR = OKABE_ITO[0], NEW_COLOUR = OKABE_ITO[5];

// ---- pure helpers (web/test/compare.test.mjs) ------------------------------

// (b - a) / a in percent; null when a is 0 or either is unknown.
// The verdict on an operator's summed time (base_us, new_us), as HTA's on
// its calls reads: added / deleted (run on one side only), increased /
// decreased by TIME_VERDICT_PCT % or more, else unchanged.
export const TIME_VERDICT_PCT = 5;
export function timeVerdict(r) {
  const a = r.base_calls > 0 ? r.base_us || 0 : null, b = r.new_calls > 0 ? r.new_us || 0 : null;
  if (a == null && b == null) return "unchanged";
  if (a == null) return "added";
  if (b == null) return "deleted";
  if (a === 0) return b > 0 ? "increased" : "unchanged";
  const pct = (100 * (b - a)) / a;
  return pct >= TIME_VERDICT_PCT ? "increased" : pct <= -TIME_VERDICT_PCT ? "decreased" : "unchanged";
}

export function deltaPct(a, b) { return a == null || b == null || !a ? null : (100 * (b - a)) / a; }
export function fmtPct(p) { return p == null || !isFinite(p) ? "–" : (p > 0 ? "+" : "") + p.toFixed(Math.abs(p) < 10 ? 1 : 0) + " %"; }
export function fmtSignedBytes(v) { return v == null ? "–" : v === 0 ? "0 B" : (v > 0 ? "+" : "−") + fmtBytes(Math.abs(v)); }
export function fmtSignedUs(us) { return us == null ? "–" : us === 0 ? "0" : (us > 0 ? "+" : "−") + fmtDur(Math.abs(us) * 1000); }
export function fmtUs(us) { return us == null ? "–" : fmtDur(us * 1000); }

// The offset (page ns) that puts a run's alignment point at x = 0: the
// begin of step `step` (begins: the diff's steps.begin_ns of the run,
// absolute ns as text; the page's times are relative to originNs), else the
// device's first time.
export function alignOffset(begins, originNs, step, devT0) {
  if (step >= 0 && begins && begins[step] != null) return Number(BigInt(begins[step]) - BigInt(originNs || "0"));
  return devT0 || 0;
}

// The visible rows of the tree: the root's children, and the children of
// every open node (open: a Set of paths "0-2-1"), depth first.
export function treeRows(root, open, limit = 5000) {
  const out = [];
  const walk = (node, path, depth) => {
    (node.children || []).forEach((c, k) => {
      if (out.length >= limit) return;
      const p = path === "" ? String(k) : path + "-" + k;
      out.push({ node: c, path: p, depth, open: open.has(p) });
      if (open.has(p)) walk(c, p, depth + 1);
    });
  };
  walk(root, "", 0);
  return out;
}

// The node at a path ("" = the root), or null.
export function nodeAt(root, path) {
  if (!path) return root;
  let n = root;
  for (const k of path.split("-")) { n = n && n.children ? n.children[+k] : null; if (!n) return null; }
  return n;
}

// A side of a tree node in words.
export function sideLabel(s) {
  if (!s) return "(none)";
  if (s.name != null) return s.name;
  return `${s.nodes} nodes: ${s.first} … ${s.last}`;
}

export function nodeLabel(n) {
  const b = sideLabel(n.base), x = sideLabel(n.new);
  return n.match === "matched" || b === x ? b : `${b}  →  ${x}`;
}

// The plugin's Execution Diff of a node: per child, the change of its total
// time and the change accumulated over the children so far (µs).
export function execDiff(node) {
  let acc = 0;
  return (node.children || []).map((c) => {
    const d = (c.new ? c.new.total_us : 0) - (c.base ? c.base.total_us : 0);
    acc += d;
    return { label: nodeLabel(c), base: c.base ? c.base.total_us : 0, now: c.new ? c.new.total_us : 0, delta: d, acc };
  });
}

// ---- the view -----------------------------------------------------------------

const FIGURES = [
  ["peak_allocated_bytes", "peak allocated", true], ["peak_reserved_bytes", "peak reserved", true],
  ["reserved_end_bytes", "reserved at end", true], ["unused_reserved_at_peak_bytes", "reserved, not allocated, at the reserved peak", true],
  ["alloc_events", "allocations", false], ["free_events", "frees", false], ["oom_events", "out-of-memory events", false],
  ["never_freed_bytes", "never freed", true],
];

const num = (fmt, title) => ({ num: true, fmt, title });
const TABLES = {
  groups: {
    label: "Live at the peak", file: "groups",
    columns: [
      { key: "group", label: "Group", minWidth: 300, cls: "name" },
      { key: "base_bytes", label: "Base", width: 100, ...num(fmtBytes) },
      { key: "new_bytes", label: "New", width: 100, ...num(fmtBytes) },
      { key: "delta_bytes", label: "Δ", width: 110, ...num(fmtSignedBytes, "new − base") },
      { key: "pct", label: "Δ %", width: 80, get: (r) => deltaPct(r.base_bytes, r.new_bytes), ...num(fmtPct) },
      { key: "base_count", label: "Base count", width: 96, ...num(groupDigits) },
      { key: "new_count", label: "New count", width: 96, ...num(groupDigits) },
      { key: "only", label: "Only in", width: 80, fmt: (v) => v || "" },
    ],
    sort: null, empty: "No allocation was live at either peak.",
  },
  ops: {
    label: "Operators & kernels", file: "operators",
    columns: [
      { key: "kind", label: "Kind", width: 84 },
      { key: "name", label: "Name", minWidth: 230, cls: "name" },
      { key: "base_calls", label: "Base calls", width: 92, ...num(groupDigits) },
      { key: "new_calls", label: "New calls", width: 92, ...num(groupDigits) },
      { key: "dcalls", label: "Δ calls", width: 84, get: (r) => r.new_calls - r.base_calls, ...num((v) => (v > 0 ? "+" : "") + groupDigits(v)) },
      { key: "base_us", label: "Base time", width: 100, ...num(fmtUs, "summed durations over all profiler steps") },
      { key: "new_us", label: "New time", width: 100, ...num(fmtUs) },
      { key: "dus", label: "Δ time", width: 104, get: (r) => r.new_us - r.base_us, ...num(fmtSignedUs) },
      { key: "pct", label: "Δ %", width: 80, get: (r) => deltaPct(r.base_us, r.new_us), ...num(fmtPct) },
      { key: "change", label: "By calls", width: 98, title: "HolisticTraceAnalysis' verdict, by the number of calls: unchanged when both ran it as often, whatever the time" },
      { key: "tchange", label: "By time", width: 98, get: timeVerdict, title: `the verdict by the summed time: increased or decreased by ${TIME_VERDICT_PCT} % or more, else unchanged` },
    ],
    sort: null, empty: "No operator, runtime call or kernel in the profiler steps of either run.",
  },
  segments: {
    label: "Segments only in one", file: "segments",
    columns: [
      { key: "side", label: "Only in", width: 80 },
      { key: "device", label: "Device", width: 80 },
      { key: "address", label: "Address", width: 150, cls: "mono" },
      { key: "total_size", label: "Size", width: 100, ...num(fmtBytes) },
      { key: "allocated_size", label: "Allocated", width: 100, ...num(fmtBytes) },
      { key: "stream", label: "Stream", width: 80 },
      { key: "pool", label: "Pool", width: 90 },
      { key: "segment_type", label: "Type", width: 70 },
      { key: "blocks", label: "Blocks", width: 70, ...num(groupDigits) },
    ],
    sort: "total_size", empty: "Every segment is in both snapshots (same address and size).",
  },
  settings: {
    label: "Allocator settings", file: "allocator-settings",
    columns: [
      { key: "key", label: "Setting", width: 240, cls: "name" },
      { key: "base", label: "Base", minWidth: 240, fmt: (v) => (v == null ? "(not set)" : v) },
      { key: "new", label: "New", minWidth: 240, fmt: (v) => (v == null ? "(not set)" : v) },
    ],
    sort: null, empty: "The two snapshots' allocator settings are the same.",
  },
};

const TREE_COLS = [
  ["Base total", (n) => n.base && n.base.total_us, fmtUs], ["New total", (n) => n.new && n.new.total_us, fmtUs],
  ["Δ total", (n) => (n.new ? n.new.total_us : 0) - (n.base ? n.base.total_us : 0), fmtSignedUs],
  ["Δ %", (n) => deltaPct(n.base && n.base.total_us, n.new && n.new.total_us), fmtPct],
  ["Base host", (n) => n.base && n.base.host_us, fmtUs], ["New host", (n) => n.new && n.new.host_us, fmtUs],
  ["Base device", (n) => n.base && n.base.device_us, fmtUs], ["New device", (n) => n.new && n.new.device_us, fmtUs],
];

const NODE_OP_COLS = [
  { key: "name", label: "Operator", minWidth: 260, cls: "name" },
  { key: "base_calls", label: "Base calls", width: 88, ...num(groupDigits) },
  { key: "new_calls", label: "New calls", width: 88, ...num(groupDigits) },
  { key: "base_host_us", label: "Base host", width: 96, ...num(fmtUs) },
  { key: "new_host_us", label: "New host", width: 96, ...num(fmtUs) },
  { key: "dhost", label: "Δ host", width: 100, get: (r) => r.new_host_us - r.base_host_us, ...num(fmtSignedUs) },
  { key: "base_self_host_us", label: "Base self host", width: 110, ...num(fmtUs) },
  { key: "new_self_host_us", label: "New self host", width: 110, ...num(fmtUs) },
  { key: "base_device_us", label: "Base device", width: 100, ...num(fmtUs) },
  { key: "new_device_us", label: "New device", width: 100, ...num(fmtUs) },
  { key: "ddev", label: "Δ device", width: 100, get: (r) => r.new_device_us - r.base_device_us, ...num(fmtSignedUs) },
  { key: "base_self_device_us", label: "Base self device", width: 124, ...num(fmtUs) },
  { key: "new_self_device_us", label: "New self device", width: 124, ...num(fmtUs) },
];

export class CompareView {
  constructor(el, app) {
    this.el = el;
    this.app = app;
    this.pair = null;       // {base_rank, new_rank, diff}
    this.tab = "groups";
    this.dev = 0;           // index into diff.devices
    this.align = 0;         // step index to align at; -1: each trace's start
    this.reserved = true;
    this.open = new Set();
    this.selPath = null;
    this.window = null;     // [x0, x1] of the chart, null: all
    this.pending = null;
  }

  // The runs to compare when the view opens on rank k.
  async choose(k) {
    const src = this.app.source, n = this.app.meta.ranks.length;
    const pairs = src.comparePairs ? src.comparePairs() : null;
    if (pairs) {
      if (!pairs.length) return null;
      const want = this.pending && this.pending.pair != null ? +this.pending.pair : -1;
      const at = want >= 0 && want < pairs.length ? want : pairs.findIndex((p) => p.base_rank === k || p.new_rank === k);
      const p = pairs[at >= 0 ? at : this.pairIndex || 0];
      this.pairIndex = pairs.indexOf(p);
      return [p.base_rank, p.new_rank];
    }
    if (n < 2) return null;
    let b = this.pending && this.pending.base != null ? +this.pending.base : this.base != null ? this.base : k;
    let x = this.pending && this.pending.new != null ? +this.pending.new : this.new != null ? this.new : -1;
    if (!(b >= 0 && b < n)) b = 0;
    if (!(x >= 0 && x < n) || x === b) x = b + 1 < n ? b + 1 : b - 1;
    return [b, x];
  }

  async show(rank) {
    const app = this.app;
    const runs = await this.choose(rank);
    if (!runs) {
      const served = !(app.source.comparePairs && app.source.comparePairs());
      pvWhy(this.el, "Nothing to compare", served
        ? "Compare needs two runs: start memlens serve with two inputs (memlens serve BASE NEW), or add a run with “Add a run” or by dropping a file on the page."
        : "This report holds no comparison. Write one with memlens diff BASE NEW -o compare.html.");
      this.pair = null;
      return;
    }
    const [b, x] = runs;
    this.base = b; this.new = x;
    const key = b + "/" + x + "/" + app.meta.ranks.length; // a run added (served): the selectors list it
    if (this.pair && this.key === key) { this.applyPending(); this.resize(); return; }
    this.el.innerHTML = '<div class="loading">Comparing…</div>';
    try {
      if (app.source.ensureRank) { await app.loadRank(b); await app.loadRank(x); }
      this.pair = await app.source.getCompare(b, x);
    } catch (e) {
      pvWhy(this.el, "Cannot compare these runs", String(e.message || e));
      this.pair = null;
      return;
    }
    this.key = key;
    this.dev = defaultCompareDevice(this.pair.diff.devices); // the accelerator with the highest peak, not the cpu listed first
    this.window = null; this.open = new Set(); this.selPath = null;
    this.align = this.stepCount(0) && this.stepCount(1) ? 0 : -1;
    this.render();
    this.applyPending();
  }

  applyPending() {
    const p = this.pending;
    this.pending = null;
    if (!p) return;
    if (p.tab && this.tabs[p.tab]) this.setTab(p.tab);
    if (p.q != null && this.search) { this.search.value = p.q; if (this.table) this.table.setFilter(p.q); }
    if (p.sel) this.selectPath(p.sel);
  }

  render() {
    const d = this.pair.diff, m = this.app.meta;
    const rk = (k) => m.ranks[k] || {};
    const run = (k, who, colour) => `<span class="cmp-run"><i style="background:${colour}"></i><b>${who}</b> ${escapeHtml((rk(k).path || "").split("/").pop())}` +
      `${rk(k).rank >= 0 ? " · rank " + rk(k).rank : ""} <span class="muted">(${escapeHtml(rk(k).format || "")})</span></span>`;
    const pairs = this.app.source.comparePairs ? this.app.source.comparePairs() : null;
    let pick = "";
    if (pairs && pairs.length > 1)
      pick = `<label class="sel">pair <select class="cmp-pair">${pairs.map((p, i) => `<option value="${i}"${i === this.pairIndex ? " selected" : ""}>${escapeHtml(this.pairName(p))}</option>`).join("")}</select></label>`;
    else if (!pairs) {
      const opts = (sel) => m.ranks.map((r, k) => `<option value="${k}"${k === sel ? " selected" : ""}>${r.rank >= 0 ? "rank " + r.rank + " · " : ""}${escapeHtml(r.path.split("/").pop())}</option>`).join("");
      pick = `<label class="sel">base <select class="cmp-base">${opts(this.base)}</select></label><label class="sel">compare with <select class="cmp-new">${opts(this.new)}</select></label>`;
    }
    const notes = d.notes || [];
    this.el.innerHTML = `<section class="panel cmp-head"><div class="bar"><h2>Compare</h2>${run(this.pair.base_rank, "base", BASE_COLOUR)}<span class="cmp-vs">vs</span>${run(this.pair.new_rank, "new", NEW_COLOUR)}<span class="spacer"></span>${pick}</div>` +
      (notes.length ? `<div class="cmp-notes">${notes.map((n) => `<div class="muted">${escapeHtml(n)}</div>`).join("")}</div>` : "") + "</section>" +
      '<section class="panel cmp-mem"></section><section class="panel cmp-time"></section><section class="panel cmp-tables"></section><section class="panel cmp-tree"></section>';
    const q = (s) => this.el.querySelector(s);
    if (q(".cmp-pair")) q(".cmp-pair").addEventListener("change", (e) => { this.pairIndex = +e.target.value; this.key = null; const p = pairs[this.pairIndex]; this.show(p.base_rank); });
    if (q(".cmp-base")) q(".cmp-base").addEventListener("change", (e) => { this.base = +e.target.value; if (this.new === this.base) this.new = null; this.key = null; this.show(this.base); });
    if (q(".cmp-new")) q(".cmp-new").addEventListener("change", (e) => { this.new = +e.target.value; this.key = null; this.show(this.base); });
    this.renderMemory(q(".cmp-mem"));
    this.renderTime(q(".cmp-time"));
    this.renderTables(q(".cmp-tables"));
    this.renderTree(q(".cmp-tree"));
  }

  pairName(p) {
    const r = (k) => this.app.meta.ranks[k] || {};
    const name = (k) => (r(k).rank >= 0 ? "rank " + r(k).rank : (r(k).path || "").split("/").pop());
    return name(p.base_rank) + " vs " + name(p.new_rank);
  }

  // ---- memory ----

  renderMemory(el) {
    const d = this.pair.diff;
    if (!d.devices.length) {
      const why = (d.notes || []).find((n) => n.startsWith("memory")) || "Neither run has memory data (record with profile_memory=True, or take a memory snapshot).";
      el.innerHTML = `<div class="bar"><h2>Memory</h2></div><p class="muted cmp-empty">Not compared: ${escapeHtml(why)}</p>`;
      return;
    }
    const devs = deviceOrder(d.devices.map((x) => x.base_id || x.new_id || x.id)).map((i) => [d.devices[i], i]).map(([x, i]) => `<option value="${i}"${i === this.dev ? " selected" : ""}>${escapeHtml(x.base_id && x.new_id && x.base_id !== x.new_id ? x.base_id + " vs " + x.new_id : x.id)}${x.only ? " (only in " + x.only + ")" : ""}</option>`).join("");
    const steps = Math.min(this.stepCount(0), this.stepCount(1));
    const alignOpts = (steps ? Array.from({ length: Math.min(steps, 200) }, (_, k) => `<option value="${k}"${k === this.align ? " selected" : ""}>${k ? "step " + (k + 1) : "the first step"}</option>`).join("") : "") +
      `<option value="-1"${this.align < 0 ? " selected" : ""}>each trace's start</option>`;
    el.innerHTML = `<div class="bar"><h2>Memory</h2><label class="sel">device <select class="cmp-dev">${devs}</select></label>` +
      `<label class="sel">align at <select class="cmp-align">${alignOpts}</select></label>` +
      `<label class="sel"><input type="checkbox" class="cmp-res"${this.reserved ? " checked" : ""}> reserved</label><span class="spacer"></span>` +
      '<span class="muted cmp-win"></span><button class="cmp-reset" title="show everything (double-click)">Reset zoom</button></div>' +
      '<div class="cmp-peaks"></div><div class="cmp-chart"></div><div class="hint muted">x: time since the alignment point of each run · drag to zoom · double-click to reset</div><div class="cmp-figs"></div>';
    const q = (s) => el.querySelector(s);
    q(".cmp-dev").addEventListener("change", (e) => { this.dev = +e.target.value; this.window = null; this.drawMemory(); this.renderTables(this.el.querySelector(".cmp-tables")); });
    q(".cmp-align").addEventListener("change", (e) => { this.align = +e.target.value; this.window = null; this.drawMemory(); });
    q(".cmp-res").addEventListener("change", (e) => { this.reserved = e.target.checked; this.chartKey = null; this.drawMemory(); });
    q(".cmp-reset").addEventListener("click", () => { this.window = null; this.drawMemory(); });
    this.drawMemory();
  }

  stepCount(s) {
    const st = this.pair.diff.steps;
    return st && !st.whole_trace[s ? "new" : "base"] ? st.begin_ns[s ? "new" : "base"].length : 0;
  }

  // The page device index and curves of a side for the compared device.
  side(s) {
    const dd = this.pair.diff.devices[this.dev], rank = s ? this.pair.new_rank : this.pair.base_rank;
    const id = s ? dd.new_id : dd.base_id, r = this.app.meta.ranks[rank];
    if (id == null || !r) return null;
    const di = r.devices.findIndex((x) => x.id === id);
    if (di < 0) return null;
    const dev = r.devices[di];
    const pick = (kind) => dev.curves.findIndex((c) => c.group === "overall" && c.kind === kind);
    const origin = r.origin_ns || this.app.meta.origin_ns;
    const st = this.pair.diff.steps, begins = st && st.begin_ns ? st.begin_ns[s ? "new" : "base"] : null;
    return { rank, di, dev, alloc: pick("allocated"), reserved: pick("reserved"), off: alignOffset(begins, origin, this.align, dev.t0) };
  }

  async drawMemory() {
    const el = this.el.querySelector(".cmp-chart");
    if (!el || !this.pair.diff.devices.length) return;
    const sides = [this.side(0), this.side(1)];
    const series = [];
    for (const [s, sd] of sides.entries()) {
      if (!sd) continue;
      const colour = s ? NEW_COLOUR : BASE_COLOUR, who = s ? "new" : "base";
      if (sd.alloc >= 0) series.push({ s, sd, curve: sd.alloc, label: who + " allocated", colour, dash: undefined });
      if (this.reserved && sd.reserved >= 0) series.push({ s, sd, curve: sd.reserved, label: who + " reserved", colour, dash: [6, 3] });
    }
    if (!series.length) { el.innerHTML = '<p class="muted cmp-empty">No memory curve for this device.</p>'; return; }
    let x0 = Infinity, x1 = -Infinity;
    for (const sd of sides) if (sd) { x0 = Math.min(x0, sd.dev.t0 - sd.off); x1 = Math.max(x1, sd.dev.t1 - sd.off); }
    if (!(x1 > x0)) x1 = x0 + 1;
    const [a, b] = this.window || [x0, x1];
    this.full = [x0, x1];
    const key = series.map((x) => x.label).join("/") + "/" + this.dev;
    // built anew for other series, or when the view was drawn again (another pair): the old chart is in no page
    if (this.chartKey !== key || !this.u || !el.contains(this.u.root)) this.buildChart(el, series, key);
    const px = Math.max(1, Math.round(this.plotWidth() * devicePixelRatio));
    const parts = await Promise.all(series.map(async (x) => {
      const c = await this.app.source.getCurve(x.sd.rank, x.sd.di, x.curve, a + x.sd.off, b + x.sd.off, px);
      const t = new Float64Array(c.t.length);
      for (let i = 0; i < t.length; i++) t[i] = c.t[i] - x.sd.off;
      return [t, c.v];
    }));
    this.ymax = Math.max(1, ...series.map((x) => x.sd.dev.curves[x.curve].max || 0)) * 1.1;
    this.peaks = sides.map((sd) => (sd && sd.dev.peak ? { x: sd.dev.peak.t - sd.off, v: sd.dev.peak.v } : null));
    const pk = this.el.querySelector(".cmp-peaks");
    if (pk) pk.innerHTML = this.peaks.map((p, s) => (p ? `<span style="color:${s ? NEW_COLOUR : BASE_COLOUR}"><b>${s ? "new" : "base"} peak ${fmtBytes(p.v)}</b> at ${fmtRel(p.x)}</span>` : "")).filter(Boolean).join(" · ") +
      (this.peaks[0] && this.peaks[1] ? ` · <b>${fmtSignedBytes(this.peaks[1].v - this.peaks[0].v)}</b> (${fmtPct(deltaPct(this.peaks[0].v, this.peaks[1].v))})` : "");
    const data = parts.length === 1 ? parts[0] : uPlot.join(parts);
    this.u.setData(data, false);
    this.u.setScale("x", { min: a, max: b });
    const win = this.el.querySelector(".cmp-win");
    if (win) win.textContent = `${fmtRel(a)} – ${fmtRel(b)}`;
    this.renderFigures();
  }

  plotWidth() { return this.u ? this.u.bbox.width / devicePixelRatio : Math.max(1, (this.el.clientWidth || 900) - 170 - PAD_RIGHT); }

  buildChart(el, series, key) {
    const fg = cssVar("--fg"), grid = cssVar("--grid");
    const opts = {
      width: el.clientWidth || 900, height: 280, padding: [10, PAD_RIGHT, 0, 0],
      legend: { live: true, markers: { width: 2, dash: (u, i) => markerDash(u.series[i].dash) } },
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
      scales: { x: { time: false, range: () => (this.window || this.full) }, y: { range: () => [0, this.ymax || 1] } },
      series: [{ label: "time", value: (u, v) => (v == null ? "–" : fmtRel(v)) }].concat(series.map((x) => ({
        label: x.label, stroke: x.colour, width: 1.6, dash: x.dash, points: { show: false }, spanGaps: true,
        paths: uPlot.paths.stepped({ align: 1 }), value: (u, v) => (v == null ? "–" : fmtBytes(v)),
      }))),
      axes: [
        { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 44, label: "time since the alignment point", labelSize: 18,
          labelFont: "12px system-ui, sans-serif", font: "12px system-ui, sans-serif", values: (u, ticks) => ticks.map(fmtRel) },
        byteAxisOpts(this, "bytes (binary units)", fg, grid),
      ],
      hooks: {
        setSelect: [(u) => {
          if (u.select.width > 4) {
            this.window = [u.posToVal(u.select.left, "x"), u.posToVal(u.select.left + u.select.width, "x")];
            this.drawMemory();
          }
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        }],
        draw: [(u) => this.drawPeaks(u)],
      },
    };
    if (this.u) this.u.destroy();
    el.innerHTML = "";
    this.u = new uPlot(opts, [[0], ...series.map(() => [null])], el);
    this.u.over.addEventListener("dblclick", () => { this.window = null; this.drawMemory(); });
    this.chartKey = key;
  }

  drawPeaks(u) {
    const ctx = u.ctx, dpr = devicePixelRatio, { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.beginPath(); ctx.rect(left, top, width, height); ctx.clip();
    (this.peaks || []).forEach((p, s) => {
      if (!p || p.x < u.scales.x.min || p.x > u.scales.x.max) return;
      const x = u.valToPos(p.x, "x", true), y = u.valToPos(p.v, "y", true), colour = s ? NEW_COLOUR : BASE_COLOUR;
      ctx.strokeStyle = colour; ctx.fillStyle = colour; ctx.lineWidth = dpr; ctx.setLineDash([4 * dpr, 3 * dpr]);
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke(); ctx.setLineDash([]);
      ctx.beginPath(); ctx.arc(x, y, 4 * dpr, 0, 7); ctx.fill();
      // a short tag by the marker; the values are in the line above the chart
      const label = s ? "new peak" : "base peak";
      ctx.font = `${11 * dpr}px system-ui, sans-serif`;
      const tw = ctx.measureText(label).width, th = 14 * dpr;
      let lx = x + 6 * dpr;
      if (lx + tw > left + width) lx = x - 6 * dpr - tw;
      const ly = Math.min(top + height - th, Math.max(top + 2 * dpr, y + (s ? 4 * dpr : -th - 4 * dpr)));
      ctx.fillStyle = cssVar("--panel"); ctx.fillRect(lx - 2 * dpr, ly, tw + 4 * dpr, th);
      ctx.fillStyle = colour; ctx.textBaseline = "top"; ctx.textAlign = "left"; ctx.fillText(label, lx, ly + 2 * dpr);
    });
    ctx.restore();
  }

  renderFigures() {
    const el = this.el.querySelector(".cmp-figs");
    if (!el) return;
    const dd = this.pair.diff.devices[this.dev];
    const rows = FIGURES.filter(([k]) => dd[k] && (dd[k].base != null || dd[k].new != null)).map(([k, label, bytes]) => {
      const f = dd[k], fmt = bytes ? fmtBytes : groupDigits;
      const delta = f.delta == null ? "–" : bytes ? fmtSignedBytes(f.delta) : (f.delta > 0 ? "+" : "") + groupDigits(f.delta);
      const cls = f.delta > 0 ? "cmp-up" : f.delta < 0 ? "cmp-down" : "";
      return `<tr><td>${label}</td><td class="n">${f.base == null ? "–" : fmt(f.base)}</td><td class="n">${f.new == null ? "–" : fmt(f.new)}</td>` +
        `<td class="n ${cls}">${delta}</td><td class="n ${cls}">${fmtPct(f.delta_pct)}</td></tr>`;
    }).join("");
    el.innerHTML = `<table class="cmp-fig"><thead><tr><th></th><th class="n">base</th><th class="n">new</th><th class="n">Δ</th><th class="n">Δ %</th></tr></thead><tbody>${rows}</tbody></table>`;
  }

  // ---- time ----

  renderTime(el) {
    const st = this.pair.diff.steps;
    if (!st) {
      const why = (this.pair.diff.notes || []).find((n) => n.startsWith("time")) || "A run has no time side (operators, kernels, steps).";
      el.innerHTML = `<div class="bar"><h2>Step time</h2></div><p class="muted cmp-empty">Not compared: ${escapeHtml(why)}</p>`;
      return;
    }
    const parts = st.breakdown;
    const max = Math.max(st.avg_step.base_us || 0, st.avg_step.new_us || 0, 1e-9);
    const bar = (side) => {
      let acc = 0;
      return parts.map((p) => {
        const v = p[side + "_us"] || 0, sp = STEP_PARTS.find((x) => x.key === p.role + "_ns") || STEP_PARTS[7];
        const w = (100 * v) / max, x = acc;
        acc += w;
        return v > 0 ? `<rect x="${x.toFixed(3)}%" y="0" width="${w.toFixed(3)}%" height="100%" fill="${sp.colour}"><title>${side} · ${escapeHtml(p.label)}: ${fmtUs(v)}</title></rect>` : "";
      }).join("");
    };
    const count = (k) => (st.whole_trace[k] ? "whole trace" : plural(st.count[k], "step"));
    const rows = parts.filter((p) => p.base_us || p.new_us).map((p) => {
      const sp = STEP_PARTS.find((x) => x.key === p.role + "_ns") || STEP_PARTS[7], cls = p.delta_us > 0 ? "cmp-up" : p.delta_us < 0 ? "cmp-down" : "";
      return `<tr><td><i class="sw" style="background:${sp.colour}"></i>${escapeHtml(p.label)}</td><td class="n">${fmtUs(p.base_us)}</td><td class="n">${fmtUs(p.new_us)}</td>` +
        `<td class="n ${cls}">${fmtSignedUs(p.delta_us)}</td><td class="n ${cls}">${fmtPct(p.delta_pct)}</td></tr>`;
    }).join("");
    const a = st.avg_step, cls = a.delta_us > 0 ? "cmp-up" : a.delta_us < 0 ? "cmp-down" : "";
    el.innerHTML = `<div class="bar"><h2>Step time</h2><span class="muted">average per step, base ${count("base")}, new ${count("new")}</span></div>` +
      `<div class="cmp-bars"><div class="cmp-barrow"><span class="l">base</span><svg width="100%" height="22" preserveAspectRatio="none">${bar("base")}</svg><span class="v">${fmtUs(a.base_us)}</span></div>` +
      `<div class="cmp-barrow"><span class="l">new</span><svg width="100%" height="22" preserveAspectRatio="none">${bar("new")}</svg><span class="v">${fmtUs(a.new_us)}</span></div></div>` +
      `<table class="cmp-fig"><thead><tr><th></th><th class="n">base</th><th class="n">new</th><th class="n">Δ</th><th class="n">Δ %</th></tr></thead><tbody>` +
      `<tr class="cmp-total"><td>step time</td><td class="n">${fmtUs(a.base_us)}</td><td class="n">${fmtUs(a.new_us)}</td><td class="n ${cls}">${fmtSignedUs(a.delta_us)}</td><td class="n ${cls}">${fmtPct(a.delta_pct)}</td></tr>${rows}</tbody></table>`;
  }

  // ---- the delta tables ----

  tableRows(id) {
    const d = this.pair.diff;
    if (id === "groups") { const dd = d.devices[this.dev]; return dd ? dd.groups : []; }
    if (id === "ops") return d.operators;
    if (id === "segments") return d.segments ? d.segments.only_base.map((s) => ({ side: "base", ...s })).concat(d.segments.only_new.map((s) => ({ side: "new", ...s }))) : [];
    if (id === "settings") return d.allocator_settings || [];
    return [];
  }

  renderTables(el) {
    const d = this.pair.diff;
    this.tabs = {};
    if (d.devices.length) this.tabs.groups = true;
    if (d.steps) this.tabs.ops = true;
    if (d.segments) this.tabs.segments = true;
    if (d.allocator_settings) this.tabs.settings = true;
    const ids = Object.keys(this.tabs);
    if (!ids.length) { el.innerHTML = '<div class="bar"><h2>Changes</h2></div><p class="muted cmp-empty">Nothing the two runs share to tabulate.</p>'; this.table = null; return; }
    if (!this.tabs[this.tab]) this.tab = ids[0];
    el.innerHTML = `<div class="bar"><h2>Changes</h2><div class="seg cmp-tabs">${ids.map((id) => `<button data-t="${id}"${id === this.tab ? ' class="on"' : ""}>${TABLES[id].label}</button>`).join("")}</div>` +
      '<select class="cmp-kind" title="kind"><option value="">all kinds</option><option>operator</option><option>runtime</option><option>kernel</option><option>memcpy</option><option>memset</option></select>' +
      '<select class="cmp-change" title="HolisticTraceAnalysis verdict, by calls"><option value="">every change by calls</option><option>added</option><option>deleted</option><option>increased</option><option>decreased</option><option>unchanged</option></select>' +
      '<input type="search" class="cmp-search" placeholder="search by name" size="24" title="filter as you type (Ctrl+F)"><span class="muted cmp-count"></span><span class="spacer"></span>' +
      '<button class="cmp-copy" title="copy the rows shown as tab-separated text">Copy TSV</button><button class="cmp-csv" title="download the rows shown as CSV">Download CSV</button></div><div class="cmp-table"></div>';
    const q = (s) => el.querySelector(s);
    this.search = q(".cmp-search");
    let timer = 0;
    for (const ev of ["input", "search"]) this.search.addEventListener(ev, () => { clearTimeout(timer); timer = setTimeout(() => { if (this.table) this.table.setFilter(this.search.value); this.app.tabs && this.app.tabs.writeHash(); }, 150); });
    q(".cmp-tabs").addEventListener("click", (e) => { const t = e.target.dataset && e.target.dataset.t; if (t) { this.setTab(t); this.app.tabs && this.app.tabs.writeHash(); } });
    q(".cmp-kind").addEventListener("change", () => this.fillTable());
    q(".cmp-change").addEventListener("change", () => this.fillTable());
    q(".cmp-copy").addEventListener("click", async (e) => { if (this.table) pvFlash(e.target, (await ptCopy(this.table.exportText("tsv"))) === "Copied" ? `Copied ${plural(this.table.idx.length, "row")}` : "Copy blocked"); });
    q(".cmp-csv").addEventListener("click", () => { if (this.table) ptDownload(this.table.exportText("csv"), `memlens-compare-${TABLES[this.tab].file}.csv`); });
    this.setTab(this.tab);
  }

  setTab(id) {
    const el = this.el.querySelector(".cmp-tables");
    if (!el || !this.tabs[id]) return;
    this.tab = id;
    el.querySelectorAll(".cmp-tabs button").forEach((b) => b.classList.toggle("on", b.dataset.t === id));
    el.querySelector(".cmp-kind").hidden = el.querySelector(".cmp-change").hidden = id !== "ops";
    const cfg = TABLES[id];
    // the rows come largest change first (memlens sorts them by |Δ|): that order until a header is clicked
    this.table = new PerfTable(el.querySelector(".cmp-table"), cfg.columns, {
      sort: cfg.sort, dir: -1, rowHeight: 24, empty: cfg.empty, maxHeight: 420,
      onRefresh: (t) => { const n = t.idx.length, all = t.rows.length; el.querySelector(".cmp-count").textContent = n === all ? plural(all, "row") : `${groupDigits(n)} of ${plural(all, "row")}`; },
      onSort: () => this.app.tabs && this.app.tabs.writeHash(),
    });
    this.table.text = this.search.value;
    this.fillTable();
  }

  fillTable() {
    if (!this.table) return;
    const el = this.el.querySelector(".cmp-tables");
    let rows = this.tableRows(this.tab);
    if (this.tab === "ops") {
      const k = el.querySelector(".cmp-kind").value, c = el.querySelector(".cmp-change").value;
      if (k) rows = rows.filter((r) => r.kind === k);
      if (c) rows = rows.filter((r) => r.change === c);
    }
    this.table.setRows(rows);
  }

  // ---- the operator-tree diff ----

  renderTree(el) {
    const t = this.pair.diff.tree;
    if (!t) {
      const why = (this.pair.diff.notes || []).find((n) => n.startsWith("operator tree") || n.startsWith("time")) || "A run has no operators.";
      el.innerHTML = `<div class="bar"><h2>Operator tree</h2></div><p class="muted cmp-empty">Not compared: ${escapeHtml(why)}</p>`;
      return;
    }
    el.innerHTML = `<div class="bar"><h2>Operator tree</h2><span class="muted">the main thread's operators, aligned as TensorBoard's Diff view aligns them: steps, modules, backward, DataLoader and optimizer nodes matched by name in order, the stretches between them compared as one</span>` +
      '<span class="spacer"></span><button class="cmp-expand" title="open every matched node">Expand matched</button><button class="cmp-collapse">Collapse</button></div>' +
      '<div class="pv-body cmp-tbody"><div class="cmp-treewrap"><table class="cmp-treetab"><thead><tr><th>Nodes (base → new)</th><th>Match</th>' +
      TREE_COLS.map(([l]) => `<th class="n">${l}</th>`).join("") + '</tr></thead><tbody></tbody></table></div>' +
      '<aside class="pv-detail cmp-detail" hidden><div class="bar"><h2 class="cmp-dtitle">Node</h2><span class="spacer"></span><button class="cmp-dclose" title="close (Esc)">✕</button></div><div class="cmp-dbody detail"></div></aside></div>';
    const q = (s) => el.querySelector(s);
    q("tbody").addEventListener("click", (e) => {
      const tr = e.target.closest("tr[data-p]");
      if (!tr) return;
      const p = tr.dataset.p, node = nodeAt(t, p);
      if (e.target.closest(".cmp-tog") && node.children.length) { if (this.open.has(p)) this.open.delete(p); else this.open.add(p); this.fillTree(); return; }
      this.selectPath(p);
      this.app.tabs && this.app.tabs.writeHash();
    });
    q(".cmp-expand").addEventListener("click", () => { this.openMatched(t, ""); this.fillTree(); });
    q(".cmp-collapse").addEventListener("click", () => { this.open.clear(); this.fillTree(); });
    q(".cmp-dclose").addEventListener("click", () => this.closeDetail());
    this.fillTree();
  }

  openMatched(node, path) {
    (node.children || []).forEach((c, k) => {
      const p = path === "" ? String(k) : path + "-" + k;
      if (c.children.length && this.open.size < 2000) { this.open.add(p); this.openMatched(c, p); }
    });
  }

  fillTree() {
    const t = this.pair.diff.tree, body = this.el.querySelector(".cmp-treetab tbody");
    if (!body) return;
    const rows = treeRows(t, this.open);
    body.innerHTML = rows.length ? rows.map((r) => {
      const n = r.node, tog = n.children.length ? `<span class="cmp-tog">${r.open ? "▾" : "▸"}</span>` : '<span class="cmp-tog none"></span>';
      return `<tr data-p="${r.path}"${r.path === this.selPath ? ' class="sel"' : ""}><td class="name" style="padding-left:${6 + 16 * r.depth}px" title="${escapeHtml(nodeLabel(n))}">${tog}${escapeHtml(nodeLabel(n))}</td>` +
        `<td class="cmp-m ${n.match.replace(/ /g, "-")}">${escapeHtml(n.match)}</td>` +
        TREE_COLS.map(([, get, fmt]) => {
          const v = get(n), signed = fmt === fmtSignedUs || fmt === fmtPct;
          return `<td class="n${signed && v ? (v > 0 ? " cmp-up" : " cmp-down") : ""}">${v == null ? "–" : fmt(v)}</td>`;
        }).join("") + "</tr>";
    }).join("") : `<tr class="no-rows"><td colspan="${TREE_COLS.length + 2}">The two runs have no step, module, backward, DataLoader or optimizer node in common at the top: the whole runs are one composite pair (its operators: the root's, below).</td></tr>`;
    if (!rows.length && this.selPath == null) this.selectPath("");
  }

  selectPath(p) {
    const t = this.pair && this.pair.diff.tree;
    if (!t) return;
    const node = nodeAt(t, p);
    if (!node) return;
    // open the ancestors, so that the row is in sight
    const parts = p ? p.split("-") : [];
    for (let k = 1; k < parts.length; k++) this.open.add(parts.slice(0, k).join("-"));
    this.selPath = p;
    this.fillTree();
    const det = this.el.querySelector(".cmp-detail");
    det.hidden = false;
    this.el.querySelector(".cmp-tbody").classList.add("open");
    this.el.querySelector(".cmp-dtitle").textContent = p ? nodeLabel(node) : "The whole runs";
    const ed = execDiff(node);
    const body = this.el.querySelector(".cmp-dbody");
    body.innerHTML = `<dl><dt>Match</dt><dd>${escapeHtml(node.match)} (${escapeHtml(node.type)})</dd>` +
      `<dt>Base</dt><dd>${escapeHtml(sideLabel(node.base))}${node.base ? ` · total ${fmtUs(node.base.total_us)}, host ${fmtUs(node.base.host_us)}, device ${fmtUs(node.base.device_us)}` : ""}</dd>` +
      `<dt>New</dt><dd>${escapeHtml(sideLabel(node.new))}${node.new ? ` · total ${fmtUs(node.new.total_us)}, host ${fmtUs(node.new.host_us)}, device ${fmtUs(node.new.device_us)}` : ""}</dd></dl>` +
      (ed.length ? `<h3>Execution diff of its ${plural(ed.length, "child", "children")} <span class="lg"><i style="background:${BASE_COLOUR}"></i>base</span> <span class="lg"><i style="background:${NEW_COLOUR}"></i>new</span> <span class="lg"><i style="background:#999"></i>Δ accumulated</span></h3>` + execSvg(ed) : "") +
      `<h3>Operators (${plural(node.ops.length, "name")}${node.ops_left_out ? `, ${groupDigits(node.ops_left_out)} more left out` : ""})</h3><div class="cmp-nodeops"></div>`;
    const tab = new PerfTable(body.querySelector(".cmp-nodeops"), NODE_OP_COLS, { sort: "dhost", dir: -1, rowHeight: 22, maxHeight: 320, empty: "No operator under this node." });
    tab.setRows(node.ops);
    // bring the row into view
    const tr = this.el.querySelector(`.cmp-treetab tr[data-p="${p}"]`);
    if (tr && tr.scrollIntoView) tr.scrollIntoView({ block: "nearest" });
  }

  closeDetail() {
    const det = this.el.querySelector(".cmp-detail");
    if (!det || det.hidden) return false;
    det.hidden = true;
    this.el.querySelector(".cmp-tbody").classList.remove("open");
    this.selPath = null;
    this.fillTree();
    this.app.tabs && this.app.tabs.writeHash();
    return true;
  }

  resize() { if (this.u) { const el = this.el.querySelector(".cmp-chart"); if (el) this.u.setSize({ width: el.clientWidth, height: 280 }); this.drawMemory(); } }

  focusSearch() { if (!this.search) return false; this.search.focus(); this.search.select(); return true; }

  select(sel) { if (sel != null && sel !== "" && this.pair) this.selectPath(sel); }

  hashExtra() {
    const pairs = this.app.source.comparePairs ? this.app.source.comparePairs() : null;
    const o = { sel: this.selPath, tab: this.tab !== "groups" ? this.tab : null, q: this.search && this.search.value ? this.search.value : null };
    if (pairs) o.pair = this.pairIndex ? String(this.pairIndex) : null;
    else { o.base = this.base != null ? String(this.base) : null; o.new = this.new != null ? String(this.new) : null; }
    return o;
  }

  restore(p) { this.pending = { pair: p.pair, base: p.base, new: p.new, tab: p.tab, q: p.q, sel: p.sel }; }
}

// A time relative to the alignment point: "+12.3 ms", "−1.5 s", "0".
export function fmtRel(ns) {
  if (ns == null || !isFinite(ns)) return "–";
  if (Math.abs(ns) < 0.5) return "0";
  return (ns < 0 ? "−" : "") + fmtDur(Math.abs(ns));
}

// The Execution Comparison / Diff of a node's children (SVG): per child, the
// base and new totals as bars, and the accumulated change as a line.
export function execSvg(items) {
  const shown = items.slice(0, 60), W = 460, H = 160, L = 56, B = 18, T = 6;
  const max = Math.max(1e-9, ...shown.map((x) => Math.max(x.base, x.now)));
  const accMax = Math.max(1e-9, ...shown.map((x) => Math.abs(x.acc)));
  const bw = (W - L - 4) / shown.length, y = (v) => T + (H - T - B) * (1 - v / max);
  let g = `<line x1="${L}" x2="${W}" y1="${y(0)}" y2="${y(0)}" class="grid"/><text x="${L - 4}" y="${y(max) + 8}" text-anchor="end" class="lab">${escapeHtml(fmtUs(max))}</text>`;
  let path = "";
  shown.forEach((x, k) => {
    const x0 = L + 2 + k * bw, w = Math.max(1, bw / 2 - 1);
    g += `<rect x="${x0.toFixed(1)}" y="${y(x.base).toFixed(1)}" width="${w.toFixed(1)}" height="${Math.max(0.5, y(0) - y(x.base)).toFixed(1)}" fill="${BASE_COLOUR}"><title>${escapeHtml(x.label)} · base ${escapeHtml(fmtUs(x.base))}</title></rect>`;
    g += `<rect x="${(x0 + w + 1).toFixed(1)}" y="${y(x.now).toFixed(1)}" width="${w.toFixed(1)}" height="${Math.max(0.5, y(0) - y(x.now)).toFixed(1)}" fill="${NEW_COLOUR}"><title>${escapeHtml(x.label)} · new ${escapeHtml(fmtUs(x.now))} (Δ ${escapeHtml(fmtSignedUs(x.delta))}, accumulated ${escapeHtml(fmtSignedUs(x.acc))})</title></rect>`;
    const ay = T + (H - T - B) * (0.5 - x.acc / accMax / 2);
    path += (k ? "L" : "M") + (x0 + w).toFixed(1) + " " + ay.toFixed(1);
  });
  g += `<path d="${path}" fill="none" stroke="#999" stroke-width="1.5"/>`;
  g += `<text x="${L}" y="${H - 4}" class="lab">children in order${items.length > shown.length ? ` (first ${shown.length} of ${items.length})` : ""}; line: Δ accumulated (±${escapeHtml(fmtUs(accMax))})</text>`;
  return `<svg class="cmp-exec" viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="execution diff">${g}</svg>`;
}
