// M4 selection: the drawn points keep every extreme of every pixel column.
import test from "node:test";
import assert from "node:assert/strict";
import { m4Levels, m4Select, m4Max } from "../src/m4.js";

// The same pyramid as src/analysis/m4.c builds (ties: earliest index).
function build(v, fan = 4) {
  const n = v.length, lv = m4Levels(n, fan);
  const mn = new Uint32Array(lv.total), mx = new Uint32Array(lv.total);
  let below = n;
  lv.sizes.forEach((m, l) => {
    for (let j = 0; j < m; j++) {
      let a = -1, b = -1;
      for (let c = j * fan; c < Math.min((j + 1) * fan, below); c++) {
        const cm = l === 0 ? c : mn[lv.offsets[l - 1] + c], cx = l === 0 ? c : mx[lv.offsets[l - 1] + c];
        if (a < 0 || v[cm] < v[a]) a = cm;
        if (b < 0 || v[cx] > v[b]) b = cx;
      }
      mn[lv.offsets[l] + j] = a; mx[lv.offsets[l] + j] = b;
    }
    below = m;
  });
  return { mn, mx, fan };
}

function curveOf(n, seed = 1) {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const t = new Float64Array(n), v = new Float64Array(n);
  let time = 0, val = 1e9;
  for (let i = 0; i < n; i++) {
    time += rnd() < 0.1 ? 5000 : Math.floor(rnd() * 50);  // bursts and gaps
    val += Math.floor((rnd() - 0.5) * 1e6);
    t[i] = time; v[i] = val;
  }
  v[Math.floor(n * 0.37)] += 5e8; // a one-point peak
  return { t, v, n, ...build(v) };
}

test("level sizes", () => {
  assert.deepEqual(m4Levels(1, 4).sizes, []);
  assert.deepEqual(m4Levels(16, 4).sizes, [4, 1]);
  assert.deepEqual(m4Levels(17, 4).sizes, [5, 2, 1]);
});

test("the peak survives at every zoom and width", () => {
  const c = curveOf(50000);
  let peak = 0;
  for (const x of c.v) peak = Math.max(peak, x);
  const tEnd = c.t[c.n - 1];
  for (const px of [1, 3, 100, 1000, 4000]) {
    const sel = m4Select(c, 0, tEnd, px);
    assert.equal(Math.max(...sel.v), peak, `px ${px}`);
    // At most 4 points per node emitted: one node per column, plus the nodes
    // split at each column boundary (fan per level).
    const levels = m4Levels(c.n, 4).sizes.length;
    assert.ok(sel.t.length <= 4 * (px + (px + 1) * 4 * levels), `few points at px ${px}: ${sel.t.length}`);
  }
  assert.equal(m4Max(c, 0, tEnd), peak);
});

test("every pixel column keeps its min and max", () => {
  const c = curveOf(20000, 7);
  const t0 = c.t[1000], t1 = c.t[15000], px = 300, dt = (t1 - t0) / px;
  const sel = m4Select(c, t0, t1, px);
  for (let x = 0; x < px; x++) {
    const a = t0 + x * dt, b = a + dt;
    let lo = Infinity, hi = -Infinity, slo = Infinity, shi = -Infinity;
    for (let i = 0; i < c.n; i++) if (c.t[i] >= a && c.t[i] < b) { lo = Math.min(lo, c.v[i]); hi = Math.max(hi, c.v[i]); }
    for (let i = 0; i < sel.t.length; i++) if (sel.t[i] >= a && sel.t[i] < b) { slo = Math.min(slo, sel.v[i]); shi = Math.max(shi, sel.v[i]); }
    if (lo === Infinity) continue;
    assert.equal(shi, hi, `max of column ${x}`);
    assert.equal(slo, lo, `min of column ${x}`);
  }
});

test("points come out in time order, with the step in force at the window start", () => {
  const c = curveOf(3000, 3);
  const t0 = c.t[500] + 1, t1 = c.t[2000];
  const sel = m4Select(c, t0, t1, 200);
  for (let i = 1; i < sel.t.length; i++) assert.ok(sel.t[i] >= sel.t[i - 1]);
  assert.ok(sel.t[0] <= t0);
  assert.ok(sel.t[sel.t.length - 1] >= t1);
});

test("zoomed in far enough, the points themselves", () => {
  const c = curveOf(1000, 5);
  const sel = m4Select(c, c.t[100], c.t[110], 2000);
  assert.deepEqual(Array.from(sel.idx), Array.from({ length: 12 }, (_, k) => 99 + k));
});
