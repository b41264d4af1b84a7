/* sortperm.c — see sortperm.h. */
#include "sortperm.h"
#include "err.h"
#include "par.h"

#include <stdbool.h>
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

/* col'[i] = col[perm[i]] through tmp (n * elem_size bytes). */
static void permute_via(void *col, size_t elem_size, const uint32_t *perm, size_t n, unsigned char *tmp)
{
    unsigned char *src = col;
    switch (elem_size) {
    case 8: for (size_t i = 0; i < n; i++) memcpy(tmp + i * 8, src + (size_t)perm[i] * 8, 8); break;
    case 4: for (size_t i = 0; i < n; i++) memcpy(tmp + i * 4, src + (size_t)perm[i] * 4, 4); break;
    case 2: for (size_t i = 0; i < n; i++) memcpy(tmp + i * 2, src + (size_t)perm[i] * 2, 2); break;
    default:
        for (size_t i = 0; i < n; i++) memcpy(tmp + i * elem_size, src + (size_t)perm[i] * elem_size, elem_size);
    }
    memcpy(col, tmp, n * elem_size);
}

void ml_permute(void *col, size_t elem_size, const uint32_t *perm, size_t n)
{
    if (!perm || n == 0) return;
    unsigned char *tmp = ml_malloc(n * elem_size);
    permute_via(col, elem_size, perm, n, tmp);
    free(tmp);
}

typedef struct permute_job {
    const ml_colref *cols;
    size_t ncols;
    const bool *mine;       /* which columns this job reorders */
    bool which;
    const uint32_t *perm;
    size_t n;
} permute_job;

static void permute_some(void *arg)
{
    const permute_job *j = arg;
    size_t widest = 0;
    for (size_t c = 0; c < j->ncols; c++)
        if (j->mine[c] == j->which && j->cols[c].elem_size > widest) widest = j->cols[c].elem_size;
    if (!widest) return;
    unsigned char *tmp = ml_malloc(j->n * widest);
    for (size_t c = 0; c < j->ncols; c++)
        if (j->mine[c] == j->which) permute_via(j->cols[c].v, j->cols[c].elem_size, j->perm, j->n, tmp);
    free(tmp);
}

void ml_permute_cols(const ml_colref *cols, size_t ncols, const uint32_t *perm, size_t n)
{
    if (!perm || n == 0 || ncols == 0) return;
    /* Widest first, each to the side with fewer bytes so far. */
    bool *side = ml_calloc(ncols, sizeof *side), *placed = ml_calloc(ncols, sizeof *placed);
    size_t bytes[2] = {0, 0};
    for (size_t k = 0; k < ncols; k++) {
        size_t best = ncols;
        for (size_t c = 0; c < ncols; c++)
            if (!placed[c] && (best == ncols || cols[c].elem_size > cols[best].elem_size)) best = c;
        placed[best] = true;
        side[best] = bytes[1] < bytes[0];
        bytes[side[best]] += cols[best].elem_size;
    }
    permute_job a = {cols, ncols, side, false, perm, n}, b = {cols, ncols, side, true, perm, n};
    ml_par2(permute_some, &a, permute_some, &b);
    free(side);
    free(placed);
}
