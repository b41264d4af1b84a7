/* stats.c — per-device headline numbers; see stats.h. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

#include "par.h"

static void widen(ml_device_stats *s, int64_t t)
{
    if (t == ML_TIME_NONE || t == ML_TIME_END) return;
    if (s->first_ts == ML_TIME_NONE || t < s->first_ts) s->first_ts = t;
    if (s->last_ts == ML_TIME_NONE || t > s->last_ts) s->last_ts = t;
}

/* The counts: events and allocations of the device, its time span. */
typedef struct counts_job {
    const ml_profile *p;
    ml_device_stats *out;
} counts_job;

static void count_events(void *arg)
{
    counts_job *j = arg;
    const ml_profile *p = j->p;
    ml_device_stats *out = j->out;
    int device = out->device;
    const ml_events *ev = &p->events;
    bool all = ml_only_device(p, device);
    /* Events by kind, and their first and last time, with no branch on
     * either: the kinds interleave, and a switch on them missed often (40 ms
     * of a gigabyte snapshot).  Two tallies, so that runs of one kind do not
     * wait on one counter.  A time of ML_TIME_NONE never makes the last,
     * ML_TIME_END never the first, and neither is a time (widen()). */
    size_t tally[2][256] = {{0}}, seen = 0;
    int64_t first = ML_TIME_END, last = ML_TIME_NONE;
    for (size_t i = 0; i < ev->ts.len; i++) {
        if (!all && ev->device.v[i] != device) continue;
        int64_t t = ev->ts.v[i];
        tally[i & 1][ev->kind.v[i]]++;
        seen++;
        first = t != ML_TIME_NONE && t < first ? t : first;
        last = t != ML_TIME_END && t > last ? t : last;
    }
    bool has_events = seen > 0;
    widen(out, first);
    widen(out, last);
    out->alloc_events += (int64_t)(tally[0][ML_EV_ALLOC] + tally[1][ML_EV_ALLOC]);
    out->free_events += (int64_t)(tally[0][ML_EV_FREE] + tally[1][ML_EV_FREE]);
    out->oom_events += (int64_t)(tally[0][ML_EV_OOM] + tally[1][ML_EV_OOM]);
    if (out->oom_events) {
        out->ooms = ml_malloc((size_t)out->oom_events * sizeof *out->ooms);
        size_t k = 0;
        for (size_t i = 0; i < ev->ts.len; i++)
            if ((all || ev->device.v[i] == device) && ev->kind.v[i] == ML_EV_OOM)
                out->ooms[k++] = (ml_oom){ev->ts.v[i], ev->size.v[i], ev->aux.v[i] >= 0 ? ev->aux.v[i] : -1};
    }
    const ml_allocs *a = &p->allocs;
    for (size_t i = 0; i < a->t_alloc.len; i++) {
        if (!all && a->device.v[i] != device) continue;
        if (!has_events) { /* lifetimes only (Ascend operator memory) */
            if (a->t_alloc.v[i] != ML_TIME_NONE) out->alloc_events++;
            if (a->t_free.v[i] != ML_TIME_END) out->free_events++;
            widen(out, a->t_alloc.v[i]);
            widen(out, a->t_free.v[i]);
        }
        if (a->ev_alloc.v[i] == ML_NONE32 && a->ev_free.v[i] != ML_NONE32) out->unmatched_frees++;
        if (a->flags.v[i] & ML_ALLOC_NEVER_FREED) {
            out->never_freed++;
            out->never_freed_bytes = ml_add_sat(out->never_freed_bytes, a->size.v[i]);
        }
    }
    if (!has_events && a->t_alloc.len) out->matched = true;
}

/* The peaks, the reserved memory at the end and what is live at the peak
 * (into its own struct: count_events() writes out meanwhile). */
typedef struct peaks_job {
    const ml_profile *p;
    ml_peak_memo *memo;          /* the caller's (NULL: none) */
    int device;
    ml_group_by by;
    ml_device_stats r;           /* peak_*, allocated_replayed, reserved_end, at_peak, categories_at_peak */
    int64_t span[2];
    bool has_span;
} peaks_job;

static void find_peaks(void *arg)
{
    peaks_job *j = arg;
    const ml_profile *p = j->p;
    ml_device_stats *out = &j->r;
    int device = j->device;
    int64_t span[2];
    bool replayed;
    if (ml_curve_find_peak_memo(j->memo, p, device, ML_SERIES_ALLOCATED, &out->peak_allocated, span, &replayed)) {
        out->allocated_replayed = replayed;
        j->span[0] = span[0];
        j->span[1] = span[1];
        j->has_span = true;
    } else {
        memset(&out->peak_allocated, 0, sizeof out->peak_allocated);
    }
    if (!ml_curve_find_peak_memo(j->memo, p, device, ML_SERIES_RESERVED, &out->peak_reserved, span, &replayed))
        memset(&out->peak_reserved, 0, sizeof out->peak_reserved);
    ml_curve reserved;
    out->reserved_end = -1;
    if (ml_curve_get(p, device, ML_SERIES_RESERVED, &reserved)) {
        if (reserved.n) out->reserved_end = reserved.value[reserved.n - 1];
        ml_curve_free(&reserved);
    }
    if (out->peak_allocated.found) {
        /* Recorded totals include memory from before the trace; replayed curves
         * already count it as explicit allocations. */
        int64_t total = out->allocated_replayed ? -1 : out->peak_allocated.value;
        ml_breakdown_at(p, device, out->peak_allocated.at, total, j->by, &out->at_peak);
        ml_categories_at(p, device, out->peak_allocated.at, total, out->categories_at_peak);
        /* A replayed peak without matched allocations (no addresses): what no
         * allocation accounts for is Unknown, so that the categories add up to the peak. */
        int64_t sum = 0;
        for (int k = 0; k < ML_CAT__COUNT; k++) sum = ml_add_sat(sum, out->categories_at_peak[k]);
        if (sum < out->peak_allocated.value) {
            out->categories_at_peak[ML_CAT_UNKNOWN] += out->peak_allocated.value - sum;
            if (out->at_peak.before_grouped)
                ml_breakdown_add(&out->at_peak, ml_category_name(ML_CAT_UNKNOWN), out->peak_allocated.value - sum, 0);
        }
    }
}

/* Two passes over the events that need nothing of each other (a gigabyte
 * snapshot's 9M events: ~30 ms each), one per core. */
void ml_device_stats_compute(const ml_profile *p, int device, ml_group_by by, ml_device_stats *out)
{
    ml_device_stats_compute_memo(p, NULL, device, by, out);
}

void ml_device_stats_compute_memo(const ml_profile *p, ml_peak_memo *memo, int device, ml_group_by by,
                                  ml_device_stats *out)
{
    memset(out, 0, sizeof *out);
    out->device = device;
    out->first_ts = out->last_ts = ML_TIME_NONE;
    out->matched = p->has_addresses;
    counts_job counts = {p, out};
    peaks_job peaks = {.p = p, .memo = memo, .device = device, .by = by};
    ml_par2(count_events, &counts, find_peaks, &peaks);
    out->timeless = out->first_ts == ML_TIME_NONE;
    if (peaks.has_span && !out->timeless) {
        widen(out, peaks.span[0]);
        widen(out, peaks.span[1]);
    }
    out->peak_allocated = peaks.r.peak_allocated;
    out->allocated_replayed = peaks.r.allocated_replayed;
    out->peak_reserved = peaks.r.peak_reserved;
    out->reserved_end = peaks.r.reserved_end;
    out->at_peak = peaks.r.at_peak;
    memcpy(out->categories_at_peak, peaks.r.categories_at_peak, sizeof out->categories_at_peak);
}

void ml_device_stats_free(ml_device_stats *s)
{
    ml_breakdown_free(&s->at_peak);
    free(s->ooms);
    s->ooms = NULL;
}
