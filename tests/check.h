/*
 * check.h — the tiny unit-test harness every tests/test_*.c uses.
 *
 *     #include "check.h"
 *     TEST(parses_numbers) { CHECK_EQ_I64(parse("12"), 12); }
 *     int main(void) { RUN(parses_numbers); return check_report(); }
 *
 * Each failed CHECK prints "FAIL test: file:line: what" and the test goes on.
 * check_report() prints "name: N passed, N failed" (tests, not checks) and
 * returns the exit status; tests/run adds the counts of all binaries up.
 * SKIP("why") marks a test skipped (e.g. ../shared/data is absent).
 */
#ifndef ML_CHECK_H
#define ML_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failed_now, check_skipped_now;
static int check_passed, check_failed, check_skipped;
static const char *check_current;

#define TEST(name) static void test_##name(void)

#define RUN(name)                                                          \
    do {                                                                   \
        check_current = #name;                                             \
        check_failed_now = check_skipped_now = 0;                          \
        test_##name();                                                     \
        if (check_failed_now) check_failed++;                              \
        else if (check_skipped_now) {                                      \
            check_skipped++;                                               \
        } else check_passed++;                                             \
    } while (0)

#define CHECK_FAILED_(...)                                                 \
    do {                                                                   \
        printf("FAIL %s: %s:%d: ", check_current, __FILE__, __LINE__);     \
        printf(__VA_ARGS__);                                               \
        printf("\n");                                                      \
        check_failed_now = 1;                                              \
    } while (0)

#define CHECK(cond)                                                        \
    do { if (!(cond)) CHECK_FAILED_("%s", #cond); } while (0)

#define CHECK_EQ_I64(a, b)                                                 \
    do {                                                                   \
        long long a_ = (long long)(a), b_ = (long long)(b);               \
        if (a_ != b_) CHECK_FAILED_("%s == %lld, expected %lld", #a, a_, b_); \
    } while (0)

#define CHECK_EQ_DBL(a, b, eps)                                            \
    do {                                                                   \
        double a_ = (a), b_ = (b);                                         \
        if (!(a_ - b_ <= (eps) && b_ - a_ <= (eps)))                       \
            CHECK_FAILED_("%s == %.17g, expected %.17g", #a, a_, b_);     \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                 \
    do {                                                                   \
        const char *a_ = (a), *b_ = (b);                                   \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                             \
            CHECK_FAILED_("%s == \"%s\", expected \"%s\"", #a,             \
                          a_ ? a_ : "(null)", b_ ? b_ : "(null)");         \
    } while (0)

/* Substring check, for error messages. */
#define CHECK_CONTAINS(hay, needle)                                        \
    do {                                                                   \
        const char *h_ = (hay), *n_ = (needle);                            \
        if (!h_ || !strstr(h_, n_))                                        \
            CHECK_FAILED_("%s == \"%s\" lacks \"%s\"", #hay,               \
                          h_ ? h_ : "(null)", n_);                         \
    } while (0)

#define SKIP(why)                                                          \
    do {                                                                   \
        printf("SKIP %s: %s\n", check_current, why);                       \
        check_skipped_now = 1;                                             \
        return;                                                            \
    } while (0)

static inline int check_report(void)
{
    printf("%s: %d passed, %d failed, %d skipped\n", __BASE_FILE__, check_passed,
           check_failed, check_skipped);
    return check_failed ? 1 : 0;
}

/* Where the shared real-data folder is: $MEMLENS_DATA or ../shared/data. */
static inline const char *check_data_dir(void)
{
    const char *d = getenv("MEMLENS_DATA");
    return d ? d : "../shared/data";
}

#endif
