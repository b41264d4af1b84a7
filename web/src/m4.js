// m4.js — picks what to draw of a curve for a window and a width in pixels,
// from the min/max pyramid the C side built (src/analysis/m4.h): for every
// stretch of points that fits in one pixel column it keeps the first, the
// minimum, the maximum and the last point, so that no extreme (the peak) is
// ever lost at any zoom.  Elsewhere it keeps the points themselves.
// Columns are [t0 + k*dt, t0 + (k+1)*dt), dt = (t1 - t0) / px.

import { lowerBound } from "./decode.js";

// Node counts per level (level 1 .. top) for n points and fan-out fan.
export function m4Levels(n, fan) {
  const sizes = [], offsets = [];
  let off = 0;
  for (let m = n; m > 1;) {
    m = Math.ceil(m / fan);
    offsets.push(off);
    sizes.push(m);
    off += m;
  }
  return { sizes, offsets, total: off };
}

// curve = {t, v, mn, mx, n, fan}; returns {t, v} (Float64Array) to draw as steps.
export function m4Select(curve, t0, t1, px) {
  const { t, v, n } = curve;
  const fan = curve.fan || 4;
  if (!n) return { t: new Float64Array(0), v: new Float64Array(0), idx: [] };
  const lv = curve._levels || (curve._levels = m4Levels(n, fan));
  const dt = (t1 - t0) / Math.max(1, px);
  const i0 = Math.max(0, lowerBound(t, t0) - 1);           // the step in force at t0
  const i1 = Math.min(n - 1, lowerBound(t, t1));           // the first point at or after t1
  const outI = [];
  const top = lv.sizes.length;
  const spans = [1];
  for (let l = 1; l <= top; l++) spans.push(spans[l - 1] * fan);
  const visit = (l, j) => {
    const a = j * spans[l];
    if (a > i1) return;
    const b = Math.min(a + spans[l], n) - 1;
    if (b < i0) return;
    if (l === 0) { outI.push(a); return; }
    // Emit a node whole only if it lies inside one pixel column, so that
    // every column gets its own first/min/max/last (exact M4).
    if (a >= i0 && b <= i1 && Math.floor((t[a] - t0) / dt) === Math.floor((t[b] - t0) / dt)) {
      // a <= min, max <= b: only the two inner indices need ordering (no
      // array and no sort per node: this runs for every column of every curve)
      const k = lv.offsets[l - 1] + j;
      let p1 = curve.mn[k], p2 = curve.mx[k];
      if (p1 > p2) { const x = p1; p1 = p2; p2 = x; }
      outI.push(a);
      if (p1 !== a) outI.push(p1);
      if (p2 !== p1 && p2 !== a) outI.push(p2);
      if (b !== p2 && b !== a) outI.push(b);
      return;
    }
    const c0 = j * fan, cn = l - 1 === 0 ? n : lv.sizes[l - 2];
    for (let c = c0; c < c0 + fan && c < cn; c++) visit(l - 1, c);
  };
  if (top === 0) outI.push(0); else visit(top, 0);
  const ot = new Float64Array(outI.length), ov = new Float64Array(outI.length);
  for (let i = 0; i < outI.length; i++) { ot[i] = t[outI[i]]; ov[i] = v[outI[i]]; }
  return { t: ot, v: ov, idx: outI };
}

// The maximum of the curve over [t0, t1] (with the step in force at t0).
export function m4Max(curve, t0, t1) {
  const sel = m4Select(curve, t0, t1, 1);
  let m = 0;
  for (let i = 0; i < sel.v.length; i++) if (sel.v[i] > m) m = sel.v[i];
  return m;
}

// The pyramid of v as src/analysis/m4.c builds it (ties: the earliest index
// wins), for curves the page derives itself (the category chart's band tops).
export function m4Build(v, fan = 4) {
  const n = v.length, lv = m4Levels(n, fan);
  const mn = new Uint32Array(lv.total), mx = new Uint32Array(lv.total);
  let below = n;
  lv.sizes.forEach((m, l) => {
    const prev = l ? lv.offsets[l - 1] : 0, at = lv.offsets[l];
    for (let j = 0; j < m; j++) {
      const c0 = j * fan, c1 = Math.min(c0 + fan, below);
      let a = l ? mn[prev + c0] : c0, b = l ? mx[prev + c0] : c0;
      for (let c = c0 + 1; c < c1; c++) {
        const cm = l ? mn[prev + c] : c, cx = l ? mx[prev + c] : c;
        if (v[cm] < v[a]) a = cm;
        if (v[cx] > v[b]) b = cx;
      }
      mn[at + j] = a; mx[at + j] = b;
    }
    below = m;
  });
  return { mn, mx, fan };
}

// Keeps of picked point indices idx (ascending) only what M4 draws: per
// pixel column of [t0, t0 + px*dt) its first and last point and, for each
// value array of vs, the points of its minimum and maximum (as the server's
// m4_compact).  m4Select's picks hold every column's extremes, so this loses
// nothing drawn and leaves at most 2 + 2*vs.length points per column.
export function m4Compact(t, vs, idx, t0, t1, px) {
  const dt = (t1 - t0) / Math.max(1, px) || 1e-9, out = [];
  for (let a = 0; a < idx.length;) {
    const col = Math.floor((t[idx[a]] - t0) / dt);
    let b = a + 1;
    while (b < idx.length && Math.floor((t[idx[b]] - t0) / dt) === col) b++;
    const keep = [idx[a], idx[b - 1]];
    for (const v of vs) {
      let mn = idx[a], mx = idx[a];
      for (let j = a + 1; j < b; j++) { if (v[idx[j]] < v[mn]) mn = idx[j]; if (v[idx[j]] > v[mx]) mx = idx[j]; }
      keep.push(mn, mx);
    }
    keep.sort((x, y) => x - y);
    for (let k = 0; k < keep.length; k++) if (!k || keep[k] !== keep[k - 1]) out.push(keep[k]);
    a = b;
  }
  return out;
}

// The times of picked points idx, edged to the window as the server does
// (src/server/api.c edge_times): the step in force at t0 starts at t0 rather
// than at its own earlier time, and a point at t1 repeats the value in force
// there when the last point lies before t1, so that a flat stretch is drawn
// across the window.  Returns {t, close}; t has an extra slot when closed.
export function edgeTimes(ct, idx, t0, t1) {
  const n = idx.length, a = Math.ceil(t0), b = Math.floor(t1);
  const close = n > 0 && ct[idx[n - 1]] < b;
  const t = new Float64Array(n + (close ? 1 : 0));
  for (let i = 0; i < n; i++) t[i] = ct[idx[i]];
  if (n && t[0] < t0 && (n === 1 || t[1] > a)) t[0] = a; // (a point at t0 itself needs no carry)
  if (close) t[n] = b;
  return { t, close };
}

// Values at the points of edgeTimes: idx's, the last repeated when closed.
export function edgeValues(cv, idx, close) {
  const n = idx.length, v = new Float64Array(n + (close ? 1 : 0));
  for (let i = 0; i < n; i++) v[i] = cv[idx[i]];
  if (close) v[n] = v[n - 1];
  return v;
}

// m4Select, compacted (at most 4 points per column) and edged to the window:
// what the page draws of a curve, as the server's /api/curve answers it.
export function m4Points(curve, t0, t1, px) {
  const idx = m4Compact(curve.t, [curve.v], m4Select(curve, t0, t1, px).idx, t0, t1, px);
  const { t, close } = edgeTimes(curve.t, idx, t0, t1);
  return { t, v: edgeValues(curve.v, idx, close), idx };
}

// The highest value a step curve holds inside [t0, t1): point i holds v[i]
// from t[i] to t[i + 1] (the last one on), so a point before t0 counts while
// it holds into the window, and one at or past t1 does not (M4's points go one
// beyond the window's end, so that the line reaches it: 339 GB/s of a copy
// after the window is not "max in view").  0 without a point in it.
export function stepMaxIn(t, v, t0, t1) {
  let max = 0;
  for (let i = 0; i < t.length; i++) {
    if (t[i] >= t1) break;
    if (i + 1 < t.length && t[i + 1] <= t0) continue;
    if (v[i] > max) max = v[i];
  }
  return max;
}
