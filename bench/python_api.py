"""The Python API's cost beside the CLI's (bench/python.sh runs it).

  1. memlens.load(T).summary() in this process against `memlens summary --json T`
     (a process of its own), runs interleaved: wall min and median, and CPU
     (user + sys: this process's for the API, the child's for the CLI).
     Goal (issue 34): the API within 10% of the CLI.
  2. Run.operators() as a pandas DataFrame: the first call (the profile
     loaded whole, then the table) and the table alone (second call), per
     100,000 operators.  Goal: 100,000 operators in under a second.

usage: python bench/python_api.py TRACE [RUNS]   (memlens importable, MEMLENS the CLI)
"""
import os
import resource
import statistics
import subprocess
import sys
import time

import memlens

trace = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
cli = os.environ.get("MEMLENS", "build/memlens")


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


api_wall, api_cpu, cli_wall, cli_cpu = [], [], [], []
memlens.load(trace).summary()  # warm: the page cache, the allocator
for _ in range(runs):
    c0, t0 = cpu(resource.RUSAGE_SELF), time.perf_counter()
    memlens.load(trace).summary()
    api_wall.append(time.perf_counter() - t0)
    api_cpu.append(cpu(resource.RUSAGE_SELF) - c0)
    c0, t0 = cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run([cli, "summary", "--json", trace], stdout=subprocess.DEVNULL, check=True)
    cli_wall.append(time.perf_counter() - t0)
    cli_cpu.append(cpu(resource.RUSAGE_CHILDREN) - c0)

mb = os.path.getsize(trace) / 1e6
print("python api: %s (%.0f MB), %d runs interleaved" % (os.path.basename(trace), mb, runs))
for name, w, c in (("memlens.load(T).summary()", api_wall, api_cpu), ("memlens summary --json T", cli_wall, cli_cpu)):
    print("  %-27s wall min %.3f s median %.3f s, CPU median %.3f s" % (name, min(w), statistics.median(w),
                                                                       statistics.median(c)))
ratio = min(api_wall) / min(cli_wall)
print("  API / CLI wall (min): %.3f  (goal <= 1.10: %s)" % (ratio, "ok" if ratio <= 1.10 else "MISS"))

run = memlens.load(trace)
t0 = time.perf_counter()
df = run.operators()
first = time.perf_counter() - t0
t0 = time.perf_counter()
df = run.operators()
table = time.perf_counter() - t0
n = len(df)
per = table / n * 1e5 if n else float("nan")
print("  operators(): %d rows; first call (load + table) %.3f s; the table alone %.3f s = %.3f s per 100,000 "
      "(goal < 1 s: %s)" % (n, first, table, per, "ok" if per < 1 else "MISS"))
