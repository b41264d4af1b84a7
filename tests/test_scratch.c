/* test_scratch.c — the thread's scratch pool (scratch.h): a buffer given
 * back is the next take that fits, with no pool open take and give are the
 * heap's, and pools nest: an inner pool opened and closed (an analysis run
 * inline, inside a caller with one open) leaves the caller's pool open,
 * with what it held. */
#include "check.h"
#include "scratch.h"

#include <stdlib.h>
#include <string.h>

TEST(a_buffer_given_back_is_the_next_take_that_fits)
{
    ml_bufpool pool = {0};
    ml_scratch_open(&pool);
    size_t cap;
    char *a = ml_scratch_take(1 << 20, &cap);
    CHECK(cap >= 1 << 20);
    memset(a, 1, 1 << 20);
    ml_scratch_give(a, cap, 1 << 20);
    CHECK_EQ_I64(pool.n, 1);
    size_t cap2;
    char *b = ml_scratch_take(1 << 19, &cap2);
    CHECK(b == a);
    CHECK_EQ_I64(pool.n, 0);
    ml_scratch_give(b, cap2, 1 << 19);
    /* without a capacity kept: the block given back with the size asked for */
    char *c = ml_scratch_alloc(1 << 19);
    CHECK(c == a);
    ml_scratch_free(c, 1 << 19);
    CHECK_EQ_I64(pool.n, 1);
    char *z = ml_scratch_alloc(0); /* (0: a block of 1, not NULL) */
    CHECK(z != NULL);
    ml_scratch_free(z, 0);
    ml_scratch_close();
    CHECK_EQ_I64(pool.n, 0); /* (freed at the close) */
}

TEST(with_no_pool_open_take_and_give_are_the_heap)
{
    size_t cap;
    char *a = ml_scratch_take(4096, &cap);
    CHECK(cap >= 4096);
    memset(a, 2, 4096);
    ml_scratch_give(a, cap, 4096); /* (freed: valgrind and ASan would see a leak) */
    char *z = ml_scratch_take_zero(100, &cap);
    int zero = 1;
    for (int i = 0; i < 100; i++) zero &= z[i] == 0;
    CHECK(zero);
    free(z); /* (a buffer taken is plain heap memory) */
}

TEST(pools_nest_the_inner_close_gives_back_the_outer)
{
    ml_bufpool outer = {0}, inner = {0};
    ml_scratch_open(&outer);
    size_t cap;
    char *kept = ml_scratch_take(1 << 20, &cap);
    ml_scratch_give(kept, cap, 1 << 20);
    CHECK_EQ_I64(outer.n, 1);

    ml_scratch_open(&inner); /* (as ml_par_start() running a job inline) */
    size_t icap;
    char *t = ml_scratch_take(1 << 18, &icap);
    CHECK(t != kept); /* the inner pool is empty: the outer's buffer is not its */
    ml_scratch_give(t, icap, 1 << 18);
    CHECK_EQ_I64(inner.n, 1);
    ml_scratch_close();
    CHECK_EQ_I64(inner.n, 0);

    /* the outer pool is the thread's again, with what it held */
    CHECK_EQ_I64(outer.n, 1);
    char *again = ml_scratch_take(1 << 19, &cap);
    CHECK(again == kept);
    ml_scratch_give(again, cap, 1 << 19);
    ml_scratch_close();
    CHECK_EQ_I64(outer.n, 0);

    /* and then none is open */
    char *h = ml_scratch_take(64, &cap);
    ml_scratch_give(h, cap, 64);
    CHECK_EQ_I64(outer.n, 0);
}

int main(void)
{
    RUN(a_buffer_given_back_is_the_next_take_that_fits);
    RUN(with_no_pool_open_take_and_give_are_the_heap);
    RUN(pools_nest_the_inner_close_gives_back_the_outer);
    return check_report();
}
