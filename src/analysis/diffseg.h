/*
 * diffseg.h — two CUDA allocator snapshots compared by their allocator
 * state at the end, as PyTorch's `_memory_viz.py compare before after`:
 * the segments only one of them has, a segment being known by its address
 * and size (and here also its device), and the allocator settings that
 * differ.
 */
#ifndef ML_DIFFSEG_H
#define ML_DIFFSEG_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

typedef struct ml_seg_only {
    uint8_t side;           /* 0: only in the base, 1: only in the new run */
    uint32_t segment;       /* its index in that side's p->segments */
} ml_seg_only;

typedef struct ml_setting_diff {
    char *key;
    char *value[2];         /* as Python writes it (repr); NULL where that side lacks the key */
} ml_setting_diff;

typedef struct ml_segdiff {
    bool has[2];            /* the side has allocator state (segments or settings) */
    size_t segments[2];     /* segments on each side */
    int64_t bytes[2];       /* their total size */
    size_t common;          /* segments on both sides */
    ml_seg_only *only;      /* by side, then device, then address */
    size_t n_only;
    int64_t only_bytes[2];
    ml_setting_diff *settings; /* only the keys whose values differ, in the base's order, then the new run's */
    size_t n_settings;
    bool settings_known[2]; /* the side recorded allocator_settings */
} ml_segdiff;

void ml_segdiff_compute(const ml_profile *base, const ml_profile *nw, ml_segdiff *out);
void ml_segdiff_free(ml_segdiff *d);

/* Splits a Python dict repr "{'a': 1, 'b': {'c': 2}}" into its top-level
 * keys and values (text, quotes kept off string keys).  Returns the number
 * of pairs written to keys/values (malloc'd strings the caller frees), at
 * most cap; -1 if the text is not a dict repr. */
int ml_repr_dict_split(const char *repr, char **keys, char **values, int cap);

#endif
