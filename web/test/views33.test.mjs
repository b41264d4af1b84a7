// Issue 33's view fixes where the logic is pure: history steps, rank order,
// memory-only inputs, the Memory view's address, device order, "max in view",
// the Compare verdict by time, the outliers' view, the search colour.
import test from "node:test";
import assert from "node:assert/strict";
import { isNavigation, rankOrder, memoryOnly, memStateOf, TIME_VIEWS, TAB_VIEWS } from "../src/tabs.js";
import { deviceOrder, defaultDevice, defaultCompareDevice } from "../src/devorder.js";
import { stepMaxIn } from "../src/m4.js";
import { timeVerdict } from "../src/compare.js";
import { outlierView } from "../src/cluster.js";
import { CP_COLOURS, SEARCH_COLOUR } from "../src/critpath.js";
import { ovStepBars } from "../src/overview.js";

test("another view, rank or selection is a history step; a zoom, sort or filter is not", () => {
  assert.equal(isNavigation("#view=cluster&rank=0", "#view=trace&rank=7"), true);
  assert.equal(isNavigation("#view=memory&rank=0", "#view=memory&rank=1"), true);
  assert.equal(isNavigation("#view=memory&rank=0", "#view=memory&rank=0&sel=12"), true);
  assert.equal(isNavigation("#view=memory&rank=0&sel=12", "#view=memory&rank=0&sel=12&t0=5&t1=9"), false);
  assert.equal(isNavigation("#view=operators&rank=0", "#view=operators&rank=0&sort=calls&dir=1"), false);
  assert.equal(isNavigation("", "#view=memory&rank=0"), true);
});

test("the rank picker goes by rank number, not by file order", () => {
  // the files of a 16-rank job as a folder lists them: rank0, rank1, rank10 ... rank15, rank2 ...
  const files = [0, 1, 10, 11, 12, 13, 14, 15, 2, 3, 4, 5, 6, 7, 8, 9].map((rank) => ({ rank }));
  assert.deepEqual(rankOrder(files).map((k) => files[k].rank), [...Array(16).keys()]);
  // no own numbers (or repeats): the input's order
  assert.deepEqual(rankOrder([{ rank: -1 }, { rank: -1 }, { rank: -1 }]), [0, 1, 2]);
  assert.deepEqual(rankOrder([{ rank: 3 }, { rank: 3 }]), [0, 1]);
});

test("snapshots and memory timelines hide the time views, the keys keep their numbers", () => {
  const record = { memory_record: true, memory_first: true }, trace = { memory_record: false, memory_first: false };
  assert.equal(memoryOnly([{ format: "torch-snapshot", caps: { ...record, allocator_state: true } }]), true);
  assert.equal(memoryOnly([{ format: "torch-memory-timeline", caps: record }, { format: "torch-snapshot", caps: record }]), true);
  assert.equal(memoryOnly([{ format: "kineto", caps: trace }]), false);
  assert.equal(memoryOnly([{ format: "torch-snapshot", caps: record }, { format: "kineto", caps: trace }]), false);
  assert.equal(memoryOnly([{ format: "torch-snapshot", caps: record, trace: {} }]), false); // a snapshot with a trace
  assert.equal(memoryOnly([{ format: "torch-snapshot" }]), false); // the caps decide, not the name
  assert.equal(memoryOnly([{ format: "" }]), false);             // a served rank not loaded yet
  assert.equal(memoryOnly([]), false);
  assert.deepEqual(TIME_VIEWS, ["overview", "operators", "kernels", "trace", "modules"]);
  assert.equal(TAB_VIEWS.find((t) => t.id === "memory").key, "5");
});

test("the Memory view's address: window, grouping, mode, colouring", () => {
  assert.deepEqual(memStateOf({ t0: "1000", t1: "250000", group: "stream", mode: "stacked", colour: "category" }),
    { t0: 1000, t1: 250000, group: "stream", mode: "stacked", colour: "category" });
  assert.deepEqual(memStateOf({}), { t0: null, t1: null, group: null, mode: null, colour: null });
  assert.deepEqual(memStateOf({ t0: "x", t1: "" }).t0, null);
});

test("accelerators come before the cpu; the default device is the accelerator with the highest peak", () => {
  assert.deepEqual(deviceOrder(["cpu", "cuda:0", "cuda:1"]), [1, 2, 0]);
  assert.deepEqual(deviceOrder(["npu:0", "cpu"]), [0, 1]);
  assert.equal(defaultDevice([{ id: "cpu", peak: 9e9 }, { id: "cuda:0", peak: 1e9 }, { id: "cuda:1", peak: 3e9 }]), 2);
  assert.equal(defaultDevice([{ id: "cpu", peak: 5 }]), 0);
  assert.equal(defaultDevice([{ id: "cpu", peak: 50 }, { id: "cuda:0", peak: null }]), 0);
  // `diff rank0 rank15` of gen_trace's job: cpu listed first, a flat 48 MiB; cuda:0 vs cuda:7 the one to show
  assert.equal(defaultCompareDevice([
    { id: "cpu", base_id: "cpu", new_id: "cpu", peak_allocated_bytes: { base: 50331648, new: 50331648 } },
    { id: "cuda:0", base_id: "cuda:0", new_id: "cuda:7", peak_allocated_bytes: { base: 4979679744, new: 5919203840 } }]), 1);
});

test("max in view: the value held inside the window, not the point after it", () => {
  const t = [0, 100, 200, 300], v = [5, 7, 339, 1];
  assert.equal(stepMaxIn(t, v, 50, 200), 7);      // 339 starts at 200: after the window
  assert.equal(stepMaxIn(t, v, 50, 201), 339);
  assert.equal(stepMaxIn(t, v, 120, 180), 7);     // held from 100 into the window
  assert.equal(stepMaxIn(t, v, 350, 400), 1);     // the last point holds on
  assert.equal(stepMaxIn([], [], 0, 1), 0);
});

test("Compare: a verdict by time beside HTA's by calls", () => {
  // the row: +33.8 ms, +144 %, the same calls: unchanged by calls, increased by time
  assert.equal(timeVerdict({ base_calls: 10, new_calls: 10, base_us: 23472, new_us: 57272 }), "increased");
  assert.equal(timeVerdict({ base_calls: 10, new_calls: 10, base_us: 1000, new_us: 1040 }), "unchanged");
  assert.equal(timeVerdict({ base_calls: 10, new_calls: 12, base_us: 1000, new_us: 900 }), "decreased");
  assert.equal(timeVerdict({ base_calls: 0, new_calls: 3, base_us: 0, new_us: 12 }), "added");
  assert.equal(timeVerdict({ base_calls: 3, new_calls: 0, base_us: 12, new_us: 0 }), "deleted");
});

test("an outlier opens where its figure is: a straggler in the Trace, a memory skew in Memory", () => {
  assert.equal(outlierView({ metric: "compute_time_us", category: "straggler" }), "trace");
  assert.equal(outlierView({ metric: "peak_allocated_bytes", category: "memory skew" }), "memory");
  assert.equal(outlierView({ metric: "oom_events", category: "out of memory" }), "memory");
});

test("the search highlight is none of the critical path's colours", () => {
  for (const c of Object.values(SEARCH_COLOUR)) assert.ok(!CP_COLOURS.map((x) => x.toLowerCase()).includes(c.toLowerCase()), c);
});

test("the step bars are drawn at the width they are shown at (labels unscaled)", () => {
  const steps = Array.from({ length: 30 }, (_, k) => ({ name: "ProfilerStep#" + k, total_ns: 1e6, cpu_ns: 1e6 }));
  const svg = ovStepBars(steps, 420);
  assert.match(svg, /viewBox="0 0 420 250" width="420"/);
  const labels = (svg.match(/text-anchor="middle" class="lab">#\d+</g) || []).length;
  assert.ok(labels > 0 && labels <= Math.floor((420 - 64) / 44), String(labels)); // no closer than 44 px
});
