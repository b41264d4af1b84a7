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

TEST(fit_apart_keeps_different_names_different)
{
    /* four cuBLAS kernels that ml_fit cuts to the same 23 columns in pairs
     * ("volta_sgemm…liced1x4_tn"), as the kernel table at 80 columns did */
    const char *names[] = {"volta_sgemm_64x32_sliced1x4_tn", "volta_sgemm_32x32_sliced1x4_tn",
                           "volta_sgemm_64x32_sliced1x4_nt", "volta_sgemm_32x32_sliced1x4_nt",
                           "volta_sgemm_128x32_nn", "volta_sgemm_64x32_sliced1x4_tn"};
    char a[128], b[128];
    CHECK_EQ_STR(ml_fit(names[0], 23, 1, a, sizeof a), ml_fit(names[1], 23, 1, b, sizeof b));
    char **fit = ml_fit_apart(names, 6, 23, 1);
    CHECK(fit != NULL);
    if (!fit) return;
    for (int i = 0; i < 4; i++) {
        CHECK(ml_text_cols(fit[i]) <= 23);
        for (int j = 0; j < i; j++) CHECK(strcmp(fit[i], fit[j]) != 0);
    }
    CHECK_EQ_STR(fit[4], "volta_sgemm_128x32_nn"); /* it fits: as it is */
    CHECK_EQ_STR(fit[5], fit[0]);                  /* the same name: the same text */
    /* each shows where it parts from the others: its size and its layout */
    CHECK_CONTAINS(fit[0], "64x32");
    CHECK_CONTAINS(fit[0], "_tn");
    CHECK_CONTAINS(fit[3], "32x32");
    CHECK_CONTAINS(fit[3], "_nt");
    ml_fit_apart_free(fit, 6);
    /* names that fit, or no width: unchanged */
    const char *two[] = {"aten::mm", "aten::addmm"};
    fit = ml_fit_apart(two, 2, 0, 0);
    CHECK_EQ_STR(fit[0], "aten::mm");
    CHECK_EQ_STR(fit[1], "aten::addmm");
    ml_fit_apart_free(fit, 2);
    /* cut at the end, as the operator table does: two backward functions */
    const char *ops[] = {"autograd::engine::evaluate_function: AddmmBackward0",
                         "autograd::engine::evaluate_function: MmBackward0"};
    fit = ml_fit_apart(ops, 2, 30, 0);
    CHECK(strcmp(fit[0], fit[1]) != 0);
    CHECK(ml_text_cols(fit[0]) <= 30 && ml_text_cols(fit[1]) <= 30);
    ml_fit_apart_free(fit, 2);
}

int main(void)
{
    RUN(fit_unchanged_when_it_fits);
    RUN(fit_middle_and_end);
    RUN(fit_never_splits_utf8);
    RUN(width_from_columns_when_not_a_terminal);
    RUN(fit_symbol_drops_parameters_then_templates);
    RUN(fit_apart_keeps_different_names_different);
    return check_report();
}
