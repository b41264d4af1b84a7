/* test_freeorder.c — freeorder.h's places against a stable counting sort
 * by event (the frees without an event last, in the order added): events
 * each freed once (the bits), and one freed twice (the counts' fallback),
 * with a scratch pool open and without. */
#include <stdlib.h>

#include "check.h"
#include "freeorder.h"
#include "scratch.h"

#define N_EV 1000

/* The reference: a stable sort of the frees by event (none = N_EV, last). */
static void reference(const uint32_t *ev, size_t n, size_t *place)
{
    size_t at = 0;
    for (uint32_t e = 0; e <= N_EV; e++)
        for (size_t i = 0; i < n; i++)
            if ((ev[i] < N_EV ? ev[i] : N_EV) == e) place[i] = at++;
}

static void check_places(const uint32_t *ev, size_t n)
{
    size_t want[64], got[64];
    reference(ev, n, want);
    ml_free_order o;
    ml_free_order_init(&o, N_EV);
    for (size_t i = 0; i < n; i++) ml_free_order_add(&o, ev[i]);
    ml_free_order_finish(&o);
    for (size_t i = 0; i < n; i++) got[i] = ml_free_order_place(&o, ev[i]);
    ml_free_order_free(&o);
    for (size_t i = 0; i < n; i++) CHECK_EQ_I64((int64_t)got[i], (int64_t)want[i]);
}

TEST(frees_placed_in_event_order)
{
    /* distinct events across words, and frees without one (ML_NONE32, beyond N_EV) */
    static const uint32_t unique[] = { 500, 3, 0xffffffffu, 64, 63, 999, 1001, 128, 0, 65, 0xffffffffu, 700 };
    check_places(unique, sizeof unique / sizeof *unique);
    /* an event freed twice: the counts per event, the bits so far included */
    static const uint32_t twice[] = { 70, 0xffffffffu, 5, 900, 5, 1, 0xffffffffu, 70, 2 };
    check_places(twice, sizeof twice / sizeof *twice);
    check_places(twice, 0);
    /* the same from a scratch pool (the buffers given back to it) */
    ml_bufpool pool = {0};
    ml_scratch_open(&pool);
    check_places(unique, sizeof unique / sizeof *unique);
    check_places(twice, sizeof twice / sizeof *twice);
    check_places(unique, sizeof unique / sizeof *unique);
    ml_scratch_close();
}

int main(void)
{
    RUN(frees_placed_in_event_order);
    return check_report();
}
