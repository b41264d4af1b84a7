/*
 * membw.c — memory bandwidth per kind of copy (membw.h): the copies' starts
 * and ends per kind, sorted (ends first at one time), summed in one pass.
 */
#include "membw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sortperm.h"

typedef struct edge {
    int64_t t;
    double gbps;            /* + at a start, - at an end */
    uint8_t kind;
    uint8_t up;             /* 1 start, 0 end: ends first */
} edge;

#define EDGE_LT(ctx, x, y) \
    ((x).kind < (y).kind || ((x).kind == (y).kind && ((x).t < (y).t || ((x).t == (y).t && (x).up < (y).up))))
ML_RUNSORT_INPLACE_DEFINE(sort_edges, edge, void *, EDGE_LT)

/* HTA's get_memory_kernel_type() */
static void kind_of(const char *name, char kind[16])
{
    if (!strncmp(name, "Memset", 6)) snprintf(kind, 16, "Memset");
    else if (strncmp(name, "Memcpy", 6)) snprintf(kind, 16, "Memcpy Unknown");
    else snprintf(kind, 16, "%.11s", name);
}

static int by_kind(const void *a, const void *b) { return strcmp(((const ml_membw *)a)->kind, ((const ml_membw *)b)->kind); }

void ml_membw_compute(const ml_profile *p, const ml_gpu_timeline *tl, ml_membws *out)
{
    out->len = 0;
    const ml_trace *t = p->trace;
    if (!t) return;
    const ml_slices *s = &t->slices;
    VEC(ml_membw) kinds = {0};
    VEC(edge) edges = {0};
    ml_str last_name = 0;
    uint8_t last_kind = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const ml_gpu_event *e = &tl->ev[i];
        if (e->type != ML_KT_MEMORY) continue;
        ml_str nm = s->name.v[e->slice];
        if (!edges.len || nm != last_name) { /* copies come in runs of one name */
            char kind[16];
            kind_of(ml_s(p, nm), kind);
            size_t k = 0;
            while (k < kinds.len && strcmp(kinds.v[k].kind, kind)) k++;
            if (k == kinds.len) {
                if (kinds.len == UINT8_MAX) continue; /* no real trace has 255 kinds */
                ml_membw row = {0};
                memcpy(row.kind, kind, sizeof kind);
                VEC_PUSH(&kinds, row);
            }
            last_name = nm;
            last_kind = (uint8_t)k;
        }
        uint32_t info = s->info.v[e->slice];
        double gbps = info != ML_NONE32 && info < t->kernel_info.len ? t->kernel_info.v[info].membw : 0;
        int64_t dur = e->end - e->start;
        if (dur <= 0) dur = 1000; /* HTA's fix for 0 µs copies (its issue #20): 1 µs */
        VEC_PUSH(&edges, ((edge){e->start, gbps, last_kind, 1}));
        VEC_PUSH(&edges, ((edge){e->start + dur, -gbps, last_kind, 0}));
    }
    sort_edges(edges.v, edges.len, NULL);
    for (size_t i = 0; i < edges.len;) {
        ml_membw *row = &kinds.v[edges.v[i].kind];
        size_t j = i;
        while (j < edges.len && edges.v[j].kind == edges.v[i].kind) j++;
        row->t = ml_malloc((j - i) * sizeof *row->t);
        row->gbps = ml_malloc((j - i) * sizeof *row->gbps);
        double level = 0;
        for (; i < j; i++) {
            level += edges.v[i].gbps;
            if (level > row->max) row->max = level; /* HTA: the points above 0 */
            row->t[row->n] = edges.v[i].t;
            row->gbps[row->n] = level > 0 ? level : 0; /* -1e-13 after a sum of floats is 0 */
            row->n++;
        }
    }
    VEC_FREE(&edges);
    for (size_t k = 0; k < kinds.len; k++) {
        if (kinds.v[k].max > 0) VEC_PUSH(out, kinds.v[k]);
        else {
            free(kinds.v[k].t);
            free(kinds.v[k].gbps);
        }
    }
    VEC_FREE(&kinds);
    if (out->len > 1) qsort(out->v, out->len, sizeof *out->v, by_kind);
}

void ml_membw_free(ml_membws *m)
{
    for (size_t i = 0; i < m->len; i++) {
        free(m->v[i].t);
        free(m->v[i].gbps);
    }
    VEC_FREE(m);
}
