// HTA's GPU-time panels (gputime.js): the counter tracks' series decoded to
// times on the trace's clock and drawn per window by M4 without losing a
// peak; the panels' figures and the outlier links.
import test from "node:test";
import assert from "node:assert/strict";
import { gtCounterTracks, gtTemporal, gtIdle, gtKernelTypes, gtLaunches } from "../src/gputime.js";
import { m4Points } from "../src/m4.js";

const g = {
  temporal: { span_ns: 130000, idle_ns: 59000, compute_ns: 41000, non_compute_ns: 30000 },
  idle_by_stream: [{ stream: 7, host_wait_ns: 20000, kernel_wait_ns: 39000, other_ns: 30000, gaps: [1, 2, 1] }],
  kernel_types: [{ type: "COMPUTATION", ns: 26000 }, { type: "COMPUTATION overlapping COMMUNICATION", ns: 10000 }],
  comm_comp_overlap: 1 / 3, comm_ns: 45000, kernel_wait_ns: 30000,
  launches: { count: 2, cpu_ns: 9000, gpu_ns: 30000, delay_ns: 60000, delay_max_ns: 50000, delay_hist: { bin0: 12, counts: [1, 0, 0, 1] },
    outliers: { short_kernels: { cutoff_ns: 50000, count: 0, top: [] }, runtime_outliers: { cutoff_ns: 50000, count: 0, top: [] },
      launch_delay_outliers: { cutoff_ns: 100000, count: 3, top: [{ name: "gemm<a&b>", launcher: "cudaLaunchKernel", start_ns: 60000, dur_ns: 10000, cpu_ns: 4000, gpu_ns: 10000, delay_ns: 150000 }] } } },
  // the queue of tests/cli_hta.sh's trace A, stream 7: 1 2 1 0 1 2 3 2 1 0 at 0, 6, 10, 60, 75, 80, 85, 90, 129, 140 µs after 200 µs
  queues: [{ stream: 7, max: 3, mean: 1.3, blocked_ns: 0, t0_ns: 200000, dt_us: [0, 6, 4, 50, 15, 5, 5, 5, 39, 11], v: [1, 2, 1, 0, 1, 2, 3, 2, 1, 0], summarised: null }],
  membw: [{ kind: "Memcpy DtoD", max_gbps: 100, t0_ns: 225000, dt_us: [0, 10, 0, 5], v: [100, 0, 60, 0], summarised: null }],
};

test("counter tracks: the series on the trace's clock, a track per stream and per kind of copy", () => {
  const tracks = gtCounterTracks(g, 1e9);
  assert.deepEqual(tracks.map((t) => t.label), ["queue length, stream 7", "bandwidth, Memcpy DtoD"]);
  const q = tracks[0].curve;
  assert.deepEqual(Array.from(q.t), [0, 6, 10, 60, 75, 80, 85, 90, 129, 140].map((us) => 1e9 + 200000 + us * 1000));
  assert.deepEqual(Array.from(q.v), [1, 2, 1, 0, 1, 2, 3, 2, 1, 0]);
  // one pixel for the whole series keeps its first, lowest, highest and last point: the peak 3 stays
  const one = m4Points(q, q.t[0], q.t[q.n - 1] + 1, 1);
  assert.equal(Math.max(...one.v), 3);
  assert.ok(one.t.length <= 6, String(one.t.length));
  assert.deepEqual(gtCounterTracks(null, 0), []);
});

test("panels: the figures of the perf object, the outliers linked by name and start", () => {
  const t = gtTemporal(g);
  assert.match(t, /data-key="compute_ns"/);
  assert.match(t, /width:31\.538%/);   // 41 of 130 µs
  assert.match(gtIdle(g), /data-stream="7"/);
  const k = gtKernelTypes(g);
  assert.match(k, /data-type="COMPUTATION overlapping COMMUNICATION"/);
  assert.match(k, /33\.33 %/);
  const l = gtLaunches(g);
  assert.match(l, /<a class="gt-call" href="#" data-ts="60000" data-dur="10000" data-name="gemm&lt;a&amp;b&gt;"/);
  assert.match(l, /the 1 worst of 3/);
  assert.match(gtLaunches({ launches: null }), /No kernel launches to pair \(no cudaLaunchKernel/);
  assert.match(gtLaunches({ launches: null }, "NPU"), /No kernel launches to pair \(no CANN call linked to a task by its connection id\)/);
});
