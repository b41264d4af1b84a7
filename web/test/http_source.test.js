// HttpSource (web/src/source.js) against a fake fetch: the same shapes as the
// embedded source, lazy rank loading with progress, ids across windows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpSource, allocColumns } from "../src/source.js";
import { encodeFrame } from "./frame.js";

const F64 = (a) => Float64Array.from(a), U32 = (a) => Uint32Array.from(a), U8 = (a) => Uint8Array.from(a);

function fakeServer(routes) {
  const seen = [];
  const fetchFn = async (url) => {
    seen.push(url);
    const u = new URL(url, "http://127.0.0.1/");
    const r = routes[u.pathname.replace("/api/", "")];
    const [status, body] = r ? r(Object.fromEntries(u.searchParams)) : [404, { error: "not found" }];
    // A column route asked with fmt=bin answers a binary frame (src/server/colbuf.h).
    const bin = body && body.frame;
    return { status, json: async () => body, arrayBuffer: async () => (bin ? encodeFrame(body.fields, body.cols) : new ArrayBuffer(0)) };
  };
  return { fetchFn, seen };
}

const rank = { origin_ns: "1000", loaded: true, rank: 0, world_size: 1, path: "t.json", format: "kineto", time: "abs",
  strings: ["", "aten::mm"], devices: [{ id: "cuda:0", t0: 0, t1: 100, curves: [], op_curves: [],
    peak: { v: 5 }, allocs: { n: 2, total: 2, groups: ["(allocated before trace)", "(no operator)", "mm"] } }] };

test("lazy rank: progress while the server imports, then the rank's meta", async () => {
  let calls = 0;
  const { fetchFn } = fakeServer({
    meta: () => [200, { inputs: ["t.json"], skipped: [], ranks: [{ index: 0, path: "t.json", state: calls ? "ready" : "pending", bytes: 10, seconds: 0 }] }],
    rank: () => (++calls < 3 ? [202, { index: 0, path: "t.json", state: "loading", bytes: 10, seconds: 0.5 }] : [200, rank]),
  });
  const s = new HttpSource("/api/", fetchFn);
  const m = await s.getMeta();
  assert.equal(m.ranks.length, 1);
  assert.equal(m.ranks[0].loaded, false);
  const states = [];
  await s.ensureRank(0, (st) => states.push(st.state));
  assert.deepEqual(states, ["loading", "loading"]);
  assert.equal(m.ranks[0].loaded, true);
  assert.equal(m.ranks[0].devices[0].id, "cuda:0");
  assert.equal(await s.getPeak(0, 0).then((p) => p.v), 5);
});

test("windowed allocations: typed columns, ids, detail by id, keep", async () => {
  const { fetchFn, seen } = fakeServer({
    meta: () => [200, { inputs: [], skipped: [], ranks: [{ index: 0, path: "t.json", state: "ready" }] }],
    rank: () => [200, rank],
    allocs: (q) => [200, { frame: q.fmt === "bin", fields: { n: 1, total: 2, summarised: 1, summarised_bytes: 8 },
      cols: { id: U32([7]), ta: F64([1]), tf: F64([9]), size: F64([64]), addr_hi: U32([0]), addr_lo: U32([4096]), group: U32([2]),
        op: U32([1]), stream: U32([0]), stack: U32([0]), src: U32([7]), flags: U8([0]), cat: U8([0]) } }],
    detail: (q) => [200, { id: +q.id, size: 64, stack: [] }],
    curve: (q) => [200, { frame: q.fmt === "bin", fields: { max: 5 }, cols: { t: F64([0, 5]), v: F64([1, 5]) } }],
    curves: (q) => [200, { frame: q.fmt === "bin", fields: { n: 2, max: [5, 3] },
      cols: { t0: F64([0, 5]), v0: F64([1, 5]), t1: F64([0]), v1: F64([3]) }, list: q.list }],
    catcurve: (q) => [200, { frame: q.fmt === "bin", fields: { cats: [1, 5], max: 9 },
      cols: { t: F64([0, 4]), v0: F64([2, 4]), v1: F64([5, 9]) } }],
    stackbase: (q) => [200, { frame: q.fmt === "bin", fields: { curve: 0, before_known: true },
      cols: { t: F64([0, 50]), v: F64([5, 5]), base: F64([4, 4]) } }],
  });
  const s = new HttpSource("/api/", fetchFn);
  await s.getMeta();
  await s.ensureRank(0);
  const a = await s.getAllocs(0, 0, 0, 100, 800, 7);
  assert.ok(a.ta instanceof Float64Array && a.addrLo instanceof Uint32Array && a.flags instanceof Uint8Array);
  assert.equal(a.n, 1);
  assert.equal(a.groups[a.group[0]], "mm");
  assert.equal(a.strings[a.op[0]], "aten::mm");
  assert.equal(a.localOf(7), 0);
  assert.equal(a.localOf(8), -1);
  assert.match(seen.at(-1), /keep=7/);
  const d = await s.getDetail(0, 0, 0);
  assert.equal(d.id, 7);
  const c = await s.getCurve(0, 0, 0, 0, 100, 10);
  assert.deepEqual(Array.from(c.v), [1, 5]);
  const before = seen.length;
  assert.equal(await s.getCurveMax(0, 0, 0, 0, 100), 5);
  assert.equal(seen.length, before, "the max comes with the curve");
  // several curves in one request, their maxima kept
  const cs = await s.getCurves(0, 0, [0, "op:1"], 0, 100, 10);
  assert.match(seen.at(-1), /curves\?.*list=0%2Cop%3A1/);
  assert.deepEqual(cs.map((x) => Array.from(x.v)), [[1, 5], [3]]);
  assert.equal(await s.getCurveMax(0, 0, "op:1", 0, 100), 3);
  // the category chart and the stacked timeline's base
  const cc = await s.getCategoryCurve(0, 0, 0, 100, 10);
  assert.deepEqual(cc.cats, [1, 5]);
  assert.equal(cc.max, 9);
  assert.deepEqual(Array.from(cc.tops[1]), [5, 9]);
  const sb = await s.getStackBase(0, 0, 0, 100, 2);
  assert.equal(sb.beforeKnown, true);
  assert.deepEqual(Array.from(sb.base), [4, 4]);
});

test("allocColumns maps ids to rows", () => {
  const a = allocColumns({ count: 2, id: [3, 9], ta: [0, 1] }, [], []);
  assert.equal(a.localOf(9), 1);
  assert.equal(a.ta[1], 1);
});

test("numbers in URLs: the server's syntax (no exponent, which String(1e-7) would give)", () => {
  const s = new HttpSource("/api/", async () => ({}));
  assert.equal(s.url("curve", { t0: 1e-7, t1: -3.5e-8, px: 12, x: 1.25 }), "/api/curve?t0=0.0000001&t1=-0.000000035&px=12&x=1.25");
  assert.equal(s.url("curve", { t0: 4e18 }), "/api/curve?t0=4000000000000000000");
});

test("a rank finishing loading drops every rank's cached perf object (its distributed part spans the ranks loaded)", async () => {
  let loaded = 1;
  const { fetchFn } = fakeServer({
    meta: () => [200, { inputs: ["a", "b"], skipped: [], ranks: [0, 1].map((i) => ({ index: i, path: "t" + i + ".json", state: i < loaded ? "ready" : "pending" })) }],
    rank: (q) => { if (+q.rank >= loaded) loaded = +q.rank + 1; return [200, Object.assign({}, rank, { rank: +q.rank })]; },
    perf: () => [200, { distributed: { slowest_rank: loaded - 1 } }],
  });
  const s = new HttpSource("/api/", fetchFn);
  await s.getMeta();
  await s.ensureRank(0);
  assert.equal((await s.getPerf(0)).distributed.slowest_rank, 0);
  assert.equal((await s.getPerf(0)).distributed.slowest_rank, 0, "cached");
  await s.ensureRank(1);
  assert.equal((await s.getPerf(0)).distributed.slowest_rank, 1, "fetched again after rank 1 loaded");
});
