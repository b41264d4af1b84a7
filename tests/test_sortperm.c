/* test_sortperm.c — the run sorts of sortperm.h against a stable reference
 * (insertion sort): already sorted input, two runs (the in-place merge from
 * the end), many runs (the scratch merge sort), equal keys (stability). */
#include "check.h"
#include "sortperm.h"

typedef struct item { int key, row; } item;
#define ITEM_LT(ctx, x, y) ((x).key < (y).key)
ML_RUNSORT_INPLACE_DEFINE(sort_items, item, int, ITEM_LT)

static void reference_sort(item *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        item x = v[i];
        size_t j = i;
        for (; j > 0 && x.key < v[j - 1].key; j--) v[j] = v[j - 1];
        v[j] = x;
    }
}

/* n items: `runs` ascending runs of keys in [0, range), rows 0..n-1 */
static void make(item *v, size_t n, int runs, int range, unsigned *seed)
{
    size_t per = (n + (size_t)runs - 1) / (size_t)runs;
    for (size_t i = 0; i < n; i++) v[i] = (item){(int)(rand_r(seed) % (unsigned)range), (int)i};
    for (size_t at = 0; at < n; at += per) reference_sort(v + at, at + per <= n ? per : n - at);
    for (size_t i = 0; i < n; i++) v[i].row = (int)i;
}

TEST(run_sort_in_place_is_the_stable_sort)
{
    unsigned seed = 7;
    size_t sizes[] = {0, 1, 2, 3, 17, 1000};
    int runs[] = {1, 2, 3, 9}, ranges[] = {1, 3, 1000};
    item a[1000], b[1000];
    int cases = 0, bad = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t r = 0; r < sizeof runs / sizeof *runs; r++)
            for (size_t g = 0; g < sizeof ranges / sizeof *ranges; g++)
                for (int rep = 0; rep < 5; rep++) {
                    size_t n = sizes[s];
                    make(a, n, runs[r], ranges[g], &seed);
                    memcpy(b, a, n * sizeof *a);
                    sort_items(a, n, 0);
                    reference_sort(b, n);
                    cases++;
                    if (n && memcmp(a, b, n * sizeof *a)) bad++;
                }
    CHECK_EQ_I64(cases, 6 * 4 * 3 * 5);
    CHECK_EQ_I64(bad, 0);
    /* two runs, written out: the second run's equal keys stay after the first's */
    item two[] = {{1, 0}, {2, 1}, {2, 2}, {5, 3}, {0, 4}, {2, 5}, {6, 6}};
    sort_items(two, 7, 0);
    int rows[] = {4, 0, 1, 2, 5, 3, 6};
    for (int i = 0; i < 7; i++) CHECK_EQ_I64(two[i].row, rows[i]);
}

int main(void)
{
    RUN(run_sort_in_place_is_the_stable_sort);
    return check_report();
}
