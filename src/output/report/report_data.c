/*
 * report_data.c — the data of the HTML report: for every rank and device,
 * the memory curves with their M4 pyramids, the exact peak and the live set
 * at it, the allocations (capped by a budget that keeps the ones that
 * matter) and per-operator statistics.  The page sees only this, never raw
 * events; web/DATA.md is the contract.
 *
 * Times are written relative to one origin (the earliest time of all ranks),
 * as int64 ns, so that the page can hold them exactly in doubles.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "breakdown.h"
#include "components.h"
#include "format.h"
#include "curve.h"
#include "m4.h"
#include "report.h"
#include "report_caps.h"
#include "stats.h"
#include "perf.h"
#include "categories.h"
#include "report_trace.h"
#include "report_static.h"
#include "report_segments.h"
#include "unmatched.h"
#include "beforetrace.h"
#include "par.h"
#include "phase.h"
#include "sortperm.h"

/* Top-level operator groups that also get a curve of their own ("group by op"). */
#define OP_CURVES 8
/* Driver modules (Ascend npu_module_mem) drawn one by one; the rest are summed. */
#define REPORT_MODULE_CURVES 6


static const char *series_kind_name(int k)
{
    switch (k) {
    case ML_SERIES_ALLOCATED: return "allocated";
    case ML_SERIES_RESERVED: return "reserved";
    case ML_SERIES_ACTIVE: return "active";
    case ML_SERIES_APP_RESERVED: return "app reserved";
    default: return "other";
    }
}

void ml_report_curve_label(char *buf, size_t cap, bool insight, const char *kind, const char *comp, const char *stream)
{
    static const char *const kinds[][2] = {
        {"allocated", "Allocated"}, {"reserved", "Reserved"}, {"active", "Activated"}, {"app reserved", "APP Reserved"}};
    const char *name = kind;
    for (size_t k = 0; insight && k < sizeof kinds / sizeof *kinds; k++)
        if (!strcmp(kind, kinds[k][0])) name = kinds[k][1];
    if (stream && insight) snprintf(buf, cap, "%s of %s", name, stream);
    else if (stream) snprintf(buf, cap, "stream %s %s", stream, kind);
    else if (comp) snprintf(buf, cap, "%s %s", comp, name);
    else if (insight && strcmp(kind, "app reserved")) snprintf(buf, cap, "Operator %s", name);
    else snprintf(buf, cap, "%s", name);
}

/* Whether a profile's curves go by MindStudio Insight's names (its importer says: Ascend inputs). */
static bool insight_names(const ml_profile *p) { return p->caps.insight_names; }

/* ---- per-rank context -------------------------------------------------- */

typedef struct rank_ctx {
    const ml_profile *p;
    int64_t origin;
    ml_blobs *bl;
    ml_buf *meta;
    uint32_t *local;          /* profile string id -> index in "strings", or ML_NONE32 */
    VEC(ml_str) strings;      /* local index -> profile string id */
    uint32_t *calls;          /* profile string id -> number of cpu ops with that name */
    size_t nstr;
    size_t max_allocs;
    size_t max_history;       /* a snapshot's state history: allocator events per device (report_segments.h) */
    /* The device's overall allocated curve: its times and their column's
     * descriptor, which the category bands share when their times are the
     * same (a second copy of the largest column, in a memory-heavy trace). */
    ml_buf alloc_tdesc;
    bool save_tdesc;          /* put_curve_of copies the t descriptor into alloc_tdesc */
} rank_ctx;

static uint32_t str_local(rank_ctx *c, ml_str id)
{
    if (id >= c->nstr) return 0;
    if (c->local[id] == ML_NONE32) {
        c->local[id] = (uint32_t)c->strings.len;
        VEC_PUSH(&c->strings, id);
    }
    return c->local[id];
}

/* Group key of an allocation: before the trace, none, or its top-level op. */
enum { GROUP_BEFORE = 0, GROUP_NONE = 1, GROUP_FIRST_OP = 2 };

static int64_t rel(const rank_ctx *c, int64_t t) { return t - c->origin; }

/* ---- curves ------------------------------------------------------------ */

typedef struct curve {
    VEC(int64_t) t;
    VEC(int64_t) v;
} curve;

/* One curve into meta: points, pyramid, maximum; `of`: the component or
 * stream it belongs to (the page gives them one colour), or NULL. */
static void put_curve_of(rank_ctx *c, const char *kind, const char *group, const char *label, const char *of,
                         const int64_t *t, const int64_t *v, size_t n)
{
    ml_buf *m = c->meta;
    size_t imax = 0;
    for (size_t i = 1; i < n; i++) if (v[i] > v[imax]) imax = i;
    ml_buf_puts(m, "{\"kind\":");
    ml_json_str(m, kind);
    ml_buf_puts(m, ",\"group\":");
    ml_json_str(m, group);
    ml_buf_puts(m, ",\"label\":");
    ml_json_str(m, label);
    if (of) {
        ml_buf_puts(m, ",\"of\":");
        ml_json_str(m, of);
    }
    ml_buf_printf(m, ",\"n\":%zu,\"fan\":%d,\"max\":", n, ML_M4_FAN);
    ml_json_i64(m, n ? v[imax] : 0);
    ml_buf_puts(m, ",\"tmax\":");
    ml_json_i64(m, n ? rel(c, t[imax]) : 0);
    int64_t *tr = ml_malloc((n ? n : 1) * sizeof *tr);
    for (size_t i = 0; i < n; i++) tr[i] = rel(c, t[i]);
    ml_buf_puts(m, ",\"t\":");
    size_t at = m->len;
    ml_col_i64(c->bl, m, tr, n, 1);
    free(tr);
    if (c->save_tdesc) {
        c->alloc_tdesc.len = 0;
        ml_buf_put(&c->alloc_tdesc, m->p + at, m->len - at);
    }
    ml_buf_puts(m, ",\"v\":");
    ml_col_i64(c->bl, m, v, n, 1);
    ml_m4 py;
    ml_m4_build(v, n, &py);
    ml_buf_puts(m, ",\"mn\":");
    ml_col_u32(c->bl, m, py.argmin, py.total);
    ml_buf_puts(m, ",\"mx\":");
    ml_col_u32(c->bl, m, py.argmax, py.total);
    ml_m4_free(&py);
    ml_buf_puts(m, "}");
}

static void put_curve(rank_ctx *c, const char *kind, const char *group, const char *label,
                      const int64_t *t, const int64_t *v, size_t n)
{
    put_curve_of(c, kind, group, label, NULL, t, v, n);
}

/* One change of the live bytes: at t, the event `order` (or the allocation's
 * index when it has no event), listed at `pos`.  Ordered by (t, order, pos):
 * what a stable sort of the list by (t, order) gives. */
typedef struct step { int64_t t; int64_t d; uint32_t order, pos; } step;

#define STEP_LT(ctx, x, y) \
    ((x).t != (y).t ? (x).t < (y).t : (x).order != (y).order ? (x).order < (y).order : (x).pos < (y).pos)
ML_RUNSORT_DEFINE(sort_steps, step, int, STEP_LT)

/* Live bytes over time of the allocations idx[0..n) (all when group < 0, else
 * those of one group): allocations before the trace count from t0.  idx is
 * in allocation order, so the allocation steps are sorted already (checked);
 * the frees are sorted apart (a natural merge sort: they come in short
 * runs), then both merge. */
static void alloc_curve(const ml_profile *p, const uint32_t *idx, size_t n, const uint32_t *grp,
                        int64_t group, int64_t t0, curve *out)
{
    const ml_allocs *a = &p->allocs;
    step *al = ml_malloc((n + 1) * sizeof *al), *fr = ml_malloc((n + 1) * sizeof *fr);
    step *tmp = ml_malloc((n + 1) * sizeof *tmp);
    size_t na = 0, nf = 0;
    uint32_t pos = 0;
    int64_t base = 0;
    for (size_t j = 0; j < n; j++) {
        uint32_t i = idx[j];
        if (group >= 0 && grp[j] != (uint32_t)group) continue;
        if (a->flags.v[i] & ML_ALLOC_BEFORE_TRACE) base += a->size.v[i];
        else al[na++] = (step){ a->t_alloc.v[i], a->size.v[i], a->ev_alloc.v[i] != ML_NONE32 ? a->ev_alloc.v[i] : i, pos++ };
        if (!(a->flags.v[i] & ML_ALLOC_NEVER_FREED))
            fr[nf++] = (step){ a->t_free.v[i], -a->size.v[i], a->ev_free.v[i] != ML_NONE32 ? a->ev_free.v[i] : i, pos++ };
    }
    /* (sort_steps wants two elements at least) */
    const step *sa = al, *sf = nf > 1 ? sort_steps(fr, tmp, nf, 0) : fr;
    for (size_t j = 1; j < na; j++)
        if (STEP_LT(0, al[j], al[j - 1])) { /* event order differs from idx's (ties in time) */
            sa = sort_steps(al, sf == fr ? tmp : fr, na, 0);
            break;
        }
    size_t k = na + nf;
    VEC_RESERVE(&out->t, out->t.len + k + 1);
    VEC_RESERVE(&out->v, out->v.len + k + 1);
    int64_t *ot = out->t.v + out->t.len, *ov = out->v.v + out->v.len;
    ot[0] = t0;
    ov[0] = base;
    int64_t live = base;
    for (size_t x = 0, y = 0, o = 1; x < na || y < nf; o++) {
        const step *st = y == nf || (x < na && STEP_LT(0, sa[x], sf[y])) ? &sa[x++] : &sf[y++];
        live += st->d;
        ot[o] = st->t;
        ov[o] = live;
    }
    out->t.len += k + 1;
    out->v.len += k + 1;
    free(al);
    free(fr);
    free(tmp);
}

/* ---- allocations ------------------------------------------------------- */

static const ml_allocs *g_sort_allocs; /* qsort has no context argument */

static int by_alloc_time(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const ml_allocs *al = g_sort_allocs;
    int64_t tx = al->flags.v[x] & ML_ALLOC_BEFORE_TRACE ? INT64_MIN : al->t_alloc.v[x];
    int64_t ty = al->flags.v[y] & ML_ALLOC_BEFORE_TRACE ? INT64_MIN : al->t_alloc.v[y];
    if (tx != ty) return tx < ty ? -1 : 1;
    return (x > y) - (x < y);
}

static int by_size_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int64_t sx = g_sort_allocs->size.v[x], sy = g_sort_allocs->size.v[y];
    if (sx != sy) return sx > sy ? -1 : 1;
    return (x > y) - (x < y);
}

typedef struct group_stat {
    int64_t allocs, bytes, net, peak, peak_count;
} group_stat;

typedef struct label_sum {
    const char *label;
    int64_t bytes, count;
    size_t key;               /* group index, for by_op */
} label_sum;

static int by_bytes_desc(const void *a, const void *b)
{
    const label_sum *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->label, y->label);
}

static void put_label_sums(ml_buf *m, label_sum *ls, size_t n)
{
    qsort(ls, n, sizeof *ls, by_bytes_desc);
    ml_buf_puts(m, "[");
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ls[i].bytes && !ls[i].count) continue;
        ml_buf_puts(m, shown++ ? "," : "");
        ml_buf_puts(m, "[");
        ml_json_str(m, ls[i].label);
        ml_buf_puts(m, ",");
        ml_json_i64(m, ls[i].bytes);
        ml_buf_printf(m, ",%" PRId64 "]", ls[i].count);
    }
    ml_buf_puts(m, "]");
}

/* ---- groups: what the lanes and tables group allocations by ---------- */

/* allocs.groups of a device: 0 = before the trace, 1 = none, then the
 * top-level operators — or, for inputs without operators (allocator
 * snapshots), the first user frame of each allocation's stack, as
 * `memlens summary --by frame` picks it (ml_stack_label). */
typedef struct groups {
    VEC(const char *) label;
    VEC(ml_str) op;             /* the operator's name (calls column); 0 for frame groups */
    uint32_t *of;               /* per allocation of the device (idx order) */
    bool by_frame;
    ml_strpool *frames;         /* frame labels */
} groups;

static uint32_t group_add(groups *g, const char *label, ml_str op)
{
    VEC_PUSH(&g->label, label);
    VEC_PUSH(&g->op, op);
    return (uint32_t)g->label.len - 1;
}

static void groups_build(const rank_ctx *c, const uint32_t *idx, size_t n, groups *g)
{
    const ml_profile *p = c->p;
    const ml_allocs *a = &p->allocs;
    memset(g, 0, sizeof *g);
    group_add(g, ML_BEFORE_TRACE_GROUP, 0);
    group_add(g, "(no operator)", 0);
    g->of = ml_malloc((n ? n : 1) * sizeof *g->of);
    bool any_op = false, any_stack = false;
    for (size_t j = 0; j < n; j++) {
        if (a->op_top.v[idx[j]]) any_op = true;
        if (a->stack.v[idx[j]]) any_stack = true;
    }
    g->by_frame = !any_op && any_stack;
    size_t nmap = g->by_frame ? p->stack_start.len + 1 : c->nstr;
    uint32_t *map = ml_malloc((nmap ? nmap : 1) * sizeof *map);   /* op name or stack -> group */
    memset(map, 0xff, (nmap ? nmap : 1) * sizeof *map);
    VEC(uint32_t) by_label = {0};                                  /* frame label id -> group */
    if (g->by_frame) g->frames = ml_strpool_new();
    for (size_t j = 0; j < n; j++) {
        uint32_t i = idx[j];
        if (a->flags.v[i] & ML_ALLOC_BEFORE_TRACE) { g->of[j] = GROUP_BEFORE; continue; }
        if (!g->by_frame) {
            ml_str s = a->op_top.v[i];   /* as ml_breakdown_at groups "by top-level op" */
            if (!s || s >= c->nstr) { g->of[j] = GROUP_NONE; continue; }
            if (map[s] == ML_NONE32) map[s] = group_add(g, ml_s(p, s), s);
            g->of[j] = map[s];
            continue;
        }
        uint32_t st = a->stack.v[i] < nmap ? a->stack.v[i] : 0;
        if (map[st] == ML_NONE32) {
            char label[512];
            ml_stack_label(p, st, ML_BY_FRAME, label, sizeof label);
            ml_str id = ml_intern_cstr(g->frames, label);
            while (by_label.len <= id) VEC_PUSH(&by_label, ML_NONE32);
            if (by_label.v[id] == ML_NONE32) by_label.v[id] = group_add(g, ml_strget(g->frames, id), 0);
            map[st] = by_label.v[id];
        }
        g->of[j] = map[st];
    }
    VEC_FREE(&by_label);
    free(map);
}

static void groups_free(groups *g)
{
    VEC_FREE(&g->label);
    VEC_FREE(&g->op);
    free(g->of);
    if (g->frames) ml_strpool_free(g->frames);
}

/* ---- curves of components and streams (Ascend) ------------------------- */

typedef struct group_curve {
    const ml_series *s;
    const char *kind, *label;
    char text[160];
    int64_t peak, of_peak;      /* its own; the highest of its component or stream */
} group_curve;

/* Curves of the same component or stream together (the highest first), allocated before reserved. */
static int by_peak_desc(const void *x, const void *y)
{
    const group_curve *a = x, *b = y;
    if (a->of_peak != b->of_peak) return a->of_peak > b->of_peak ? -1 : 1;
    if (a->s->component != b->s->component) return a->s->component < b->s->component ? -1 : 1;
    if (a->s->stream != b->s->stream) return a->s->stream < b->s->stream ? -1 : 1;
    if (a->s->kind != b->s->kind) return a->s->kind < b->s->kind ? -1 : 1;
    return strcmp(a->text, b->text);
}

/* The sum of several step series (on the union of their times). */
static void sum_series(const group_curve *g, size_t n, curve *out)
{
    size_t *at = ml_calloc(n ? n : 1, sizeof *at);
    int64_t *cur = ml_calloc(n ? n : 1, sizeof *cur);
    for (;;) {
        int64_t t = INT64_MAX;
        for (size_t k = 0; k < n; k++)
            if (at[k] < g[k].s->ts.len && g[k].s->ts.v[at[k]] < t) t = g[k].s->ts.v[at[k]];
        if (t == INT64_MAX) break;
        int64_t v = 0;
        for (size_t k = 0; k < n; k++) {
            while (at[k] < g[k].s->ts.len && g[k].s->ts.v[at[k]] == t) cur[k] = g[k].s->value.v[at[k]++];
            v += cur[k];
        }
        VEC_PUSH(&out->t, t);
        VEC_PUSH(&out->v, v);
    }
    free(at);
    free(cur);
}

/* group "stream": the headline component's allocated, reserved and active
 * totals sampled at each stream's records; group "component": each allocator
 * component's allocated, reserved and active, then the driver modules
 * (npu_module_mem) over zero by peak, the smallest summed into one curve so
 * that the legend stays readable.  Curves that stay 0 are left out.  Streams
 * are named as the input writes them (Ascend: the decimal "Stream Ptr"),
 * curves as MindStudio Insight names them for Ascend (ml_report_curve_label). */
static void put_series_curves(rank_ctx *c, uint16_t dev, size_t *ncurves)
{
    const ml_profile *p = c->p;
    ml_str head = ml_headline_component(p, dev);
    group_curve *gc = ml_calloc(p->series.len + 1, sizeof *gc);
    size_t n = 0;
    for (size_t i = 0; i < p->series.len; i++) {
        const ml_series *s = &p->series.v[i];
        if (s->device != dev || !s->ts.len || (!s->component && !s->stream)) continue;
        if (s->kind != ML_SERIES_ALLOCATED && s->kind != ML_SERIES_RESERVED && s->kind != ML_SERIES_ACTIVE &&
            s->kind != ML_SERIES_OTHER) continue;
        if (s->stream && s->component != head) continue;
        int64_t pk = 0;
        for (size_t k = 0; k < s->ts.len; k++) if (s->value.v[k] > pk) pk = s->value.v[k];
        if (!pk) continue;
        group_curve *g = &gc[n++];
        g->s = s;
        g->peak = pk;
        g->kind = series_kind_name(s->kind);
        const char *comp = s->component ? ml_s(p, s->component) : "";
        if (s->stream) {
            g->label = "stream";
            ml_report_curve_label(g->text, sizeof g->text, insight_names(p), g->kind, NULL, ml_s(p, s->stream));
        } else if (s->kind == ML_SERIES_OTHER) {
            g->label = "module";
            g->kind = "reserved";
            if (!strcmp(comp, "DEVICE")) snprintf(g->text, sizeof g->text, "device total (all processes)");
            else snprintf(g->text, sizeof g->text, "%s module", comp);
        } else {
            g->label = "component";
            ml_report_curve_label(g->text, sizeof g->text, insight_names(p), g->kind, comp, NULL);
        }
    }
    for (size_t k = 0; k < n; k++)
        for (size_t q = 0; q < n; q++)
            if (gc[q].s->component == gc[k].s->component && gc[q].s->stream == gc[k].s->stream &&
                !strcmp(gc[q].label, gc[k].label) && gc[q].peak > gc[k].of_peak)
                gc[k].of_peak = gc[q].peak;
    qsort(gc, n, sizeof *gc, by_peak_desc);
    /* allocator components and streams first (in peak order), then modules */
    size_t modules = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < n; k++) {
            bool module = !strcmp(gc[k].label, "module");
            if (module != (pass == 1)) continue;
            if (module && modules >= REPORT_MODULE_CURVES) continue;
            modules += module;
            const char *of = gc[k].s->stream ? ml_s(p, gc[k].s->stream) : ml_s(p, gc[k].s->component);
            ml_buf_puts(c->meta, (*ncurves)++ ? "," : "");
            put_curve_of(c, gc[k].kind, gc[k].s->stream ? "stream" : "component", gc[k].text, of,
                         gc[k].s->ts.v, gc[k].s->value.v, gc[k].s->ts.len);
        }
    }
    /* the modules past the cap: one curve */
    size_t nrest = 0, seen = 0;
    group_curve *rest = ml_calloc(n + 1, sizeof *rest);
    for (size_t k = 0; k < n; k++)
        if (!strcmp(gc[k].label, "module") && seen++ >= REPORT_MODULE_CURVES) rest[nrest++] = gc[k];
    if (nrest) {
        curve sum = {0};
        sum_series(rest, nrest, &sum);
        char text[64];
        snprintf(text, sizeof text, "%zu other modules", nrest);
        ml_buf_puts(c->meta, (*ncurves)++ ? "," : "");
        put_curve_of(c, "reserved", "component", text, "other modules", sum.t.v, sum.v.v, sum.t.len);
        VEC_FREE(&sum.t);
        VEC_FREE(&sum.v);
    }
    free(rest);
    free(gc);
}

/* ---- the category chart ------------------------------------------------ */

/* The category curves of a device (ml_category_curves_get), computed on the
 * second core while put_device writes the allocations and op curves. */
typedef struct cat_job {
    const ml_profile *p;
    uint16_t dev;
    bool any;
    ml_category_curves cc;
} cat_job;

static void cat_job_run(void *arg)
{
    cat_job *j = arg;
    j->any = ml_category_curves_get(j->p, j->dev, &j->cc);
}

/* category_curves: PyTorch's categories of the device's allocations and,
 * under them (cat -1), the memory from before the trace: what the recorded
 * allocated curve shows beyond those allocations, point by point (it varies
 * when the input lists only some allocations, as Ascend's operator_memory
 * does).  Stacked, the bands draw the allocated curve wherever it is at
 * least the sum of the allocations.  All bands share the union of the times
 * of the category changes and of the allocated curve.  Takes the curves
 * from cj (and frees them). */
static void put_category_curves(rank_ctx *c, uint16_t dev, int64_t t0, cat_job *cj)
{
    const ml_profile *p = c->p;
    if (!cj->any) return;
    ml_category_curves cc = cj->cc;
    /* categories.c counts the unexplained gap (the recorded curve beyond the
     * allocations) as PARAMETER_OR_STATE: take it out, it is the base band. */
    cc.initial[ML_CAT_PARAMETER_OR_STATE] -= cc.initial_gap;
    for (size_t i = 0; i < cc.n; i++) cc.value[ML_CAT_PARAMETER_OR_STATE][i] -= cc.gap[i];
    /* So are the allocations known only to predate the trace (beforetrace.h):
     * alive from before it to its end, a constant part of PARAMETER_OR_STATE. */
    int64_t kept = 0;
    for (size_t i = 0; i < p->allocs.size.len; i++)
        if (p->allocs.device.v[i] == dev && ml_shown_before_trace(p->allocs.flags.v[i], p->allocs.category.v[i]))
            kept += p->allocs.size.v[i];
    cc.initial[ML_CAT_PARAMETER_OR_STATE] -= kept;
    for (size_t i = 0; i < cc.n; i++) cc.value[ML_CAT_PARAMETER_OR_STATE][i] -= kept;

    ml_curve cv;
    bool recorded = ml_curve_get(p, dev, ML_SERIES_ALLOCATED, &cv) && cv.n && !cv.replayed;
    /* times: t0 (the levels before the first change), then the union */
    VEC(int64_t) ts = {0};
    VEC_PUSH(&ts, cc.n && cc.ts[0] < t0 ? cc.ts[0] : t0);
    size_t i = 0, j = 0;
    while (i < cc.n || (recorded && j < cv.n)) {
        int64_t t = i < cc.n ? cc.ts[i] : INT64_MAX;
        if (recorded && j < cv.n && cv.ts[j] < t) t = cv.ts[j];
        while (i < cc.n && cc.ts[i] == t) i++;
        while (recorded && j < cv.n && cv.ts[j] == t) j++;
        if (t > ts.v[ts.len - 1]) VEC_PUSH(&ts, t);
    }
    size_t n = ts.len;
    /* Each band at the union's times: step functions, read by a cursor. */
    int64_t *base = ml_calloc(n, sizeof *base), *val = ml_malloc(n * sizeof *val), base_peak = 0;
    int64_t peak[ML_CAT__COUNT] = {0};
    i = j = 0;
    for (size_t x = 0; x < n; x++) {
        while (i < cc.n && cc.ts[i] <= ts.v[x]) i++;
        while (recorded && j < cv.n && cv.ts[j] <= ts.v[x]) j++;
        int64_t sum = 0;
        for (int k = 0; k < ML_CAT__COUNT; k++) {
            int64_t v = i ? cc.value[k][i - 1] : cc.initial[k];
            if (v > peak[k]) peak[k] = v;
            sum += v;
        }
        if (recorded && j) base[x] = cv.value[j - 1] > sum + kept ? cv.value[j - 1] - sum - kept : 0;
        base[x] += kept;
        if (base[x] > base_peak) base_peak = base[x];
    }
    /* The bands share one time column (written once); they need no M4
     * pyramid of their own: the page and the server build one per band top. */
    ml_buf tcol = {0};
    bool same = c->alloc_tdesc.len && cv.n == n;
    for (size_t x = 0; same && x < n; x++) same = cv.ts[x] == ts.v[x];
    if (same) ml_buf_put(&tcol, c->alloc_tdesc.p, c->alloc_tdesc.len); /* the allocated curve's times */
    else {
        int64_t *tr = ml_malloc(n * sizeof *tr);
        for (size_t x = 0; x < n; x++) tr[x] = rel(c, ts.v[x]);
        ml_col_i64(c->bl, &tcol, tr, n, 1);
        free(tr);
    }
    size_t ncc = 0;
    for (int q = -1; q < ML_CAT__COUNT; q++) {
        int k = q < 0 ? -1 : ml_category_order[q];
        if (k < 0 ? !base_peak : !peak[k]) continue;
        if (k >= 0)
            for (size_t x = 0, at = 0; x < n; x++) {
                while (at < cc.n && cc.ts[at] <= ts.v[x]) at++;
                val[x] = at ? cc.value[k][at - 1] : cc.initial[k];
            }
        const int64_t *v = k < 0 ? base : val;
        size_t imax = 0;
        for (size_t x = 1; x < n; x++) if (v[x] > v[imax]) imax = x;
        ml_buf_printf(c->meta, "%s{\"cat\":%d,\"curve\":{\"kind\":\"allocated\",\"group\":\"category\",\"label\":",
                      ncc++ ? "," : "", k);
        ml_json_str(c->meta, k < 0 ? ML_BEFORE_TRACE_GROUP : ml_category_name(k));
        ml_buf_printf(c->meta, ",\"n\":%zu,\"max\":", n);
        ml_json_i64(c->meta, v[imax]);
        ml_buf_puts(c->meta, ",\"tmax\":");
        ml_json_i64(c->meta, rel(c, ts.v[imax]));
        ml_buf_puts(c->meta, ",\"t\":");
        ml_buf_put(c->meta, tcol.p, tcol.len);
        ml_buf_puts(c->meta, ",\"v\":");
        ml_col_i64(c->bl, c->meta, v, n, 1);
        ml_buf_puts(c->meta, "}}");
    }
    ml_buf_free(&tcol);
    free(val);
    free(base);
    VEC_FREE(&ts);
    ml_curve_free(&cv);
    ml_category_curves_free(&cc);
}

/* ---- one device -------------------------------------------------------- */

static void put_device(rank_ctx *c, uint16_t dev)
{
    const ml_profile *p = c->p;
    const ml_allocs *a = &p->allocs;
    ml_buf *m = c->meta;
    const ml_device *d = &p->devices.v[dev];

    /* This device's allocations, in allocation order. */
    VEC(uint32_t) idx = {0};
    for (size_t i = 0; i < a->size.len; i++)
        if (a->device.v[i] == dev) VEC_PUSH(&idx, (uint32_t)i);
    g_sort_allocs = a;
    int sorted = 1;
    for (size_t j = 1; j < idx.len && sorted; j++)
        if (by_alloc_time(&idx.v[j - 1], &idx.v[j]) > 0) sorted = 0;
    if (!sorted) qsort(idx.v, idx.len, sizeof *idx.v, by_alloc_time);

    /* Time range of the device: its series and allocations. */
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (size_t s = 0; s < p->series.len; s++) {
        const ml_series *se = &p->series.v[s];
        if (se->device != dev || !se->ts.len) continue;
        if (se->ts.v[0] < t0) t0 = se->ts.v[0];
        if (se->ts.v[se->ts.len - 1] > t1) t1 = se->ts.v[se->ts.len - 1];
    }
    for (size_t j = 0; j < idx.len; j++) {
        uint32_t i = idx.v[j];
        if (!(a->flags.v[i] & ML_ALLOC_BEFORE_TRACE)) {
            if (a->t_alloc.v[i] < t0) t0 = a->t_alloc.v[i];
            if (a->t_alloc.v[i] > t1) t1 = a->t_alloc.v[i];
        }
        if (!(a->flags.v[i] & ML_ALLOC_NEVER_FREED)) {
            if (a->t_free.v[i] < t0) t0 = a->t_free.v[i];
            if (a->t_free.v[i] > t1) t1 = a->t_free.v[i];
        }
    }
    if (t0 > t1) t0 = t1 = c->origin;

    groups gr;
    groups_build(c, idx.v, idx.len, &gr);
    const uint32_t *grp = gr.of;

    ml_buf_puts(m, "{\"id\":");
    ml_json_str(m, d->id);
    ml_buf_puts(m, ",\"name\":");
    ml_json_str(m, d->name ? ml_s(p, d->name) : "");
    ml_buf_puts(m, ",\"total\":");
    ml_json_i64(m, d->total_memory);

    /* The headline figures, shared with `memlens summary`. */
    ml_device_stats ds;
    ml_device_stats_compute(p, dev, ML_BY_TOPLEVEL, &ds);
    if (ds.first_ts != ML_TIME_NONE && ds.first_ts < t0) t0 = ds.first_ts;
    if (ds.last_ts != ML_TIME_NONE && ds.last_ts > t1) t1 = ds.last_ts;
    ml_buf_puts(m, ",\"t0\":");
    ml_json_i64(m, rel(c, t0));
    ml_buf_puts(m, ",\"t1\":");
    ml_json_i64(m, rel(c, t1));

    /* Curves: allocated, reserved, active, app reserved (recorded, or
     * replayed from events), then per component / stream, then the live
     * bytes of the allocations the trace saw. */
    ml_buf_puts(m, ",\"curves\":[");
    c->alloc_tdesc.len = 0;
    size_t ncurves = 0;
    int primary = -1, recorded_allocated = 0;
    static const ml_series_kind kinds[] = { ML_SERIES_ALLOCATED, ML_SERIES_RESERVED, ML_SERIES_ACTIVE, ML_SERIES_APP_RESERVED };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        ml_curve cv;
        if (!ml_curve_get(p, dev, kinds[k], &cv)) continue;
        if (!cv.n) { ml_curve_free(&cv); continue; }
        char name[48], label[80];
        ml_report_curve_label(name, sizeof name, insight_names(p), series_kind_name(kinds[k]), NULL, NULL);
        snprintf(label, sizeof label, "%s%s", name, cv.replayed ? " (replayed from events)" : "");
        ml_buf_puts(m, ncurves++ ? "," : "");
        c->save_tdesc = kinds[k] == ML_SERIES_ALLOCATED;
        put_curve(c, series_kind_name(kinds[k]), "overall", label, cv.ts, cv.value, cv.n);
        c->save_tdesc = false;
        if (kinds[k] == ML_SERIES_ALLOCATED) { primary = (int)ncurves - 1; recorded_allocated = !cv.replayed; }
        ml_curve_free(&cv);
    }
    put_series_curves(c, dev, &ncurves);
    if (idx.len && recorded_allocated) {
        curve all = {0};
        alloc_curve(p, idx.v, idx.len, grp, -1, t0, &all);
        ml_buf_puts(m, ncurves++ ? "," : "");
        put_curve(c, "allocated", "tracked", "live allocations seen in the trace", all.t.v, all.v.v, all.t.len);
        VEC_FREE(&all.t);
        VEC_FREE(&all.v);
    }
    /* The category bands' data meanwhile, on the second core: from here on
     * put_device only reads p too, and the curves' memory is not held
     * through the largest steps above. */
    cat_job cj = { .p = p, .dev = dev };
    ml_par_job *cat_run = ml_par_start(cat_job_run, &cj);

    ml_peak pk = ds.peak_allocated;
    if (!pk.found && ds.peak_reserved.found) { pk = ds.peak_reserved; primary = 0; }
    int64_t peak_v = pk.found ? pk.value : 0, peak_t = pk.found ? pk.at.ts : t0;
    ml_instant peak_at = pk.found ? pk.at : (ml_instant){ t0, ML_NONE32 };

    /* Per-group statistics and the live set at the peak. */
    size_t ngroups = gr.label.len;
    group_stat *gs = ml_calloc(ngroups, sizeof *gs);
    int64_t by_cat[ML_CAT__COUNT] = {0};
    int64_t by_cat_n[ML_CAT__COUNT] = {0};
    uint8_t *keep = ml_calloc(idx.len ? idx.len : 1, 1);
    size_t nkeep = 0;
    int64_t known_before = 0;   /* live at the peak, known to predate the trace */
    int64_t shown_before = 0, shown_before_n = 0; /* of which shown as "(allocated before trace)" (beforetrace.h) */
    for (size_t j = 0; j < idx.len; j++) {
        uint32_t i = idx.v[j];
        group_stat *g = &gs[grp[j]];
        int64_t sz = a->size.v[i];
        g->allocs++;
        g->bytes += sz;
        if (a->flags.v[i] & ML_ALLOC_NEVER_FREED) g->net += sz;
        if (!pk.found || !ml_alloc_live_at(p, i, peak_at)) continue;
        keep[j] = 1;
        nkeep++;
        g->peak += sz;
        g->peak_count++;
        if (a->flags.v[i] & ML_ALLOC_BEFORE_TRACE) known_before += sz;
        if (ml_shown_before_trace(a->flags.v[i], a->category.v[i])) { /* one "(allocated before trace)" */
            shown_before += sz;
            shown_before_n++;
            continue;
        }
        uint8_t cat = a->category.v[i] < sizeof by_cat / sizeof *by_cat ? a->category.v[i] : 0;
        by_cat[cat] += sz;
        by_cat_n[cat]++;
    }
    /* Memory allocated before the trace, as the summary counts it (the gap
     * between recorded totals and the live allocations, or the allocations
     * known to predate the trace). */
    int64_t before = ds.at_peak.before_bytes;
    gs[GROUP_BEFORE].peak = before;

    ml_buf_puts(m, "],\"peak\":{");
    ml_buf_printf(m, "\"curve\":%d,\"v\":", primary < 0 ? 0 : primary);
    ml_json_i64(m, peak_v);
    ml_buf_puts(m, ",\"t\":");
    ml_json_i64(m, rel(c, peak_t));
    ml_buf_printf(m, ",\"event\":%" PRId64 ",\"kind\":\"%s\",\"live_tracked\":",
                  peak_at.event == ML_NONE32 ? (int64_t)-1 : (int64_t)peak_at.event,
                  ds.peak_allocated.found ? "allocated" : "reserved");
    ml_json_i64(m, ds.at_peak.traced_bytes);
    ml_buf_printf(m, ",\"live_count\":%" PRId64 ",\"untracked\":", ds.at_peak.traced_count);
    ml_json_i64(m, before);
    label_sum *ls = ml_malloc(ngroups * sizeof *ls);
    for (size_t g = 0; g < ngroups; g++) ls[g] = (label_sum){ gr.label.v[g], gs[g].peak, gs[g].peak_count, g };
    ml_buf_puts(m, ",\"by_op\":");
    put_label_sums(m, ls, ngroups);
    /* By frame: the breakdown the summary gives with --by frame. */
    ml_breakdown bf = {0};
    if (pk.found) ml_breakdown_at(p, dev, peak_at, ds.allocated_replayed || !ds.peak_allocated.found ? -1 : peak_v, ML_BY_FRAME, &bf);
    label_sum *fl = ml_malloc((bf.n + 1) * sizeof *fl);
    for (size_t k = 0; k < bf.n; k++) fl[k] = (label_sum){ bf.groups[k].label, bf.groups[k].bytes, bf.groups[k].count, k };
    fl[bf.n] = (label_sum){ ML_BEFORE_TRACE_GROUP, bf.before_bytes, bf.before_count, bf.n };
    ml_buf_puts(m, ",\"by_frame\":");
    put_label_sums(m, fl, bf.n + 1);
    free(fl);
    ml_breakdown_free(&bf);
    /* By category: the live allocations' categories, and the memory from
     * before the trace that no allocation shows (as the category chart). */
    label_sum cl[ML_CAT__COUNT + 1];
    for (size_t k = 0; k < ML_CAT__COUNT; k++)
        cl[k] = (label_sum){ ml_category_name((int)k), by_cat[k], by_cat_n[k], k };
    cl[ML_CAT__COUNT] = (label_sum){ ML_BEFORE_TRACE_GROUP, (before > known_before ? before - known_before : 0) + shown_before,
                                     shown_before_n, ML_CAT__COUNT };
    ml_buf_puts(m, ",\"by_category\":");
    put_label_sums(m, cl, ML_CAT__COUNT + 1);
    ml_buf_puts(m, "}");

    /* A trace without addresses: its memory events by top-level operator,
     * and their nets until the peak (which add up to the replayed curve there). */
    if (ml_unmatched_applies(p, dev)) {
        ml_unmatched um;
        ml_unmatched_by_op(p, dev, pk.found ? peak_t : INT64_MAX, &um);
        ml_buf_printf(m, ",\"unmatched\":{\"why\":\"the trace's memory events carry no addresses (PyTorch before 1.10): "
                         "a free cannot be told from which allocation it frees\",\"allocs\":%" PRId64 ",\"frees\":%" PRId64
                         ",\"by_op\":[", um.allocs, um.frees);
        for (size_t k = 0; k < um.n; k++) {
            const ml_unmatched_row *r = &um.rows[k];
            ml_buf_puts(m, k ? ",[" : "[");
            ml_json_str(m, r->op ? ml_s(p, r->op) : ML_UNMATCHED_NO_OP);
            ml_buf_printf(m, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]", r->allocs, r->alloc_bytes,
                          r->frees, r->free_bytes, r->net_at);
        }
        ml_buf_puts(m, "]}");
        ml_unmatched_free(&um);
    }

    /* Per-operator statistics over all allocations (not only the drawn ones);
     * calls null where unknown (no CPU operators in the input, or not an operator). */
    ml_buf_puts(m, ",\"ops\":[");
    bool calls_known = p->ops.name.len > 0 && !gr.by_frame;
    size_t nops = 0;
    for (size_t g = 0; g < ngroups; g++) {
        if (!gs[g].allocs && !gs[g].peak) continue;
        ml_buf_puts(m, nops++ ? ",[" : "[");
        ml_json_str(m, gr.label.v[g]);
        ml_str op = gr.op.v[g];
        if (calls_known && g >= GROUP_FIRST_OP && op < c->nstr) ml_buf_printf(m, ",%" PRIu32 ",", c->calls[op]);
        else ml_buf_puts(m, ",null,");
        ml_buf_printf(m, "%" PRId64 ",", gs[g].allocs);
        ml_json_i64(m, gs[g].bytes);
        ml_buf_puts(m, ",");
        ml_json_i64(m, gs[g].net);
        ml_buf_puts(m, ",");
        ml_json_i64(m, gs[g].peak);
        ml_buf_puts(m, "]");
    }
    ml_buf_puts(m, "]");

    /* The allocations to draw: all of them, or within the budget those live
     * at the peak and then the largest. */
    size_t budget = c->max_allocs;
    VEC(uint32_t) sel = {0};
    int64_t summarised_bytes = 0;
    if (idx.len <= budget) {
        for (size_t j = 0; j < idx.len; j++) VEC_PUSH(&sel, (uint32_t)j);
    } else {
        if (nkeep > budget) { /* even the live set is too big: keep its largest */
            memset(keep, 0, idx.len);
            nkeep = 0;
        }
        VEC(uint32_t) rest = {0};
        for (size_t j = 0; j < idx.len; j++) if (!keep[j]) VEC_PUSH(&rest, idx.v[j]);
        qsort(rest.v, rest.len, sizeof *rest.v, by_size_desc);
        /* rest holds alloc indices; mark by position through a reverse map. */
        uint32_t *pos = ml_malloc(a->size.len * sizeof *pos);
        for (size_t j = 0; j < idx.len; j++) pos[idx.v[j]] = (uint32_t)j;
        for (size_t r = 0; r < rest.len; r++) {
            if (nkeep < budget) { keep[pos[rest.v[r]]] = 1; nkeep++; }
            else summarised_bytes += a->size.v[rest.v[r]];
        }
        free(pos);
        VEC_FREE(&rest);
        for (size_t j = 0; j < idx.len; j++) if (keep[j]) VEC_PUSH(&sel, (uint32_t)j);
    }
    size_t n = sel.len;
    int64_t *ta = ml_malloc((n ? n : 1) * sizeof *ta), *tf = ml_malloc((n ? n : 1) * sizeof *tf);
    int64_t *sz = ml_malloc((n ? n : 1) * sizeof *sz);
    uint32_t *u = ml_malloc((n ? n : 1) * sizeof *u);
    uint8_t *b8 = ml_malloc(n ? n : 1);
    for (size_t k = 0; k < n; k++) {
        uint32_t i = idx.v[sel.v[k]];
        ta[k] = rel(c, a->flags.v[i] & ML_ALLOC_BEFORE_TRACE ? t0 : a->t_alloc.v[i]);
        tf[k] = rel(c, a->flags.v[i] & ML_ALLOC_NEVER_FREED ? t1 : a->t_free.v[i]);
        sz[k] = a->size.v[i];
    }
    ml_buf_printf(m, ",\"allocs\":{\"n\":%zu,\"total\":%zu,\"summarised\":%zu,\"summarised_bytes\":",
                  n, idx.len, idx.len - n);
    ml_json_i64(m, summarised_bytes);
    /* which columns the device's allocations fill (the table leaves out the others) */
    bool has_op = false, has_stream = false, has_addr = false;
    for (size_t j = 0; j < idx.len; j++) {
        has_op |= a->op.v[idx.v[j]] != 0;
        has_stream |= a->stream.v[idx.v[j]] != 0;
        has_addr |= a->addr.v[idx.v[j]] != 0;
    }
    ml_buf_printf(m, ",\"has\":{\"op\":%s,\"stream\":%s,\"addr\":%s}", has_op ? "true" : "false",
                  has_stream ? "true" : "false", has_addr ? "true" : "false");
    ml_buf_printf(m, ",\"group_by\":\"%s\",\"groups\":[", gr.by_frame ? "frame" : "op");
    for (size_t g = 0; g < ngroups; g++) {
        ml_buf_puts(m, g ? "," : "");
        ml_json_str(m, gr.label.v[g]);
    }
    /* each group's allocations and bytes (all of them, embedded or not): the lane order */
    ml_buf_puts(m, "],\"group_bytes\":[");
    for (size_t g = 0; g < ngroups; g++) {
        ml_buf_puts(m, g ? "," : "");
        ml_json_i64(m, gs[g].bytes);
    }
    ml_buf_puts(m, "],\"group_count\":[");
    for (size_t g = 0; g < ngroups; g++) ml_buf_printf(m, "%s%" PRId64, g ? "," : "", gs[g].allocs);
    ml_buf_puts(m, "],\"ta\":");
    ml_col_i64(c->bl, m, ta, n, 1);
    ml_buf_puts(m, ",\"tf\":");
    ml_col_i64(c->bl, m, tf, n, 0);
    ml_buf_puts(m, ",\"size\":");
    ml_col_i64(c->bl, m, sz, n, 0);
    /* Ascend: the active release time (Insight's "Active Release Time"), when any differs from the release */
    bool active = false;
    for (size_t k = 0; k < n && !active; k++) {
        uint32_t i = idx.v[sel.v[k]];
        active = !(a->flags.v[i] & ML_ALLOC_NEVER_FREED) && a->t_free_req.len > i && a->t_free_req.v[i] != a->t_free.v[i];
    }
    if (active) {
        for (size_t k = 0; k < n; k++) {
            uint32_t i = idx.v[sel.v[k]];
            int64_t r = a->t_free_req.v[i];
            sz[k] = a->flags.v[i] & ML_ALLOC_NEVER_FREED || r == ML_TIME_END || r == ML_TIME_NONE ? tf[k] : rel(c, r);
        }
        ml_buf_puts(m, ",\"tr\":");
        ml_col_i64(c->bl, m, sz, n, 0);
    }
    for (size_t k = 0; k < n; k++) u[k] = (uint32_t)(a->addr.v[idx.v[sel.v[k]]] >> 32);
    ml_buf_puts(m, ",\"addr_hi\":");
    ml_col_u32(c->bl, m, u, n);
    for (size_t k = 0; k < n; k++) u[k] = (uint32_t)a->addr.v[idx.v[sel.v[k]]];
    ml_buf_puts(m, ",\"addr_lo\":");
    ml_col_u32(c->bl, m, u, n);
    for (size_t k = 0; k < n; k++) u[k] = grp[sel.v[k]];
    ml_buf_puts(m, ",\"group\":");
    ml_col_u32(c->bl, m, u, n);
    for (size_t k = 0; k < n; k++) u[k] = str_local(c, a->op.v[idx.v[sel.v[k]]]);
    ml_buf_puts(m, ",\"op\":");
    ml_col_u32(c->bl, m, u, n);
    for (size_t k = 0; k < n; k++) u[k] = str_local(c, a->stream.v[idx.v[sel.v[k]]]);
    ml_buf_puts(m, ",\"stream\":");
    ml_col_u32(c->bl, m, u, n);
    for (size_t k = 0; k < n; k++) u[k] = a->stack.v[idx.v[sel.v[k]]];
    ml_buf_puts(m, ",\"stack\":");
    ml_col_u32(c->bl, m, u, n);
    for (size_t k = 0; k < n; k++) u[k] = idx.v[sel.v[k]];
    ml_buf_puts(m, ",\"src\":");
    ml_col_u32(c->bl, m, u, n);
    for (size_t k = 0; k < n; k++) b8[k] = a->flags.v[idx.v[sel.v[k]]];
    ml_buf_puts(m, ",\"flags\":");
    ml_col_u8(c->bl, m, b8, n);
    for (size_t k = 0; k < n; k++) b8[k] = a->category.v[idx.v[sel.v[k]]];
    ml_buf_puts(m, ",\"cat\":");
    ml_col_u8(c->bl, m, b8, n);
    for (size_t k = 0; k < n; k++) b8[k] = a->category_reason.v[idx.v[sel.v[k]]];
    ml_buf_puts(m, ",\"reason\":");
    ml_col_u8(c->bl, m, b8, n);
    ml_buf_puts(m, "}");
    free(ta); free(tf); free(sz); free(u); free(b8);
    VEC_FREE(&sel);

    /* Curves per group (largest at the peak first), for "group by op". */
    ml_buf_puts(m, ",\"op_curves\":[");
    size_t nop = 0;
    for (size_t r = 0; r < ngroups && nop < OP_CURVES; r++) {
        size_t g = ls[r].key;   /* ls is sorted by bytes at the peak */
        if (!gs[g].allocs || !ls[r].bytes) continue;
        curve oc = {0};
        alloc_curve(p, idx.v, idx.len, grp, (int64_t)g, t0, &oc);
        ml_buf_puts(m, nop++ ? "," : "");
        put_curve(c, "allocated", "op", ls[r].label, oc.t.v, oc.v.v, oc.t.len);
        VEC_FREE(&oc.t);
        VEC_FREE(&oc.v);
    }
    ml_buf_puts(m, "],\"category_curves\":[");
    ml_par_join(cat_run);
    put_category_curves(c, dev, t0, &cj);
    ml_buf_puts(m, "]");
    if (ml_report_is_static(p)) ml_report_static(p, dev, m);
    if (ml_report_has_segments(p)) ml_report_segments(p, dev, c->origin, c->max_history, m);
    ml_buf_puts(m, "}");

    ml_device_stats_free(&ds);
    free(ls);
    free(gs);
    free(keep);
    groups_free(&gr);
    VEC_FREE(&idx);
}

/* Whether a device has anything to show: a curve (recorded, or replayed from
 * events even when nothing matches) or an allocation. */
static bool device_shown(const ml_profile *p, uint16_t dev)
{
    for (size_t s = 0; s < p->series.len; s++)
        if (p->series.v[s].device == dev && p->series.v[s].ts.len) return true;
    for (size_t i = 0; i < p->allocs.device.len; i++)
        if (p->allocs.device.v[i] == dev) return true;
    ml_curve cv;
    bool any = ml_curve_get(p, dev, ML_SERIES_ALLOCATED, &cv) && cv.n;
    ml_curve_free(&cv);
    return any;
}

/* ---- one rank ---------------------------------------------------------- */

void ml_report_rank_head(const ml_profile *p, ml_buf *m)
{
    ml_buf_printf(m, "{\"rank\":%d,\"world_size\":%d,\"path\":", p->rank, p->world_size);
    ml_json_str(m, p->path);
    ml_buf_puts(m, ",\"format\":");
    ml_json_str(m, p->format);
    ml_report_caps_json(m, &p->caps, ml_devkind_of_profile(p));
    ml_buf_puts(m, ",\"host\":");
    ml_json_str(m, p->host ? ml_s(p, p->host) : "");
    ml_buf_printf(m, ",\"time\":\"%s\"", p->time_is_event_order ? "order" : p->time_is_absolute ? "abs" : "rel");
    ml_buf_puts(m, ",\"notes\":[");
    for (size_t i = 0; i < p->notes.len; i++) {
        ml_buf_puts(m, i ? "," : "");
        ml_json_str(m, ml_s(p, p->notes.v[i]));
    }
    ml_buf_puts(m, "]");
    /* The time side (Overview, Operators ... views): whether the rank has one, else why not. */
    const char *why = ml_perf_unavailable(p);
    ml_buf_printf(m, ",\"perf\":%s,\"perfWhy\":", why ? "false" : "true");
    if (why) ml_json_str(m, why);
    else ml_buf_puts(m, "null");
}

void ml_report_rank(const ml_profile *p, int64_t origin, size_t max_allocs, size_t max_history, ml_buf *m, ml_blobs *bl)
{
    rank_ctx c = { .p = p, .origin = origin, .bl = bl, .meta = m, .max_allocs = max_allocs, .max_history = max_history };
    c.nstr = ml_strpool_count(p->strings);
    c.local = ml_malloc((c.nstr ? c.nstr : 1) * sizeof *c.local);
    memset(c.local, 0xff, (c.nstr ? c.nstr : 1) * sizeof *c.local);
    c.calls = ml_calloc(c.nstr ? c.nstr : 1, sizeof *c.calls);
    str_local(&c, 0);
    for (size_t i = 0; i < p->ops.name.len; i++)
        if (p->ops.kind.v[i] == ML_OP_CPU && p->ops.name.v[i] < c.nstr) c.calls[p->ops.name.v[i]]++;

    ml_report_rank_head(p, m);
    ml_buf_puts(m, ",\"devices\":[");
    size_t shown = 0;
    for (size_t d = 0; d < p->devices.len; d++) {
        if (!device_shown(p, (uint16_t)d)) continue;
        ml_buf_puts(m, shown++ ? "," : "");
        put_device(&c, (uint16_t)d);
    }
    ml_buf_puts(m, "]");
    ml_phase("report: devices (memory side)");

    /* Stacks and frames (the whole pool of the rank: they are deduplicated). */
    size_t nst = p->stack_start.len;
    uint32_t *u = ml_malloc((p->frames.len + nst + p->stack_frames.len + 1) * sizeof *u);
    for (size_t i = 0; i < nst; i++) u[i] = p->stack_start.v[i];
    ml_buf_puts(m, ",\"stack_start\":");
    ml_col_u32(bl, m, u, nst);
    ml_buf_puts(m, ",\"stack_frames\":");
    ml_col_u32(bl, m, p->stack_frames.v, p->stack_frames.len);
    for (size_t i = 0; i < p->frames.len; i++) u[i] = str_local(&c, p->frames.v[i].name);
    ml_buf_puts(m, ",\"frame_name\":");
    ml_col_u32(bl, m, u, p->frames.len);
    for (size_t i = 0; i < p->frames.len; i++) u[i] = str_local(&c, p->frames.v[i].file);
    ml_buf_puts(m, ",\"frame_file\":");
    ml_col_u32(bl, m, u, p->frames.len);
    int64_t *ln = ml_malloc((p->frames.len + 1) * sizeof *ln);
    for (size_t i = 0; i < p->frames.len; i++) ln[i] = p->frames.v[i].line;
    ml_buf_puts(m, ",\"frame_line\":");
    ml_col_i64(bl, m, ln, p->frames.len, 0);
    free(ln);
    free(u);

    /* Memory categories: names and colours by code, reasons by code (categories.h). */
    ml_buf_puts(m, ",\"categories\":[");
    for (int k = 0; k < ML_CAT__COUNT; k++) {
        ml_buf_puts(m, k ? ",{\"name\":" : "{\"name\":");
        ml_json_str(m, ml_category_name(k));
        ml_buf_puts(m, ",\"color\":");
        ml_json_str(m, ml_category_color(k));
        ml_buf_puts(m, "}");
    }
    ml_buf_puts(m, "],\"category_order\":[");
    for (int j = 0; j < ML_CAT__COUNT; j++) ml_buf_printf(m, "%s%d", j ? "," : "", ml_category_order[j]);
    ml_buf_puts(m, "],\"reasons\":[");
    for (int k = 0; k < ML_REASON__COUNT; k++) {
        ml_buf_puts(m, k ? "," : "");
        ml_json_str(m, ml_category_reason_text(k));
    }
    ml_buf_puts(m, "]");
    ml_phase("report: stacks, frames");
    ml_report_trace(p, origin, ML_REPORT_MAX_SLICES, m, bl); /* the Trace view's slices (report_trace.h) */
    ml_phase("report: trace slices");
    ml_buf_puts(m, ",\"strings\":[");
    for (size_t i = 0; i < c.strings.len; i++) {
        ml_buf_puts(m, i ? "," : "");
        ml_json_str(m, ml_s(p, c.strings.v[i]));
    }
    ml_buf_puts(m, "]}");
    VEC_FREE(&c.strings);
    ml_buf_free(&c.alloc_tdesc);
    free(c.local);
    free(c.calls);
}

int ml_report_data(const ml_profiles *ps, const ml_report_opts *o, ml_buf *m, ml_blobs *bl, ml_err *e)
{
    if (!ps->items.len) return ml_fail(e, "report: no profile to show");
    int64_t origin = INT64_MAX;
    for (size_t r = 0; r < ps->items.len; r++) {
        int64_t t = ml_profile_first_time(ps->items.v[r]);
        if (t < origin) origin = t;
    }
    if (origin == INT64_MAX) origin = 0;
    size_t max_allocs = o && o->max_allocs ? o->max_allocs : ML_REPORT_MAX_ALLOCS;
    if (o && o->zlevel) bl->level = o->zlevel;

    char created[32] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    ml_buf_puts(m, "{\"version\":1,\"generator\":\"memlens\",\"created\":");
    ml_json_str(m, created);
    ml_buf_printf(m, ",\"origin_ns\":\"%" PRId64 "\",\"inputs\":[", origin);
    for (size_t i = 0; o && i < o->n_inputs; i++) {
        ml_buf_puts(m, i ? "," : "");
        ml_json_str(m, o->inputs[i]);
    }
    ml_buf_puts(m, "],\"skipped\":[");
    for (size_t i = 0; i < ps->skipped.len; i++) {
        ml_buf_puts(m, i ? "," : "");
        ml_json_str(m, ps->skipped.v[i]);
    }
    ml_buf_puts(m, "],\"ranks\":[");
    /* Blobs deflate on a second thread; a caller that started that itself
     * (ml_report_write) waits for it when it needs the page. */
    bool mine = !bl->q;
    if (mine) ml_blobs_async(bl);
    for (size_t r = 0; r < ps->items.len; r++) {
        ml_buf_puts(m, r ? "," : "");
        ml_report_rank(ps->items.v[r], origin, max_allocs, o ? o->max_history : 0, m, bl);
    }
    ml_buf_puts(m, "]}");
    if (mine) ml_blobs_finish(bl, m);
    return 0;
}

static bool perf_json(const ml_profile *p, bool own, const ml_distributed *dist, int top, ml_buf *out)
{
    if (top <= 0) top = ML_PERF_TOP_DEFAULT;
    if (ml_perf_unavailable(p)) return false;
    char *mem = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&mem, &n);
    if (!f) return false;
    jw w;
    jw_init(&w, f, false);
    if (own) ml_perf_json_rank(&w, p, top);
    else ml_perf_json_rank_with(&w, p, top, dist);
    if (fclose(f) != 0 || !mem || n < 2 || !strncmp(mem, "null", 4)) {
        free(mem);
        return false;
    }
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        if (mem[i] != '<') continue;
        ml_buf_put(out, mem + from, i - from);
        ml_buf_puts(out, "\\u003c");
        from = i + 1;
    }
    ml_buf_put(out, mem + from, n - from);
    free(mem);
    return true;
}

bool ml_report_perf_json(const ml_profile *p, ml_buf *out) { return perf_json(p, true, NULL, 0, out); }

bool ml_report_perf_json_with(const ml_profile *p, const ml_distributed *dist, int top, ml_buf *out)
{
    return perf_json(p, false, dist, top, out);
}
