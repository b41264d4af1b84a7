/*
 * diffops.c — per-name time over the profiler steps (see diffops.h).
 */
#include "diffops.h"

#include <stdlib.h>
#include <string.h>

#include "steps.h"
#include "trace.h"
#include "u64map.h"

const char *ml_opkind_name(unsigned kind)
{
    static const char *const names[ML_OPK__COUNT] = {"operator", "runtime", "kernel", "memcpy", "memset"};
    return kind < ML_OPK__COUNT ? names[kind] : "other";
}

/* The row kind of a slice kind, or -1 for slices that are no row. */
static int row_kind(uint8_t k)
{
    switch (k) {
    case ML_SL_CPU_OP: return ML_OPK_OPERATOR;
    case ML_SL_RUNTIME:
    case ML_SL_DRIVER: return ML_OPK_RUNTIME;
    case ML_SL_KERNEL: return ML_OPK_KERNEL;
    case ML_SL_MEMCPY: return ML_OPK_MEMCPY;
    case ML_SL_MEMSET: return ML_OPK_MEMSET;
    default: return -1;
    }
}

typedef struct step_range {
    int64_t begin, end;
} step_range;

static int by_begin(const void *x, const void *y)
{
    const step_range *a = x, *b = y;
    return (a->begin > b->begin) - (a->begin < b->begin);
}

/* Whether t lies in a step: [begin, end) of one of the n ranges, sorted by
 * begin, with max_end[i] the latest end among the first i + 1.  Every range
 * that begins at or before t holds it if one of them ends after it (ranges
 * may overlap in a malformed trace). */
static bool in_step(const step_range *r, const int64_t *max_end, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].begin <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 && max_end[lo - 1] > t;
}

void ml_stepops_compute(const ml_profile *p, ml_stepops *out)
{
    memset(out, 0, sizeof *out);
    const ml_trace *t = p->trace;
    if (!t) return;
    const ml_slices *s = &t->slices;
    size_t n = s->ts.len;

    VEC(step_range) steps = {0};
    for (size_t i = 0; i < n; i++)
        if (s->kind.v[i] == ML_SL_PROFILER_STEP)
            VEC_PUSH(&steps, ((step_range){s->ts.v[i], s->ts.v[i] + ml_slice_dur(s, i)}));
    if (steps.len > 1) qsort(steps.v, steps.len, sizeof *steps.v, by_begin);
    int64_t *max_end = ml_malloc((steps.len ? steps.len : 1) * sizeof *max_end);
    for (size_t i = 0; i < steps.len; i++)
        max_end[i] = i && max_end[i - 1] > steps.v[i].end ? max_end[i - 1] : steps.v[i].end;
    out->steps = steps.len;
    out->whole_trace = steps.len == 0;

    /* Host slices in a step, marked once: GPU work asks for its launcher's. */
    uint8_t *counted = ml_calloc(n ? n : 1, 1);
    for (size_t i = 0; i < n; i++) {
        uint8_t k = s->kind.v[i];
        if (k != ML_SL_CPU_OP && !ml_slice_is_runtime(k)) continue;
        counted[i] = out->whole_trace || in_step(steps.v, max_end, steps.len, s->ts.v[i]);
    }

    ml_u64map rows;
    ml_u64map_init(&rows);
    for (size_t i = 0; i < n; i++) {
        int kind = row_kind(s->kind.v[i]);
        if (kind < 0) continue;
        bool in;
        if (ml_slice_is_gpu(s->kind.v[i])) {
            uint32_t l = s->launcher.v[i];
            in = out->whole_trace || (l != ML_NONE32 && l < n && counted[l]);
        } else in = counted[i];
        if (!in) continue;
        bool fresh;
        uint32_t *row = ml_u64map_put(&rows, (uint64_t)kind << 32 | s->name.v[i], &fresh);
        if (fresh) {
            *row = (uint32_t)out->rows.len;
            VEC_PUSH(&out->rows, ((ml_stepop){.name = s->name.v[i], .kind = (uint8_t)kind}));
        }
        ml_stepop *r = &out->rows.v[*row];
        r->calls++;
        r->ns += ml_slice_dur(s, i);
    }
    ml_u64map_free(&rows);
    free(counted);
    free(max_end);
    VEC_FREE(&steps);
}

void ml_stepops_free(ml_stepops *s)
{
    VEC_FREE(&s->rows);
    memset(s, 0, sizeof *s);
}
