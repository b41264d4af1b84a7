#!/usr/bin/env python3
"""Expected figures for an old (PyTorch ~1.9) trace without Addr/totals:
per device, alloc and free counts and the peak of the running sum of Bytes
(events ordered by (ts, file order)), with the time of its first occurrence."""
import gzip, json, sys
from decimal import Decimal
d = json.loads(gzip.open(sys.argv[1]).read())
mem = []
for i, e in enumerate(d['traceEvents']):
    if e.get('name') == '[memory]':
        a = e['args']
        dev = 'cpu' if a.get('Device Type', 0) == 0 else 'cuda:%d' % a['Device Id']
        mem.append((int(Decimal(str(e['ts'])) * 1000), i, dev, a['Bytes']))
mem.sort(key=lambda m: (m[0], m[1]))
for dev in sorted({m[2] for m in mem}):
    level, peak, t, na, nf = 0, None, None, 0, 0
    for ts, i, dv, b in mem:
        if dv != dev or b == 0: continue
        level += b
        na += b > 0; nf += b < 0
        if peak is None or level > peak: peak, t = level, ts
    print(dev, na, nf, peak, t)
