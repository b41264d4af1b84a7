#!/usr/bin/env python3
"""A reference for PyTorch's memory timeline formats, to check memlens' exports.

    torch_timeline.py coalesce RAW            PyTorch's [times, sizes] from raw rows, as JSON
    torch_timeline.py check RAW TIMELINE      exit 1 unless TIMELINE == coalesce(RAW) exactly
    torch_timeline.py check-raw RAW           exit 1 unless RAW is in PyTorch's row order
    torch_timeline.py same-levels RAW1 RAW2   exit 1 unless both give the same state per time
    torch_timeline.py us T_NS...              int(T_NS / 1000) for each (the C test's expectations)
    torch_timeline.py check-us [N]            memlens' integer formula against Python on N random times

coalesce() is torch.profiler._memory_profiler.MemoryProfileTimeline._coalesce_timeline
restated over the raw rows that export_memory_timeline_raw writes (t_ns, action,
bytes, category): both walk the same timeline, sorted by (time, action), and
a raw INCREMENT_VERSION is already split into its -bytes and +bytes rows.
Times become µs with int(t / 1000) (float division, then truncation), the
PREEXISTING time -1 becomes the smallest time seen (t_min), and every distinct
time starts a new entry copying the last one, whether or not its totals change.
Files may be .gz.
"""
import gzip
import json
import random
import sys


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def coalesce(rows):
    times, sizes = [], []
    t_min = -1
    for t, _action, nbytes, cat in rows:
        if t != -1:
            t = int(t / 1000)
        if t_min == -1 or (t < t_min and t > 0):
            t_min = t
        if not times:
            times.append(t)
            sizes.append([0] * 9)
        elif t != times[-1]:
            times.append(t)
            sizes.append(sizes[-1].copy())
        sizes[-1][cat + 1] += nbytes
    times = [t_min if t < 0 else t for t in times]
    return [times, sizes]


def levels(rows):
    """The state (8 category totals) after all rows of each distinct time."""
    out, level = [], [0] * 8
    for i, (t, _a, nbytes, cat) in enumerate(rows):
        level[cat] += nbytes
        if i + 1 == len(rows) or rows[i + 1][0] != t:
            out.append((t, tuple(level)))
    return out


def memlens_us(t):
    """memlens' ml_torch_us (src/output/export/export.c), step by step in doubles."""
    if t < 0:
        return -memlens_us(-t)
    q, r = divmod(t, 1000)
    if q < 2 ** 53:
        return int(float(q) + float(r) / 1000.0)
    if q % 2 == 0:
        return q
    if r > 0:
        return q + 1
    return q + 1 if (q + 1) % 4 == 0 else q - 1


def check_us(n):
    rng = random.Random(8)
    bad = 0
    cases = [0, 1, 999, 1000, 2 ** 63 - 1, 2 ** 53 * 1000, 2 ** 53 * 1000 - 1, (2 ** 53 - 1) * 1000 + 999]
    for _ in range(n):
        k = rng.random()
        if k < 0.4:   # epoch ns, 2020..2027
            t = rng.randrange(1_600_000_000_000_000_000, 1_800_000_000_000_000_000)
        elif k < 0.6:
            t = rng.randrange(0, 2 ** 63)
        elif k < 0.8:
            t = rng.randrange(0, 10 ** 13)
        else:         # near every power of two where rounding matters, with the tie remainders
            q = rng.randrange(2 ** 40, 2 ** 54) >> rng.randrange(0, 14)
            t = q * 1000 + rng.choice([0, 1, 125, 250, 375, 500, 625, 750, 875, 996, 997, 998, 999])
            if t >= 2 ** 63:
                continue
        cases.append(t)
    for t in cases:
        if memlens_us(t) != int(t / 1000):
            bad += 1
            if bad <= 5:
                print("differs at %d: memlens %d, Python %d" % (t, memlens_us(t), int(t / 1000)))
    exact = sum(int(t / 1000) != t // 1000 for t in cases)
    print("%d times: %d differ from Python; %d (%.1f%%) differ from t // 1000" %
          (len(cases), bad, exact, 100 * exact / len(cases)))
    return 1 if bad else 0


def main(argv):
    cmd = argv[0] if argv else ""
    if cmd == "coalesce":
        json.dump(coalesce(load(argv[1])), sys.stdout)
        print()
        return 0
    if cmd == "check":
        want, got = coalesce(load(argv[1])), load(argv[2])
        if want == got:
            print("ok: %d entries" % len(want[0]))
            return 0
        print("differs: PyTorch would write %d entries, the file has %d" % (len(want[0]), len(got[0])))
        for i, (a, b) in enumerate(zip(zip(*want), zip(*got))):
            if a != b:
                print("  first difference at entry %d: %s vs %s" % (i, a, b))
                break
        return 1
    if cmd == "check-raw":
        rows = load(argv[1])
        keys = [(r[0], r[1]) for r in rows]
        if keys == sorted(keys):
            print("ok: %d rows in (time, action) order" % len(rows))
            return 0
        i = next(i for i in range(1, len(keys)) if keys[i] < keys[i - 1])
        print("row %d %s comes after %s" % (i, rows[i], rows[i - 1]))
        return 1
    if cmd == "same-levels":
        a, b = levels(load(argv[1])), levels(load(argv[2]))
        if a == b:
            print("ok: %d times" % len(a))
            return 0
        print("differ: %d vs %d times" % (len(a), len(b)))
        return 1
    if cmd == "us":
        print(" ".join(str(int(int(t) / 1000)) for t in argv[1:]))
        return 0
    if cmd == "check-us":
        return check_us(int(argv[1]) if len(argv) > 1 else 2_000_000)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
