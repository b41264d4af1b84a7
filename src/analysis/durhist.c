/*
 * durhist.c — log-spaced duration histograms and the slowest calls.
 */
#include "durhist.h"

int ml_durhist_bin(int64_t ns)
{
    if (ns < 2) return 0;
    int e = 0;
    int64_t p = 1; /* 10^e <= ns < 10^(e+1) */
    while (e < 18 && ns / 10 >= p) p *= 10, e++;
    return 3 * e + (ns >= 2 * p) + (ns / 5 >= p);
}

int64_t ml_durhist_lower(int b)
{
    if (b <= 0) return 0;
    int64_t p = 1;
    for (int e = 0; e < b / 3; e++) p *= 10;
    static const int64_t m[3] = {1, 2, 5};
    return m[b % 3] * p;
}

void ml_durhist_add(ml_durhist *h, int64_t ts, int64_t dur)
{
    int b = ml_durhist_bin(dur);
    h->counts[b]++;
    /* the slowest: insert into the short sorted list */
    int n = h->n_slow, k = n;
    while (k > 0 && (dur > h->slow_dur[k - 1] || (dur == h->slow_dur[k - 1] && ts < h->slow_ts[k - 1]))) k--;
    if (k >= ML_DURHIST_SLOW) return;
    int last = n < ML_DURHIST_SLOW ? n : ML_DURHIST_SLOW - 1;
    for (int j = last; j > k; j--) h->slow_ts[j] = h->slow_ts[j - 1], h->slow_dur[j] = h->slow_dur[j - 1];
    h->slow_ts[k] = ts;
    h->slow_dur[k] = dur;
    if (n < ML_DURHIST_SLOW) h->n_slow++;
}
