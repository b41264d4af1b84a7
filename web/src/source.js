// source.js — the ONE interface through which the views read data.
//
//   getMeta()                                  report, ranks, devices, curves (no columns)
//   getCurve(rank, dev, curve, t0, t1, px)     {t, v} to draw (M4: every extreme kept)
//   getCurveMax(rank, dev, curve, t0, t1)      exact maximum over a window
//   getAllocs(rank, dev, t0, t1, px)           allocation columns covering at least the window
//   getDetail(rank, dev, i)                    one allocation with its call stack
//   getPeak(rank, dev)                         the peak and the live set at it, grouped
//   getOpStats(rank, dev)                      per-operator statistics rows
//   getTable(query)                            a page of the allocations table
//
// `curve` is an index into device.curves, or "op:K" for device.op_curves[K].
// EmbeddedSource decodes the data embedded in the page (web/DATA.md); a
// server (memlens serve) can implement the same methods over HTTP.

import { decodeColumn } from "./decode.js";
import { m4Select, m4Max } from "./m4.js";
import { filterAllocs, sortAllocs, pageOf } from "./table.js";

export class EmbeddedSource {
  // meta: the parsed JSON; blobText(b): the base64 text of blob b.
  constructor(meta, blobText) {
    this.meta = meta;
    this.blobText = blobText;
    this.cache = new Map();
  }

  async col(desc) {
    if (!desc) return null;
    let p = this.cache.get(desc);
    if (!p) { p = decodeColumn(desc, this.blobText); this.cache.set(desc, p); }
    return p;
  }

  device(rank, dev) {
    const r = this.meta.ranks[rank];
    if (!r) throw new Error("no rank " + rank);
    const d = r.devices[dev];
    if (!d) throw new Error("no device " + dev + " in rank " + rank);
    return { r, d };
  }

  async getMeta() { return this.meta; }

  async curveData(rank, dev, curve) {
    const { d } = this.device(rank, dev);
    const c = typeof curve === "string" && curve.startsWith("op:") ? d.op_curves[+curve.slice(3)] : d.curves[curve];
    if (!c) throw new Error("no curve " + curve);
    if (!c._data) {
      c._data = Promise.all([this.col(c.t), this.col(c.v), this.col(c.mn), this.col(c.mx)])
        .then(([t, v, mn, mx]) => ({ t, v, mn, mx, n: c.n, fan: c.fan }));
    }
    return c._data;
  }

  async getCurve(rank, dev, curve, t0, t1, px) {
    return m4Select(await this.curveData(rank, dev, curve), t0, t1, px);
  }

  async getCurveMax(rank, dev, curve, t0, t1) {
    return m4Max(await this.curveData(rank, dev, curve), t0, t1);
  }

  async getAllocs(rank, dev /*, t0, t1, px: the embedded source has them all */) {
    const { r, d } = this.device(rank, dev);
    const a = d.allocs;
    if (!a._data) {
      a._data = (async () => {
        const [ta, tf, size, addrHi, addrLo, group, op, stream, stack, flags, cat, src, reason] = await Promise.all(
          ["ta", "tf", "size", "addr_hi", "addr_lo", "group", "op", "stream", "stack", "flags", "cat", "src", "reason"]
            .map((k) => (a[k] ? this.col(a[k]) : null)));
        return { n: a.n, total: a.total, summarised: a.summarised, summarisedBytes: a.summarised_bytes,
          ta, tf, size, addrHi, addrLo, group, op, stream, stack, flags, cat, src, reason, groups: a.groups,
          strings: r.strings, categories: r.categories || [], reasons: r.reasons || [] };
      })();
    }
    return a._data;
  }

  async stackOf(rank, id) {
    const r = this.meta.ranks[rank];
    if (!r._stacks) {
      r._stacks = Promise.all(["stack_start", "stack_frames", "frame_name", "frame_file", "frame_line"].map((k) => this.col(r[k])))
        .then(([start, frames, name, file, line]) => ({ start, frames, name, file, line }));
    }
    const s = await r._stacks;
    if (!id || id >= s.start.length) return [];
    const b = s.start[id], e = id + 1 < s.start.length ? s.start[id + 1] : s.frames.length;
    const out = [];
    for (let k = b; k < e; k++) {
      const f = s.frames[k];
      out.push({ name: r.strings[s.name[f]], file: r.strings[s.file[f]] || "", line: s.line[f] });
    }
    return out;
  }

  async getDetail(rank, dev, i) {
    const { d } = this.device(rank, dev);
    const a = await this.getAllocs(rank, dev);
    const hex = a.addrHi[i] || a.addrLo[i]
      ? "0x" + (a.addrHi[i] ? a.addrHi[i].toString(16) + a.addrLo[i].toString(16).padStart(8, "0") : a.addrLo[i].toString(16))
      : "";
    return {
      i, device: d.id, size: a.size[i], addr: hex, stream: a.strings[a.stream[i]] || "",
      group: a.groups[a.group[i]], op: a.strings[a.op[i]] || "", ta: a.ta[i], tf: a.tf[i],
      beforeTrace: !!(a.flags[i] & 1), neverFreed: !!(a.flags[i] & 2), category: a.cat[i],
      categoryName: (a.categories[a.cat[i]] || {}).name || "", reason: a.reason ? a.reasons[a.reason[i]] || "" : "",
      stack: await this.stackOf(rank, a.stack[i]),
    };
  }

  async getPeak(rank, dev) { return this.device(rank, dev).d.peak; }

  async getOpStats(rank, dev) { return this.device(rank, dev).d.ops; }

  // query: {rank, dev, text, minSize, maxSize, inWindow, t0, t1, sort, dir, page, pageSize}
  async getTable(q) {
    const a = await this.getAllocs(q.rank, q.dev);
    let idx = filterAllocs(a, q);
    const total = idx.length;
    idx = sortAllocs(a, idx, q.sort, q.dir || 1);
    const pg = pageOf(idx, q.page || 0, q.pageSize || 100);
    return { rows: pg.rows, all: idx, total, page: pg.page, pages: pg.pages, allocs: a };
  }
}

// The source of a report page: meta from <script id="ml-meta">, blobs from <script id="ml-bN">.
export function pageSource(doc) {
  const meta = JSON.parse(doc.getElementById("ml-meta").textContent);
  return new EmbeddedSource(meta, (b) => {
    const el = doc.getElementById("ml-b" + b);
    if (!el) throw new Error("memlens: missing data block " + b);
    return el.textContent;
  });
}
