// tracesource.js — the Trace view's data behind the source interface
// (web/DATA.md "Profiler views"): getTrace / getSliceDetail for the embedded
// report (the rank's "trace" object, src/output/report/report_trace.c) and for
// `memlens serve` (/api/trace, /api/slice, /api/trace.json), and the Chrome
// trace JSON the report regenerates for "Download trace" / "Open in Perfetto".

import { lowerBound, upperBound } from "./decode.js";
import { buildLanes, traceWindow, matchStrings, matchPrefix, KIND_NAMES, KIND, isGpuKind } from "./tracedata.js";

// ---- the report -------------------------------------------------------------

// The rank's slices decoded once: columns, lanes, flows, args.
export function embeddedTrace(src, rank) {
  const r = src.meta.ranks[rank];
  const tr = r && r.trace;
  if (!tr) return Promise.resolve(null);
  if (!tr._data) tr._data = decodeTrace(src, tr);
  return tr._data;
}

async function decodeTrace(src, tr) {
  const col = (d) => src.col(d);
  const [dts, ddur, track, name, depth, kind, launcher, info] = await Promise.all(
    [tr.ts, tr.dur, tr.track, tr.name, tr.depth, tr.kind, tr.launcher, tr.info].map(col));
  const n = tr.n;
  const ts = new Float64Array(n), dur = new Float64Array(n);
  const tsBig = new Map(tr.ts_big || []), durBig = new Map(tr.dur_big || []);
  let acc = tr.ts0;
  for (let i = 0; i < n; i++) {
    const d = dts[i] === 0xffffffff ? +tsBig.get(i) : dts[i];
    acc += i ? d : 0;
    ts[i] = acc;
    dur[i] = ddur[i] === 0xffffffff ? +durBig.get(i) : ddur[i];
  }
  const cols = { n, ts, dur, track, name, depth, kind, launcher, info };
  const tracks = tr.tracks.filter((t) => t.slices > 0);
  const L = buildLanes(cols, tracks);
  const f = tr.flows || { n: 0 };
  const [ffrom, fto, fcat] = await Promise.all([col(f.from), col(f.to), col(f.cat)]);
  const flows = { n: f.n || 0, from: ffrom || new Uint32Array(0), to: fto || new Uint32Array(0), cat: fcat || new Uint8Array(0), cats: f.cats || [] };
  const op = {}, kern = {};
  for (const k of ["dims", "types", "stack", "seq"]) op[k] = tr.op && tr.op[k] ? await col(tr.op[k]) : null;
  for (const k of ["grid0", "grid1", "grid2", "block0", "block1", "block2", "regs", "smem", "bps", "occ", "bytes", "device", "stream"])
    kern[k] = tr.kern && tr.kern[k] ? await col(tr.kern[k]) : null;
  return { tr, cols, tracks, L, flows, op, kern, strings: tr.strings, flowIndex: null, launched: null, search: null };
}

// CSR of an index: for each slice, the entries (flows, launches) that name it.
function csr(n, lists) {
  const start = new Uint32Array(n + 1);
  for (const [a] of lists) for (let k = 0; k < a.length; k++) if (a[k] < n) start[a[k] + 1]++;
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
  const at = start.slice(0, n), items = new Uint32Array(start[n]);
  for (const [a, val] of lists) for (let k = 0; k < a.length; k++) if (a[k] < n) items[at[a[k]]++] = val(k);
  return { start, items };
}

function flowIndex(T) {
  if (!T.flowIndex) T.flowIndex = csr(T.cols.n, [[T.flows.from, (k) => k], [T.flows.to, (k) => k]]);
  return T.flowIndex;
}

export async function embeddedGetTrace(src, rank, t0, t1, px, opts = {}) {
  const T = await embeddedTrace(src, rank);
  if (!T) return null;
  let pre = null;
  if (opts.q) {
    if (!T.search || T.search.q !== opts.q) {
      const hits = matchStrings(T.strings, opts.q);
      let count = 0;
      if (hits) for (let i = 0; i < T.cols.n; i++) count += hits[T.cols.name[i]];
      T.search = { q: opts.q, hits, pre: hits ? matchPrefix(T.L, T.cols, hits) : null, count };
    }
    pre = T.search.pre;
  }
  const w = traceWindow(T.L, T.cols, t0, t1, px, { pre });
  // flows between the slices returned
  const fi = flowIndex(T), ff = [], ft = [], fc = [];
  if (T.flows.n && w.slices.id.length < 200000) {
    const inWin = new Set(w.slices.id);
    for (const i of w.slices.id) {
      for (let k = fi.start[i]; k < fi.start[i + 1]; k++) {
        const f = fi.items[k];
        if (T.flows.from[f] === i && inWin.has(T.flows.to[f])) { ff.push(i); ft.push(T.flows.to[f]); fc.push(T.flows.cat[f]); }
      }
    }
  }
  return { tracks: T.tracks, slices: w.slices, merged: w.merged, strings: T.strings,
    flows: { from: Uint32Array.from(ff), to: Uint32Array.from(ft), cat: Uint8Array.from(fc), cats: T.flows.cats },
    hits: opts.q && T.search ? T.search.count : 0, total: T.tr.total, n: T.cols.n, cutNs: T.tr.cut_ns, begin: T.tr.begin, end: T.tr.end };
}

// The innermost slice of track/depth-1 that contains slice i: its parent.
function parentOf(T, i) {
  const { cols, L } = T, d = cols.depth[i];
  if (!d) return -1;
  const lanes = L.laneOf.get(cols.track[i]);
  if (!lanes) return -1;
  const ln = L.lanes[lanes[d - 1]];
  const p = upperBound(L.ts, cols.ts[i], ln.lo, ln.hi) - 1;
  return p >= ln.lo && L.end[p] >= cols.ts[i] + cols.dur[i] ? L.id[p] : -1;
}

function brief(T, i) {
  const c = T.cols;
  return { id: i, track: c.track[i], depth: c.depth[i], ts: c.ts[i], dur: c.dur[i], name: T.strings[c.name[i]] || "", kind: KIND_NAMES[c.kind[i]] || "other" };
}

export async function embeddedSliceDetail(src, rank, id) {
  const T = await embeddedTrace(src, rank);
  if (!T || !(id >= 0 && id < T.cols.n)) throw new Error("no slice " + id);
  const c = T.cols, k = c.kind[id];
  const args = {};
  const inf = c.info[id] ? c.info[id] - 1 : -1;
  if (inf >= 0 && isGpuKind(k)) {
    const K = T.kern, v = (a) => (a && a[inf] >= 0 ? a[inf] : null);
    if (v(K.grid0) != null) args.grid = [K.grid0[inf], K.grid1[inf], K.grid2[inf]];
    if (v(K.block0) != null) args.block = [K.block0[inf], K.block1[inf], K.block2[inf]];
    if (v(K.regs) != null) args["registers per thread"] = v(K.regs);
    if (v(K.smem) != null) args["shared memory"] = v(K.smem);
    if (v(K.bps) != null) args["blocks per SM"] = v(K.bps) / 1000;
    if (v(K.occ) != null) args["est. achieved occupancy %"] = v(K.occ) / 1000;
    if (v(K.bytes) != null) args.bytes = v(K.bytes);
    if (v(K.device) != null) args.device = v(K.device);
    if (v(K.stream) != null) args.stream = v(K.stream);
  } else if (inf >= 0 && T.op.dims) {
    const O = T.op;
    if (O.dims[inf]) args["Input Dims"] = T.strings[O.dims[inf]];
    if (O.types && O.types[inf]) args["Input type"] = T.strings[O.types[inf]];
    if (O.seq && O.seq[inf] >= 0) args["Sequence number"] = O.seq[inf];
  }
  // stack: the recorded call stack, else the enclosing slices (innermost first)
  let stack = [];
  if (inf >= 0 && !isGpuKind(k) && T.op.stack && T.op.stack[inf]) stack = T.strings[T.op.stack[inf]].split(/;|\n/).filter(Boolean);
  const ancestors = [];
  for (let p = parentOf(T, id); p >= 0 && ancestors.length < 200; p = parentOf(T, p)) ancestors.push(p);
  if (!stack.length) stack = ancestors.map((p) => T.strings[c.name[p]]);
  const launcher = c.launcher[id] ? c.launcher[id] - 1 : null;
  if (!T.launched) {
    const who = [];
    for (let i = 0; i < c.n; i++) if (c.launcher[i]) who.push(i);
    const from = Uint32Array.from(who, (i) => c.launcher[i] - 1), w = Uint32Array.from(who);
    T.launched = csr(c.n, [[from, (q) => w[q]]]);
  }
  const launched = Array.from(T.launched.items.subarray(T.launched.start[id], T.launched.start[id + 1]));
  // the operator: the innermost cpu_op around the slice (around its launch, for GPU work)
  let op = null;
  const host = launcher != null ? launcher : id;
  if (host !== id && c.kind[host] === KIND.cpu_op) op = host;
  for (let p = parentOf(T, host); op == null && p >= 0; p = parentOf(T, p)) if (c.kind[p] === KIND.cpu_op) op = p;
  const fi = flowIndex(T), flows = [];
  for (let q = fi.start[id]; q < fi.start[id + 1]; q++) {
    const f = fi.items[q];
    flows.push({ from: T.flows.from[f], to: T.flows.to[f], cat: T.flows.cats[T.flows.cat[f]] || "" });
  }
  const related = {};
  for (const j of [ancestors.length ? ancestors[0] : null, launcher, op, ...launched.slice(0, 500), ...flows.flatMap((f) => [f.from, f.to])]) if (j != null) related[j] = brief(T, j);
  return Object.assign(brief(T, id), { args, stack, launcher, launched, op, flows, related,
    parent: ancestors.length ? ancestors[0] : null });
}

// The first slice matching q that starts after `after` (wrapping to the first
// one), or null: the search box's Enter.  dir -1: the last one before.
export async function embeddedFindSlice(src, rank, q, after, dir = 1) {
  const T = await embeddedTrace(src, rank);
  const hits = T && matchStrings(T.strings, q);
  if (!hits) return null;
  const c = T.cols, n = c.n, name = c.name;
  const start = dir > 0 ? upperBound(c.ts, after) : lowerBound(c.ts, after) - 1;
  for (let k = 0; k < n; k++) {
    const i = dir > 0 ? (start + k) % n : (start - k + 2 * n) % n;
    if (hits[name[i]]) return brief(T, i);
  }
  return null;
}

// The embedded slices as a Chrome trace (what "Download trace" saves and
// "Open in Perfetto" sends): times back to absolute µs from origin_ns.
export async function embeddedTraceJson(src, rank) {
  const T = await embeddedTrace(src, rank);
  if (!T) return null;
  const r = src.meta.ranks[rank];
  const origin = BigInt(r.origin_ns || src.meta.origin_ns || 0);
  const us = (rel) => { // exact: BigInt ns -> "µs.nnn"
    const a = origin + BigInt(Math.round(rel)), neg = a < 0n, u = neg ? -a : a;
    return (neg ? "-" : "") + (u / 1000n).toString() + "." + (u % 1000n).toString().padStart(3, "0");
  };
  const num = (s, fb) => (/^-?\d+$/.test(s) ? s : String(1000000000 + fb));
  const tk = new Map(T.tr.tracks.map((t) => [t.id, t]));
  const pt = (id) => { const t = tk.get(id); return `"pid":${num(t.pid, id)},"tid":${num(t.tid, id)}`; };
  const out = ['{"displayTimeUnit":"ns","otherData":{"generator":"memlens report"},"traceEvents":[\n'];
  let first = true;
  const put = (s) => { out.push(first ? s : ",\n" + s); first = false; };
  for (const t of T.tr.tracks) {
    put(`{"ph":"M","name":"thread_name",${pt(t.id)},"args":{"name":${JSON.stringify(t.label)}}}`);
    put(`{"ph":"M","name":"process_name",${pt(t.id)},"args":{"name":${JSON.stringify(t.process)}}}`);
  }
  const c = T.cols;
  for (let i = 0; i < c.n; i++) {
    const kd = KIND_NAMES[c.kind[i]] || "other";
    put(`{"ph":"X","cat":"${kd === "profiler_step" ? "user_annotation" : kd}","name":${JSON.stringify(T.strings[c.name[i]] || "")},${pt(c.track[i])},"ts":${us(c.ts[i])},"dur":${(c.dur[i] / 1000).toFixed(3)}}`);
  }
  for (let f = 0; f < T.flows.n; f++) {
    const a = T.flows.from[f], b = T.flows.to[f], cat = JSON.stringify(T.flows.cats[T.flows.cat[f]] || "flow");
    put(`{"ph":"s","id":${f + 1},"cat":${cat},"name":${cat},${pt(c.track[a])},"ts":${us(c.ts[a])}}`);
    put(`{"ph":"f","id":${f + 1},"cat":${cat},"name":${cat},${pt(c.track[b])},"ts":${us(c.ts[b])},"bp":"e"}`);
  }
  // The memory beside the slices, on their clock, as `memlens serve` sends it (chrome_json.c):
  // each device's overall allocated and reserved curves as counters (M4 points: every extreme
  // kept), one process per device.
  const devs = (src.getCurve && r.devices) || [];
  for (let di = 0; di < devs.length; di++) {
    const d = devs[di], pid = 2000000000 + (r.rank >= 0 ? r.rank : 0) * 64 + di;
    const ks = (d.curves || []).map((cv, k) => [cv, k]).filter(([cv]) => cv.group === "overall" && (cv.kind === "allocated" || cv.kind === "reserved"));
    if (!ks.length) continue;
    put(`{"ph":"M","name":"process_name","pid":${pid},"tid":0,"args":{"name":${JSON.stringify((r.rank >= 0 ? `rank ${r.rank} ` : "") + d.id + " memory")}}}`);
    for (const [cv, k] of ks) {
      const m = await src.getCurve(rank, di, k, d.t0, d.t1 + 1, 20000);
      for (let i = 0; i < m.t.length; i++) put(`{"ph":"C","name":"${cv.kind}","pid":${pid},"tid":0,"ts":${us(m.t[i])},"args":{"bytes":${m.v[i]}}}`);
    }
  }
  out.push("\n]}\n");
  return out.join("");
}

// ---- memlens serve --------------------------------------------------------

export async function httpGetTrace(hs, rank, t0, t1, px, opts = {}) {
  const r = hs.meta.ranks[rank];
  if (!r || !r.trace) return null;
  px = Math.max(1, Math.min(20000, Math.round(px)));
  const j = await hs.getBin("trace", { rank, t0, t1, px, q: opts.q ? opts.q.slice(0, 200) : null });
  const slices = { id: j.id, track: j.track, ts: j.ts, dur: j.dur, depth: j.depth, name: j.name, kind: j.kind };
  const merged = { track: j.m_track, depth: j.m_depth, x0: j.m_x0, x1: j.m_x1, n: j.m_n, hits: opts.q ? j.m_hits : undefined };
  return { tracks: r.trace.tracks.filter((t) => t.slices > 0), slices, merged, strings: j.strings,
    flows: { from: j.f_from, to: j.f_to, cat: j.f_cat, cats: j.cats || [] }, hits: j.hits || 0,
    total: r.trace.total, n: r.trace.total, cutNs: -1, begin: r.trace.begin, end: r.trace.end };
}

export async function httpSliceDetail(hs, rank, id) {
  return hs.get("slice", { rank, id });
}

export function httpTraceJsonUrl(hs, rank) { return hs.url("trace.json", { rank }); }

export async function httpFindSlice(hs, rank, q, after, dir = 1) {
  const j = await hs.get("findslice", { rank, q: String(q || "").slice(0, 200), after, dir: dir > 0 ? 1 : -1 });
  return j.found ? j.slice : null;
}
