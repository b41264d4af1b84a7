/* test_csv.c — the CSV reader and exact decimal scaling (readers/csv.h).
 * Expected decimal products were computed with Python's decimal module
 * (tests/ascend_expected.py prints them). */
#include "check.h"
#include "csv.h"
#include "decimal.h"

static int64_t scale(const char *s, int64_t mul, int *ok)
{
    int64_t v = -777;
    *ok = ml_parse_units(s, strlen(s), mul, &v) == 0;
    return v;
}

TEST(decimal_exact)
{
    int ok;
    CHECK_EQ_I64(scale("1736408883694624.810", ML_US_TO_NS, &ok), 1736408883694624810LL);
    CHECK(ok);
    CHECK_EQ_I64(scale("1261.04296875", ML_MIB, &ok), 1322299392LL);
    CHECK_EQ_I64(scale("1526.75", ML_MIB, &ok), 1600913408LL);
    CHECK_EQ_I64(scale("2113.73046875", ML_MIB, &ok), 2216407040LL);
    CHECK_EQ_I64(scale("954.3701171875", ML_MIB, &ok), 1000729600LL);
    CHECK_EQ_I64(scale("18816.5", ML_KIB, &ok), 19268096LL);
    CHECK_EQ_I64(scale("0.0", ML_MIB, &ok), 0);
    CHECK_EQ_I64(scale("-1", ML_MIB, &ok), -1048576LL);
    CHECK_EQ_I64(scale("+2.5", ML_KIB, &ok), 2560);
    CHECK_EQ_I64(scale("7", 1, &ok), 7);
    CHECK_EQ_I64(scale(".5", ML_KIB, &ok), 512);
    CHECK_EQ_I64(scale("3.", ML_KIB, &ok), 3072);
    CHECK(ok);
    /* A double would lose this: 2^53 < 9007199254740993 */
    CHECK_EQ_I64(scale("9007199254740993", 1, &ok), 9007199254740993LL);
    CHECK_EQ_I64(scale("9223372036854775.807", ML_US_TO_NS, &ok), INT64_MAX);
    CHECK(ok);
    CHECK_EQ_I64(scale("-9223372036854775.808", ML_US_TO_NS, &ok), INT64_MIN);
    CHECK(ok);
}

TEST(decimal_rounding)
{
    int ok;
    CHECK_EQ_I64(scale("0.0005", ML_US_TO_NS, &ok), 1);   /* tie: away from zero */
    CHECK_EQ_I64(scale("0.0004999", ML_US_TO_NS, &ok), 0);
    CHECK_EQ_I64(scale("-0.0005", ML_US_TO_NS, &ok), -1);
    CHECK_EQ_I64(scale("0.0000001", ML_KIB, &ok), 0);
    CHECK_EQ_I64(scale("1.00000000000000000000000009", ML_US_TO_NS, &ok), 1000);
    CHECK(ok);
}

/* Python writes small floats with an exponent (str(1/1048576) is
 * "9.5367431640625e-07"): the digits are scaled exactly, then rounded to the
 * unit like a plain decimal.  Values from Python's decimal module, ROUND_HALF_UP. */
TEST(decimal_exponent)
{
    int ok;
    CHECK_EQ_I64(scale("9.5367431640625e-07", ML_MIB, &ok), 1);
    CHECK(ok);
    CHECK_EQ_I64(scale("4.76837158203125E-7", ML_MIB, &ok), 1); /* 0.5 byte: a tie, away from zero */
    CHECK_EQ_I64(scale("1.2345678901234567e-05", ML_MIB, &ok), 13);
    CHECK_EQ_I64(scale("1.5e3", 1, &ok), 1500);
    CHECK_EQ_I64(scale("1E+2", ML_KIB, &ok), 102400);
    CHECK_EQ_I64(scale("-2.5e-4", ML_US_TO_NS, &ok), 0);
    CHECK_EQ_I64(scale("5e-4", ML_US_TO_NS, &ok), 1);
    CHECK_EQ_I64(scale("-5e-4", ML_US_TO_NS, &ok), -1);
    CHECK_EQ_I64(scale("1736408883694624810e-3", ML_US_TO_NS, &ok), 1736408883694624810LL);
    CHECK_EQ_I64(scale("9.223372036854775807e18", 1, &ok), INT64_MAX);
    CHECK(ok);
    CHECK_EQ_I64(scale("-9.223372036854775808e18", 1, &ok), INT64_MIN);
    CHECK(ok);
    CHECK_EQ_I64(scale("1e-9999", ML_MIB, &ok), 0);
    CHECK_EQ_I64(scale("0e9999", 1, &ok), 0);
    CHECK(ok);
    /* integral: exact integers only */
    int64_t v = -1;
    CHECK_EQ_I64(ml_parse_integral("12.0", 4, &v), 0);
    CHECK_EQ_I64(v, 12);
    CHECK_EQ_I64(ml_parse_integral("1.2e1", 5, &v), 0);
    CHECK_EQ_I64(v, 12);
    CHECK_EQ_I64(ml_parse_integral("1.5", 3, &v), -1);
    CHECK_EQ_I64(ml_parse_integral("15e-1", 5, &v), -1);
    CHECK_EQ_I64(ml_parse_integral("1.00000000000000000000000000001", 31, &v), -1);
}

TEST(decimal_rejects)
{
    const char *bad[] = {"", "abc", ".", "-", "+", "1e", "e5", "1e+", "1.5e3.2", "1e3x", "1e1.5", "1e10000",
                         "1e9999", ".e1", "9.223372036854775808e18", "12.3.4", "1,5", " 1", "0x10", "1-",
                         "inf", "nan", "9223372036854775808", "9223372036854775.808"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int ok;
        scale(bad[i], ML_US_TO_NS, &ok);
        if (ok) CHECK_FAILED_("'%s' accepted", bad[i]);
    }
    int ok;
    scale("99999999999999", ML_MIB, &ok); /* 1.05e20 bytes: out of int64 */
    CHECK(!ok);
}

/* Opens text as a CSV over memory; the caller closes both. */
static ml_csv *open_text(const char *text, ml_source **src, ml_err *e)
{
    *src = ml_source_from_memory("t.csv", text, strlen(text));
    ml_csv *c = NULL;
    if (ml_csv_open(*src, &c, e)) return NULL;
    return c;
}

TEST(records_quotes_crlf_bom_tabs)
{
    const char *text = "\xEF\xBB\xBFName,Time(us),Note\r\n"
                       "a,\"1736408883694624.810\t\",plain\r\n"
                       "\r\n"
                       "\"b, with comma\",1736408883694625.000\t,\"say \"\"hi\"\"\"\r\n"
                       "c,2,\"two\nlines\"\n"
                       "d,3,last-no-newline";
    ml_source *src;
    ml_err e = {{0}};
    ml_csv *c = open_text(text, &src, &e);
    CHECK(c != NULL);
    if (!c) { printf("%s\n", e.msg); ml_source_close(src); return; }
    CHECK_EQ_I64(ml_csv_ncols(c), 3);
    CHECK_EQ_I64(ml_csv_col(c, "Name"), 0); /* BOM is not part of the first name */
    CHECK_EQ_I64(ml_csv_col(c, "Note"), 2);
    CHECK_EQ_I64(ml_csv_col(c, "nope"), -1);
    int t = ml_csv_col(c, "Time(us)");
    size_t n;

    CHECK_EQ_I64(ml_csv_next(c, &e), 1);
    CHECK_EQ_STR(ml_csv_cell(c, 0, &n), "a");
    CHECK_EQ_STR(ml_csv_cell(c, t, &n), "1736408883694624.810");
    CHECK_EQ_I64(n, 20);
    int64_t ns;
    CHECK_EQ_I64(ml_csv_scaled(c, t, ML_US_TO_NS, &ns, NULL, &e), 0);
    CHECK_EQ_I64(ns, 1736408883694624810LL);
    CHECK_EQ_I64(ml_csv_line(c), 2);

    CHECK_EQ_I64(ml_csv_next(c, &e), 1); /* the blank line is skipped */
    CHECK_EQ_STR(ml_csv_cell(c, 0, &n), "b, with comma");
    CHECK_EQ_STR(ml_csv_cell(c, 2, &n), "say \"hi\"");
    CHECK_EQ_STR(ml_csv_cell(c, 1, &n), "1736408883694625.000");
    CHECK_EQ_I64(ml_csv_line(c), 4);

    CHECK_EQ_I64(ml_csv_next(c, &e), 1);
    CHECK_EQ_STR(ml_csv_cell(c, 2, &n), "two\nlines");
    CHECK_EQ_I64(ml_csv_line(c), 5);

    CHECK_EQ_I64(ml_csv_next(c, &e), 1);
    CHECK_EQ_STR(ml_csv_cell(c, 0, &n), "d");
    CHECK_EQ_STR(ml_csv_cell(c, 2, &n), "last-no-newline");
    CHECK_EQ_I64(ml_csv_line(c), 7);
    CHECK_EQ_STR(ml_csv_cell(c, -1, &n), "");

    CHECK_EQ_I64(ml_csv_next(c, &e), 0);
    CHECK_EQ_I64(ml_csv_next(c, &e), 0);
    ml_csv_close(c);
    ml_source_close(src);
}

TEST(blank_cells)
{
    ml_source *src;
    ml_err e = {{0}};
    ml_csv *c = open_text("A,B\n,\t\n", &src, &e);
    CHECK(c != NULL);
    if (!c) { ml_source_close(src); return; }
    CHECK_EQ_I64(ml_csv_next(c, &e), 1);
    int64_t v = 5;
    bool blank = false;
    CHECK_EQ_I64(ml_csv_scaled(c, 1, ML_MIB, &v, &blank, &e), 0);
    CHECK(blank);
    CHECK_EQ_I64(v, 0);
    CHECK_EQ_I64(ml_csv_scaled(c, 0, ML_MIB, &v, NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "t.csv: line 2: column 'A' is empty");
    ml_csv_close(c);
    ml_source_close(src);
}

TEST(errors_name_file_and_line)
{
    ml_source *src;
    ml_err e = {{0}};
    ml_csv *c = open_text("Name,Size(KB)\nx,1\ny,abc\n", &src, &e);
    CHECK(c != NULL);
    if (!c) { ml_source_close(src); return; }
    int col;
    CHECK_EQ_I64(ml_csv_need(c, "Size(KB)", &col, &e), 0);
    CHECK_EQ_I64(ml_csv_need(c, "Release Time(us)", &col, &e), -1);
    CHECK_CONTAINS(e.msg, "t.csv: line 1: missing column 'Release Time(us)'");
    int64_t v;
    CHECK_EQ_I64(ml_csv_next(c, &e), 1);
    CHECK_EQ_I64(ml_csv_scaled(c, 1, ML_KIB, &v, NULL, &e), 0);
    CHECK_EQ_I64(v, 1024);
    CHECK_EQ_I64(ml_csv_next(c, &e), 1);
    CHECK_EQ_I64(ml_csv_scaled(c, 1, ML_KIB, &v, NULL, &e), -1);
    CHECK_CONTAINS(e.msg, "t.csv: line 3: column 'Size(KB)': 'abc' is not a number");
    ml_csv_close(c);
    ml_source_close(src);

    c = open_text("A,B\n1,2\n1,2,3\n", &src, &e);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_I64(ml_csv_next(c, &e), 1);
        CHECK_EQ_I64(ml_csv_next(c, &e), -1);
        CHECK_CONTAINS(e.msg, "t.csv: line 3: 3 cells, but the header has 2 columns");
        ml_csv_close(c);
    }
    ml_source_close(src);

    c = open_text("A,B\n1\n", &src, &e);
    if (c) {
        CHECK_EQ_I64(ml_csv_next(c, &e), -1);
        CHECK_CONTAINS(e.msg, "line 2: 1 cells, but the header has 2");
        ml_csv_close(c);
    }
    ml_source_close(src);

    c = open_text("A,B\n1,\"open\n\n", &src, &e);
    if (c) {
        CHECK_EQ_I64(ml_csv_next(c, &e), -1);
        CHECK_CONTAINS(e.msg, "t.csv: line 2: quoted cell not closed");
        ml_csv_close(c);
    }
    ml_source_close(src);

    c = open_text("", &src, &e);
    CHECK(c == NULL);
    CHECK_CONTAINS(e.msg, "t.csv: empty file: no CSV header");
    ml_source_close(src);

    c = open_text("A,B\r\n", &src, &e); /* header only: no rows, not an error */
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ_I64(ml_csv_next(c, &e), 0);
        ml_csv_close(c);
    }
    ml_source_close(src);
}

int main(void)
{
    RUN(decimal_exact);
    RUN(decimal_rounding);
    RUN(decimal_exponent);
    RUN(decimal_rejects);
    RUN(records_quotes_crlf_bom_tabs);
    RUN(blank_cells);
    RUN(errors_name_file_and_line);
    return check_report();
}
