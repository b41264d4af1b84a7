/*
 * diff.c — two runs aligned (see diff.h).
 */
#include "diff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "par.h"
#include "perfdata.h" /* ml_perf_unavailable */

const char *ml_change_name(unsigned c)
{
    static const char *const names[] = {"added", "deleted", "increased", "decreased", "unchanged"};
    return c < sizeof names / sizeof *names ? names[c] : "unchanged";
}

static void note(ml_diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(ml_diff *d, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    VEC_PUSH(&d->notes, ml_strdup(buf));
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

bool ml_diff_has_memory(const ml_profile *p)
{
    if (p->events.ts.len || p->allocs.t_alloc.len || p->segments.len) return true;
    for (size_t i = 0; i < p->series.len; i++)
        if (p->series.v[i].ts.len) return true;
    return false;
}

static bool is_accelerator(const ml_device *d) { return d->kind != ML_DEV_CPU; }

/* Whether a device of p holds memory data (a peak, or events). */
static bool device_has_memory(const ml_device_stats *st) { return st->peak_allocated.found || st->alloc_events || st->free_events; }

/* ---- devices ------------------------------------------------------------ */

typedef struct group_entry {
    const char *label;
    int64_t bytes, count;
    uint8_t side;
} group_entry;
typedef VEC(group_entry) group_vec;

static int by_label(const void *x, const void *y)
{
    const group_entry *a = x, *b = y;
    int c = strcmp(a->label, b->label);
    return c ? c : (a->side > b->side) - (a->side < b->side);
}

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

static int by_group_delta(const void *x, const void *y)
{
    const ml_diff_group *a = x, *b = y;
    int64_t da = abs64(a->bytes[1] - a->bytes[0]), db = abs64(b->bytes[1] - b->bytes[0]);
    if (da != db) return da > db ? -1 : 1;
    int64_t ma = a->bytes[0] > a->bytes[1] ? a->bytes[0] : a->bytes[1];
    int64_t mb = b->bytes[0] > b->bytes[1] ? b->bytes[0] : b->bytes[1];
    if (ma != mb) return ma > mb ? -1 : 1;
    return strcmp(a->label, b->label);
}

static void push_groups(group_vec *v, const ml_breakdown *bd, uint8_t side)
{
    for (size_t i = 0; i < bd->n; i++) VEC_PUSH(v, ((group_entry){bd->groups[i].label, bd->groups[i].bytes, bd->groups[i].count, side}));
    if (bd->before_bytes && !bd->before_grouped)
        VEC_PUSH(v, ((group_entry){ML_BEFORE_TRACE_GROUP, bd->before_bytes, bd->before_count, side}));
}

/* The live sets at the two peaks, aligned by group name. */
static void align_groups(ml_diff_device *dd)
{
    group_vec all = {0};
    for (int s = 0; s < 2; s++)
        if (dd->dev[s] >= 0 && dd->st[s].peak_allocated.found) push_groups(&all, &dd->st[s].at_peak, (uint8_t)s);
    if (all.len > 1) qsort(all.v, all.len, sizeof *all.v, by_label);
    dd->groups = ml_calloc(all.len ? all.len : 1, sizeof *dd->groups);
    size_t n = 0;
    for (size_t i = 0; i < all.len; i++) {
        ml_diff_group *g = &dd->groups[n];
        if (n && !strcmp(dd->groups[n - 1].label, all.v[i].label)) g = &dd->groups[n - 1]; /* the same group, other side */
        else {
            g->label = ml_strdup(all.v[i].label);
            g->only = all.v[i].side ? ML_ONLY_NEW : ML_ONLY_BASE;
            n++;
        }
        int s = all.v[i].side;
        if (g->only == (s ? ML_ONLY_BASE : ML_ONLY_NEW)) g->only = ML_ONLY_NONE;
        g->bytes[s] = ml_add_sat(g->bytes[s], all.v[i].bytes);
        g->count[s] += all.v[i].count;
    }
    VEC_FREE(&all);
    dd->n_groups = n;
    if (n > 1) qsort(dd->groups, n, sizeof *dd->groups, by_group_delta);
}

/* Reserved memory not allocated at the reserved peak. */
static void unused_reserved(const ml_profile *p, ml_diff_device *dd, int s)
{
    dd->unused_at_reserved_peak[s] = dd->allocated_at_reserved_peak[s] = -1;
    const ml_device_stats *st = &dd->st[s];
    if (!st->peak_reserved.found) return;
    ml_curve c;
    if (!ml_curve_get(p, dd->dev[s], ML_SERIES_ALLOCATED, &c)) return;
    int64_t alloc = ml_curve_value_at(&c, st->peak_reserved.at);
    ml_curve_free(&c);
    dd->allocated_at_reserved_peak[s] = alloc;
    dd->unused_at_reserved_peak[s] = st->peak_reserved.value > alloc ? st->peak_reserved.value - alloc : 0;
}

static void compare_devices(ml_diff *d)
{
    const ml_profile *ps[2] = {d->side[0].p, d->side[1].p};
    size_t nd[2] = {ps[0]->devices.len, ps[1]->devices.len};
    ml_device_stats *st[2];
    bool *used[2];
    for (int s = 0; s < 2; s++) {
        st[s] = ml_calloc(nd[s] ? nd[s] : 1, sizeof *st[s]);
        used[s] = ml_calloc(nd[s] ? nd[s] : 1, 1);
        for (size_t i = 0; i < nd[s]; i++) ml_device_stats_compute(ps[s], (int)i, d->by, &st[s][i]);
    }
    uint16_t *order = ml_malloc((nd[0] + 1) * sizeof *order);
    ml_device_order(ps[0], order);
    d->devices = ml_calloc(nd[0] + nd[1] + 1, sizeof *d->devices);
    /* by id first */
    for (size_t k = 0; k < nd[0]; k++) {
        int i = order[k];
        int j = ml_device_find(ps[1], ps[0]->devices.v[i].id);
        if (!device_has_memory(&st[0][i])) continue;
        if (j < 0 || !device_has_memory(&st[1][j])) continue;
        ml_diff_device *dd = &d->devices[d->n_devices++];
        dd->dev[0] = i, dd->dev[1] = j;
        used[0][i] = used[1][j] = true;
    }
    /* one accelerator left on each side: those two */
    int left[2] = {-1, -1}, nleft[2] = {0, 0};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < nd[s]; i++)
            if (!used[s][i] && device_has_memory(&st[s][i]) && is_accelerator(&ps[s]->devices.v[i])) left[s] = (int)i, nleft[s]++;
    if (nleft[0] == 1 && nleft[1] == 1) {
        ml_diff_device *dd = &d->devices[d->n_devices++];
        dd->dev[0] = left[0], dd->dev[1] = left[1];
        used[0][left[0]] = used[1][left[1]] = true;
        note(d, "devices: %s of %s compared with %s of %s (the one accelerator with memory data left on each side)",
             ps[0]->devices.v[left[0]].id, base_name(ps[0]->path), ps[1]->devices.v[left[1]].id, base_name(ps[1]->path));
    }
    /* the rest: on one side only */
    for (size_t k = 0; k < nd[0]; k++) {
        int i = order[k];
        if (used[0][i] || !device_has_memory(&st[0][i])) continue;
        ml_diff_device *dd = &d->devices[d->n_devices++];
        dd->dev[0] = i, dd->dev[1] = -1;
        used[0][i] = true;
    }
    uint16_t *order1 = ml_malloc((nd[1] + 1) * sizeof *order1);
    ml_device_order(ps[1], order1);
    for (size_t k = 0; k < nd[1]; k++) {
        int j = order1[k];
        if (used[1][j] || !device_has_memory(&st[1][j])) continue;
        ml_diff_device *dd = &d->devices[d->n_devices++];
        dd->dev[0] = -1, dd->dev[1] = j;
        used[1][j] = true;
    }
    free(order1);
    free(order);
    /* Keep the stats of compared devices, free the rest. */
    for (size_t k = 0; k < d->n_devices; k++) {
        ml_diff_device *dd = &d->devices[k];
        for (int s = 0; s < 2; s++) {
            dd->unused_at_reserved_peak[s] = dd->allocated_at_reserved_peak[s] = -1;
            if (dd->dev[s] < 0) continue;
            dd->id[s] = ps[s]->devices.v[dd->dev[s]].id;
            dd->st[s] = st[s][dd->dev[s]];
            memset(&st[s][dd->dev[s]], 0, sizeof st[s][dd->dev[s]]);
            unused_reserved(ps[s], dd, s);
        }
        align_groups(dd);
        if (dd->dev[0] < 0 || dd->dev[1] < 0)
            note(d, "devices: %s only in %s", dd->id[dd->dev[0] < 0], base_name(ps[dd->dev[0] < 0]->path));
    }
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < nd[s]; i++) ml_device_stats_free(&st[s][i]);
        free(st[s]);
        free(used[s]);
    }
}

/* ---- time --------------------------------------------------------------- */

typedef struct op_entry {
    const char *name;
    uint8_t kind, side;
    int64_t calls, ns;
} op_entry;

static int by_kind_name(const void *x, const void *y)
{
    const op_entry *a = x, *b = y;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->side > b->side) - (a->side < b->side);
}

static int by_op_delta(const void *x, const void *y)
{
    const ml_diff_op *a = x, *b = y;
    int64_t da = abs64(a->ns[1] - a->ns[0]), db = abs64(b->ns[1] - b->ns[0]);
    if (da != db) return da > db ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    return strcmp(a->name, b->name);
}

static void compare_ops(ml_diff *d)
{
    VEC(op_entry) all = {0};
    for (int s = 0; s < 2; s++) {
        const ml_stepops *so = &d->side[s].time->ops;
        const ml_profile *p = d->side[s].p;
        for (size_t i = 0; so && i < so->rows.len; i++) {
            const ml_stepop *r = &so->rows.v[i];
            VEC_PUSH(&all, ((op_entry){ml_s(p, r->name), r->kind, (uint8_t)s, r->calls, r->ns}));
        }
    }
    if (all.len > 1) qsort(all.v, all.len, sizeof *all.v, by_kind_name);
    d->ops = ml_calloc(all.len ? all.len : 1, sizeof *d->ops);
    size_t n = 0;
    for (size_t i = 0; i < all.len; i++) {
        const op_entry *e = &all.v[i];
        ml_diff_op *o = &d->ops[n];
        if (n && o[-1].kind == e->kind && !strcmp(o[-1].name, e->name)) o = &d->ops[n - 1];
        else {
            o->name = e->name;
            o->kind = e->kind;
            n++;
        }
        o->calls[e->side] += e->calls;
        o->ns[e->side] += e->ns;
    }
    VEC_FREE(&all);
    for (size_t i = 0; i < n; i++) {
        ml_diff_op *o = &d->ops[i];
        o->change = !o->calls[0] ? ML_CHANGE_ADDED
                    : !o->calls[1] ? ML_CHANGE_DELETED
                    : o->calls[1] > o->calls[0] ? ML_CHANGE_INCREASED
                    : o->calls[1] < o->calls[0] ? ML_CHANGE_DECREASED
                                                : ML_CHANGE_UNCHANGED;
    }
    d->n_ops = n;
    if (n > 1) qsort(d->ops, n, sizeof *d->ops, by_op_delta);
}

static void compare_time(ml_diff *d)
{
    for (int s = 0; s < 2; s++) {
        const ml_steps *st = &d->side[s].time->steps;
        d->steps.count[s] = st->steps.len;
        d->steps.whole_trace[s] = st->whole_trace;
        d->steps.avg_total[s] = st->avg_total;
        memcpy(d->steps.avg[s], st->avg, sizeof st->avg);
    }
    compare_ops(d);
    for (int s = 0; s < 2; s++)
        if (d->side[s].time->ops.whole_trace)
            note(d, "time: %s has no ProfilerStep#: its operators and kernels are counted over the whole trace",
                 base_name(d->side[s].p->path));
    if (d->steps.count[0] != d->steps.count[1] && !d->steps.whole_trace[0] && !d->steps.whole_trace[1])
        note(d, "time: the runs have %zu and %zu steps: calls and times per name are sums over all of them",
             d->steps.count[0], d->steps.count[1]);
    ml_dt_side a = {d->side[0].p, &d->side[0].time->tree}, b = {d->side[1].p, &d->side[1].time->tree};
    d->tree = ml_difftree_build(&a, &b);
    if (!d->tree) note(d, "operator tree: left out (a run has no operators)");
}

/* ---- one run's time side ---------------------------------------------------- */

typedef struct time_job {
    const ml_profile *p;
    ml_diff_time *t;
} time_job;

static void time_steps(void *arg)
{
    time_job *j = arg;
    ml_steps_compute(j->p, &j->t->steps);
    ml_stepops_compute(j->p, &j->t->ops);
}

static void time_tree(void *arg)
{
    time_job *j = arg;
    ml_optree_build(j->p, &j->t->tree);
}

bool ml_diff_time_compute(const ml_profile *p, ml_diff_time *out)
{
    memset(out, 0, sizeof *out);
    if (ml_perf_unavailable(p)) return false;
    time_job j = {p, out};
    ml_par2(time_tree, &j, time_steps, &j);
    return true;
}

void ml_diff_time_free(ml_diff_time *t)
{
    ml_steps_free(&t->steps);
    ml_optree_free(&t->tree);
    ml_stepops_free(&t->ops);
}

/* ---- the pair ----------------------------------------------------------- */

ml_diff *ml_diff_compute(const ml_diff_side *base, const ml_diff_side *nw, const ml_diff_opts *o)
{
    ml_diff *d = ml_calloc(1, sizeof *d);
    d->side[0] = *base;
    d->side[1] = *nw;
    const ml_profile *ps[2] = {base->p, nw->p};
    if (o && o->by_given) d->by = o->by;
    else {
        ml_group_by b0 = ml_group_by_default(ps[0]), b1 = ml_group_by_default(ps[1]);
        d->by = b0;
        if (b0 != b1 && ml_diff_has_memory(ps[0]) && ml_diff_has_memory(ps[1]))
            note(d, "memory: the live sets are grouped by %s (the base's default; the new run's is %s: --by chooses)",
                 ml_group_by_name(b0), ml_group_by_name(b1));
    }

    bool mem[2] = {ml_diff_has_memory(ps[0]), ml_diff_has_memory(ps[1])};
    d->memory = mem[0] && mem[1];
    if (d->memory) compare_devices(d);
    else if (mem[0] || mem[1])
        note(d, "memory: left out: %s has no memory data", base_name(ps[mem[0] ? 1 : 0]->path));

    d->snapshots = ps[0]->segments.len && ps[1]->segments.len;
    if (d->snapshots) ml_segdiff_compute(ps[0], ps[1], &d->segs);
    else if (ps[0]->segments.len || ps[1]->segments.len)
        note(d, "allocator state: left out: %s has no segments (only snapshots have)", base_name(ps[ps[0]->segments.len ? 1 : 0]->path));

    bool tm[2] = {base->time != NULL, nw->time != NULL};
    d->time = tm[0] && tm[1];
    if (d->time) compare_time(d);
    else if (tm[0] || tm[1]) {
        const ml_profile *lack = ps[tm[0] ? 1 : 0];
        const char *why = ml_perf_unavailable(lack);
        note(d, "time: left out: %s has no time side (%s)", base_name(lack->path), why ? why : "no slices");
    }
    return d;
}

bool ml_diff_empty(const ml_diff *d) { return !d->memory && !d->time && !d->snapshots; }

void ml_diff_free(ml_diff *d)
{
    if (!d) return;
    for (size_t k = 0; k < d->n_devices; k++) {
        ml_diff_device *dd = &d->devices[k];
        for (int s = 0; s < 2; s++)
            if (dd->dev[s] >= 0) ml_device_stats_free(&dd->st[s]);
        for (size_t i = 0; i < dd->n_groups; i++) free(dd->groups[i].label);
        free(dd->groups);
    }
    free(d->devices);
    ml_segdiff_free(&d->segs);
    free(d->ops);
    ml_difftree_free(d->tree);
    for (size_t i = 0; i < d->notes.len; i++) free(d->notes.v[i]);
    VEC_FREE(&d->notes);
    free(d);
}
