#!/usr/bin/env python3
"""Independent computation of what `memlens summary --json` reports for a Kineto trace.

Reads the trace with Python's json module (no memlens code) and prints, per
device, the --json fields: alloc/free counts, frees without an alloc,
never-freed count and bytes, peak Total Allocated (the first instant it is
reached in (ts, file order)) and its time in ns, peak Total Reserved, the
bytes from before the trace at the peak, and every group live at the peak by
top-level cpu_op (outermost op on the allocating thread whose [ts, ts+dur)
holds the allocation), the before-trace group among them in byte order.
For traces with addresses (PyTorch >= 1.10); tests/cli_kineto_real.sh
compares the output with memlens.
Usage: tests/kineto_expected.py TRACE.json[.gz]
"""
import gzip, json, sys
from collections import defaultdict
from decimal import Decimal

# PyTorch's DeviceType numbers and names (PrivateUse1 is torch_npu's npu)
DEVICE_NAMES = ['cpu', 'cuda', 'mkldnn', 'opengl', 'opencl', 'ideep', 'hip', 'fpga', 'maia', 'xla', 'vulkan',
                'metal', 'xpu', 'mps', 'meta', 'hpu', 've', 'lazy', 'ipu', 'mtia', 'npu']
BEFORE = '(allocated before trace)'


def load(path):
    raw = open(path, 'rb').read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    d = json.loads(raw)
    return d if isinstance(d, dict) else {'traceEvents': d}


def us_to_ns(v):
    return int(Decimal(str(v)) * 1000)  # exact for the <= 3 decimals Kineto writes


def device_id(args):
    t = args.get('Device Type', 0)
    if t == 0:
        return 'cpu'
    name = DEVICE_NAMES[t] if 0 <= t < len(DEVICE_NAMES) else 'type%d' % t
    return '%s:%d' % (name, args.get('Device Id', -1))


def device_summary(ms, ops):
    """ms: the device's memory events in (ts, file order)."""
    live, allocs = {}, []
    frees = unmatched = 0
    peak, peak_ts, peak_k = -1, None, None
    peak_res = None
    for k, (ts, _, a, th) in enumerate(ms):
        b = a['Bytes']
        if b > 0:
            live[a['Addr']] = len(allocs)
            allocs.append([ts, None, b, th])
        elif b < 0:
            frees += 1
            j = live.pop(a['Addr'], None)
            if j is None:
                unmatched += 1
            else:
                allocs[j][1] = ts
        if a.get('Total Allocated', -1) > peak:
            peak, peak_ts, peak_k = a['Total Allocated'], ts, k
        if 'Total Reserved' in a:
            peak_res = max(peak_res or 0, a['Total Reserved'])
    # live just after the peak's event: allocated at or before it, not freed by then
    at_peak = {}
    for ts, _, a, th in ms[:peak_k + 1]:
        if a['Bytes'] > 0:
            at_peak[a['Addr']] = (ts, a['Bytes'], th)
        elif a['Bytes'] < 0:
            at_peak.pop(a['Addr'], None)
    groups = defaultdict(lambda: [0, 0])
    traced = 0
    for ts, size, th in at_peak.values():
        traced += size
        top = '(no operator)'
        for ots, odur, name in ops[th]:  # sorted by (ts, -dur): the first that holds ts is the outermost
            if ots <= ts < ots + odur:
                top = name
                break
        groups[top][0] += size
        groups[top][1] += 1
    before = peak - traced
    rows = sorted(({'group': g, 'bytes': v[0], 'count': v[1]} for g, v in groups.items()), key=lambda r: -r['bytes'])
    if before:
        at = next((i for i, r in enumerate(rows) if r['bytes'] < before), len(rows))
        rows.insert(at, {'group': BEFORE, 'bytes': before, 'count': 0})
    never = [x for x in allocs if x[1] is None]
    return dict(alloc_events=len(allocs), free_events=frees, unmatched_frees=unmatched,
                never_freed=len(never), never_freed_bytes=sum(x[2] for x in never),
                peak_allocated_bytes=peak, peak_allocated_time_ns=peak_ts, peak_reserved_bytes=peak_res,
                before_trace_bytes_at_peak=before, top_at_peak=rows)


def main(path):
    d = load(path)
    base = d.get('baseTimeNanoseconds', 0)
    mem, ops = [], defaultdict(list)
    for i, e in enumerate(d['traceEvents']):
        if e.get('name') == '[memory]':
            mem.append((us_to_ns(e['ts']) + base, i, e['args'], (str(e['pid']), str(e['tid']))))
        elif e.get('ph') == 'X' and e.get('cat') == 'cpu_op':
            ops[(str(e['pid']), str(e['tid']))].append((us_to_ns(e['ts']) + base, us_to_ns(e.get('dur', 0)), e['name']))
    for v in ops.values():
        v.sort(key=lambda o: (o[0], -o[1]))
    mem.sort(key=lambda m: (m[0], m[1]))
    devices = []
    for dev in sorted({device_id(m[2]) for m in mem}):
        s = device_summary([m for m in mem if device_id(m[2]) == dev], ops)
        s['id'] = dev
        devices.append(s)
    json.dump({'devices': devices}, sys.stdout, indent=1)
    print()


if __name__ == '__main__':
    main(sys.argv[1])
