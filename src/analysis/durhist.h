/*
 * durhist.h — the per-call durations of one operator or kernel row, kept
 * small: a histogram over fixed log-spaced bins (1-2-5 per decade of ns) and
 * the slowest few calls with their start times (web/DATA.md "hist",
 * "slowest").  Fixed size, zeroed = empty, filled in one pass: no allocation per row.
 *
 * Bin b covers [lo(b), lo(b+1)) with lo(3e) = 10^e, lo(3e+1) = 2·10^e,
 * lo(3e+2) = 5·10^e ns; bin 0 = [0, 2) ns (durations under 1 ns included).
 */
#ifndef ML_DURHIST_H
#define ML_DURHIST_H

#include <stdint.h>

#define ML_DURHIST_BINS 57 /* up to 5·10^18 ns and over: every int64 */
#define ML_DURHIST_SLOW 3

typedef struct ml_durhist {
    uint32_t counts[ML_DURHIST_BINS];
    uint8_t n_slow;
    int64_t slow_ts[ML_DURHIST_SLOW], slow_dur[ML_DURHIST_SLOW]; /* longest first, ties earliest first */
} ml_durhist;

/* The bin of a duration in ns (negative counts as 0). */
int ml_durhist_bin(int64_t ns);
/* The lower bound of bin b in ns (0 for bin 0). */
int64_t ml_durhist_lower(int b);
/* One call starting at ts lasting dur ns. */
void ml_durhist_add(ml_durhist *h, int64_t ts, int64_t dur);

#endif
