// The report's trace object decoded (tracesource.js): start deltas and
// durations beyond u32 listed apart, the window, one slice's detail
// (launcher, launched, operator, parent, flows) and the Chrome JSON back.
import test from "node:test";
import assert from "node:assert/strict";
import { embeddedGetTrace, embeddedSliceDetail, embeddedTraceJson } from "../src/tracesource.js";

// A fake EmbeddedSource: col(desc) returns the array the descriptor names.
function source(trace) {
  const arrays = new Map();
  let b = 0;
  const put = (a) => { arrays.set(b, a); return { b: b++ }; };
  const t = Object.assign({}, trace.meta);
  for (const k of ["ts", "dur", "track", "name", "depth", "kind", "launcher", "info"]) t[k] = put(trace.cols[k]);
  t.flows = { n: trace.flows.from.length, cats: ["ac2g"], from: put(trace.flows.from), to: put(trace.flows.to), cat: put(trace.flows.cat) };
  t.op = { n: 1, dims: put(Uint32Array.of(5)), types: put(Uint32Array.of(0)), stack: put(Uint32Array.of(0)), seq: put(Float64Array.of(7)) };
  t.kern = { n: 0 };
  return { meta: { origin_ns: "1700000000000000000", ranks: [{ origin_ns: "1700000000000000000", trace: t }] }, col: async (d) => (d ? arrays.get(d.b) : null) };
}

// slices in start order: 0 op [0, 10 s) on thread 0; 1 runtime [1 s, +1000) inside it; 2 kernel on stream 1
// launched by 1, starting 5 s later (a delta beyond u32) and lasting 6 s (beyond u32)
const trace = {
  meta: { kinds: [], total: 3, n: 3, begin: 0, end: 11e9, cut_ns: -1, ts0: 0, ts_big: [[2, 5e9]], dur_big: [[0, 10e9], [2, 6e9]],
    strings: ["", "aten::mm", "cudaLaunchKernel", "gemm", "ac2g", "[[2, 3]]"],
    tracks: [{ id: 0, pid: "1", tid: "5", kind: "thread", label: "thread 5", process: "p (1)", slices: 2, depths: 2 },
      { id: 1, pid: "0", tid: "7", kind: "stream", label: "stream 7", process: "cuda:0", slices: 1, depths: 1 }] },
  cols: { ts: Uint32Array.of(0, 1e9, 0xffffffff), dur: Uint32Array.of(0xffffffff, 1000, 0xffffffff), track: Uint16Array.of(0, 0, 1),
    name: Uint16Array.of(1, 2, 3), depth: Uint8Array.of(0, 1, 0), kind: Uint8Array.of(0, 3, 5), launcher: Uint16Array.of(0, 0, 2),
    info: Uint16Array.of(1, 0, 0) },
  flows: { from: Uint16Array.of(1), to: Uint16Array.of(2), cat: Uint8Array.of(0) },
};

test("times beyond u32 come from the lists; the window holds every slice", async () => {
  const src = source(trace);
  const w = await embeddedGetTrace(src, 0, 0, 11e9, 1100, { q: "MM" });
  const byId = new Map(Array.from(w.slices.id, (id, k) => [id, k]));
  assert.equal(w.slices.ts[byId.get(2)], 6e9);
  assert.equal(w.slices.dur[byId.get(0)], 10e9);
  assert.equal(w.slices.dur[byId.get(2)], 6e9);
  assert.equal(w.hits, 2); // aten::mm, gemm
  assert.deepEqual([...w.flows.from, ...w.flows.to], [1, 2]);
});

test("a kernel's detail: launcher, operator, flows; the runtime's: launched, parent", async () => {
  const src = source(trace);
  const k = await embeddedSliceDetail(src, 0, 2);
  assert.equal(k.kind, "kernel");
  assert.equal(k.launcher, 1);
  assert.equal(k.op, 0);
  assert.deepEqual(k.flows, [{ from: 1, to: 2, cat: "ac2g" }]);
  assert.equal(k.related[1].name, "cudaLaunchKernel");
  const r = await embeddedSliceDetail(src, 0, 1);
  assert.deepEqual(r.launched, [2]);
  assert.equal(r.parent, 0);
  assert.deepEqual(r.stack, ["aten::mm"]);
  const op = await embeddedSliceDetail(src, 0, 0);
  assert.equal(op.args["Input Dims"], "[[2, 3]]");
  assert.equal(op.args["Sequence number"], 7);
});

test("the Chrome JSON back: absolute microseconds, names, flows", async () => {
  const j = JSON.parse(await embeddedTraceJson(source(trace), 0));
  const x = j.traceEvents.filter((e) => e.ph === "X");
  assert.equal(x.length, 3);
  assert.equal(x[2].ts, 1700000006000000);
  assert.equal(x[2].dur, 6000000);
  assert.equal(x[2].name, "gemm");
  assert.equal(j.traceEvents.filter((e) => e.ph === "s" || e.ph === "f").length, 2);
});

test("the Chrome JSON back carries the memory counters on the slices' clock", async () => {
  const src = source(trace);
  src.meta.ranks[0].rank = 3;
  src.meta.ranks[0].devices = [{ id: "cuda:0", t0: 0, t1: 2e9, curves: [
    { kind: "allocated", group: "overall" }, { kind: "active", group: "overall" }, { kind: "reserved", group: "overall" }] }];
  const asked = [];
  src.getCurve = async (rank, dev, k, t0, t1, px) => {
    asked.push(k);
    return k === 0 ? { t: Float64Array.of(0, 1e9 + 5), v: Float64Array.of(100, 12680999424) } : { t: Float64Array.of(0), v: Float64Array.of(4096) };
  };
  const j = JSON.parse(await embeddedTraceJson(src, 0));
  assert.deepEqual(asked, [0, 2]); // allocated and reserved, not active
  const c = j.traceEvents.filter((e) => e.ph === "C");
  assert.deepEqual(c.map((e) => [e.name, e.ts, e.args.bytes]),
    [["allocated", 1700000000000000, 100], ["allocated", 1700000001000000.005, 12680999424], ["reserved", 1700000000000000, 4096]]);
  assert.equal(new Set(c.map((e) => e.pid)).size, 1);
  const pname = j.traceEvents.find((e) => e.ph === "M" && e.pid === c[0].pid);
  assert.equal(pname.args.name, "rank 3 cuda:0 memory");
});
