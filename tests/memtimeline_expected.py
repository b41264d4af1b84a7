#!/usr/bin/env python3
"""Independent figures for the real PyTorch raw memory timeline, checked by
tests/test_categories.c (real_raw_timeline): per-category peaks, the total
peak with its time and categories, and the final totals.

    python3 tests/memtimeline_expected.py [../shared/data/memory_timeline/hta_memory_timeline.raw.json.gz]

Semantics (as in torch.profiler's _coalesce_timeline): rows are applied in
time order; the state is taken after all rows with the same time; rows at
t = -1 (PREEXISTING) form the initial state.  Category index 0..7 =
PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT,
AUTOGRAD_DETAIL, Unknown.
"""
import gzip
import json
import sys

NAMES = ["PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION", "GRADIENT",
         "AUTOGRAD_DETAIL", "Unknown"]

path = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/memory_timeline/hta_memory_timeline.raw.json.gz"
rows = json.load(gzip.open(path))
rows.sort(key=lambda r: r[0])          # stable: equal times keep file order
level = [0] * 8
peak = [0] * 8
best_total, best_t, best_levels = None, None, None
for i, (t, action, nbytes, cat) in enumerate(rows):
    level[cat] += nbytes
    if i + 1 < len(rows) and rows[i + 1][0] == t:
        continue                       # the state after all rows at this time
    peak = [max(p, l) for p, l in zip(peak, level)]
    if t != -1 and (best_total is None or sum(level) > best_total):
        best_total, best_t, best_levels = sum(level), t, list(level)
print("rows", len(rows))
print("category peaks:", {n: p for n, p in zip(NAMES, peak)})
print("final totals:", {n: l for n, l in zip(NAMES, level)})
print("total peak", best_total, "at", best_t)
print("categories at the total peak:", {n: l for n, l in zip(NAMES, best_levels)})
