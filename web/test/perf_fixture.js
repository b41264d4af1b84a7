// perf_fixture.js — perf objects of the shape of web/DATA.md "Profiler views
// (time side)", for the JS tests and the browser test until (and besides)
// the C analyses: makePerf({ops, kernels, steps, ranks, modules}) is
// deterministic (a small LCG), perf_fixture.json is makePerf() written out.

function lcg(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 4294967296; };
}

const OPS = ["aten::mm", "aten::addmm", "aten::conv2d", "aten::convolution", "aten::cudnn_convolution", "aten::relu",
  "aten::add_", "aten::copy_", "aten::to", "aten::linear", "aten::layer_norm", "aten::native_layer_norm", "aten::softmax",
  "aten::_softmax", "aten::bmm", "aten::matmul", "aten::empty", "aten::zeros", "aten::cat", "aten::view",
  "autograd::engine::evaluate_function: MmBackward0", "Optimizer.step#AdamW.step", "nccl:all_reduce", "aten::embedding"];
const KERNELS = ["ampere_sgemm_128x64_tn", "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize96x128x32", "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
  "void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
  "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>", "Memcpy HtoD (Pageable -> Device)",
  "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>", "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", "void softmax_warp_forward<float, float, float, 10, false>"];

export function makePerf(o = {}) {
  const nOps = o.ops ?? 40, nK = o.kernels ?? 24, nSteps = o.steps ?? 5, ranks = o.ranks ?? 1, rnd = lcg(o.seed ?? 7);
  const kernels = [];
  for (let k = 0; k < nK; k++) {
    const calls = 1 + Math.floor(rnd() * 400), mean = Math.round(2000 + rnd() * 400000);
    const base = KERNELS[k % KERNELS.length];
    kernels.push({ name: k < KERNELS.length ? base : `${base} #${k}`, calls, total_ns: calls * mean, mean_ns: mean,
      min_ns: Math.round(mean * (0.3 + rnd() * 0.6)), max_ns: Math.round(mean * (1.1 + rnd() * 3)),
      blocks_per_sm: k % 5 === 4 ? null : Math.round(rnd() * 80) / 10, occupancy: k % 5 === 4 ? null : Math.round(rnd() * 1000) / 10,
      tensor_cores: /gemm|s884/.test(base) });
  }
  const byName = [], byShape = [];
  for (let i = 0; i < nOps; i++) {
    const name = i < OPS.length ? OPS[i] : `${OPS[i % OPS.length]}_${i}`;
    const calls = 1 + Math.floor(rnd() * 200);
    const hs = Math.round(rnd() * 5e6), ht = hs + Math.round(rnd() * 2e7);
    const launches = rnd() < 0.6;
    const ds = launches ? Math.round(rnd() * 3e7) : 0, dt = ds + (launches ? Math.round(rnd() * 1e7) : 0);
    const ks = launches ? [Math.floor(rnd() * nK), Math.floor(rnd() * nK)].filter((v, j, a) => a.indexOf(v) === j) : [];
    const tc = /mm|conv|linear|matmul/.test(name);
    const row = { name, input_shape: null, calls, host_self_ns: hs, host_total_ns: ht, device_self_ns: ds, device_total_ns: dt,
      tc_eligible: tc, tc_self_ratio: tc && ds ? Math.round(rnd() * 100) / 100 : 0, tc_total_ratio: tc && dt ? Math.round(rnd() * 100) / 100 : 0,
      stack: i % 3 ? [`train.py(${40 + i}): step`, `model.py(${100 + i}): forward`, "torch/nn/modules/module.py(1501): _call_impl"] : null,
      kernels: ks };
    byName.push(row);
    const shapes = ["[[32, 3, 224, 224], [64, 3, 7, 7]]", "[[128, 768], [768, 768]]", "[[]]"];
    let left = calls;
    for (let s = 0; s < shapes.length && left > 0; s++) {
      const c = s === shapes.length - 1 ? left : Math.max(1, Math.floor(left / 2));
      left -= c;
      const f = c / calls;
      byShape.push(Object.assign({}, row, { input_shape: shapes[s], calls: c, host_self_ns: Math.round(hs * f), host_total_ns: Math.round(ht * f),
        device_self_ns: Math.round(ds * f), device_total_ns: Math.round(dt * f) }));
    }
  }
  const byOp = [];
  kernels.forEach((k, ki) => {
    const ops = byName.filter((r) => r.kernels.includes(ki));
    if (!ops.length) byOp.push(Object.assign({ op: null }, k));
    ops.forEach((r, j) => {
      const c = Math.max(1, Math.round(k.calls / ops.length));
      byOp.push(Object.assign({}, k, { op: r.name, calls: c, total_ns: c * k.mean_ns }));
    });
  });
  const steps = [];
  let t = 1_000_000;
  const keys = ["kernel_ns", "memcpy_ns", "memset_ns", "communication_ns", "runtime_ns", "dataloader_ns", "cpu_exec_ns", "other_ns"];
  for (let s = 0; s < nSteps; s++) {
    const st = { name: `ProfilerStep#${s + 5}` };
    let total = 0;
    for (const k of keys) { st[k] = Math.round((k === "kernel_ns" ? 40e6 : k === "dataloader_ns" && s === 0 ? 30e6 : 4e6) * (0.5 + rnd())); total += st[k]; }
    Object.assign(st, { begin_ns: t, end_ns: t + total, total_ns: total });
    t += total + 100_000;
    steps.push(st);
  }
  const avg = {};
  for (const k of ["total_ns"].concat(keys)) avg[k] = Math.round(steps.reduce((a, s) => a + s[k], 0) / (steps.length || 1));
  const modules = o.modules === false ? [] : [
    { name: "GPT", parent: -1, depth: 0, occurrences: nSteps, operators: 900, host_ns: 9e8, device_ns: 7e8 },
    { name: "GPT.transformer", parent: 0, depth: 1, occurrences: nSteps, operators: 850, host_ns: 8e8, device_ns: 6.5e8 },
    { name: "GPT.transformer.h.0", parent: 1, depth: 2, occurrences: nSteps, operators: 400, host_ns: 4e8, device_ns: 3.2e8 },
    { name: "GPT.transformer.h.0.attn", parent: 2, depth: 3, occurrences: nSteps, operators: 200, host_ns: 2.5e8, device_ns: 2e8 },
    { name: "GPT.transformer.h.0.mlp", parent: 2, depth: 3, occurrences: nSteps, operators: 180, host_ns: 1.4e8, device_ns: 1.1e8 },
    { name: "GPT.transformer.h.1", parent: 1, depth: 2, occurrences: nSteps, operators: 400, host_ns: 3.9e8, device_ns: 3.1e8 },
    { name: "GPT.lm_head", parent: 0, depth: 1, occurrences: nSteps, operators: 30, host_ns: 5e7, device_ns: 4e7 },
  ];
  const dist = ranks > 1 ? {
    backend: "nccl", world_size: ranks, slowest_rank: ranks - 1,
    steps: Array.from({ length: ranks * nSteps }, (_, i) => ({ rank: Math.floor(i / nSteps), step: steps[i % nSteps].name,
      computation_ns: Math.round(40e6 * (0.8 + rnd() * 0.4)), communication_ns: Math.round(10e6 * (0.5 + rnd())),
      overlap_ns: Math.round(4e6 * rnd()), other_ns: Math.round(6e6 * rnd()) })),
    collectives: [{ name: "nccl:all_reduce", calls: 120, bytes: 1.2e9, total_ns: 8.1e7, mean_ns: 6.75e5 },
      { name: "nccl:broadcast", calls: 2, bytes: 4.4e8, total_ns: 9e6, mean_ns: 4.5e6 },
      { name: "nccl:all_gather", calls: 40, bytes: 2e8, total_ns: 1.2e7, mean_ns: 3e5 }],
  } : null;
  return {
    span: { begin_ns: 1_000_000, end_ns: t },
    counts: { events: 123456, slices: 98765, steps: nSteps, operators_unique: nOps, kernels: kernels.reduce((a, k) => a + k.calls, 0), kernel_names: nK },
    devices: [{ id: "cuda:0", name: "NVIDIA A100-SXM4-40GB", total_memory_bytes: 42505273344, compute_capability: "8.0", sm_count: 108,
      utilization: 0.62, sm_efficiency: 0.55, occupancy: 41.3, tensor_core_share: 0.23, kernel_ns: avg.kernel_ns * nSteps }],
    steps, step_average: avg,
    recommendations: [
      { id: "dataloader", text: "The data loader takes 12% of the step time: use DataLoader(num_workers > 0, pin_memory=True).", value: 0.12, threshold: 0.05 },
      { id: "gpu_utilization", text: "The GPU is idle 38% of the time: launch bigger batches or overlap the host's work.", value: 0.62, threshold: 0.8 },
      { id: "tensor_cores", text: "Only 23% of the kernel time runs on Tensor Cores: use mixed precision (torch.autocast).", value: 0.23, threshold: 0.5 },
    ],
    operators: { by_name: byName, by_shape: byShape },
    kernels: { by_name: kernels, by_op: byOp },
    modules, modules_hint: modules.length ? null : "Record with torch.profiler.profile(with_modules=True) (and with_stack=True) to see the module hierarchy.",
    distributed: dist,
  };
}
