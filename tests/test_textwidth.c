/*
 * test_textwidth.c — output/textwidth.h: the width text tables are fitted to
 * ($COLUMNS when stdout is not a terminal) and names cut with an ellipsis.
 */
#include "check.h"
#include "textwidth.h"

TEST(fit_unchanged_when_it_fits)
{
    char buf[64];
    const char *s = "aten::mm";
    CHECK(ml_fit(s, 8, 1, buf, sizeof buf) == s);  /* exactly 8 columns */
    CHECK(ml_fit(s, 0, 1, buf, sizeof buf) == s);  /* 0: unlimited */
    CHECK(ml_fit(s, 20, 0, buf, sizeof buf) == s);
}

TEST(fit_middle_and_end)
{
    char buf[64];
    /* 10 columns of "abcdefghijklmnop" (16): 9 kept, 5 in front and 4 behind the "…" */
    CHECK_EQ_STR(ml_fit("abcdefghijklmnop", 10, 1, buf, sizeof buf), "abcde\xE2\x80\xA6mnop");
    CHECK_EQ_I64(ml_text_cols(buf), 10);
    /* at the end: 9 kept, then "…" */
    CHECK_EQ_STR(ml_fit("abcdefghijklmnop", 10, 0, buf, sizeof buf), "abcdefghi\xE2\x80\xA6");
    /* below 2 columns counts as 2: one character and the ellipsis */
    CHECK_EQ_STR(ml_fit("abcdef", 1, 0, buf, sizeof buf), "a\xE2\x80\xA6");
}

TEST(fit_never_splits_utf8)
{
    char buf[64];
    /* "µs µs µs" is 8 code points (11 bytes); 5 columns at the end: "µs µ…" */
    CHECK_EQ_I64(ml_text_cols("\xC2\xB5s \xC2\xB5s \xC2\xB5s"), 8);
    CHECK_EQ_STR(ml_fit("\xC2\xB5s \xC2\xB5s \xC2\xB5s", 5, 0, buf, sizeof buf), "\xC2\xB5s \xC2\xB5\xE2\x80\xA6");
    CHECK_EQ_I64(ml_text_cols(buf), 5);
}

TEST(width_from_columns_when_not_a_terminal)
{
    FILE *f = tmpfile(); /* a file is not a terminal */
    if (!f) {
        SKIP("no tmpfile");
        return;
    }
    setenv("COLUMNS", "77", 1);
    CHECK_EQ_I64(ml_term_width(f), 77);
    setenv("COLUMNS", "wide", 1);
    CHECK_EQ_I64(ml_term_width(f), 0);
    unsetenv("COLUMNS");
    CHECK_EQ_I64(ml_term_width(f), 0); /* a pipe or file: unlimited */
    fclose(f);
}

int main(void)
{
    RUN(fit_unchanged_when_it_fits);
    RUN(fit_middle_and_end);
    RUN(fit_never_splits_utf8);
    RUN(width_from_columns_when_not_a_terminal);
    return check_report();
}
