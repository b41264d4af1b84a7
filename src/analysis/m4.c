/*
 * m4.c — builds the min/max pyramid described in m4.h, level by level from
 * the one below: O(n) time, n/(F-1) nodes.
 */
#include "m4.h"

#include <stdlib.h>

#include "err.h"

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
    out->argmin = ml_malloc(total * sizeof *out->argmin);
    out->argmax = ml_malloc(total * sizeof *out->argmax);

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
    free(m->argmin);
    free(m->argmax);
    *m = (ml_m4){0};
}
