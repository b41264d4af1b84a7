// The timeline's hover (what was alive then) and its lanes' vertical window.
import test from "node:test";
import assert from "node:assert/strict";
import { aliveAt, laneWindow, viewHeight } from "../src/alive.js";
import { layoutLanes, placeLanes } from "../src/lanes.js";

function allocs(rows) { // [ta, tf, size, group, flags]
  const col = (k, T = Float64Array) => T.from(rows.map((r) => r[k] || 0));
  return { n: rows.length, ta: col(0), tf: col(1), size: col(2), group: col(3, Uint32Array), flags: col(4, Uint8Array) };
}

test("alive at t: allocated by t and not freed by t, largest first", () => {
  const a = allocs([[0, 10, 5], [1, 3, 50], [2, 20, 7], [4, 30, 100], [6, 40, 1], [12, 13, 999]]);
  const r = aliveAt(a, 5, 2);
  assert.equal(r.count, 3); // 0, 2 and 3 (1 was freed at 3, 4 comes at 6)
  assert.equal(r.bytes, 5 + 7 + 100);
  assert.deepEqual(r.top, [3, 2]);
  assert.equal(aliveAt(a, 3).count, 2); // freed at 3: gone at 3
  assert.equal(aliveAt(a, 100).count, 0);
});

test("every group gets a lane (no cap), and only the lanes in view are drawn", () => {
  const rows = Array.from({ length: 200 }, (_, g) => [g, g + 5, 1000 - g, g]);
  const a = allocs(rows), groups = rows.map((r, g) => "op" + g);
  const L = placeLanes(layoutLanes(a, groups, { maxLanes: Infinity, maxRows: 8 }), 8, 6, 4);
  assert.equal(L.lanes.length, 200);
  assert.ok(!L.lanes.some((l) => l.label === "(other operators)"));
  // each lane 8 px (one row) + 6 px gap: lane k at y = 4 + 14 k
  const w = laneWindow(L.lanes, 700, 200);
  assert.equal(w.sy, 700);                    // lane 50 starts there
  assert.deepEqual([w.shown[0], w.shown[w.shown.length - 1]], [50, 63]); // 63: y 886, its band ends 896 - 700 <= 200; 64's at 910
  assert.equal(viewHeight(L.height, 480), 480);
  assert.equal(viewHeight(100, 480), 100);
});

test("the lanes scroll in whole lanes: none opens half cut, none is half hidden at the bottom", () => {
  const lanes = [[4, 8], [18, 40], [64, 8], [78, 40], [124, 8]].map(([y, h]) => ({ y, h })); // bands 2 px above and below
  assert.deepEqual(laneWindow(lanes, 0, 60), { sy: 0, shown: [0, 1] });       // lane 2 (band to 74) would not fit in 60
  assert.deepEqual(laneWindow(lanes, 5, 60), { sy: 14, shown: [1, 2] });      // a scroll into lane 0: the next lane leads
  assert.deepEqual(laneWindow(lanes, 14, 60), { sy: 14, shown: [1, 2] });
  // scrolled to the end (the scroll range: height 138 - view 60): the last lanes, whole
  assert.deepEqual(laneWindow(lanes, 78, 60), { sy: 74, shown: [3, 4] });
  assert.deepEqual(laneWindow(lanes, 1000, 60), { sy: 74, shown: [3, 4] });
  // a lane taller than the view: shown alone (cut)
  assert.deepEqual(laneWindow([{ y: 4, h: 100 }, { y: 110, h: 8 }], 0, 60), { sy: 0, shown: [0] });
});
