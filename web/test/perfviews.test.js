// The profiler views' pure parts: module tree rows, per-rank step split, the
// derived distributed data, kernel names, the overview's SVG pieces.
import test from "node:test";
import assert from "node:assert/strict";
import { moduleTree, moduleRows } from "../src/modules.js";
import { cpOverlay, cpSummary, cpLabels, CP_LABELS } from "../src/critpath.js";
import { distByRank, distFromSteps, collColumns, collTitle } from "../src/distributed.js";
import { shortKernel, operatorColumns } from "../src/operators.js";
import { kernelColumns } from "../src/kernels.js";
import { ovStepBars, ovDonut, ovGauge, STEP_PARTS } from "../src/overview.js";
import { pvNoPerf } from "../src/perfview.js";
import { ptDelimited, ptFilter } from "../src/perftable.js";
import { makePerf } from "./perf_fixture.js";

test("module tree: collapsed nodes hide their children; a filter keeps matches and their ancestors", () => {
  const mods = makePerf().modules, tree = moduleTree(mods);
  assert.deepEqual(tree.roots, [0]);
  assert.deepEqual(moduleRows(mods, tree, new Set([0]), "").map((r) => r.i), [0, 1, 6]);
  assert.deepEqual(moduleRows(mods, tree, new Set([0, 1, 2]), "").map((r) => [r.i, r.depth]), [[0, 0], [1, 1], [2, 2], [3, 3], [4, 3], [5, 2], [6, 1]]);
  assert.deepEqual(moduleRows(mods, tree, new Set(), "MLP").map((r) => r.i), [0, 1, 2, 4]);
});

test("distributed: per-rank means of each part, for all steps or one", () => {
  const rows = [{ rank: 1, step: "a", computation_ns: 10, communication_ns: 4, overlap_ns: 2, other_ns: 0 },
    { rank: 1, step: "b", computation_ns: 20, communication_ns: 0, overlap_ns: null, other_ns: 2 },
    { rank: 0, step: "a", computation_ns: 6, communication_ns: 6, overlap_ns: 0, other_ns: 1 }];
  const all = distByRank(rows, "");
  assert.deepEqual(all.map((r) => [r.rank, r.n, r.computation_ns, r.overlap_ns, r.other_ns]), [[0, 1, 6, 0, 1], [1, 2, 15, 1, 1]]);
  assert.deepEqual(distByRank(rows, "b").map((r) => [r.rank, r.computation_ns]), [[1, 20]]);
});

test("distributed without the analyses' object: from the step breakdown and the collective kernels", () => {
  const p = makePerf();
  const d = distFromSteps(p, 3);
  assert.ok(d.derived && d.steps.length === p.steps.length && d.steps.every((s) => s.rank === 3 && s.overlap_ns === null));
  const s0 = p.steps[0], x = d.steps[0];
  assert.equal(x.computation_ns, s0.kernel_ns + s0.memcpy_ns + s0.memset_ns);
  assert.equal(x.computation_ns + x.communication_ns + x.other_ns, s0.total_ns);
  assert.ok(d.collectives.length >= 1 && d.collectives.every((k) => /nccl/i.test(k.name)));
  assert.equal(distFromSteps({ steps: [{ name: "s", total_ns: 5, kernel_ns: 5 }], kernels: { by_name: [] } }, 0), null);
});

test("kernel names cut to their function for narrow places", () => {
  assert.equal(shortKernel("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, float)"), "at::native::vectorized_elementwise_kernel<…>");
  assert.equal(shortKernel("ampere_sgemm_128x64_tn"), "ampere_sgemm_128x64_tn");
  assert.equal(shortKernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long)"), "ncclKernel_AllReduce_RING_LL_Sum_float");
});

test("operator and kernel columns: every perf column, CSV with raw numbers", () => {
  const p = makePerf();
  const oc = operatorColumns("shape", p).map((c) => c.key);
  for (const k of ["name", "input_shape", "calls", "host_self_ns", "host_total_ns", "device_self_ns", "device_total_ns", "device_share", "tc_eligible", "tc_self_ratio", "tc_total_ratio"]) assert.ok(oc.includes(k), k);
  const kc = kernelColumns("op", p).map((c) => c.key);
  for (const k of ["name", "op", "calls", "total_ns", "mean_ns", "min_ns", "max_ns", "blocks_per_sm", "occupancy", "tensor_cores"]) assert.ok(kc.includes(k), k);
  const cols = operatorColumns("name", p), rows = p.operators.by_name;
  const csv = ptDelimited(rows, ptFilter(rows, cols, "aten::mm"), cols, ",").split("\n");
  assert.match(csv[0], /^Name,Calls,Host self,/);
  const r = rows.find((x) => x.name === "aten::mm");
  assert.ok(csv[1].startsWith(`aten::mm,${r.calls},${r.host_self_ns},${r.host_total_ns},`), csv[1]);
  assert.ok(/,(yes|no),/.test(csv[1]));
});

test("overview pieces: a bar segment per non-zero part, donut and gauge", () => {
  const p = makePerf({ steps: 3 });
  const svg = ovStepBars(p.steps);
  assert.equal((svg.match(/<rect /g) || []).length, p.steps.reduce((a, s) => a + STEP_PARTS.filter((x) => s[x.key] > 0).length, 0));
  assert.match(ovDonut(p.step_average), /average step/);
  assert.match(ovDonut({ total_ns: 5, kernel_ns: 5 }), /fill-rule="evenodd"/);
  assert.match(ovGauge(0.62, "GPU utilization"), />62%</);
  assert.match(ovGauge(null, "GPU utilization"), />–</);
});

test("why a rank has no time views", () => {
  const snapshot = { device: "cuda", allocator_state: true, memory_record: true, memory_first: true };
  const ascend = { device: "npu", device_word: "NPU", insight_names: true, memory_first: true };
  assert.match(pvNoPerf({ format: "torch-snapshot", caps: snapshot, perfWhy: "the trace has no events with a duration" }), /^A memory snapshot \(torch\.cuda\.memory\._snapshot\)/);
  assert.match(pvNoPerf({ format: "torch-memory-timeline", caps: { memory_record: true, memory_first: true } }), /^A memory timeline \(export_memory_timeline\)/);
  assert.equal(pvNoPerf({ format: "ascend-text", caps: ascend, perfWhy: "this Ascend run has no trace_view.json" }), "This Ascend run has no trace_view.json.");
  assert.equal(pvNoPerf({ format: "ascend-text", caps: ascend }), "This Ascend export has no trace_view.json: it holds memory records only.");
  // the caps decide, not the format's name (a label)
  assert.equal(pvNoPerf({ format: "my-snapshot-like-name", caps: {} }), "This input has no operator or kernel events.");
  assert.equal(pvNoPerf({ format: "ascend-text" }), "This input has no operator or kernel events.");
});

test("served: getMeta answers one meta object for the page's life (a view asking again keeps the loaded ranks)", async () => {
  const { HttpSource } = await import("../src/source.js");
  let calls = 0;
  const fetchFn = async (u) => {
    calls++;
    const body = /api\/meta/.test(u) ? { inputs: ["a"], skipped: [], ranks: [{ rank: 0, path: "a" }] }
      : /api\/rank/.test(u) ? { devices: [], perf: true, perfWhy: null } : /api\/perf/.test(u) ? { counts: { events: 3 } } : {};
    return { status: 200, json: async () => JSON.parse(JSON.stringify(body)) };
  };
  const s = new HttpSource("/api/", fetchFn);
  const m1 = await s.getMeta();
  await s.ensureRank(0);
  const m2 = await s.getMeta();
  assert.equal(m1, m2);
  assert.ok(m2.ranks[0].loaded);
  assert.deepEqual(await s.getPerf(0), { counts: { events: 3 } });
  const n = calls;
  await s.getPerf(0);
  assert.equal(calls, n, "the perf object is fetched once");
});

test("call-stack frames shortened to the package path", async () => {
  const { opFrameText } = await import("../src/operators.js");
  assert.equal(opFrameText("/home/u/envs/k/lib/python3.7/site-packages/torch/nn/modules/module.py(1102): _call_impl"), "torch/nn/modules/module.py(1102): _call_impl");
  assert.equal(opFrameText("/home/u/work/resnet50_profiler_api.py(46): <module>"), "work/resnet50_profiler_api.py(46): <module>");
  assert.equal(opFrameText("train.py(12): step"), "train.py(12): step");
  assert.equal(opFrameText("<built-in method conv2d>"), "<built-in method conv2d>");
});

test("kernel names: anonymous namespaces left out", () => {
  assert.equal(shortKernel("void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*)"), "at::native::max_pool_forward_nchw<…>");
});

test("distributed segments add up to the step: the overlap counted once", async () => {
  const { distSegments } = await import("../src/distributed.js");
  // step 100: computation 60 and communication 30 overlap 10 -> other = 100 + 10 - 60 - 30 = 20
  const seg = distSegments({ computation_ns: 60, communication_ns: 30, overlap_ns: 10, other_ns: 20 });
  assert.deepEqual(seg.map((x) => x.v), [50, 10, 20, 20]);
  assert.equal(seg.reduce((a, x) => a + x.v, 0), 100);
  assert.deepEqual(distSegments({ computation_ns: 5, communication_ns: 2, overlap_ns: null, other_ns: 1 }).map((x) => x.v), [5, 0, 2, 1]);
});

test("collectives: rows of several ranks carry a rank column, sizes of process groups a column of their own", () => {
  const two = [{ rank: 0, name: "nccl:all_to_all", group_size: null }, { rank: 1, name: "nccl:all_to_all", group_size: null }];
  assert.deepEqual(collColumns(two).map((c) => c.key), ["rank"]);
  assert.equal(collTitle(two, 0), " (2 ranks)");
  const groups = [{ rank: 0, name: "nccl:all_reduce", group_size: 8 }, { rank: 0, name: "nccl:all_reduce", group_size: 2 }];
  assert.deepEqual(collColumns(groups).map((c) => c.key), ["group_size"]);
  assert.equal(collTitle(groups, 0), " (rank 0)");
  assert.deepEqual(collColumns([{ rank: 3, name: "x", group_size: null }]), []);
  assert.equal(collTitle([], 5), " (rank 5)");
});

test("the critical path speaks the accelerator's words (perf.accelerator.device), its kinds' keys unchanged", () => {
  assert.deepEqual(cpLabels("NPU"), ["CPU", "NPU compute", "NPU communication", "launch delay", "kernel gaps", "wait"]);
  assert.deepEqual(cpLabels(undefined), CP_LABELS);
  const cp = { has_sync: false, kinds: ["cpu", "gpu_compute", "gpu_communication", "launch", "kernel_kernel", "none"],
    steps: [{ name: "50", begin: 0, end: 100, ok: true, path_ns: 100, by_kind: [60, 40, 0, 0, 0] }] };
  const npu = cpOverlay({ critical_path: cp, accelerator: { device: "NPU" } }, 0);
  assert.deepEqual(npu.labels, cpLabels("NPU"));
  assert.equal(cpSummary(npu, 50), "50: critical path 100 ns — CPU 60 ns (60.0 %) · NPU compute 40 ns (40.0 %) · the export has no synchronisation events, so host waits for the NPU are not on it");
  const gpu = cpOverlay({ critical_path: cp }, 0); // a perf object without accelerator words: CUDA's
  assert.equal(cpSummary(gpu, 50), "50: critical path 100 ns — CPU 60 ns (60.0 %) · GPU compute 40 ns (40.0 %) · the trace has no cuda_sync events, so host waits for the GPU are not on it");
});
