#!/usr/bin/env python3
"""How well memlens' memory categories agree with a generated trace's ground truth.

    category_agreement.py TRUTH.csv MEMLENS.csv [EXPECT.json SUMMARY.json] [--min PCT]

TRUTH.csv is gen_trace --truth (device, addr, alloc_ts_ns, free_ts_ns, bytes,
category); MEMLENS.csv is `memlens export TRACE -o FILE.csv`.  Each true
allocation is found in memlens' rows by (device, addr, alloc time), or, for
memory from before the trace, by (device, addr, free time); memory from before
the trace that is never freed has no row and counts as memlens' unexplained-gap
row (PARAMETER_OR_STATE).  Prints, per true category, the share of bytes
memlens put in the same category: strict, and "lenient" where
PARAMETER_OR_STATE counts as right for PARAMETER and OPTIMIZER_STATE.
With EXPECT.json (gen_trace --expect) and SUMMARY.json (memlens summary --json)
it also compares categories_at_peak per device.  --min PCT exits 1 when the
lenient share of all bytes, or at the peak, is below PCT.
"""
import csv
import json
import sys

MIXED = "PARAMETER_OR_STATE"


def lenient_ok(true, got):
    return got == true or (got == MIXED and true in ("PARAMETER", "OPTIMIZER_STATE"))


def main(argv):
    minimum = None
    if "--min" in argv:
        i = argv.index("--min")
        minimum = float(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    truth_path, ours_path = argv[0], argv[1]
    by_alloc, by_free, gap = {}, {}, {}
    with open(ours_path, newline="") as f:
        for r in csv.DictReader(f):
            if r["reason"] == "unexplained_gap":
                gap[r["device"]] = r["category"]
            elif r["alloc_time_ns"]:
                by_alloc[(r["device"], r["addr"], r["alloc_time_ns"])] = r["category"]
            elif r["free_time_ns"]:
                by_free[(r["device"], r["addr"], r["free_time_ns"])] = r["category"]
    stats = {}  # true category -> [bytes, strict right, lenient right]
    confusion = {}
    with open(truth_path, newline="") as f:
        for r in csv.DictReader(f):
            dev, addr, ta, tf, n, cat = (r["device"], r["addr"], r["alloc_ts_ns"], r["free_ts_ns"],
                                         int(r["bytes"]), r["category"])
            if ta:
                got = by_alloc.get((dev, addr, ta), "(missing)")
            elif tf:
                got = by_free.get((dev, addr, tf), "(missing)")
            else:
                got = gap.get(dev, "(missing)")
            s = stats.setdefault(cat, [0, 0, 0])
            s[0] += n
            s[1] += n if got == cat else 0
            s[2] += n if lenient_ok(cat, got) else 0
            if got != cat:
                confusion[(cat, got)] = confusion.get((cat, got), 0) + n
    tot = [sum(s[k] for s in stats.values()) for k in range(3)]
    print("by allocation (share of bytes in the right category):")
    print("  %-16s %16s %8s %8s" % ("true category", "bytes", "strict", "lenient"))
    for cat, s in sorted(stats.items()):
        print("  %-16s %16d %7.2f%% %7.2f%%" % (cat, s[0], 100 * s[1] / s[0], 100 * s[2] / s[0]))
    print("  %-16s %16d %7.2f%% %7.2f%%" % ("all", tot[0], 100 * tot[1] / tot[0], 100 * tot[2] / tot[0]))
    if confusion:
        print("  largest disagreements (true -> memlens: bytes):")
        for (t, g), n in sorted(confusion.items(), key=lambda x: -x[1])[:6]:
            print("    %s -> %s: %d" % (t, g, n))
    worst = 100 * tot[2] / tot[0]
    if len(argv) >= 4:
        expect = json.load(open(argv[2]))
        summary = json.load(open(argv[3]))
        ours = {d["id"]: d.get("categories_at_peak") or {} for d in summary["devices"]}
        print("at the peak (categories_at_peak):")
        for d in expect["devices"]:
            want = d["categories_at_peak"]
            got = dict(ours.get(d["id"], {}))
            total = sum(want.values())
            # lenient: the mixed label may stand for parameters and optimizer state
            right = sum(min(want.get(c, 0), got.get(c, 0)) for c in want)
            mixed_true = want.get("PARAMETER", 0) + want.get("OPTIMIZER_STATE", 0)
            mixed_strict = min(want.get("PARAMETER", 0), got.get("PARAMETER", 0)) + \
                min(want.get("OPTIMIZER_STATE", 0), got.get("OPTIMIZER_STATE", 0))
            lenient = right - mixed_strict + min(mixed_true, got.get("PARAMETER", 0) +
                                                 got.get("OPTIMIZER_STATE", 0) + got.get(MIXED, 0))
            pct_s, pct_l = 100 * right / total, 100 * lenient / total
            print("  %-8s %14d bytes: strict %6.2f%%, lenient %6.2f%%" % (d["id"], total, pct_s, pct_l))
            for c in sorted(set(want) | set(got)):
                if want.get(c, 0) != got.get(c, 0):
                    print("    %-18s true %14d  memlens %14d" % (c, want.get(c, 0), got.get(c, 0)))
            worst = min(worst, pct_l)
    if minimum is not None and worst < minimum:
        print("agreement %.2f%% is below %.2f%%" % (worst, minimum))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
