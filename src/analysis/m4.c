/*
 * m4.c — builds the min/max pyramid described in m4.h, level by level from
 * the one below: O(n) time, n/(F-1) nodes; and picks from it the points a
 * window of px columns draws (web/src/m4.js m4Select does the same in the
 * page).
 */
#include "m4.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "scratch.h"
#include "search.h"

size_t ml_m4_level_size(size_t n, size_t l)
{
    size_t span = 1;
    for (size_t i = 0; i < l; i++) span *= ML_M4_FAN;
    return (n + span - 1) / span;
}

void ml_m4_build(const int64_t *v, size_t n, ml_m4 *out)
{
    *out = (ml_m4){ .n = n };
    if (n <= 1) return;
    size_t total = 0, levels = 0;
    for (size_t m = n; m > 1; ) {
        m = (m + ML_M4_FAN - 1) / ML_M4_FAN;
        total += m;
        levels++;
    }
    out->levels = levels;
    out->total = total;
    /* (from the thread's scratch pool, where one is open: scratch.h) */
    size_t cap;
    out->argmin = ml_scratch_take(total * sizeof *out->argmin, &cap);
    out->argmax = ml_scratch_take(total * sizeof *out->argmax, &cap);

    /* Level 1 from the points; level l+1 from level l. */
    size_t below = n, at = 0, prev = 0;
    for (size_t l = 1; l <= levels; l++) {
        size_t m = (below + ML_M4_FAN - 1) / ML_M4_FAN;
        for (size_t j = 0; j < m; j++) {
            size_t c0 = j * ML_M4_FAN, c1 = c0 + ML_M4_FAN;
            if (c1 > below) c1 = below;
            uint32_t mn, mx;
            if (l == 1) {
                mn = mx = (uint32_t)c0;
                for (size_t c = c0 + 1; c < c1; c++) {
                    if (v[c] < v[mn]) mn = (uint32_t)c;
                    if (v[c] > v[mx]) mx = (uint32_t)c;
                }
            } else {
                mn = out->argmin[prev + c0];
                mx = out->argmax[prev + c0];
                for (size_t c = c0 + 1; c < c1; c++) {
                    uint32_t a = out->argmin[prev + c], b = out->argmax[prev + c];
                    if (v[a] < v[mn]) mn = a;
                    if (v[b] > v[mx]) mx = b;
                }
            }
            out->argmin[at + j] = mn;
            out->argmax[at + j] = mx;
        }
        prev = at;
        at += m;
        below = m;
    }
}

void ml_m4_free(ml_m4 *m)
{
    ml_scratch_give(m->argmin, m->total * sizeof *m->argmin, m->total * sizeof *m->argmin);
    ml_scratch_give(m->argmax, m->total * sizeof *m->argmax, m->total * sizeof *m->argmax);
    *m = (ml_m4){0};
}

/* ---- selection ----------------------------------------------------------- */

size_t ml_m4_curve_levels(ml_m4_curve *c)
{
    size_t off = 0;
    c->levels = 0;
    for (size_t m = c->n; m > 1 && c->levels < ML_M4_MAX_LEVELS;) {
        m = (m + (size_t)c->fan - 1) / (size_t)c->fan;
        c->lvl_off[c->levels] = off;
        c->lvl_size[c->levels++] = m;
        off += m;
    }
    return off;
}

static void visit(ml_m4_pick *q, size_t l, size_t j)
{
    const ml_m4_curve *c = q->c;
    size_t a = j * q->span[l];
    if (a > q->i1) return;
    size_t b = (a + q->span[l] < c->n ? a + q->span[l] : c->n) - 1;
    if (b < q->i0) return;
    if (l == 0) { VEC_PUSH(&q->out, (uint32_t)a); return; }
    /* A node goes out whole only inside one pixel column, so that every
     * column gets its own first/min/max/last (exact M4). */
    if (a >= q->i0 && b <= q->i1 &&
        floor(((double)c->t[a] - q->t0) / q->dt) == floor(((double)c->t[b] - q->t0) / q->dt)) {
        size_t k = c->lvl_off[l - 1] + j;
        uint32_t p[4] = { (uint32_t)a, c->mn[k], c->mx[k], (uint32_t)b };
        for (int x = 1; x < 4; x++) /* sort 4 */
            for (int y = x; y > 0 && p[y - 1] > p[y]; y--) { uint32_t s = p[y]; p[y] = p[y - 1]; p[y - 1] = s; }
        for (int x = 0; x < 4; x++)
            if (x == 0 || p[x] != p[x - 1]) VEC_PUSH(&q->out, p[x]);
        return;
    }
    size_t c0 = j * (size_t)c->fan, cn = l - 1 == 0 ? c->n : c->lvl_size[l - 2];
    for (size_t ch = c0; ch < c0 + (size_t)c->fan && ch < cn; ch++) visit(q, l - 1, ch);
}

void ml_m4_select(const ml_m4_curve *c, double t0, double t1, int px, ml_m4_pick *q)
{
    memset(q, 0, sizeof *q);
    q->c = c;
    if (!c->n) return;
    q->t0 = t0;
    q->dt = (t1 - t0) / (px > 1 ? px : 1);
    if (!(q->dt > 0)) q->dt = 1e-9;
    size_t lb0 = ml_lower_bound_f(c->t, c->n, t0), lb1 = ml_lower_bound_f(c->t, c->n, t1);
    q->i0 = lb0 ? lb0 - 1 : 0;                  /* the step in force at t0 */
    q->i1 = lb1 < c->n - 1 ? lb1 : c->n - 1;    /* the first point at or after t1 */
    q->span[0] = 1;
    for (size_t l = 1; l <= c->levels; l++) q->span[l] = q->span[l - 1] * (size_t)c->fan;
    if (c->levels == 0) VEC_PUSH(&q->out, 0);
    else visit(q, c->levels, 0);
}

size_t ml_m4_compact(const int64_t *t, const int64_t *const *vs, size_t nv, uint32_t *idx, size_t n, double t0,
                     double dt)
{
    size_t out = 0;
    uint32_t keep[2 + 2 * 16];
    for (size_t a = 0; a < n;) {
        double col = floor(((double)t[idx[a]] - t0) / dt);
        size_t b = a + 1;
        while (b < n && floor(((double)t[idx[b]] - t0) / dt) == col) b++;
        size_t nk = 0;
        keep[nk++] = idx[a];
        keep[nk++] = idx[b - 1];
        for (size_t k = 0; k < nv; k++) {
            uint32_t mn = idx[a], mx = idx[a];
            for (size_t j = a + 1; j < b; j++) {
                if (vs[k][idx[j]] < vs[k][mn]) mn = idx[j];
                if (vs[k][idx[j]] > vs[k][mx]) mx = idx[j];
            }
            keep[nk++] = mn;
            keep[nk++] = mx;
        }
        for (size_t x = 1; x < nk; x++) /* sort the few kept, then drop repeats */
            for (size_t y = x; y > 0 && keep[y - 1] > keep[y]; y--) { uint32_t sw = keep[y]; keep[y] = keep[y - 1]; keep[y - 1] = sw; }
        for (size_t x = 0; x < nk; x++)
            if (!x || keep[x] != keep[x - 1]) idx[out++] = keep[x];
        a = b;
    }
    return out;
}

