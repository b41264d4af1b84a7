// The CUPTI counters table (htakernels.js) makes a column of at most 8 counters,
// those on the most kernels, as perf's text lists them: a trace that gives each
// kernel counter names of its own once made a column per name (issue 33 item 2).
import test from "node:test";
import assert from "node:assert/strict";
import { hkCuptiShown } from "../src/htakernels.js";

test("a few counters: every one, in the trace's order", () => {
  assert.deepEqual(hkCuptiShown({ counters: ["a", "b", "c"], rows: [{ values: { 0: 1, 2: 3 } }] }), [0, 1, 2]);
});

test("14 counters on 4 kernels: the 8 on the most kernels, ties to the first given", () => {
  // counter 0 ("all") on every kernel, 7 ("pair") on two, the others on one each
  const counters = ["all", "k0_a", "k0_b", "k0_c", "k1_a", "k1_b", "k1_c", "pair", "k2_a", "k2_b", "k2_c", "k3_a", "k3_b", "k3_c"];
  const rows = [
    { values: { 0: 1, 1: 0, 2: 1, 3: 2 } },
    { values: { 0: 1, 4: 100, 5: 101, 6: 102 } },
    { values: { 0: 1, 7: 5, 8: 200, 9: 201, 10: 202 } },
    { values: { 0: 1, 7: 5, 11: 300, 12: 301, 13: 302 } },
  ];
  assert.deepEqual(hkCuptiShown({ counters, rows }), [0, 1, 2, 3, 4, 5, 6, 7]);
  // 10,000 names of their own: 8 columns, not 10,000
  const many = { counters: Array.from({ length: 10000 }, (_, k) => "c" + k), rows: Array.from({ length: 200 }, (_, i) => ({
    values: Object.fromEntries(Array.from({ length: 50 }, (_, j) => [i * 50 + j, j])) })) };
  many.rows[199].values[9999] = 1;
  many.rows[0].values[9999] = 1; // on two kernels: first among the picks' order by kernels
  assert.deepEqual(hkCuptiShown(many), [0, 1, 2, 3, 4, 5, 6, 9999]);
});
