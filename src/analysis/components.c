/* components.c — per-component curves and live sets of lifetimes; see components.h. */
#include "components.h"

#include <stdlib.h>
#include <string.h>

const ml_series *ml_series_find(const ml_profile *p, uint16_t device, ml_series_kind kind,
                                const char *comp, ml_str stream)
{
    for (size_t i = 0; i < p->series.len; i++) {
        const ml_series *s = &p->series.v[i];
        if (s->device != device || s->kind != kind || s->stream != stream) continue;
        if (strcmp(ml_s(p, s->component), comp ? comp : "") == 0) return s;
    }
    return NULL;
}

bool ml_series_peak(const ml_series *s, int64_t *peak, int64_t *t_peak)
{
    if (!s || s->value.len == 0) return false;
    size_t best = 0;
    for (size_t i = 1; i < s->value.len; i++)
        if (s->value.v[i] > s->value.v[best]) best = i;
    *peak = s->value.v[best];
    *t_peak = s->ts.v[best];
    return true;
}

ml_str ml_headline_component(const ml_profile *p, uint16_t device)
{
    static const char *prefer[] = {"PTA+GE", "PTA"};
    for (size_t k = 0; k < 2; k++) {
        const ml_series *s = ml_series_find(p, device, ML_SERIES_ALLOCATED, prefer[k], 0);
        if (s && s->ts.len) return s->component;
    }
    for (size_t i = 0; i < p->series.len; i++) {
        const ml_series *s = &p->series.v[i];
        if (s->device == device && s->kind == ML_SERIES_ALLOCATED && s->component && s->stream == 0 &&
            s->ts.len)
            return s->component;
    }
    return 0;
}

static int cmp_group(const void *a, const void *b)
{
    const ml_live_group *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

size_t ml_live_at(const ml_profile *p, uint16_t device, int64_t t, bool by_top, ml_live_group **out,
                  int64_t *total)
{
    const ml_allocs *a = &p->allocs;
    size_t n = a->t_alloc.len, ngroups = 0;
    /* Group by interned id: a dense index over the string pool keeps it linear. */
    size_t nstr = ml_strpool_count(p->strings);
    uint32_t *slot = ml_calloc(nstr ? nstr : 1, sizeof *slot); /* name -> group + 1 */
    ml_live_group *g = ml_malloc(sizeof *g * (n ? n : 1));
    *total = 0;
    for (size_t i = 0; i < n; i++) {
        if (a->device.v[i] != device) continue;
        int64_t ta = a->t_alloc.v[i], tf = a->t_free.v[i];
        if (!(ta == ML_TIME_NONE || ta <= t) || !(tf == ML_TIME_END || t < tf)) continue;
        ml_str name = by_top ? a->op_top.v[i] : a->op.v[i];
        if (!slot[name]) {
            g[ngroups] = (ml_live_group){name, 0, 0};
            slot[name] = (uint32_t)++ngroups;
        }
        g[slot[name] - 1].bytes += a->size.v[i];
        g[slot[name] - 1].count++;
        *total += a->size.v[i];
    }
    free(slot);
    qsort(g, ngroups, sizeof *g, cmp_group);
    *out = g;
    return ngroups;
}

typedef struct { int64_t t, delta; } step;

static int cmp_step(const void *a, const void *b)
{
    const step *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    /* frees (negative) first at equal times: intervals are half-open */
    return (x->delta > y->delta) - (x->delta < y->delta);
}

bool ml_allocs_peak(const ml_profile *p, uint16_t device, ml_str top, int64_t *peak, int64_t *t_peak)
{
    const ml_allocs *a = &p->allocs;
    size_t n = a->t_alloc.len, k = 0;
    step *st = ml_malloc(sizeof *st * 2 * (n ? n : 1));
    for (size_t i = 0; i < n; i++) {
        if (a->device.v[i] != device || (top && a->op_top.v[i] != top)) continue;
        st[k++] = (step){a->t_alloc.v[i] == ML_TIME_NONE ? INT64_MIN : a->t_alloc.v[i], a->size.v[i]};
        if (a->t_free.v[i] != ML_TIME_END) st[k++] = (step){a->t_free.v[i], -a->size.v[i]};
    }
    if (k == 0) {
        free(st);
        return false;
    }
    qsort(st, k, sizeof *st, cmp_step);
    int64_t live = 0;
    *peak = INT64_MIN;
    for (size_t i = 0; i < k; i++) {
        live += st[i].delta;
        /* the value at time t is the one after every step at t */
        if (i + 1 < k && st[i + 1].t == st[i].t) continue;
        if (live > *peak) {
            *peak = live;
            *t_peak = st[i].t;
        }
    }
    free(st);
    return true;
}

void ml_unreleased(const ml_profile *p, uint16_t device, int64_t *count, int64_t *bytes)
{
    const ml_allocs *a = &p->allocs;
    *count = *bytes = 0;
    for (size_t i = 0; i < a->t_alloc.len; i++)
        if (a->device.v[i] == device && a->t_free.v[i] == ML_TIME_END) {
            (*count)++;
            *bytes += a->size.v[i];
        }
}
