"""Writes a real TensorBoard logdir with torch.profiler.tensorboard_trace_handler.

    python tests/tb_logdir.py LOGDIR [--follow-run NAME]

LOGDIR/run_a: one worker, two profiling windows (two spans: schedule repeat=2);
LOGDIR/run_b: one worker, one window with a larger tensor (a larger peak).
CPU only, profile_memory=True, a few milliseconds of work each: the files
memlens' logdir tests (tests/cli_logdir.sh) read.  --follow-run NAME writes
only LOGDIR/NAME (one window), for the server's pick-up test.
"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler


def run(logdir, name, numel, windows):
    handler = tensorboard_trace_handler(f"{logdir}/{name}", worker_name="worker0")
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                 schedule=schedule(wait=0, warmup=0, active=1, repeat=windows), on_trace_ready=handler) as prof:
        for step in range(windows):
            x = torch.ones(numel * (step + 1))
            y = (x * 2).sum()
            del x, y
            prof.step()


def main():
    logdir = sys.argv[1]
    if len(sys.argv) > 3 and sys.argv[2] == "--follow-run":
        run(logdir, sys.argv[3], 1 << 16, 1)
        return
    run(logdir, "run_a", 1 << 18, 2)
    run(logdir, "run_b", 1 << 20, 1)


if __name__ == "__main__":
    main()
