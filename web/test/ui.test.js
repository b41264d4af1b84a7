// The page's pure helpers: formatting, the zoom window, frame hiding, the
// peak label's place, lane order, the server's narrow-allocation counts, the
// stacked raster, exports.
import test from "node:test";
import assert from "node:assert/strict";
import { fmtBytes, fmtDur, byteAxis, plural, shortOpName, middleEllipsis, makeClock, laneLabel } from "../src/format.js";
import { clampWindow } from "../src/zoom.js";
import { visibleFrames, isNoiseFrame, stackGroups, stackHtml, shortFrameName } from "../src/frames.js";
import { placePeakLabel, opCell, CurveView } from "../src/views.js";
import { layoutLanes, placeLanes, visibleBars, stackRaster, stackAt, freeOrderOf } from "../src/lanes.js";
import { exportAllocs, sortAllocs } from "../src/table.js";
import { clusterValueText, clusterScale } from "../src/cluster.js";

test("fmtBytes moves to the next unit from 1000 of one, three significant digits", () => {
  assert.equal(fmtBytes(999), "999 B");
  assert.equal(fmtBytes(1000), "0.98 KiB");
  assert.equal(fmtBytes(1000 * 2 ** 20), "0.98 GiB");
  assert.equal(fmtBytes(999 * 2 ** 20), "999 MiB");
  assert.equal(fmtBytes(99.96 * 2 ** 20), "100 MiB");
  assert.equal(fmtBytes(9.996 * 2 ** 30), "10.0 GiB");
  assert.equal(fmtBytes(-1536), "−1.50 KiB");
});

test("fmtDur: three significant digits, the next unit once a figure rounds to 1000 of one", () => {
  assert.equal(fmtDur(999.4), "999 ns");
  assert.equal(fmtDur(999.6), "1.00 µs");
  assert.equal(fmtDur(1234), "1.23 µs");
  assert.equal(fmtDur(999.96e3), "1.00 ms");
  assert.equal(fmtDur(999.97e6), "1.00 s");
  assert.equal(fmtDur(-2.5e6), "-2.50 ms");
  assert.equal(fmtDur(90e9), "90.0 s");
  assert.equal(fmtDur(900e9), "15.0 min");
});

test("the Cluster view writes a duration as the rest of the page does", () => {
  assert.equal(clusterValueText("ns", 58000391), "58.0 ms");
  assert.equal(clusterValueText("ns", 58000391), fmtDur(58000391));
  assert.equal(clusterValueText("ns", 999.97e6), "1.00 s");
  assert.equal(clusterValueText("ns", 412), "412 ns");
  assert.equal(clusterValueText("bytes", 1.5 * 2 ** 30), "1.50 GiB");
  assert.equal(clusterValueText("ns", -1), "–");
  assert.equal(clusterValueText("ns", null), "–");
});

test("the Cluster view's colours span at least ±1% of the median, else the values", () => {
  // 100 ± 0.01: the ramp runs 99 to 101, the values sit in its middle
  assert.deepEqual(clusterScale(new Float64Array([100, 100.01, -1, 99.99])), { lo: 99.99, hi: 100.01, med: 100, from: 99, to: 101 });
  // stragglers at 150 and 200: the top is the highest value, the bottom the lowest (under the floor, 99.495)
  assert.deepEqual(clusterScale(new Float64Array([100, 101, 150, 99, 100, 200])), { lo: 99, hi: 200, med: 100.5, from: 99, to: 200 });
  const w = clusterScale(new Float64Array([10, 1000]));
  assert.deepEqual([w.from, w.to], [10, 1000]);
  assert.deepEqual(clusterScale(new Float64Array([-1, -1])), { lo: null, hi: null, med: null, from: 0, to: 1 });
  assert.deepEqual(clusterScale(null).med, null);
});

test("byte axes: one unit, round steps of it, about 40 px apart", () => {
  const a = byteAxis(1300 * 2 ** 20, 240);
  assert.equal(a.unit, "GiB");
  assert.deepEqual(a.ticks.map(a.label), ["0", "0.25 GiB", "0.50 GiB", "0.75 GiB", "1.00 GiB", "1.25 GiB"]);
  const b = byteAxis(7.3 * 2 ** 30, 240);
  assert.deepEqual(b.ticks.map(b.label), ["0", "2 GiB", "4 GiB", "6 GiB"]);
  const c = byteAxis(900, 200);
  assert.deepEqual(c.ticks.map(c.label), ["0", "200 B", "400 B", "600 B", "800 B"]);
});

test("plurals, short operator names", () => {
  assert.equal(plural(1, "band"), "1 band");
  assert.equal(plural(0, "band"), "0 bands");
  assert.equal(plural(1234, "allocation"), "1,234 allocations");
  assert.equal(shortOpName("autograd::engine::evaluate_function: MmBackward0"), "MmBackward0 (backward)");
  assert.equal(shortOpName("forward (/home/u/cs336_basics/transformer.py:39)"), "forward (transformer.py:39)");
  assert.equal(shortOpName("aten::mm"), "aten::mm");
  const w = (s) => s.length;
  assert.equal(middleEllipsis("short", 10, w), "short");
  const m = middleEllipsis("autograd::engine::evaluate_function: X", 12, w);
  assert.equal(m.length, 12);
  assert.ok(m.startsWith("autog") && m.endsWith("n: X") && m.includes("…"), m);
});

test("a pan at the edge shifts the window and keeps its span", () => {
  assert.deepEqual(clampWindow(-30, 70, 0, 1000), [0, 100]);
  assert.deepEqual(clampWindow(950, 1050, 0, 1000), [900, 1000]);
  assert.deepEqual(clampWindow(200, 300, 0, 1000), [200, 300]);
  assert.deepEqual(clampWindow(-500, 2000, 0, 1000), [0, 1000]);   // wider than everything
  assert.deepEqual(clampWindow(10, 20, 0, 1000), [0, 100]);           // widened to 100 ns, then shifted in
  assert.deepEqual(clampWindow(500, 510, 0, 1000), [455, 555]);    // at least 100 ns
  assert.equal(clampWindow(5, 5, 0, 1000), null);
});

test("the detail panel hides capture, allocator and interpreter frames, as MemoryViz", () => {
  const stack = [
    { name: "torch::unwind::unwind()", file: "" }, { name: "torch::CapturedTraceback::gather(bool, bool, bool)", file: "" },
    { name: "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char)", file: "CUDACachingAllocator.cpp" },
    { name: "at::native::empty_cuda(c10::ArrayRef<long>)", file: "" },
    { name: "at::(anonymous namespace)::wrapper_CUDA_memory_format_empty", file: "RegisterCUDA.cpp" },
    { name: "_PyEval_EvalFrameDefault", file: "" }, { name: "method_vectorcall.llvm.1", file: "" },
    { name: "forward", file: "/home/u/transformer.py", line: 208 }, { name: "__libc_start_main", file: "" },
  ];
  const v = visibleFrames(stack, false);
  assert.deepEqual(v.frames.map((f) => f.name), ["at::native::empty_cuda(c10::ArrayRef<long>)", "forward"]);
  assert.equal(v.hidden, 7);
  assert.equal(visibleFrames(stack, true).frames.length, 9);
  assert.equal(visibleFrames([stack[0]], false).frames.length, 1); // noise only: shown whole
  assert.ok(isNoiseFrame({ name: "x", file: "/pytorch/aten/src/ATen/core/boxing/impl.h" }));
});

test("a stack: Python frames lead, the C++ frames each ran folded under it", () => {
  const F = (name, file, line = 1) => ({ name, file, line });
  const stack = [ // innermost first, as a snapshot records it (allocator frames already hidden)
    F("at::detail::empty_cuda(c10::ArrayRef<long>)", "EmptyTensor.cpp"),
    F("at::_ops::bmm::call(at::Tensor const&, at::Tensor const&)", "Operators_0.cpp"),
    F("torch::autograd::THPVariable_einsum(_object*, _object*, _object*)", "python_torch_functions_0.cpp"),
    F("einsum", "/env/site-packages/torch/functional.py", 407),
    F("forward", "/home/u/cs336_basics/transformer.py", 22),
    F("_call_impl", "/env/site-packages/torch/nn/modules/module.py", 1750),
    F("main", "??", 0),
  ];
  const g = stackGroups(stack);
  assert.deepEqual(g.map((x) => [x.py && x.py.name, x.native.length]), [["einsum", 3], ["forward", 0], ["_call_impl", 0], [null, 1]]);
  const h = stackHtml(stack, (x) => x);
  // the first line is the innermost Python frame; its 3 C++ frames folded after it
  assert.match(h, /^<div class="fr-py">einsum <span class="muted">\/env\/site-packages\/torch\/functional.py:407<\/span><\/div><details class="fr-fold"><summary class="muted">3 C\+\+ frames inside it<\/summary><div class="fr-cpp">at::detail::empty_cuda/);
  assert.ok(h.indexOf("forward") < h.indexOf("_call_impl") && h.indexOf("_call_impl") < h.indexOf("1 C++ frame outside the Python frames"));
  // a tooltip: Python frames only up to maxPy, C++ frames counted
  const tip = stackHtml(stack, (x) => x, { maxPy: 2, fold: false });
  assert.ok(!/details|empty_cuda|_call_impl/.test(tip), tip);
  assert.match(tip, /3 C\+\+ frames inside it<\/div><div class="fr-py">forward .*… 1 more Python frame<\/div>$/);
  // no Python frame at all (a backward op's stack): the C++ frames as they are, nothing folded
  const cpp = stackHtml(stack.slice(0, 3), (x) => x);
  assert.equal((cpp.match(/class="fr-cpp"/g) || []).length, 3);
  assert.ok(!/details/.test(cpp));
  // ... in a tooltip: the first maxPy, the rest counted; names without their arguments
  const cppTip = stackHtml(stack.slice(0, 3), (x) => x, { maxPy: 2, fold: false, nameText: shortFrameName });
  assert.match(cppTip, /^<div class="fr-cpp">at::detail::empty_cuda\(…\) .*<div class="fr-cpp">at::_ops::bmm::call\(…\) .*<div class="muted">… 1 more C\+\+ frame<\/div>$/);
  assert.equal(shortFrameName("void at::meta::f<at::S>(at::S&, std::optional<at::Tensor> const&) [clone .constprop.0]"), "void at::meta::f<at::S>(…)");
  assert.equal(shortFrameName("forward"), "forward");
});

test("the peak label stays inside the plot: beside the marker, flipped at the right edge, below at the top", () => {
  const box = { left: 100, top: 10, width: 500, height: 200 };
  assert.deepEqual(placePeakLabel(300, 100, 80, 18, box, 7), { x: 307, y: 75 });
  assert.deepEqual(placePeakLabel(580, 100, 80, 18, box, 7), { x: 493, y: 75 });      // right edge: to the left
  assert.deepEqual(placePeakLabel(102, 100, 80, 18, box, 7), { x: 109, y: 75 });
  assert.deepEqual(placePeakLabel(300, 15, 80, 18, box, 7), { x: 307, y: 22 });       // top: below the point
  const wide = placePeakLabel(150, 100, 480, 18, box, 7);                             // wider than either side
  assert.ok(wide.x >= 101 && wide.x + 480 <= 600);
});

test("operator stats: unknown calls show as a dash", () => {
  assert.equal(opCell(null, 1), "–");
  assert.equal(opCell(1720, 1), "1,720");
  assert.equal(opCell(2 ** 30, 3), "1.00 GiB");
});

test("group-by choices and curve styles: per component a colour, per kind a dash; at most 16 curves", () => {
  const c = (group, kind, of) => ({ group, kind, of, label: of + " " + kind });
  const dev = { curves: [c("overall", "allocated"), c("component", "allocated", "PTA"), c("component", "reserved", "PTA"),
    c("component", "allocated", "GE"), ...Array.from({ length: 30 }, (_, k) => c("stream", "reserved", "s" + k))], op_curves: [] };
  assert.deepEqual(CurveView.groupsOf(dev), { overall: true, stream: true, component: true, op: false });
  const shown = CurveView.curvesFor(dev, "component");
  assert.equal(shown.length, 3);
  const st = CurveView.styles(shown, "component");
  assert.equal(st[0].colour, st[1].colour);
  assert.notEqual(st[0].colour, st[2].colour);
  assert.equal(st[0].dash, undefined);
  assert.deepEqual(st[1].dash, [6, 3]);
  assert.equal(CurveView.curvesFor(dev, "stream").length, 16);
  assert.equal(CurveView.curvesFor(dev, "op")[0].c.group, "overall"); // none: the primary curves
});

test("group by stream (Ascend): each stream's allocated, reserved and activated, and APP reserved kept", () => {
  const c = (group, kind, of, label) => ({ group, kind, of, label });
  const dev = { curves: [c("overall", "allocated", undefined, "Operator Allocated"), c("overall", "reserved", undefined, "Operator Reserved"),
    c("overall", "active", undefined, "Operator Activated"), c("overall", "app reserved", undefined, "APP Reserved"),
    c("stream", "allocated", "897357296", "Allocated of 897357296"), c("stream", "reserved", "897357296", "Reserved of 897357296"),
    c("stream", "active", "897357296", "Activated of 897357296"), c("stream", "allocated", "904703504", "Allocated of 904703504")], op_curves: [] };
  const shown = CurveView.curvesFor(dev, "stream");
  assert.deepEqual(shown.map((x) => x.c.label), ["Allocated of 897357296", "Reserved of 897357296", "Activated of 897357296",
    "Allocated of 904703504", "APP Reserved"]);
  const st = CurveView.styles(shown, "stream");
  assert.equal(st[0].colour, st[2].colour);            // one stream, one colour; its kinds dashed apart
  assert.deepEqual([st[0].dash, st[1].dash, st[2].dash], [undefined, [6, 3], [2, 2]]);
  assert.notEqual(st[3].colour, st[0].colour);
  assert.deepEqual(st[4].dash, [8, 3, 2, 3]);         // APP reserved: its own dash, as in the overall view
});

function allocs(rows, extra = {}) { // rows: [ta, tf, size, group]
  const n = rows.length, col = (k, T = Float64Array) => T.from(rows.map((r) => r[k]));
  return { n, ta: col(0), tf: col(1), size: col(2), group: col(3, Uint32Array), ...extra };
}

test("lanes follow every allocation's bytes per group when given, whatever the window holds", () => {
  const a = allocs([[0, 10, 100, 1]], { groupBytes: [0, 100, 5000], groupCount: [0, 1, 3] });
  const L = layoutLanes(a, ["before", "small", "big"]);
  assert.deepEqual(L.lanes.map((l) => l.label), ["big", "small"]);
  assert.equal(L.laneOfGroup[1], 1);
});

test("narrow allocations counted by the server are shaded in their lanes", () => {
  const a = allocs([[0, 1000, 8, 1]], { groupBytes: [0, 8, 64], groupCount: [0, 1, 5] });
  const L = placeLanes(layoutLanes(a, ["b", "g1", "g2"]));
  a.small = { x: Uint32Array.from([3, 3, 7]), group: Uint32Array.from([2, 1, 2]), n: Uint32Array.from([4, 2, 1]), W: 10, t0: 0, t1: 1000 };
  const v = visibleBars(a, L, 0, 1000, 10);
  assert.equal(v.nSmall, 7);
  assert.equal(v.small[L.laneOfGroup[2] * 10 + 3], 4);
  assert.equal(v.small[L.laneOfGroup[1] * 10 + 3], 2);
  assert.equal(v.small[L.laneOfGroup[2] * 10 + 7], 1);
  assert.deepEqual(Array.from(v.bars), [0]);
  // counts for another window are not used
  const w = visibleBars(a, L, 0, 500, 10);
  assert.equal(w.nSmall, 0);
});

test("stacked raster: every allocation colours the rows it covers, thin ones blended in proportion", () => {
  // 10 rows for 100 bytes: allocation 0 fills rows 5..9 (50 B), allocations 1 and 2 (4 B each) share row 4
  // with 2 B of nothing above them; all live at both columns' instants.
  const a = allocs([[0, 1000, 50, 0], [0, 1000, 4, 0], [0, 1000, 4, 0]]);
  const pal = [[200, 0, 0], [0, 0, 100]];
  const r = stackRaster(a, 0, 100, 2, 10, 100, freeOrderOf(a), (i) => (i === 0 ? 0 : 1), pal, 10);
  const px = (row, x) => Array.from(r.img.slice((row * 2 + x) * 4, (row * 2 + x) * 4 + 4));
  assert.deepEqual(px(9, 0), [200, 0, 0, 255]);
  assert.deepEqual(px(5, 1), [200, 0, 0, 255]);
  assert.deepEqual(px(4, 0), [0, 0, 100, Math.round(0.8 * 255)]);  // 8 of the row's 10 bytes
  assert.equal(px(3, 0)[3], 0);
  assert.deepEqual(Array.from(r.total), [58, 58]);
  assert.equal(r.drawn, 3);
  assert.deepEqual(r.rects.map((x) => [x.i, x.lo, x.hi]), [[0, 0, 50]]);   // only the >= minBytes one to pick
  assert.equal(stackAt(a, 50, 0, 53), 1);
  assert.equal(stackAt(a, 50, 0, 55), 2);
  assert.equal(stackAt(a, 50, 0, 70), -1);
  // mixing: two colours in one row average by the bytes each holds
  const b = allocs([[0, 1000, 3, 0], [0, 1000, 1, 0]]);
  const m = stackRaster(b, 0, 100, 1, 1, 10, freeOrderOf(b), (i) => i, [[100, 0, 0], [0, 0, 200]], 1e9);
  assert.deepEqual(Array.from(m.img), [75, 0, 50, Math.round(0.4 * 255)]);
});

test("stacked raster: a freed allocation lets the ones above it drop; columns only recomputed on change", () => {
  // columns' instants 25, 50, 75, 100; 4 rows of 25 bytes; a free at t counts at t
  const a = allocs([[0, 50, 50, 0], [10, 100, 50, 0]]);
  const r = stackRaster(a, 0, 100, 4, 4, 100, freeOrderOf(a), (i) => i, [[10, 10, 10], [90, 90, 90]], 1);
  const colour = (row, x) => (r.img[(row * 4 + x) * 4 + 3] ? r.img[(row * 4 + x) * 4] : null);
  assert.deepEqual([0, 1, 2, 3].map((row) => colour(row, 0)), [90, 90, 10, 10]);     // 1 on 0
  assert.deepEqual([0, 1, 2, 3].map((row) => colour(row, 1)), [null, null, 90, 90]); // 0 freed: 1 drops
  assert.deepEqual([0, 1, 2, 3].map((row) => colour(row, 2)), [null, null, 90, 90]); // unchanged: copied
  assert.deepEqual([0, 1, 2, 3].map((row) => colour(row, 3)), [null, null, null, null]);
  assert.deepEqual(Array.from(r.total), [100, 50, 50, 0]);
  assert.deepEqual(r.rects.map((x) => [x.i, x.x0, x.x1, x.lo]), [[0, 0, 1, 0], [1, 0, 1, 50], [1, 1, 3, 0]]);
});

test("exports: every row, exact values, the same text as the server's /api/export", () => {
  const a = {
    n: 3, ta: [0, 100, 200], tf: [5000, 150, 250], size: [1048576, 512, 64], group: [0, 2, 1], op: [0, 1, 2],
    stream: [0, 3, 0], addrHi: [0, 0, 1], addrLo: [0, 4096, 16], flags: [1, 0, 2], cat: [8, 4, 0], reason: [18, 3, 0],
    groups: ["(allocated before trace)", "(no operator)", "aten::linear"], strings: ["", "aten::mm", 'a,"b"', "897357296"],
    categories: [{ name: "Unknown" }, {}, {}, {}, { name: "TEMPORARY" }, {}, {}, {}, { name: "PARAMETER_OR_STATE" }],
    reasons: Object.assign([], { 0: "not categorised", 3: "freed inside the top-level op that allocated it", 18: "allocated before the trace and alive to its end" }),
  };
  const clock = makeClock(1669783687384669000n, "abs");
  const csv = exportAllocs(a, sortAllocs(a, [0, 1, 2], "size", -1), clock.exact, ",");
  assert.equal(csv,
    "operator,allocating op,size_bytes,allocated,released,duration_ns,category,stream,address,reason\n" +
    "(allocated before trace),,1048576,before trace,2022-11-30 04:48:07.384674000,5000,PARAMETER_OR_STATE,,,allocated before the trace and alive to its end\n" +
    "aten::linear,aten::mm,512,2022-11-30 04:48:07.384669100,2022-11-30 04:48:07.384669150,50,TEMPORARY,897357296,0x1000,freed inside the top-level op that allocated it\n" +
    '(no operator),"a,""b""",64,2022-11-30 04:48:07.384669200,not released,50,Unknown,,0x100000010,not categorised\n');
  assert.equal(exportAllocs(a, [1], makeClock(0n, "rel").exact, "\t").split("\n")[1].split("\t").slice(3, 5).join(" "), "100 150");
});

test("lane labels are cut at name boundaries, the part that tells lanes apart kept whole", () => {
  const px = (t) => t.length * 6; // a monospace measure: 6 px a character
  // fits: as it is
  assert.equal(laneLabel("aten::mm", 120, px), "aten::mm");
  // the file:line kept, the name cut after a whole part of it
  assert.equal(laneLabel("scaled_dot_product_attention (transformer.py:151)", 30 * 6, px), "scaled… (transformer.py:151)");
  assert.equal(laneLabel("scaled_dot_product_attention (transformer.py:151)", 32 * 6, px), "scaled_dot… (transformer.py:151)");
  assert.equal(laneLabel("CompiledFunctionBackward (backward)", 28 * 6, px), "CompiledFunction… (backward)");
  assert.equal(laneLabel("CompiledFunctionBackward (backward)", 20 * 6, px), "Compiled… (backward)");
  // a whole parenthesised label: the op after the colon kept
  assert.equal(laneLabel("(no Python frame: BmmBackward0)", 28 * 6, px), "(no Python…: BmmBackward0)");
  // narrower than "…: op)": the op's last whole parts
  assert.equal(laneLabel("(no Python frame: LinalgVectorNormBackward0)", 24 * 6, px), "(…VectorNormBackward0)");
  assert.equal(laneLabel("(no Python frame: LinalgVectorNormBackward0)", 16 * 6, px), "(…NormBackward0)");
  assert.equal(laneLabel("(no Python frame: LinalgVectorNormBackward0)", 12 * 6, px), "(…Backward0)");
  // no part fits before the kept end: only the end; nothing fits: cut in the middle
  assert.equal(laneLabel("verylongname (transformer.py:151)", 22 * 6, px), "…(transformer.py:151)");
  assert.equal(laneLabel("abcdefghijklmnopqrstuvwxyz", 10 * 6, px), middleEllipsis("abcdefghijklmnopqrstuvwxyz", 60, px));
  // never cut mid-word when a boundary fits
  for (const w of [14, 18, 24, 30, 40]) {
    const t = laneLabel("autograd_engine_evaluate (module.py:1102)", w * 6, px);
    assert.ok(px(t) <= w * 6 || w < 17, t);
    if (t.includes("… (")) assert.match(t, /^(autograd|autograd_engine)… \(module.py:1102\)$/, t);
  }
});
