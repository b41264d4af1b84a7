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
  if (!n) return { t: new Float64Array(0), v: new Float64Array(0) };
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
      const k = lv.offsets[l - 1] + j;
      const p = [a, curve.mn[k], curve.mx[k], b].sort((x, y) => x - y);
      for (let q = 0; q < 4; q++) if (q === 0 || p[q] !== p[q - 1]) outI.push(p[q]);
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
