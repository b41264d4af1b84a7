#!/usr/bin/env python3
"""Independent computation of the figures tests/test_kineto.c asserts.

Reads a Kineto trace with Python's json module (no memlens code) and prints,
per device: alloc/free counts, frees without an alloc, never-freed count and
bytes, peak Total Allocated (first instant in (ts, file order)) and its time in
ns, peak Total Reserved, and the live set at the peak by top-level cpu_op.
Usage: tests/kineto_expected.py TRACE.json[.gz]
"""
import gzip, json, sys
from collections import defaultdict

def load(path):
    raw = open(path, 'rb').read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    d = json.loads(raw)
    return d if isinstance(d, dict) else {'traceEvents': d}

def us_to_ns(v):
    # exact: the text of a float with <= 3 decimals
    from decimal import Decimal
    return int(Decimal(str(v)) * 1000)

def main(path):
    d = load(path)
    base = d.get('baseTimeNanoseconds', 0)
    evs = d['traceEvents']
    mem, ops = [], defaultdict(list)
    for i, e in enumerate(evs):
        if e.get('name') == '[memory]':
            a = e['args']
            dt, di = a.get('Device Type', 0), a.get('Device Id', -1)
            dev = 'cpu' if dt == 0 else 'cuda:%d' % di
            mem.append((us_to_ns(e['ts']) + base, i, dev, a, (str(e['pid']), str(e['tid']))))
        elif e.get('ph') == 'X' and e.get('cat') == 'cpu_op':
            ops[(str(e['pid']), str(e['tid']))].append((us_to_ns(e['ts']) + base, us_to_ns(e.get('dur', 0)), e['name']))
    mem.sort(key=lambda m: (m[0], m[1]))
    out = {}
    for dev in sorted({m[2] for m in mem}):
        ms = [m for m in mem if m[2] == dev]
        live, allocs = {}, []
        frees = unmatched = 0
        peak = (-1, None, None)
        peak_res = -1
        for k, (ts, i, _, a, th) in enumerate(ms):
            b = a['Bytes']
            if b > 0:
                live[a['Addr']] = len(allocs)
                allocs.append([ts, None, b, th])
            else:
                frees += 1
                j = live.pop(a['Addr'], None)
                if j is None: unmatched += 1
                else: allocs[j][1] = ts
            if a.get('Total Allocated', -1) > peak[0]:
                peak = (a['Total Allocated'], ts, k)
            peak_res = max(peak_res, a.get('Total Reserved', -1))
        # live at the peak: allocated at or before event k, freed after it
        pk_k = peak[2]
        at_peak = []
        for k, (ts, i, _, a, th) in enumerate(ms[:pk_k + 1]):
            pass
        live2 = {}
        for k, (ts, i, _, a, th) in enumerate(ms[:pk_k + 1]):
            if a['Bytes'] > 0: live2[a['Addr']] = (ts, a['Bytes'], th)
            else: live2.pop(a['Addr'], None)
        groups = defaultdict(lambda: [0, 0])
        traced = 0
        for ts, size, th in live2.values():
            traced += size
            top = '(no operator)'
            for ots, odur, name in sorted(ops[th], key=lambda o: (o[0], -o[1])):
                if ots <= ts < ots + odur:
                    top = name
                    break
            groups[top][0] += size
            groups[top][1] += 1
        never = [x for x in allocs if x[1] is None]
        out[dev] = dict(allocs=len(allocs), frees=frees, unmatched_frees=unmatched,
                        never_freed=len(never), never_freed_bytes=sum(x[2] for x in never),
                        peak_allocated=peak[0], peak_time_ns=peak[1], peak_reserved=peak_res,
                        before_trace_at_peak=peak[0] - traced,
                        top=sorted(([g, v[0], v[1]] for g, v in groups.items()), key=lambda x: -x[1])[:5])
    json.dump(out, sys.stdout, indent=1)
    print()

if __name__ == '__main__':
    main(sys.argv[1])
