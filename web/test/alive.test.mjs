// The timeline's hover (what was alive then) and its lanes' vertical window.
import test from "node:test";
import assert from "node:assert/strict";
import { aliveAt, lanesInView, viewHeight } from "../src/alive.js";
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
  const vis = lanesInView(L.lanes, 700, 900);
  assert.ok(vis.length > 5 && vis.length < 20, String(vis.length));
  assert.ok(L.lanes[vis[0]].y + L.lanes[vis[0]].h >= 698 && L.lanes[vis[vis.length - 1]].y < 902);
  assert.equal(viewHeight(L.height, 480), 480);
  assert.equal(viewHeight(100, 480), 100);
});
