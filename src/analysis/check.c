/*
 * check.c — the rules of `memlens check` (see check.h).
 */
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "format.h"
#include "u64map.h"

static const struct {
    const char *option;
    bool arg, base;
    ml_rule_unit unit;
} rules[ML_RULE__COUNT] = {
    [ML_RULE_MAX_PEAK] = {"--max-peak", true, false, ML_UNIT_BYTES},
    [ML_RULE_MAX_RESERVED] = {"--max-reserved", true, false, ML_UNIT_BYTES},
    [ML_RULE_MAX_PEAK_GROWTH] = {"--max-peak-growth", true, true, ML_UNIT_PCT},
    [ML_RULE_MAX_STEP_TIME] = {"--max-step-time", true, false, ML_UNIT_NS},
    [ML_RULE_MAX_STEP_TIME_GROWTH] = {"--max-step-time-growth", true, true, ML_UNIT_PCT},
    [ML_RULE_NO_OOM] = {"--no-oom", false, false, ML_UNIT_COUNT},
    [ML_RULE_MAX_UNUSED_RESERVED] = {"--max-unused-reserved", true, false, ML_UNIT_PCT},
};

int ml_rule_lookup(const char *option)
{
    for (int k = 0; k < ML_RULE__COUNT; k++)
        if (!strcmp(option, rules[k].option)) return k;
    return -1;
}

bool ml_rule_takes_arg(ml_rule_kind k) { return rules[k].arg; }
bool ml_rule_needs_base(ml_rule_kind k) { return rules[k].base; }
ml_rule_unit ml_rule_unit_of(ml_rule_kind k) { return rules[k].unit; }

/* A non-negative decimal number at the start of s; the rest in *end. */
static bool number(const char *s, double *v, const char **end)
{
    const char *c = s;
    if (!(*c >= '0' && *c <= '9') && *c != '.') return false;
    while ((*c >= '0' && *c <= '9') || *c == '.') c++;
    char buf[64];
    size_t n = (size_t)(c - s);
    if (n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *e;
    *v = strtod(buf, &e);
    if (*e || !isfinite(*v)) return false;
    while (*c == ' ') c++;
    *end = c;
    return true;
}

static const struct {
    const char *name;
    double mul;
} size_units[] = {
    {"B", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
    {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
    {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0},
    {"kB", 1e3}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
}, time_units[] = {{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}};

/* 2^63: the figures are int64 bytes and nanoseconds. */
#define INT64_LIMIT 9223372036854775808.0

int ml_rule_parse(ml_rule_kind k, const char *option, const char *arg, ml_rule *out, ml_err *e)
{
    memset(out, 0, sizeof *out);
    out->kind = k;
    out->option = option;
    out->arg = arg;
    if (!rules[k].arg) return 0;
    double v = 0;
    const char *rest = "";
    bool ok = arg && number(arg, &v, &rest);
    switch (rules[k].unit) {
    case ML_UNIT_BYTES:
        for (size_t i = 0; ok && i < sizeof size_units / sizeof *size_units; i++)
            if (!strcmp(rest, size_units[i].name)) {
                out->limit = v * size_units[i].mul;
                if (out->limit >= INT64_LIMIT) return ml_fail(e, "%s %s: out of range: a size below 8 EiB (8388608 TiB)", option, arg);
                return 0;
            }
        return ml_fail(e, "%s %s: expected a size with a unit, like 30GiB (B, KiB, MiB, GiB, TiB; KB, MB, GB, TB)", option,
                       arg ? arg : "");
    case ML_UNIT_NS:
        for (size_t i = 0; ok && i < sizeof time_units / sizeof *time_units; i++)
            if (!strcmp(rest, time_units[i].name)) {
                out->limit = v * time_units[i].mul;
                if (out->limit >= INT64_LIMIT) return ml_fail(e, "%s %s: out of range: a duration below 9223372036s", option, arg);
                return 0;
            }
        return ml_fail(e, "%s %s: expected a duration with a unit, like 250ms (ns, us, ms, s)", option, arg ? arg : "");
    case ML_UNIT_PCT:
        if (ok && !strcmp(rest, "%")) {
            /* a share of the reserved memory cannot pass 100 %; a growth
             * beyond 10000 times (1000000 %) is no limit but a typo */
            double most = k == ML_RULE_MAX_UNUSED_RESERVED ? 100 : ML_MAX_GROWTH_PCT;
            out->limit = v;
            if (v > most) return ml_fail(e, "%s %s: out of range: a percentage from 0%% to %.0f%%", option, arg, most);
            return 0;
        }
        return ml_fail(e, "%s %s: expected a percentage, like 5%%", option, arg ? arg : "");
    default:
        return 0;
    }
}

/* ---- evaluation ------------------------------------------------------------ */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

/* "cuda:0 of rank 1", "cuda:0 of trace.json", "rank 1". */
static void where(char *buf, size_t cap, const ml_diff *d, const char *dev)
{
    const ml_profile *p = d->side[1].p;
    char who[128];
    if (p->rank >= 0) snprintf(who, sizeof who, "rank %d", p->rank);
    else snprintf(who, sizeof who, "%s", base_name(p->path));
    if (dev) snprintf(buf, cap, "%s of %s", dev, who);
    else snprintf(buf, cap, "%s", who);
}

static void add_top(ml_rule_result *o, const char *name, double v)
{
    if (o->n_top >= ML_CHECK_TOP) return;
    snprintf(o->top_name[o->n_top], sizeof o->top_name[0], "%s", name);
    o->top_value[o->n_top++] = v;
}

static bool accel(const ml_diff *d, const ml_diff_device *dd, int s)
{
    return dd->dev[s] >= 0 && d->side[s].p->devices.v[dd->dev[s]].kind != ML_DEV_CPU;
}

static bool is_cpu(const ml_diff *d, const ml_diff_device *dd, int s)
{
    return dd->dev[s] >= 0 && d->side[s].p->devices.v[dd->dev[s]].kind == ML_DEV_CPU;
}

/* The largest groups live at a side's peak. */
static void top_groups(ml_rule_result *o, const ml_diff_device *dd, int s)
{
    const ml_breakdown *bd = &dd->st[s].at_peak;
    /* groups are sorted by bytes; the before-trace group goes in its place */
    bool before = bd->before_bytes > 0 && !bd->before_grouped;
    for (size_t i = 0; i <= bd->n && o->n_top < ML_CHECK_TOP; i++) {
        if (before && (i == bd->n || bd->groups[i].bytes < bd->before_bytes)) {
            add_top(o, ML_BEFORE_TRACE_GROUP, (double)bd->before_bytes);
            before = false;
        }
        if (i < bd->n && o->n_top < ML_CHECK_TOP) add_top(o, bd->groups[i].label, (double)bd->groups[i].bytes);
    }
    o->top_unit = ML_UNIT_BYTES;
}

/* The groups that grew most between the peaks. */
static void top_growth(ml_rule_result *o, const ml_diff_device *dd)
{
    for (size_t i = 0; i < dd->n_groups && o->n_top < ML_CHECK_TOP; i++) { /* by |delta| */
        const ml_diff_group *g = &dd->groups[i];
        if (g->bytes[1] > g->bytes[0]) add_top(o, g->label, (double)(g->bytes[1] - g->bytes[0]));
    }
    o->top_unit = ML_UNIT_BYTES;
}

/* Keeps the ML_CHECK_TOP largest values seen (idx[], val[] by value, descending; *n of them). */
static void keep_top(size_t *idx, double *val, int *n, size_t i, double v)
{
    if (*n == ML_CHECK_TOP && v <= val[ML_CHECK_TOP - 1]) return;
    int at = *n < ML_CHECK_TOP ? (*n)++ : ML_CHECK_TOP - 1;
    while (at > 0 && val[at - 1] < v) idx[at] = idx[at - 1], val[at] = val[at - 1], at--;
    idx[at] = i, val[at] = v;
}

/* A segment at the reserved peak: its address, size and bytes allocated then. */
typedef struct seg_at {
    uint64_t addr;
    int64_t total, allocated;
} seg_at;

static int by_addr(const void *x, const void *y)
{
    const seg_at *a = x, *b = y;
    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The segment of segs[0..n) (sorted by address) holding addr, or NULL. */
static seg_at *segment_holding(seg_at *segs, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (segs[mid].addr <= addr) lo = mid + 1;
        else hi = mid;
    }
    if (!lo || addr - segs[lo - 1].addr >= (uint64_t)segs[lo - 1].total) return NULL;
    return &segs[lo - 1];
}

/* Whether event i comes after instant at.  The reserved series' first point
 * has no event (ML_NONE32): the level before the events at its time, so those
 * come after it too (the snapshot importer's reserved_series()). */
static bool after(const ml_profile *p, size_t i, ml_instant at)
{
    if (at.event != ML_NONE32) return i > at.event;
    return p->events.ts.v[i] >= at.ts;
}

/* The device's segments at instant at, each with the bytes allocated in it
 * then: the final segments, the segment events after at undone (a segment
 * reserved later was not there yet, one released later was), and the
 * allocations live at at placed by address.  -1: the addresses are not kept. */
static ptrdiff_t segments_at(const ml_profile *p, int dev, ml_instant at, seg_at **out)
{
    const ml_events *ev = &p->events;
    const ml_allocs *a = &p->allocs;
    *out = NULL;
    if (p->lean || ev->addr.len != ev->ts.len || a->addr.len != a->t_alloc.len) return -1;
    bool all = ml_only_device(p, dev);
    VEC(seg_at) segs = {0};
    ml_u64map at_addr; /* address -> the segment there now (one at a time, walking back) */
    ml_u64map_init(&at_addr);
    bool fresh;
    for (size_t i = 0; i < p->segments.len; i++) {
        const ml_segment *g = &p->segments.v[i];
        if (g->device != dev) continue;
        *ml_u64map_put(&at_addr, g->address, &fresh) = (uint32_t)segs.len;
        VEC_PUSH(&segs, ((seg_at){g->address, g->total_size, 0}));
    }
    for (size_t i = ev->ts.len; i-- > 0 && after(p, i, at);) {
        if (!all && ev->device.v[i] != dev) continue;
        uint8_t k = ev->kind.v[i];
        uint64_t addr = ev->addr.v[i];
        uint32_t *j;
        if (k == ML_EV_SEGMENT_FREE) {
            *ml_u64map_put(&at_addr, addr, &fresh) = (uint32_t)segs.len;
            VEC_PUSH(&segs, ((seg_at){addr, ev->size.v[i], 0}));
        } else if (k == ML_EV_SEGMENT_ALLOC && (j = ml_u64map_get(&at_addr, addr)) && *j != ML_NONE32) {
            segs.v[*j].total = 0; /* not reserved yet: dropped below */
            *j = ML_NONE32;
        } else if (k == ML_EV_SEGMENT_MAP || k == ML_EV_SEGMENT_UNMAP) { /* expandable: mapped later, or unmapped */
            for (size_t m = 0; m < segs.len; m++)
                if (segs.v[m].total && addr - segs.v[m].addr < (uint64_t)segs.v[m].total) {
                    segs.v[m].total += k == ML_EV_SEGMENT_MAP ? -ev->size.v[i] : ev->size.v[i];
                    break;
                }
        }
    }
    ml_u64map_free(&at_addr);
    size_t kept = 0;
    for (size_t i = 0; i < segs.len; i++)
        if (segs.v[i].total > 0) segs.v[kept++] = segs.v[i];
    segs.len = kept;
    if (segs.len > 1) qsort(segs.v, segs.len, sizeof *segs.v, by_addr);
    for (size_t i = 0; i < a->t_alloc.len; i++) {
        if (!all && a->device.v[i] != dev) continue;
        seg_at *g;
        if (ml_alloc_live_at(p, i, at) && (g = segment_holding(segs.v, segs.len, a->addr.v[i]))) g->allocated += a->size.v[i];
    }
    *out = segs.v;
    return (ptrdiff_t)segs.len;
}

/* The segments with the most reserved memory not allocated (snapshots), at
 * the reserved peak, the moment the rule measures. */
static void top_free_segments(ml_rule_result *o, const ml_diff *d, const ml_diff_device *dd)
{
    const ml_profile *p = d->side[1].p;
    seg_at *segs;
    ptrdiff_t n_segs = segments_at(p, dd->dev[1], dd->st[1].peak_reserved.at, &segs);
    size_t best[ML_CHECK_TOP];
    double val[ML_CHECK_TOP];
    int n = 0;
    for (ptrdiff_t i = 0; i < n_segs; i++)
        if (segs[i].total > segs[i].allocated) keep_top(best, val, &n, (size_t)i, (double)(segs[i].total - segs[i].allocated));
    for (int k = 0; k < n; k++) {
        const seg_at *g = &segs[best[k]];
        char name[200], b[32];
        snprintf(name, sizeof name, "segment 0x%llx (%s)", (unsigned long long)g->addr, ml_fmt_bytes(g->total, b, sizeof b));
        add_top(o, name, val[k]);
    }
    free(segs);
    o->top_unit = ML_UNIT_BYTES;
}

static double per_step(int64_t ns, size_t steps) { return steps ? (double)ns / (double)steps : (double)ns; }

/* The operators and kernels whose time per step grew most. */
static void top_ops(ml_rule_result *o, const ml_diff *d)
{
    size_t best[ML_CHECK_TOP];
    double val[ML_CHECK_TOP];
    int n = 0;
    for (size_t i = 0; i < d->n_ops; i++) {
        const ml_diff_op *r = &d->ops[i];
        double g = per_step(r->ns[1], d->steps.count[1]) - per_step(r->ns[0], d->steps.count[0]);
        if (g > 0) keep_top(best, val, &n, i, g);
    }
    for (int k = 0; k < n; k++) {
        char name[200];
        snprintf(name, sizeof name, "%s %s", ml_opkind_name(d->ops[best[k]].kind), d->ops[best[k]].name);
        add_top(o, name, val[k]);
    }
    o->top_unit = ML_UNIT_NS;
}

/* The largest parts of the step time. */
static void top_roles(ml_rule_result *o, const ml_diff *d)
{
    bool used[ML_ROLE__COUNT] = {false};
    for (int k = 0; k < ML_CHECK_TOP; k++) {
        int best = -1;
        for (int r = 0; r < ML_ROLE__COUNT; r++)
            if (!used[r] && d->steps.avg[1][r] > 0 && (best < 0 || d->steps.avg[1][r] > d->steps.avg[1][best])) best = r;
        if (best < 0) break;
        used[best] = true;
        add_top(o, ml_role_label((ml_role)best), d->steps.avg[1][best]);
    }
    o->top_unit = ML_UNIT_NS;
}

void ml_check_eval(const ml_rule *r, ml_diff *const *pairs, size_t n, bool has_base, ml_rule_result *o)
{
    memset(o, 0, sizeof *o);
    o->rule = r;
    o->measured = -INFINITY;
    const ml_diff *wd = NULL;          /* the worst pair */
    const ml_diff_device *wdev = NULL; /* and device */
    if (ml_rule_needs_base(r->kind) && !has_base) n = 0; /* a run against itself has not grown */
    /* --max-peak and --max-peak-growth judge the accelerators; a run with
     * none that has memory data (a CPU-only run) has its CPU peak judged
     * instead, on a second pass, and `where` names cpu. */
    bool cpu_pass = false;
again:
    for (size_t i = 0; i < n; i++) {
        const ml_diff *d = pairs[i];
        switch (r->kind) {
        case ML_RULE_MAX_PEAK:
        case ML_RULE_MAX_RESERVED:
        case ML_RULE_MAX_UNUSED_RESERVED:
        case ML_RULE_NO_OOM:
        case ML_RULE_MAX_PEAK_GROWTH:
            for (size_t k = 0; k < d->n_devices; k++) {
                const ml_diff_device *dd = &d->devices[k];
                const ml_device_stats *st = &dd->st[1];
                double v;
                if (cpu_pass ? !is_cpu(d, dd, 1) : !accel(d, dd, 1)) continue;
                if (r->kind == ML_RULE_MAX_PEAK) {
                    if (!st->peak_allocated.found) continue;
                    v = (double)st->peak_allocated.value;
                } else if (r->kind == ML_RULE_MAX_RESERVED) {
                    if (!st->peak_reserved.found) continue;
                    v = (double)st->peak_reserved.value;
                } else if (r->kind == ML_RULE_NO_OOM) {
                    v = (double)st->oom_events + (o->evaluated ? o->measured : 0); /* a total over devices */
                    o->evaluated = true;
                    o->measured = v;
                    if (st->oom_events && !wdev) wd = d, wdev = dd;
                    continue;
                } else if (r->kind == ML_RULE_MAX_UNUSED_RESERVED) {
                    if (dd->unused_at_reserved_peak[1] < 0 || !st->peak_reserved.value) continue;
                    v = 100.0 * (double)dd->unused_at_reserved_peak[1] / (double)st->peak_reserved.value;
                } else {
                    if ((cpu_pass ? !is_cpu(d, dd, 0) : !accel(d, dd, 0)) || !dd->st[0].peak_allocated.found || !st->peak_allocated.found ||
                        !dd->st[0].peak_allocated.value)
                        continue;
                    v = 100.0 * ((double)st->peak_allocated.value - (double)dd->st[0].peak_allocated.value) /
                        (double)dd->st[0].peak_allocated.value;
                }
                if (!o->evaluated || v > o->measured) {
                    o->measured = v, wd = d, wdev = dd;
                    if (r->kind == ML_RULE_MAX_PEAK_GROWTH)
                        o->base = (double)dd->st[0].peak_allocated.value, o->now = (double)st->peak_allocated.value;
                    if (r->kind == ML_RULE_MAX_UNUSED_RESERVED)
                        o->base = (double)dd->allocated_at_reserved_peak[1], o->now = (double)st->peak_reserved.value;
                }
                o->evaluated = true;
            }
            break;
        case ML_RULE_MAX_STEP_TIME:
        case ML_RULE_MAX_STEP_TIME_GROWTH: {
            if (!d->time) continue;
            double v = d->steps.avg_total[1];
            if (r->kind == ML_RULE_MAX_STEP_TIME_GROWTH) {
                if (!(d->steps.avg_total[0] > 0)) continue;
                v = 100.0 * (d->steps.avg_total[1] - d->steps.avg_total[0]) / d->steps.avg_total[0];
            }
            if (!o->evaluated || v > o->measured) {
                o->measured = v, wd = d;
                o->base = d->steps.avg_total[0], o->now = d->steps.avg_total[1];
            }
            o->evaluated = true;
            break;
        }
        default: break;
        }
    }
    if (!o->evaluated && !cpu_pass && (r->kind == ML_RULE_MAX_PEAK || r->kind == ML_RULE_MAX_PEAK_GROWTH)) {
        cpu_pass = true;
        goto again;
    }
    if (!o->evaluated) {
        bool mem = r->kind != ML_RULE_MAX_STEP_TIME && r->kind != ML_RULE_MAX_STEP_TIME_GROWTH;
        if (ml_rule_needs_base(r->kind) && !has_base) snprintf(o->why, sizeof o->why, "needs --base BASE");
        else if (mem && r->kind == ML_RULE_MAX_PEAK_GROWTH)
            snprintf(o->why, sizeof o->why, "no device with memory data in both runs (an accelerator, else the CPU)");
        else if (mem && (r->kind == ML_RULE_MAX_RESERVED || r->kind == ML_RULE_MAX_UNUSED_RESERVED))
            snprintf(o->why, sizeof o->why, "the run records no reserved memory for an accelerator");
        else if (mem && r->kind == ML_RULE_MAX_PEAK)
            snprintf(o->why, sizeof o->why, "the run has no memory data (no accelerator, no CPU memory events)");
        else if (mem) snprintf(o->why, sizeof o->why, "the run has no accelerator with memory data");
        else snprintf(o->why, sizeof o->why, "%s", has_base ? "the runs do not both have a time side (operators, steps)"
                                                               : "the run has no time side (operators, steps)");
        return;
    }
    o->passed = o->measured <= r->limit;
    if (r->kind == ML_RULE_NO_OOM) o->passed = o->measured == 0;
    if (wd) where(o->where, sizeof o->where, wd, wdev ? wdev->id[1] : NULL);
    if (wd && cpu_pass) {
        size_t len = strlen(o->where);
        snprintf(o->where + len, sizeof o->where - len, " (no accelerator memory in the run%s: the CPU's peak)",
                 r->kind == ML_RULE_MAX_PEAK_GROWTH ? "s" : "");
    }
    if (o->passed || !wd) return;
    switch (r->kind) {
    case ML_RULE_MAX_PEAK:
    case ML_RULE_MAX_RESERVED: top_groups(o, wdev, 1); break;
    case ML_RULE_MAX_PEAK_GROWTH: top_growth(o, wdev); break;
    case ML_RULE_MAX_STEP_TIME: top_roles(o, wd); break;
    case ML_RULE_MAX_STEP_TIME_GROWTH: top_ops(o, wd); break;
    case ML_RULE_NO_OOM:
        for (int64_t k = 0; wdev && k < wdev->st[1].oom_events && k < ML_CHECK_TOP; k++) {
            add_top(o, "requested", (double)wdev->st[1].ooms[k].requested);
        }
        o->top_unit = ML_UNIT_BYTES;
        break;
    case ML_RULE_MAX_UNUSED_RESERVED: top_free_segments(o, wd, wdev); break;
    default: break;
    }
}

void ml_check_fold(ml_rule_result *acc, const ml_rule_result *next, bool first)
{
    if (first) {
        *acc = *next;
        return;
    }
    if (!next->evaluated) return;
    if (!acc->evaluated) {
        *acc = *next;
        return;
    }
    if (acc->rule->kind == ML_RULE_NO_OOM) {
        double total = acc->measured + next->measured;
        if (acc->measured == 0 && next->measured > 0) *acc = *next; /* the first pair with an OOM names it */
        acc->measured = total;
        acc->passed = total == 0;
        return;
    }
    if (next->measured > acc->measured) *acc = *next;
}
