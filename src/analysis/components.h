/*
 * components.h — peaks of sampled curves, and the live set of allocation lifetimes.
 *
 * Pure functions of a finished profile.  Used for inputs that give totals as
 * samples (Ascend memory_record: Total Allocated/Reserved/Active per
 * component) and lifetimes without events (Ascend operator_memory,
 * static_op_mem).  "Peak" is the first instant the maximum is reached.
 */
#ifndef ML_COMPONENTS_H
#define ML_COMPONENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

/* The series (device, kind, component named comp, stream), or NULL.
 * comp NULL or "" means component 0. */
const ml_series *ml_series_find(const ml_profile *p, uint16_t device, ml_series_kind kind,
                                const char *comp, ml_str stream);

/* Maximum of s and the time it is first reached.  False for an empty series. */
bool ml_series_peak(const ml_series *s, int64_t *peak, int64_t *t_peak);

/* The component whose curves stand for the whole device: "PTA+GE" when the
 * device has that ALLOCATED series, else "PTA", else any component (the first
 * with an ALLOCATED series), else 0 (only component-less series). */
ml_str ml_headline_component(const ml_profile *p, uint16_t device);

/* One group of the live set: bytes and count of allocations by name. */
typedef struct ml_live_group {
    ml_str name;
    int64_t bytes;
    int64_t count;
} ml_live_group;

/* Allocations on device live at t (t_alloc <= t < t_free; allocated-before-
 * trace ones count from the start), grouped by op (or op_top when by_top),
 * sorted by bytes descending then name.  Returns the group count; *out is
 * malloc'd (free it).  *total gets the sum of bytes. */
size_t ml_live_at(const ml_profile *p, uint16_t device, int64_t t, bool by_top, ml_live_group **out,
                  int64_t *total);

/* Peak of the live sum of allocs on device whose op_top is top (0 = all),
 * sweeping lifetimes (a free at t happens before an alloc at t).  False when
 * there are no such allocs. */
bool ml_allocs_peak(const ml_profile *p, uint16_t device, ml_str top, int64_t *peak, int64_t *t_peak);

/* Allocations on device never freed within the input: count and bytes. */
void ml_unreleased(const ml_profile *p, uint16_t device, int64_t *count, int64_t *bytes);

#endif
