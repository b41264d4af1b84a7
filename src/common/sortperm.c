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

/* The two threads' shares of ncols columns of these widths: widest first,
 * each to the side with fewer bytes so far (side[c]: the second thread's). */
static bool *split_by_width(const size_t *width, size_t ncols)
{
    bool *side = ml_calloc(ncols ? ncols : 1, sizeof *side), *placed = ml_calloc(ncols ? ncols : 1, sizeof *placed);
    size_t bytes[2] = {0, 0};
    for (size_t k = 0; k < ncols; k++) {
        size_t best = ncols;
        for (size_t c = 0; c < ncols; c++)
            if (!placed[c] && (best == ncols || width[c] > width[best])) best = c;
        placed[best] = true;
        side[best] = bytes[1] < bytes[0];
        bytes[side[best]] += width[best];
    }
    free(placed);
    return side;
}

void ml_permute_cols(const ml_colref *cols, size_t ncols, const uint32_t *perm, size_t n)
{
    if (!perm || n == 0 || ncols == 0) return;
    size_t *width = ml_malloc(ncols * sizeof *width);
    for (size_t c = 0; c < ncols; c++) width[c] = cols[c].elem_size;
    bool *side = split_by_width(width, ncols);
    free(width);
    permute_job a = {cols, ncols, side, false, perm, n}, b = {cols, ncols, side, true, perm, n};
    ml_par2(permute_some, &a, permute_some, &b);
    free(side);
}

/* ---- two-part scatters ---- */

/* out[dest[i]] = src[i] for i < n, elements of E bytes: four a turn (the
 * loop's own count and test are most of a one-element turn). */
#define SCATTER(T)                                                                                 \
    do {                                                                                           \
        T *o_ = (T *)(void *)out;                                                                  \
        const T *s_ = (const T *)(const void *)src;                                                \
        size_t i_ = 0;                                                                             \
        for (; i_ + 4 <= n; i_ += 4) {                                                             \
            uint32_t d0 = dest[i_], d1 = dest[i_ + 1], d2 = dest[i_ + 2], d3 = dest[i_ + 3];       \
            T v0 = s_[i_], v1 = s_[i_ + 1], v2 = s_[i_ + 2], v3 = s_[i_ + 3];                      \
            o_[d0] = v0, o_[d1] = v1, o_[d2] = v2, o_[d3] = v3;                                    \
        }                                                                                          \
        for (; i_ < n; i_++) o_[dest[i_]] = s_[i_];                                                \
    } while (0)

static void scatter_part(unsigned char *out, const unsigned char *src, const uint32_t *dest, size_t n, size_t e)
{
    switch (e) {
    case 8: SCATTER(uint64_t); break;
    case 4: SCATTER(uint32_t); break;
    case 2: SCATTER(uint16_t); break;
    case 1: SCATTER(uint8_t); break;
    default:
        for (size_t i = 0; i < n; i++) memcpy(out + (size_t)dest[i] * e, src + i * e, e);
    }
}
#undef SCATTER

/* Scatters column c into out (cap bytes) if given, else into a buffer of the pool. */
static void scatter_col(ml_colparts *c, const uint32_t *const *dest, size_t n, ml_bufpool *pool, void *out_given,
                        size_t cap_given)
{
    size_t e = c->elem_size, cap = cap_given;
    unsigned char *out = out_given ? out_given : ml_pool_take(pool, n * e, &cap);
    for (int k = 0; k < 2; k++)
        if (c->part[k]) scatter_part(out, c->part[k], dest[k], c->len[k], e);
    for (int k = 0; k < 2; k++) ml_pool_give(pool, c->part[k], c->cap[k] * e, c->len[k] * e);
    c->part[0] = c->part[1] = NULL;
    c->out = out;
    c->out_cap = cap / e;
}

typedef struct scatter_job {
    ml_colparts *cols;
    size_t ncols;
    const bool *side;
    bool which;
    const uint32_t *const *dest;
    size_t n;
    ml_bufpool *pool;
    size_t first;           /* the side's first column (ncols: none), and the buffer taken for it */
    void *first_out;
    size_t first_cap;
} scatter_job;

/* This side's widest column not moved yet (ncols: none left). */
static size_t next_col(const scatter_job *j)
{
    size_t best = j->ncols;
    for (size_t c = 0; c < j->ncols; c++)
        if (j->side[c] == j->which && !j->cols[c].out &&
            (best == j->ncols || j->cols[c].elem_size > j->cols[best].elem_size))
            best = c;
    return best;
}

/* This side's columns, widest first: each goes into a buffer that a wider
 * (or as wide) column left. */
static void scatter_some(void *arg)
{
    const scatter_job *j = arg;
    if (j->first < j->ncols) scatter_col(&j->cols[j->first], j->dest, j->n, j->pool, j->first_out, j->first_cap);
    for (size_t c; (c = next_col(j)) < j->ncols;) scatter_col(&j->cols[c], j->dest, j->n, j->pool, NULL, 0);
}

void ml_scatter_cols(ml_colparts *cols, size_t ncols, const uint32_t *const *dest, size_t n, ml_bufpool *pool)
{
    size_t *width = ml_malloc((ncols ? ncols : 1) * sizeof *width);
    for (size_t c = 0; c < ncols; c++) width[c] = cols[c].elem_size, cols[c].out = NULL;
    bool *side = split_by_width(width, ncols);
    free(width);
    ml_bufpool other = {0};
    scatter_job a = {cols, ncols, side, false, dest, n, pool, ncols, NULL, 0}, b = a;
    b.which = true, b.pool = &other;
    /* Each side's first column takes its buffer from the pool before either
     * starts, the wider first: the second thread's pool is empty until its
     * first column is moved (a buffer the pool holds, such as the sort's
     * permutation, would otherwise go only to the first thread's columns,
     * and the second's first be all fresh pages). */
    a.first = next_col(&a), b.first = next_col(&b);
    scatter_job *wide = &a, *narrow = &b;
    if (b.first < ncols && (a.first == ncols || cols[b.first].elem_size > cols[a.first].elem_size))
        wide = &b, narrow = &a;
    for (scatter_job *j = wide; j; j = j == wide ? narrow : NULL)
        if (j->first < ncols) j->first_out = ml_pool_take(pool, n * cols[j->first].elem_size, &j->first_cap);
    ml_par2(scatter_some, &a, scatter_some, &b);
    for (size_t k = 0; k < other.n; k++) ml_pool_give(pool, other.b[k].v, other.b[k].cap, other.b[k].used);
    free(side);
}
