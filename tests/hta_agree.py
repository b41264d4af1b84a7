#!/usr/bin/env python3
"""Checks `memlens perf --json` against HolisticTraceAnalysis's own answers
(NAME.hta.json, written by tests/hta_gold.py) for every trace beside them,
and against memlens's rules worked out again in Python (tests/hta_rules.py).

usage: hta_agree.py MEMLENS DIR [DIR...]
For each DIR/NAME.hta.json with a trace DIR/NAME(.pt.trace).json[.gz] beside
it, runs MEMLENS perf --json --hta-rules on the trace (times on HTA's
whole-µs grid) and compares its runs[0]:
 1. with hta_rules.expected(trace): equal (integers exactly, floats within
    1e-6: memlens keeps bandwidth args as float32);
 2. with the gold, with the issue's tolerances:
  durations (temporal, idle_by_stream, kernel_types, launches)
                           within 2 µs or 0.2 %; a kernel type or idle cause
                           HTA leaves out counts as 0 (HTA lists only what
                           it found; memlens leaves out zero-time types)
  launches.count, queue_length[].max    exact
  comm_comp_overlap_pct    within 0.06 (HTA rounds it to 2 decimals)
  queue_length[].mean      within 2 % (HTA's unstable sort orders a launch
                           and a kernel start in the same µs either way)
  memory_bw[].max_gbps     within 1 %
Then runs MEMLENS perf --json (exact, the default) and compares it
 3. with hta_rules.expected(trace, exact=True): the *_us durations equal to
    the ns (exact Decimals), the rest as in 1; and on a trace whose times
    are all whole µs, with the --hta-rules answer: equal (nothing to round).
A value out of tolerance that memlens differs on on purpose (README, "Where
memlens differs from HTA"; DELIBERATE below, with the reason) counts as
deliberate when memlens equals its rules there; any other is off.
Prints per trace the largest deviation from HTA of each field, then
"hta_agree: N traces, V values: A agree, D deliberate, F off; R rules values, X off; E exact values, Y off"
and exits 1 if any value is off.  Without a DIR holding *.hta.json: "SKIP", exit 0.
"""
import decimal
import glob
import gzip
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hta_rules  # noqa: E402

DEVICE_SYNC = "HTA counts a device-wide Context Sync (args stream 4294967295, older Kineto) as GPU time"
CPU_OP = "HTA counts the CPU operator that launches a Triton kernel (args stream 0) as GPU time"
TOUCHING = "HTA's unstable sort adds up two copies where one ends in the µs the next begins"
OVERLAP = ("HTA measures each idle gap from the previous kernel's end, so kernels that overlap on a stream give "
           "negative gaps (31 on this stream, -115 us) that lower its sum; memlens merges them first")
# (trace name, field) -> why memlens differs there on purpose
DELIBERATE = {
    ("hta_alexnet", "temporal.span_us"): DEVICE_SYNC,
    ("hta_alexnet", "temporal.idle_us"): DEVICE_SYNC,
    ("critical_path_simple_add", "temporal.span_us"): DEVICE_SYNC,
    ("critical_path_simple_add", "temporal.idle_us"): DEVICE_SYNC,
    ("critical_path_simple_add", "temporal.non_compute_us"): DEVICE_SYNC,
    ("hta_triton_example", "temporal.span_us"): CPU_OP,
    ("hta_triton_example", "temporal.compute_us"): CPU_OP,
    ("hta_triton_example", "kernel_types.COMPUTATION"): CPU_OP,
    ("trace_diff_test", "memory_bw[Memcpy DtoD].max_gbps"): TOUCHING,
    ("trace_diff_test", "idle_by_stream[7].kernel_wait_us"): OVERLAP,
}

counts = {"agree": 0, "deliberate": 0, "off": 0, "rules": 0, "rules_off": 0, "exact": 0, "exact_off": 0}


def trace_of(gold):
    base = gold[: -len(".hta.json")]
    for ext in (".json.gz", ".pt.trace.json.gz", ".json", ".pt.trace.json"):
        if os.path.exists(base + ext):
            return base + ext
    return None


def flat(run):
    """The checked fields of a runs entry (or of hta_rules.expected) as {field: value}."""
    f = {}
    for k, v in (run.get("temporal") or {}).items():
        f["temporal." + k] = v
    for r in run.get("idle_by_stream") or []:
        for k in ("host_wait_us", "kernel_wait_us", "other_us"):
            f[f"idle_by_stream[{r['stream']}].{k}"] = r.get(k, 0)
    for r in run.get("kernel_types") or []:
        f["kernel_types." + r["type"]] = r["total_us"]
    v = run.get("comm_comp_overlap_pct")
    f["comm_comp_overlap_pct"] = None if v is None or (isinstance(v, float) and math.isnan(v)) else v
    for k, v in (run.get("launches") or {}).items():
        if k in ("count", "cpu_us", "gpu_us", "delay_us", "delay_max_us"):
            f["launches." + k] = v
    for r in run.get("queue_length") or []:
        for k in ("max", "mean", "blocked_us"):
            if k in r:
                f[f"queue_length[{r['stream']}].{k}"] = r[k]
    for r in run.get("memory_bw") or []:
        f[f"memory_bw[{r['kind']}].max_gbps"] = r["max_gbps"]
    return f


def tolerance(field):
    if field.startswith("launches.count") or field.endswith(".max"):
        return "exact"
    if field == "comm_comp_overlap_pct":
        return "pct"
    if field.endswith(".mean"):
        return "rel2"
    if field.startswith("memory_bw"):
        return "rel1"
    return "dur"


def deviation(kind, ours, theirs):
    """(within tolerance, text, size) of memlens's value against HTA's."""
    if ours is None or theirs is None:
        ok = ours is None and theirs is None
        return ok, "both none" if ok else f"{ours} vs {theirs}", 0 if ok else math.inf
    diff = abs(ours - theirs)
    if kind == "dur":
        rel = diff / abs(theirs) if theirs else (0 if diff == 0 else math.inf)
        return diff <= 2 or rel <= 0.002, f"{diff:g} us" + (f" ({100 * rel:.3f} %)" if theirs else ""), min(diff, 1000 * rel)
    if kind == "exact":
        return ours == theirs, f"{diff:g}", diff
    if kind == "pct":
        return diff <= 0.06, f"{diff:.4f} points", diff
    rel = diff / abs(theirs) if theirs else diff
    return rel <= (0.02 if kind == "rel2" else 0.01), f"{100 * rel:.4f} %", rel


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def same_exact(field, a, b):
    """Durations (µs fields, counts) equal to the ns; ratios and bandwidths as same()."""
    if a is None or b is None:
        return a is None and b is None
    if field.endswith("_us") or field.endswith(".max") or field.startswith(("kernel_types.", "launches.count")):
        return decimal.Decimal(str(a)) == decimal.Decimal(str(b))
    return same(float(a), float(b))


def whole_us(path):
    """Whether every ts and dur of the trace's events is a whole number of µs."""
    f = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
    doc = json.load(f, parse_float=decimal.Decimal)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    return all(decimal.Decimal(str(e[k])) % 1 == 0 for e in evs if isinstance(e, dict) for k in ("ts", "dur") if k in e)


def perf_run(memlens, path, *opts):
    out = subprocess.run([memlens, "perf", "--json", *opts, path], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip()[:200]
    return json.loads(out.stdout, parse_float=decimal.Decimal)["runs"][0], None


def short(name):
    """The trace name as DELIBERATE keys it (held-out names lose HTA's run ids)."""
    return name.split("_benchmark_result")[0].split("_test_test")[0] + ("_test" if name.endswith("_test_test") else "")


def check_trace(memlens, gold_path):
    name = os.path.basename(gold_path)[: -len(".hta.json")]
    key = short(name)
    path = trace_of(gold_path)
    gold = json.load(open(gold_path))
    run, err = perf_run(memlens, path, "--hta-rules")
    exact_run, err2 = perf_run(memlens, path)
    if err or err2:
        counts["off"] += 1
        print(f"  OFF {name}: memlens failed: {err or err2}")
        return
    ours = {k: (float(v) if isinstance(v, decimal.Decimal) else v) for k, v in flat(run).items()}
    rules = flat(hta_rules.expected(path))
    theirs = flat(gold)
    offs, worst = [], {}
    # 1. memlens against its rules, field by field
    for f in sorted(set(ours) | set(rules)):
        counts["rules"] += 1
        if not same(ours.get(f), rules.get(f)):
            counts["rules_off"] += 1
            offs.append(f"{f}: memlens {ours.get(f)}, its rules {rules.get(f)}")
    # 2. memlens against HTA: every field HTA gives; a kernel type or idle cause HTA leaves out is 0
    fields = set(theirs)
    fields |= {f for f in ours if f.startswith(("kernel_types.", "idle_by_stream["))}
    for f in sorted(fields):
        if f.endswith("blocked_us"):
            continue
        zero_if_absent = f.startswith(("kernel_types.", "idle_by_stream["))
        o = ours.get(f, 0 if zero_if_absent else None)
        t = theirs.get(f, 0 if zero_if_absent else None)
        kind = tolerance(f)
        ok, text, size = deviation(kind, o, t)
        group = f.split("[")[0].split(".")[0] + ("." + f.split(".")[-1] if "." in f else "")
        if ok:
            counts["agree"] += 1
            if group not in worst or size > worst[group][1]:
                worst[group] = (text, size)
        elif (key, f) in DELIBERATE and same(o, rules.get(f, 0 if zero_if_absent else None)):
            counts["deliberate"] += 1
            print(f"  {name}: {f}: memlens {o}, HTA {t} (deliberate: {DELIBERATE[(key, f)]})")
        else:
            counts["off"] += 1
            offs.append(f"{f}: memlens {o}, HTA {t}")
    # 3. the exact default against the exact rules; on a whole-µs trace, against the HTA-rules answer too
    exact, exact_rules = flat(exact_run), flat(hta_rules.expected(path, exact=True))
    against = [(exact_rules, "its exact rules")]
    if whole_us(path):
        against.append((flat(run), "--hta-rules (a whole-µs trace)"))
    for other, what in against:
        for f in sorted(set(exact) | set(other)):
            counts["exact"] += 1
            if not same_exact(f, exact.get(f), other.get(f)):
                counts["exact_off"] += 1
                offs.append(f"{f}: memlens exact {exact.get(f)}, {what} {other.get(f)}")
    print(f"{name}: " + ", ".join(f"{k} {v[0]}" for k, v in sorted(worst.items())))
    for o in offs:
        print(f"  OFF {name}: {o}")


def main():
    memlens, dirs = sys.argv[1], sys.argv[2:]
    golds = sorted(g for d in dirs for g in glob.glob(os.path.join(d, "*.hta.json")) if trace_of(g))
    if not golds:
        print("SKIP hta_agree: no *.hta.json with its trace in " + " ".join(dirs))
        return 0
    for g in golds:
        check_trace(memlens, g)
    print(f"hta_agree: {len(golds)} traces, {counts['agree'] + counts['deliberate'] + counts['off']} values: "
          f"{counts['agree']} agree, {counts['deliberate']} deliberate, {counts['off']} off; "
          f"{counts['rules']} rules values, {counts['rules_off']} off; "
          f"{counts['exact']} exact values, {counts['exact_off']} off")
    return 1 if counts["off"] or counts["rules_off"] or counts["exact_off"] else 0


if __name__ == "__main__":
    sys.exit(main())
