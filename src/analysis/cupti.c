/*
 * cupti.c — CUPTI profiler ranges paired with their launches (cupti.h).
 */
#include "cupti.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sortperm.h"

/* Slice x before slice y in time (ties: slice order). */
#define BY_TIME(s, x, y) ((s)->ts.v[x] < (s)->ts.v[y] || ((s)->ts.v[x] == (s)->ts.v[y] && (x) < (y)))
ML_RUNSORT_INPLACE_DEFINE(sort_by_time, uint32_t, const ml_slices *, BY_TIME)

/* The FLOPs one executed instruction counted by this counter does (0: not a FLOP counter). */
static int flops_per_count(const char *name)
{
    static const char prefix[] = "smsp__sass_thread_inst_executed_op_", suffix[] = "_pred_on.sum";
    static const char *const ops[] = {"ffma", "fmul", "fadd", "hfma", "hmul", "hadd", "dfma", "dmul", "dadd"};
    if (strncmp(name, prefix, sizeof prefix - 1)) return 0;
    const char *op = name + sizeof prefix - 1;
    if (strlen(op) != 4 + sizeof suffix - 1 || strcmp(op + 4, suffix)) return 0;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strncmp(op, ops[i], 4)) return op[1] == 'f' && op[2] == 'm' ? 2 : 1;
    return 0;
}

static int by_counter(const void *x, const void *y)
{
    const ml_cupti_cell *a = x, *b = y;
    return (a->counter > b->counter) - (a->counter < b->counter);
}

double ml_cupti_value(const ml_cupti *c, size_t row, size_t k)
{
    const ml_cupti_cell *v = c->cells + c->rows[row].cell_first;
    size_t lo = 0, hi = c->rows[row].cell_n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].counter < k) lo = mid + 1;
        else hi = mid;
    }
    return lo < c->rows[row].cell_n && v[lo].counter == k ? v[lo].value : NAN;
}

size_t ml_cupti_shown(const ml_cupti *c, size_t cap, uint32_t *out)
{
    size_t n = c->n_counters;
    if (n <= cap) {
        for (size_t k = 0; k < n; k++) out[k] = (uint32_t)k;
        return n;
    }
    size_t *kernels = ml_calloc(n, sizeof *kernels); /* kernels that give counter k */
    for (size_t i = 0; i < c->n_cells; i++) {
        /* a counter a range names twice is one cell (ml_cupti.cells): one kernel */
        kernels[c->cells[i].counter]++;
    }
    bool *pick = ml_calloc(n, sizeof *pick);
    for (size_t m = 0; m < cap; m++) { /* cap is small (a table's columns): cap passes */
        size_t best = n;
        for (size_t k = 0; k < n; k++)
            if (!pick[k] && (best == n || kernels[k] > kernels[best])) best = k;
        pick[best] = true;
    }
    size_t w = 0;
    for (size_t k = 0; k < n; k++)
        if (pick[k]) out[w++] = (uint32_t)k;
    free(pick);
    free(kernels);
    return w;
}

bool ml_cupti_compute(const ml_profile *p, ml_cupti *out)
{
    memset(out, 0, sizeof *out);
    const ml_trace *t = p->trace;
    if (!t) return false;
    const ml_slices *s = &t->slices;
    if (!t->range_info.len) return false; /* no profiler range has come in */
    VEC(uint32_t) ranges = {0};
    VEC(uint32_t) launches = {0};
    for (size_t i = 0; i < s->ts.len; i++) {
        uint8_t k = s->kind.v[i];
        if (k == ML_SL_PROFILER_RANGE) VEC_PUSH(&ranges, (uint32_t)i);
        else if (k == ML_SL_RUNTIME && !strncmp(ml_s(p, s->name.v[i]), "cudaLaunchKernel", 16))
            VEC_PUSH(&launches, (uint32_t)i);
    }
    if (!ranges.len) {
        VEC_FREE(&launches);
        return false;
    }
    sort_by_time(ranges.v, ranges.len, s);
    sort_by_time(launches.v, launches.len, s);
    out->n = ranges.len;
    out->launches = launches.len;
    out->paired = launches.len == ranges.len;

    /* counter names: each distinct key, in first-seen order */
    size_t nstr = ml_strpool_count(p->strings);
    uint32_t *col = ml_malloc((nstr ? nstr : 1) * sizeof *col);
    for (size_t i = 0; i < nstr; i++) col[i] = ML_NONE32;
    VEC(ml_str) names = {0};
    for (size_t r = 0; r < ranges.len; r++) {
        uint32_t info = s->info.v[ranges.v[r]];
        if (info == ML_NONE32 || info >= t->range_info.len) continue;
        const ml_range_info *ri = &t->range_info.v[info];
        for (uint32_t j = 0; j < ri->n; j++) {
            ml_str key = t->range_key.v[ri->first + j];
            if (key < nstr && col[key] == ML_NONE32) {
                col[key] = (uint32_t)names.len;
                VEC_PUSH(&names, key);
            }
        }
    }
    out->n_counters = names.len;
    out->counters = names.v;
    int *weight = ml_calloc(names.len ? names.len : 1, sizeof *weight);
    for (size_t c = 0; c < names.len; c++)
        if ((weight[c] = flops_per_count(ml_s(p, names.v[c])))) out->has_flops = true;
    /* where counter c's cell is in the row being read (a range naming a
     * counter twice keeps the last value, as a JSON object does) */
    size_t *cell_at = ml_malloc((names.len ? names.len : 1) * sizeof *cell_at);
    size_t *seen_in = ml_malloc((names.len ? names.len : 1) * sizeof *seen_in); /* row + 1, 0: none yet */
    memset(seen_in, 0, (names.len ? names.len : 1) * sizeof *seen_in);

    out->rows = ml_calloc(out->n, sizeof *out->rows);
    VEC(ml_cupti_cell) cells = {0};
    VEC(uint32_t) stack = {0};
    VEC(uint32_t) up = {0};
    for (size_t r = 0; r < out->n; r++) {
        ml_cupti_row *row = &out->rows[r];
        row->slice = ranges.v[r];
        row->launch = ML_NONE32;
        row->stack_first = (uint32_t)stack.len;
        row->cell_first = cells.len;
        uint32_t info = s->info.v[row->slice];
        if (info != ML_NONE32 && info < t->range_info.len) {
            const ml_range_info *ri = &t->range_info.v[info];
            for (uint32_t j = 0; j < ri->n; j++) {
                ml_str key = t->range_key.v[ri->first + j];
                if (key >= nstr || col[key] == ML_NONE32) continue;
                uint32_t c = col[key];
                double v = t->range_value.v[ri->first + j];
                if (seen_in[c] == r + 1) cells.v[cell_at[c]].value = v;
                else {
                    seen_in[c] = r + 1, cell_at[c] = cells.len;
                    VEC_PUSH(&cells, ((ml_cupti_cell){c, v}));
                }
            }
        }
        row->cell_n = (uint32_t)(cells.len - row->cell_first);
        if (row->cell_n > 1) qsort(cells.v + row->cell_first, row->cell_n, sizeof *cells.v, by_counter);
        row->flops = -1;
        if (out->has_flops) {
            double f = 0;
            for (size_t k = row->cell_first; k < cells.len; k++)
                if (weight[cells.v[k].counter] && !isnan(cells.v[k].value)) f += weight[cells.v[k].counter] * cells.v[k].value;
            row->flops = f;
        }
        if (!out->paired) continue;
        row->launch = launches.v[r];
        up.len = 0;
        for (uint32_t a = s->parent.v[row->launch]; a != ML_NONE32; a = s->parent.v[a])
            if (s->kind.v[a] == ML_SL_CPU_OP) VEC_PUSH(&up, a);
        for (size_t j = up.len; j-- > 0;) VEC_PUSH(&stack, up.v[j]);
        row->stack_n = (uint32_t)(stack.len - row->stack_first);
    }
    out->stack = stack.v;
    out->cells = cells.v;
    out->n_cells = cells.len;
    free(cell_at);
    free(seen_in);
    free(weight);
    free(col);
    VEC_FREE(&up);
    VEC_FREE(&ranges);
    VEC_FREE(&launches);
    return true;
}

void ml_cupti_free(ml_cupti *c)
{
    free(c->rows);
    free(c->stack);
    free(c->counters);
    free(c->cells);
    memset(c, 0, sizeof *c);
}
