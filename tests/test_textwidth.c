/*
 * test_textwidth.c — output/textwidth.h: the width text tables are fitted to
 * ($COLUMNS when stdout is not a terminal) and names cut with an ellipsis.
 */
#include <string.h>

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

/* A kernel's C++ name that does not fit loses its return type and parameter
 * list, then its template arguments, then is cut in the middle; one that fits
 * is unchanged. */
TEST(fit_symbol_drops_parameters_then_templates)
{
    char buf[512];
    const char *k = "void split_kernel<c10::Half, float, 2ul>(at::Accessor<float, 2ul, long>, int, bool)";
    const char *E = "\xE2\x80\xA6"; /* … */
    char want[128];
    CHECK(ml_fit_symbol(k, 0, buf, sizeof buf) == k);   /* unlimited */
    CHECK(ml_fit_symbol(k, 200, buf, sizeof buf) == k); /* it fits */
    /* "split_kernel<c10::Half, float, 2ul>(…)": 38 columns */
    snprintf(want, sizeof want, "split_kernel<c10::Half, float, 2ul>(%s)", E);
    CHECK_EQ_STR(ml_fit_symbol(k, 38, buf, sizeof buf), want);
    /* one column fewer: "split_kernel<…>(…)", 18 columns */
    snprintf(want, sizeof want, "split_kernel<%s>(%s)", E, E);
    CHECK_EQ_STR(ml_fit_symbol(k, 37, buf, sizeof buf), want);
    CHECK_EQ_STR(ml_fit_symbol(k, 18, buf, sizeof buf), want);
    /* fewer still: cut in the middle, 10 columns */
    snprintf(want, sizeof want, "split%s>(%s)", E, E);
    CHECK_EQ_STR(ml_fit_symbol(k, 10, buf, sizeof buf), want);
    /* "(anonymous namespace)" is part of the name; parentheses inside template
     * arguments are not the parameter list */
    const char *a = "void at::native::(anonymous namespace)::cat_kernel<decltype(nullptr), 4>(float*, int)";
    snprintf(want, sizeof want, "at::native::(anonymous namespace)::cat_kernel<decltype(nullptr), 4>(%s)", E);
    CHECK_EQ_STR(ml_fit_symbol(a, 70, buf, sizeof buf), want);
    snprintf(want, sizeof want, "at::native::(anonymous namespace)::cat_kernel<%s>(%s)", E, E);
    CHECK_EQ_STR(ml_fit_symbol(a, 60, buf, sizeof buf), want);
    /* a name cut short inside its template arguments (a contributor's name, 200 bytes at most) */
    snprintf(want, sizeof want, "gemm<%s>", E);
    CHECK_EQ_STR(ml_fit_symbol("void gemm<float, at::Accessor<float, 2ul, at::Restri", 12, buf, sizeof buf), want);
    /* "split_embedding_backward_cta_per_row<…>(…)" in 30 columns: 15 in front, 14 behind */
    snprintf(want, sizeof want, "split_embedding%s_per_row<%s>(%s)", E, E, E);
    CHECK_EQ_STR(ml_fit_symbol("void split_embedding_backward_cta_per_row<float, 2ul>(float*, int)", 30, buf, sizeof buf), want);
    /* empty template argument lists grow when written "<…>" (5 bytes for 2: the
     * sanitizer pass checks the buffer); the result still 40 columns */
    char many[128] = "f";
    for (int i = 0; i < 40; i++) strcat(many, "<>");
    strcat(many, "(int)");
    CHECK_EQ_I64(ml_text_cols(ml_fit_symbol(many, 40, buf, sizeof buf)), 40);
    /* not C++: as ml_fit, cut at the end */
    snprintf(want, sizeof want, "Memcpy HtoD%s", E);
    CHECK_EQ_STR(ml_fit_symbol("Memcpy HtoD (Pinned -> Device)", 12, buf, sizeof buf), want);
}

int main(void)
{
    RUN(fit_unchanged_when_it_fits);
    RUN(fit_middle_and_end);
    RUN(fit_never_splits_utf8);
    RUN(width_from_columns_when_not_a_terminal);
    RUN(fit_symbol_drops_parameters_then_templates);
    return check_report();
}
