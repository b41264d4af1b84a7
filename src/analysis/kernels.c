/*
 * kernels.c — kernel tables by name and by (name, operator).
 */
#include "kernels.h"

#include <stdlib.h>
#include <string.h>

#include "u64map.h"

typedef struct kacc {
    ml_kernel_row r;
    double bps, occ;        /* Σ value × duration */
} kacc;

static void add(kacc *a, int64_t ts, int64_t dur, const ml_kernel_info *ki, bool hist)
{
    if (hist) ml_durhist_add(&a->r.hist, ts, dur);
    if (!a->r.calls || dur < a->r.min_ns) a->r.min_ns = dur;
    if (!a->r.calls || dur > a->r.max_ns) a->r.max_ns = dur;
    a->r.calls++;
    a->r.total_ns += dur;
    if (ki && ki->blocks_per_sm > 0) a->bps += (double)ki->blocks_per_sm * (double)dur;
    if (ki && ki->occupancy > 0) a->occ += (double)ki->occupancy * (double)dur;
}

static void finish(kacc *a, bool have_bps, bool have_occ)
{
    double d = (double)a->r.total_ns;
    a->r.blocks_per_sm = !have_bps ? -1 : d > 0 ? a->bps / d : 0;
    a->r.occupancy = !have_occ ? -1 : d > 0 ? a->occ / d : 0;
}

static int cmp_row(const void *x, const void *y)
{
    const ml_kernel_row *a = x, *b = y;
    if (a->total_ns != b->total_ns) return a->total_ns > b->total_ns ? -1 : 1;
    if (a->name != b->name) return a->name < b->name ? -1 : 1;
    return (a->op > b->op) - (a->op < b->op);
}

void ml_kernels_compute(const ml_profile *p, const ml_optree *tree, const ml_kernel_wants *w, ml_kernel_table *out)
{
    memset(out, 0, sizeof *out);
    bool want_op = !w || !w->no_by_op, hist = !w || !w->no_hists;
    out->n_names = ml_strpool_count(p->strings);
    out->row_of_name = ml_malloc((out->n_names ? out->n_names : 1) * sizeof *out->row_of_name);
    for (size_t i = 0; i < out->n_names; i++) out->row_of_name[i] = ML_NONE32;
    const ml_trace *t = p->trace;
    if (!t) return;
    const ml_slices *s = &t->slices;
    VEC(kacc) by_name = {0};
    VEC(kacc) by_op = {0};
    VEC(kacc) by_core = {0};
    ml_u64map op_rows; /* (name, op) -> row of by_op */
    ml_u64map_init(&op_rows);
    bool have_bps = false, have_occ = false;
    ML_FOR_DEVICE_ROWS (t, i) {
        if (s->kind.v[i] != ML_SL_KERNEL) continue;
        const ml_kernel_info *ki = NULL;
        uint32_t info = s->info.v[i];
        if (info != ML_NONE32 && info < t->kernel_info.len) ki = &t->kernel_info.v[info];
        if (ki && ki->blocks_per_sm > 0) have_bps = true;
        if (ki && ki->occupancy >= 0) have_occ = true;
        ml_str nm = s->name.v[i];
        if (nm >= out->n_names) continue;
        if (out->row_of_name[nm] == ML_NONE32) {
            out->row_of_name[nm] = (uint32_t)by_name.len;
            kacc a = {.r = {.name = nm, .tensor_cores = ml_kernel_uses_tc(ml_s(p, nm))}};
            VEC_PUSH(&by_name, a);
        }
        kacc *named = &by_name.v[out->row_of_name[nm]];
        /* by (name, op): the innermost operator over the launch (a row of the
         * operator table), 0 when none (launched from a root, a step or an
         * annotation outside every operator) */
        add(named, s->ts.v[i], ml_slice_dur(s, i), ki, hist);
        if (ki && ki->core) {
            size_t c = 0;
            while (c < by_core.len && by_core.v[c].r.name != ki->core) c++; /* a handful of cores */
            if (c == by_core.len) VEC_PUSH(&by_core, ((kacc){.r = {.name = ki->core}}));
            add(&by_core.v[c], s->ts.v[i], ml_slice_dur(s, i), ki, hist);
        }
        out->kernels++;
        if (!want_op) continue;
        uint32_t o = tree && tree->owner ? tree->owner[i] : ML_NONE32;
        while (o != ML_NONE32 && !(tree->flags[o] & ML_NODE_OPERATOR)) o = tree->parent[o];
        ml_str op = o != ML_NONE32 ? s->name.v[tree->slice[o]] : 0;
        bool fresh;
        uint32_t *row = ml_u64map_put(&op_rows, (uint64_t)nm << 32 | op, &fresh);
        if (fresh) {
            *row = (uint32_t)by_op.len;
            kacc a = {.r = {.name = nm, .op = op, .tensor_cores = named->r.tensor_cores}};
            VEC_PUSH(&by_op, a);
        }
        add(&by_op.v[*row], s->ts.v[i], ml_slice_dur(s, i), ki, hist);
    }
    ml_u64map_free(&op_rows);
    for (size_t j = 0; j < by_op.len; j++) {
        finish(&by_op.v[j], have_bps, have_occ);
        VEC_PUSH(&out->by_op, by_op.v[j].r);
    }
    VEC_FREE(&by_op);

    for (size_t j = 0; j < by_name.len; j++) {
        finish(&by_name.v[j], have_bps, have_occ);
        VEC_PUSH(&out->by_name, by_name.v[j].r);
    }
    VEC_FREE(&by_name);
    for (size_t j = 0; j < by_core.len; j++) {
        finish(&by_core.v[j], have_bps, have_occ);
        VEC_PUSH(&out->by_core, by_core.v[j].r);
    }
    VEC_FREE(&by_core);
    if (out->by_core.len) qsort(out->by_core.v, out->by_core.len, sizeof *out->by_core.v, cmp_row);
    if (out->by_name.len) qsort(out->by_name.v, out->by_name.len, sizeof *out->by_name.v, cmp_row);
    for (size_t j = 0; j < out->by_name.len; j++) out->row_of_name[out->by_name.v[j].name] = (uint32_t)j;
    if (out->by_op.len) qsort(out->by_op.v, out->by_op.len, sizeof *out->by_op.v, cmp_row);
}

void ml_kernels_free(ml_kernel_table *k)
{
    VEC_FREE(&k->by_name);
    VEC_FREE(&k->by_op);
    VEC_FREE(&k->by_core);
    free(k->row_of_name);
    memset(k, 0, sizeof *k);
}
