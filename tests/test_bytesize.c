/*
 * test_bytesize.c — common/bytesize.h: a number of bytes in binary units, as
 * every text output and note prints sizes, down to the extremes of int64_t.
 */
#include <stdint.h>

#include "bytesize.h"
#include "check.h"

TEST(units_and_signs)
{
    char b[32];
    CHECK_EQ_STR(ml_fmt_bytes(0, b, sizeof b), "0 B");
    CHECK_EQ_STR(ml_fmt_bytes(1023, b, sizeof b), "1023 B");
    CHECK_EQ_STR(ml_fmt_bytes(1024, b, sizeof b), "1.00 KiB");
    CHECK_EQ_STR(ml_fmt_bytes(-1536, b, sizeof b), "-1.50 KiB");
    CHECK_EQ_STR(ml_fmt_bytes(13696976896, b, sizeof b), "12.76 GiB"); /* the fullstep snapshot's note */
    CHECK_EQ_STR(ml_fmt_bytes(-512, b, sizeof b), "-512 B");
}

TEST(extremes_of_int64)
{
    char b[32];
    /* 2^63 B = 8192 PiB (PiB is the largest unit); -INT64_MIN does not fit
     * an int64_t, so the magnitude is taken unsigned (UBSan checks it) */
    CHECK_EQ_STR(ml_fmt_bytes(INT64_MIN, b, sizeof b), "-8192.00 PiB");
    CHECK_EQ_STR(ml_fmt_bytes(INT64_MAX, b, sizeof b), "8192.00 PiB");
}

int main(void)
{
    RUN(units_and_signs);
    RUN(extremes_of_int64);
    return check_report();
}
