// Per-call durations in the Operators / Kernels details: the histogram's bins
// (as src/analysis/durhist.c), its SVG (bars, axis units, tooltips, mean) and
// the slowest calls' links.
import test from "node:test";
import assert from "node:assert/strict";
import { pvBinLower, pvBinOf, pvNsShort, pvHistBins, pvHistogram, pvSlowest, pvPerCall } from "../src/perfview.js";
import { kernelDetail } from "../src/kernels.js";
import { operatorDetail } from "../src/operators.js";

test("histogram bins: 1-2-5 per decade of ns, bin 0 from 0, as the C side", () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 12, 13].map(pvBinLower), [0, 2, 5, 10, 20, 50, 10000, 20000]);
  assert.deepEqual([0, 1, 2, 4, 5, 9, 10, 19999, 20000, 5e18].map(pvBinOf), [0, 0, 1, 1, 2, 2, 3, 12, 13, 56]);
  // exact below 2^53 ns (a hundred days): far beyond any call
  for (let b = 1; b < 47; b++) { assert.equal(pvBinOf(pvBinLower(b)), b); assert.equal(pvBinOf(pvBinLower(b) - 1), b - 1); }
  assert.deepEqual([0, 2, 50, 1000, 20000, 5e6, 1e9, 2e10].map(pvNsShort), ["0", "2 ns", "50 ns", "1 µs", "20 µs", "5 ms", "1 s", "20 s"]);
  assert.deepEqual(pvHistBins({ bin0: 12, counts: [3, 0, 1] }).map((x) => [x.b, x.lo, x.hi, x.n]),
    [[12, 10000, 20000, 3], [13, 20000, 50000, 0], [14, 50000, 100000, 1]]);
  assert.deepEqual(pvHistBins(undefined), []);
});

test("histogram SVG: a bar per bin with calls, counts that sum to the calls, units on the axis, tooltips, the mean", () => {
  const hist = { bin0: 12, counts: [7, 0, 2, 1] };
  const svg = pvHistogram(hist, { mean: 30000 });
  const bars = [...svg.matchAll(/<rect class="pv-hbar" data-n="(\d+)" data-tip="([^"]*)"/g)];
  assert.equal(bars.length, 3);
  assert.equal(bars.reduce((a, m) => a + +m[1], 0), 10);
  assert.equal(bars[0][2], "10 µs – 20 µs: 7 calls (70.0 %)");
  assert.match(svg, /<title>50 µs – 100 µs: 2 calls \(20.0 %\)<\/title>/);
  assert.match(svg, />10 µs<\/text>/);           // a decade tick with its unit
  assert.match(svg, />100 µs<\/text>/);
  assert.match(svg, /duration per call \(log scale\)/);
  assert.match(svg, />7<\/text>/);               // the count axis' top
  assert.match(svg, /class="pv-hmean"/);
  // taller bars for more calls; the mean line between its bin's bounds
  const h = [...svg.matchAll(/class="pv-hbar"[^>]* height="([\d.]+)"/g)].map((m) => +m[1]);
  assert.ok(h[0] > h[1] && h[1] > h[2]);
  const xs = (re) => +re.exec(svg)[1];
  const meanX = xs(/class="pv-hmean" x1="([\d.]+)"/), x13 = xs(/data-n="7"[^>]* x="([\d.]+)"/);
  assert.ok(meanX > x13);
  assert.equal(pvHistogram({ bin0: 3, counts: [] }), "");
  assert.equal(pvHistogram(null), "");
  // a wide range labels decades only, spaced out
  const wide = pvHistogram({ bin0: 0, counts: new Array(40).fill(1) });
  assert.equal((wide.match(/class="pv-hbar"/g) || []).length, 40);
  assert.ok((wide.match(/class="lab" text-anchor="middle">[^<]*[nµms]<\/text>/g) || []).length <= 8);
});

test("slowest calls: links carrying the start, duration and name for the Trace view", () => {
  const h = pvSlowest([[577665263, 5993392], [136647343, 3306963]], "nccl<x>");
  const links = [...h.matchAll(/<a class="pv-call" href="#" data-ts="(\d+)" data-dur="(\d+)" data-name="([^"]*)"/g)];
  assert.deepEqual(links.map((m) => [+m[1], +m[2], m[3]]), [[577665263, 5993392, "nccl&lt;x&gt;"], [136647343, 3306963, "nccl&lt;x&gt;"]]);
  assert.match(h, /5\.99 ms/);
  assert.equal(pvSlowest([], "x"), "");
  assert.equal(pvPerCall({ name: "x" }), "");
});

test("details: kernels and operators draw their calls' histogram and slowest calls; rows without one keep the range", () => {
  const perf = { kernels: { by_name: [], by_op: [] }, operators: { by_name: [], by_shape: [] } };
  const k = { name: "gemm", calls: 3, total_ns: 60000, mean_ns: 20000, min_ns: 10000, max_ns: 30000, hist: { bin0: 12, counts: [1, 2] }, slowest: [[5, 30000], [9, 20000], [1, 10000]] };
  const kd = kernelDetail(k, perf, "name");
  assert.match(kd, /class="pv-hist"/);
  assert.equal((kd.match(/class="pv-call"/g) || []).length, 3);
  assert.doesNotMatch(kd, /pv-range/);
  const old = kernelDetail(Object.assign({}, k, { hist: undefined, slowest: undefined }), perf, "name");
  assert.match(old, /pv-range/);
  const o = { name: "aten::mm", input_shape: null, calls: 2, host_self_ns: 1, host_total_ns: 30000, device_self_ns: 0, device_total_ns: 0, kernels: [], stack: null, hist: { bin0: 12, counts: [2] }, slowest: [[100, 20000], [300, 10000]] };
  const od = operatorDetail(o, perf, "name");
  assert.match(od, /Host time per call/);
  assert.match(od, /host time per call \(log scale\)/);
  assert.equal((od.match(/data-name="aten::mm"/g) || []).length, 2);
});
