// The Compare view's rules (compare.js): deltas, the alignment offset, the
// tree's visible rows, the execution diff, and the sources' compare methods.
import test from "node:test";
import assert from "node:assert/strict";
import { deltaPct, fmtPct, fmtSignedBytes, alignOffset, treeRows, nodeAt, nodeLabel, sideLabel, execDiff, fmtRel } from "../src/compare.js";
import { EmbeddedSource, HttpSource } from "../src/source.js";

test("deltas: percent of the base; none when the base is 0 or unknown", () => {
  assert.equal(deltaPct(150, 220).toFixed(4), "46.6667");
  assert.equal(deltaPct(0, 5), null);
  assert.equal(deltaPct(null, 5), null);
  assert.equal(fmtPct(46.6667), "+47 %");
  assert.equal(fmtPct(-7.7), "-7.7 %");
  assert.equal(fmtPct(null), "–");
  assert.equal(fmtSignedBytes(1024), "+1.00 KiB");
  assert.equal(fmtSignedBytes(-1024), "−1.00 KiB");
  assert.equal(fmtSignedBytes(0), "0 B");
});

test("alignment: the chosen step's begin on the page's clock, else the device's first time", () => {
  // the steps' begins are absolute ns as text; the page's times are relative to origin_ns
  const begins = ["1000500", "1200000"];
  assert.equal(alignOffset(begins, "1000000", 0, 7), 500);
  assert.equal(alignOffset(begins, "1000000", 1, 7), 200_000);
  assert.equal(alignOffset(begins, "1000000", -1, 7), 7);   // each trace's start
  assert.equal(alignOffset(null, "1000000", 0, 7), 7);      // no time side
  assert.equal(alignOffset(begins, "1000000", 5, 7), 7);    // fewer steps
  // exact beyond 2^53: a 2023 epoch time
  assert.equal(alignOffset(["1682725898082228000"], "1682725898082000000", 0, 0), 228000);
});

// root -> [A (matched) -> [A1, A2], B (composite), C (matched) -> [C1 -> [C1a]]]
const leaf = (name) => ({ match: "matched", type: "module", base: { name, nodes: 1, total_us: 10 }, new: { name, nodes: 1, total_us: 15 }, ops: [], children: [] });
const tree = {
  match: "root", type: "composite", base: { name: null, nodes: 3, first: "A", last: "C", total_us: 100 }, new: { name: null, nodes: 3, first: "A", last: "C", total_us: 130 }, ops: [],
  children: [
    { ...leaf("A"), children: [leaf("A1"), leaf("A2")] },
    { match: "unmatched", type: "composite", base: { name: null, nodes: 2, first: "x", last: "y", total_us: 30 }, new: { name: "z", nodes: 1, total_us: 20 }, ops: [], children: [] },
    { ...leaf("C"), base: { name: "C", nodes: 1, total_us: 60 }, new: { name: "C", nodes: 1, total_us: 95 }, children: [{ ...leaf("C1"), children: [leaf("C1a")] }] },
  ],
};

test("tree rows: the root's children, and the children of the open nodes, depth first", () => {
  assert.deepEqual(treeRows(tree, new Set()).map((r) => [r.path, r.depth]), [["0", 0], ["1", 0], ["2", 0]]);
  assert.deepEqual(treeRows(tree, new Set(["0", "2", "2-0"])).map((r) => r.path), ["0", "0-0", "0-1", "1", "2", "2-0", "2-0-0"]);
  // a closed parent hides an open child
  assert.deepEqual(treeRows(tree, new Set(["2-0"])).map((r) => r.path), ["0", "1", "2"]);
  assert.equal(treeRows(tree, new Set(["0", "2", "2-0"]), 4).length, 4);
  assert.equal(nodeAt(tree, "2-0-0").base.name, "C1a");
  assert.equal(nodeAt(tree, ""), tree);
  assert.equal(nodeAt(tree, "5"), null);
});

test("labels: a matched node by its name, a composite by both sides", () => {
  assert.equal(nodeLabel(tree.children[0]), "A");
  assert.equal(nodeLabel(tree.children[1]), "2 nodes: x … y  →  z");
  assert.equal(sideLabel(null), "(none)");
});

test("execution diff: per child the change of its total, and the change accumulated", () => {
  // A 10 -> 15 (+5), composite 30 -> 20 (-10), C 60 -> 95 (+35)
  assert.deepEqual(execDiff(tree).map((x) => [x.delta, x.acc]), [[5, 5], [-10, -5], [35, 30]]);
});

test("relative times read with their sign", () => {
  assert.equal(fmtRel(0), "0");
  assert.equal(fmtRel(-1.5e6), "−1.50 ms");
  assert.equal(fmtRel(2e9), "2.00 s");
});

test("sources: a report answers its pairs, a served page asks /api/compare", async () => {
  const obj = { inputs: ["a", "b"], pairs: [{ base_rank: 0, new_rank: 1, diff: { devices: [] } }], unmatched: [] };
  const src = new EmbeddedSource({ ranks: [] }, () => "", null, () => JSON.stringify(obj));
  assert.deepEqual(src.comparePairs().map((p) => [p.base_rank, p.new_rank]), [[0, 1]]);
  assert.equal((await src.getCompare(0, 1)).diff.devices.length, 0);
  await assert.rejects(src.getCompare(1, 0), /did not compare/);
  assert.deepEqual(new EmbeddedSource({ ranks: [] }, () => "").comparePairs(), []);
  const asked = [];
  const http = new HttpSource("/api/", async (u) => { asked.push(u); return { status: 200, json: async () => ({ base_rank: 2, new_rank: 3, diff: {} }) }; });
  const p = await http.getCompare(2, 3);
  assert.deepEqual(asked, ["/api/compare?base=2&new=3"]);
  assert.equal(p.base_rank, 2);
  assert.equal(p._status, undefined);
});
