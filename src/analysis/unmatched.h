/*
 * unmatched.h — what a trace without addresses still tells (old Kineto
 * traces, PyTorch < 1.10): its memory events cannot be paired into
 * allocations, but each one happened under some top-level operator.  Per
 * operator: the allocation and free events and their bytes, and the net
 * bytes (allocated − freed) until an instant: those nets add up to the
 * replayed curve's value there (the running sum of Bytes from 0), so they
 * are the curve's contributions by operator.
 */
#ifndef ML_UNMATCHED_H
#define ML_UNMATCHED_H

#include "profile.h"

#define ML_UNMATCHED_NO_OP "(no operator)"

typedef struct ml_unmatched_row {
    ml_str op;                  /* top-level cpu op; 0 = none */
    int64_t allocs, alloc_bytes;
    int64_t frees, free_bytes;
    int64_t net_at;             /* alloc − free bytes of events at or before `at` */
} ml_unmatched_row;

typedef struct ml_unmatched {
    ml_unmatched_row *rows;     /* sorted by net_at descending, then alloc_bytes */
    size_t n;
    int64_t allocs, frees;      /* the device's alloc and free events */
} ml_unmatched;

/* Whether a device's memory events could not be matched (no addresses) while it has some. */
bool ml_unmatched_applies(const ml_profile *p, uint16_t device);
/* Groups the device's alloc/free events by their top-level operator; nets until `at`. */
void ml_unmatched_by_op(const ml_profile *p, uint16_t device, int64_t at, ml_unmatched *out);
void ml_unmatched_free(ml_unmatched *u);

#endif
