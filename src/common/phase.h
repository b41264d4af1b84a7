/*
 * phase.h — wall-clock phase timings for finding where a command spends time.
 *
 * With MEMLENS_PHASES set in the environment, each ml_phase("name") prints
 * "memlens: phase name: N.N ms (T.T ms total, peak RSS M MiB)" to stderr: the
 * time since the previous mark and since the first, and the peak resident
 * memory so far.  Without it a mark costs one branch.
 * Benchmarks and profiling use it; the output of a command never changes.
 */
#ifndef ML_PHASE_H
#define ML_PHASE_H

void ml_phase(const char *name);

#endif
