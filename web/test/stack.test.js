// stack.js and the M4 helpers it uses: the category chart keeps every band
// edge's extremes (the peak of the total included) at any zoom; the stacked
// timeline's columns sample the curve where it is highest; binary frames.
import test from "node:test";
import assert from "node:assert/strict";
import { m4Build, m4Select, m4Compact, m4Points, edgeTimes, edgeValues } from "../src/m4.js";
import { categoryStack, selectStack, columnPeaks, stackBase } from "../src/stack.js";
import { decodeFrame, upperBound } from "../src/decode.js";
import { stackedRects, freeOrderOf } from "../src/lanes.js";
import { encodeFrame } from "./frame.js";

function rng(seed) { let s = seed; return () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff); }

// Three categories on shared times, with a one-point spike of the total.
function parts(n, seed = 3) {
  const r = rng(seed), t = new Float64Array(n);
  const vs = [0, 1, 2].map(() => new Float64Array(n));
  let time = 0;
  const lv = [1e9, 0, 0];
  for (let i = 0; i < n; i++) {
    time += r() < 0.1 ? 4000 : 1 + Math.floor(r() * 40); // strictly increasing
    t[i] = time;
    const k = Math.floor(r() * 3);
    lv[k] = Math.max(0, lv[k] + Math.floor((r() - 0.45) * 1e6));
    vs.forEach((v, j) => { v[j === k ? i : i] = lv[j]; });
  }
  vs[2][Math.floor(n * 0.61)] += 7e8;
  return [5, 1, 4].map((cat, j) => ({ cat, t, v: vs[j] }));
}

// The value in force at time x of step curve (t, v).
function at(t, v, x) { let k = -1; for (let i = 0; i < t.length && t[i] <= x; i++) k = i; return k < 0 ? null : v[k]; }

test("m4Build is the C pyramid: every node's min and max are the true ones", () => {
  const r = rng(9), v = Float64Array.from({ length: 1000 }, () => Math.floor(r() * 100));
  const p = m4Build(v);
  // level 1 node j covers points [4j, 4j+4)
  for (let j = 0; j < 250; j++) {
    const s = v.slice(4 * j, 4 * j + 4);
    assert.equal(v[p.mx[j]], Math.max(...s));
    assert.equal(v[p.mn[j]], Math.min(...s));
  }
});

test("m4Compact keeps each column's first, last, min and max, at most 4 points", () => {
  const r = rng(5), n = 20000, t = new Float64Array(n), v = new Float64Array(n);
  for (let i = 0, x = 0; i < n; i++) { x += Math.floor(r() * 30); t[i] = x; v[i] = Math.floor(r() * 1e6); }
  const c = { t, v, n, ...m4Build(v) };
  for (const [t0, t1, px] of [[t[0], t[n - 1] + 1, 300], [t[5000], t[5600], 77], [t[0], t[n - 1] + 1, 1]]) {
    const full = m4Select(c, t0, t1, px), pts = m4Points(c, t0, t1, px);
    assert.ok(pts.idx.length <= full.t.length);
    const dt = (t1 - t0) / px, col = (x) => Math.floor((x - t0) / dt);
    const per = new Map();
    for (const i of pts.idx) per.set(col(t[i]), (per.get(col(t[i])) || 0) + 1);
    for (const k of per.values()) assert.ok(k <= 4);
    // every column's max and min of all points in [t0, t1) are drawn
    const best = new Map();
    for (let i = 0; i < n; i++) if (t[i] >= t0 && t[i] < t1) {
      const k = col(t[i]), b = best.get(k) || [Infinity, -Infinity];
      best.set(k, [Math.min(b[0], v[i]), Math.max(b[1], v[i])]);
    }
    for (const [k, [mn, mx]] of best) {
      const drawn = [];
      for (const i of pts.idx) if (col(t[i]) === k) drawn.push(v[i]);
      assert.equal(Math.max(...drawn), mx);
      assert.equal(Math.min(...drawn), mn);
    }
  }
});

test("category stack: tops add up; at any zoom the total's peak and every band edge's extremes are drawn", () => {
  const ps = parts(30000), st = categoryStack(ps);
  assert.deepEqual(st.cats, [5, 1, 4]);
  const t = ps[0].t, n = t.length;
  const total = (i) => ps[0].v[i] + ps[1].v[i] + ps[2].v[i];
  for (const [i0, i1, px] of [[0, n - 1, 1200], [15000, 19000, 300], [18300, 18320, 900], [0, n - 1, 3]]) {
    const t0 = t[i0], t1 = t[i1] + 1;
    const sel = selectStack(st, t0, t1, px);
    let want = 0;
    for (let i = 0; i < n; i++) if (t[i] >= t0 && t[i] < t1) want = Math.max(want, total(i));
    // the step before t0 and the first point at or after t1 count too
    // (m4Select's i0 and i1, as m4Max and the server)
    const k0 = t.findIndex((x) => x >= t0) - 1, k1 = t.findIndex((x) => x >= t1);
    if (k0 >= 0) want = Math.max(want, total(k0));
    if (k1 >= 0) want = Math.max(want, total(k1));
    assert.equal(sel.max, want, "window maximum");
    assert.equal(Math.max(...sel.tops[2]), want, "the drawn total reaches the maximum");
    for (let k = 0; k < sel.t.length; k++) { // every drawn point shows the data in force then, tops the sums
      const i = upperBound(t, sel.t[k]) - 1;
      assert.ok(i >= 0);
      assert.equal(sel.tops[0][k], ps[0].v[i]);
      assert.equal(sel.tops[2][k], total(i));
    }
    // edged to the window: from t0 (when a step was in force there) to t1
    if (k0 >= 0) assert.ok(sel.t[0] === t0 || (sel.t[0] < t0 && sel.t[1] === t0), `starts at ${sel.t[0]}, t0 ${t0}`);
    assert.ok(sel.t[sel.t.length - 1] >= t1 - 1);
    // each band top keeps its per-column max
    const dt = (t1 - t0) / px;
    for (let b = 0; b < 3; b++) {
      const best = new Map();
      for (let i = 0; i < n; i++) if (t[i] >= t0 && t[i] < t1) {
        const c = Math.floor((t[i] - t0) / dt);
        best.set(c, Math.max(best.get(c) ?? -1, st.tops[b].v[i]));
      }
      const got = new Map();
      sel.t.forEach((x, k) => { if (x >= t0 && x < t1) { const c = Math.floor((x - t0) / dt); got.set(c, Math.max(got.get(c) ?? -1, sel.tops[b][k])); } });
      for (const [c, m] of best) assert.equal(got.get(c), m, `band ${b} column ${c}`);
    }
  }
});

test("a flat stretch is drawn across the window: the step in force at t0 starts at t0, a point closes it at t1", () => {
  const t = Float64Array.from([0, 1000]), v = Float64Array.from([7, 9]);
  const c = { t, v, n: 2, ...m4Build(v) };
  const p = m4Points(c, 1200, 1800, 100);
  assert.deepEqual([...p.t], [1200, 1800]);
  assert.deepEqual([...p.v], [9, 9]);
  const inner = m4Points(c, 200, 800, 100); // the next point (after t1) ends the line
  assert.deepEqual([...inner.t], [200, 1000]);
  assert.deepEqual([...inner.v], [7, 9]);
  // a point exactly at t0 needs no carry; the next point after t1 ends the line
  const q = m4Points(c, 0, 500, 10);
  assert.deepEqual([...q.t], [0, 1000]);
  const r = m4Points(c, 100.5, 1000.5, 10);
  assert.deepEqual([...r.t], [101, 1000]);
  assert.deepEqual([...r.v], [7, 9]);
  const e = edgeTimes(t, [1], 1500, 2000);
  assert.deepEqual([...e.t], [1500, 2000]);
  assert.deepEqual([...edgeValues(v, [1], e.close)], [9, 9]);
});

test("columnPeaks: each column's highest value and when, the value in force at its start included", () => {
  const t = Float64Array.from([0, 10, 12, 25, 26, 50]), v = Float64Array.from([5, 9, 2, 7, 1, 3]);
  const c = { t, v, n: 6, ...m4Build(v) };
  const sel = m4Select(c, 0, 60, 6);
  const p = columnPeaks(sel, 0, 60, 6);
  assert.deepEqual(Array.from(p.v), [5, 9, 7, 1, 1, 3]);
  assert.deepEqual(Array.from(p.t), [0, 10, 25, 30, 40, 50]);
  for (let x = 0; x < 6; x++) assert.equal(at(t, v, p.t[x]), p.v[x]);
});

test("stackBase: the curve minus the trace's live bytes at each column's peak instant", () => {
  const t = Float64Array.from([0, 10, 20, 30]), v = Float64Array.from([100, 130, 160, 120]);
  const tracked = { t: Float64Array.from([0, 10, 20, 30]), v: Float64Array.from([0, 30, 60, 20]) };
  const c = { t, v, n: 4, ...m4Build(v) };
  const b = stackBase(m4Select(c, 0, 40, 4), tracked, true, 0, 40, 4);
  assert.deepEqual(Array.from(b.base), [100, 100, 100, 100]);
  assert.deepEqual(Array.from(b.v), [100, 130, 160, 120]);
  assert.equal(stackBase(m4Select(c, 0, 40, 4), tracked, false, 0, 40, 4).base[0], 0);
});

test("stacked timeline on the base band: outline = base + live allocations = the curve", () => {
  // two allocations of the trace on 100 bytes allocated before it
  const allocs = { n: 2, ta: Float64Array.from([10, 20]), tf: Float64Array.from([30, 40]), size: Float64Array.from([30, 30]) };
  const t = Float64Array.from([0, 10, 20, 30, 40]), v = Float64Array.from([100, 130, 160, 130, 100]);
  const tracked = { t, v: Float64Array.from([0, 30, 60, 30, 0]) };
  const c = { t, v, n: 5, ...m4Build(v) };
  const W = 8, sb = stackBase(m4Select(c, 0, 48, W), tracked, true, 0, 48, W);
  const s = stackedRects(allocs, 0, 48, W, 1, freeOrderOf(allocs), sb.t, sb.base);
  for (let x = 0; x < W; x++) assert.equal(sb.base[x] + s.total[x], sb.v[x], "column " + x);
  assert.equal(Math.max(...Array.from(sb.v)), 160);
  // bands sit on the base: the first allocation's lowest edge is 100 bytes
  assert.ok(s.rects.every((r) => r.lo >= 100));
});

test("decodeFrame maps columns onto typed arrays", () => {
  const buf = encodeFrame({ max: 7, cats: [1, 5] }, { t: Float64Array.from([1, 2.5]), id: Uint32Array.from([9]), f: Uint8Array.from([1, 2, 3]) });
  const j = decodeFrame(buf);
  assert.equal(j.max, 7);
  assert.deepEqual(j.cats, [1, 5]);
  assert.deepEqual(Array.from(j.t), [1, 2.5]);
  assert.ok(j.id instanceof Uint32Array && j.id[0] === 9);
  assert.deepEqual(Array.from(j.f), [1, 2, 3]);
  assert.throws(() => decodeFrame(new TextEncoder().encode('{"error":"x"}').buffer));
});
