/*
 * memview.c — builds the memory view of one device (memview.h) from the
 * profile: what report_data.c used to compute while writing, computed once
 * so that the report writes it and the server keeps it.
 */
#include "memview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beforetrace.h"
#include "components.h"
#include "curve.h"
#include "format.h"
#include "freeorder.h"
#include "par.h"
#include "report.h"
#include "sortperm.h"
#include "stats.h"
#include "search.h"
#include "scratch.h"

/* Driver modules (Ascend npu_module_mem) drawn one by one; the rest are summed. */
#define MODULE_CURVES 6
/* Top-level operator groups that also get a curve of their own ("group by op"). */
#define OP_CURVES 8

#define ML_MV_INFO(name, type, enc, delta, opt, api) { #name, opt },
const ml_mv_column_info ml_mv_columns[] = { ML_MV_COLUMNS(ML_MV_INFO) };
#undef ML_MV_INFO
const size_t ml_mv_ncolumns = sizeof ml_mv_columns / sizeof *ml_mv_columns;

/* The view's large arrays come from the thread's scratch pool and go back
 * to it (ml_scratch_alloc, ml_scratch_free): the report opens one for a
 * rank, so that what one array frees is the next one's pages, in already,
 * not fresh ones (a page fault per 4 KiB); with none open these are malloc
 * and free. */

/* ---- strings ------------------------------------------------------------- */

void ml_mv_strings_init(ml_mv_strings *s, const ml_profile *p)
{
    memset(s, 0, sizeof *s);
    s->nstr = ml_strpool_count(p->strings);
    s->local = ml_malloc((s->nstr ? s->nstr : 1) * sizeof *s->local);
    memset(s->local, 0xff, (s->nstr ? s->nstr : 1) * sizeof *s->local);
    ml_mv_str(s, 0);
}

uint32_t ml_mv_str(ml_mv_strings *s, ml_str id)
{
    if (id >= s->nstr) return 0;
    if (s->local[id] == ML_NONE32) {
        s->local[id] = (uint32_t)s->ids.len;
        VEC_PUSH(&s->ids, id);
    }
    return s->local[id];
}

void ml_mv_strings_free(ml_mv_strings *s)
{
    free(s->local);
    VEC_FREE(&s->ids);
    memset(s, 0, sizeof *s);
}

/* ---- curves -------------------------------------------------------------- */

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

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = ml_malloc(n);
    memcpy(d, s, n);
    return d;
}

/* A curve of the view: times made relative (in place when t_own, else
 * copied), values borrowed from the profile (v_own NULL) or owned. */
static void add_curve_of(ml_memview *mv, bool op, const char *kind, const char *group, const char *label, const char *of,
                         int64_t *t_own, const int64_t *t, int64_t *v_own, const int64_t *v, size_t n)
{
    ml_mv_curve c = { .kind = kind, .group = group, .of = of, .label = dup_str(label), .n = n, .v = v, .own_v = v_own };
    size_t imax = 0;
    for (size_t i = 1; i < n; i++) if (v[i] > v[imax]) imax = i;
    c.max = n ? v[imax] : 0;
    c.tmax = n ? t[imax] - mv->origin : 0;
    c.t = t_own ? t_own : ml_scratch_alloc(n * sizeof *c.t);
    for (size_t i = 0; i < n; i++) c.t[i] = t[i] - mv->origin;
    ml_m4_build(v, n, &c.py);
    if (op) VEC_PUSH(&mv->op_curves, c);
    else VEC_PUSH(&mv->curves, c);
}

/* A curve of points the profile holds (its times copied, its values borrowed). */
static void add_curve(ml_memview *mv, const char *kind, const char *group, const char *label, const char *of,
                      const int64_t *t, const int64_t *v, size_t n)
{
    add_curve_of(mv, false, kind, group, label, of, NULL, t, NULL, v, n);
}

typedef struct curve {
    VEC(int64_t) t;
    VEC(int64_t) v;
} curve;

/* A curve made here: the view takes its buffers. */
static void add_made_curve(ml_memview *mv, bool op, const char *kind, const char *group, const char *label,
                           const char *of, curve *c)
{
    if (!c->t.len) { VEC_FREE(&c->t); VEC_FREE(&c->v); } /* (an empty VEC may hold no buffer) */
    add_curve_of(mv, op, kind, group, label, of, c->t.v, c->t.v, c->v.v, c->v.v, c->t.len);
    memset(c, 0, sizeof *c);
}

/* One change of the live bytes: at t, the event `order` (or the allocation's
 * index when it has no event), listed at `pos`.  Ordered by (t, order, pos):
 * what a stable sort of the list by (t, order) gives. */
typedef struct step { int64_t t; int64_t d; uint32_t order, pos; } step;

#define STEP_LT(ctx, x, y) \
    ((x).t != (y).t ? (x).t < (y).t : (x).order != (y).order ? (x).order < (y).order : (x).pos < (y).pos)
ML_RUNSORT_DEFINE(sort_steps, step, int, STEP_LT)

/* Allocation idx[j]'s steps (i = idx[j]): pos 2j and 2j + 1, the order in
 * which a list of each allocation's alloc then free would hold them. */
static inline step alloc_step(const ml_allocs *a, uint32_t i, size_t j)
{
    return (step){ a->t_alloc.v[i], a->size.v[i], a->ev_alloc.v[i] != ML_NONE32 ? a->ev_alloc.v[i] : i, (uint32_t)(2 * j) };
}
static inline step free_step(const ml_allocs *a, uint32_t i, size_t j)
{
    return (step){ a->t_free.v[i], -a->size.v[i], a->ev_free.v[i] != ML_NONE32 ? a->ev_free.v[i] : i,
                   (uint32_t)(2 * j + 1) };
}

/* Live bytes over time of the allocations idx[0..n) (all when group < 0, else
 * those of one group): allocations before the trace count from t0.  idx is
 * in allocation order, so the allocation steps are sorted already (checked)
 * and read from the allocations as they merge, not listed; the frees are
 * listed and sorted apart (a natural merge sort: they come in short runs),
 * then both merge. */
static void alloc_curve(const ml_profile *p, const uint32_t *idx, size_t n, const uint32_t *grp,
                        int64_t group, int64_t t0, curve *out)
{
    const ml_allocs *a = &p->allocs;
#define IN_CURVE(j) (group < 0 || grp[j] == (uint32_t)group)
#define MEMBER(q) (mem ? (size_t)mem[q] : (q)) /* the curve's q-th position in idx */
#define HAS_ALLOC_STEP(i) (!(a->flags.v[i] & ML_ALLOC_BEFORE_TRACE))
#define HAS_FREE_STEP(i) (!(a->flags.v[i] & ML_ALLOC_NEVER_FREED))
    size_t n_ev = p->events.kind.len, na = 0, nf = 0;
    int64_t base = 0;
    bool sorted = true;
    step last = {0};
    /* a group's positions in idx, listed once (the passes below then read
     * only its own; all: every position, not listed) */
    uint32_t *mem = group >= 0 ? ml_scratch_alloc(n * sizeof *mem) : NULL;
    size_t nm = group >= 0 ? 0 : n;
    for (size_t j = 0; j < n; j++) {
        uint32_t i = idx[j];
        if (!IN_CURVE(j)) continue;
        if (mem) mem[nm++] = (uint32_t)j;
        if (!HAS_ALLOC_STEP(i)) base += a->size.v[i];
        else {
            step st = alloc_step(a, i, j);
            if (na && STEP_LT(0, st, last)) sorted = false; /* event order differs from idx's (ties in time) */
            last = st;
            na++;
        }
        nf += HAS_FREE_STEP(i);
    }
    step *fr = ml_scratch_alloc((nf + 1) * sizeof *fr), *tmp = ml_scratch_alloc((nf + 1) * sizeof *tmp);
    /* Many frees against the events: listed in event order (a count per
     * event), which is time order where they have events, so that the sort
     * below (of a total order: the same result) finds a run or two, not one
     * per allocation freed after the next one began (and its scratch stays
     * untouched). */
    if (nf > 64 && nf * 4 >= n_ev) {
        ml_free_order fo; /* (freeorder.h) */
        ml_free_order_init(&fo, n_ev);
        for (size_t q = 0; q < nm; q++)
            if (HAS_FREE_STEP(idx[MEMBER(q)])) ml_free_order_add(&fo, a->ev_free.v[idx[MEMBER(q)]]);
        ml_free_order_finish(&fo);
        for (size_t q = 0; q < nm; q++) {
            size_t j = MEMBER(q);
            if (HAS_FREE_STEP(idx[j])) fr[ml_free_order_place(&fo, a->ev_free.v[idx[j]])] = free_step(a, idx[j], j);
        }
        ml_free_order_free(&fo);
    } else {
        for (size_t q = 0, k = 0; q < nm; q++) {
            size_t j = MEMBER(q);
            if (HAS_FREE_STEP(idx[j])) fr[k++] = free_step(a, idx[j], j);
        }
    }
    /* (sort_steps wants two elements at least) */
    const step *sf = nf > 1 ? sort_steps(fr, tmp, nf, 0) : fr, *sa = NULL;
    step *al = NULL, *al_tmp = NULL;
    if (!sorted) { /* listed and sorted too */
        al = ml_scratch_alloc((na + 1) * sizeof *al), al_tmp = ml_scratch_alloc((na + 1) * sizeof *al_tmp);
        for (size_t q = 0, k = 0; q < nm; q++) {
            size_t j = MEMBER(q);
            if (HAS_ALLOC_STEP(idx[j])) al[k++] = alloc_step(a, idx[j], j);
        }
        sa = sort_steps(al, al_tmp, na, 0);
    }
    size_t k = na + nf;
    if (!out->t.v) ML_SCRATCH_RESERVE(&out->t, k + 1); /* (the curve's own, given back when written) */
    else VEC_RESERVE(&out->t, out->t.len + k + 1);
    if (!out->v.v) ML_SCRATCH_RESERVE(&out->v, k + 1);
    else VEC_RESERVE(&out->v, out->v.len + k + 1);
    int64_t *ot = out->t.v + out->t.len, *ov = out->v.v + out->v.len;
    ot[0] = t0;
    ov[0] = base;
    int64_t live = base;
    /* the next allocation step: sa[x] where listed, else read from the
     * curve's next position that has one (qa: the one after it) */
    step next_a = {0};
    size_t qa = 0, x = 0, y = 0;
#define READ_ALLOC() do {                                                          \
        if (sa) next_a = sa[x];                                                    \
        else {                                                                     \
            while (!HAS_ALLOC_STEP(idx[MEMBER(qa)])) qa++;                         \
            next_a = alloc_step(a, idx[MEMBER(qa)], MEMBER(qa));                   \
            qa++;                                                                  \
        }                                                                          \
    } while (0)
    if (na) READ_ALLOC();
    for (size_t o = 1; x < na || y < nf; o++) {
        if (y == nf || (x < na && STEP_LT(0, next_a, sf[y]))) {
            live += next_a.d;
            ot[o] = next_a.t;
            if (++x < na) READ_ALLOC();
        } else {
            live += sf[y].d;
            ot[o] = sf[y++].t;
        }
        ov[o] = live;
    }
#undef READ_ALLOC
    out->t.len += k + 1;
    out->v.len += k + 1;
    ml_scratch_free(mem, n * sizeof *mem);
    ml_scratch_free(al, (na + 1) * sizeof *al);
    ml_scratch_free(al_tmp, (na + 1) * sizeof *al_tmp);
    ml_scratch_free(fr, (nf + 1) * sizeof *fr);
    ml_scratch_free(tmp, (nf + 1) * sizeof *tmp);
#undef IN_CURVE
#undef MEMBER
#undef HAS_ALLOC_STEP
#undef HAS_FREE_STEP
}

/* ---- allocations --------------------------------------------------------- */

/* Orders of allocation indices, total (ties by index), for ML_RUNSORT with
 * the allocations as context (no global state: two views may be built at
 * once); the merge sort inlines them and finds the runs the input has. */
static inline int64_t alloc_time_key(const ml_allocs *al, uint32_t i)
{
    return al->flags.v[i] & ML_ALLOC_BEFORE_TRACE ? INT64_MIN : al->t_alloc.v[i];
}
#define ALLOC_TIME_LT(al, x, y) \
    (alloc_time_key(al, x) != alloc_time_key(al, y) ? alloc_time_key(al, x) < alloc_time_key(al, y) : (x) < (y))
ML_RUNSORT_INPLACE_DEFINE(sort_by_alloc_time, uint32_t, const ml_allocs *, ALLOC_TIME_LT)
#define SIZE_DESC_LT(al, x, y) ((al)->size.v[x] != (al)->size.v[y] ? (al)->size.v[x] > (al)->size.v[y] : (x) < (y))
ML_RUNSORT_INPLACE_DEFINE(sort_by_size_desc, uint32_t, const ml_allocs *, SIZE_DESC_LT)

static int by_bytes_desc(const void *a, const void *b)
{
    const ml_mv_sum *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->label, y->label);
}

/* ---- groups: what the lanes and tables group allocations by ------------- */

static uint32_t group_add(ml_memview *g, const char *label, ml_str op)
{
    VEC_PUSH(&g->group_label, label);
    VEC_PUSH(&g->group_op, op);
    return (uint32_t)g->group_label.len - 1;
}

/* allocs.groups of a device: 0 = before the trace, 1 = none, then the
 * top-level operators — or, for inputs without operators (allocator
 * snapshots), the first user frame of each allocation's stack, as
 * `memlens summary --by frame` picks it (ml_stack_label).  Returns each
 * allocation's group (idx order). */
static uint32_t *groups_build(ml_memview *g, const uint32_t *idx, size_t n)
{
    const ml_profile *p = g->p;
    const ml_allocs *a = &p->allocs;
    size_t nstr = ml_strpool_count(p->strings);
    group_add(g, ML_BEFORE_TRACE_GROUP, 0);
    group_add(g, "(no operator)", 0);
    uint32_t *of = ml_scratch_alloc(n * sizeof *of);
    bool any_op = false, any_stack = false;
    for (size_t j = 0; j < n; j++) {
        if (a->op_top.v[idx[j]]) any_op = true;
        if (a->stack.v[idx[j]]) any_stack = true;
    }
    g->by_frame = !any_op && any_stack;
    size_t nmap = g->by_frame ? p->stack_start.len + 1 : nstr;
    uint32_t *map = ml_malloc((nmap ? nmap : 1) * sizeof *map);   /* op name or stack -> group */
    memset(map, 0xff, (nmap ? nmap : 1) * sizeof *map);
    VEC(uint32_t) by_label = {0};                                  /* frame label id -> group */
    if (g->by_frame) g->frames = ml_strpool_new();
    for (size_t j = 0; j < n; j++) {
        uint32_t i = idx[j];
        if (a->flags.v[i] & ML_ALLOC_BEFORE_TRACE) { of[j] = ML_MV_GROUP_BEFORE; continue; }
        if (!g->by_frame) {
            ml_str s = a->op_top.v[i];   /* as ml_breakdown_at groups "by top-level op" */
            if (!s || s >= nstr) { of[j] = ML_MV_GROUP_NONE; continue; }
            if (map[s] == ML_NONE32) map[s] = group_add(g, ml_s(p, s), s);
            of[j] = map[s];
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
        of[j] = map[st];
    }
    VEC_FREE(&by_label);
    free(map);
    return of;
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
static void series_curves(ml_memview *mv, bool insight)
{
    const ml_profile *p = mv->p;
    uint16_t dev = mv->dev;
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
            ml_report_curve_label(g->text, sizeof g->text, insight, g->kind, NULL, ml_s(p, s->stream));
        } else if (s->kind == ML_SERIES_OTHER) {
            g->label = "module";
            g->kind = "reserved";
            if (!strcmp(comp, "DEVICE")) snprintf(g->text, sizeof g->text, "device total (all processes)");
            else snprintf(g->text, sizeof g->text, "%s module", comp);
        } else {
            g->label = "component";
            ml_report_curve_label(g->text, sizeof g->text, insight, g->kind, comp, NULL);
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
            if (module && modules >= MODULE_CURVES) continue;
            modules += module;
            const char *of = gc[k].s->stream ? ml_s(p, gc[k].s->stream) : ml_s(p, gc[k].s->component);
            add_curve(mv, gc[k].kind, gc[k].s->stream ? "stream" : "component", gc[k].text, of,
                      gc[k].s->ts.v, gc[k].s->value.v, gc[k].s->ts.len);
        }
    }
    /* the modules past the cap: one curve */
    size_t nrest = 0, seen = 0;
    group_curve *rest = ml_calloc(n + 1, sizeof *rest);
    for (size_t k = 0; k < n; k++)
        if (!strcmp(gc[k].label, "module") && seen++ >= MODULE_CURVES) rest[nrest++] = gc[k];
    if (nrest) {
        curve sum = {0};
        sum_series(rest, nrest, &sum);
        char text[64];
        snprintf(text, sizeof text, "%zu other modules", nrest);
        add_made_curve(mv, false, "reserved", "component", text, "other modules", &sum);
    }
    free(rest);
    free(gc);
}

/* ---- the category chart ------------------------------------------------ */

/* The category steps of a device (ml_category_steps_get), computed on the
 * second core while the view's allocations and op curves are built. */
typedef struct cat_job {
    const ml_profile *p;
    uint16_t dev;
    bool any;
    ml_category_steps cs;
    ml_bufpool left;            /* its pool's buffers at the end, their pages in */
} cat_job;

static void cat_job_run(void *arg)
{
    cat_job *j = arg;
    /* (a pool of its own on this thread: the changes' scratch is the steps' pages) */
    ml_bufpool pool = {0};
    ml_scratch_open(&pool);
    j->any = ml_category_steps_get(j->p, j->dev, &j->cs);
    /* The changes' buffers (some MB, written) go to the joining thread's
     * pool (ml_memview_categories), not back to the kernel: there they are
     * the next arrays' pages, not fresh ones. */
    j->left = pool;
    pool.n = 0;
    ml_scratch_close();
}

/* Category k's level at each of the n points of the bands into out, from
 * its steps: step c holds from the point xof[at[c]] on (xof: where each of
 * cs's points is among the bands', growing), so that the points between two
 * steps are a fill, not a test each. */
static void steps_at(const ml_category_steps *cs, int k, const uint32_t *xof, size_t n, int64_t *out)
{
    const uint32_t *at = cs->at[k];
    const int64_t *level = cs->level[k];
    size_t m = cs->m[k], x = 0;
    int64_t v = cs->initial[k];
    for (size_t c = 0; c < m; c++) {
        size_t end = xof[at[c]] < n ? xof[at[c]] : n;
        for (; x < end; x++) out[x] = v;
        v = level[c];
    }
    for (; x < n; x++) out[x] = v;
}

/* The bands: PyTorch's categories of the device's allocations and, under
 * them (cat -1), the memory from before the trace: what the recorded
 * allocated curve shows beyond those allocations, point by point (it varies
 * when the input lists only some allocations, as Ascend's operator_memory
 * does).  Stacked, the bands draw the allocated curve wherever it is at
 * least the sum of the allocations.  All bands share the union of the times
 * of the category changes and of the allocated curve.  Takes the steps
 * from cj (and frees them). */
static void category_bands(ml_memview *mv, cat_job *cj)
{
    const ml_profile *p = mv->p;
    uint16_t dev = mv->dev;
    int64_t t0 = mv->t0;
    ml_category_steps cs = cj->cs;
    /* (categories.c leaves the unexplained gap, the recorded curve beyond
     * the allocations, out of PARAMETER_OR_STATE's steps: it is the base band.)
     * So are the allocations known only to predate the trace (beforetrace.h):
     * alive from before it to its end, a constant part of PARAMETER_OR_STATE. */
    int64_t kept = 0;
    for (size_t i = 0; i < p->allocs.size.len; i++)
        if (p->allocs.device.v[i] == dev && ml_shown_before_trace(p->allocs.flags.v[i], p->allocs.category.v[i]))
            kept += p->allocs.size.v[i];
    cs.initial[ML_CAT_PARAMETER_OR_STATE] -= kept;
    for (size_t i = 0; i < cs.m[ML_CAT_PARAMETER_OR_STATE]; i++) cs.level[ML_CAT_PARAMETER_OR_STATE][i] -= kept;

    ml_curve cv;
    bool recorded = ml_curve_get(p, dev, ML_SERIES_ALLOCATED, &cv) && cv.n && !cv.replayed;
    /* The bands' times: t0 (the levels before the first change), then the
     * union of both, in room for all of them (no growth; made relative
     * below where they are not the allocated curve's), found in the pass
     * that reads the bands' levels at them: after a point, everything at
     * or before its time is read, and the next time is the least left. */
    size_t room = 1 + cs.n + (recorded ? cv.n : 0);
    int64_t *ts = ml_scratch_alloc(room * sizeof *ts);
    /* the memory from before the trace at each point, and each band's peak
     * and the first point at it (a band is drawn only when its peak is
     * above 0, so the first maximum is the first point above all before it) */
    int64_t *base = ml_scratch_alloc(room * sizeof *base), base_peak = 0;
    /* where each category point is among the bands' points, for the bands'
     * values later (ml_memview_band_values: fills between steps, not a walk
     * of every point a band) */
    uint32_t *xof = ml_scratch_alloc(cs.n * sizeof *xof);
    /* the levels (and their sum) move only at the categories' steps: those
     * of the points each x passes (cs.moved), not every category each x */
    int64_t peak[ML_CAT__COUNT] = {0}, level[ML_CAT__COUNT], sum = 0;
    size_t at_peak[ML_CAT__COUNT] = {0}, base_at_peak = 0, cur[ML_CAT__COUNT] = {0};
    memcpy(level, cs.initial, sizeof level);
    for (int k = 0; k < ML_CAT__COUNT; k++) sum += level[k];
    size_t n = 0, i = 0, j = 0;
    for (int64_t t = cs.n && cs.ts[0] < t0 ? cs.ts[0] : t0;;) {
        size_t x = n++;
        ts[x] = t;
        unsigned changed = x ? 0 : (1u << ML_CAT__COUNT) - 1; /* (x 0: every level is a first one) */
        for (; i < cs.n && cs.ts[i] <= t; i++) {
            xof[i] = (uint32_t)x;
            for (unsigned bits = cs.moved[i]; bits; bits &= bits - 1) {
                int k = __builtin_ctz(bits);
                int64_t v = cs.level[k][cur[k]++];
                sum += v - level[k];
                level[k] = v;
                changed |= 1u << k;
            }
        }
        while (recorded && j < cv.n && cv.ts[j] <= t) j++;
        for (; changed; changed &= changed - 1) {
            int k = __builtin_ctz(changed);
            if (level[k] > peak[k]) peak[k] = level[k], at_peak[k] = x;
        }
        base[x] = (recorded && j && cv.value[j - 1] > sum + kept ? cv.value[j - 1] - sum - kept : 0) + kept;
        if (base[x] > base_peak) base_peak = base[x], base_at_peak = x;
        if (i == cs.n && !(recorded && j < cv.n)) break;
        t = i < cs.n ? cs.ts[i] : INT64_MAX;
        if (recorded && j < cv.n && cv.ts[j] < t) t = cv.ts[j];
    }
    /* The bands share one time column: the allocated curve's when the times are its. */
    bool same = mv->alloc_curve >= 0 && cv.n == n;
    for (size_t x = 0; same && x < n; x++) same = cv.ts[x] == ts[x];
    mv->ncat_t = n;
    mv->cat_t_shared = same;
    if (same && mv->curves.v[mv->alloc_curve].t) {
        mv->cat_t = mv->curves.v[mv->alloc_curve].t;
        ml_scratch_free(ts, room * sizeof *ts);
    } else { /* (its own also when a writer has released the curve's) */
        mv->cat_t_own = true;
        mv->cat_t = ts;
        for (size_t x = 0; x < n; x++) ts[x] -= mv->origin;
    }
    mv->cs = cs;              /* the bands' values come from it (ml_memview_band_values) */
    mv->cat_base = base;
    mv->cat_xof = xof;
    for (int q = -1; q < ML_CAT__COUNT; q++) {
        int k = q < 0 ? -1 : ml_category_order[q];
        if (k < 0 ? !base_peak : !peak[k]) continue;
        size_t imax = k < 0 ? base_at_peak : at_peak[k];
        ml_mv_band b = { k, k < 0 ? ML_BEFORE_TRACE_GROUP : ml_category_name(k), k < 0 ? base_peak : peak[k],
                         mv->cat_t[imax] };
        VEC_PUSH(&mv->bands, b);
    }
    ml_curve_free(&cv);
}

void ml_memview_categories(ml_memview *mv)
{
    if (!mv->cat_job) return;
    cat_job *cj = mv->cat_job;
    ml_par_join(mv->cat_run);
    mv->cat_job = NULL;
    mv->cat_run = NULL;
    mv->cat_any = cj->any;
    for (size_t k = 0; k < cj->left.n; k++) ml_scratch_give(cj->left.b[k].v, cj->left.b[k].cap, cj->left.b[k].used);
    if (cj->any) category_bands(mv, cj);
    free(cj);
}

void ml_memview_band_values(const ml_memview *mv, size_t band, int64_t *out)
{
    int k = mv->bands.v[band].cat;
    if (k < 0) { memcpy(out, mv->cat_base, mv->ncat_t * sizeof *out); return; }
    steps_at(&mv->cs, k, mv->cat_xof, mv->ncat_t, out);
}

const int64_t *ml_memview_band_column(const ml_memview *mv, size_t band, int64_t *room)
{
    if (mv->bands.v[band].cat < 0) return mv->cat_base;
    ml_memview_band_values(mv, band, room);
    return room;
}


/* ---- one device ---------------------------------------------------------- */

ml_memview *ml_memview_build(const ml_profile *p, uint16_t dev, int64_t origin, const ml_mv_opts *o,
                             ml_mv_strings *strings)
{
    const ml_allocs *a = &p->allocs;
    ml_memview *mv = ml_calloc(1, sizeof *mv);
    mv->p = p;
    mv->dev = dev;
    mv->origin = origin;
    mv->alloc_curve = mv->primary = -1;

    /* This device's allocations, in allocation order. */
    VEC(uint32_t) idx = {0};
    size_t ndev = 0;
    for (size_t i = 0; i < a->size.len; i++) ndev += a->device.v[i] == dev;
    ML_SCRATCH_RESERVE(&idx, ndev + 1);
    for (size_t i = 0; i < a->size.len; i++)
        if (a->device.v[i] == dev) idx.v[idx.len++] = (uint32_t)i;
    sort_by_alloc_time(idx.v, idx.len, a); /* one pass when in order already */

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
    if (t0 > t1) t0 = t1 = origin;

    uint32_t *grp = groups_build(mv, idx.v, idx.len);

    /* The headline figures, shared with `memlens summary`. */
    ml_device_stats ds;
    ml_device_stats_compute(p, dev, ML_BY_TOPLEVEL, &ds);
    if (ds.first_ts != ML_TIME_NONE && ds.first_ts < t0) t0 = ds.first_ts;
    if (ds.last_ts != ML_TIME_NONE && ds.last_ts > t1) t1 = ds.last_ts;
    mv->t0 = t0;
    mv->t1 = t1;

    /* Curves: allocated, reserved, active, app reserved (recorded, or
     * replayed from events), then per component / stream, then the live
     * bytes of the allocations the trace saw. */
    int recorded_allocated = 0;
    static const ml_series_kind kinds[] = { ML_SERIES_ALLOCATED, ML_SERIES_RESERVED, ML_SERIES_ACTIVE, ML_SERIES_APP_RESERVED };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        ml_curve cv;
        if (!ml_curve_get(p, dev, kinds[k], &cv)) continue;
        if (!cv.n) { ml_curve_free(&cv); continue; }
        char name[48], label[80];
        ml_report_curve_label(name, sizeof name, o->insight_names, series_kind_name(kinds[k]), NULL, NULL);
        snprintf(label, sizeof label, "%s%s", name, cv.replayed ? " (replayed from events)" : "");
        /* recorded: the series' own values; replayed: the view takes them */
        int64_t *own = cv.owned_value;
        if (own) cv.owned_value = NULL;
        add_curve_of(mv, false, series_kind_name(kinds[k]), "overall", label, NULL, NULL, cv.ts, own, cv.value, cv.n);
        mv->curves.v[mv->curves.len - 1].replayed = cv.replayed;
        if (kinds[k] == ML_SERIES_ALLOCATED) {
            mv->alloc_curve = mv->primary = (int)mv->curves.len - 1;
            recorded_allocated = !cv.replayed;
        }
        ml_curve_free(&cv);
    }
    series_curves(mv, o->insight_names);
    if (idx.len && recorded_allocated) {
        curve all = {0};
        alloc_curve(p, idx.v, idx.len, grp, -1, t0, &all);
        add_made_curve(mv, false, "allocated", "tracked", "live allocations seen in the trace", NULL, &all);
    }
    /* The category bands' data meanwhile, on the second core: from here on
     * only p is read. */
    cat_job *cj = ml_calloc(1, sizeof *cj);
    cj->p = p;
    cj->dev = dev;
    mv->cat_job = cj;
    mv->cat_run = ml_par_start(cat_job_run, cj);

    ml_peak pk = ds.peak_allocated;
    if (!pk.found && ds.peak_reserved.found) { pk = ds.peak_reserved; mv->primary = 0; }
    ml_instant peak_at = pk.found ? pk.at : (ml_instant){ t0, ML_NONE32 };
    mv->peak_found = pk.found;
    mv->peak_curve = mv->primary < 0 ? 0 : mv->primary;
    mv->peak_v = pk.found ? pk.value : 0;
    mv->peak_t = pk.found ? pk.at.ts : t0;
    mv->peak_event = peak_at.event == ML_NONE32 ? (int64_t)-1 : (int64_t)peak_at.event;
    mv->peak_kind = ds.peak_allocated.found ? "allocated" : "reserved";
    mv->peak_total_known = mv->curves.len && (size_t)mv->peak_curve < mv->curves.len &&
                           ds.peak_allocated.found && !mv->curves.v[mv->peak_curve].replayed;
    mv->live_tracked = ds.at_peak.traced_bytes;
    mv->live_count = ds.at_peak.traced_count;

    /* Per-group statistics and the live set at the peak. */
    size_t ngroups = mv->group_label.len;
    ml_mv_group_stat *gs = mv->gs = ml_calloc(ngroups, sizeof *gs);
    int64_t by_cat[ML_CAT__COUNT] = {0};
    int64_t by_cat_n[ML_CAT__COUNT] = {0};
    uint8_t *keep = ml_scratch_alloc_zero(idx.len);
    size_t nkeep = 0;
    int64_t known_before = 0;   /* live at the peak, known to predate the trace */
    int64_t shown_before = 0, shown_before_n = 0; /* of which shown as "(allocated before trace)" (beforetrace.h) */
    for (size_t j = 0; j < idx.len; j++) {
        uint32_t i = idx.v[j];
        ml_mv_group_stat *g = &gs[grp[j]];
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
    gs[ML_MV_GROUP_BEFORE].peak = before;
    mv->untracked = before;
    mv->peak_by_op = ml_malloc((ngroups ? ngroups : 1) * sizeof *mv->peak_by_op);
    for (size_t g = 0; g < ngroups; g++) mv->peak_by_op[g] = (ml_mv_sum){ mv->group_label.v[g], gs[g].peak, gs[g].peak_count, g };
    qsort(mv->peak_by_op, ngroups, sizeof *mv->peak_by_op, by_bytes_desc);
    /* By frame: the breakdown the summary gives with --by frame. */
    if (pk.found) ml_breakdown_at(p, dev, peak_at, ds.allocated_replayed || !ds.peak_allocated.found ? -1 : mv->peak_v, ML_BY_FRAME, &mv->bf);
    ml_breakdown *bf = &mv->bf;
    mv->npeak_by_frame = bf->n + 1;
    mv->peak_by_frame = ml_malloc((bf->n + 1) * sizeof *mv->peak_by_frame);
    for (size_t k = 0; k < bf->n; k++) mv->peak_by_frame[k] = (ml_mv_sum){ bf->groups[k].label, bf->groups[k].bytes, bf->groups[k].count, k };
    mv->peak_by_frame[bf->n] = (ml_mv_sum){ ML_BEFORE_TRACE_GROUP, bf->before_bytes, bf->before_count, bf->n };
    qsort(mv->peak_by_frame, mv->npeak_by_frame, sizeof *mv->peak_by_frame, by_bytes_desc);
    /* By category: the live allocations' categories, and the memory from
     * before the trace that no allocation shows (as the category chart). */
    for (size_t k = 0; k < ML_CAT__COUNT; k++)
        mv->peak_by_cat[k] = (ml_mv_sum){ ml_category_name((int)k), by_cat[k], by_cat_n[k], k };
    mv->peak_by_cat[ML_CAT__COUNT] = (ml_mv_sum){ ML_BEFORE_TRACE_GROUP,
        (before > known_before ? before - known_before : 0) + shown_before, shown_before_n, ML_CAT__COUNT };
    qsort(mv->peak_by_cat, ML_CAT__COUNT + 1, sizeof *mv->peak_by_cat, by_bytes_desc);

    /* Calls per group: cpu operators of its name (unknown without them, or for frame groups). */
    bool calls_known = o->calls && p->ops.name.len > 0 && !mv->by_frame;
    size_t nstr = ml_strpool_count(p->strings);
    mv->calls = ml_malloc((ngroups ? ngroups : 1) * sizeof *mv->calls);
    for (size_t g = 0; g < ngroups; g++) {
        ml_str op = mv->group_op.v[g];
        mv->calls[g] = calls_known && g >= ML_MV_GROUP_FIRST_OP && op < nstr ? (int64_t)o->calls[op] : -1;
    }

    /* The allocations to draw: all of them, or within the budget those live
     * at the peak and then the largest. */
    size_t budget = o->max_allocs;
    VEC(uint32_t) sel = {0};
    ML_SCRATCH_RESERVE(&sel, idx.len + 1);
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
        sort_by_size_desc(rest.v, rest.len, a);
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
    mv->n = n;
    mv->total = idx.len;
    mv->summarised = idx.len - n;
    mv->summarised_bytes = summarised_bytes;
    for (size_t j = 0; j < idx.len; j++) {
        mv->has_op |= a->op.v[idx.v[j]] != 0;
        mv->has_stream |= a->stream.v[idx.v[j]] != 0;
        mv->has_addr |= a->addr.v[idx.v[j]] != 0;
    }
#define ML_MV_ALLOC(name, type, enc, delta, opt, api) mv->name = opt ? NULL : ml_scratch_alloc(n * sizeof(type));
    ML_MV_COLUMNS(ML_MV_ALLOC)
#undef ML_MV_ALLOC
    for (size_t k = 0; k < n; k++) {
        uint32_t i = idx.v[sel.v[k]];
        mv->ta[k] = (a->flags.v[i] & ML_ALLOC_BEFORE_TRACE ? t0 : a->t_alloc.v[i]) - origin;
        mv->tf[k] = (a->flags.v[i] & ML_ALLOC_NEVER_FREED ? t1 : a->t_free.v[i]) - origin;
        mv->size[k] = a->size.v[i];
        mv->addr_hi[k] = (uint32_t)(a->addr.v[i] >> 32);
        mv->addr_lo[k] = (uint32_t)a->addr.v[i];
        mv->group[k] = grp[sel.v[k]];
        mv->stack[k] = a->stack.v[i];
        mv->src[k] = i;
        mv->flags[k] = a->flags.v[i];
        mv->cat[k] = a->category.v[i];
        mv->reason[k] = a->category_reason.v[i];
    }
    /* the strings in the report's order: the op column, then the stream column */
    for (size_t k = 0; k < n; k++) mv->op[k] = ml_mv_str(strings, a->op.v[idx.v[sel.v[k]]]);
    for (size_t k = 0; k < n; k++) mv->stream[k] = ml_mv_str(strings, a->stream.v[idx.v[sel.v[k]]]);
    /* Ascend: the active release time (Insight's "Active Release Time"), when any differs from the release */
    bool active = false;
    for (size_t k = 0; k < n && !active; k++) {
        uint32_t i = idx.v[sel.v[k]];
        active = !(a->flags.v[i] & ML_ALLOC_NEVER_FREED) && a->t_free_req.len > i && a->t_free_req.v[i] != a->t_free.v[i];
    }
    if (active) {
        mv->tr = ml_scratch_alloc(n * sizeof *mv->tr);
        for (size_t k = 0; k < n; k++) {
            uint32_t i = idx.v[sel.v[k]];
            int64_t r = a->t_free_req.v[i];
            mv->tr[k] = a->flags.v[i] & ML_ALLOC_NEVER_FREED || r == ML_TIME_END || r == ML_TIME_NONE ? mv->tf[k] : r - origin;
        }
    }
    ML_SCRATCH_GIVE_VEC(&sel);

    /* Curves per group (largest at the peak first), for "group by op". */
    for (size_t r = 0; r < ngroups && mv->op_curves.len < OP_CURVES; r++) {
        size_t g = mv->peak_by_op[r].key;   /* peak_by_op is sorted by bytes at the peak */
        if (!gs[g].allocs || !mv->peak_by_op[r].bytes) continue;
        curve oc = {0};
        alloc_curve(p, idx.v, idx.len, grp, (int64_t)g, t0, &oc);
        add_made_curve(mv, true, "allocated", "op", mv->peak_by_op[r].label, NULL, &oc);
    }

    ml_device_stats_free(&ds);
    ml_scratch_free(keep, idx.len);
    ml_scratch_free(grp, idx.len * sizeof *grp);
    ML_SCRATCH_GIVE_VEC(&idx);
    return mv;
}

static void curve_free(ml_mv_curve *c)
{
    free(c->label);
    ml_scratch_free(c->t, c->n * sizeof *c->t);
    ml_scratch_free(c->own_v, c->n * sizeof *c->own_v);
    ml_m4_free(&c->py);
}

void ml_memview_release_curve(ml_memview *mv, ml_mv_curve *c)
{
    if (c->t != mv->cat_t) ml_scratch_free(c->t, c->n * sizeof *c->t); /* (the bands' times may be this curve's) */
    c->t = NULL;
    ml_scratch_free(c->own_v, c->n * sizeof *c->own_v);
    c->own_v = NULL;
    c->v = NULL;
    ml_m4_free(&c->py);
}

void ml_memview_release_bands(ml_memview *mv)
{
    ml_memview_categories(mv);
    ml_scratch_free(mv->cat_base, mv->ncat_t * sizeof *mv->cat_base);
    mv->cat_base = NULL;
    ml_scratch_free(mv->cat_xof, mv->cs.n * sizeof *mv->cat_xof);
    mv->cat_xof = NULL;
    if (mv->cat_any) ml_category_steps_free(&mv->cs);
    memset(&mv->cs, 0, sizeof mv->cs);
    mv->bands_released = true;
}

void ml_memview_free(ml_memview *mv)
{
    if (!mv) return;
    ml_memview_categories(mv); /* (a job still running must end first) */
    for (size_t k = 0; k < mv->curves.len; k++) curve_free(&mv->curves.v[k]);
    for (size_t k = 0; k < mv->op_curves.len; k++) curve_free(&mv->op_curves.v[k]);
    VEC_FREE(&mv->curves);
    VEC_FREE(&mv->op_curves);
    VEC_FREE(&mv->bands);
    ml_scratch_free(mv->cat_base, mv->ncat_t * sizeof *mv->cat_base);
    ml_scratch_free(mv->cat_xof, mv->cs.n * sizeof *mv->cat_xof);
    if (mv->cat_any && !mv->bands_released) ml_category_steps_free(&mv->cs);
    if (mv->cat_t_own) ml_scratch_free(mv->cat_t, mv->ncat_t * sizeof *mv->cat_t);
    VEC_FREE(&mv->group_label);
    VEC_FREE(&mv->group_op);
    if (mv->frames) ml_strpool_free(mv->frames);
    free(mv->gs);
    free(mv->calls);
    free(mv->peak_by_op);
    free(mv->peak_by_frame);
    ml_breakdown_free(&mv->bf);
#define ML_MV_FREE(name, type, enc, delta, opt, api) ml_scratch_free(mv->name, mv->n * sizeof(type));
    ML_MV_COLUMNS(ML_MV_FREE)
#undef ML_MV_FREE
    free(mv);
}

bool ml_memview_device_shown(const ml_profile *p, uint16_t dev)
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

/* ---- queries ------------------------------------------------------------- */

void ml_memview_live_at(const ml_memview *v, int64_t t, int64_t total, ml_mv_live *out)
{
    memset(out, 0, sizeof *out);
    int64_t known_before = 0;
    size_t hi = ml_upper_bound_i64(v->ta, v->n, t);
    for (size_t i = 0; i < hi; i++) {
        if (v->tf[i] <= t && !(v->flags[i] & ML_MV_NEVER_FREED)) continue;
        int c = v->cat[i] < ML_CAT__COUNT ? v->cat[i] : 0;
        if (ml_shown_before_trace(v->flags[i], v->cat[i])) {
            out->shown_before += v->size[i];
            out->shown_before_n++;
        } else {
            out->by_cat[c] += v->size[i];
            out->n_cat[c]++;
        }
        if (v->flags[i] & ML_MV_BEFORE_TRACE) {
            known_before += v->size[i];
        } else {
            out->tracked += v->size[i];
            out->count++;
        }
    }
    out->before = known_before;
    if (total >= 0) out->before = total - out->tracked > 0 ? total - out->tracked : 0;
    if (total >= 0 && total - out->tracked - known_before > 0) out->shown_before += total - out->tracked - known_before;
}
