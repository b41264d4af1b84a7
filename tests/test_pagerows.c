/* test_pagerows.c — pagerows.h: every way ml_pagerows_append joins two
 * tables (src's buffer taking dst's rows, src's pages moved behind dst's
 * rows at any offset into a page, a plain copy) gives dst's rows then
 * src's, in order; tables grow past the size where they become mappings
 * with their rows kept, and shrink back (to the heap too) with them kept. */
#include "check.h"
#include "pagerows.h"

typedef struct row { uint32_t a, b, c, d, e, f, g; } row; /* 28 bytes: rows straddle pages */
typedef struct { row *v; size_t len, cap; } rows;

static row make_row(uint32_t i) { return (row){i, ~i, i * 3, i ^ 0x5a5a, i + 7, i * 11, i - 1}; }

static void fill(rows *t, uint32_t from, size_t n, size_t reserve)
{
    if (reserve) ML_PAGEROWS_RESERVE(t, reserve);
    for (size_t i = 0; i < n; i++) ML_PAGEROWS_PUSH(t, make_row(from + (uint32_t)i));
}

static int same_rows(const rows *t, size_t n)
{
    if (t->len != n) return 0;
    for (size_t i = 0; i < n; i++) {
        row w = make_row((uint32_t)i);
        if (memcmp(&t->v[i], &w, sizeof w)) return 0;
    }
    return 1;
}

TEST(append_keeps_both_halves_in_order)
{
    /* (n1, n2, src's reserve): small and large, dst longer or shorter, src with room or not */
    size_t cases[][3] = {{0, 0, 0}, {0, 5, 0}, {5, 0, 0}, {3, 4, 0}, {20000, 30000, 0}, {30000, 20000, 0},
                         {20000, 30000, 60000}, {1, 200000, 0}, {200000, 1, 0}, {146, 9000, 0},
                         {9363, 9363, 0}, {100000, 100000, 0}, {12345, 54321, 0}, {0, 100000, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        size_t n1 = cases[k][0], n2 = cases[k][1];
        rows d = {0}, s = {0};
        fill(&d, 0, n1, 0);
        fill(&s, (uint32_t)n1, n2, cases[k][2]);
        ML_PAGEROWS_APPEND(&d, &s);
        CHECK(same_rows(&d, n1 + n2));
        CHECK(s.v == NULL && s.len == 0 && s.cap == 0);
        CHECK(d.cap >= d.len);
        /* and the joined table goes on growing */
        size_t n = d.len;
        fill(&d, (uint32_t)n, 70000, 0);
        CHECK(same_rows(&d, n + 70000));
        ML_PAGEROWS_FREE(&d);
    }
}

TEST(shrink_keeps_the_rows)
{
    /* from pages to fewer pages (a joined table: several mappings), to the heap, within the heap */
    size_t lens[] = {50000, 20000, 9000, 5000, 100, 1};
    rows d = {0}, s = {0};
    fill(&d, 0, 30000, 0);
    fill(&s, 30000, 40000, 0);
    ML_PAGEROWS_APPEND(&d, &s);
    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
        d.len = lens[k];
        ML_PAGEROWS_SHRINK(&d);
        CHECK(d.cap == lens[k]);
        CHECK(same_rows(&d, lens[k]));
    }
    fill(&d, 1, 80000, 0); /* and it grows again from there */
    CHECK(same_rows(&d, 80001));
    ML_PAGEROWS_FREE(&d);
}

int main(void)
{
    RUN(append_keeps_both_halves_in_order);
    RUN(shrink_keeps_the_rows);
    return check_report();
}
