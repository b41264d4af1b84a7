#!/usr/bin/env python3
"""Runs HolisticTraceAnalysis on one Kineto trace and writes what memlens's
HTA fields are checked against (`memlens perf --json`, runs[]): the
NAME.hta.json files beside the shared traces, and the held-out ones.

usage: HTA_SRC=/path/to/HolisticTraceAnalysis hta_gold.py TRACE.json[.gz] [OUT.json]

Needs HTA's source tree (github.com/facebookresearch/HolisticTraceAnalysis,
the shared gold files were made at f4d0062: `git archive f4d0062 hta` is
enough) and Debian's python3-pandas (1.5.3 in bookworm, the version the gold
was made with), python3-networkx, python3-plotly, python3-psutil and
python3-yaml. Run with /usr/bin/python3 (Debian's), not a pyenv one.

Each field is one HTA call on a TraceAnalysis of that one file (rank from
its distributedInfo, last ProfilerStep left out as HTA does by default):
  temporal        get_temporal_breakdown: idle, compute, non-compute, kernel time
  idle_by_stream  get_idle_time_breakdown (consecutive_kernel_delay 30): the
                  categories HTA lists for the stream (a missing one had no gap)
  kernel_types    get_gpu_kernel_breakdown (memory kernels included), by type
  comm_comp_overlap_pct  get_comm_comp_overlap (NaN without communication)
  launches        sums over get_cuda_kernel_launch_stats (left out when it has no rows)
  queue_length    get_queue_length_summary: max and mean per stream
  memory_bw       get_memory_bw_summary: max per kind (left out when HTA gives None)
This reproduces the shared *.hta.json exactly (checked on all eight).
"""
import json
import logging
import math
import os
import sys

sys.path.insert(0, os.environ.get("HTA_SRC", "."))
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis  # noqa: E402


def main():
    path = os.path.abspath(sys.argv[1])
    with_rank = _rank_of(path)
    ta = TraceAnalysis(trace_files={with_rank: path}, trace_dir=os.path.dirname(path))
    rank = ta.t.get_ranks()[0]
    out = {"rank": rank}

    tb = ta.get_temporal_breakdown(visualize=False).iloc[0]
    out["temporal"] = {"span_us": float(tb["kernel_time(us)"]), "idle_us": float(tb["idle_time(us)"]),
                       "compute_us": float(tb["compute_time(us)"]),
                       "non_compute_us": float(tb["non_compute_time(us)"])}

    idle, _ = ta.get_idle_time_breakdown(ranks=[rank], visualize=False)
    streams = []
    for stream in sorted(idle["stream"].unique()):
        row = {"stream": int(stream)}
        for _, r in idle[idle["stream"] == stream].iterrows():
            row[r["idle_category"] + "_us"] = float(r["idle_time"])
        streams.append(row)
    out["idle_by_stream"] = streams

    kt, _ = ta.get_gpu_kernel_breakdown(visualize=False)
    out["kernel_types"] = [{"type": r["kernel_type"], "total_us": float(r["sum"])} for _, r in kt.iterrows()]

    ov = ta.get_comm_comp_overlap(visualize=False)
    out["comm_comp_overlap_pct"] = float(ov["comp_comm_overlap_pctg"].iloc[0])

    ls = ta.get_cuda_kernel_launch_stats(ranks=[rank], visualize=False)[rank]
    if len(ls):
        out["launches"] = {"count": int(len(ls)), "cpu_us": float(ls["cpu_duration"].sum()),
                           "gpu_us": float(ls["gpu_duration"].sum()), "delay_us": float(ls["launch_delay"].sum()),
                           "delay_max_us": float(ls["launch_delay"].max())}

    ql = ta.get_queue_length_summary(ranks=[rank])
    if ql is not None:
        out["queue_length"] = [{"stream": int(idx[1]), "max": float(r[("queue_length", "max")]),
                                "mean": float(r[("queue_length", "mean")])} for idx, r in ql.iterrows()]

    bw = ta.get_memory_bw_summary(ranks=[rank])
    if bw is not None:
        out["memory_bw"] = [{"kind": idx[1], "max_gbps": float(r[("memory_bw_gbps", "max")])}
                            for idx, r in bw.iterrows()]

    text = json.dumps(out, indent=1, allow_nan=True)
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write(text + "\n")
    else:
        print(text)


def _rank_of(path):
    """The rank HTA reads from distributedInfo (0 without one)."""
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    info = doc.get("distributedInfo", {}) if isinstance(doc, dict) else {}
    r = info.get("rank", 0)
    return int(r) if isinstance(r, (int, float)) and not math.isnan(r) else 0


if __name__ == "__main__":
    main()
