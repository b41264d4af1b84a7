// devorder.js — the order devices are offered in: accelerators (cuda:N,
// npu:N, ...) before the host's cpu in every picker and track list, and the
// device a view opens on (the accelerator with the highest peak: that is
// where memory runs out).

// Whether a device id names the host ("cpu", "cpu:0").
export function isCpuDevice(id) { return /^cpu(:|$)/i.test(String(id || "")); }

// The indices of ids in offering order: accelerators first, each group in its own order.
export function deviceOrder(ids) {
  const k = ids.map((id, i) => i);
  return k.filter((i) => !isCpuDevice(ids[i])).concat(k.filter((i) => isCpuDevice(ids[i])));
}

// The index of the device to open among devices [{id, peak}] (peak: a number
// of bytes, or null): the accelerator with the highest peak; without one, the
// highest peak of any; 0 when none has a peak.
export function defaultDevice(devices) {
  let best = -1, bestV = -Infinity, bestAcc = false;
  devices.forEach((d, i) => {
    const v = d.peak, acc = !isCpuDevice(d.id);
    if (typeof v !== "number" || !(v >= 0)) return;
    if ((acc && !bestAcc) || (acc === bestAcc && v > bestV)) { best = i; bestV = v; bestAcc = acc; }
  });
  return best >= 0 ? best : 0;
}

// The same for a comparison's devices (one element of `memlens diff --json`'s
// pairs[].devices): each side's peak counts, the higher of the two.
export function defaultCompareDevice(devices) {
  return defaultDevice((devices || []).map((d) => {
    const p = d.peak_allocated_bytes || {}, v = Math.max(p.base ?? -1, p.new ?? -1);
    return { id: d.base_id || d.new_id || d.id, peak: v >= 0 ? v : null };
  }));
}
