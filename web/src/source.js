// source.js — the ONE interface through which the views read data.
//
//   getMeta()                                  report, ranks, devices, curves (no columns)
//   getCurve(rank, dev, curve, t0, t1, px)     {t, v} to draw (M4: every extreme kept)
//   getCurves(rank, dev, curves, t0, t1, px)   several at once (one request when served)
//   getCurveMax(rank, dev, curve, t0, t1)      exact maximum over a window
//   getAllocs(rank, dev, t0, t1, px)           allocation columns covering at least the window
//   getDetail(rank, dev, i)                    one allocation with its call stack
//   stackOf(rank, id)                          one stack of the rank's stack table (the snapshot views)
//   getPeak(rank, dev)                         the peak and the live set at it, grouped
//   getOpStats(rank, dev)                      per-operator statistics rows
//   getTable(query)                            a page of the allocations table
//   getLiveAt(rank, dev, t, by)                the live set at any time t, grouped
//   getCategoryCurve(rank, dev, t0, t1, px)    the category chart: band tops, exact (stack.js)
//   getStackBase(rank, dev, t0, t1, px)        per column: curve's highest instant, value, before-trace part
//   getExport(query, fmt)                      every row the table's filter keeps, as "csv" or "tsv" text
//   getTrace(rank, t0, t1, px, {q})            the Trace view's window: slices >= 1 px, sub-pixel runs merged per lane
//   getSliceDetail(rank, id)                   one slice: args, stack, launcher / launched, operator, flows
//   findSlice(rank, q, after, dir)             the search's next (previous) match
//   getTraceJson(rank)                         the slices as Chrome trace JSON text (tracesource.js)
//   getPerf(rank)                              the profiler views' perf object (web/DATA.md), or null
//   getCluster(progress)                       the Cluster view's data (cluster.js), or null: not a job
//   setPerfTop(n)                              (HttpSource) rows per perf table from now on
//
// `curve` is an index into device.curves, or "op:K" for device.op_curves[K].
// EmbeddedSource decodes the data embedded in the page (web/DATA.md);
// HttpSource asks `memlens serve`'s API (src/server/api.h) for exactly the
// window shown.  A source with `windowed` set returns from getAllocs only what
// the window needs (each allocation's global id in `id`); the page then asks
// again when the window changes.  A source with ensureRank(k, progress)
// loads ranks lazily: the page calls it before it opens a rank.

import { decodeColumn, decodeFrame, upperBound } from "./decode.js";
import { categoryStack, selectStack, stackBase } from "./stack.js";
import { m4Select, m4Max, m4Points } from "./m4.js";
import { filterAllocs, sortAllocs, pageOf, exportAllocs, shownBeforeTrace } from "./table.js";
import { makeClock, BEFORE_TRACE, plural } from "./format.js";
import { embeddedGetTrace, embeddedSliceDetail, embeddedTraceJson, embeddedFindSlice, httpGetTrace, httpSliceDetail, httpTraceJsonUrl, httpFindSlice } from "./tracesource.js";


// Whether a component curve's label is the allocator's kind (report.h
// ml_report_curve_label: "PTA allocated", or MindStudio Insight's "PTA
// Allocated" for Ascend), not a driver module's of the same component ("GE module").
const INSIGHT_KIND = { allocated: "Allocated", reserved: "Reserved", active: "Activated" };
export function isComponentCurve(label, comp, kind) { return label === comp + " " + kind || label === comp + " " + INSIGHT_KIND[kind]; }

export class EmbeddedSource {
  // meta: the parsed JSON; blobText(b): the base64 text of blob b; perfText(k):
  // the JSON text of rank k's perf object (<script id="ml-perf-K">), or null.
  // compareText(): the compare object's JSON text (<script id="ml-compare">, `memlens diff -o`), or null.
  constructor(meta, blobText, perfText = null, compareText = null) {
    this.meta = meta;
    this.blobText = blobText;
    this.perfText = perfText;
    this.compareText = compareText;
    this.cache = new Map();
    this.perfs = new Map();
  }

  // The perf object of a rank (parsed when first asked), or null: the rank's
  // perfWhy in the meta says why.
  async getPerf(rank) {
    if (!this.perfs.has(rank)) {
      const t = this.perfText ? this.perfText(rank) : null;
      this.perfs.set(rank, t ? JSON.parse(t) : null);
    }
    return this.perfs.get(rank);
  }

  // The compare object of `memlens diff -o` (web/DATA.md "Compare"), or null.
  compareData() {
    if (this.compare === undefined) {
      const t = this.compareText ? this.compareText() : null;
      this.compare = t ? JSON.parse(t) : null;
    }
    return this.compare;
  }

  // The pairs of runs the page compares ([{base_rank, new_rank}], empty if none).
  comparePairs() { const c = this.compareData(); return c ? c.pairs : []; }

  // The comparison of two of the page's ranks: {base_rank, new_rank, diff}.
  async getCompare(base, nw) {
    const p = this.comparePairs().find((x) => x.base_rank === base && x.new_rank === nw);
    if (!p) throw new Error("this report did not compare these two runs (memlens diff BASE NEW -o FILE.html)");
    return p;
  }

  // A column, decoded once: columns that share a blob (the category bands'
  // times) share the decoded array.
  async col(desc) {
    if (!desc) return null;
    const key = [desc.b, desc.dt, desc.n, desc.d || 0, desc.o || 0, desc.z || 0].join(":");
    let p = this.cache.get(key);
    if (!p) { p = decodeColumn(desc, this.blobText); this.cache.set(key, p); }
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

  // The Cluster view's data: the matrices decoded, the --json cluster object as it is.
  async getCluster() {
    const c = this.meta.cluster;
    if (!c) return null;
    if (!this.clusterP) {
      this.clusterP = Promise.all([this.col(c.step_begin), this.col(c.step_time), this.col(c.step_peak), this.col(c.step_comm)])
        .then(([begin, time, peak, comm]) => clusterData(c, this.meta.ranks.map((r) => r.rank), begin, time, peak, comm,
          c.embedded, this.meta.embedded && this.meta.embedded.budget_bytes));
    }
    return this.clusterP;
  }

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
    return m4Points(await this.curveData(rank, dev, curve), t0, t1, px);
  }

  async getCurves(rank, dev, curves, t0, t1, px) {
    return Promise.all(curves.map((c) => this.getCurve(rank, dev, c, t0, t1, px)));
  }

  async getCurveMax(rank, dev, curve, t0, t1) {
    return m4Max(await this.curveData(rank, dev, curve), t0, t1);
  }

  async getCategoryCurve(rank, dev, t0, t1, px) {
    const { d } = this.device(rank, dev);
    if (!d._catStack) {
      d._catStack = Promise.all((d.category_curves || []).map(async (c) =>
        ({ cat: c.cat, t: await this.col(c.curve.t), v: await this.col(c.curve.v) }))).then(categoryStack);
    }
    return selectStack(await d._catStack, t0, t1, px);
  }

  async getStackBase(rank, dev, t0, t1, px) {
    const { d } = this.device(rank, dev);
    const pk = d.peak;
    if (!pk || !d.curves[pk.curve]) return null;
    const sel = m4Select(await this.curveData(rank, dev, pk.curve), t0, t1, px);
    const tk = d.curves.findIndex((c) => c.group === "tracked");
    const known = pk.kind === "allocated" && !/replayed/.test(d.curves[pk.curve].label) && tk >= 0;
    return stackBase(sel, known ? await this.curveData(rank, dev, tk) : null, known, t0, t1, px);
  }

  async getAllocs(rank, dev /*, t0, t1, px: the embedded source has them all */) {
    const { r, d } = this.device(rank, dev);
    const a = d.allocs;
    if (!a._data) {
      a._data = (async () => {
        const [ta, tf, size, addrHi, addrLo, group, op, stream, stack, flags, cat, src, reason, tr] = await Promise.all(
          ["ta", "tf", "size", "addr_hi", "addr_lo", "group", "op", "stream", "stack", "flags", "cat", "src", "reason", "tr"]
            .map((k) => (a[k] ? this.col(a[k]) : null)));
        // Ascend (active release times): the device's totals at each allocation and release,
        // read off its overall curves (Insight's Allocation/Release Total columns)
        // (an operator's row counts its allocator component's totals: PTA, or GE for the cann:: operators)
        let totals = null;
        if (tr) {
          totals = { comp: {} };
          for (const kind of ["allocated", "reserved", "active"]) {
            const k = d.curves.findIndex((c) => c.group === "overall" && c.kind === kind);
            if (k >= 0) totals[kind] = await this.curveData(rank, dev, k);
            for (const comp of ["PTA", "GE"]) {
              const j = d.curves.findIndex((c) => c.group === "component" && c.of === comp && c.kind === kind && isComponentCurve(c.label, comp, kind));
              if (j >= 0) (totals.comp[comp] || (totals.comp[comp] = {}))[kind] = await this.curveData(rank, dev, j);
            }
          }
        }
        return { n: a.n, total: a.total, summarised: a.summarised, summarisedBytes: a.summarised_bytes, tr, totals,
          ta, tf, size, addrHi, addrLo, group, op, stream, stack, flags, cat, src, reason, groups: a.groups,
          groupBytes: a.group_bytes, groupCount: a.group_count, groupBy: a.group_by || "op", has: a.has,
          strings: r.strings, categories: r.categories || [], categoryOrder: r.category_order || [], reasons: r.reasons || [] };
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

  // The live set at time t: by "op" (top-level operator) or "category"; as
  // the server's /api/live.  Memory the curve shows but no allocation of the
  // trace accounts for is "(allocated before trace)"; by category, memory
  // from before the trace is counted in its category, except what is one
  // "(allocated before trace)" (table.js shownBeforeTrace), as at the peak.
  async getLiveAt(rank, dev, t, by = "op") {
    const { d } = this.device(rank, dev);
    const a = await this.getAllocs(rank, dev);
    const pk = d.peak, c = pk ? d.curves[pk.curve] : null;
    let curveValue = null;
    if (c) {
      const cd = await this.curveData(rank, dev, pk.curve);
      const k = upperBound(cd.t, t);
      curveValue = k ? cd.v[k - 1] : 0;
    }
    const recorded = pk && pk.kind === "allocated" && c && !/replayed/.test(c.label);
    const byCat = by === "category";
    const acc = new Map();
    const add = (key, bytes, n) => {
      const g = acc.get(key) || [key, 0, 0];
      g[1] += bytes; g[2] += n;
      acc.set(key, g);
    };
    let tracked = 0, count = 0, knownBefore = 0, nBefore = 0;
    const catNames = (a.categories || []).map((c) => c.name);
    for (let i = 0; i < a.n && a.ta[i] <= t; i++) {
      if (a.tf[i] <= t && !(a.flags[i] & 2)) continue;
      const before = !!(a.flags[i] & 1);
      if (before) { knownBefore += a.size[i]; nBefore++; } else { tracked += a.size[i]; count++; }
      if (byCat) add(shownBeforeTrace(a, i) ? BEFORE_TRACE : catNames[a.cat[i]] || "unknown", a.size[i], 1);
      else if (!before) add(a.groups[a.group[i]], a.size[i], 1);
    }
    const before = recorded ? Math.max(0, curveValue - tracked) : knownBefore;
    if (byCat) {
      const gap = recorded ? Math.max(0, curveValue - tracked - knownBefore) : 0;
      if (gap) add(BEFORE_TRACE, gap, 0);
    } else if (before || nBefore) add(BEFORE_TRACE, before, nBefore);
    const rows = [...acc.values()];
    rows.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    return { t, curve_value: curveValue, by, tracked, count, before, groups: rows.length, rows,
      partial: a.summarised ? a.summarised : 0 };
  }

  // Every row the filter keeps, sorted, as CSV or TSV (fmt "csv" | "tsv").
  async getExport(q, fmt) {
    const a = await this.getAllocs(q.rank, q.dev), r = this.meta.ranks[q.rank];
    const idx = sortAllocs(a, filterAllocs(a, q), q.sort, q.dir || 1);
    const clock = makeClock(BigInt(r.origin_ns || this.meta.origin_ns || 0), r.time);
    return exportAllocs(a, idx, clock.exact, fmt === "tsv" ? "\t" : ",");
  }

  // The Trace view (tracesource.js): the window's slices and merged runs, one slice's detail,
  // and the slices as Chrome-trace JSON text (opts.q: a search, counted per merged run).
  async getTrace(rank, t0, t1, px, opts) { return embeddedGetTrace(this, rank, t0, t1, px, opts); }
  async getSliceDetail(rank, id) { return embeddedSliceDetail(this, rank, id); }
  async getTraceJson(rank) { return embeddedTraceJson(this, rank); }
  async findSlice(rank, q, after, dir) { return embeddedFindSlice(this, rank, q, after, dir); }

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

// ---- memlens serve --------------------------------------------------------

const ALLOC_KEYS = [["ta", Float64Array], ["tf", Float64Array], ["size", Float64Array], ["addr_hi", Uint32Array, "addrHi"],
  ["addr_lo", Uint32Array, "addrLo"], ["group", Uint32Array], ["op", Uint32Array], ["stream", Uint32Array],
  ["stack", Uint32Array], ["src", Uint32Array], ["flags", Uint8Array], ["cat", Uint8Array], ["reason", Uint8Array], ["id", Uint32Array]];

// Columns of a JSON answer ({id:[..], ta:[..], ...}) as the typed arrays the views read.
export function allocColumns(j, groups, strings) {
  const a = { n: j.count ?? j.n, groups, strings };
  for (const [k, T, name] of ALLOC_KEYS) a[name || k] = j[k] instanceof T ? j[k] : T.from(j[k] || []);
  let map = null;
  a.localOf = (id) => {
    if (!map) { map = new Map(); for (let i = 0; i < a.id.length; i++) map.set(a.id[i], i); }
    return map.has(id) ? map.get(id) : -1;
  };
  return a;
}

// A number as the API's parameters write it: digits, '-', a '.' fraction;
// never String()'s exponent form ("1e-7", which the server refuses).
function plainNumber(v) {
  const s = String(v);
  if (!/e/i.test(s)) return s;
  return v.toFixed(9).replace(/\.?0+$/, "");
}

export class HttpSource {
  // base: the API's URL ("/api/"); fetchFn: fetch (a test may pass its own).
  constructor(base = "/api/", fetchFn = (u) => fetch(u)) {
    this.base = base;
    this.fetch = fetchFn;
    this.windowed = true;
    this.lastCurve = new Map();
    this.current = new Map();   // "rank/dev" -> the allocations last returned by getAllocs
    this.opStats = new Map();
  }

  url(route, params) {
    const q = Object.entries(params || {}).filter(([, v]) => v != null && v !== "")
      .map(([k, v]) => encodeURIComponent(k) + "=" + encodeURIComponent(typeof v === "number" ? plainNumber(v) : v)).join("&");
    return this.base + route + (q ? "?" + q : "");
  }

  // Every request fails with an error that names it (requestError): the page
  // says it where the view would be (drawfail.js), never draws an empty answer.
  async send(route, params) {
    try { return await this.fetch(this.url(route, params)); }
    catch (e) { throw requestError(this.base, route, "no answer from the server (" + (e && e.message || e) + ")"); }
  }

  // A JSON answer (its status in _status); one of another status than okStatus,
  // or not JSON, is an error.
  async get(route, params, okStatus = [200]) {
    const res = await this.send(route, params);
    const body = await jsonOf(res);
    if (!okStatus.includes(res.status)) throw requestError(this.base, route, statusText(res, body));
    if (!body || typeof body !== "object") throw requestError(this.base, route, `HTTP ${res.status}, but not JSON`);
    body._status = res.status;
    return body;
  }

  slotRank(s) {
    return { rank: s.rank ?? -1, world_size: s.world_size ?? -1, path: s.path, format: s.format || "", caps: s.caps || null, time: "abs",
      notes: [], devices: [], strings: [], loaded: false, slot: s };
  }

  // One meta object for the page's life (the views share it; ensureRank fills its ranks in
  // place): a second call answers the same object, not a fresh one with unloaded ranks.
  async getMeta() {
    if (this.meta) return this.meta;
    if (this.metaP) return this.metaP;
    this.metaP = this.fetchMeta();
    return this.metaP;
  }

  async fetchMeta() {
    const m = await this.get("meta");
    this.meta = { version: 1, generator: "memlens serve", origin_ns: "0", inputs: m.inputs, skipped: m.skipped,
      ranks: m.ranks.map((s) => this.slotRank(s)), cluster: !!m.cluster, follow: m.follow || null };
    return this.meta;
  }

  // The server follows its folders (meta.follow, src/server/follow.h): every few seconds the
  // ranks it lists now; the new ones are added, every rank's place (run, span) brought up to
  // date, and onChange(number added) told.
  followRanks(onChange, everyMs = 3000) {
    if (!this.meta || !this.meta.follow || this.followTimer) return;
    this.followTimer = setInterval(async () => {
      let m;
      try { m = await this.get("meta"); } catch (e) { return; } // the server stopped: try again later
      let added = 0;
      for (let i = this.meta.ranks.length; i < m.ranks.length; i++, added++) this.meta.ranks.push(this.slotRank(m.ranks[i]));
      m.ranks.forEach((s, i) => { this.meta.ranks[i].slot = s; });
      onChange(added);
    }, everyMs);
  }

  // The Cluster view's data: the server reads every rank once for its record
  // (in the background, from its start); progress({done, total}) meanwhile.
  async getCluster(progress) {
    for (;;) {
      const j = await this.get("cluster", { wait: 1000 }, [200, 202, 404]);
      if (j._status === 404) return null;
      if (j._status === 200) {
        const slotOf = j.slots, meta = this.meta;
        const shift = (k) => { const r = meta.ranks[k]; return r && r.origin_ns ? Number(BigInt(j.origin_ns) - BigInt(r.origin_ns)) : 0; };
        const f = (a) => (a ? Float64Array.from(a) : null);
        return clusterData(j, j.rank_no, f(j.step_begin), f(j.step_time), f(j.step_peak), f(j.step_comm), null, 0, slotOf, shift);
      }
      if (progress) progress(j);
    }
  }

  // Loads rank k (the server imports it on first request); progress(slot) while it loads.
  async ensureRank(k, progress) {
    const r = this.meta.ranks[k];
    if (r.loaded) return r;
    for (;;) {
      const j = await this.get("rank", { rank: k, wait: 1000 }, [200, 202]);
      if (j._status === 200) {
        delete j._status;
        Object.assign(r, j, { loaded: true });
        const m = await this.get("meta"); // a folder may have yielded more ranks
        for (let i = this.meta.ranks.length; i < m.ranks.length; i++) this.meta.ranks.push(this.slotRank(m.ranks[i]));
        m.ranks.forEach((s, i) => { if (!this.meta.ranks[i].loaded) this.meta.ranks[i].slot = s; });
        this.meta.skipped = m.skipped;
        // the server's perf objects span the ranks loaded (/api/perf's "distributed",
        // its slowest rank): the ones fetched before this rank loaded are stale
        if (this.perfs) this.perfs.clear();
        return r;
      }
      if (progress) progress(j);
    }
  }

  device(rank, dev) {
    const r = this.meta.ranks[rank];
    if (!r || !r.loaded) throw new Error("rank " + rank + " is not loaded");
    const d = r.devices[dev];
    if (!d) throw new Error("no device " + dev + " in rank " + rank);
    return { r, d };
  }

  // A column route answered as a binary frame (fmt=bin; decode.js decodeFrame).
  async getBin(route, params) {
    const res = await this.send(route, Object.assign({}, params, { fmt: "bin" }));
    if (res.status !== 200) throw requestError(this.base, route, statusText(res, await jsonOf(res)));
    try { return decodeFrame(await res.arrayBuffer()); }
    catch (e) { throw requestError(this.base, route, "HTTP 200, but " + e.message.replace(/^memlens: /, "")); }
  }

  async getCurve(rank, dev, curve, t0, t1, px) {
    const j = await this.getBin("curve", { rank, dev, curve, t0, t1, px: clampPx(px) });
    this.lastCurve.set([rank, dev, curve, t0, t1].join("/"), j.max);
    return { t: j.t, v: j.v };
  }

  async getCurves(rank, dev, curves, t0, t1, px) {
    const j = await this.getBin("curves", { rank, dev, list: curves.join(","), t0, t1, px: clampPx(px) });
    return curves.map((c, k) => {
      this.lastCurve.set([rank, dev, c, t0, t1].join("/"), j.max[k]);
      return { t: j["t" + k], v: j["v" + k] };
    });
  }

  async getCategoryCurve(rank, dev, t0, t1, px) {
    const j = await this.getBin("catcurve", { rank, dev, t0, t1, px: clampPx(px) });
    return { t: j.t, tops: j.cats.map((c, k) => j["v" + k]), cats: j.cats, max: j.max };
  }

  async getStackBase(rank, dev, t0, t1, px) {
    const j = await this.getBin("stackbase", { rank, dev, t0, t1, px: clampPx(px) });
    return j.curve < 0 ? null : { t: j.t, v: j.v, base: j.base, beforeKnown: j.before_known };
  }

  async getCurveMax(rank, dev, curve, t0, t1) {
    const k = [rank, dev, curve, t0, t1].join("/");
    if (this.lastCurve.has(k)) return this.lastCurve.get(k);
    return (await this.get("curvemax", { rank, dev, curve, t0, t1 })).max;
  }

  // Allocations intersecting [t0, t1] at least one pixel wide (px = the width);
  // keep: an id to include whatever its width (the selection).
  async getAllocs(rank, dev, t0, t1, px, keep) {
    const { r, d } = this.device(rank, dev);
    const j = await this.getBin("allocs", { rank, dev, t0, t1, px: clampPx(px || 1000), keep: keep >= 0 ? keep : null });
    const a = this.withMeta(allocColumns(j, d.allocs.groups, r.strings), r, d);
    a.total = j.total;
    a.summarised = j.summarised;
    a.summarisedBytes = j.summarised_bytes;
    a.windowNote = j.summarised ? `${plural(j.summarised, "allocation")} narrower than 1 px in this window` : "";
    // the narrow ones, counted per pixel column and group (lanes.js visibleBars)
    if (j.small_x) a.small = { x: j.small_x, group: j.small_group, n: j.small_n, W: clampPx(px || 1000), t0, t1 };
    a.fetched = { t0, t1, W: clampPx(px || 1000) }; // the window and width they were chosen for (present.js allocsFit)
    this.current.set(rank + "/" + dev, a);
    return a;
  }

  // What the views read besides the columns: labels, category names, lane order.
  withMeta(a, r, d) {
    a.categories = r.categories || [];
    a.categoryOrder = r.category_order || [];
    a.reasons = r.reasons || [];
    a.groupBytes = d.allocs.group_bytes;
    a.groupCount = d.allocs.group_count;
    a.groupBy = d.allocs.group_by || "op";
    a.has = d.allocs.has;
    return a;
  }

  // i: an index into the allocations last returned (or {id}).
  async getDetail(rank, dev, i) {
    const a = this.current.get(rank + "/" + dev);
    const id = typeof i === "object" ? i.id : a ? a.id[i] : i;
    const j = await this.get("detail", { rank, dev, id });
    return Object.assign(j, { i });
  }

  async getPeak(rank, dev) { return this.device(rank, dev).d.peak; }

  async getOpStats(rank, dev) {
    const k = rank + "/" + dev;
    if (!this.opStats.has(k)) this.opStats.set(k, await this.get("ops", { rank, dev }));
    return this.opStats.get(k);
  }

  tableParams(q) {
    return {
      rank: q.rank, dev: q.dev, text: (q.text || "").trim().slice(0, 200), min: q.minSize, max: q.maxSize, cat: q.cat >= 0 ? q.cat : null,
      inwin: q.inWindow ? 1 : 0, t0: q.t0, t1: q.t1, sort: q.sort || "ta", dir: q.sort && (q.dir || 1) < 0 ? "desc" : "asc", // no sort: allocation order
      page: q.page || 0, size: q.pageSize || 100,
    };
  }

  // The server's export of the table (streamed, filtered and sorted there).
  exportUrl(q, fmt) { return this.url("export", Object.assign(this.tableParams(q), { page: null, size: null, fmt })); }

  async getExport(q, fmt) {
    const res = await this.send("export", Object.assign(this.tableParams(q), { page: null, size: null, fmt }));
    if (res.status !== 200) throw requestError(this.base, "export", statusText(res, await jsonOf(res)));
    return res.text();
  }

  async getTable(q) {
    const { r, d } = this.device(q.rank, q.dev);
    const j = await this.get("table", this.tableParams(q));
    const a = this.withMeta(allocColumns(j.rows, d.allocs.groups, r.strings), r, d);
    const rows = Uint32Array.from({ length: a.n }, (_, i) => i);
    a.n = j.n; // the device's count, for "N of M allocations"
    a.summarised = 0;
    // Ascend: MindStudio Insight's columns, made by the server (active release times, and
    // the totals at allocation and release that the report reads off the curves; -1 unknown)
    if (j.rows.tr) {
      a.tr = Float64Array.from(j.rows.tr);
      a.totals = {};
      a.tot = {};
      [["aA", "allocated"], ["aR", "reserved"], ["aC", "active"], ["rA", "allocated"], ["rR", "reserved"], ["rC", "active"]].forEach(([k, kind]) => {
        if (!j.rows[k]) return;
        a.totals[kind] = true;
        a.tot[k] = Float64Array.from(j.rows[k]);
      });
    }
    return { rows, all: rows, total: j.total, page: j.page, pages: j.pages, allocs: a, ids: a.id };
  }

  // A stack of the rank's stack table (device.segview's block and event stacks), as
  // EmbeddedSource.stackOf: [{name, file, line}] ([] for 0).
  async stackOf(rank, id) {
    if (!id) return [];
    if (!this.stacks) this.stacks = new Map();
    const k = rank + "/" + id;
    if (!this.stacks.has(k)) this.stacks.set(k, this.get("stack", { rank, id }).then((j) => j.stack));
    return this.stacks.get(k);
  }

  async getLiveAt(rank, dev, t, by = "op") {
    return this.get("live", { rank, dev, t: Math.round(t), by });
  }

  // /api/perf?rank=K: the perf object (made by the server when first asked), or
  // null when the rank has none (404; the rank's perfWhy says why).
  async getPerf(rank) {
    const r = this.meta.ranks[rank];
    if (!r || !r.loaded) throw new Error("rank " + rank + " is not loaded");
    if (r.perf === false) return null;
    if (!this.perfs) this.perfs = new Map();
    if (!this.perfs.has(rank)) {
      const q = this.perfTop ? { rank, top: this.perfTop } : { rank };
      this.perfs.set(rank, this.get("perf", q, [200, 404]).then((j) => {
        if (j._status !== 200) { if (j.error && !r.perfWhy) r.perfWhy = j.error; return null; }
        delete j._status;
        return j;
      }));
    }
    return this.perfs.get(rank);
  }

  // Rows per operator and kernel table in the perf objects asked from now on
  // (the server's default, 1000, until set): the views' "List the top N".
  setPerfTop(n) {
    this.perfTop = n;
    if (this.perfs) this.perfs.clear();
  }

  // /api/compare?base=K&new=J: any two loaded runs compared (`memlens diff`'s pair object).
  async getCompare(base, nw) {
    const j = await this.get("compare", { base, new: nw });
    delete j._status;
    return j;
  }

  async getTrace(rank, t0, t1, px, opts) { return httpGetTrace(this, rank, t0, t1, px, opts); }
  async getSliceDetail(rank, id) { return httpSliceDetail(this, rank, id); }
  traceJsonUrl(rank) { return httpTraceJsonUrl(this, rank); }
  async findSlice(rank, q, after, dir) { return httpFindSlice(this, rank, q, after, dir); }
  async getTraceJson(rank) {
    const res = await this.send("trace.json", { rank });
    if (res.status !== 200) throw requestError(this.base, "trace.json", statusText(res, await jsonOf(res)));
    return res.text();
  }
}

// The error of a failed request to the server: "memlens serve: /api/ROUTE: WHAT".
export function requestError(base, route, what) { return new Error(`memlens serve: ${base}${route}: ${what}`); }

// An answer's JSON, or null when it is not JSON.
async function jsonOf(res) {
  try { return await res.json(); } catch { return null; }
}

// What an answer of an unexpected status says: "HTTP 500 (the server's error)".
function statusText(res, body) {
  const why = body && typeof body === "object" && body.error ? String(body.error) : "";
  return `HTTP ${res.status}` + (why ? ` (${why})` : "");
}

// A job's report keeps an embedded rank's object in <script id="ml-rank-K">
// (web/DATA.md "lazy"): the meta has the few fields read of every rank at
// the start; its columns and devices are parsed the first time one is read.
const LAZY_KEYS = new Set(["devices", "stack_start", "stack_frames", "frame_name", "frame_file", "frame_line",
  "strings", "categories", "category_order", "reasons", "trace"]);
function lazyRank(stub, doc) {
  let full = false;
  return new Proxy(stub, {
    get(t, k) {
      if (!full && LAZY_KEYS.has(k)) {
        full = true;
        const el = doc.getElementById("ml-rank-" + t.lazy);
        if (el) Object.assign(t, JSON.parse(el.textContent));
      }
      return t[k];
    },
  });
}

// The Cluster view's data, from a report's meta or the server's answer (web/DATA.md "cluster").
function clusterData(c, rankNo, begin, time, peak, comm, embedded, budget, slotOf, shift) {
  const { steps, n_ranks: nRanks, n_steps: nSteps } = c;
  const summary = { ranks: c.ranks, world_size: c.world_size, ranks_per_node: c.ranks_per_node, metrics: c.metrics,
    per_rank: c.per_rank, outliers: c.outliers };
  return { steps, nRanks, nSteps, rankNo, begin, time, peak, comm, embedded: embedded || null, budget, summary,
    slotOf: slotOf || null, shift: shift || null };
}

function clampPx(px) { return Math.max(1, Math.min(20000, Math.round(px))); }

// The source of a report page: meta from <script id="ml-meta">, blobs from <script id="ml-bN">.
export function pageSource(doc) {
  if (doc.getElementById("ml-server")) {
    const cfg = JSON.parse(doc.getElementById("ml-server").textContent);
    return new HttpSource(cfg.api || "/api/");
  }
  const meta = JSON.parse(doc.getElementById("ml-meta").textContent);
  meta.ranks = meta.ranks.map((r) => (r.lazy != null ? lazyRank(r, doc) : r));
  return new EmbeddedSource(meta, (b) => {
    const el = doc.getElementById("ml-b" + b);
    if (!el) throw new Error("memlens: missing data block " + b);
    return el.textContent;
  }, (k) => {
    const el = doc.getElementById("ml-perf-" + k);
    return el ? el.textContent : null;
  }, () => {
    const el = doc.getElementById("ml-compare");
    return el ? el.textContent : null;
  });
}
