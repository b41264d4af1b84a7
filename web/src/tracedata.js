// tracedata.js — the Trace view's data as pure functions (no DOM): the
// lanes of a trace (one per track and depth), the merge of sub-pixel slices
// for a window, and the window answer of web/DATA.md ("Trace window") built
// from the embedded slices.  src/server/api.c does the same merge in C for
// `memlens serve` (ml_api_trace), with the same rule.
//
// The merge rule, per lane (a track's slices at one depth, which never
// overlap, so their starts and ends are both sorted): a slice at least one
// pixel wide is drawn as itself; consecutive narrower slices whose gaps are
// under a pixel become one box [x0, x1) holding n slices.  A lone narrow
// slice stays a slice (drawn one pixel wide: it can be clicked).  The walk
// jumps over each pixel column with a binary search, so a window costs
// O(lanes × pixels × log n), not O(slices).

import { lowerBound } from "./decode.js";

export const KIND_NAMES = ["cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver", "kernel",
  "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "profiler_step", "other"];
export const KIND = Object.fromEntries(KIND_NAMES.map((k, i) => [k, i]));
export const isGpuKind = (k) => k === KIND.kernel || k === KIND.gpu_memcpy || k === KIND.gpu_memset;

// One lane's slices lo..hi-1 in ts/end (sorted, non-overlapping) against the
// window [t0, t1) of px pixels.  slice(i) for each slice drawn as itself,
// box(i, j, x0, x1) for each merged run of slices i..j-1 (pixel coordinates).
export function mergeLane(ts, end, lo, hi, t0, t1, px, slice, box) {
  const k = px / (t1 - t0);
  let i = lowerBound(end, t0, lo, hi);
  if (i < hi && end[i] === t0 && ts[i] < t0) i++;      // ends exactly at t0: outside
  while (i < hi && ts[i] < t1) {
    const x0 = (ts[i] - t0) * k;
    let x1 = (end[i] - t0) * k;
    if (x1 - x0 >= 1) { slice(i); i++; continue; }
    const first = i;
    for (;;) {
      // every slice starting before the next pixel boundary after x1 joins the run
      const lim = t0 + (Math.floor(x1) + 1) / k;
      let j = lowerBound(ts, lim, i + 1, hi);
      const last = j - 1;
      if (last > i && (end[last] - ts[last]) * k >= 1) j = last;  // a wide one ends the run
      else if (last > i) x1 = Math.max(x1, (end[last] - t0) * k);
      i = j;
      if (j === last) break;
      if (i >= hi || ts[i] >= t1) break;
      const nx0 = (ts[i] - t0) * k, nx1 = (end[i] - t0) * k;
      if (nx1 - nx0 >= 1 || nx0 - x1 >= 1) break;     // wide, or a gap of a pixel or more
      x1 = Math.max(x1, nx1);
    }
    if (i - first === 1) slice(first);
    else box(first, i, Math.max(x0, -1), Math.min(Math.max(x1, x0 + 1), px + 1));
  }
}

// The lanes of a trace: slices grouped by (track, depth), each lane sorted by
// start.  cols: {n, ts, dur, track, depth} (any order); tracks: the display
// order [{id, ...}].  Returns {lanes: [{track, depth, lo, hi}], ts, end, id,
// laneOf: Map(track id -> [lane index by depth])}, ts/end/id laid out lane
// after lane.
export function buildLanes(cols, tracks) {
  const n = cols.n, maxTrack = tracks.reduce((m, t) => Math.max(m, t.id), -1) + 1;
  const depthMax = new Int32Array(maxTrack).fill(-1);
  for (let i = 0; i < n; i++) if (cols.depth[i] > depthMax[cols.track[i]]) depthMax[cols.track[i]] = cols.depth[i];
  const base = new Int32Array(maxTrack).fill(-1), lanes = [], laneOf = new Map();
  for (const t of tracks) {
    if (t.id >= maxTrack || depthMax[t.id] < 0 || base[t.id] >= 0) continue;
    base[t.id] = lanes.length;
    const ids = [];
    for (let d = 0; d <= depthMax[t.id]; d++) { ids.push(lanes.length); lanes.push({ track: t.id, depth: d, lo: 0, hi: 0 }); }
    laneOf.set(t.id, ids);
  }
  const count = new Uint32Array(lanes.length + 1);
  const lane = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const b = base[cols.track[i]];
    lane[i] = b < 0 ? -1 : b + cols.depth[i];
    if (b >= 0) count[lane[i] + 1]++;
  }
  for (let l = 0; l < lanes.length; l++) count[l + 1] += count[l];
  for (let l = 0; l < lanes.length; l++) { lanes[l].lo = count[l]; lanes[l].hi = count[l + 1]; }
  const total = count[lanes.length];
  const ts = new Float64Array(total), end = new Float64Array(total), id = new Uint32Array(total);
  // stable by start within each lane: a counting sort of the slices in start order
  const order = startOrder(cols);
  const at = count.slice(0, lanes.length);
  for (let k = 0; k < n; k++) {
    const i = order ? order[k] : k, l = lane[i];
    if (l < 0) continue;
    const p = at[l]++;
    ts[p] = cols.ts[i]; end[p] = cols.ts[i] + cols.dur[i]; id[p] = i;
  }
  return { lanes, ts, end, id, laneOf };
}

// null when cols.ts is already ascending, else the indices in start order.
function startOrder(cols) {
  let sorted = true;
  for (let i = 1; i < cols.n && sorted; i++) if (cols.ts[i] < cols.ts[i - 1]) sorted = false;
  if (sorted) return null;
  const o = new Uint32Array(cols.n);
  for (let i = 0; i < cols.n; i++) o[i] = i;
  o.sort((a, b) => cols.ts[a] - cols.ts[b] || a - b);
  return o;
}

// Per lane position, how many slices up to it match (hits = string ids that
// match): the number in a merged run i..j-1 is pre[j] - pre[i].
export function matchPrefix(L, cols, hits) {
  const pre = new Uint32Array(L.id.length + 1);
  for (let p = 0; p < L.id.length; p++) pre[p + 1] = pre[p] + (hits[cols.name[L.id[p]]] ? 1 : 0);
  return pre;
}

// The string ids whose text contains q (case-insensitive): a Uint8Array flag per string.
export function matchStrings(strings, q) {
  const out = new Uint8Array(strings.length);
  const s = (q || "").trim().toLowerCase();
  if (!s) return null;
  for (let k = 0; k < strings.length; k++) if (strings[k] && strings[k].toLowerCase().includes(s)) out[k] = 1;
  return out;
}

// The window answer (web/DATA.md "Trace window") from the lanes: the slices
// at least a pixel wide (and lone narrow ones), the merged runs, the flows
// between returned slices.  opts.pre: matchPrefix() of a search, which adds
// merged.hits (how many slices of each run match).
export function traceWindow(L, cols, t0, t1, px, opts = {}) {
  const sl = [], mt = [], md = [], mx0 = [], mx1 = [], mn = [], mh = [];
  const pre = opts.pre;
  const laneFrom = opts.laneFrom || 0, laneTo = Math.min(opts.laneTo ?? L.lanes.length, L.lanes.length);
  for (let l = laneFrom; l < laneTo; l++) {
    const ln = L.lanes[l];
    mergeLane(L.ts, L.end, ln.lo, ln.hi, t0, t1, px,
      (p) => sl.push(L.id[p]),
      (a, b, x0, x1) => { mt.push(ln.track); md.push(ln.depth); mx0.push(x0); mx1.push(x1); mn.push(b - a); if (pre) mh.push(pre[b] - pre[a]); });
  }
  const ids = Uint32Array.from(sl);
  const slices = { id: ids, track: new Uint32Array(ids.length), ts: new Float64Array(ids.length), dur: new Float64Array(ids.length),
    depth: new Uint16Array(ids.length), name: new Uint32Array(ids.length), kind: new Uint8Array(ids.length) };
  for (let k = 0; k < ids.length; k++) {
    const i = ids[k];
    slices.track[k] = cols.track[i]; slices.ts[k] = cols.ts[i]; slices.dur[k] = cols.dur[i];
    slices.depth[k] = cols.depth[i]; slices.name[k] = cols.name[i]; slices.kind[k] = cols.kind[i];
  }
  const merged = { track: Uint32Array.from(mt), depth: Uint16Array.from(md), x0: Float64Array.from(mx0), x1: Float64Array.from(mx1),
    n: Uint32Array.from(mn) };
  if (pre) merged.hits = Uint32Array.from(mh);
  return { slices, merged };
}

// Vertical layout: each track gets a header gap and one row per depth.
// minH: the least height of a track (room for its two-line label).
// Returns {rows: [{track, y, h, depths}], height, yOf(track, depth)}.
export function layoutTracks(tracks, laneOf, rowH = 18, gap = 6, extra = [], minH = 0) {
  const rows = [];
  let y = 0;
  for (const e of extra) { rows.push({ track: e.track, y, h: e.h, depths: 0, extra: e }); y += e.h + gap; }
  for (const t of tracks) {
    const ids = laneOf.get(t.id);
    const depths = ids ? ids.length : 1;
    const h = Math.max(depths * rowH, minH);
    rows.push({ track: t.id, y, h, depths, t });
    y += h + gap;
  }
  const at = new Map(rows.filter((r) => !r.extra).map((r) => [r.track, r]));
  // -1: no such track, or a depth below its rows (a collapsed track)
  return { rows, height: y, rowH, yOf: (track, depth) => { const r = at.get(track); return r && depth < r.depths ? r.y + depth * rowH : -1; } };
}
