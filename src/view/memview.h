/*
 * memview.h — the memory side of one device, computed once from the profile:
 * the curves with their M4 pyramids, the groups the timeline and tables use,
 * the per-group curves ("group by op"), the category bands, the peak with
 * its breakdowns, the per-operator statistics and the allocations' columns.
 *
 * The report serialises it (report_data.c, web/DATA.md is the contract) and
 * `memlens serve` keeps it and answers its queries from it (server/view.c,
 * api.c).  Built once, then read-only.  Times are ns relative to the rank's
 * origin, as written.
 *
 * The allocations' columns are declared once, in ML_MV_COLUMNS: the report's
 * writer, the server's table and window answers and tests/test_memview.c
 * (which checks web/DATA.md's list against it) all go by that table.
 */
#ifndef ML_VIEW_MEMVIEW_H
#define ML_VIEW_MEMVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "breakdown.h"
#include "categories.h"
#include "m4.h"
#include "profile.h"
#include "vec.h"

/* The columns of allocs, in the order the report writes them:
 * X(name, C type, encoder (report_enc.h ml_col_*), delta-coded, optional, served by the API). */
#define ML_MV_COLUMNS(X)                     \
    X(ta,      int64_t,  i64, 1, 0, 1)       \
    X(tf,      int64_t,  i64, 0, 0, 1)       \
    X(size,    int64_t,  i64, 0, 0, 1)       \
    X(tr,      int64_t,  i64, 0, 1, 0)       \
    X(addr_hi, uint32_t, u32, 0, 0, 1)       \
    X(addr_lo, uint32_t, u32, 0, 0, 1)       \
    X(group,   uint32_t, u32, 0, 0, 1)       \
    X(op,      uint32_t, u32, 0, 0, 1)       \
    X(stream,  uint32_t, u32, 0, 0, 1)       \
    X(stack,   uint32_t, u32, 0, 0, 1)       \
    X(src,     uint32_t, u32, 0, 0, 1)       \
    X(flags,   uint8_t,  u8,  0, 0, 1)       \
    X(cat,     uint8_t,  u8,  0, 0, 1)       \
    X(reason,  uint8_t,  u8,  0, 0, 1)

/* The bits of allocs.flags (web/DATA.md): the profile's own (profile.h). */
enum {
    ML_MV_BEFORE_TRACE = ML_ALLOC_BEFORE_TRACE, /* ta is the device's t0 */
    ML_MV_NEVER_FREED = ML_ALLOC_NEVER_FREED,   /* tf is the device's t1 */
};

/* The column table as data (name, whether optional), for tests and tools. */
typedef struct ml_mv_column_info {
    const char *name;
    bool optional;
} ml_mv_column_info;
extern const ml_mv_column_info ml_mv_columns[];
extern const size_t ml_mv_ncolumns;

/* Group key of an allocation: before the trace, none, then top-level ops or frames. */
enum { ML_MV_GROUP_BEFORE = 0, ML_MV_GROUP_NONE = 1, ML_MV_GROUP_FIRST_OP = 2 };

/* A rank's string table: profile string ids in the order first used (the
 * report's "strings"; op and stream columns index it). */
typedef struct ml_mv_strings {
    size_t nstr;              /* strings in the profile's pool */
    uint32_t *local;          /* profile id -> index, or ML_NONE32 */
    VEC(ml_str) ids;          /* index -> profile id */
} ml_mv_strings;

void ml_mv_strings_init(ml_mv_strings *s, const ml_profile *p);
uint32_t ml_mv_str(ml_mv_strings *s, ml_str id);
void ml_mv_strings_free(ml_mv_strings *s);

/* A step curve: points (times relative), its maximum and its M4 pyramid. */
typedef struct ml_mv_curve {
    const char *kind, *group, *of; /* of: the component or stream (the page's colour), or NULL */
    char *label;              /* owned */
    size_t n;
    int64_t *t;               /* owned */
    const int64_t *v;         /* the profile's series (recorded) or own_v */
    int64_t *own_v;
    int64_t max, tmax;        /* tmax relative */
    bool replayed;            /* an overall series replayed from events, not the allocator's recorded totals */
    ml_m4 py;
} ml_mv_curve;

/* A band of the category chart: PyTorch's category cat (-1: memory from
 * before the trace); its values on the bands' shared times come from
 * ml_memview_band_values (made when asked: a copy of each would double
 * what the report holds). */
typedef struct ml_mv_band {
    int cat;
    const char *label;
    int64_t max, tmax;
} ml_mv_band;

/* A row of a breakdown: a label with bytes and count; key: what it sums. */
typedef struct ml_mv_sum {
    const char *label;
    int64_t bytes, count;
    size_t key;
} ml_mv_sum;

typedef struct ml_mv_group_stat {
    int64_t allocs, bytes, net, peak, peak_count;
} ml_mv_group_stat;

typedef struct ml_memview {
    const ml_profile *p;
    uint16_t dev;
    int64_t origin;
    int64_t t0, t1;           /* absolute: the device's time range */

    /* Curves: overall (allocated, reserved, active, app reserved), per
     * component / stream, then "tracked" (the trace's allocations). */
    VEC(ml_mv_curve) curves;
    int alloc_curve;          /* the overall allocated curve; -1 if none */
    int primary;              /* the peak's curve; -1 if none */

    /* The groups (allocs.groups) and their statistics. */
    VEC(const char *) group_label;
    VEC(ml_str) group_op;     /* the operator's name; 0 for frame groups */
    bool by_frame;
    ml_strpool *frames;       /* frame group labels */
    ml_mv_group_stat *gs;
    int64_t *calls;           /* per group: cpu ops of its name; -1 unknown (JSON null) */

    /* The peak (as `memlens summary`) and its live set's breakdowns,
     * each sorted by bytes (largest first). */
    bool peak_found;
    int peak_curve;
    int64_t peak_v, peak_t;   /* peak_t absolute */
    int64_t peak_event;       /* -1 if none */
    const char *peak_kind;
    bool peak_total_known;    /* the peak's curve is recorded allocated totals: the gap between it and
                               * the live set is memory allocated before the trace */
    int64_t live_tracked, live_count, untracked;
    ml_mv_sum *peak_by_op;         /* ngroups rows */
    ml_mv_sum *peak_by_frame;      /* npeak_by_frame rows */
    size_t npeak_by_frame;
    ml_mv_sum peak_by_cat[ML_CAT__COUNT + 1];
    ml_breakdown bf;          /* holds by_frame's labels */

    /* Per-group curves ("group by op"), the largest at the peak first. */
    VEC(ml_mv_curve) op_curves;

    /* The category chart (once ml_memview_categories has run): bands on
     * shared times (cat_t, relative; the allocated curve's own column when
     * cat_t_shared). */
    void *cat_job;            /* the category curves being computed on the second core, or NULL */
    struct ml_par_job *cat_run;
    size_t ncat_t;
    int64_t *cat_t;           /* owned unless cat_t_shared */
    bool cat_t_shared;        /* the times are the allocated curve's (its column is written once) */
    bool cat_t_own;           /* cat_t is the view's own copy */
    bool cat_any;             /* the device has category curves (their time column is written) */
    VEC(ml_mv_band) bands;
    ml_category_steps cs;     /* the categories' steps (less the base band's part) */
    int64_t *cat_base;        /* the base band (cat -1) on cat_t */
    uint32_t *cat_xof;        /* at each of cs's points, the point of cat_t where it is (its time's) */
    bool bands_released;      /* ml_memview_release_bands: no band values any more */

    /* The allocations drawn (all, or within the budget those live at the
     * peak, then the largest), sorted by allocation time. */
    size_t n, total, summarised;
    int64_t summarised_bytes;
    bool has_op, has_stream, has_addr;
#define ML_MV_FIELD(name, type, enc, delta, opt, api) type *name;
    ML_MV_COLUMNS(ML_MV_FIELD)  /* tr: NULL when no active release differs */
#undef ML_MV_FIELD
} ml_memview;

/* Options: budget of allocations drawn; curve labels by MindStudio Insight's names. */
typedef struct ml_mv_opts {
    size_t max_allocs;
    bool insight_names;
    const uint32_t *calls;    /* profile string id -> cpu ops of that name (NULL: unknown) */
} ml_mv_opts;

/* Builds device dev's view; strings takes the op and stream names in
 * column order.  The category chart is computed meanwhile on the second
 * core (a writer writes the rest first): ml_memview_categories waits for
 * it and makes the bands; call it before reading them. */
ml_memview *ml_memview_build(const ml_profile *p, uint16_t dev, int64_t origin, const ml_mv_opts *o,
                             ml_mv_strings *strings);
void ml_memview_categories(ml_memview *v);
void ml_memview_free(ml_memview *v);

/* Frees a curve's points and pyramid once written (a writer that does not
 * keep the view: what it has handed on need not be held twice); the
 * category bands' times stay. */
void ml_memview_release_curve(ml_memview *v, ml_mv_curve *c);

/* Whether a device has anything to show: a curve (recorded, or replayed from
 * events even when nothing matches) or an allocation. */
bool ml_memview_device_shown(const ml_profile *p, uint16_t dev);

/* Frees what the bands' values are made from, for a holder that has taken
 * what it needs of them (the server keeps the band tops); ml_memview_band_values
 * must not be called after it. */
void ml_memview_release_bands(ml_memview *v);

/* Band `band`'s values on cat_t (ncat_t of them) into out. */
void ml_memview_band_values(const ml_memview *v, size_t band, int64_t *out);
/* The same, to be read only: the view's own column where it keeps one (the
 * base band's), else `room` (ncat_t values) filled. */
const int64_t *ml_memview_band_column(const ml_memview *v, size_t band, int64_t *room);

/* Live at relative time t by category (allocs.cat), over the view's columns,
 * as the report's peak counts it; total: the curve's value when it is
 * recorded totals (else -1), whose gap to the live allocations is memory
 * from before the trace. */
typedef struct ml_mv_live {
    int64_t by_cat[ML_CAT__COUNT], n_cat[ML_CAT__COUNT];
    int64_t shown_before, shown_before_n; /* "(allocated before trace)" (beforetrace.h) */
    int64_t tracked, count, before;
} ml_mv_live;
void ml_memview_live_at(const ml_memview *v, int64_t t, int64_t total, ml_mv_live *out);

/* ---- queries over the columns (view/memview_query.c) ----------------------
 * What `memlens serve` answers (server/api.c formats their results) and the
 * page computes for itself from a static report (web/src): the allocations a
 * window draws, the table's filtered, sorted page.  Names (op, stream) are
 * the rank's strings by local index (ml_mv_strings order), given as text. */

/* The rank's strings as text, local index -> name (ml_mv_strings' ids). */
typedef struct ml_mv_names {
    const char *const *s;
    size_t n;
} ml_mv_names;

/* What window queries read besides the columns, built once per view
 * (ml_memview_index): free times sorted, byte prefix sums in allocation and
 * free order (counts and bytes of what intersects a window, in O(log n)),
 * and per block of ML_MV_BLOCK allocations the latest free and the longest
 * life (blocks with nothing in the window or nothing >= 1 px are skipped). */
#define ML_MV_BLOCK 256
typedef struct ml_mv_index {
    int64_t *tf_sorted, *bytes_ta, *bytes_tf;
    int64_t *blk_max_tf, *blk_max_dur;
    size_t nblk;
} ml_mv_index;
void ml_memview_index(const ml_memview *v, ml_mv_index *ix);
void ml_mv_index_free(ml_mv_index *ix);

/* The allocations window [t0, t1] at px pixels draws (web/src/lanes.js
 * visibleBars): ids, the bars at least one pixel wide (the largest `limit`
 * of them when more, `keep` >= 0 always), sorted; the narrower ones counted
 * per pixel column and group (small_*, columns in order). */
typedef struct ml_mv_window {
    VEC(uint32_t) ids;
    VEC(uint32_t) small_x, small_group, small_n;
    size_t in_window;         /* allocations that intersect the window */
    int64_t in_bytes;         /* and their bytes */
    size_t wide;              /* of them at least one pixel wide */
    bool limited;             /* more wide than limit: ids holds the largest */
    size_t summarised;        /* in the window, not drawn as bars (keep aside) */
    int64_t summarised_bytes;
} ml_mv_window;
void ml_memview_window(const ml_memview *v, const ml_mv_index *ix, double t0, double t1, int px, size_t limit,
                       int64_t keep, ml_mv_window *w);
void ml_mv_window_free(ml_mv_window *w);

/* Ascend (MindStudio Insight's columns): the curves the totals at an
 * allocation and its release are read off, by kind (0 allocated, 1
 * reserved, 2 active): overall, and per allocator component (PTA, GE);
 * -1 where the view has none. */
typedef struct ml_mv_totals {
    int overall[3], comp[2][3];
} ml_mv_totals;
void ml_memview_totals(const ml_memview *v, ml_mv_totals *tc);
/* The device's total of kind k at allocation i's allocation (rel 0) or
 * release (rel 1), after the events at that time, as web/src/table.js
 * totalAt: its component's curve (GE for the cann:: operators, else PTA) or
 * the overall one; -1 when unknown. */
int64_t ml_memview_total_at(const ml_memview *v, const ml_mv_totals *tc, const ml_mv_names *names, int k, int rel,
                            uint32_t i);

/* The table's sort keys (web/src/table.js ALLOC_COLUMNS). */
typedef enum {
    ML_MV_SORT_GROUP, ML_MV_SORT_OP, ML_MV_SORT_SIZE, ML_MV_SORT_TA, ML_MV_SORT_TF, ML_MV_SORT_DUR,
    ML_MV_SORT_STREAM, ML_MV_SORT_ADDR, ML_MV_SORT_CAT, ML_MV_SORT_REASON,
    /* Ascend (Insight's columns): active release, active duration, totals at allocation, release */
    ML_MV_SORT_TR, ML_MV_SORT_ADUR, ML_MV_SORT_AA, ML_MV_SORT_AR, ML_MV_SORT_AC, ML_MV_SORT_RA, ML_MV_SORT_RR,
    ML_MV_SORT_RC,
    ML_MV_SORT__COUNT
} ml_mv_sort;

/* The ids of the view's allocations ordered by key, ascending, ties by id
 * (names sort by their bytes, categories in display order, reasons by their
 * text, an unknown Ascend value as 0); v->n of them, malloc'd. */
uint32_t *ml_memview_order(const ml_memview *v, const ml_mv_names *names, const ml_mv_totals *tc, ml_mv_sort key);

/* A category's position in the display order (categories.h ml_category_order). */
uint32_t ml_mv_cat_rank(unsigned cat);

/* The table's filter, sort and page (web/src/table.js filterAllocs). */
typedef struct ml_mv_table_query {
    const char *text;           /* group or operator name contains (case-insensitive); NULL or "" = all */
    int64_t min_size, max_size; /* -1 = no bound */
    int cat;                    /* only this category (categories.h); -1 = all */
    int in_window;              /* only what intersects [t0, t1] */
    double t0, t1;
    ml_mv_sort sort;
    int dir;                    /* 1 ascending, -1 descending */
    size_t page, page_size;
} ml_mv_table_query;

/* The filter made ready for a view: which groups and names hold the text. */
typedef struct ml_mv_filter {
    const ml_mv_table_query *q;
    uint8_t *gok, *sok;         /* NULL without text */
} ml_mv_filter;
void ml_mv_filter_init(ml_mv_filter *f, const ml_memview *v, const ml_mv_names *names, const ml_mv_table_query *q);
bool ml_mv_filter_keeps(const ml_mv_filter *f, const ml_memview *v, uint32_t i);
void ml_mv_filter_free(ml_mv_filter *f);

/* One page of the table: the rows the filter keeps, in order (an order of
 * the key f->q->sort, ml_memview_order), read descending for dir -1; a
 * page past the end is the last one. */
typedef struct ml_mv_page {
    VEC(uint32_t) rows;
    size_t total, page, pages;  /* rows kept, the page given, pages (1 when none) */
} ml_mv_page;
void ml_memview_table(const ml_memview *v, const ml_mv_filter *f, const uint32_t *order, ml_mv_page *out);

/* The category chart's band tops (what its window queries read): band k's
 * values plus those of the bands below it, on the bands' shared times
 * (v->cat_t, v->ncat_t of them), each with its M4 pyramid; at most max,
 * bottom first.  Reads the bands' values: after ml_memview_categories,
 * before ml_memview_release_bands.  Returns how many were made. */
typedef struct ml_mv_band_top {
    int cat;                  /* the band's category (ml_mv_band.cat) */
    int64_t *v;               /* malloc'd */
    ml_m4 py;
} ml_mv_band_top;
size_t ml_memview_band_tops(const ml_memview *v, ml_mv_band_top *out, size_t max);

/* ---- the curves' windows ----------------------------------------------------
 * Curves as analysis/m4.h reads them (points and pyramid: the view's curves
 * and band tops); a window [t0, t1] (relative ns) drawn px columns wide. */

/* The points a window draws of a curve (exact M4: every column's extremes),
 * edged: the step in force at t0 starts at t0 (not at its own earlier time)
 * and, when the last point lies before t1, a point at t1 with the value then
 * in force closes the line, so that a flat stretch is drawn across it. */
typedef struct ml_mv_points {
    size_t n;
    int64_t *t, *v;           /* malloc'd, n each */
} ml_mv_points;
void ml_mv_curve_window(const ml_m4_curve *c, double t0, double t1, int px, ml_mv_points *out);
void ml_mv_points_free(ml_mv_points *p);

/* The highest value of a curve within [t0, t1] (the step in force at t0
 * included); 0 when none is above 0. */
int64_t ml_mv_curve_max(const ml_m4_curve *c, double t0, double t1);

/* The category chart's window: the band tops (bottom first, on shared
 * times) read at the union of every top's M4 points, so that each band edge
 * keeps its extremes; edged as ml_mv_curve_window.  t: n times; v[k]: band
 * k's n values (nbands of them). */
typedef struct ml_mv_band_points {
    size_t n, nbands;
    int64_t *t, **v;          /* malloc'd */
} ml_mv_band_points;
void ml_mv_bands_window(const ml_m4_curve *tops, size_t nbands, double t0, double t1, int px, ml_mv_band_points *out);
void ml_mv_band_points_free(ml_mv_band_points *w);

/* Per pixel column, for the stacked timeline (web/src/stack.js columnPeaks):
 * the instant of the curve's highest value in it (its first whole ns when
 * the value in force there is the highest), that value, and the part of it
 * no allocation of the trace accounts for (the value less the tracked
 * curve's, when tracked is given; else 0).  n = px columns. */
typedef struct ml_mv_peak_columns {
    size_t n;
    int64_t *t, *v, *base;    /* malloc'd */
} ml_mv_peak_columns;
void ml_mv_column_peaks(const ml_m4_curve *c, const ml_m4_curve *tracked, double t0, double t1, int px,
                        ml_mv_peak_columns *out);
void ml_mv_peak_columns_free(ml_mv_peak_columns *p);

#endif
