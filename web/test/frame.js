// frame.js — test helper: binary answers as `memlens serve` writes them.

// A frame as src/server/colbuf.c writes it.
export function encodeFrame(fields, cols) {
  const descs = [], parts = [];
  let off = 0;
  for (const [k, arr] of Object.entries(cols)) {
    const dt = arr instanceof Float64Array ? "f64" : arr instanceof Uint32Array ? "u32" : "u8";
    off = Math.ceil(off / 8) * 8;
    descs.push({ k, dt, n: arr.length, o: off });
    parts.push([off, new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength)]);
    off += arr.byteLength;
  }
  const head = new TextEncoder().encode(JSON.stringify({ ...fields, cols: descs }));
  const base = Math.ceil((8 + head.length) / 8) * 8;
  const out = new Uint8Array(base + off);
  out.set([77, 76, 66, 49]);
  new DataView(out.buffer).setUint32(4, head.length, true);
  out.set(head, 8);
  for (const [o, b] of parts) out.set(b, base + o);
  return out.buffer;
}

