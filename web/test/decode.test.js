// Decoding of the report's columns (web/DATA.md).
import test from "node:test";
import assert from "node:assert/strict";
import { deflateSync } from "node:zlib";
import { b64decode, decodeColumn, lowerBound, upperBound } from "../src/decode.js";

const b64 = (buf) => Buffer.from(buf).toString("base64");

test("base64 round trip, with padding and whitespace", () => {
  for (const n of [0, 1, 2, 3, 4, 5, 100]) {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 255);
    assert.deepEqual(b64decode(b64(bytes)), bytes);
  }
  assert.deepEqual(b64decode("QUJD\nRA=="), new TextEncoder().encode("ABCD"));
});

test("i32 delta column with an offset decodes to exact running values", async () => {
  const vals = [4096614400, 4096614912, 4096614400, 6029508096];
  const d = Int32Array.from(vals.map((v, i) => (i ? v - vals[i - 1] : 0)));
  const col = await decodeColumn({ b: 0, dt: "i32", n: 4, d: 1, o: vals[0] }, () => b64(new Uint8Array(d.buffer)));
  assert.deepEqual(Array.from(col), vals);
});

// The planes as report_blob.c writes them: byte k of value i at k * n + i.
const shuffled = (arr) => {
  const raw = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength), w = arr.BYTES_PER_ELEMENT, n = arr.length;
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < n; i++) for (let k = 0; k < w; k++) out[k * n + i] = raw[i * w + k];
  return out;
};

test("byte-shuffled columns of every width decode to their values, deflated or not", async () => {
  const n = 301; // odd: no plane starts aligned
  const cases = [
    ["u16", Uint16Array.from({ length: n }, (_, i) => (i * 263) & 0xffff)],
    ["u32", Uint32Array.from({ length: n }, (_, i) => (i * 2654435761) >>> 0)],
    ["i32", Int32Array.from({ length: n }, (_, i) => (i % 2 ? -1 : 1) * i * 40503)],
    ["f64", Float64Array.from({ length: n }, (_, i) => i * 1e9 + 0.5 + (i % 3 ? 2 ** 52 : 0))],
    ["u8", Uint8Array.from({ length: n }, (_, i) => i & 255)],
  ];
  for (const [dt, v] of cases) {
    const planes = shuffled(v);
    if (dt !== "u8") assert.notDeepEqual(planes, new Uint8Array(v.buffer), dt); // the test shuffles at all
    const plain = await decodeColumn({ b: 0, dt, n, s: 1 }, () => b64(planes));
    const z = await decodeColumn({ b: 0, dt, n, s: 1, z: 1 }, () => b64(deflateSync(Buffer.from(planes))));
    assert.deepEqual(Array.from(plain), Array.from(v), dt);
    assert.deepEqual(Array.from(z), Array.from(v), dt + " deflated");
  }
  // planes all zero left out ("zp"): u32 below 2^16 (high planes), i32 multiples of 256 (low),
  // f64 of small integers (low planes), and a column of zeros (every plane: an empty blob)
  const zcases = [
    ["u32", Uint32Array.from({ length: n }, (_, i) => (i * 263) & 0xffff), 0b1100],
    ["i32", Int32Array.from({ length: n }, (_, i) => (i % 2 ? -256 : 256) * i), 0b0001],
    ["f64", Float64Array.from({ length: n }, (_, i) => i), 0b00011111],
    ["u16", new Uint16Array(n), 0b11],
  ];
  for (const [dt, v, zp] of zcases) {
    const planes = shuffled(v), kept = [];
    for (let k = 0; k < v.BYTES_PER_ELEMENT; k++) {
      const p = planes.subarray(k * n, (k + 1) * n);
      if (zp >> k & 1) assert.ok(p.every((x) => x === 0), `${dt} plane ${k} is zero`);
      else kept.push(...p);
    }
    const stored = Uint8Array.from(kept);
    assert.deepEqual(Array.from(await decodeColumn({ b: 0, dt, n, s: 1, zp }, () => b64(stored))), Array.from(v), dt + " zp");
    if (stored.length) {
      const z = await decodeColumn({ b: 0, dt, n, s: 1, zp, z: 1 }, () => b64(deflateSync(Buffer.from(stored))));
      assert.deepEqual(Array.from(z), Array.from(v), dt + " zp deflated");
    }
  }
  const d = Int32Array.from([0, 5, -3, 70000, 2]); // delta-coded and shuffled
  const col = await decodeColumn({ b: 0, dt: "i32", n: 5, d: 1, s: 1, o: 100 }, () => b64(shuffled(d)));
  assert.deepEqual(Array.from(col), [100, 105, 102, 70102, 70104]);
});

test("run columns (r): runs' values then lengths, expanded, then deltas summed", async () => {
  // a category band's curve: 4096 bytes for 300 points, +512 at point 300, back at 420
  const vals = [...Array(300).fill(4096), ...Array(120).fill(4608), ...Array(80).fill(4096)];
  const runs = Int32Array.from([0, 512, 0, -512, 0, /* lengths */ 300, 1, 119, 1, 79]);
  const desc = { b: 0, dt: "i32", n: 500, d: 1, r: 5, o: 4096 };
  assert.deepEqual(Array.from(await decodeColumn(desc, () => b64(new Uint8Array(runs.buffer)))), vals);
  // shuffled (the planes of the 10 stored values) and deflated, as the writer does
  const planes = shuffled(runs);
  const z = await decodeColumn({ ...desc, s: 1, z: 1 }, () => b64(deflateSync(Buffer.from(planes))));
  assert.deepEqual(Array.from(z), vals);
  // without d: the values themselves
  const plain = Int32Array.from([7, -2, 3, 2]);
  assert.deepEqual(Array.from(await decodeColumn({ b: 0, dt: "i32", n: 5, r: 2 }, () => b64(new Uint8Array(plain.buffer)))),
    [7, 7, 7, -2, -2]);
  // lengths that do not add up to n are refused, not read past
  const bad = Int32Array.from([1, 9]);
  await assert.rejects(decodeColumn({ b: 0, dt: "i32", n: 5, r: 1 }, () => b64(new Uint8Array(bad.buffer))));
  await assert.rejects(decodeColumn({ b: 0, dt: "i32", n: 10, r: 1 }, () => b64(new Uint8Array(bad.buffer))));
});

test("f64 columns stored as int64s (i) and row numbers by their non-zero differences (dn)", async () => {
  // times beyond i32, one negative, as report_enc.c writes them: int64 planes, the zero high ones left out
  const ints = [2728360, 4391412644, -5, 2 ** 40 + 3, 0];
  const raw = BigInt64Array.from(ints.map(BigInt));
  const planes = shuffled(raw);
  const col = await decodeColumn({ b: 0, dt: "f64", n: 5, s: 1, i: 1 }, () => b64(planes));
  assert.ok(col instanceof Float64Array);
  assert.deepEqual(Array.from(col), ints);
  const z = await decodeColumn({ b: 0, dt: "f64", n: 5, i: 1, z: 1 }, () => b64(deflateSync(Buffer.from(raw.buffer))));
  assert.deepEqual(Array.from(z), ints);
  // with d: zigzag deltas from o (free times in the order of the allocations)
  const zz64 = (x) => BigInt(x >= 0 ? 2 * x : -2 * x - 1);
  const deltas = BigInt64Array.from(ints.map((v, i) => (i ? zz64(v - ints[i - 1]) : 0n)));
  const dcol = await decodeColumn({ b: 0, dt: "f64", n: 5, d: 1, s: 1, i: 1, o: ints[0] }, () => b64(shuffled(deltas)));
  assert.deepEqual(Array.from(dcol), ints);
  // launchers: 0 none, else growing row numbers (a step back, one past 2^31: differences wrap)
  const zz = (x) => (x >= 0 ? 2 * x : -2 * x - 1);
  const nzDiffs = (rows) => {
    let last = 0;
    return Uint32Array.from(rows.map((v) => {
      if (!v) return 0;
      const d = (v - last) | 0;
      last = v;
      return (zz(d) + 1) >>> 0;
    }));
  };
  for (const [dt, rows] of [["u32", [0, 7, 0, 0, 9, 8, 0, 4000000000, 3]], ["u16", [0, 0, 12, 13, 0, 65535, 1]]]) {
    const c = await decodeColumn({ b: 0, dt, n: rows.length, s: 1, dn: 1 }, () => b64(shuffled(nzDiffs(rows))));
    assert.ok(c instanceof (dt === "u16" ? Uint16Array : Uint32Array), dt);
    assert.deepEqual(Array.from(c), rows, dt);
  }
  // the 4-byte values stored, whatever dt: a blob of 2-byte ones is refused
  await assert.rejects(decodeColumn({ b: 5, dt: "u16", n: 4, dn: 1 }, () => b64(new Uint8Array(8))), /blob 5: 8 bytes where its descriptor says 16/);
  await assert.rejects(decodeColumn({ b: 5, dt: "i32", n: 2, dn: 1 }, () => b64(new Uint8Array(8))), /descriptor no writer makes/);
  await assert.rejects(decodeColumn({ b: 5, dt: "u32", n: 1, i: 1 }, () => b64(new Uint8Array(8))), /descriptor no writer makes/);
});

// What a hand-edited or cut page gives: the descriptor and the blob must agree, or decoding
// fails with the blob named (before, a short blob read its missing bytes as zeros).
test("a blob that does not hold what its descriptor says is refused", async () => {
  const four = new Uint8Array(Uint32Array.from([1, 2, 3, 4]).buffer);
  assert.deepEqual(Array.from(await decodeColumn({ b: 3, dt: "u32", n: 4 }, () => b64(four))), [1, 2, 3, 4]);
  await assert.rejects(decodeColumn({ b: 3, dt: "u32", n: 5 }, () => b64(four)), /blob 3: 16 bytes where its descriptor says 20/);
  await assert.rejects(decodeColumn({ b: 3, dt: "u32", n: 3 }, () => b64(four)), /blob 3: 16 bytes where its descriptor says 12/);
  // shuffled, two zero planes left out: 4 values x 2 planes = 8 bytes
  await assert.rejects(decodeColumn({ b: 3, dt: "u32", n: 4, s: 1, zp: 12 }, () => b64(four)), /descriptor says 8/);
  // runs one more than the blob holds
  const runs = Int32Array.from([7, -2, 3, 2]);
  await assert.rejects(decodeColumn({ b: 4, dt: "i32", n: 5, r: 3 }, () => b64(new Uint8Array(runs.buffer))), /blob 4: 16 bytes/);
  for (const r of [0, -1, 2.5, 6, "2"])
    await assert.rejects(decodeColumn({ b: 4, dt: "i32", n: 5, r }, () => b64(new Uint8Array(runs.buffer))), /descriptor no writer makes/);
  await assert.rejects(decodeColumn({ b: 4, dt: "u32", n: 5, r: 2 }, () => b64(new Uint8Array(runs.buffer))), /descriptor no writer makes/);
  await assert.rejects(decodeColumn({ b: 4, dt: "i64", n: 2 }, () => b64(new Uint8Array(runs.buffer))), /descriptor no writer makes/);
});

test("deflated columns are inflated (zlib format, as compress2 writes)", async () => {
  const v = Uint32Array.from({ length: 1000 }, (_, i) => i % 7);
  const z = deflateSync(Buffer.from(v.buffer));
  const col = await decodeColumn({ b: 3, dt: "u32", n: 1000, z: 1 }, (b) => (b === 3 ? b64(z) : ""));
  assert.deepEqual(Array.from(col), Array.from(v));
});

test("f64, u16 and u8 columns", async () => {
  const f = Float64Array.from([0.5, 2 ** 52 + 1]);
  assert.deepEqual(Array.from(await decodeColumn({ b: 0, dt: "f64", n: 2 }, () => b64(new Uint8Array(f.buffer)))), [0.5, 2 ** 52 + 1]);
  const u = Uint16Array.from([1, 65535]);
  assert.deepEqual(Array.from(await decodeColumn({ b: 0, dt: "u16", n: 2 }, () => b64(new Uint8Array(u.buffer)))), [1, 65535]);
  assert.deepEqual(Array.from(await decodeColumn({ b: 0, dt: "u8", n: 3 }, () => b64([1, 2, 3]))), [1, 2, 3]);
  await assert.rejects(decodeColumn({ b: 0, dt: "x9", n: 0 }, () => ""));
});

test("binary searches", () => {
  const a = [1, 2, 2, 2, 5];
  assert.equal(lowerBound(a, 2), 1);
  assert.equal(upperBound(a, 2), 4);
  assert.equal(lowerBound(a, 9), 5);
  assert.equal(upperBound(a, 0), 0);
});
