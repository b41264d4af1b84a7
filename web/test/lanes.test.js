// Lane layout, visible bars and the sub-pixel band, stacked mode.
import test from "node:test";
import assert from "node:assert/strict";
import { layoutLanes, placeLanes, visibleBars, hitBar, overlapping, stackedRects, freeOrderOf, OTHER_LANE } from "../src/lanes.js";

function allocs(rows) { // rows: [ta, tf, size, group]
  const n = rows.length, col = (k, T = Float64Array) => T.from(rows.map((r) => r[k]));
  return { n, ta: col(0), tf: col(1), size: col(2), group: col(3, Uint32Array) };
}

test("lanes ordered by bytes, overlapping lifetimes packed into rows", () => {
  const a = allocs([[0, 10, 100, 0], [5, 15, 100, 0], [12, 20, 100, 0], [0, 30, 1000, 1]]);
  const L = placeLanes(layoutLanes(a, ["small", "big"]));
  assert.deepEqual(L.lanes.map((l) => l.label), ["big", "small"]);
  assert.equal(L.lanes[1].rows, 2);
  assert.deepEqual(Array.from(L.row.slice(0, 3)), [0, 1, 0]);
  assert.ok(L.lanes[1].y > L.lanes[0].y);
});

test("beyond maxLanes, the rest share one lane", () => {
  const a = allocs(Array.from({ length: 10 }, (_, g) => [0, 1, 100 - g, g]));
  const L = layoutLanes(a, Array.from({ length: 10 }, (_, g) => "op" + g), { maxLanes: 4 });
  assert.equal(L.lanes.length, 4);
  assert.equal(L.lanes[3].label, OTHER_LANE);
  assert.equal(L.lanes[3].count, 7);
});

test("bars under one pixel are counted into the band, not drawn", () => {
  const a = allocs([[0, 1000, 8, 0], [10, 11, 8, 0], [12, 13, 8, 0], [2000, 3000, 8, 0]]);
  const L = placeLanes(layoutLanes(a, ["g"]));
  const v = visibleBars(a, L, 0, 1000, 100);
  assert.deepEqual(Array.from(v.bars), [0]);
  assert.equal(v.nSmall, 2);
  assert.equal(v.small[1], 2); // both in pixel column 1
  const y = L.lanes[0].y + 1;
  assert.equal(hitBar(a, L, v, 50, y), 0);
  assert.equal(hitBar(a, L, v, 50, y + 100), -1);
  assert.deepEqual(overlapping(a, L, 0, 10.5), [0, 1]);
});

test("stacked: bands stack in allocation order and drop when one below is freed", () => {
  // 0: [0,50) 100 B, 1: [10,100) 200 B. After 50, alloc 1 falls to the bottom.
  // Each column shows the live set at its right edge: column 9 ends at 100.
  const a = allocs([[0, 50, 100, 0], [10, 100, 200, 0]]);
  const s = stackedRects(a, 0, 100, 10, 1, freeOrderOf(a));
  const r1 = s.rects.filter((r) => r.i === 1);
  assert.deepEqual(r1.map((r) => [r.x0, r.x1, r.lo]), [[0, 4, 100], [4, 9, 0]]);
  assert.equal(s.total[2], 300);
  assert.equal(s.total[7], 200);
});

test("stacked: allocations shorter than a column are counted as hidden", () => {
  const a = allocs([[0, 100, 10, 0], [21, 22, 50, 0]]);
  const s = stackedRects(a, 0, 100, 10, 1, freeOrderOf(a));
  assert.equal(s.hidden, 1);
  assert.ok(s.rects.every((r) => r.i === 0));
});
