/*
 * curve.h — a device's memory curves and their exact peaks.
 *
 * A curve is the step function of a quantity (allocated, reserved, ...) over
 * time.  It comes from the importer's series when the input records totals
 * (Kineto "Total Allocated", Ascend memory_record), and otherwise is replayed
 * from allocator events: the bytes allocated before the trace (frees without
 * an alloc, blocks never seen allocated) plus each alloc minus each free,
 * from the device's first event (a snapshot's first segment event comes
 * before its first alloc: the curve starts there, at the level before); with
 * no allocs or frees but memory from before the trace, one point at that level.
 * The peak is the first point that reaches the maximum, exactly, from every
 * point — never from a summary.
 */
#ifndef ML_CURVE_H
#define ML_CURVE_H

#include <stdbool.h>
#include "profile.h"

typedef struct ml_curve {
    size_t n;
    const int64_t *ts, *value;
    const uint32_t *event;      /* per point: the event it came from, or NULL */
    bool replayed;              /* computed from events rather than recorded */
    int64_t *owned_ts, *owned_value; /* storage when replayed */
    uint32_t *owned_event;
} ml_curve;

/* A moment in the trace: a time, and when known, the event at that time
 * (equal timestamps are common; the event index says which of them). */
typedef struct ml_instant {
    int64_t ts;
    uint32_t event;             /* ML_NONE32 if unknown */
} ml_instant;

typedef struct ml_peak {
    bool found;
    int64_t value;
    ml_instant at;
    size_t point;
} ml_peak;

/* The device's overall curve of that kind.  Returns false if there is none
 * (e.g. no reserved curve in an old trace).  Free with ml_curve_free. */
bool ml_curve_get(const ml_profile *p, int device, ml_series_kind kind, ml_curve *out);
void ml_curve_free(ml_curve *c);

ml_peak ml_curve_peak(const ml_curve *c);
/* The peak of the device's curve of that kind, as ml_curve_peak(ml_curve_get())
 * finds it, but a replayed curve is walked, not built (a summary of 10M events
 * needs its peak only).  *span gets the curve's first and last times and
 * *replayed whether it was replayed.  False if there is no curve. */
bool ml_curve_find_peak(const ml_profile *p, int device, ml_series_kind kind, ml_peak *pk, int64_t span[2],
                        bool *replayed);

/* The peaks found so far on one profile, kept by a caller that asks several
 * analyses about it in turn (the job runner: a rank's record, then the
 * command's pieces): a replayed peak walks every event (a gigabyte
 * snapshot's 9M), so through one memo each (device, kind) is found once.
 * Zero-initialised: empty.  The caller owns it (no lock: one thread at a
 * time); it serves one finished profile, unchanged while it is used (given
 * another, it starts afresh). */
#define ML_PEAK_MEMO_ROWS 8
typedef struct ml_peak_memo_row {
    bool used, ok, replayed;
    int device;
    ml_series_kind kind;
    ml_peak pk;
    int64_t span[2];
} ml_peak_memo_row;
typedef struct ml_peak_memo {
    const ml_profile *of;
    ml_peak_memo_row row[ML_PEAK_MEMO_ROWS];
} ml_peak_memo;
/* ml_curve_find_peak through memo (NULL: none). */
bool ml_curve_find_peak_memo(ml_peak_memo *memo, const ml_profile *p, int device, ml_series_kind kind, ml_peak *pk,
                             int64_t span[2], bool *replayed);
/* Value of the curve at an instant (after the event, if given); 0 before the first point. */
int64_t ml_curve_value_at(const ml_curve *c, ml_instant at);

/* Whether allocation i is live at that instant. */
bool ml_alloc_live_at(const ml_profile *p, size_t i, ml_instant at);

#endif
