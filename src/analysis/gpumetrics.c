/*
 * gpumetrics.c — per-device GPU utilization, SM efficiency, occupancy and
 * Tensor Core share (see gpumetrics.h).
 */
#include "gpumetrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optree.h"
#include "ranges.h"
#include "scratch.h"
#include "sortperm.h"

typedef struct edge {        /* a kernel's start (+v) or end (-v), for SM efficiency */
    int64_t ts;
    uint32_t end;            /* 0 start, 1 end: starts first at equal times */
    uint32_t info;           /* its kernel_info row, whose blocks_per_sm is v (16 bytes an edge, not 24) */
} edge;

/* By time, a start before an end at the same instant; otherwise in the order
 * pushed (stable, as glibc's qsort was here): each stream's edges come in
 * time order, so a natural merge sort takes a pass per doubling of the streams. */
#define EDGE_LT(ctx, x, y) ((x).ts < (y).ts || ((x).ts == (y).ts && (x).end < (y).end))
ML_RUNSORT_INPLACE_DEFINE(sort_edges, edge, void *, EDGE_LT)

typedef struct acc {
    ml_gpu_metrics m;
    ml_ranges busy;
    VEC(edge) edges;
    double occ_sum, occ_time;
    int64_t tc_time, k_time;
    size_t order;
} acc;

static int cmp_acc(const void *x, const void *y)
{
    const acc *a = x, *b = y;
    if (a->order != b->order) return a->order < b->order ? -1 : 1;
    return (a->m.gpu > b->m.gpu) - (a->m.gpu < b->m.gpu);
}

void ml_gpu_metrics_compute(const ml_profile *p, const ml_steps *st, ml_gpu_metrics_list *out)
{
    out->len = 0;
    const ml_trace *t = p->trace;
    if (!t) return;
    const ml_slices *s = &t->slices;
    int64_t sb = st->begin, se = st->end;
    VEC(acc) accs = {0};
    size_t nstr = ml_strpool_count(p->strings);
    uint8_t *tc_name = ml_calloc(nstr ? nstr : 1, 1);
    ML_FOR_DEVICE_ROWS (t, i) {
        if (s->kind.v[i] != ML_SL_KERNEL) continue;
        const ml_kernel_info *ki = NULL;
        uint32_t info = s->info.v[i];
        if (info != ML_NONE32 && info < t->kernel_info.len) ki = &t->kernel_info.v[info];
        int dev = t->tracks.v[s->track.v[i]].device;
        int gpu = ki ? ki->device : -1;
        if (dev < 0 && gpu >= 0) {
            char id[32];
            snprintf(id, sizeof id, "cuda:%d", gpu);
            dev = ml_device_find(p, id);
        }
        acc *a = NULL;
        for (size_t j = 0; j < accs.len && !a; j++)
            if (accs.v[j].m.device == dev && (dev >= 0 || accs.v[j].m.gpu == gpu)) a = &accs.v[j];
        if (!a) {
            VEC_PUSH(&accs, ((acc){.m = {.device = dev, .gpu = gpu}}));
            a = &accs.v[accs.len - 1];
            if (accs.len == 1) { /* (a rank's trace has one GPU: room for all its kernels at once, not a copy per doubling) */
                ML_SCRATCH_RESERVE(&a->busy, t->kernel_info.len);
                ML_SCRATCH_RESERVE(&a->edges, 2 * t->kernel_info.len);
            }
        }
        int64_t b = s->ts.v[i], e = b + ml_slice_dur(s, i);
        a->m.kernels++;
        a->m.kernel_ns += e - b;
        ml_ranges_push(&a->busy, b, e);
        if (ki && ki->blocks_per_sm > 0 && e > b) {
            VEC_PUSH(&a->edges, ((edge){b, 0, info}));
            VEC_PUSH(&a->edges, ((edge){e, 1, info}));
        }
        int64_t cb = b > sb ? b : sb, ce = e < se ? e : se;
        if (ce > cb) {
            if (ki && ki->occupancy >= 0) {
                a->occ_sum += (double)ki->occupancy * (double)(ce - cb);
                a->occ_time += (double)(ce - cb);
            }
            ml_str nm = s->name.v[i];
            if (nm < nstr && !tc_name[nm]) tc_name[nm] = ml_kernel_uses_tc(ml_s(p, nm)) ? 2 : 1;
            if (nm < nstr && tc_name[nm] == 2) a->tc_time += ce - cb;
            a->k_time += ce - cb;
        }
    }
    free(tc_name);

    uint16_t *order = ml_malloc((p->devices.len ? p->devices.len : 1) * sizeof *order);
    ml_device_order(p, order);
    double span = (double)(se - sb);
    for (size_t j = 0; j < accs.len; j++) {
        acc *a = &accs.v[j];
        a->order = SIZE_MAX;
        for (size_t k = 0; k < p->devices.len; k++)
            if (order[k] == a->m.device) a->order = k;
        ml_ranges_merge(&a->busy);
        a->m.utilization = a->m.sm_efficiency = a->m.occupancy = -1;
        if (se > sb) {
            a->m.utilization = (double)ml_ranges_sum_within(&a->busy, sb, se) / span;
            if (a->edges.len) {
                /* Sweep the starts and ends: the blocks per SM of the kernels
                 * running add up, capped at 1 (a full GPU). */
                sort_edges(a->edges.v, a->edges.len, NULL);
                double level = 0, weighted = 0;
                bool any = false;
                for (size_t k = 0; k + 1 <= a->edges.len; k++) {
                    edge *ed = &a->edges.v[k];
                    double v = t->kernel_info.v[ed->info].blocks_per_sm;
                    level += ed->end ? -v : v;
                    if (k + 1 == a->edges.len) break;
                    int64_t x0 = ed->ts, x1 = a->edges.v[k + 1].ts;
                    if (x1 > x0 && level > 0) {
                        int64_t cb = x0 > sb ? x0 : sb, ce = x1 < se ? x1 : se;
                        if (ce > cb) {
                            weighted += (level < 1 ? level : 1) * (double)(ce - cb);
                            any = true;
                        }
                    }
                }
                if (any) a->m.sm_efficiency = weighted / span;
            }
        }
        if (a->occ_time > 0) a->m.occupancy = a->occ_sum / a->occ_time;
        a->m.tc_share = a->k_time > 0 ? (double)a->tc_time / (double)a->k_time : 0;
        ML_SCRATCH_GIVE_VEC(&a->busy);
        ML_SCRATCH_GIVE_VEC(&a->edges);
    }
    free(order);
    if (accs.len) qsort(accs.v, accs.len, sizeof *accs.v, cmp_acc);
    for (size_t j = 0; j < accs.len; j++) VEC_PUSH(out, accs.v[j].m);
    VEC_FREE(&accs);
}
