/*
 * view.h — what `memlens serve` keeps of one loaded rank.
 *
 * The memory view of each of its devices (view/memview.h), which the
 * rank's report data (report_data.c) was written from, kept: the API asks
 * the view's queries (window, table, live set) and formats their answers;
 * plus the index window queries read and the table's orders.  Built once, after
 * the rank's import, then read-only (except the table orders, built on first
 * use under a lock), so any number of request threads may read it at once.
 *
 * Times are ns relative to the rank's origin (its earliest time), as in the
 * report's meta; `meta` is the rank's object of that meta (web/DATA.md) with
 * "origin_ns" added, its columns described but not embedded.
 */
#ifndef ML_SERVER_VIEW_H
#define ML_SERVER_VIEW_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "distributed.h"
#include "err.h"
#include "profile.h"
#include "m4.h"
#include "memview.h"
#include "report_enc.h"

#define ML_SV_MAX_LEVELS ML_M4_MAX_LEVELS

/* A step curve with its M4 pyramid (m4.h). */
typedef ml_m4_curve ml_sv_curve;

typedef struct ml_sv_device {
    const char *id;
    int pdev;                   /* the device's index in the profile */
    int64_t t0, t1;
    size_t ncurves, nop;
    ml_sv_curve *curves, *op_curves;
    int peak_curve;             /* curve of the peak; -1 if no peak */
    int tracked_curve;          /* the live bytes of the trace's allocations (group "tracked"); -1 if none */

    /* The category chart: per category (in category_order, bottom first) the
     * top of its band = the sum of it and the categories below, on the
     * shared times of the category curves, each with its own M4 pyramid. */
    size_t ncat;
    int cat_code[16];
    ml_sv_curve cat_top[16];
    int64_t *cat_top_v[16];     /* owned */
    uint32_t *cat_mn[16], *cat_mx[16]; /* owned */
    /* The device's memory view (the rank's): its allocations' columns
     * (view->n of them, sorted by allocation time: index = the id the API
     * uses), groups, and peak facts (peak_total_known) are read from it. */
    const ml_memview *view;

    ml_mv_index ix;             /* what the view's window query reads (memview.h) */

    pthread_mutex_t mu;         /* guards order[] */
    uint32_t *order[ML_MV_SORT__COUNT];

    /* Ascend (MindStudio Insight's columns, web/src/table.js): the curves
     * the totals at allocation and release are read off (memview.h; the
     * active release times are the view's column tr). */
    ml_mv_totals totals;
} ml_sv_device;

typedef struct ml_sv_rank {
    ml_profile *p;
    int64_t origin;
    ml_buf meta;                /* the rank object, JSON */
    ml_blobs bl;                /* (columns described only) */
    size_t ndev;
    ml_sv_device *dev;
    ml_memview **views;         /* per device, owned */
    ml_mv_strings strs;         /* the rank's strings (meta "strings") */
    size_t nstrings;
    const char **strings;
    ml_mv_names names;          /* the same, as the view's queries take them */
    size_t nstacks, nstack_frames, nframes;
    const uint32_t *stack_start, *stack_frames, *frame_name, *frame_file;
    const int64_t *frame_line;
    uint32_t *own_frame_name, *own_frame_file;
    int64_t *own_frame_line;
    struct ml_sv_trace *trace;  /* the Trace view's lanes (api_trace.h); NULL without slices */
    pthread_mutex_t perf_mu;    /* guards perf, perf_state */
    int perf_state;             /* 0 not made yet, 1 made, -1 the rank has none */
    size_t perf_key;            /* the distributed view's key (ranks.h ml_ranks_distributed) perf was made with */
    int perf_top;               /* and the rows per table it was made with */
    ml_buf perf;                /* the perf object (report.h ml_report_perf_json_with), made when first asked */
} ml_sv_rank;

/* Appends the rank's perf object (web/DATA.md "Profiler views") to out, made
 * on the first call and kept, with dist (the distributed view of all the
 * ranks loaded so far, ranks.h ml_ranks_distributed) as its "distributed";
 * made again when key (which names dist) differs from the one it was made
 * with, i.e. when more ranks have loaded since, or when top (rows per
 * table, perf.h) differs.  False when the rank has no time side. */
bool ml_sv_perf(ml_sv_rank *r, const ml_distributed *dist, size_t key, int top, ml_buf *out);

/* Builds the view of a loaded profile; takes ownership of p (freed with the view). */
ml_sv_rank *ml_sv_rank_build(ml_profile *p, ml_err *e);
void ml_sv_rank_free(ml_sv_rank *r);

/* The order of d's allocations by a key (memview.h ml_memview_order); made
 * on first use and kept. */
const uint32_t *ml_sv_order(ml_sv_device *d, const ml_sv_rank *r, ml_mv_sort key);

#endif
