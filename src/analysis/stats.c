/* stats.c — per-device headline numbers; see stats.h. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

static void widen(ml_device_stats *s, int64_t t)
{
    if (t == ML_TIME_NONE || t == ML_TIME_END) return;
    if (s->first_ts == ML_TIME_NONE || t < s->first_ts) s->first_ts = t;
    if (s->last_ts == ML_TIME_NONE || t > s->last_ts) s->last_ts = t;
}

void ml_device_stats_compute(const ml_profile *p, int device, ml_group_by by, ml_device_stats *out)
{
    memset(out, 0, sizeof *out);
    out->device = device;
    out->first_ts = out->last_ts = ML_TIME_NONE;
    out->matched = p->has_addresses;

    const ml_events *ev = &p->events;
    bool has_events = false;
    for (size_t i = 0; i < ev->ts.len; i++) {
        if (ev->device.v[i] != device) continue;
        has_events = true;
        widen(out, ev->ts.v[i]);
        switch (ev->kind.v[i]) {
        case ML_EV_ALLOC: out->alloc_events++; break;
        case ML_EV_FREE: out->free_events++; break;
        case ML_EV_OOM: out->oom_events++; break;
        default: break;
        }
    }
    if (out->oom_events) {
        out->ooms = ml_malloc((size_t)out->oom_events * sizeof *out->ooms);
        size_t k = 0;
        for (size_t i = 0; i < ev->ts.len; i++)
            if (ev->device.v[i] == device && ev->kind.v[i] == ML_EV_OOM)
                out->ooms[k++] = (ml_oom){ev->ts.v[i], ev->size.v[i], ev->aux.v[i] >= 0 ? ev->aux.v[i] : -1};
    }
    const ml_allocs *a = &p->allocs;
    for (size_t i = 0; i < a->t_alloc.len; i++) {
        if (a->device.v[i] != device) continue;
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
    out->timeless = out->first_ts == ML_TIME_NONE;

    int64_t span[2];
    bool replayed;
    if (ml_curve_find_peak(p, device, ML_SERIES_ALLOCATED, &out->peak_allocated, span, &replayed)) {
        out->allocated_replayed = replayed;
        if (!out->timeless) {
            widen(out, span[0]);
            widen(out, span[1]);
        }
    } else {
        memset(&out->peak_allocated, 0, sizeof out->peak_allocated);
    }
    if (!ml_curve_find_peak(p, device, ML_SERIES_RESERVED, &out->peak_reserved, span, &replayed))
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
        ml_breakdown_at(p, device, out->peak_allocated.at, total, by, &out->at_peak);
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

void ml_device_stats_free(ml_device_stats *s)
{
    ml_breakdown_free(&s->at_peak);
    free(s->ooms);
    s->ooms = NULL;
}
