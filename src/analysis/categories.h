/*
 * categories.h — what each allocation is for: PyTorch's memory categories
 * (PARAMETER, OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT,
 * AUTOGRAD_DETAIL, Unknown), inferred from what the file shows.
 *
 * ml_categorize() reads the phase an allocation was made and freed in
 * (forward, backward = autograd engine ops and the autograd thread, optimizer
 * step = `Optimizer.step#...` annotations or torch/optim frames, data loading),
 * its lifetime relative to its top-level op and to ProfilerStep#N steps, and
 * its stack frames (in allocator snapshots, which have no ops, the phases come
 * from the frames alone: autograd engine, nn.Module calls, torch/optim), and
 * sets allocs.category and allocs.category_reason.  Each
 * rule is listed with ml_cat_reason below and in README.md ("Memory
 * categories").  Nothing is guessed silently: what no rule covers stays
 * Unknown, with the reason saying why.
 *
 * One label is memlens' own: PARAMETER_OR_STATE, for memory that was there
 * before the trace (or before its first step) and stays to the end — weights
 * and optimizer state look the same from a trace.  PyTorch's formats have no
 * such category; exports write it as Unknown.
 *
 * The per-category curves (ml_category_changes / ml_category_curves) are exact
 * step functions replayed from the categorised allocations; they feed the
 * summary (categories_at_peak), the exports and the report's stacked chart.
 */
#ifndef ML_CATEGORIES_H
#define ML_CATEGORIES_H

#include <stdbool.h>
#include <stdint.h>

#include "curve.h"
#include "profile.h"

/* Values of allocs.category.  0 is Unknown (the column's default). */
typedef enum {
    ML_CAT_UNKNOWN = 0,
    ML_CAT_PARAMETER,
    ML_CAT_OPTIMIZER_STATE,
    ML_CAT_INPUT,
    ML_CAT_TEMPORARY,
    ML_CAT_ACTIVATION,
    ML_CAT_GRADIENT,
    ML_CAT_AUTOGRAD_DETAIL,
    ML_CAT_PARAMETER_OR_STATE,  /* memlens: present from before the trace to its end */
    ML_CAT__COUNT
} ml_category;

/* Display order: PyTorch's (PARAMETER ... AUTOGRAD_DETAIL, Unknown), with
 * PARAMETER_OR_STATE after OPTIMIZER_STATE. */
extern const uint8_t ml_category_order[ML_CAT__COUNT];

/* "PARAMETER", ..., "Unknown", "PARAMETER_OR_STATE" (PyTorch's spelling). */
const char *ml_category_name(int cat);
/* Parses a name as above (case-sensitive); -1 if unknown. */
int ml_category_parse(const char *name);
/* A CSS colour per category, matching PyTorch's memory timeline plot. */
const char *ml_category_color(int cat);

/* PyTorch's category index in memory-timeline files: PARAMETER 0 ...
 * AUTOGRAD_DETAIL 6, Unknown 7; PARAMETER_OR_STATE is written as 7. */
int ml_category_to_torch(int cat);
/* The inverse; -1 if the index is out of range. */
int ml_category_from_torch(int64_t index);

/* Why an allocation got its category (values of allocs.category_reason). */
typedef enum {
    ML_REASON_NONE = 0,             /* not categorised yet */
    ML_REASON_IMPORTED,             /* the input records the category (memory timeline) */
    ML_REASON_NO_CONTEXT,           /* Unknown: no ops, steps or frames around it */
    ML_REASON_NO_PHASE,             /* Unknown: stack frames, but none tells the phase */
    ML_REASON_FREED_IN_BWD,         /* ACTIVATION: allocated where no phase is known, freed in backward */
    ML_REASON_SAME_OP,              /* TEMPORARY: freed inside the top-level op that allocated it */
    ML_REASON_DATA,                 /* INPUT: allocated while loading data */
    ML_REASON_FWD_FREED_IN_BWD,     /* ACTIVATION: allocated in forward, freed in backward */
    ML_REASON_FWD_FREED_IN_FWD,     /* TEMPORARY: allocated and freed before backward */
    ML_REASON_COPY_KEPT,            /* INPUT: copied to the device (aten::to/copy_) and kept past backward */
    ML_REASON_FWD_KEPT,             /* ACTIVATION: forward result kept past backward (the loss, outputs) */
    ML_REASON_FWD_NO_BACKWARD,      /* ACTIVATION: forward of a step without backward */
    ML_REASON_BWD_FREED_IN_BWD,     /* AUTOGRAD_DETAIL: allocated and freed within the backward pass */
    ML_REASON_BWD_KEPT,             /* GRADIENT: allocated in backward, alive after it */
    ML_REASON_OPT_FREED,            /* TEMPORARY: allocated and freed within the optimizer step */
    ML_REASON_OPT_KEPT,             /* OPTIMIZER_STATE: created in an optimizer step, alive into the next one */
    ML_REASON_OPT_FREED_AFTER,      /* Unknown: created in an optimizer step, freed after it but before the next */
    ML_REASON_OPT_UNBOUNDED,        /* Unknown: optimizer frames, freed later, step bounds unknown */
    ML_REASON_POSTBW_FREED,         /* TEMPORARY: allocated after backward, freed in the same step */
    ML_REASON_POSTBW_KEPT,          /* Unknown: allocated after backward outside the optimizer, kept */
    ML_REASON_MODULE_TO,            /* PARAMETER: allocated by nn.Module.to/_apply/cuda, never freed */
    ML_REASON_MODULE_INIT,          /* PARAMETER: allocated while a torch.nn module was constructed, never freed */
    ML_REASON_BEFORE_TRACE_KEPT,    /* PARAMETER_OR_STATE: allocated before the trace, alive to its end */
    ML_REASON_BEFORE_STEPS_KEPT,    /* PARAMETER_OR_STATE: allocated before the first step, never freed */
    ML_REASON_BEFORE_TRACE_FREED_BWD, /* ACTIVATION: allocated before the trace, freed in backward */
    ML_REASON_BEFORE_TRACE_FREED,   /* Unknown: allocated before the trace, freed outside backward */
    ML_REASON_OUTSIDE_STEPS,        /* Unknown: allocated between steps */
    ML_REASON_UNEXPLAINED_GAP,      /* PARAMETER_OR_STATE: curve total no allocation accounts for */
    ML_REASON__COUNT
} ml_cat_reason;

/* One line for people ("allocated in forward, freed in backward"). */
const char *ml_category_reason_text(int reason);
/* A stable identifier for programs ("fwd_freed_in_bwd"). */
const char *ml_category_reason_id(int reason);

/* Sets category and category_reason of every allocation whose reason is
 * still ML_REASON_NONE.  Run by the loader after attribution. */
void ml_categorize(ml_profile *p);

/* Bytes per category live on device at an instant.  total: the device's
 * recorded curve value there, or -1; memory the curve shows beyond the live
 * allocations (allocated before the trace, never seen) is counted as
 * PARAMETER_OR_STATE. */
void ml_categories_at(const ml_profile *p, int device, ml_instant at, int64_t total,
                      int64_t out[ML_CAT__COUNT]);

/* One change of one category's level, in time (then event) order: 16
 * bytes, not 32 (a 400 MB trace has some 300 k of them, in pages written
 * fresh): its bytes and category are read from the rows it refers to
 * (ml_cat_change_delta / _cat below), not kept in it. */
typedef struct ml_cat_change {
    int64_t ts;                 /* ns */
    uint32_t event;             /* the event it came from, or ML_NONE32 */
    uint32_t ref;               /* 2 * row + is_free (the allocation's free; its delta may be -0):
                                 * row < nrows: an allocation (or, from_events, an event) row;
                                 * else the unexplained gap's move row - nrows */
} ml_cat_change;

typedef struct ml_cat_changes {
    int64_t initial[ML_CAT__COUNT]; /* levels before the first change: memory from before the trace
                                     * (incl. the unexplained gap, as PARAMETER_OR_STATE) */
    int64_t gap;                    /* of which: the unexplained gap's first value */
    ml_cat_change *v;
    size_t n;
    /* what the changes' refs read */
    size_t nrows;                   /* rows below it are allocations' (or events') */
    const int64_t *size;            /* the rows' bytes */
    const uint8_t *cat;             /* the allocations' categories; NULL: events' (Unknown) */
    int64_t *move;                  /* the gap's moves' deltas (nmove of them) */
    size_t nmove;
} ml_cat_changes;

static inline bool ml_cat_change_is_free(const ml_cat_change *x) { return x->ref & 1; }
/* A move of the unexplained gap (add_gap_band), not an allocation's change. */
static inline bool ml_cat_change_is_gap(const ml_cat_changes *c, const ml_cat_change *x)
{
    return (x->ref >> 1) >= c->nrows;
}
/* +bytes at an alloc, -bytes at a free */
static inline int64_t ml_cat_change_delta(const ml_cat_changes *c, const ml_cat_change *x)
{
    size_t r = x->ref >> 1;
    if (r >= c->nrows) return c->move[r - c->nrows];
    return x->ref & 1 ? -c->size[r] : c->size[r];
}
static inline int ml_cat_change_cat(const ml_cat_changes *c, const ml_cat_change *x)
{
    size_t r = x->ref >> 1;
    if (r >= c->nrows) return ML_CAT_PARAMETER_OR_STATE;
    if (!c->cat) return ML_CAT_UNKNOWN;
    return c->cat[r] < ML_CAT__COUNT ? c->cat[r] : ML_CAT_UNKNOWN;
}

/* All changes on a device: its allocations' (or, on a device with allocator
 * events but no allocations, a trace without addresses, its events' as
 * Unknown) and, where the device has a
 * recorded allocated curve, the moves of the unexplained gap, the
 * PARAMETER_OR_STATE band max(0, recorded - live allocations) taken after each
 * distinct time (see categories.c).  At equal times, unknown event order puts
 * allocations before frees, as PyTorch's timeline does.  Free with
 * ml_cat_changes_free. */
void ml_category_changes(const ml_profile *p, int device, ml_cat_changes *out);
void ml_cat_changes_free(ml_cat_changes *c);

/* Per-category step curves of a device, aligned: point i is the state after
 * all changes at time ts[i] (one point per distinct time); before ts[0] the
 * levels are `initial`.  value[c][i] is category c's level.  The sum over
 * categories is the allocated curve at every distinct time: the recorded one
 * where it is at or above the live allocations (the unexplained gap fills the
 * difference), else the allocations replayed.  Free with
 * ml_category_curves_free. */
typedef struct ml_category_curves {
    size_t n;
    int64_t *ts;
    int64_t *value[ML_CAT__COUNT];
    int64_t initial[ML_CAT__COUNT];
    int64_t peak[ML_CAT__COUNT];    /* each category's own maximum */
    int64_t *gap;                   /* of PARAMETER_OR_STATE at each point: the unexplained gap
                                     * (memory the recorded curve shows beyond the allocations) */
    int64_t initial_gap;
} ml_category_curves;

/* False when the device has no allocations. */
bool ml_category_curves_get(const ml_profile *p, int device, ml_category_curves *out);
void ml_category_curves_free(ml_category_curves *c);

/* The same curves as their steps only: the points' times (ts[0..n), as
 * ml_category_curves'), and for each category the points where its level
 * changes, at[k][j] ascending, with its level after each, level[k][j]
 * (m[k] of them: at point i its level is that of its last step at or before
 * i, else initial[k]).  PARAMETER_OR_STATE without the unexplained gap
 * (initial_gap, then its moves, are left out of it).  A few changes a point
 * instead of every category's level at every point: 12 bytes a change, not
 * 80 a point.  All steps are in one block.  False when the device has no
 * allocations; free with ml_category_steps_free. */
typedef struct ml_category_steps {
    size_t n;
    int64_t *ts;
    int64_t initial[ML_CAT__COUNT];
    int64_t initial_gap;
    uint16_t *moved;                /* at each point, bit k: category k has a step there */
    size_t m[ML_CAT__COUNT];
    uint32_t *at[ML_CAT__COUNT];
    int64_t *level[ML_CAT__COUNT];
    void *block;                    /* (holds every at[] and level[]) */
} ml_category_steps;
bool ml_category_steps_get(const ml_profile *p, int device, ml_category_steps *out);
void ml_category_steps_free(ml_category_steps *s);

#endif
