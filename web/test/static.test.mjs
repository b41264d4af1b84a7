// Static graphs (staticview.js): the size curve by node index, the live set at a node.
import test from "node:test";
import assert from "node:assert/strict";
import { staticCurve, liveAtNode, modelsOf } from "../src/staticview.js";

test("an operator holds its size from its start node to its end node, both included", () => {
  const rows = [["a", 0, 1, 100], ["b", 1, 3, 10], ["c", 2, -1, 1000]];
  const c = staticCurve(rows);
  assert.equal(c.last, 3);
  assert.deepEqual(Array.from(c.bytes), [100, 110, 1010, 1010]);
  assert.equal(c.peak, 1010);
  assert.equal(c.peakAt, 2);
  assert.deepEqual(liveAtNode(rows, 1, c.last).map((r) => r[0]), ["a", "b"]);
  assert.deepEqual(liveAtNode(rows, 3, c.last).map((r) => r[0]), ["c", "b"]);
});

test("no rows: a zero curve, and models in first-seen order", () => {
  assert.equal(staticCurve([]).peak, 0);
  assert.deepEqual(modelsOf([{ model: "m2" }, { model: "m1" }, { model: "m2" }]), ["m2", "m1"]);
});

test("the real export: graph 1's peak is summary's (8.30 MiB at node 32)", async () => {
  const fs = await import("node:fs");
  const f = new URL("../../../shared/data/ascend/static/test_rank_1/ASCEND_PROFILER_OUTPUT/static_op_mem.csv", import.meta.url);
  if (!fs.existsSync(f)) return; // data absent: nothing to check
  const lines = fs.readFileSync(f, "utf8").trim().split("\n").slice(1).map((l) => l.split(","));
  const rows = lines.filter((c) => c[3] === "1" && c[1] !== "TOTAL")
    .map((c) => [c[1], +c[4], c[5] === "4294967295" ? -1 : +c[5], Math.round(parseFloat(c[6]) * 1024)]);
  const c = staticCurve(rows);
  assert.equal(c.peakAt, 32);
  assert.ok(Math.abs(c.peak - 8.30 * 1048576) < 0.01 * 1048576, String(c.peak));
});
