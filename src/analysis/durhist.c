/*
 * durhist.c — log-spaced duration histograms and the slowest calls.
 */
#include "durhist.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* Bin b >= 1 starts at 2, 5, 10, 20, 50, ... 1e18, 2e18, 5e18: the bin of
 * ns is how many of these starts it reaches.  A binary search: this runs once
 * per operator call, and the division loop it replaces was a fifth of the
 * operator table's time. */
#define DECADE(p) 2 * (p), 5 * (p), 10 * (p)
static const int64_t bin_start[] = {
    DECADE(1LL), DECADE(10LL), DECADE(100LL), DECADE(1000LL), DECADE(10000LL), DECADE(100000LL),
    DECADE(1000000LL), DECADE(10000000LL), DECADE(100000000LL), DECADE(1000000000LL), DECADE(10000000000LL),
    DECADE(100000000000LL), DECADE(1000000000000LL), DECADE(10000000000000LL), DECADE(100000000000000LL),
    DECADE(1000000000000000LL), DECADE(10000000000000000LL), DECADE(100000000000000000LL),
    2000000000000000000LL, 5000000000000000000LL};
#undef DECADE

/* The bin is how many starts ns reaches: starts are at least twice apart,
 * so [2^k, 2^(k+1)) holds at most one, and the bin of ns is that of 2^k,
 * plus one if ns reaches the start inside its range (no branch to
 * mispredict: this runs once per operator and kernel call). */
static int bin_search(int64_t ns)
{
    int lo = 0, hi = (int)(sizeof bin_start / sizeof *bin_start);
    while (lo < hi) { /* the first start above ns */
        int mid = (lo + hi) / 2;
        if (ns >= bin_start[mid]) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static uint8_t pow2_bin[63];     /* bin of 2^k */
static int64_t pow2_next[63];    /* the start in [2^k, 2^(k+1)), or INT64_MAX */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
/* set (release) once the tables are made: read (acquire) first, so that the
 * call to pthread_once, which made ml_durhist_add save and restore
 * registers on every call (half of its cost), is made only until then */
static atomic_bool tables_ready;

static void tables_make(void)
{
    for (int k = 0; k < 63; k++) {
        int64_t lo = (int64_t)1 << k, hi = k < 62 ? (int64_t)1 << (k + 1) : INT64_MAX;
        pow2_bin[k] = (uint8_t)bin_search(lo);
        pow2_next[k] = INT64_MAX;
        for (size_t j = 0; j < sizeof bin_start / sizeof *bin_start; j++)
            if (bin_start[j] > lo && bin_start[j] < hi) pow2_next[k] = bin_start[j];
    }
    atomic_store_explicit(&tables_ready, true, memory_order_release);
}

static __attribute__((noinline, cold)) void tables_wait(void) { pthread_once(&tables_once, tables_make); }

int ml_durhist_bin(int64_t ns)
{
    if (ns <= 0) return 0;
    if (!atomic_load_explicit(&tables_ready, memory_order_acquire)) tables_wait();
    int k = 63 - __builtin_clzll((uint64_t)ns);
    return pow2_bin[k] + (ns >= pow2_next[k]);
}

int64_t ml_durhist_lower(int b)
{
    if (b <= 0) return 0;
    int64_t p = 1;
    for (int e = 0; e < b / 3; e++) p *= 10;
    static const int64_t m[3] = {1, 2, 5};
    return m[b % 3] * p;
}

/* A call among the slowest, put at place k of the short sorted list (out of
 * line: rare once the list is full, and its shift is a memmove call, which
 * made ml_durhist_add save and restore registers every time). */
static __attribute__((noinline)) void slow_insert(ml_durhist *h, int k, int64_t ts, int64_t dur)
{
    int n = h->n_slow;
    int last = n < ML_DURHIST_SLOW ? n : ML_DURHIST_SLOW - 1;
    for (int j = last; j > k; j--) h->slow_ts[j] = h->slow_ts[j - 1], h->slow_dur[j] = h->slow_dur[j - 1];
    h->slow_ts[k] = ts;
    h->slow_dur[k] = dur;
    if (n < ML_DURHIST_SLOW) h->n_slow++;
}

void ml_durhist_add(ml_durhist *h, int64_t ts, int64_t dur)
{
    int b = ml_durhist_bin(dur);
    h->counts[b]++;
    /* the slowest: its place in the short sorted list, if it has one */
    int k = h->n_slow;
    while (k > 0 && (dur > h->slow_dur[k - 1] || (dur == h->slow_dur[k - 1] && ts < h->slow_ts[k - 1]))) k--;
    if (k < ML_DURHIST_SLOW) slow_insert(h, k, ts, dur);
}
