// The allocator state through a snapshot's trace (segmodel.js).
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { buildModel, stateAt, stateStats, segmentLives, parsePyRepr, allocatedSeries, EV, stateColumns, reservedByState, bandRaster } from "../src/segmodel.js";

// One segment 0x1000 of 1000 bytes; events: alloc A(0x1000,100), alloc B(0x1100,200),
// free_req A, free A, alloc C(0x1000,50), segment_alloc 0x9000 (500), alloc D in it.
// At the end: B, C, D live; the second segment live.
function sv() {
  const E = [[EV.ALLOC, 0x1000, 100], [EV.ALLOC, 0x1100, 200], [EV.FREE_REQ, 0x1000, 100], [EV.FREE, 0x1000, 100],
    [EV.ALLOC, 0x1000, 50], [EV.SEG_ALLOC, 0x9000, 500], [EV.ALLOC, 0x9000, 64]];
  return {
    settings: "{'max_split_size': -1, 'roundup_power2_divisions': {'1': 0}, 'expandable_segments': False}",
    segments: [[0x1000, 1000, "0", "(0, 0)", "large", 0, [[0x1000, 50, 0, 0], [0x1032, 206, 2, 0], [0x1100, 200, 0, 0], [0x11c8, 544, 2, 0]]],
      [0x9000, 500, "0", "(1, 2)", "large", 0, [[0x9000, 64, 0, 0], [0x9040, 436, 2, 0]]]],
    events: { t: E.map((e, i) => i * 10), k: E.map((e) => e[0]), a: E.map((e) => e[1]), s: E.map((e) => e[2]), st: E.map(() => 0), str: E.map(() => 0) },
    streams: ["0"],
  };
}

test("the state walks back from the final segments and forward to any event", () => {
  const m = buildModel(sv());
  const s0 = stateAt(m, 0);
  assert.deepEqual([...s0.keys()], [0x1000]);                  // the second segment comes at event 5
  assert.equal(s0.get(0x1000).blocks.size, 0);
  const s3 = stateAt(m, 3);                                    // after free_requested A
  assert.equal(s3.get(0x1000).blocks.get(0x1000).state, 1);    // pending free
  const s4 = stateAt(m, 4);                                    // after free A: a ghost, not reused yet
  assert.ok(!s4.get(0x1000).blocks.has(0x1000) && s4.get(0x1000).ghosts.has(0x1000));
  const s5 = stateAt(m, 5);                                    // C reuses it: the ghost goes
  assert.equal(s5.get(0x1000).ghosts.size, 0);
  const end = stateAt(m, m.n);
  assert.deepEqual([...end.keys()].sort((x, y) => x - y), [0x1000, 0x9000]);
  const st = stateStats(end);
  assert.equal(st.reserved, 1500); assert.equal(st.allocated, 50 + 200 + 64); assert.equal(st.pending, 0);
  const lives = segmentLives(m);
  assert.deepEqual(lives.get(0x1000), [[0, m.n + 1, 1000]]);
  assert.deepEqual(lives.get(0x9000), [[6, m.n + 1, 500]]);
  assert.equal(m.slots.find((x) => x.addr === 0x9000).pool, "(1, 2)");
});

test("the segment timeline: a segment's size is its own, not its address's largest; columns on the clock", () => {
  // 0x9000 reserved with 800 bytes, freed, then reserved again with 500 (the snapshot's final segment)
  const base = sv(), E = [[EV.SEG_ALLOC, 0x9000, 800], [EV.SEG_FREE, 0x9000, 800], [EV.SEG_ALLOC, 0x9000, 500], [EV.ALLOC, 0x9000, 64]];
  const m = buildModel({ ...base, events: { t: [0, 100, 200, 1000], k: E.map((e) => e[0]), a: E.map((e) => e[1]), s: E.map((e) => e[2]), st: E.map(() => 0), str: E.map(() => 0) } });
  const lives = segmentLives(m);
  assert.deepEqual(lives.get(0x9000), [[1, 2, 800], [3, m.n + 1, 500]]);
  const resv = reservedByState(lives, m.n);
  // the reserved bytes of every state are the replayed state's
  for (let k = 0; k <= m.n; k++) assert.equal(resv[k], stateStats(stateAt(m, k)).reserved, "state " + k);
  assert.deepEqual(Array.from(resv), [1000, 1800, 1000, 1500, 1500]);
  // 10 columns over 0..1000 ns: the state at each column's end (events at 0, 100, 200, 1000)
  assert.deepEqual(Array.from(stateColumns([0, 100, 200, 1000], 4, 0, 1000, 10)), [2, 3, 3, 3, 3, 3, 3, 3, 3, 4]);
  // no times: the events spread over the columns
  assert.deepEqual(Array.from(stateColumns([0, 0, 0, 0], 4, 0, 0, 5)), [0, 1, 2, 3, 4]);
  // the bands as pixels: 5 columns, 10 rows, 2000 bytes at the top; the first segment (1000 B) the
  // bottom half wherever it lives, the second one (800, then 500 B) over it where it lives
  const kcol = Uint32Array.from([0, 1, 2, 3, 4]), px = bandRaster(m.slots, lives, kcol, 10, 2000, (j) => j + 1);
  const col = (c) => Array.from({ length: 10 }, (_, y) => px[y * 5 + c]).join("");
  assert.equal(col(0), "0000011111");   // state 0: 1000 B
  assert.equal(col(1), "0222211111");   // state 1: + 800 B, 4 rows of 200 B
  assert.equal(col(2), "0000011111");   // state 2: freed
  assert.equal(col(3), "0022211111");   // state 3: + 500 B, 1000-1500 B: rows 5 down to 10 - round(7.5) = 2
});

test("allocated memory, and with private pools counted whole", () => {
  const m = buildModel(sv());
  const { active, withPrivate } = allocatedSeries(m, (pool) => pool && pool !== "(0, 0)");
  assert.deepEqual(Array.from(active), [0, 100, 300, 300, 200, 250, 250, 314]);
  // the segment at 0x9000 is in pool (1, 2): from its allocation on, its 500 bytes count whole
  assert.deepEqual(Array.from(withPrivate), [0, 100, 300, 300, 200, 250, 750, 750]);
});

test("the allocator settings dict, as Python writes it", () => {
  const v = parsePyRepr(sv().settings);
  assert.deepEqual(v.dict.map((x) => x[0]), ["max_split_size", "roundup_power2_divisions", "expandable_segments"]);
  assert.equal(v.dict[0][1], -1);
  assert.deepEqual(v.dict[1][1].dict, [["1", 0]]);
  assert.equal(v.dict[2][1], false);
  assert.equal(parsePyRepr("{'a': (0, 0), 'b': None, 'c': 'x'}").dict[0][1].length, 2);
});

test("the real snapshot: the replayed end state is the final segments", () => {
  const f = new URL("../../../shared/data/snapshot/cs336_memory_ctx256_fullstep_.pickle", import.meta.url);
  const bin = new URL("../../build/memlens", import.meta.url);
  if (!fs.existsSync(f) || !fs.existsSync(bin)) return;
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "segmodel-")), "r.html");
  execFileSync(bin.pathname, ["report", f.pathname, "-o", out]);
  const html = fs.readFileSync(out, "utf8");
  fs.rmSync(path.dirname(out), { recursive: true });
  const meta = JSON.parse(/<script type="application\/json" id="ml-meta">([\s\S]*?)<\/script>/.exec(html)[1].replace(/<\\\//g, "</"));
  const d = meta.ranks[0].devices[0], m = buildModel(d.segview);
  const st = stateStats(stateAt(m, m.n));
  assert.equal(st.segments, 1021);
  assert.ok(Math.abs(st.reserved - 56.83 * 2 ** 30) < 0.01 * 2 ** 30, String(st.reserved));
  const segs = d.segview.segments;
  assert.equal(st.reserved, segs.reduce((a, g) => a + g[1], 0));
  // the same allocated blocks (the trace's sizes are the requested ones: within 1%)
  const fin = segs.flatMap((g) => g[6].filter((b) => b[2] === 0).map((b) => b[0])).sort((x, y) => x - y);
  const got = [...stateAt(m, m.n).values()].flatMap((g) => [...g.blocks.values()].filter((b) => b.state === 0).map((b) => b.addr)).sort((x, y) => x - y);
  assert.deepEqual(got, fin);
  const want = segs.reduce((a, g) => a + g[6].filter((b) => b[2] === 0).reduce((x, b) => x + b[1], 0), 0);
  assert.ok(Math.abs(st.allocated - want) < 0.01 * want, `${st.allocated} vs ${want}`);
  // the trace begins with the segments of the step before freed: fewer segments a thousand events in
  assert.ok(stateStats(stateAt(m, 1000)).segments < st.segments);
});

test("a history of the last events only: the same blocks from where it begins", () => {
  const f = new URL("../../../shared/data/snapshot/cs336_memory_ctx256_fullstep_.pickle", import.meta.url);
  const bin = new URL("../../build/memlens", import.meta.url);
  if (!fs.existsSync(f) || !fs.existsSync(bin)) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "segmodel-"));
  const segview = (args) => {
    const out = path.join(dir, "r.html");
    execFileSync(bin.pathname, ["report", f.pathname, "-o", out, ...args]);
    const html = fs.readFileSync(out, "utf8");
    return JSON.parse(/<script type="application\/json" id="ml-meta">([\s\S]*?)<\/script>/.exec(html)[1].replace(/<\\\//g, "</"))
      .ranks[0].devices[0].segview;
  };
  const all = segview([]), last = segview(["--max-history", "5000"]);
  fs.rmSync(dir, { recursive: true });
  const n = all.events.k.length;
  assert.ok(n > 5000 && n < 100000, String(n));           // (under the default: every event)
  assert.equal(all.events_total, n); assert.equal(all.events_from, 0);
  assert.equal(last.events.k.length, 5000); assert.equal(last.events_total, n); assert.equal(last.events_from, n - 5000);
  assert.deepEqual(Array.from(last.events.a), Array.from(all.events.a).slice(n - 5000));
  // The blocks live at each event: the same ones.  (Not always at the same
  // size and state: one that lives across the cut is rebuilt from the final
  // segments and its free, as in a trace PyTorch recorded with max_entries
  // 5000, where the full history has its alloc's size and free request.)
  const blocks = (s) => [...s.values()].flatMap((g) => [...g.blocks.keys()]).sort((x, y) => x - y);
  const mf = buildModel(all), ml = buildModel(last);
  for (const k of [0, 1, 777, 2500, 4999, 5000]) {
    const a = stateAt(mf, n - 5000 + k), b = stateAt(ml, k);
    assert.deepEqual([...b.keys()].sort((x, y) => x - y), [...a.keys()].sort((x, y) => x - y), `segments at ${k}`);
    assert.deepEqual(blocks(b), blocks(a), `blocks at ${k}`);
  }
});
