// Table filtering, sorting, paging and export.
import test from "node:test";
import assert from "node:assert/strict";
import { filterAllocs, sortAllocs, pageOf, filterRows, sortRows, toDelimited, allocValue } from "../src/table.js";
import { fmtBytes, fmtBytesExact, parseBytes, makeClock } from "../src/format.js";

const A = {
  n: 4, ta: [0, 10, 20, 30], tf: [5, 50, 25, 40], size: [1024, 4096, 2 ** 20, 512],
  group: [0, 1, 1, 2], op: [1, 2, 2, 0], stream: [0, 0, 0, 0], addrHi: [0, 0, 0, 0], addrLo: [16, 32, 48, 64],
  groups: ["(allocated before trace)", "aten::linear", "aten::relu"], strings: ["", "aten::empty", "aten::mm"],
};

test("filter by name (operator or allocating op), size range and window", () => {
  assert.deepEqual(Array.from(filterAllocs(A, { text: "LINEAR" })), [1, 2]);
  assert.deepEqual(Array.from(filterAllocs(A, { text: "empty" })), [0]);
  assert.deepEqual(Array.from(filterAllocs(A, { minSize: 1000, maxSize: 5000 })), [0, 1]);
  assert.deepEqual(Array.from(filterAllocs(A, { inWindow: true, t0: 6, t1: 22 })), [1, 2]);
});

test("sort by size, by name, and page", () => {
  assert.deepEqual(Array.from(sortAllocs(A, [0, 1, 2, 3], "size", -1)), [2, 1, 0, 3]);
  assert.deepEqual(Array.from(sortAllocs(A, [0, 1, 2, 3], "group", 1)), [0, 1, 2, 3]);
  // ties (0 and 2 both last 5) reversed with the order, as the server sorts
  assert.deepEqual(Array.from(sortAllocs(A, [0, 1, 2, 3], "dur", -1)), [1, 3, 2, 0]);
  assert.deepEqual(Array.from(sortAllocs(A, [0, 1, 2, 3], "dur", 1)), [0, 2, 3, 1]);
  const p = pageOf(Uint32Array.from([5, 6, 7, 8, 9]), 9, 2);
  assert.deepEqual([Array.from(p.rows), p.page, p.pages], [[9], 2, 3]);
});

test("operator rows filter and sort", () => {
  const rows = [["aten::mm", 3, 30], ["aten::add", 1, 50], ["CompiledFunction", 2, 10]];
  assert.deepEqual(filterRows(rows, "aten").map((r) => r[0]), ["aten::mm", "aten::add"]);
  assert.deepEqual(sortRows(rows, 2, -1).map((r) => r[0]), ["aten::add", "aten::mm", "CompiledFunction"]);
});

test("TSV and CSV keep exact numbers and quote what needs it", () => {
  const rows = [['say "hi", ok', 6629508096], ["tab\there", 1]];
  assert.equal(toDelimited(["name", "bytes"], rows, ","), 'name,bytes\n"say ""hi"", ok",6629508096\ntab\there,1\n');
  assert.equal(toDelimited(["name", "bytes"], rows, "\t"), 'name\tbytes\nsay "hi", ok\t6629508096\ntab here\t1\n');
});

test("bytes in binary units, parsing sizes, wall-clock times", () => {
  assert.equal(fmtBytes(6629508096), "6.17 GiB");
  assert.equal(fmtBytes(512), "512 B");
  assert.equal(fmtBytes(1536), "1.50 KiB");
  assert.equal(fmtBytesExact(6629508096), "6,629,508,096 B");
  assert.equal(parseBytes("1 MiB"), 1048576);
  assert.equal(parseBytes("2g"), 2 * 1024 ** 3);
  assert.ok(Number.isNaN(parseBytes("abc")));
  assert.equal(parseBytes(" "), null);
  assert.equal(fmtBytes(1000 * 1024 * 1024), "0.98 GiB");
  assert.equal(fmtBytes(999 * 1024 * 1024), "999 MiB");
  assert.equal(fmtBytes(1000), "0.98 KiB");
  const c = makeClock(1669783687384669000n, "abs");
  assert.equal(c.fmt(194461000, 6, true), "2022-11-30 04:48:07.579130");
  assert.equal(c.fmt(194461123, 9), "04:48:07.579130123");
  const tk = c.ticks(0, 1e9, 1000, 100);
  assert.equal(tk.step, 1e8);
  assert.ok(tk.ticks.every((t) => (1669783687384669000n + BigInt(t)) % 100000000n === 0n));
  assert.equal(makeClock(0n, "order").fmt(1234), "#1,234");
});

test("category filter and category/reason sorting", () => {
  const a = { n: 4, size: Float64Array.from([1, 2, 3, 4]), ta: Float64Array.from([0, 1, 2, 3]), tf: Float64Array.from([5, 5, 5, 5]),
    group: Uint32Array.from([0, 0, 0, 0]), op: Uint32Array.from([0, 0, 0, 0]), groups: ["g"], strings: [""],
    cat: Uint8Array.from([5, 1, 5, 0]), reason: Uint8Array.from([2, 1, 2, 0]), reasons: ["none", "b reason", "a reason"],
    categories: [{ name: "Unknown" }, { name: "PARAMETER" }, {}, {}, {}, { name: "ACTIVATION" }], categoryOrder: [1, 5, 0] };
  assert.deepEqual(Array.from(filterAllocs(a, { cat: 5 })), [0, 2]);
  assert.deepEqual(Array.from(filterAllocs(a, { cat: -1 })), [0, 1, 2, 3]);
  assert.deepEqual(Array.from(sortAllocs(a, [0, 1, 2, 3], "cat", 1)), [1, 0, 2, 3]); // PyTorch's order, Unknown last
  assert.deepEqual(Array.from(sortAllocs(a, [0, 1, 2, 3], "reason", 1)), [0, 2, 1, 3]); // by the reason's text
  assert.equal(allocValue(a, 0, "cat"), "ACTIVATION");
  assert.equal(allocValue(a, 1, "reason"), "b reason");
});
