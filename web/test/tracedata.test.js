// The Trace view's lanes, merge of sub-pixel slices, and layout (tracedata.js).
import test from "node:test";
import assert from "node:assert/strict";
import { mergeLane, buildLanes, traceWindow, layoutTracks, matchStrings, matchPrefix } from "../src/tracedata.js";

function run(rows, t0, t1, px) { // rows: [ts, end] of one lane
  const ts = Float64Array.from(rows.map((r) => r[0])), end = Float64Array.from(rows.map((r) => r[1]));
  const out = [];
  mergeLane(ts, end, 0, rows.length, t0, t1, px, (i) => out.push(["s", i]), (a, b, x0, x1) => out.push(["m", a, b, +x0.toFixed(2), +x1.toFixed(2)]));
  return out;
}

// brute force: the same rule, one slice at a time
function brute(rows, t0, t1, px) {
  const k = px / (t1 - t0), out = [];
  let cur = null;
  const flush = () => { if (cur) { out.push(cur.b - cur.a === 1 ? ["s", cur.a] : ["m", cur.a, cur.b]); cur = null; } };
  rows.forEach(([s, e], i) => {
    if (e < t0 || (e === t0 && s < t0) || s >= t1) return;
    const x0 = (s - t0) * k, x1 = (e - t0) * k;
    if (x1 - x0 >= 1) { flush(); out.push(["s", i]); return; }
    if (cur && x0 - cur.x1 < 1) { cur.b = i + 1; cur.x1 = Math.max(cur.x1, x1); return; }
    flush();
    cur = { a: i, b: i + 1, x1 };
  });
  flush();
  return out;
}

test("wide slices stay slices, narrow neighbours merge into one box with a count", () => {
  // 100 px over 1000 ns: 10 ns per pixel
  const rows = [[0, 50], [60, 61], [62, 63], [64, 65], [200, 300], [500, 501]];
  assert.deepEqual(run(rows, 0, 1000, 100), [["s", 0], ["m", 1, 4, 6, 7], ["s", 4], ["s", 5]]);
});

test("a gap of a pixel or more ends a run", () => {
  const rows = [[0, 1], [2, 3], [30, 31], [32, 33]];
  assert.deepEqual(run(rows, 0, 1000, 100), [["m", 0, 2, 0, 1], ["m", 2, 4, 3, 4]]);
});

test("window edges: slices ending at t0 or starting at t1 are outside", () => {
  const rows = [[0, 100], [100, 200], [200, 300], [300, 400]];
  assert.deepEqual(run(rows, 100, 300, 10), [["s", 1], ["s", 2]]);
});

test("the jumping merge agrees with the slice-by-slice rule on random lanes", () => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let trial = 0; trial < 300; trial++) {
    const rows = [];
    let t = 0;
    const n = 1 + Math.floor(rnd() * 60);
    for (let i = 0; i < n; i++) {
      t += Math.floor(rnd() ** 3 * 200);
      const d = Math.floor(rnd() ** 4 * 300);
      rows.push([t, t + d]);
      t += d;
    }
    const t0 = Math.floor(rnd() * t * 0.5), t1 = t0 + 1 + Math.floor(rnd() * t), px = 1 + Math.floor(rnd() * 200);
    const got = run(rows, t0, t1, px).map((r) => r.slice(0, r[0] === "m" ? 3 : 2));
    assert.deepEqual(got, brute(rows, t0, t1, px), JSON.stringify({ rows, t0, t1, px }));
  }
});

test("lanes per track and depth, in the tracks' display order; window with flows of returned slices", () => {
  const cols = { n: 5, ts: Float64Array.from([0, 10, 0, 12, 5]), dur: Float64Array.from([100, 20, 50, 1, 1]),
    track: Uint32Array.from([1, 1, 0, 1, 0]), depth: Uint16Array.from([0, 1, 0, 1, 1]), name: Uint32Array.from([1, 2, 3, 2, 1]),
    kind: Uint8Array.from([0, 0, 5, 0, 5]) };
  const tracks = [{ id: 1 }, { id: 0 }];
  const L = buildLanes(cols, tracks);
  assert.deepEqual(L.lanes.map((l) => [l.track, l.depth, l.hi - l.lo]), [[1, 0, 1], [1, 1, 2], [0, 0, 1], [0, 1, 1]]);
  const lay = layoutTracks(tracks, L.laneOf, 10, 4);
  assert.equal(lay.yOf(1, 1), 10);
  assert.equal(lay.yOf(0, 0), 24);
  assert.equal(lay.height, 48);
  const w = traceWindow(L, cols, 0, 100, 100);
  assert.deepEqual(Array.from(w.slices.id).sort(), [0, 1, 2, 3, 4]);
  const w2 = traceWindow(L, cols, 0, 100, 10, { pre: matchPrefix(L, cols, matchStrings(["", "a", "b", "c"], "B")) });
  // 10 ns per pixel: 1 (10..30) is wide, 3 (12..13) is a lone narrow slice
  assert.equal(w2.merged.n.length, 0);
  const w3 = traceWindow(L, cols, 0, 1000, 10, { pre: matchPrefix(L, cols, matchStrings(["", "a", "b", "c"], "b")) });
  assert.deepEqual(Array.from(w3.merged.n), [2]);
  assert.deepEqual(Array.from(w3.merged.hits), [2]);
});
