/*
 * textwidth.h — fitting text tables to the terminal: the width to write to
 * (the terminal's when the stream is one, else $COLUMNS, else unlimited for
 * pipes and files) and names cut to a number of columns with an ellipsis.
 * Columns are counted as UTF-8 code points (names are ASCII in practice).
 */
#ifndef ML_TEXTWIDTH_H
#define ML_TEXTWIDTH_H

#include <stddef.h>
#include <stdio.h>

/* Columns of f: the terminal's (TIOCGWINSZ) when f is a terminal, else a
 * positive $COLUMNS, else 0: unlimited. */
int ml_term_width(FILE *f);

/* Text from the input goes to the terminal escaped: a name may hold bytes a
 * terminal acts on (ESC sequences that colour it or move the cursor, BEL,
 * CR and LF that print fake lines) or that are not UTF-8.  Such a byte is
 * written as \n \r \t \e \a or \xHH (a C1 control, U+0080..U+009F, as
 * \u0080..\u009f; a backslash stays as is).  Whether s needs it: */
int ml_text_unsafe(const char *s);
/* s itself when it needs no escape; else buf holding s escaped (cut with "…"
 * to fit cap: 4 * strlen(s) + 1 always suffices).  ML_TEXT_SAFE(s) gives it
 * a buffer of its own, valid to the end of the enclosing block, holding at
 * most ML_TEXT_SAFE_MAX bytes: for names printed with %s. */
const char *ml_text_safe(const char *s, char *buf, size_t cap);
#define ML_TEXT_SAFE_MAX 1024
#define ML_TEXT_SAFE(s) ml_text_safe((s), (char[ML_TEXT_SAFE_MAX]){0}, ML_TEXT_SAFE_MAX)
/* Writes s to f escaped. */
void ml_put_text(FILE *f, const char *s);

/* Display columns of UTF-8 text (code points), as escaped. */
int ml_text_cols(const char *s);

/* s itself when it fits in cols columns (or cols <= 0: unlimited) and needs
 * no escape; else buf holding it (escaped) as is, or its start and its end
 * joined by "…" (middle) or its start and "…" (end), exactly cols columns.
 * cols below 2 count as 2.  A buffer of 4 * (cols > 0 ? cols : strlen(s)) + 8
 * bytes always suffices. */
const char *ml_fit(const char *s, int cols, int middle, char *buf, size_t cap);

/* ml_fit for a C++ function name, a kernel's: one that does not fit loses
 * first its return type "void " and its parameter list, written "(…)", then
 * its template arguments, "<…>", before it is cut in the middle:
 * "split_embedding_codegen_forward_unweighted_kernel<…>(…)".  Other text as
 * ml_fit (cut at the end). */
const char *ml_fit_symbol(const char *s, int cols, char *buf, size_t cap);

/* The n names of a table's rows, each fitted in cols columns as ml_fit does
 * (escaped, cut in the middle or at the end), but two different names never
 * read the same: names whose cuts would be one text keep, after a short head
 * and "…", the place where they differ ("volta_s…mm_128x64_slic…" and
 * "volta_s…mm_32x32_slice…", not "volta_sgemm…liced1x4_tn" twice).  Returns
 * n malloc'd strings, freed with ml_fit_apart_free. */
char **ml_fit_apart(const char *const *names, size_t n, int cols, int middle);
void ml_fit_apart_free(char **fitted, size_t n);

#endif
