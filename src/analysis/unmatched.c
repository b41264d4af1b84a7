/* unmatched.c — memory events by top-level operator for traces without addresses; see unmatched.h. */
#include <stdlib.h>
#include <string.h>

#include "unmatched.h"

bool ml_unmatched_applies(const ml_profile *p, uint16_t device)
{
    if (p->has_addresses) return false;
    for (size_t i = 0; i < p->allocs.device.len; i++)
        if (p->allocs.device.v[i] == device) return false;
    const ml_events *ev = &p->events;
    for (size_t i = 0; i < ev->kind.len; i++)
        if (ev->device.v[i] == device && (ev->kind.v[i] == ML_EV_ALLOC || ev->kind.v[i] == ML_EV_FREE)) return true;
    return false;
}

typedef struct span { int64_t t0, t1; ml_str name; uint32_t thread; } span;

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->t0 != y->t0) return x->t0 < y->t0 ? -1 : 1;
    if (x->t1 != y->t1) return x->t1 > y->t1 ? -1 : 1; /* the outer one first */
    return 0;
}

static int row_cmp(const void *a, const void *b)
{
    const ml_unmatched_row *x = a, *y = b;
    if (x->net_at != y->net_at) return x->net_at > y->net_at ? -1 : 1;
    if (x->alloc_bytes != y->alloc_bytes) return x->alloc_bytes > y->alloc_bytes ? -1 : 1;
    return x->op < y->op ? -1 : x->op > y->op;
}

void ml_unmatched_by_op(const ml_profile *p, uint16_t device, int64_t at, ml_unmatched *out)
{
    memset(out, 0, sizeof *out);
    /* Top-level cpu ops per thread: those no earlier op of the thread contains. */
    const ml_ops *ops = &p->ops;
    span *sp = ml_malloc((ops->ts.len ? ops->ts.len : 1) * sizeof *sp);
    size_t ns = 0;
    for (size_t i = 0; i < ops->ts.len; i++)
        if (ops->kind.v[i] == ML_OP_CPU)
            sp[ns++] = (span){ops->ts.v[i], ml_add_sat(ops->ts.v[i], ops->dur.v[i]), ops->name.v[i], ops->thread.v[i]};
    qsort(sp, ns, sizeof *sp, span_cmp);
    size_t nt = 0;
    for (size_t i = 0; i < ns; i++) {
        if (nt && sp[nt - 1].thread == sp[i].thread && sp[i].t0 < sp[nt - 1].t1) continue; /* inside the last top */
        sp[nt++] = sp[i];
    }
    size_t nstr = ml_strpool_count(p->strings);
    uint32_t *row_of = ml_malloc((nstr + 1) * sizeof *row_of);
    memset(row_of, 0xff, (nstr + 1) * sizeof *row_of);
    VEC(ml_unmatched_row) rows = {0};
    const ml_events *ev = &p->events;
    for (size_t i = 0; i < ev->kind.len; i++) {
        int k = ev->kind.v[i];
        if (ev->device.v[i] != device || (k != ML_EV_ALLOC && k != ML_EV_FREE)) continue;
        int64_t t = ev->ts.v[i];
        uint32_t th = ev->thread.v[i];
        /* the last top-level span of this thread starting at or before t */
        size_t lo = 0, hi = nt;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (sp[mid].thread < th || (sp[mid].thread == th && sp[mid].t0 <= t)) lo = mid + 1;
            else hi = mid;
        }
        ml_str op = 0;
        if (lo > 0 && sp[lo - 1].thread == th && t < sp[lo - 1].t1) op = sp[lo - 1].name;
        uint32_t key = op < nstr ? op : 0;
        if (row_of[key] == ML_NONE32) {
            row_of[key] = (uint32_t)rows.len;
            ml_unmatched_row r = {.op = key};
            VEC_PUSH(&rows, r);
        }
        ml_unmatched_row *r = &rows.v[row_of[key]];
        int64_t b = ev->size.v[i];
        if (k == ML_EV_ALLOC) {
            r->allocs++;
            r->alloc_bytes = ml_add_sat(r->alloc_bytes, b);
            out->allocs++;
        } else {
            r->frees++;
            r->free_bytes = ml_add_sat(r->free_bytes, b);
            out->frees++;
        }
        if (t <= at) r->net_at = ml_add_sat(r->net_at, k == ML_EV_ALLOC ? b : -b);
    }
    qsort(rows.v, rows.len, sizeof *rows.v, row_cmp);
    out->rows = rows.v;
    out->n = rows.len;
    free(row_of);
    free(sp);
}

void ml_unmatched_free(ml_unmatched *u)
{
    free(u->rows);
    memset(u, 0, sizeof *u);
}
