// decode.js — reads the report's data: base64 blobs, deflated with zlib
// (DecompressionStream, no library), into typed columns.  See web/DATA.md.

const B64 = new Uint8Array(256).fill(255);
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".split("").forEach((c, i) => { B64[c.charCodeAt(0)] = i; });

export function b64decode(s) {
  let n = s.length;
  while (n > 0 && (s.charCodeAt(n - 1) === 61 /* = */ || s.charCodeAt(n - 1) <= 32)) n--;
  const out = new Uint8Array(Math.floor(n * 3 / 4));
  let o = 0, acc = 0, bits = 0;
  for (let i = 0; i < n; i++) {
    const v = B64[s.charCodeAt(i)];
    if (v === 255) continue; // whitespace
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) { bits -= 8; out[o++] = (acc >> bits) & 255; }
  }
  return o === out.length ? out : out.subarray(0, o);
}

export async function inflate(bytes) {
  const ds = new DecompressionStream("deflate");
  const stream = new Blob([bytes]).stream().pipeThrough(ds);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const WIDTH = { u8: 1, u16: 2, u32: 4, i32: 4, f64: 8 };

// The bytes of n values w bytes wide from their byte planes (the blob's "s":
// byte k of value i at k * n + i), into a new, aligned buffer.  zp (the
// blob's "zp"): bit k set = plane k is all zeros and was left out (the
// planes stored are the others, in order).
export function unshuffle(bytes, w, n, zp = 0) {
  const out = new Uint8Array(n * w), at = [];
  for (let k = 0, stored = 0; k < w; k++) at.push(zp >> k & 1 ? -1 : stored++);
  const zeros = at.includes(-1) ? new Uint8Array(n) : null;
  const plane = (k) => (at[k] < 0 ? zeros : bytes.subarray(at[k] * n, (at[k] + 1) * n));
  if (w === 2) {
    const b0 = plane(0), b1 = plane(1), v = new Uint16Array(out.buffer);
    for (let i = 0; i < n; i++) v[i] = b0[i] | (b1[i] << 8);
  } else if (w === 4 || w === 8) { // 32 bits at a time (little-endian, as the columns are)
    const words = new Uint32Array(out.buffer), lanes = w / 4;
    for (let h = 0; h < lanes; h++) {
      const b0 = plane(4 * h), b1 = plane(4 * h + 1), b2 = plane(4 * h + 2), b3 = plane(4 * h + 3);
      for (let i = 0; i < n; i++) words[i * lanes + h] = b0[i] | (b1[i] << 8) | (b2[i] << 16) | (b3[i] << 24);
    }
  } else {
    for (let k = 0; k < w; k++) for (let i = 0; i < n; i++) out[i * w + k] = bytes[k * n + i];
  }
  return out;
}

// The n i32 values of an "r" column: runs values of the runs, then their lengths.
export function expandRuns(stored, runs, n) {
  const out = new Int32Array(n);
  let at = 0;
  for (let r = 0; r < runs; r++) {
    const len = stored[runs + r];
    if (len <= 0 || at + len > n) throw new Error("memlens: bad run column");
    out.fill(stored[r], at, at + len);
    at += len;
  }
  if (at !== n) throw new Error("memlens: bad run column");
  return out;
}

// "i": int64s (as i32 halves) to doubles; "dn": u32s, 0 or zigzag(step from the last non-zero) + 1.
function int64s(buf, off, n, d, o) { // with d: zigzag deltas, summed from o
  const h = new Int32Array(buf, off, 2 * n), out = new Float64Array(n);
  for (let i = 0, z; i < n; i++)
    if (!d) out[i] = h[2 * i + 1] * 4294967296 + (h[2 * i] >>> 0);
    else out[i] = o += (z = (h[2 * i + 1] >>> 0) * 4294967296 + (h[2 * i] >>> 0)) % 2 ? -(z + 1) / 2 : z / 2;
  return out;
}
function nzDeltas(s, Ty, n) {
  const out = new Ty(n);
  for (let i = 0, last = 0, z; i < n; i++) if (s[i]) out[i] = last = (last + (((z = s[i] - 1) >>> 1) ^ -(z & 1))) >>> 0;
  return out;
}

// One column from its descriptor {b, dt, n, d?, r?, s?, zp?, i?, dn?, o?, z?}; blobText(b) gives the base64.
// Numeric (i32, f64) columns come back as Float64Array: exact for |x| < 2^53.
export async function decodeColumn(desc, blobText) {
  if (!desc) return null;
  let bytes = b64decode(blobText(desc.b));
  const n = desc.n;
  const w = desc.i ? (desc.dt === "f64" ? 8 : 0) : desc.dn ? (desc.dt === "u32" || desc.dt === "u16" ? 4 : 0) : WIDTH[desc.dt];
  if (!w || !(Number.isInteger(n) && n >= 0) || (desc.r !== undefined && !(desc.dt === "i32" && Number.isInteger(desc.r) && desc.r >= 1 && desc.r <= n)))
    throw new Error(`memlens: blob ${desc.b}: a column descriptor no writer makes (${JSON.stringify(desc)})`);
  const stored = desc.r ? 2 * desc.r : n; // the values in the blob: the runs' (r) or all
  if (desc.z) bytes = await inflate(bytes);
  // the bytes the descriptor says (the planes kept, when shuffled): a short or long blob is an
  // error, not values read past its end as zeros
  let planes = w;
  if (desc.s && w > 1) for (let k = 0; k < w; k++) planes -= (desc.zp || 0) >> k & 1;
  if (bytes.length !== stored * planes)
    throw new Error(`memlens: blob ${desc.b}: ${bytes.length} bytes where its descriptor says ${stored * planes}`);
  if (desc.s && w > 1) bytes = unshuffle(bytes, w, stored, desc.zp || 0);
  if (bytes.byteOffset % 8) bytes = bytes.slice();
  const buf = bytes.buffer, off = bytes.byteOffset;
  if (desc.i) return int64s(buf, off, n, desc.d, desc.o || 0);
  if (desc.dn) return nzDeltas(new Uint32Array(buf, off, n), desc.dt === "u16" ? Uint16Array : Uint32Array, n);
  switch (desc.dt) {
    case "u8": return new Uint8Array(buf, off, n);
    case "u16": return new Uint16Array(buf, off, n);
    case "u32": return new Uint32Array(buf, off, n);
    case "f64": return new Float64Array(buf, off, n);
    case "i32": {
      const src = desc.r ? expandRuns(new Int32Array(buf, off, stored), desc.r, n) : new Int32Array(buf, off, n);
      const out = new Float64Array(n);
      if (desc.d) { let acc = desc.o || 0; for (let i = 0; i < n; i++) { acc += src[i]; out[i] = acc; } }
      else for (let i = 0; i < n; i++) out[i] = src[i];
      return out;
    }
  }
}

// First index i with a[i] >= x (a sorted ascending).
export function lowerBound(a, x, lo = 0, hi = a.length) {
  while (lo < hi) { const m = (lo + hi) >>> 1; if (a[m] < x) lo = m + 1; else hi = m; }
  return lo;
}
export function upperBound(a, x, lo = 0, hi = a.length) {
  while (lo < hi) { const m = (lo + hi) >>> 1; if (a[m] <= x) lo = m + 1; else hi = m; }
  return lo;
}

// A binary answer of `memlens serve` (src/server/colbuf.h): "MLB1", a u32
// header length H, H bytes of JSON (scalar fields and "cols"), then from the
// next multiple of 8 the data section, column k at its offset "o" there.
// Returns the fields with each column as a typed array over the buffer (no copy).
export function decodeFrame(buf) {
  const bytes = new Uint8Array(buf);
  if (bytes.length < 8 || bytes[0] !== 77 || bytes[1] !== 76 || bytes[2] !== 66 || bytes[3] !== 49) throw new Error("memlens: not a binary answer");
  const h = new DataView(buf).getUint32(4, true);
  const head = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + h)));
  const base = Math.ceil((8 + h) / 8) * 8;
  const T = { f64: Float64Array, u32: Uint32Array, u8: Uint8Array };
  for (const c of head.cols) {
    const Ty = T[c.dt];
    if (!Ty || base + c.o + c.n * Ty.BYTES_PER_ELEMENT > buf.byteLength) throw new Error("memlens: bad column " + c.k);
    head[c.k] = new Ty(buf, base + c.o, c.n);
  }
  delete head.cols;
  return head;
}
