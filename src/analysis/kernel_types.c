/*
 * kernel_types.c — time by combination of kernel types (kernel_types.h):
 * each type's events merged in one pass over the timeline, then a sweep
 * over the three lists of busy intervals at once.
 */
#include "kernel_types.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scratch.h"
#include "vec.h"

const char *ml_kernel_mask_name(unsigned mask)
{
    static const char *const names[ML_KT_MASKS] = {
        "",
        "COMPUTATION",
        "COMMUNICATION",
        "COMPUTATION overlapping COMMUNICATION",
        "MEMORY",
        "COMPUTATION overlapping MEMORY",
        "COMMUNICATION overlapping MEMORY",
        "COMPUTATION overlapping COMMUNICATION overlapping MEMORY",
    };
    return mask < ML_KT_MASKS ? names[mask] : "";
}

typedef struct span {
    int64_t b, e;
} span;

typedef VEC(span) spans;

/* The sweep's next boundary of one type: its current interval's start, or
 * its end once inside. */
typedef struct cursor {
    const spans *l;
    size_t i;
    int inside;
} cursor;

static bool next_time(const cursor *c, int64_t *t)
{
    if (c->i >= c->l->len) return false;
    *t = c->inside ? c->l->v[c->i].e : c->l->v[c->i].b;
    return true;
}

void ml_kernel_types_compute(const ml_gpu_timeline *tl, ml_kernel_types *out)
{
    memset(out, 0, sizeof *out);
    out->comm_comp_overlap = NAN;
    spans busy[3] = {{0}, {0}, {0}};
    ml_gpu_merge m[3] = {{0}, {0}, {0}};
    int64_t gs, ge;
    ML_SCRATCH_RESERVE(&busy[ML_KT_COMPUTATION], tl->n); /* (most GPU time is compute's: room at once, no copy per doubling) */
    for (size_t i = 0; i < tl->n; i++) {
        const ml_gpu_event *e = &tl->ev[i];
        if (e->type >= 3) continue;
        if (ml_gpu_merge_add(&m[e->type], e->start, e->end, &gs, &ge)) VEC_PUSH(&busy[e->type], ((span){gs, ge}));
    }
    for (int k = 0; k < 3; k++) {
        if (ml_gpu_merge_end(&m[k], &gs, &ge)) VEC_PUSH(&busy[k], ((span){gs, ge}));
        if (k == ML_KT_COMMUNICATION)
            for (size_t j = 0; j < busy[k].len; j++) out->comm_ns += busy[k].v[j].e - busy[k].v[j].b;
        /* an interval that ends where it starts, or before (under a µs), adds no time to the sweep */
        size_t w = 0;
        for (size_t j = 0; j < busy[k].len; j++)
            if (busy[k].v[j].e > busy[k].v[j].b) busy[k].v[w++] = busy[k].v[j];
        busy[k].len = w;
    }
    /* Sweep: at each boundary (ends before starts at one time), the time
     * since the previous one goes to the types busy over it. */
    cursor c[3] = {{&busy[0], 0, 0}, {&busy[1], 0, 0}, {&busy[2], 0, 0}};
    unsigned mask = 0;
    int64_t prev = 0;
    for (;;) {
        int pick = -1;
        int64_t best = 0;
        for (int k = 0; k < 3; k++) {
            int64_t t;
            if (!next_time(&c[k], &t)) continue;
            if (pick < 0 || t < best || (t == best && c[k].inside && !c[pick].inside)) pick = k, best = t;
        }
        if (pick < 0) break;
        if (mask) out->ns[mask] += best - prev;
        prev = best;
        if (c[pick].inside) {
            mask &= ~(1u << pick);
            c[pick].inside = 0;
            c[pick].i++;
        } else {
            mask |= 1u << pick;
            c[pick].inside = 1;
        }
    }
    for (int k = 0; k < 3; k++) ML_SCRATCH_GIVE_VEC(&busy[k]);
    if (out->comm_ns > 0) out->comm_comp_overlap = (double)(out->ns[3] + out->ns[7]) / (double)out->comm_ns;
}
