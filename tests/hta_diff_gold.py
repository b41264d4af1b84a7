#!/usr/bin/env python3
"""hta_diff_gold.py — the gold rows of `memlens diff --json` from HolisticTraceAnalysis itself.

Not run by the test suite (it needs HTA, pandas and networkx): it is how the
gold for the diff agreement tests was made, so that anyone can make it again.

    python3 tests/hta_diff_gold.py HTA_SRC BASE_DIR NEW_DIR > gold.json

HTA_SRC is a checkout of facebookresearch/HolisticTraceAnalysis (f4d0062, as
0.6.1); BASE_DIR and NEW_DIR each hold one trace (HTA reads directories).
Debian 12's python3-pandas 1.5.3, python3-numpy and python3-networkx 2.8.8
run it (/usr/bin/python3).  It runs TraceDiff.compare_traces over every
iteration of the first rank of each side, and keeps the rows memlens has:
the names of cpu_op, cuda_runtime, cuda_driver, kernel, gpu_memcpy and
gpu_memset events (per name, summed over those categories), ProfilerStep#N
left out.  Output: {"operators": [{name, base_calls, new_calls, base_us,
new_us}]}, as ../shared/data/kineto/hta_sampled_rank-0_vs_1.htadiff.json.
"""
import json
import sys

KEEP = {"cpu_op", "cuda_runtime", "cuda_driver", "kernel", "gpu_memcpy", "gpu_memset"}


def main():
    src, base_dir, new_dir = sys.argv[1:4]
    sys.path.insert(0, src)
    from hta.trace_diff import LabeledTrace  # noqa: E402

    sums = []
    for label, d in (("base", base_dir), ("new", new_dir)):
        lt = LabeledTrace(label=label, trace_dir=d)
        ops = lt.extract_ops(lt.ranks()[0], lt.iterations())
        s = lt.get_ops_summary(ops)
        s = s[s["cat"].isin(KEEP) & ~s["name"].str.startswith("ProfilerStep")]
        sums.append(s.groupby("name")[["counts", "total_duration"]].sum())
    names = sorted(set(sums[0].index) | set(sums[1].index))
    rows = []
    for n in names:
        row = {"name": n}
        for side, s in zip(("base", "new"), sums):
            row[side + "_calls"] = int(s.loc[n, "counts"]) if n in s.index else 0
            row[side + "_us"] = float(s.loc[n, "total_duration"]) if n in s.index else 0.0
        rows.append(row)
    json.dump({"operators": rows}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
