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

/* Display columns of UTF-8 text (code points). */
int ml_text_cols(const char *s);

/* s itself when it fits in cols columns (or cols <= 0: unlimited); else buf
 * holding its start and its end joined by "…" (middle) or its start and "…"
 * (end), exactly cols columns.  cols below 2 count as 2. */
const char *ml_fit(const char *s, int cols, int middle, char *buf, size_t cap);

#endif
