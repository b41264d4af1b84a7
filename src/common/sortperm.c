/* sortperm.c — see sortperm.h. */
#include "sortperm.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

#define KEY_LT(keys, x, y) ((keys)[x] < (keys)[y])
ML_RUNSORT_DEFINE(perm_sort, uint32_t, const int64_t *, KEY_LT)

uint32_t *ml_sort_perm_i64(const int64_t *keys, size_t n)
{
    size_t i = 1;
    while (i < n && keys[i - 1] <= keys[i]) i++;
    if (i >= n) return NULL;

    uint32_t *a = ml_malloc(n * sizeof *a), *b = ml_malloc(n * sizeof *b);
    for (size_t k = 0; k < n; k++) a[k] = (uint32_t)k;
    uint32_t *sorted = perm_sort(a, b, n, keys);
    free(sorted == a ? b : a);
    return sorted;
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
