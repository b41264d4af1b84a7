/* sortperm.c — see sortperm.h. */
#include "sortperm.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

uint32_t *ml_sort_perm_i64(const int64_t *keys, size_t n)
{
    size_t i = 1;
    while (i < n && keys[i - 1] <= keys[i]) i++;
    if (i >= n) return NULL;

    uint32_t *a = ml_malloc(n * sizeof *a), *b = ml_malloc(n * sizeof *b);
    for (size_t k = 0; k < n; k++) a[k] = (uint32_t)k;
    /* Bottom-up merge passes over natural runs. */
    size_t *runs = ml_malloc((n + 1) * sizeof *runs), nruns = 0;
    runs[nruns++] = 0;
    for (size_t k = 1; k < n; k++)
        if (keys[k - 1] > keys[k]) runs[nruns++] = k;
    runs[nruns] = n;
    while (nruns > 1) {
        size_t w = 0;
        for (size_t r = 0; r < nruns; r += 2) {
            /* runs[nruns] == n is a sentinel, so an odd last run merges with nothing. */
            size_t lo = runs[r], mid = runs[r + 1], hi = r + 2 <= nruns ? runs[r + 2] : n;
            size_t x = lo, y = mid, o = lo;
            while (x < mid && y < hi) b[o++] = keys[a[y]] < keys[a[x]] ? a[y++] : a[x++];
            while (x < mid) b[o++] = a[x++];
            while (y < hi) b[o++] = a[y++];
            runs[w++] = lo;
        }
        runs[w] = n;
        nruns = w;
        uint32_t *t = a;
        a = b;
        b = t;
    }
    free(runs);
    free(b);
    return a;
}

void ml_permute(void *col, size_t elem_size, const uint32_t *perm, size_t n)
{
    if (!perm || n == 0) return;
    unsigned char *src = col, *tmp = ml_malloc(n * elem_size);
    switch (elem_size) {
    case 8: for (size_t i = 0; i < n; i++) memcpy(tmp + i * 8, src + (size_t)perm[i] * 8, 8); break;
    case 4: for (size_t i = 0; i < n; i++) memcpy(tmp + i * 4, src + (size_t)perm[i] * 4, 4); break;
    case 2: for (size_t i = 0; i < n; i++) memcpy(tmp + i * 2, src + (size_t)perm[i] * 2, 2); break;
    default:
        for (size_t i = 0; i < n; i++) memcpy(tmp + i * elem_size, src + (size_t)perm[i] * elem_size, elem_size);
    }
    memcpy(col, tmp, n * elem_size);
    free(tmp);
}
