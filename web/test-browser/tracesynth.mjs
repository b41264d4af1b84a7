// tracesynth.mjs — a synthetic "trace" object for a report page (the columns
// of src/output/report/report_trace.c, web/DATA.md), to measure the Trace view on
// any number of slices without a trace file of that size:
//
//   node web/test-browser/tracesynth.mjs REPORT.html N OUT.html
//
// replaces rank 0's trace by N slices over 16 threads and 8 streams (nested
// host ranges, kernels launched by runtime calls, flows between them).
import fs from "node:fs";

function lcg(seed) { let s = seed >>> 0; return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296); }

export function synthTrace(n, seed = 1) {
  const rnd = lcg(seed);
  const names = ["", "ProfilerStep#1", "aten::linear", "aten::addmm", "aten::mm", "cudaLaunchKernel", "aten::relu", "aten::add_",
    "ampere_sgemm_128x64_tn", "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
    "Memcpy HtoD (Pageable -> Device)", "nccl:all_reduce", "ncclKernel_AllReduce_RING_LL_Sum_float", "aten::layer_norm", "aten::softmax"];
  const threads = 16, streams = 8;
  const rows = [];  // [ts, dur, track, depth, name, kind, launcherRow]
  const perTrack = Math.floor(n / (threads * 2));
  let launches = [];
  for (let th = 0; th < threads; th++) {
    let t = 1000 + Math.floor(rnd() * 1000);
    let made = 0;
    while (made < perTrack) {
      // a top range with 3 ops, each with a launch
      const top = { ts: t, depth: 0, name: 2, kind: 0 };
      let c = t + 50;
      const kids = [];
      for (let k = 0; k < 3; k++) {
        const d = 200 + Math.floor(rnd() * 3000);
        kids.push([c, d, th, 1, [3, 4, 6, 7, 13, 14][Math.floor(rnd() * 6)], 0, -1]);
        kids.push([c + 20, 40 + Math.floor(rnd() * 40), th, 2, 5, 3, -1]);
        launches.push(rows.length + 1 + kids.length - 1);
        c += d + 30 + Math.floor(rnd() * 200);
      }
      rows.push([top.ts, c - t, th, 0, top.name, 0, -1], ...kids);
      made += 1 + kids.length;
      t = c + 100 + Math.floor(rnd() ** 4 * 100000);
    }
  }
  // kernels: one per launch, on a stream, after its launch, not overlapping per stream
  const free = new Float64Array(streams);
  for (const li of launches) {
    const l = rows[li], s = li % streams;
    const ts = Math.max(free[s], l[0] + 2000), d = 300 + Math.floor(rnd() ** 2 * 20000);
    free[s] = ts + d + 50;
    rows.push([ts, d, threads + s, 0, [8, 9, 12][li % 3], 5, li]);
  }
  const order = Uint32Array.from(rows.keys()).sort((a, b) => rows[a][0] - rows[b][0] || a - b);
  const newId = new Uint32Array(rows.length);
  order.forEach((r, k) => { newId[r] = k; });
  const N = rows.length;
  const u32 = (f) => Uint32Array.from(order, (r, k) => f(rows[r], k));
  const tsd = new Uint32Array(N);
  for (let k = 1; k < N; k++) tsd[k] = rows[order[k]][0] - rows[order[k - 1]][0];
  const flowsFrom = [], flowsTo = [];
  order.forEach((r, k) => { if (rows[r][6] >= 0) { flowsFrom.push(newId[rows[r][6]]); flowsTo.push(k); } });
  const cols = { ts: tsd, dur: u32((r) => r[1]), track: u32((r) => r[2]), name: u32((r) => r[4]), depth: Uint8Array.from(order, (r) => rows[r][3]),
    kind: Uint8Array.from(order, (r) => rows[r][5]), launcher: u32((r) => (r[6] >= 0 ? newId[r[6]] + 1 : 0)), info: new Uint32Array(N),
    ffrom: Uint32Array.from(flowsFrom), fto: Uint32Array.from(flowsTo), fcat: new Uint8Array(flowsFrom.length) };
  const tracks = [];
  const cnt = new Uint32Array(threads + streams);
  for (const r of rows) cnt[r[2]]++;
  for (let th = 0; th < threads; th++) tracks.push({ id: th, pid: "100", tid: String(5000 + th), kind: "thread", label: `thread ${5000 + th} (python)`, process: "python (100)", device: -1, stream: -1, slices: cnt[th], depths: 3 });
  for (let s = 0; s < streams; s++) tracks.push({ id: threads + s, pid: "0", tid: String(7 + s), kind: "stream", label: `stream ${7 + s}`, process: "GPU 0", device: 0, stream: 7 + s, slices: cnt[threads + s], depths: 1 });
  const first = rows[order[0]][0], last = rows.reduce((m, r) => Math.max(m, r[0] + r[1]), 0);
  return { cols, meta: { kinds: [], total: N, n: N, begin: first, end: last, cut_ns: -1, ts0: first, ts_big: [], dur_big: [], tracks, strings: names,
    op: { n: 0 }, kern: { n: 0 }, flows: { n: flowsFrom.length, cats: ["ac2g"] } } };
}

// Puts the synthetic trace into a report's HTML as rank 0's "trace".
export function injectTrace(html, synth, firstBlob = 900000) {
  const m = html.match(/<script type="application\/json" id="ml-meta">([\s\S]*?)<\/script>/);
  const meta = JSON.parse(m[1].replace(/<\\\//g, "</"));
  let b = firstBlob;
  const blobs = [];
  const desc = (arr) => {
    const dt = arr instanceof Uint8Array ? "u8" : "u32";
    blobs.push(`<script type="application/x-memlens" id="ml-b${b}">${Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength).toString("base64")}</script>`);
    return { b: b++, dt, n: arr.length };
  };
  const t = synth.meta, c = synth.cols;
  Object.assign(t, { ts: desc(c.ts), dur: desc(c.dur), track: desc(c.track), name: desc(c.name), depth: desc(c.depth), kind: desc(c.kind),
    launcher: desc(c.launcher), info: desc(c.info) });
  Object.assign(t.flows, { from: desc(c.ffrom), to: desc(c.fto), cat: desc(c.fcat) });
  meta.ranks[0].trace = t;
  const text = JSON.stringify(meta).replace(/<\//g, "<\\/");
  return html.replace(m[0], () => `<script type="application/json" id="ml-meta">${text}</script>\n${blobs.join("\n")}`);
}

if (process.argv[1] && process.argv[1].endsWith("tracesynth.mjs")) {
  const [inp, n, out] = process.argv.slice(2);
  fs.writeFileSync(out, injectTrace(fs.readFileSync(inp, "utf8"), synthTrace(+n)));
}
